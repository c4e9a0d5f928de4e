"""Bid accuracy: how far a side's tricks land from its contract, and what a bid is worth.

Contract
--------
:func:`bid_accuracy` gives one tidy table per ``view`` (:mod:`.reduce`'s columns):

``view="summary"``: units are sides with a contract in a hand (side rows, the rows of
seats 0 and 1, with ``side_contract > 0``: a side whose bids are all nil has nothing to
make). The *difference* is ``side_tricks - side_contract``. Measures:

- ``difference``: its mean (positive: overtricks, bags);
- ``abs_difference``: the mean absolute difference (the mean absolute error of the bid);
- ``exact``, ``over``, ``set``: the shares of side-hands with a difference of 0, above
  0 and below 0 (a set contract).

``view="distribution"``: the same units, one row per group and value of ``difference``:
measure ``share``, ``n`` the side-hands of the group, ``total`` those with that
difference (the counts add up to ``n``), Wilson intervals.

Groups of these two: the side's own columns (:data:`~spades_sim.analysis.source.SIDE_KEYS`;
``side_contract`` is the bid level), ``policy``, ``rules``.

``view="calibration"``: units are seats that bid a number (not nil or blind nil); one row
per group and ``bid``: measure ``tricks``, the mean tricks the seat took. Groups: any
per-seat column (:data:`~spades_sim.analysis.source.SEAT_KEYS`), ``policy``, ``rules``.

``against="dd"`` (data with the double-dummy columns: ``--dd`` or ``spades-sim solve
RUN``) measures the bid against the cards instead of the play: the *difference* is
``dd_side_tricks - side_contract``, the tricks the side's cards take from the opening
lead under double-dummy play minus its contract, for the ``summary`` and
``distribution`` views (same measures, same shape). Units are sides with a contract and
no nil or blind nil in the side: the solver maximises the side's tricks, its nil bidder's
included, which is another game than making a contract beside a nil. Then ``exact`` is
the share of contracts that bid exactly what the cards make, ``over`` those that bid
less (tricks left on the table, or bags), ``set`` those that bid more than perfect play
makes (a set against perfect defence, made only through the opponents' mistakes). By
``side_contract`` it is the same by bid level. ``view="calibration"`` compares a seat's
bid with its own tricks, and the double-dummy tricks are the side's: it has no
``against="dd"``.

Sufficient statistics: per group (and ``difference`` or ``bid``), the measures' ``n``,
sum and sum of squares; from an aggregate, its sides table by ``difference`` and its
seats table by ``bid`` (:mod:`.aggregated`).

>>> from spades_sim import simulate_hands
>>> df = simulate_hands(1000, seed=3, play="heuristic")
>>> t = bid_accuracy(df)
>>> t.measure.tolist()
['difference', 'abs_difference', 'exact', 'over', 'set']
>>> d = bid_accuracy(df, view="distribution")
>>> int(d.total.sum()) == int(((df.seat == df.side) & (df.side_contract > 0)).sum())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from spades_sim.analysis.aggregated import column, group_stats, seat_units, side_units
from spades_sim.analysis.reduce import (
    Kind,
    Plan,
    finalize,
    group_sum,
    proportion_rows,
    run_plan,
    unit_frame,
)
from spades_sim.analysis.source import SEAT_KEYS, SIDE_KEYS, Data

if TYPE_CHECKING:
    from spades_sim.run.aggregate_frames import Aggregate

SUMMARY_MEASURES = {
    "difference": "side tricks minus contract, mean",
    "abs_difference": "|side tricks - contract|, mean (the bid's mean absolute error)",
    "exact": "share of contracts made exactly",
    "over": "share of contracts made with overtricks",
    "set": "share of contracts set",
}
DISTRIBUTION_MEASURES = {"share": "share of side-hands with this difference (tricks - contract)"}
CALIBRATION_MEASURES = {"tricks": "tricks a seat took with this bid (number bids), mean"}
DD_SUMMARY_MEASURES = {
    "difference": "double-dummy side tricks minus contract, mean (sides without a nil)",
    "abs_difference": "|double-dummy side tricks - contract|, mean",
    "exact": "share of contracts equal to the double-dummy tricks",
    "over": "share of contracts below the double-dummy tricks (tricks the cards had spare)",
    "set": "share of contracts above the double-dummy tricks (set against perfect defence)",
}
DD_DISTRIBUTION_MEASURES = {
    "share": "share of side-hands with this difference (double-dummy tricks - contract)"
}
AGAINST = ("played", "dd")
"""What :func:`bid_accuracy` measures a bid against: the tricks taken, or the cards."""
_SUMMARY_KINDS: dict[str, Kind] = {
    "difference": "mean",
    "abs_difference": "mean",
    "exact": "proportion",
    "over": "proportion",
    "set": "proportion",
}


def _contracts(hands: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The side rows with a contract (a mask) and their tricks minus contract."""
    contract = hands["side_contract"].to_numpy()
    sides = (hands["seat"].to_numpy() == hands["side"].to_numpy()) & (contract > 0)
    tricks = hands["side_tricks"].to_numpy()[sides].astype(np.int64)
    return sides, tricks - contract[sides].astype(np.int64)


