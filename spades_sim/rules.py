"""The rule set: one frozen dataclass field per rule variant, presets, lowering.

The rules themselves, in prose, with every option: ``docs/rules.md``. A :class:`Rules` is
validated when it is built (``__post_init__``): a bad value or an impossible combination
raises ``ValueError`` naming the field. The string options are :class:`FirstLead`,
:class:`SpadesLead`, :class:`BidRule` and :class:`Shortfall` (``StrEnum``s; their plain
string values are accepted and converted).
``Rules.lower()`` turns a rule set into the int64 array the kernels read, one entry per
field of ``spades_sim._nb.enums.RuleField``, by name.

>>> Rules().target, Rules.preset("mercy").loss_threshold
(500, -200)
>>> Rules(first_lead="two_of_clubs").first_lead is FirstLead.TWO_OF_CLUBS
True
>>> Rules(spades_lead="whenever")
Traceback (most recent call last):
...
ValueError: spades_lead: must be one of ('after_broken', 'any_time'), got 'whenever'
>>> Rules(players=2, first_lead="two_of_clubs")
Traceback (most recent call last):
...
ValueError: first_lead: 'two_of_clubs' is refused with two players (the 2C may lie unused)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar

import numpy as np

from spades_sim._nb.enums import BidRuleId, RuleField
from spades_sim.cards import seat_name, side_name


class FirstLead(StrEnum):
    """How the first trick of a hand is led (:attr:`Rules.first_lead`)."""

    ANY_BUT_SPADES = "any_but_spades"
    """The player left of the dealer leads any card but a spade (a hand of only spades
    leads a spade)."""
    TWO_OF_CLUBS = "two_of_clubs"
    """The holder of the 2♣ leads it (four players, or three with the jokers: the other
    packs have no 2♣ or may leave it unused)."""


class SpadesLead(StrEnum):
    """When spades may be led after the first trick (:attr:`Rules.spades_lead`)."""

    AFTER_BROKEN = "after_broken"
    """Only once spades are broken, or when the leader holds nothing but spades."""
    ANY_TIME = "any_time"
    """Whenever the leader likes."""


class BidRule(StrEnum):
    """What a bid may be (:attr:`Rules.bid_rule`); the values are also the kernels'
    ``BidRuleId`` field names."""

    FREE = "free"
    """Any bid from 0 (nil) to the tricks of the hand (13; 17 or 18 with three players)."""
    MIRROR = "mirror"
    """Each player bids exactly the spades held (nil with none)."""
    WHIZ = "whiz"
    """Each player bids nil or exactly the spades held."""
    SUICIDE = "suicide"
    """In each partnership one partner bids nil and the other at least 4; the first of
    the two to bid decides which (four players only)."""


class Shortfall(StrEnum):
    """What a side's last bidder may do when the side would stay below ``min_side_bid``
    (:attr:`Rules.min_side_bid_shortfall`)."""

    RAISE = "raise"
    """Its bid is raised to what the side still needs, a nil included (a nil only once
    the partner's number alone reaches the minimum)."""
    NIL_EXEMPT = "nil_exempt"
    """A side with a nil needs no minimum: the last bidder may bid nil, and after the
    partner's nil any number stands; a number beside a number is raised."""


FIRST_LEADS = tuple(choice.value for choice in FirstLead)
"""The values :attr:`Rules.first_lead` accepts, as plain strings."""
SPADES_LEADS = tuple(choice.value for choice in SpadesLead)
"""The values :attr:`Rules.spades_lead` accepts, as plain strings."""
BID_RULES = tuple(choice.value for choice in BidRule)
"""The values :attr:`Rules.bid_rule` accepts, as plain strings."""
SHORTFALLS = tuple(choice.value for choice in Shortfall)
"""The values :attr:`Rules.min_side_bid_shortfall` accepts, as plain strings."""

_CHOICES: dict[str, type[StrEnum]] = {
    "first_lead": FirstLead,
    "spades_lead": SpadesLead,
    "bid_rule": BidRule,
    "min_side_bid_shortfall": Shortfall,
}


@dataclass(frozen=True)
class Rules:
    """A complete Spades rule set (``docs/rules.md``); every field has the standard default.

    ``first_lead`` and ``spades_lead`` take their enum or its string value
    (``Rules(first_lead="two_of_clubs")``) and always hold the enum afterwards;
    :meth:`to_dict` gives them back as plain strings.

    >>> Rules(target=300, bag_penalty=0).target
    300
    """

    players: int = 4
    """Number of players: 4 (two fixed partnerships, N-S and E-W), 3 (three-player
    cutthroat: each scoring alone, 17 cards each from the pack without the 2♣; needs
    ``partnerships`` false) or 2 (each scoring alone, with the draw-and-discard instead of
    a deal). Default 4; 4, 3 or 2."""
    jokers: bool = False
    """Add a Big and a Little Joker as the two highest spades and remove the 2♥ and 2♦
    (with three players nothing is removed: 54 cards, 18 each). Default false."""
    deuces_high: bool = False
    """With the jokers, keep the 2♦ as a spade and make it and the 2♠ the third and
    fourth highest trumps (Big Joker, Little Joker, 2♦, 2♠, ace of spades, ...); the 2♣
    and 2♥ leave the pack instead. Default false; only with ``jokers``, not with the
    ``two_of_clubs`` first lead, not with three players."""
    blind_nil: bool = True
    """Blind nil may be declared (nil bid before seeing the cards). Default true."""
    blind_nil_min_deficit: int = 0
    """Blind nil only for a side behind by at least this many points; 0 allows it at any
    score. Default 0; 0..100,000 (0 when ``blind_nil`` is false)."""
    blind_nil_exchange: int = 0
    """Cards exchanged after a blind nil: with four players the bidder and partner pass
    each other this many (none if both bid blind nil); with two the bidder may replace up
    to this many from the unused pile. Default 0; 0..13 (0 when ``blind_nil`` is false)."""
    first_lead: FirstLead = FirstLead.ANY_BUT_SPADES
    """How the first trick is led (:class:`FirstLead`). Default ``any_but_spades``;
    ``two_of_clubs`` is refused with two players, and with three without the jokers
    (their pack has no 2♣)."""
    spades_lead: SpadesLead = SpadesLead.AFTER_BROKEN
    """When spades may be led after the first trick (:class:`SpadesLead`). Default
    ``after_broken``; or ``any_time``."""
    boston_bonus: int = 0
    """Points added to a side (or player) that wins all the tricks of the hand (13; 17 or
    18 with three players). Default 0; 0..10,000."""
    nil_value: int = 100
    """Points won for a made nil, lost for a failed one. Default 100; 0..10,000."""
    blind_nil_value: int = 200
    """Points won for a made blind nil, lost for a failed one. Default 200; 0..10,000."""
    nil_tricks_count_for_partner: bool = False
    """A nil bidder's tricks count toward the partner's contract. Default false; not
    together with ``nil_tricks_count_as_bags``."""
    nil_tricks_count_as_bags: bool = True
    """Each trick a nil bidder wins is a bag (and a point) for the side, whatever happens
    to the contract. Default true; not together with ``nil_tricks_count_for_partner``."""
    bag_limit: int = 10
    """Accumulated bags that trigger the bag penalty. Default 10; 1..1,000."""
    bag_penalty: int = 100
    """Points lost each time a side's bags reach ``bag_limit`` (the count then drops by
    ``bag_limit``); 0 turns the penalty off and bags just accumulate. Default 100;
    0..10,000."""
    target: int = 500
    """Score that wins the game (the higher score if both reach it in the same hand).
    Default 500; 1..100,000."""
    loss_threshold: int | None = None
    """Score at or below which a side loses at once (a mercy rule); None is off. Default
    None; -100,000 up to ``target - 1``."""
    max_hands: int = 200
    """Hands after which a simulated game that has not ended stops, recorded as
    unfinished. Default 200; 1..10,000."""
    big_bid_threshold: int | None = None
    """A side contract of at least this many tricks wins (made) or loses (set) its
    contract points times ``big_bid_multiplier`` ("ten for two hundred" at 10); bags and
    nils are scored as usual. None is off. Default None; 1..26."""
    big_bid_multiplier: int = 2
    """What a contract of ``big_bid_threshold`` or more multiplies its contract points by.
    Default 2; 1..10 (2 unless ``big_bid_threshold`` is set)."""
    bid_rule: BidRule = BidRule.FREE
    """What a bid may be (:class:`BidRule`). Default ``free``; ``mirror``, ``whiz`` and
    ``suicide`` only with ``blind_nil`` false, ``suicide`` only with four players."""
    min_side_bid: int = 0
    """The least a partnership bids between its two partners (nil counting 0); 0 is off.
    Default 0; 0..13, four players and ``bid_rule`` free only."""
    min_number_bid: int = 1
    """The least number bid (0 is always nil). Default 1; 1..13 (1 unless ``bid_rule``
    is free)."""
    min_side_bid_shortfall: Shortfall = Shortfall.RAISE
    """What a side's last bidder does when the side would stay below ``min_side_bid``
    (:class:`Shortfall`). Default ``raise``; ``nil_exempt``. With ``raise`` and
    ``min_side_bid`` on, ``blind_nil`` must be false."""
    nil_exchange: int = 0
    """Cards a (not blind) nil bidder and a partner who bid a number pass each other
    after the bidding. Default 0; 0..3, four players only, not with ``bid_rule``
    ``mirror`` or ``whiz``."""
    must_trump: bool = False
    """A player who cannot follow the suit led and holds a spade (jokers included) must
    play a spade. Default false."""
    must_overtrump: bool = False
    """A player who plays to a trick that already holds a spade, and plays a spade (by
    following a spade lead, or trumping under ``must_trump``), must play one higher
    than the trick's highest spade when able. Default false; only with ``must_trump``."""
    partnerships: bool = True
    """With four players, N-S and E-W are partnerships; false is cutthroat: every seat is
    its own side (its own contract, nil, bags, score and game). Default true; false with
    four or three players (three players need it: they have no partnerships), and not
    with anything that needs a partner (``blind_nil_exchange``, ``nil_exchange``,
    ``bid_rule`` suicide, ``min_side_bid``, ``nil_tricks_count_for_partner``)."""

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "standard": {},
        "no-bags": {"bag_penalty": 0, "target": 300},
        "blind-nil-exchange": {"blind_nil_exchange": 3},
        "mercy": {"loss_threshold": -200},
        "two-player": {"players": 2, "blind_nil_exchange": 3},
        "jokers": {"jokers": True},
        "jokers-deuces": {"jokers": True, "deuces_high": True},
        "openspiel": {
            "nil_tricks_count_for_partner": True,
            "nil_tricks_count_as_bags": False,
            "blind_nil": False,
        },
        "ten-for-200": {"big_bid_threshold": 10},
        "mirror": {"bid_rule": "mirror", "blind_nil": False},
        "whiz": {"bid_rule": "whiz", "blind_nil": False},
        "suicide": {"bid_rule": "suicide", "blind_nil": False},
        "minimum-bids": {"min_side_bid": 4, "blind_nil": False},
        "nil-passing": {"nil_exchange": 2},
        "must-trump": {"must_trump": True},
        "must-overtrump": {"must_trump": True, "must_overtrump": True},
        "cutthroat-4": {"partnerships": False},
        "cutthroat": {"players": 3, "partnerships": False},
    }
    """The named rule sets (``docs/rules.md`` "Presets"): the fields each changes."""

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

        need(self.players in (2, 3, 4), "players", "must be 4, 3 or 2")
        for name, choices in _CHOICES.items():
            # the string options: a str value becomes its enum (the dataclass is frozen)
            object.__setattr__(self, name, _choice(name, choices, getattr(self, name)))
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
        need(1 <= self.big_bid_multiplier <= 10, "big_bid_multiplier", "must be 1..10")
        need(0 <= self.min_side_bid <= 13, "min_side_bid", "must be 0..13 tricks (0 is off)")
        need(1 <= self.min_number_bid <= 13, "min_number_bid", "must be 1..13 tricks")
        need(0 <= self.nil_exchange <= 3, "nil_exchange", "must be 0..3 cards")
        if self.big_bid_threshold is not None:
            need(
                1 <= self.big_bid_threshold <= 26,
                "big_bid_threshold",
                "must be 1..26 tricks, or None for off",
            )
        if self.loss_threshold is not None:
            need(
                -100_000 <= self.loss_threshold < self.target,
                "loss_threshold",
                "must be below target (and not below -100000), or None for off",
            )

    def _check_combinations(self) -> None:
        if self.deuces_high and not self.jokers:
            raise ValueError(
                "deuces_high: needs jokers (the deuces rank just below the two jokers); "
                "set jokers=true"
            )
        if self.deuces_high and self.first_lead is FirstLead.TWO_OF_CLUBS:
            raise ValueError(
                "first_lead: 'two_of_clubs' is refused with deuces_high (the 2C leaves the pack)"
            )
        if self.players == 3 and self.deuces_high:
            raise ValueError(
                "deuces_high: is refused with three players (its pack of 52 cards does not "
                "deal out in threes)"
            )
        if self.players == 3 and not self.jokers and self.first_lead is FirstLead.TWO_OF_CLUBS:
            raise ValueError(
                "first_lead: 'two_of_clubs' is refused with three players without jokers "
                "(their 51-card pack has no 2C)"
            )
        if self.players == 2 and self.first_lead is FirstLead.TWO_OF_CLUBS:
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
        if self.bid_rule is BidRule.SUICIDE and self.players != 4:
            raise ValueError(
                "bid_rule: 'suicide' needs four players (one nil in each partnership), "
                f"got players={self.players}"
            )
        if self.bid_rule is not BidRule.FREE and self.blind_nil:
            raise ValueError(
                f"bid_rule: {self.bid_rule.value!r} is refused with blind_nil (a bid made "
                "before looking cannot follow the cards); set blind_nil=false"
            )
        self._check_cutthroat()
        self._check_minimum_bids()
        if self.nil_exchange and self.players != 4:
            raise ValueError(
                f"nil_exchange: needs four players (a partner to pass with), got players="
                f"{self.players}"
            )
        if self.nil_exchange and self.bid_rule in (BidRule.MIRROR, BidRule.WHIZ):
            raise ValueError(
                f"nil_exchange: must be 0 under bid_rule {self.bid_rule.value!r} (the bids "
                "are the spades held, which the exchange would change)"
            )
        if self.must_overtrump and not self.must_trump:
            raise ValueError(
                "must_overtrump: needs must_trump (a player obliged to beat a trump in the "
                "trick is obliged to trump); set must_trump=true"
            )
        if self.big_bid_threshold is None and self.big_bid_multiplier != 2:
            raise ValueError(
                "big_bid_multiplier: must stay 2 while big_bid_threshold is None (it would "
                "change nothing)"
            )

    def _check_cutthroat(self) -> None:
        if self.players == 3 and self.partnerships:
            raise ValueError(
                "partnerships: three players (cutthroat) need partnerships=false, there "
                "are no partnerships; or use --rules cutthroat"
            )
        if self.partnerships:
            return
        if self.players == 2:
            raise ValueError(
                "partnerships: false needs four or three players (two players always score "
                f"alone), got players={self.players}"
            )
        # every rule below is about a partner, which no cutthroat seat has
        for name, off in (
            ("blind_nil_exchange", 0),
            ("nil_exchange", 0),
            ("min_side_bid", 0),
            ("nil_tricks_count_for_partner", False),
        ):
            if getattr(self, name) != off:
                raise ValueError(
                    f"{name}: must stay {off!r} with partnerships false (there is no partner), "
                    f"got {getattr(self, name)!r}"
                )
        if self.bid_rule is BidRule.SUICIDE:
            raise ValueError(
                "bid_rule: 'suicide' needs partnerships (one nil in each partnership); "
                "partnerships is false"
            )

    def _check_minimum_bids(self) -> None:
        if self.bid_rule is not BidRule.FREE:
            for name, off in (("min_side_bid", 0), ("min_number_bid", 1)):
                if getattr(self, name) != off:
                    raise ValueError(
                        f"{name}: must stay {off} under bid_rule {self.bid_rule.value!r} "
                        "(that rule sets the bids)"
                    )
        if self.min_side_bid and self.players != 4:
            raise ValueError(
                "min_side_bid: needs four players (a minimum of two partners' bids), "
                f"got players={self.players}"
            )
        if not self.min_side_bid and self.min_side_bid_shortfall is not Shortfall.RAISE:
            raise ValueError(
                "min_side_bid_shortfall: must stay 'raise' while min_side_bid is 0 (it "
                "would change nothing)"
            )
        raising = self.min_side_bid_shortfall is Shortfall.RAISE
        if self.min_side_bid and raising and self.blind_nil:
            raise ValueError(
                "min_side_bid: with min_side_bid_shortfall 'raise' a side's last bidder may "
                "not bid nil below the minimum, so blind nil is refused; set blind_nil=false "
                "or min_side_bid_shortfall='nil_exempt'"
            )

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named rule set (``docs/rules.md`` "Presets"), optionally with some fields changed.

        >>> Rules.preset("two-player").blind_nil_exchange
        3
        >>> Rules.preset("jokers", target=300).target
        300
        """
        if name not in cls.PRESETS:
            known = ", ".join(cls.PRESETS)
            raise ValueError(f"unknown rules preset {name!r} (known: {known})")
        return cls(**(cls.PRESETS[name] | overrides))

    @property
    def sides(self) -> int:
        """How many sides score: 2 (partnerships, or the two players), or in cutthroat
        (``partnerships`` false) one per player, 4 or 3, where side s is seat s.

        >>> Rules().sides, Rules.preset("cutthroat-4").sides, Rules.preset("cutthroat").sides
        (2, 4, 3)
        """
        return 2 if self.partnerships else self.players

    @property
    def tricks(self) -> int:
        """Tricks in a hand (cards each player holds): 13, or with three players 17 (18
        with the jokers).

        >>> Rules().tricks, Rules.preset("cutthroat").tricks, Rules(players=3,
        ... partnerships=False, jokers=True).tricks
        (13, 17, 18)
        """
        return (18 if self.jokers else 17) if self.players == 3 else 13

    def side_of(self, seat: int) -> int:
        """The side ``seat`` scores for: ``seat % 2``, or the seat itself in cutthroat."""
        return seat % 2 if self.partnerships else seat

    def side_name(self, side: int) -> str:
        """A side's display name: N-S/E-W, the player with two players (P0/P1), or the
        seat in cutthroat (N, E, S, W; P0, P1, P2 with three players)."""
        if not self.partnerships:
            return seat_name(side, self.players)
        return side_name(side, self.players)

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
        Rules(players=4, jokers=True, ..., target=300, loss_threshold=-200, max_hands=200, ...)
        """
        types = {spec.name: spec.type for spec in fields(self)}
        changes: dict[str, Any] = {}
        for name, text in assignments.items():
            if name not in types:
                raise ValueError(f"unknown rules field {name!r}")
            changes[name] = _convert(name, types[name], text)
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for manifests and Parquet metadata); the string
        options as plain ``str``, so the dict is the same JSON as ever.

        >>> Rules(first_lead="two_of_clubs").to_dict()["first_lead"].__class__.__name__
        'str'
        """
        return {spec.name: _plain(getattr(self, spec.name)) for spec in fields(self)}

    def lower(self) -> np.ndarray:
        """The int64 rule array the kernels read: one entry per field of
        ``_nb.enums.RuleField``, filled by name (the rule of that name, or its encoding).

        >>> int(Rules().lower()[RuleField.target])
        500
        """
        encoded = {
            # 0 standard pack, 1 jokers, 2 jokers with the deuces high, 3 the three-player
            # pack (no 2C), 4 the three-player pack with the jokers (bitboard.py)
            "jokers": (4 if self.jokers else 3)
            if self.players == 3
            else (2 if self.deuces_high else int(self.jokers)),
            "first_lead_two_clubs": self.first_lead is FirstLead.TWO_OF_CLUBS,
            "spades_any_time": self.spades_lead is SpadesLead.ANY_TIME,
            "nil_tricks_for_partner": self.nil_tricks_count_for_partner,
            "nil_tricks_as_bags": self.nil_tricks_count_as_bags,
            "has_loss_threshold": self.loss_threshold is not None,
            "loss_threshold": 0 if self.loss_threshold is None else self.loss_threshold,
            # 0 is off: every contract that scores is at least 1
            "big_bid_threshold": self.big_bid_threshold or 0,
            "bid_rule": getattr(BidRuleId, self.bid_rule.value),
            "min_side_bid_nil_exempt": self.min_side_bid_shortfall is Shortfall.NIL_EXEMPT,
        }
        values = [encoded[f] if f in encoded else getattr(self, f) for f in RuleField._fields]
        return np.array(values, dtype=np.int64)


def _choice(name: str, choices: type[StrEnum], value: Any) -> StrEnum:
    """``value`` as a member of ``choices`` (a member, or its string value); else a one-line
    ValueError naming the field and the values allowed."""
    if isinstance(value, choices):
        return value
    if isinstance(value, str):
        try:
            return choices(value)
        except ValueError:
            pass
    allowed = tuple(choice.value for choice in choices)
    raise ValueError(f"{name}: must be one of {allowed}, got {value!r}")


def _plain(value: Any) -> Any:
    """An enum member as its plain value; anything else as it is."""
    return value.value if isinstance(value, Enum) else value


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
