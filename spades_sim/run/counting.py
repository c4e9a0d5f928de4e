"""Counting: a chunk of a run reduced to aggregate tables inside the kernel.

Contract
--------
Most questions need counts, not rows. In aggregate mode the counts kernel
(:mod:`spades_sim._nb.aggregate`, the twin of the rows kernel
:func:`~spades_sim.run.select.select_kernel` picks) adds every hand into count tables as
it is played, one set of tables per thread, so memory stays flat (tables of at most
:data:`MAX_CELLS` cells, :data:`TABLE_MEMORY` bytes over all threads; nothing grows with
the run) and a study of a billion hands needs no disk.

:func:`layout` checks ``by`` (:data:`~spades_sim.run.aggregate_frames.KEYS`; ``side`` is always
a key) and lays the tables out: each key's width under the rules, the mixed-radix group
numbers the kernels compute. :func:`aggregate_chunk` cuts a chunk into pieces that the
thread pool (:func:`~spades_sim.threads.run_tasks`) takes in turn, each worker
calling the kernel (which releases the GIL) into its own dense :class:`Tables`; the
tables are integer sums, added at the end, so they never depend on the threads or the
chunk size. User-written policies run through their rows kernel on bounded pieces, whose
rows are then added the same way. :func:`to_aggregate` turns tables into the
:class:`~spades_sim.run.aggregate_frames.Aggregate` every analysis takes.

>>> spec = RunSpec.build(seed=1, play="random")
>>> lay = layout(["spades"], spec.rules)
>>> agg = to_aggregate(spec, lay, aggregate_chunk(spec, lay, 0, 1000))
>>> int(agg.seats["count"].sum()), int(agg.sides["count"].sum()), agg.games is None
(4000, 2000, True)
>>> list(agg.seats.columns[:4])
['spades', 'side', 'nil_kind', 'bid']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from spades_sim._nb import aggregate as K
from spades_sim._nb.enums import OutI8
from spades_sim.errors import SpadesError
from spades_sim.rules import Rules
from spades_sim.run.aggregate_frames import (
    DTYPES,
    GAME_STATS,
    KEYS,
    OUTCOMES,
    SEAT_STATS,
    SIDE_STATS,
    Aggregate,
    summed,
    table_keys,
)
from spades_sim.run.chunks import PolicyError, kernel_outputs
from spades_sim.run.select import Kernel, select_kernel
from spades_sim.run.spec import RunSpec
from spades_sim.threads import current_threads, ensure_compiled, run_tasks

__all__ = [
    "KEYS",
    "MAX_CELLS",
    "TABLE_MEMORY",
    "Aggregate",
    "AggregateKeyError",
    "Layout",
    "Tables",
    "aggregate_chunk",
    "aggregate_meta",
    "layout",
    "to_aggregate",
]

MAX_CELLS = 1 << 20
"""Cells of the seat and side tables together (a cell is a group times a cell key)."""
TABLE_MEMORY = 512 << 20
"""Bytes all threads' tables may take together: fewer threads count when they would not
fit (their tables are reused, so this bounds the memory of any run)."""
_CODES = {
    "spades": OutI8.spades,
    "high_spades": OutI8.high_spades,
    "aces": OutI8.aces,
    "kings": OutI8.kings,
    "queens": OutI8.queens,
    "shortest_suit": OutI8.shortest_suit,
    "voids": OutI8.voids,
    "points": OutI8.points,
    "tricks": OutI8.tricks,
    "dealer": OutI8.dealer,
    "side_contract": OutI8.side_contract,
    "side_tricks": OutI8.side_tricks,
    "bags_change": OutI8.bags_change,
    "boston": OutI8.boston,
    "seat": K.K_SEAT,
    "side": K.K_SIDE,
    "hand_no": K.K_HAND_NO,
}
_GAME_COLUMN = {  # the kernel's A_* statistics by name
    "count": K.A_COUNT,
    "bags": K.A_BAGS,
    "bags_sq": K.A_BAGS_SQ,
    "penalized": K.A_PENALIZED,
    "penalties": K.A_PENALTIES,
    "penalties_sq": K.A_PENALTIES_SQ,
    "points_lost": K.A_POINTS,
    "points_lost_sq": K.A_POINTS_SQ,
    "first_penalty_hand": K.A_FIRST,
    "first_penalty_hand_sq": K.A_FIRST_SQ,
    "penalty_pairs": K.A_PAIRS,
    "hands_between_penalties": K.A_GAPS,
    "hands_between_penalties_sq": K.A_GAPS_SQ,
    "decided_by_bags": K.A_DECIDED,
    "hands": K.A_HANDS,
    "hands_sq": K.A_HANDS_SQ,
}


class AggregateKeyError(SpadesError):
    """A ``by`` aggregate mode cannot count by (an unknown key, or too many values)."""


def _width(key: str, rules: Rules) -> int:
    """How many values ``key`` takes (0 .. width - 1) under ``rules``."""
    if rules.players == 3:  # 17 or 18 cards a hand
        three = {"spades": 16, "shortest_suit": 5, "side_contract": rules.tricks + 1}
        three |= dict.fromkeys(("tricks", "side_tricks", "bags_change"), rules.tricks + 1)
        if key in three:
            return three[key]
    fixed = {
        "spades": 14,
        # queen, king, ace and two jokers; with the deuces high the 2S and 2D as well
        "high_spades": 8 if rules.deuces_high else 6,
        "aces": 5,
        "kings": 5,
        "queens": 5,
        "shortest_suit": 4,
        "voids": 4,
        "points": 41,  # 37 at most in 13 cards
        "tricks": 14,
        "side_tricks": 14,
        "bags_change": 14,
        "boston": 2,
    }
    if key in fixed:
        return fixed[key]
    if key in ("seat", "dealer"):
        return rules.players
    if key == "side":
        return rules.sides
    if key == "side_contract":
        return 27 if rules.players == 4 else 14
    assert key == "hand_no"
    return rules.max_hands


@dataclass(frozen=True)
class Layout:
    """Where ``by`` puts the counts: the keys of each table and their widths.

    ``seat_keys`` and ``side_keys`` end with ``side``; ``seat_keys`` leaves out the keys
    its cells hold (:data:`CELL_KEYS`), ``side_keys`` keeps those of :data:`SIDE_LEVEL`.
    """

    by: tuple[str, ...]
    mode: str
    seat_keys: tuple[str, ...]
    seat_widths: tuple[int, ...]
    side_keys: tuple[str, ...]
    side_widths: tuple[int, ...]
    tricks: int = 13
    """The tricks of a hand (``Rules.tricks``), which set the cells of a group."""

    @property
    def seat_group_cells(self) -> int:
        """Cells of one seat group (``_nb.aggregate.seat_cells``)."""
        return int(K.seat_cells.py_func(self.tricks))

    @property
    def side_group_cells(self) -> int:
        """Cells of one side group (``_nb.aggregate.side_cells``)."""
        return int(K.side_cells.py_func(self.tricks))

    @property
    def seat_cells(self) -> int:
        return int(np.prod(self.seat_widths, dtype=np.int64)) * self.seat_group_cells

    @property
    def side_cells(self) -> int:
        return int(np.prod(self.side_widths, dtype=np.int64)) * self.side_group_cells

    def kernel_keys(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The key codes and widths of both tables, as the kernels take them."""

        def arrays(keys: tuple[str, ...], widths: tuple[int, ...]) -> list[np.ndarray]:
            codes = np.array([_CODES[k] for k in keys], dtype=np.int64)
            return [codes, np.array(widths, dtype=np.int64)]

        a, b = arrays(self.seat_keys, self.seat_widths)
        c, d = arrays(self.side_keys, self.side_widths)
        return a, b, c, d

    def table_bytes(self) -> int:
        """Bytes of one thread's tables."""
        cells = self.seat_cells * K.N_SEAT_STATS + self.side_cells * K.N_SIDE_STATS
        return 8 * (cells + K.GAME_CELLS * K.N_GAME_STATS)


