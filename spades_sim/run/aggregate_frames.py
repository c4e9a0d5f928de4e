"""The aggregate table: what an aggregate run counts, and how a part file stores it.

Contract
--------
``by`` names the keys the counts are grouped by (:data:`KEYS`): the hand features, the
seat, the bid and nil kind, the side's contract, tricks and bags, the dealer, ``boston``
and, in games mode, ``hand_no``. ``side`` is always a key (``policy`` groups need it).
An :class:`Aggregate` holds three tables, pandas frames of int64 counts and sums, one
row per group and *cell* that occurs (no zero rows), sorted by the keys:

``seats`` (a seat in a hand)
    keys: ``by``'s seat keys, ``side``, cells ``nil_kind`` (0 a number, 1 nil, 2 blind
    nil) and ``bid``; ``count`` (seats), ``nils_made``, ``tricks_taken``/``_sq``.
``sides`` (a side in a hand: the row of seat 0 or 1, which carries the side's figures)
    keys: ``by``'s side keys (:data:`SIDE_LEVEL`), ``side``, cells ``contract`` (the
    side's contract is above 0) and ``difference`` (side tricks minus contract);
    ``count``, ``bags``/``bags_sq``, ``penalties`` (hands with a bag penalty),
    ``points_lost``/``points_lost_sq`` (to the bag penalty), ``score``/``score_sq``.
``games`` (a side in a game; games mode, else None)
    keys ``side``, ``outcome`` (``won``, ``lost``, ``unfinished``); ``count``,
    ``bags``/``bags_sq``, ``penalized`` (side-games with a penalty), ``penalties``/
    ``penalties_sq`` (penalty hands), ``points_lost``/``points_lost_sq``,
    ``first_penalty_hand``/``_sq`` (over penalized side-games), ``penalty_pairs``,
    ``hands_between_penalties``/``_sq`` (over consecutive penalty hands),
    ``decided_by_bags`` (losing sides whose game the penalty decided), ``hands``/
    ``hands_sq`` (hands per game).

Those are the sufficient statistics of every analysis of one run
(:mod:`spades_sim.analysis`): an analysis of an aggregate gives exactly the table it
gives from the rows of the same run, for any subset of ``by`` (``tests/test_aggregate``).
The counts are sums of whole numbers, so they never depend on threads or chunk size.
On disk (:meth:`Aggregate.columns`) the three tables are one long table: a ``unit``
column (0 seats, 1 sides, 2 games), the keys (-1 where a key does not apply, booleans
as 0/1, ``outcome`` as 0/1/2) and the statistics (0 where they do not apply).

Two aggregates of the same mode and keys add up (``+``: parts of one run) and compare
equal when their tables are equal. :func:`tally` gives the run summary's counts from an
aggregate; :func:`load_aggregate` reads an aggregate run directory back (its listed
parts, summed).

>>> from spades_sim.simulate import simulate_hands
>>> agg = simulate_hands(100, seed=1, play="random", aggregate="seat")
>>> back = Aggregate.from_table(pd.DataFrame(agg.columns()), agg.by, agg.mode)
>>> back == agg, (agg + agg).hands
(True, 200)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from spades_sim._nb.features import FEATURES
from spades_sim.dataset import read_manifest
from spades_sim.run.summary import Tally
from spades_sim.schema import HAND_COLUMNS

__all__ = [
    "CELL_KEYS",
    "GAME_STATS",
    "KEYS",
    "OUTCOMES",
    "SEAT_ONLY",
    "SEAT_STATS",
    "SIDE_LEVEL",
    "SIDE_STATS",
    "UNITS",
    "Aggregate",
    "load_aggregate",
    "summed",
    "table_keys",
    "tally",
]

SEAT_ONLY = (*FEATURES, "seat", "tricks")
"""Keys of a seat (not of its side): the seats table only."""
CELL_KEYS = ("bid", "nil", "blind_nil")
"""Seat keys the seats table's cells already hold (``bid``, ``nil_kind``)."""
SIDE_LEVEL = ("side", "dealer", "hand_no", "side_contract", "side_tricks", "bags_change", "boston")
"""Keys of a side in a hand: in the seats and the sides tables."""
KEYS = SEAT_ONLY + CELL_KEYS + SIDE_LEVEL
"""Every key aggregate mode can group by."""

OUTCOMES = ("won", "lost", "unfinished")
UNITS = ("seats", "sides", "games")

