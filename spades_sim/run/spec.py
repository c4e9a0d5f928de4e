"""The run spec: everything that decides a run's rows, validated once, at the boundary.

Contract
--------
A :class:`RunSpec` is frozen and checked when built: rules, a bid and a play policy per
side, the draw policy, the seed, the mode (``"hands"`` or ``"games"``) and whether play is
recorded. How a run is cut (chunks), threaded or distributed is not part of it: those
never change the rows. :meth:`RunSpec.meta` is what a dataset stores about the run and
:func:`spec_from_meta` rebuilds the spec from it; :meth:`RunSpec.params` lowers the
policies to the kernels' parameter rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spades_sim._nb.enums import SEATING_SLOT
from spades_sim._version import __version__
from spades_sim.custom.kernels import needs_generated, seating
from spades_sim.policies import Kind, Policy, parse_policy, seated_bidders
from spades_sim.policy_table import names_with
from spades_sim.rules import Rules
from spades_sim.schema import SCHEMA_VERSION, Column, hand_columns

__all__ = [
    "DEFAULT_BIDDING",
    "DEFAULT_PLAY",
    "PolicyArg",
    "RunSpec",
    "SidePolicies",
    "side_policies",
    "spec_from_meta",
]

PolicyArg = str | Policy | Callable[..., Any]
SidePolicies = PolicyArg | Sequence[PolicyArg] | Mapping[str, PolicyArg]

DEFAULT_BIDDING = "count"
DEFAULT_PLAY = "heuristic"  # realistic by default: random play makes nil look hopeless


def side_policies(value: SidePolicies, kind: Kind) -> tuple[Policy, Policy]:
    """Policies for side 0 (N-S) and side 1 (E-W) from one policy (text, a
    :class:`Policy`, an @njit function, or a ``(name, params)`` tuple), a pair of them, or a
    mapping with keys ``ns``/``ew``.

    >>> [p.params["bias"] for p in side_policies(("count", {"bias": 0.5}), "bid")]
    [0.5, 0.5]

    >>> [p.name for p in side_policies({"ns": "random", "ew": "count"}, "bid")]
    ['random', 'count']
    """
    if isinstance(value, Mapping):
        unknown = set(value) - {"ns", "ew"}
        if unknown or len(value) != 2:
            raise ValueError(f"per-side {kind} policies need keys 'ns' and 'ew', got {value!r}")
        pair = (value["ns"], value["ew"])
    elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Mapping):
        one = Policy.of(str(value[0]), kind, value[1])  # a name and its parameters
        return one, one
    elif isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"per-side {kind} policies need two entries (N-S, E-W)")
        pair = (value[0], value[1])
    else:
        pair = (value, value)  # type: ignore[assignment]
    return parse_policy(pair[0], kind), parse_policy(pair[1], kind)


_TWO_SIDED = names_with("play", "two_sided")
"""Built-in policies that value cards with the double-dummy solver, whose tricks are a
partnership's: not played in cutthroat."""


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (not how it is cut or threaded)."""

    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    bidding: tuple[Policy, Policy] = field(
        default_factory=lambda: side_policies(DEFAULT_BIDDING, "bid")
    )
    play: tuple[Policy, Policy] = field(default_factory=lambda: side_policies(DEFAULT_PLAY, "play"))
    draw: Policy = field(default_factory=lambda: parse_policy("threshold", "draw"))
    mode: str = "hands"
    record_play: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise ValueError(f"seed: expected a whole number, got {self.seed!r}")
        if not 0 <= int(self.seed) < 2**63:
            raise ValueError(f"seed: must be 0 .. 2**63-1, got {self.seed}")
        if self.mode not in ("hands", "games"):
            raise ValueError(f"mode: must be 'hands' or 'games', got {self.mode!r}")
        if not self.rules.partnerships:
            # pimc values cards by double-dummy tricks, which have no value for a lone
            # seat against opponents who each play for their own
            for policy in (*self.bidding, *self.play):
                if policy.name in _TWO_SIDED:
                    raise ValueError(
                        f"{policy.name}: is not played in cutthroat (partnerships=false): its "
                        "values are double-dummy tricks, which have no value for a seat "
                        "against opponents who each play for their own; use lookahead or "
                        "heuristic"
                    )

    @classmethod
    def build(
        cls,
        *,
        seed: int,
        rules: Rules | None = None,
        bidding: SidePolicies = DEFAULT_BIDDING,
        play: SidePolicies = DEFAULT_PLAY,
        draw: PolicyArg = "threshold",
        mode: str = "hands",
        record_play: bool = False,
    ) -> RunSpec:
        """A run from user-facing arguments (policy text, pairs or mappings)."""
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules: expected a Rules object, got {type(rules).__name__}")
        return cls(
            rules=rules or Rules(),
            seed=seed,
            bidding=side_policies(bidding, "bid"),
            play=side_policies(play, "play"),
            draw=parse_policy(draw, "draw"),
            mode=mode,
            record_play=record_play,
        )

    @property
    def builtin(self) -> bool:
        return all(p.is_builtin for p in (*self.bidding, *self.play))

    def params(self) -> np.ndarray:
        """The kernels' parameter rows (``_nb.enums.ParamRow``): bid N-S, bid E-W, play
        N-S, play E-W, draw; each followed by the bidders seated at the table
        (``policies.seated_bidders``), which the sampling players read the bids by; a run
        of a generated module seated the other way round from the module's own order
        carries 1 in ``SEATING_SLOT``, :func:`seating`)."""
        rows = np.stack([p.lower() for p in (*self.bidding, *self.play, self.draw)])
        policies = (*self.bidding, *self.play)
        if needs_generated(policies) and seating(policies)[1]:
            rows[: len(policies), SEATING_SLOT] = 1.0
        return seated_bidders(rows, self.bidding)

    def meta(self) -> dict[str, Any]:
        """What a dataset records about the run (its results depend on nothing else)."""
        return {
            "mode": self.mode,
            "seed": int(self.seed),
            "rules": self.rules.to_dict(),
            "policies": {
                "bidding": {"ns": self.bidding[0].to_dict(), "ew": self.bidding[1].to_dict()},
                "play": {"ns": self.play[0].to_dict(), "ew": self.play[1].to_dict()},
                "draw": self.draw.to_dict(),
            },
            "record_play": self.record_play,
            "package_version": __version__,
            "schema_version": SCHEMA_VERSION,
        }

    def hand_columns(self) -> tuple[Column, ...]:
        return hand_columns(self.mode == "games")


def spec_from_meta(meta: Mapping[str, Any]) -> RunSpec:
    """The :class:`RunSpec` a run's manifest meta describes (to regenerate its deals).

    A user-written policy is loaded again from where the meta says its code lives, and
    refused when that code changed (its digest differs). Raises ``ValueError`` if the
    meta is not a run's, or a user policy cannot be found or changed.

    >>> spec = RunSpec.build(seed=9, play=("random", "random"), mode="games")
    >>> spec_from_meta(spec.meta()) == spec
    True
    """
    try:
        rules = Rules(**meta["rules"])
        policies = meta["policies"]

        def policy(entry: Mapping[str, Any], kind: Any) -> Policy:
            return Policy.from_dict(entry, kind)  # user code: loaded again, checked unchanged

        return RunSpec(
            rules=rules,
            seed=int(meta["seed"]),
            bidding=(
                policy(policies["bidding"]["ns"], "bid"),
                policy(policies["bidding"]["ew"], "bid"),
            ),
            play=(policy(policies["play"]["ns"], "play"), policy(policies["play"]["ew"], "play")),
            draw=policy(policies["draw"], "draw"),
            mode=str(meta.get("mode", "hands")),
            record_play=bool(meta.get("record_play", False)),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a spades_sim run's meta (missing or bad {exc})") from None
