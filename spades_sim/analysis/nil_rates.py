"""Nil bids: how often a nil (or blind nil) is made, and how often seats bid one.

Contract
--------
:func:`nil_success` reads the per-seat rows of any run (hands or games). Its units are
seats in hands. Measures, per group:

- ``nil_rate``: the share of seats (bids) that bid nil or blind nil; ``n`` is the number
  of seats in the group (Wilson interval);
- ``success_rate``: the share of those nil and blind nil bids that were made
  (``nil_made``); ``n`` is the number of such bids (Wilson interval).

Groups: any per-seat column (:data:`~spades_sim.analysis.source.SEAT_KEYS`: ``spades``,
``high_spades``, ``aces``, ``kings``, ``queens``, ``points``, ``voids``,
``shortest_suit``, ``seat``, ``side``, ...), ``policy`` and ``rules`` from the run meta,
and ``blind``: False for a nil, True for a blind nil. With ``blind`` among the keys,
``nil_rate`` is the share of the group's seats that bid that kind of nil (a seat's hand
features describe the cards it held in play, after any blind nil exchange).

Against the solver: on data with the double-dummy columns (``--dd``, ``spades-sim solve
RUN``), ``by="dd_nil_safe"`` splits the nils by whether the bidder's hand, as play began,
makes a nil that survives double-dummy defence (the seat's nil alone; its partner
covering, every card seen). ``success_rate`` where it is True falls short of 1 by the
safe nils the policies still lost (the cover's weakness); where it is False, it is the
share of unsafe nils that survived (the defence's weakness: perfect defence sets every
one). ``nil_rate`` where it is True is how often a seat holding a safe nil bid it.

Sufficient statistics (:mod:`.reduce`): per group and kind of bid (0 a number, 1 nil,
2 blind nil), ``seats`` (one per seat) and ``made`` (``nil_made`` of nil bids); from an
aggregate, its seats table's ``count`` and ``nils_made`` (:mod:`.aggregated`).

>>> from spades_sim import simulate_hands
>>> t = nil_success(simulate_hands(2000, seed=1, play="heuristic"))
>>> t[["measure", "n"]].values.tolist()
[['nil_rate', 8000], ['success_rate', 597]]
>>> bool((t.ci_low <= t.estimate).all() and (t.estimate <= t.ci_high).all())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from spades_sim.analysis.aggregated import column, group_stats, seat_units
from spades_sim.analysis.reduce import (
    Plan,
    group_sum,
    proportion_rows,
    run_plan,
    stack,
    unit_frame,
)
from spades_sim.analysis.source import SEAT_KEYS, Data

if TYPE_CHECKING:
    from spades_sim.run.aggregate_frames import Aggregate

MEASURES = {
    "nil_rate": "share of seats that bid nil or blind nil (n: seats)",
    "success_rate": "share of nil and blind nil bids made (n: nil bids)",
}


def _derive(hands: pd.DataFrame, games: pd.DataFrame | None, keys: list[str]) -> list[pd.DataFrame]:
    nil = hands["nil"].to_numpy()
    blind = hands["blind_nil"].to_numpy()
    units = unit_frame(hands, keys)
    units["nil_kind"] = nil.astype(np.int8) + 2 * blind.astype(np.int8)
    units["seats"] = np.ones(len(hands))
    units["made"] = np.where(nil | blind, hands["nil_made"].to_numpy(), np.nan)
    return [units]


def _from_aggregate(agg: Aggregate, keys: list[str]) -> pd.DataFrame:
    seats = seat_units(agg, keys)
    count = column(seats, "count")
    nils = np.where(seats["nil_kind"].to_numpy() > 0, count, 0)
    made = column(seats, "nils_made")
    measures = {"seats": (count, count, count), "made": (nils, made, made)}
    return group_stats(seats, [*keys, "nil_kind"], measures)


def _finalize(stats: pd.DataFrame, by: list[str], level: float) -> pd.DataFrame:
    outer = [k for k in by if k != "blind"]
    seats = group_sum(stats, outer, ["seats.n"])
    nils = stats[stats["nil_kind"] > 0]
    if "blind" in by:
        nils = nils.assign(blind=nils["nil_kind"] == 2)
        grid = seats.merge(pd.DataFrame({"blind": [False, True]}), how="cross")
    else:
        grid = seats
    bids = group_sum(nils, by, ["seats.n", "made.sum"]).rename(
        columns={"seats.n": "bids", "made.sum": "made"}
    )
    if by:
        grid = grid.merge(bids, on=by, how="left")
    else:
        grid = pd.concat([grid.reset_index(drop=True), bids.reset_index(drop=True)], axis=1)
    grid[["bids", "made"]] = grid[["bids", "made"]].fillna(0.0)
    rate = proportion_rows(grid, by, grid["bids"], grid["seats.n"], "nil_rate", level)
    success = proportion_rows(grid, by, grid["made"], grid["bids"], "success_rate", level)
    return stack([rate, success], by)


PLAN = Plan(
    name="nil_success",
    keys=(*SEAT_KEYS, "blind"),
    hands_columns=("nil", "blind_nil", "nil_made"),
    derive=_derive,
    finalize=_finalize,
    from_aggregate=_from_aggregate,
    internal=("nil_kind",),
    late=("blind",),
    unit="a seat in a hand",
    measures=MEASURES,
)


def nil_success(
    data: Data | list[Data], by: str | Sequence[str] | None = None, *, level: float = 0.95
) -> pd.DataFrame:
    """Nil success rate and the share of seats bidding nil, per group of ``by``.

    ``data``: a frame, a ``(hands, games)`` pair, a run directory, or a list of them.
    Returns the tidy table of :mod:`.reduce` (``measure``, keys, ``n``, ``total``,
    ``estimate``, ``ci_low``, ``ci_high``); measures ``nil_rate`` and ``success_rate``.

    >>> from spades_sim import simulate_hands
    >>> df = simulate_hands(2000, seed=1, play="heuristic")
    >>> t = nil_success(df, by="blind")  # no blind nil: hands start from 0 to 0
    >>> print(t[["measure", "blind", "n", "total"]].to_string(index=False))
         measure  blind    n  total
        nil_rate  False 8000  597.0
        nil_rate   True 8000    0.0
    success_rate  False  597  483.0
    >>> int(df.nil.sum()), int(df.blind_nil.sum()), int(df[df.nil].nil_made.sum())
    (597, 0, 483)
    """
    return run_plan(data, PLAN, by, level)


__all__ = ["MEASURES", "PLAN", "nil_success"]
