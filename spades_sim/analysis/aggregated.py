"""Analyses of an aggregate run: a plan's statistics from count tables.

Contract
--------
An :class:`~spades_sim.run.aggregate_frames.Aggregate` (or an aggregate run directory) has no rows;
it holds the sums every analysis reduces its rows to. A plan that can be answered from
one has a ``from_aggregate(aggregate, keys)`` (:class:`~.reduce.Plan`) built from the
helpers here, which returns exactly the table :func:`.reduce.statistics_many` makes from
the rows of the same run: one row per group that occurs, the row keys then the plan's
internal keys (with the dtypes the rows give them), and ``m.n``, ``m.sum``, ``m.sumsq``
in float64 per measure. The counts are integers, so the sums are the rows' sums exactly,
and everything after that (policy and rules keys, finalize) is the rows' path itself.

``keys`` are the row keys :func:`.reduce.check_keys` admitted: an aggregate's ``by``,
``side``, and for a seat ``bid``, ``nil``, ``blind_nil`` (its table's cells).

>>> from spades_sim import simulate_hands
>>> agg = simulate_hands(50, seed=1, play="random", aggregate="seat")
>>> seats = seat_units(agg, ["seat", "nil"])
>>> s = group_stats(seats, ["nil"], {"x": (seats["count"], seats["count"], seats["count"])})
>>> s[["nil", "x.n"]].values.tolist()
[[False, 188.0], [True, 12.0]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from spades_sim.run.aggregate_frames import Aggregate

Triple = tuple[Any, Any, Any]
"""A measure's ``n``, sum and sum of squares per row of a units frame (arrays)."""


def seat_units(agg: Aggregate, keys: Sequence[str]) -> pd.DataFrame:
    """The seats table, with ``nil`` and ``blind_nil`` columns when ``keys`` asks for them."""
    seats = agg.seats
    extra = {}
    kind = seats["nil_kind"].to_numpy()
    if "nil" in keys:
        extra["nil"] = kind == 1
    if "blind_nil" in keys:
        extra["blind_nil"] = kind == 2
    return seats.assign(**extra) if extra else seats


def side_units(agg: Aggregate, contract: bool = False) -> pd.DataFrame:
    """The sides table; only the side-hands with a contract when ``contract``."""
    sides = agg.sides
    return sides[sides["contract"].to_numpy()] if contract else sides


def game_units(agg: Aggregate) -> pd.DataFrame:
    """The games table (a side in a game); ValueError for a hands-mode aggregate."""
    if agg.games is None:
        raise ValueError("a hands-mode aggregate has no per-game counts")
    return agg.games


def column(frame: pd.DataFrame, name: str) -> np.ndarray:
    """One statistics column as int64."""
    return frame[name].to_numpy().astype(np.int64)


def group_stats(
    units: pd.DataFrame, keys: Sequence[str], measures: Mapping[str, Triple]
) -> pd.DataFrame:
    """Per group of ``keys``: each measure's ``n``, ``sum`` and ``sumsq`` summed, as
    :func:`.reduce.combine` gives them (with no keys, one row, zeros if no units)."""
    keys = list(keys)
    data: dict[str, np.ndarray] = {k: units[k].to_numpy() for k in keys}
    names = []
    for measure, triple in measures.items():
        for stat, values in zip(("n", "sum", "sumsq"), triple, strict=True):
            name = f"{measure}.{stat}"
            data[name] = np.asarray(values, dtype=np.int64).astype(np.float64)
            names.append(name)
    frame = pd.DataFrame(data, index=pd.RangeIndex(len(units)))
    if not keys:
        return frame[names].sum().to_frame().T.reset_index(drop=True)
    return frame.groupby(keys, sort=False, observed=True)[names].sum().reset_index()


__all__ = ["column", "game_units", "group_stats", "seat_units", "side_units"]