def layout(by: str | Sequence[str] | None, rules: Rules, mode: str = "hands") -> Layout:
    """Check ``by`` for a run of ``rules`` in ``mode`` and lay out its tables.

    >>> layout("spades,side_contract", Rules()).side_keys
    ('side_contract', 'side')
    >>> layout(["points", "spades", "aces", "kings", "queens"], Rules())
    Traceback (most recent call last):
    ...
    spades_sim.run.counting.AggregateKeyError: by points,spades,aces,kings,queens: the \
aggregate tables would have 2,296,108 cells (seats: 41 x 14 x 5 x 5 x 5 x 2 groups x 16 \
bids, sides: 2 groups x 54 results); at most 1,048,576: count by fewer keys
    """
    if by is None:
        names: list[str] = []
    elif isinstance(by, str):
        names = [k.strip() for k in by.split(",") if k.strip()]
    else:
        names = [str(k) for k in by]
    names = list(dict.fromkeys(names))
    for key in names:
        if key not in KEYS:
            raise AggregateKeyError(
                f"by: {key!r} is not a key aggregate mode counts by; its keys: {', '.join(KEYS)}"
            )
    if "hand_no" in names and mode != "games":
        raise AggregateKeyError("by: 'hand_no' is a key of games mode only")
    seat_keys, side_keys = table_keys(names)
    lay = Layout(
        by=tuple(names),
        mode=mode,
        seat_keys=seat_keys,
        seat_widths=tuple(_width(k, rules) for k in seat_keys),
        side_keys=side_keys,
        side_widths=tuple(_width(k, rules) for k in side_keys),
        tricks=rules.tricks,
    )
    cells = lay.seat_cells + lay.side_cells
    if cells > MAX_CELLS:
        seats = " x ".join(str(w) for w in lay.seat_widths)
        sides = " x ".join(str(w) for w in lay.side_widths)
        raise AggregateKeyError(
            f"by {','.join(names)}: the aggregate tables would have {cells:,} cells (seats: "
            f"{seats} groups x {lay.seat_group_cells} bids, sides: {sides} groups x "
            f"{lay.side_group_cells} "
            f"results); at most {MAX_CELLS:,}: count by fewer keys"
        )
    return lay


