"""Comparing strategies: duplicate matches, bid accuracy, nil success.

A **duplicate** comparison plays the same deals twice with the sides swapped: once with
A North-South and B East-West, once the other way round. The random streams are
counter-based (a deal's cards depend only on the seed and the deal's index), so one seed
gives the same deals in both runs and A holds each side's cards once. Pairing the two
plays of a deal cancels most of the luck of the cards, which is what makes small
differences between strategies measurable (the method of duplicate bridge).

A's score margin on a deal is its side's score minus B's side's score for the hand; the
paired margin is the average over the two seatings, and the reported figure its mean per
hand with a normal 95% interval (``stats.mean_ci``).

>>> r = duplicate("heuristic", "random", 200, seed=1)
>>> r.margin.value > 0
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from spades_sim.analysis.stats import Estimate, mean_ci, proportion_of
from spades_sim.policies import Kind, Policy
from spades_sim.rules import Rules
from spades_sim.simulate import PolicyArg, simulate_hands


@dataclass(frozen=True)
class Duplicate:
    """The result of a duplicate comparison of policy ``a`` against ``b``."""

    kind: Kind
    a: str
    b: str
    margin: Estimate  # A's mean score margin per hand, paired over the two seatings
    a_as_ns: Estimate  # A's margin when seated North-South only
    a_as_ew: Estimate  # ... and East-West only
    paired: np.ndarray  # the paired margin of every deal

    def __str__(self) -> str:
        return f"{self.a} vs {self.b} ({self.kind}, duplicate): A's margin {self.margin}"


def side_margins(hands: pd.DataFrame) -> np.ndarray:
    """Per deal (in deal order): side 0's score change minus side 1's.

    >>> df = simulate_hands(3, seed=1)
    >>> side_margins(df).shape
    (3,)
    """
    first = hands[hands.seat == 0].sort_values("deal")
    second = hands[hands.seat == 1].sort_values("deal")
    return first.score_change.to_numpy(np.float64) - second.score_change.to_numpy(np.float64)


def _label(policy: PolicyArg) -> str:
    if isinstance(policy, Policy):
        return policy.to_text()
    if isinstance(policy, str):
        return policy
    return getattr(policy, "__name__", repr(policy))


def duplicate(
    a: PolicyArg,
    b: PolicyArg,
    n: int,
    *,
    seed: int,
    kind: Kind = "play",
    rules: Rules | None = None,
    bidding: PolicyArg = "count",
    play: PolicyArg = "heuristic",
    draw: PolicyArg = "threshold",
    threads: int | None = None,
    level: float = 0.95,
) -> Duplicate:
    """Play ``n`` deals twice, A North-South then A East-West, and compare A with B.

    ``kind`` says which policies A and B are: ``"play"`` (both sides bid with
    ``bidding``) or ``"bid"`` (both sides play with ``play``).

    >>> r = duplicate("count", "random", 100, seed=3, kind="bid")
    >>> r.margin.n
    100
    """
    if kind not in ("play", "bid"):
        raise ValueError(f"kind: must be 'play' or 'bid', got {kind!r}")
    common: dict[str, Any] = {"seed": seed, "rules": rules, "draw": draw, "threads": threads}
    if kind == "play":
        first = simulate_hands(n, bidding=bidding, play=(a, b), **common)
        second = simulate_hands(n, bidding=bidding, play=(b, a), **common)
    else:
        first = simulate_hands(n, bidding=(a, b), play=play, **common)
        second = simulate_hands(n, bidding=(b, a), play=play, **common)
    ns = side_margins(first)
    ew = -side_margins(second)
    paired = (ns + ew) / 2
    return Duplicate(
        kind=kind,
        a=_label(a),
        b=_label(b),
        margin=mean_ci(paired, level),
        a_as_ns=mean_ci(ns, level),
        a_as_ew=mean_ci(ew, level),
        paired=paired,
    )


def side_rows(hands: pd.DataFrame) -> pd.DataFrame:
    """One row per side and hand (the rows of seats 0 and 1 carry their side's figures)."""
    return hands[hands.seat < 2]


def bid_accuracy(hands: pd.DataFrame, level: float = 0.95) -> Estimate:
    """Mean absolute error of a side's tricks against its contract, over the sides with
    a contract (a side whose bids are all nil has nothing to make).

    >>> e = bid_accuracy(simulate_hands(200, seed=2))
    >>> 0 < e.value < 5
    True
    """
    sides = side_rows(hands)
    sides = sides[sides.side_contract > 0]
    error = sides.side_tricks.to_numpy(np.float64) - sides.side_contract.to_numpy(np.float64)
    return mean_ci(np.abs(error), level)


def nil_success(hands: pd.DataFrame, blind: bool = False, level: float = 0.95) -> Estimate:
    """The share of nil bids (or blind nils) made, with its Wilson interval.

    >>> e = nil_success(simulate_hands(400, seed=2, play="heuristic"))
    >>> 0 <= e.low <= e.value <= e.high <= 1
    True
    """
    rows = hands[hands.blind_nil] if blind else hands[hands.nil]
    if rows.empty:
        raise ValueError("nil_success: no " + ("blind nil" if blind else "nil") + " bids")
    return proportion_of(rows.nil_made, level)


__all__ = ["Duplicate", "bid_accuracy", "duplicate", "nil_success", "side_margins", "side_rows"]