DTYPES = {c.name: c.dtype for c in HAND_COLUMNS}
SEAT_STATS = ("count", "nils_made", "tricks_taken", "tricks_taken_sq")
SIDE_STATS = (
    "count",
    "bags",
    "bags_sq",
    "penalties",
    "points_lost",
    "points_lost_sq",
    "score",
    "score_sq",
)
GAME_STATS = (
    "count",
    "bags",
    "bags_sq",
    "penalized",
    "penalties",
    "penalties_sq",
    "points_lost",
    "points_lost_sq",
    "first_penalty_hand",
    "first_penalty_hand_sq",
    "penalty_pairs",
    "hands_between_penalties",
    "hands_between_penalties_sq",
    "decided_by_bags",
    "hands",
    "hands_sq",
)


def table_keys(by: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The group keys of the seats and the sides tables for ``by``."""
    seat = (*(k for k in by if k not in CELL_KEYS and k != "side"), "side")
    side = (*(k for k in by if k in SIDE_LEVEL and k != "side"), "side")
    return seat, side


def _group_keys(frame: pd.DataFrame, stats: Sequence[str]) -> list[str]:
    return [str(c) for c in frame.columns if c not in stats]


def summed(frames: Sequence[pd.DataFrame], stats: Sequence[str]) -> pd.DataFrame:
    """Frames of one table added group by group, sorted by the keys."""
    whole = pd.concat(list(frames), ignore_index=True)
    keys = _group_keys(whole, stats)
    summed = whole.groupby(keys, sort=True, observed=True)[list(stats)].sum().reset_index()
    return summed[summed["count"] > 0].reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class Aggregate:
    """A run's count tables (see the module docstring); add two with ``+``.

    ``meta`` is the run meta (``RunSpec.meta()`` plus ``aggregate``), as a rows frame
    carries it in ``attrs``: the analyses group by ``policy`` and ``rules`` with it.
    """

    mode: str
    by: tuple[str, ...]
    seats: pd.DataFrame
    sides: pd.DataFrame
    games: pd.DataFrame | None = None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Aggregate):
            return NotImplemented
        frames = [(self.seats, other.seats), (self.sides, other.sides)]
        if (self.games is None) != (other.games is None):
            return False
        if self.games is not None and other.games is not None:
            frames.append((self.games, other.games))
        same = (self.mode, self.by) == (other.mode, other.by)
        return same and all(a.equals(b) for a, b in frames)

    __hash__ = None  # type: ignore[assignment]

    @property
    def hands(self) -> int:
        """Hands counted (a side in a hand is one of two rows per hand)."""
        return int(self.sides["count"].sum()) // 2

    @property
    def n_games(self) -> int:
        """Games counted (0 in hands mode)."""
        return 0 if self.games is None else int(self.games["count"].sum()) // 2

    def __add__(self, other: Aggregate) -> Aggregate:
        if (self.mode, self.by) != (other.mode, other.by):
            raise ValueError("only aggregates of the same mode and keys add up")
        games = None
        if self.games is not None and other.games is not None:
            games = summed([self.games, other.games], GAME_STATS)
        return Aggregate(
            self.mode,
            self.by,
            summed([self.seats, other.seats], SEAT_STATS),
            summed([self.sides, other.sides], SIDE_STATS),
            games,
            self.meta,
        )

    def columns(self) -> dict[str, np.ndarray]:
        """The three tables as the one long table of a part file (module docstring)."""
        parts = [("seats", self.seats), ("sides", self.sides)]
        if self.games is not None:
            parts.append(("games", self.games))
        keys = [*self.by, "side", "nil_kind", "bid", "contract", "difference", "outcome"]
        keys = [k for k in dict.fromkeys(keys) if k not in ("nil", "blind_nil")]
        stats = list(dict.fromkeys([*SEAT_STATS, *SIDE_STATS, *GAME_STATS]))
        total = sum(len(f) for _, f in parts)
        out: dict[str, np.ndarray] = {"unit": np.zeros(total, dtype=np.int8)}
        for k in keys:
            dtype = np.int16 if k == "hand_no" else np.int8
            out[k] = np.full(total, -1, dtype=dtype)
        for s in stats:
            out[s] = np.zeros(total, dtype=np.int64)
        at = 0
        for unit, frame in parts:
            rows = slice(at, at + len(frame))
            out["unit"][rows] = UNITS.index(unit)
            for k in keys:
                if k in frame.columns:
                    values = frame[k].to_numpy()
                    if k == "outcome":
                        values = pd.Categorical(values, categories=OUTCOMES).codes
                    out[k][rows] = values
            for s in stats:
                if s in frame.columns:
                    out[s][rows] = frame[s].to_numpy()
            at += len(frame)
        return out

    @classmethod
    def from_table(
        cls,
        table: pd.DataFrame,
        by: Sequence[str],
        mode: str,
        meta: Mapping[str, Any] | None = None,
    ) -> Aggregate:
        """An aggregate from long tables (:meth:`columns`, one or more parts concatenated)."""
        by = tuple(by)
        lay_seat, lay_side = table_keys(by)
        unit = table["unit"].to_numpy()

        def pick(code: int, keys: Sequence[str], stats: Sequence[str]) -> pd.DataFrame:
            rows = table[unit == code]
            data: dict[str, np.ndarray] = {}
            for k in keys:
                values = rows[k].to_numpy()
                if k == "outcome":
                    data[k] = np.array(OUTCOMES, dtype=object)[values]
                elif k == "contract":
                    data[k] = values.astype(bool)
                else:
                    data[k] = values.astype(DTYPES.get(k, np.dtype(np.int8)))
            for s in stats:
                data[s] = rows[s].to_numpy().astype(np.int64)
            return summed([pd.DataFrame(data)], stats)

        seats = pick(0, [*lay_seat, "nil_kind", "bid"], SEAT_STATS)
        sides = pick(1, [*lay_side, "contract", "difference"], SIDE_STATS)
        games = pick(2, ["side", "outcome"], GAME_STATS) if mode == "games" else None
        return cls(mode, by, seats, sides, games, meta)


def tally(agg: Aggregate, players: int, n_sides: int = 2) -> Tally:
    """The run summary's counts from an aggregate (as ``Tally.of_chunk`` from rows).

    A side's figures repeat on each of its seats' rows: ``players // n_sides`` rows per
    side (one with two players and in cutthroat, where ``n_sides`` is 4).
    """
    seats, sides = agg.seats, agg.sides
    per_side = players // n_sides
    count = sides["count"].to_numpy()
    contract = sides["contract"].to_numpy()
    made = contract & (sides["difference"].to_numpy() >= 0)
    out = Tally(
        hands=int(count.sum()) // n_sides,
        rows=int(seats["count"].sum()),
        bids=int(seats["count"].sum()),
        nil_bids=int(seats["count"][seats["nil_kind"] > 0].sum()),
        nil_made=int(seats["nils_made"].sum()),
        contracts=int(count[contract].sum()) * per_side,
        made=int(count[made].sum()) * per_side,
        bags=int(sides["bags"].sum()) * per_side,
    )
    if agg.games is not None:
        games = agg.games
        side = games["side"].to_numpy()
        outcome = games["outcome"].to_numpy()
        n = games["count"].to_numpy()
        out.games = int(n.sum()) // n_sides
        out.wins_ns = int(n[(side == 0) & (outcome == "won")].sum())
        out.wins_ew = int(n[(side == 1) & (outcome == "won")].sum())
        out.wins_2 = int(n[(side == 2) & (outcome == "won")].sum())
        out.wins_3 = int(n[(side == 3) & (outcome == "won")].sum())
        out.unfinished = int(n[(side == 0) & (outcome == "unfinished")].sum())
    return out


def load_aggregate(path: str | os.PathLike[str]) -> Aggregate:
    """The counts of the aggregate run at ``path``: its listed parts, summed.

    Raises ``ValueError`` if ``path`` is a run of rows or has no complete part yet.
    """
    root = Path(path)
    manifest = read_manifest(root)
    meta = manifest.get("meta") or {}
    if "aggregate" not in meta:
        raise ValueError(f"{root}: a run of rows, not an aggregate run")
    entries = [manifest["parts"][k] for k in sorted(manifest.get("parts", {}))]
    if not entries:
        raise ValueError(f"{root}: the run has no complete part yet")
    by = [str(k) for k in meta["aggregate"].get("by", [])]
    mode = str(meta.get("mode", "hands"))
    total: Aggregate | None = None
    for entry in entries:  # part by part: memory is two parts' tables, not the run's
        file = root / entry["file"]
        if not file.is_file():
            raise FileNotFoundError(f"{file}: listed in the manifest but missing")
        part = Aggregate.from_table(pq.read_table(file).to_pandas(), by, mode, meta)
        total = part if total is None else total + part
    assert total is not None
    return total