# --------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------


@dataclass
class Tables:
    """One set of the kernels' dense int64 tables (``_nb.aggregate``), and its status."""

    seat: np.ndarray
    side: np.ndarray
    game: np.ndarray
    status: np.ndarray

    @classmethod
    def zeros(cls, lay: Layout) -> Tables:
        return cls(
            np.zeros((lay.seat_cells, K.N_SEAT_STATS), dtype=np.int64),
            np.zeros((lay.side_cells, K.N_SIDE_STATS), dtype=np.int64),
            np.zeros((K.GAME_CELLS, K.N_GAME_STATS), dtype=np.int64),
            np.zeros(K.N_STATUS, dtype=np.int64),
        )

    def add(self, other: Tables) -> None:
        self.seat += other.seat
        self.side += other.side
        self.game += other.game
        errors = self.status[K.ST_ERRORS], other.status[K.ST_ERRORS]
        if errors[1] and (
            not errors[0] or other.status[K.ST_FIRST_ERROR] < self.status[K.ST_FIRST_ERROR]
        ):
            self.status[K.ST_FIRST_ERROR] = other.status[K.ST_FIRST_ERROR]
        self.status[K.ST_ERRORS] += other.status[K.ST_ERRORS]
        self.status[K.ST_BAD] += other.status[K.ST_BAD]


def _decode(index: np.ndarray, keys: Sequence[str], widths: Sequence[int]) -> dict[str, Any]:
    """Key columns of group numbers (mixed radix, the last key varying fastest)."""
    out: dict[str, np.ndarray] = {}
    rest = index
    for key, width in reversed(list(zip(keys, widths, strict=True))):
        out[key] = (rest % width).astype(DTYPES[key])
        rest = rest // width
    return {k: out[k] for k in keys}