def _dd_contracts(hands: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The side rows with a contract and no nil in the side (a mask) and their
    double-dummy tricks minus contract."""
    contract = hands["side_contract"].to_numpy()
    nil = hands["nil"].to_numpy() | hands["blind_nil"].to_numpy()
    # a nil anywhere in the side: count the nils of each (deal, side), then look them up
    code = hands["deal"].to_numpy().astype(np.int64) * 4 + hands["side"].to_numpy()
    groups, inverse = np.unique(code, return_inverse=True)
    side_nil = np.bincount(inverse, weights=nil, minlength=len(groups))[inverse] > 0
    sides = (hands["seat"].to_numpy() == hands["side"].to_numpy()) & (contract > 0) & ~side_nil
    tricks = hands["dd_side_tricks"].to_numpy()[sides].astype(np.int64)
    return sides, tricks - contract[sides].astype(np.int64)


def _summary_units(
    hands: pd.DataFrame, keys: list[str], sides: np.ndarray, difference: np.ndarray
) -> list[pd.DataFrame]:
    units = unit_frame(hands, keys, sides)
    units["difference"] = difference
    units["abs_difference"] = np.abs(difference)
    units["exact"] = difference == 0
    units["over"] = difference > 0
    units["set"] = difference < 0
    return [units]


def _distribution_units(
    hands: pd.DataFrame, keys: list[str], sides: np.ndarray, difference: np.ndarray
) -> list[pd.DataFrame]:
    units = unit_frame(hands, keys, sides)
    units["difference"] = difference
    units["sides"] = np.ones(len(difference))
    return [units]


def _derive_summary(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    return _summary_units(hands, keys, *_contracts(hands))


def _derive_distribution(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    return _distribution_units(hands, keys, *_contracts(hands))


def _derive_dd_summary(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    return _summary_units(hands, keys, *_dd_contracts(hands))


def _derive_dd_distribution(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    return _distribution_units(hands, keys, *_dd_contracts(hands))


def _finalize_distribution(stats: pd.DataFrame, by: list[str], level: float) -> pd.DataFrame:
    outer = [k for k in by if k != "difference"]
    groups = group_sum(stats, outer, ["sides.n"]).rename(columns={"sides.n": "group_n"})
    counts = stats[[*outer, "difference", "sides.n"]]
    if outer:
        table = counts.merge(groups, on=outer)
    else:
        table = counts.assign(group_n=float(groups["group_n"].sum()))
    keys = [*outer, "difference"]
    return proportion_rows(table, keys, table["sides.n"], table["group_n"], "share", level)


def _derive_calibration(
    hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]
) -> list[pd.DataFrame]:
    number = ~(hands["nil"].to_numpy() | hands["blind_nil"].to_numpy())
    units = unit_frame(hands, keys, number)
    units["bid"] = hands["bid"].to_numpy()[number]
    units["tricks"] = hands["tricks"].to_numpy()[number]
    return [units]


def _finalize_calibration(stats: pd.DataFrame, by: list[str], level: float) -> pd.DataFrame:
    keys = [*(k for k in by if k != "bid"), "bid"]
    return finalize(stats, keys, {"tricks": "mean"}, level)


def _summary_from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    sides = side_units(agg, contract=True)
    count = column(sides, "count")
    d = sides["difference"].to_numpy().astype(np.int64)
    squares = count * d * d

    def share(flag: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        hits = np.where(flag, count, 0)
        return count, hits, hits

    measures = {
        "difference": (count, count * d, squares),
        "abs_difference": (count, count * np.abs(d), squares),
        "exact": share(d == 0),
        "over": share(d > 0),
        "set": share(d < 0),
    }
    return group_stats(sides, keys, measures)


def _distribution_from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    sides = side_units(agg, contract=True)
    sides = sides.assign(difference=sides["difference"].to_numpy().astype(np.int64))
    count = column(sides, "count")
    return group_stats(sides, [*keys, "difference"], {"sides": (count, count, count)})


def _calibration_from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    seats = seat_units(agg, keys)
    seats = seats[seats["nil_kind"].to_numpy() == 0]
    triple = (
        column(seats, "count"),
        column(seats, "tricks_taken"),
        column(seats, "tricks_taken_sq"),
    )
    return group_stats(seats, [*keys, "bid"], {"tricks": triple})


SUMMARY_PLAN = Plan(
    name="bid_accuracy (summary)",
    keys=SIDE_KEYS,
    hands_columns=("side_contract", "side_tricks"),
    derive=_derive_summary,
    finalize=lambda stats, by, level: finalize(stats, by, _SUMMARY_KINDS, level),
    from_aggregate=_summary_from_aggregate,
    unit="a side in a hand",
    measures=SUMMARY_MEASURES,
)
DISTRIBUTION_PLAN = Plan(
    name="bid_accuracy (distribution)",
    keys=SIDE_KEYS,
    hands_columns=("side_contract", "side_tricks"),
    derive=_derive_distribution,
    finalize=_finalize_distribution,
    from_aggregate=_distribution_from_aggregate,
    internal=("difference",),
    unit="a side in a hand",
    measures=DISTRIBUTION_MEASURES,
)
CALIBRATION_PLAN = Plan(
    name="bid_accuracy (calibration)",
    keys=SEAT_KEYS,
    hands_columns=("nil", "blind_nil", "bid", "tricks"),
    derive=_derive_calibration,
    finalize=_finalize_calibration,
    from_aggregate=_calibration_from_aggregate,
    internal=("bid",),
    unit="a seat in a hand",
    measures=CALIBRATION_MEASURES,
)
DD_COLUMNS_READ = ("side_contract", "dd_side_tricks", "nil", "blind_nil", "deal", "side")
DD_SUMMARY_PLAN = Plan(
    name="bid_accuracy (summary, against dd)",
    keys=SIDE_KEYS,
    hands_columns=DD_COLUMNS_READ,
    derive=_derive_dd_summary,
    finalize=lambda stats, by, level: finalize(stats, by, _SUMMARY_KINDS, level),
    unit="a side in a hand, with a contract and no nil",
    measures=DD_SUMMARY_MEASURES,
)
DD_DISTRIBUTION_PLAN = Plan(
    name="bid_accuracy (distribution, against dd)",
    keys=SIDE_KEYS,
    hands_columns=DD_COLUMNS_READ,
    derive=_derive_dd_distribution,
    finalize=_finalize_distribution,
    internal=("difference",),
    unit="a side in a hand, with a contract and no nil",
    measures=DD_DISTRIBUTION_MEASURES,
)
PLANS = {
    "summary": SUMMARY_PLAN,
    "distribution": DISTRIBUTION_PLAN,
    "calibration": CALIBRATION_PLAN,
}
DD_PLANS = {"summary": DD_SUMMARY_PLAN, "distribution": DD_DISTRIBUTION_PLAN}
"""The views of ``against="dd"``."""


def bid_accuracy(
    data: Data | list[Data],
    by: str | Sequence[str] | None = None,
    *,
    view: Literal["summary", "distribution", "calibration"] = "summary",
    against: Literal["played", "dd"] = "played",
    level: float = 0.95,
) -> pd.DataFrame:
    """How well contracts match the tricks taken, per group of ``by``.

    ``data``: a frame, a ``(hands, games)`` pair, a run directory, or a list of them.
    ``view``: ``"summary"`` (mean difference, mean absolute difference, exact / over /
    set rates), ``"distribution"`` (share of each difference) or ``"calibration"``
    (mean tricks per number bid). ``against``: ``"played"`` (the tricks the side took) or
    ``"dd"`` (the tricks its cards take under double-dummy play; the summary and
    distribution views, on data with the double-dummy columns: module docstring).
    Returns the tidy table of :mod:`.reduce`.

    >>> from spades_sim import simulate_hands
    >>> df = simulate_hands(1000, seed=3, play="heuristic")
    >>> t = bid_accuracy(df, by="side_contract")
    >>> sorted(t.side_contract.unique().tolist())[:3]
    [1, 2, 3]
    >>> c = bid_accuracy(df, view="calibration")
    >>> bool((c.groupby("bid").estimate.first().diff().dropna() > 0).all())
    True
    """
    if against not in AGAINST:
        raise ValueError(f"against: must be one of {', '.join(AGAINST)}, got {against!r}")
    if view not in PLANS:
        raise ValueError(f"view: must be one of {', '.join(PLANS)}, got {view!r}")
    plan = PLANS[view] if against == "played" else DD_PLANS.get(view)
    if plan is None:
        raise ValueError(
            f"view: {view!r} compares a seat's bid with its own tricks, and double-dummy "
            f"tricks are the side's; with against='dd' use {' or '.join(map(repr, DD_PLANS))}"
        )
    return run_plan(data, plan, by, level)


__all__ = [
    "AGAINST",
    "CALIBRATION_MEASURES",
    "DD_DISTRIBUTION_MEASURES",
    "DD_DISTRIBUTION_PLAN",
    "DD_PLANS",
    "DD_SUMMARY_MEASURES",
    "DD_SUMMARY_PLAN",
    "DISTRIBUTION_MEASURES",
    "PLANS",
    "SUMMARY_MEASURES",
    "bid_accuracy",
]
