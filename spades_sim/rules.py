"""The rule set: one frozen dataclass field per variant of RULES.md, presets, lowering.

A :class:`Rules` is validated when it is built (``__post_init__``): a bad value or an
impossible combination raises ``ValueError`` naming the field. ``Rules.lower()`` turns it
into the int64 array the kernels read by the constants of ``spades_sim._nb.layout``.

>>> Rules().target, Rules.preset("mercy").loss_threshold
(500, -200)
>>> Rules(players=2, first_lead="two_of_clubs")
Traceback (most recent call last):
...
ValueError: first_lead: 'two_of_clubs' is refused with two players (the 2C may lie unused)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from spades_sim._nb import layout as L

FIRST_LEADS = ("any_but_spades", "two_of_clubs")
SPADES_LEADS = ("after_broken", "any_time")


@dataclass(frozen=True)
class Rules:
    """A complete Spades rule set (RULES.md); every field has the standard default.

    >>> Rules(target=300, bag_penalty=0).target
    300
    """

    players: int = 4
    jokers: bool = False
    blind_nil: bool = True
    blind_nil_min_deficit: int = 0
    blind_nil_exchange: int = 0
    first_lead: str = "any_but_spades"
    spades_lead: str = "after_broken"
    boston_bonus: int = 0
    nil_value: int = 100
    blind_nil_value: int = 200
    nil_tricks_count_for_partner: bool = False
    nil_tricks_count_as_bags: bool = True
    bag_limit: int = 10
    bag_penalty: int = 100
    target: int = 500
    loss_threshold: int | None = None
    max_hands: int = 200

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "standard": {},
        "no-bags": {"bag_penalty": 0, "target": 300},
        "blind-nil-exchange": {"blind_nil_exchange": 3},
        "mercy": {"loss_threshold": -200},
        "two-player": {"players": 2, "blind_nil_exchange": 3},
        "jokers": {"jokers": True},
        "openspiel": {
            "nil_tricks_count_for_partner": True,
            "nil_tricks_count_as_bags": False,
            "blind_nil": False,
        },
    }

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.type == "bool" and not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{spec.name}: expected true or false, got {value!r}")
            is_int_field = spec.type == "int" or (spec.type == "int | None" and value is not None)
            is_bool = isinstance(value, (bool, np.bool_))
            is_int = isinstance(value, (int, np.integer)) and not is_bool
            if is_int_field and not is_int:
                raise ValueError(f"{spec.name}: expected a whole number, got {value!r}")
        self._check_ranges()
        self._check_combinations()

    def _check_ranges(self) -> None:
        def need(ok: bool, name: str, what: str) -> None:
            if not ok:
                raise ValueError(f"{name}: {what}, got {getattr(self, name)!r}")

        need(self.players in (2, 4), "players", "must be 4 or 2")
        need(self.first_lead in FIRST_LEADS, "first_lead", f"must be one of {FIRST_LEADS}")
        need(self.spades_lead in SPADES_LEADS, "spades_lead", f"must be one of {SPADES_LEADS}")
        need(
            0 <= self.blind_nil_min_deficit <= 100_000, "blind_nil_min_deficit", "must be 0..100000"
        )
        need(0 <= self.blind_nil_exchange <= 13, "blind_nil_exchange", "must be 0..13 cards")
        need(0 <= self.boston_bonus <= 10_000, "boston_bonus", "must be 0..10000")
        need(0 <= self.nil_value <= 10_000, "nil_value", "must be 0..10000")
        need(0 <= self.blind_nil_value <= 10_000, "blind_nil_value", "must be 0..10000")
        need(1 <= self.bag_limit <= 1_000, "bag_limit", "must be 1..1000")
        need(0 <= self.bag_penalty <= 10_000, "bag_penalty", "must be 0..10000")
        need(1 <= self.target <= 100_000, "target", "must be 1..100000")
        # 10,000 keeps every count and score of a game inside its column (schema.py)
        need(1 <= self.max_hands <= 10_000, "max_hands", "must be 1..10000")
        if self.loss_threshold is not None:
            need(
                -100_000 <= self.loss_threshold < self.target,
                "loss_threshold",
                "must be below target (and not below -100000), or None for off",
            )

    def _check_combinations(self) -> None:
        if self.players == 2 and self.first_lead == "two_of_clubs":
            raise ValueError(
                "first_lead: 'two_of_clubs' is refused with two players (the 2C may lie unused)"
            )
        if self.nil_tricks_count_for_partner and self.nil_tricks_count_as_bags:
            raise ValueError(
                "nil_tricks_count_for_partner: cannot be true together with "
                "nil_tricks_count_as_bags (that counts nil tricks twice)"
            )
        if not self.blind_nil and self.blind_nil_exchange:
            raise ValueError("blind_nil_exchange: must be 0 when blind_nil is false")
        if not self.blind_nil and self.blind_nil_min_deficit:
            raise ValueError("blind_nil_min_deficit: must be 0 when blind_nil is false")

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named rule set of RULES.md, optionally with some fields changed.

        >>> Rules.preset("two-player").blind_nil_exchange
        3
        >>> Rules.preset("jokers", target=300).target
        300
        """
        if name not in cls.PRESETS:
            known = ", ".join(cls.PRESETS)
            raise ValueError(f"unknown rules preset {name!r} (known: {known})")
        return cls(**(cls.PRESETS[name] | overrides))

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of all rule fields, in declaration order."""
        return tuple(spec.name for spec in fields(cls))

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated again); unknown names are refused.

        >>> Rules().replace(target=250).target
        250
        """
        unknown = set(changes) - set(self.field_names())
        if unknown:
            raise ValueError(f"unknown rules field {sorted(unknown)[0]!r}")
        return dataclasses.replace(self, **changes)

    def with_text(self, assignments: dict[str, str]) -> Rules:
        """A copy with fields set from text values, as given on a command line or in TOML.

        >>> Rules().with_text({"target": "300", "jokers": "true", "loss_threshold": "-200"})
        ... # doctest: +ELLIPSIS
        Rules(players=4, jokers=True, ..., target=300, loss_threshold=-200, max_hands=200)
        """
        types = {spec.name: spec.type for spec in fields(self)}
        changes: dict[str, Any] = {}
        for name, text in assignments.items():
            if name not in types:
                raise ValueError(f"unknown rules field {name!r}")
            changes[name] = _convert(name, types[name], text)
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for manifests and Parquet metadata)."""
        return dataclasses.asdict(self)

    def lower(self) -> np.ndarray:
        """The int64 parameter array the kernels read (indices in ``_nb.layout``)."""
        out = np.zeros(L.N_RULE_FIELDS, dtype=np.int64)
        out[L.R_PLAYERS] = self.players
        out[L.R_JOKERS] = self.jokers
        out[L.R_BLIND_NIL] = self.blind_nil
        out[L.R_BLIND_NIL_MIN_DEFICIT] = self.blind_nil_min_deficit
        out[L.R_BLIND_NIL_EXCHANGE] = self.blind_nil_exchange
        out[L.R_FIRST_LEAD_TWO_CLUBS] = self.first_lead == "two_of_clubs"
        out[L.R_SPADES_ANY_TIME] = self.spades_lead == "any_time"
        out[L.R_BOSTON_BONUS] = self.boston_bonus
        out[L.R_NIL_VALUE] = self.nil_value
        out[L.R_BLIND_NIL_VALUE] = self.blind_nil_value
        out[L.R_NIL_TRICKS_FOR_PARTNER] = self.nil_tricks_count_for_partner
        out[L.R_NIL_TRICKS_AS_BAGS] = self.nil_tricks_count_as_bags
        out[L.R_BAG_LIMIT] = self.bag_limit
        out[L.R_BAG_PENALTY] = self.bag_penalty
        out[L.R_TARGET] = self.target
        out[L.R_HAS_LOSS_THRESHOLD] = self.loss_threshold is not None
        out[L.R_LOSS_THRESHOLD] = 0 if self.loss_threshold is None else self.loss_threshold
        out[L.R_MAX_HANDS] = self.max_hands
        return out


def _convert(name: str, type_name: Any, text: Any) -> Any:
    if not isinstance(text, str):
        return text
    value = text.strip()
    if type_name == "bool":
        lowered = value.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError(f"{name}: expected true or false, got {text!r}")
    if type_name == "int | None" and value.lower() in ("none", "off", ""):
        return None
    if type_name in ("int", "int | None"):
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"{name}: expected a whole number, got {text!r}") from None
    return value