def _frames(lay: Layout, tables: Tables) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The dense tables as frames of the cells that occur."""
    used = np.flatnonzero(tables.seat[:, K.S_COUNT])
    cell = used % lay.seat_group_cells
    seats = pd.DataFrame(_decode(used // lay.seat_group_cells, lay.seat_keys, lay.seat_widths))
    seats["nil_kind"] = np.where(cell < 2, cell + 1, 0).astype(np.int8)
    seats["bid"] = np.where(cell < 2, 0, cell - 2).astype(np.int8)
    for j, name in enumerate(SEAT_STATS):
        seats[name] = tables.seat[used, j]

    used = np.flatnonzero(tables.side[:, K.D_COUNT])
    cell = used % lay.side_group_cells
    sides = pd.DataFrame(_decode(used // lay.side_group_cells, lay.side_keys, lay.side_widths))
    first = int(K.contract_cell0.py_func(lay.tricks))
    contract = cell >= first
    sides["contract"] = contract
    sides["difference"] = np.where(contract, cell - first - 26, cell).astype(np.int8)
    for j, name in enumerate(SIDE_STATS):
        sides[name] = tables.side[used, j]

    used = np.flatnonzero(tables.game[:, K.A_COUNT])
    games = pd.DataFrame(
        {
            "side": (used // 3).astype(np.int8),
            "outcome": np.array(OUTCOMES, dtype=object)[used % 3],
        }
    )
    for name in GAME_STATS:
        games[name] = tables.game[used, _GAME_COLUMN[name]]
    return seats, sides, games


# --------------------------------------------------------------------------------------
# Computing
# --------------------------------------------------------------------------------------

HANDS_PIECE = 1 << 14
"""Deals per kernel call: threads take pieces in turn, so none waits long for another."""
GAMES_PIECE = 1 << 9
CUSTOM_HANDS = 1 << 15
"""Deals per row-kernel call for user-written policies (their rows are then added up)."""


def _workers(lay: Layout) -> int:
    """Threads to count with: the kernel threads, as many as their tables fit in memory."""
    return max(1, min(current_threads(), TABLE_MEMORY // max(1, lay.table_bytes())))


def _run_builtin(kernel: Kernel, spec: RunSpec, lay: Layout, start: int, count: int) -> Tables:
    """The counts kernel on pieces of the chunk, each thread into its own tables (the
    kernels release the GIL); integer sums make the total the same whatever piece each
    thread took."""
    rules = spec.rules.lower()
    params = spec.params()
    keys = lay.kernel_keys()
    seed = np.int64(spec.seed)
    piece = HANDS_PIECE if spec.mode == "hands" else GAMES_PIECE
    pieces = [(s, min(piece, start + count - s)) for s in range(start, start + count, piece)]
    workers = min(_workers(lay), len(pieces))
    own = [Tables.zeros(lay) for _ in range(max(1, workers))]

    def args(t: Tables, first: int, n: int) -> tuple[Any, ...]:
        tables = (t.seat, t.side) if spec.mode == "hands" else (t.seat, t.side, t.game)
        return (rules, seed, np.int64(first), np.int64(n), params, keys, *tables, t.status)

    # compile (announced to the watchers) before the threads start
    ensure_compiled(kernel.entry, args(Tables.zeros(lay), 0, 0))

    def run(worker: int, k: int) -> None:
        kernel.entry(*args(own[worker], *pieces[k]))

    run_tasks(len(pieces), run, workers)
    total = own[0]
    for t in own[1:]:
        total.add(t)
    return total


def _run_from_rows(spec: RunSpec, lay: Layout, start: int, count: int) -> Tables:
    """User-written policies: their rows kernel on bounded pieces, the rows then added."""
    rules = spec.rules.lower()
    keys = lay.kernel_keys()
    total = Tables.zeros(lay)
    per_item = spec.rules.max_hands if spec.mode == "games" else 1
    piece = max(1, CUSTOM_HANDS // per_item)
    for first in range(start, start + count, piece):
        n = min(piece, start + count - first)
        raw = kernel_outputs(spec, first, n)
        if spec.mode == "hands":
            K.add_hand_rows_nb(
                rules, raw["i8"], raw["i32"], raw["status"], np.int64(first), np.int64(n),
                keys, total.seat, total.side, total.status,
            )  # fmt: skip
        else:
            K.add_game_rows_nb(
                rules, raw["i8"], raw["i32"], raw["status"], np.int64(first), keys,
                total.seat, total.side, total.game, total.status,
            )  # fmt: skip
    return total


def aggregate_chunk(spec: RunSpec, lay: Layout, start: int, count: int) -> Tables:
    """Items ``[start, start + count)`` of a run counted into :class:`Tables`, on the
    kernel threads (:func:`~spades_sim.threads.kernel_threads`). Raises
    :class:`~spades_sim.run.chunks.PolicyError` as the rows path does."""
    if spec.record_play:
        raise ValueError("aggregate mode keeps no rows: it cannot record the play")
    kernel = select_kernel(spec, "counts")
    if kernel.from_rows is not None:
        tables = _run_from_rows(spec, lay, start, count)
    else:
        tables = _run_builtin(kernel, spec, lay, start, count)
    status = tables.status
    if status[K.ST_ERRORS]:
        what = "game" if spec.mode == "games" else "deal"
        names = ", ".join(p.name for p in (*spec.bidding, *spec.play) if not p.is_builtin)
        raise PolicyError(
            f"{what} {int(status[K.ST_FIRST_ERROR])}: a policy ({names or 'built-in'}) "
            "returned an illegal bid or card"
        )
    if status[K.ST_BAD]:  # the widths of layout() rule this out
        raise AssertionError(f"{int(status[K.ST_BAD])} rows had a key out of its range")
    return tables


def to_aggregate(spec: RunSpec, lay: Layout, tables: Tables) -> Aggregate:
    """:class:`Tables` as an :class:`Aggregate` with the run's meta."""
    seats, sides, games = _frames(lay, tables)
    return Aggregate(
        spec.mode,
        lay.by,
        summed([seats], SEAT_STATS),  # sorted by the keys, as parts read back are
        summed([sides], SIDE_STATS),
        summed([games], GAME_STATS) if spec.mode == "games" else None,
        aggregate_meta(spec, lay),
    )


def aggregate_meta(spec: RunSpec, lay: Layout) -> dict[str, Any]:
    """The run meta of an aggregate run: ``RunSpec.meta()`` and ``aggregate: {by}``."""
    return {**spec.meta(), "aggregate": {"by": list(lay.by)}}
