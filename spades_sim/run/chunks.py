"""Rows: a chunk of a run computed by its rows kernel and named as columns.

Contract
--------
:func:`kernel_outputs` allocates the output blocks of items ``[start, start + count)``
of a :class:`~spades_sim.run.spec.RunSpec` and fills them with the kernel
:func:`~spades_sim.run.select.select_kernel` picks, on the thread pool
(:func:`~spades_sim.threads.run_blocks`). :func:`run_chunk` names those blocks'
rows as the schema's columns (the rows come from the ``OutI8``/``OutI32``/``GameOut``
enums ``schema.py`` declares), one :class:`Chunk`; the columns are views of the
kernel's blocks where no row is dropped. A user-written policy's illegal bid or card
raises :class:`PolicyError` naming the first deal (or game) with one. Every item draws
from its own stream, so a chunk's rows are those of the same items in any other cut.

A generated kernel module (user-written policies, and every ``pimc`` run) may hold a
thread for minutes on one hand: :func:`kernel_outputs` runs it through
``threads.stoppable`` with a stop cell per worker thread in the rule array
(:func:`stop_cells`, ``_nb.enums.SEARCH_CELL``), so Ctrl-C or SIGTERM makes the searches
in flight return, the hands left skipped, and ``KeyboardInterrupt`` raised within about a
second. The chunk's output is then dropped whole, a hand whose cards came from a stopped
search with it: nothing of it is returned, and a resumed run computes it again. The
built-in kernels keep the plain path: Ctrl-C stops them between tasks.

>>> chunk = run_chunk(RunSpec.build(seed=1), 0, 0, 8)
>>> len(chunk.hands["deal"]), int(chunk.hands["tricks"][:4].sum())
(32, 13)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spades_sim._nb.enums import (
    N_OUT_GAME,
    N_OUT_I8,
    N_OUT_I32,
    SEARCH_CELL,
    SEARCH_CELL_SLOTS,
    STOP_SLOT,
    GameOut,
    OutI8,
    OutI32,
)
from spades_sim.custom.kernels import needs_generated
from spades_sim.errors import SpadesError
from spades_sim.run.select import select_kernel
from spades_sim.run.spec import RunSpec
from spades_sim.schema import HAND_COLUMNS, hand_columns
from spades_sim.threads import StopCells, current_threads, ensure_compiled, run_blocks, stoppable

__all__ = [
    "HANDS_I32_ROWS",
    "I8_ROWS",
    "I32_ROWS",
    "Chunk",
    "PolicyError",
    "check_policy_errors",
    "kernel_outputs",
    "run_chunk",
    "stop_cells",
]

# The kernel's row of every column it writes, by name (``schema.py`` says which block).
I8_ROWS = {c.name: getattr(OutI8, c.name) for c in HAND_COLUMNS if c.block == "i8"}
I32_ROWS = {c.name: getattr(OutI32, c.name) for c in HAND_COLUMNS if c.block == "i32"}
# the int32 rows a hands run uses come first (schema order), so a lock-step kernel's block
# of just those rows is indexed as the full one is
HANDS_I32_ROWS = 1 + max(I32_ROWS[c.name] for c in hand_columns(False) if c.block == "i32")
assert all(I32_ROWS[c.name] < HANDS_I32_ROWS for c in hand_columns(False) if c.block == "i32")


class PolicyError(SpadesError):
    """A user-written policy returned an illegal bid or card."""


@dataclass
class Chunk:
    """The results of items ``[start, stop)`` of a run, as columns."""

    index: int
    start: int
    stop: int
    hands: dict[str, np.ndarray]
    games: dict[str, np.ndarray] | None = None
    plays: dict[str, np.ndarray] | None = None


def stop_cells(rules: np.ndarray, workers: int) -> StopCells:
    """A rule array with a stop cell for each of ``workers`` threads
    (``_nb.enums.SEARCH_CELL``): the rule fields, then the cell, cleared.

    >>> from spades_sim import Rules
    >>> cells = stop_cells(Rules().lower(), 2)
    >>> cells.rows.shape[0], (cells.rows[1, :SEARCH_CELL] == Rules().lower()).all(), cells.stopped
    (2, np.True_, False)
    """
    rows = np.zeros((workers, SEARCH_CELL + SEARCH_CELL_SLOTS), dtype=np.int64)
    rows[:, :SEARCH_CELL] = rules
    return StopCells(rows, SEARCH_CELL + STOP_SLOT)


def kernel_outputs(spec: RunSpec, start: int, count: int) -> dict[str, Any]:
    """Run the rows kernel :func:`~spades_sim.run.select.select_kernel` picks on items
    ``[start, start + count)`` (on the thread pool); return its raw output arrays."""
    rules = spec.rules.lower()
    players = spec.rules.players
    games = spec.mode == "games"
    slots = count * (spec.rules.max_hands if games else 1)
    rows = slots * players
    kernel = select_kernel(spec, "rows")
    out: dict[str, Any] = {
        "hand": np.empty(rows, dtype=np.uint64),
        "i8": np.empty((N_OUT_I8, rows), dtype=np.int8),
        # the lock-step kernels write only the int32 rows a hands run has (not the scores
        # and bags before and after, games-mode columns): 16 bytes a row fewer to touch
        "i32": np.empty((HANDS_I32_ROWS if kernel.lockstep else N_OUT_I32, rows), dtype=np.int32),
    }
    rec = slots if spec.record_play else 0
    out["dealt"] = np.zeros(rec * players, dtype=np.uint64)
    tricks = spec.rules.tricks  # 13, or 17 or 18 with three players
    out["plays"] = np.zeros((rec, tricks * players), dtype=np.int8)
    out["winners"] = np.zeros((rec, tricks), dtype=np.int8)
    status = (
        np.zeros((count, N_OUT_GAME), dtype=np.int32) if games else np.zeros(count, dtype=np.int8)
    )
    rest = (np.int64(spec.seed), np.int64(start), np.int64(count), spec.params())
    outs = (out["hand"], out["i8"], out["i32"], status, out["dealt"], out["plays"], out["winners"])
    n_blocks = -(-count // kernel.per_block)
    if needs_generated((*spec.bidding, *spec.play)):
        cells = stop_cells(rules, current_threads())
        # compiled here, where Ctrl-C still interrupts it, not on the helper thread
        ensure_compiled(kernel.entry, (np.int64(0), np.int64(0), cells.rows[0], *rest, *outs))
        stoppable(lambda: run_blocks(kernel.entry, n_blocks, cells, *rest, *outs), cells.stop)
    else:
        run_blocks(kernel.entry, n_blocks, rules, *rest, *outs)
    out["status"] = status
    return out


def check_policy_errors(spec: RunSpec, errors: np.ndarray, start: int) -> None:
    bad = np.flatnonzero(errors)
    if bad.size:
        what = "game" if spec.mode == "games" else "deal"
        names = ", ".join(p.name for p in (*spec.bidding, *spec.play) if not p.is_builtin)
        raise PolicyError(
            f"{what} {start + int(bad[0])}: a policy ({names or 'built-in'}) returned an "
            "illegal bid or card"
        )


def run_chunk(spec: RunSpec, index: int, start: int, count: int) -> Chunk:
    """Compute items [start, start+count) of a run as one :class:`Chunk` of columns."""
    raw = kernel_outputs(spec, start, count)
    players = spec.rules.players
    i8, i32 = raw["i8"], raw["i32"]
    games_cols: dict[str, np.ndarray] | None = None
    if spec.mode == "games":
        status = raw["status"]
        check_policy_errors(spec, status[:, GameOut.policy_error], start)
        max_hands = spec.rules.max_hands
        played = status[:, GameOut.hands].astype(np.int64)
        slot_valid = (np.arange(max_hands)[None, :] < played[:, None]).ravel()
        keep = np.repeat(slot_valid, players)
        slots = np.flatnonzero(slot_valid)
        extra: dict[str, np.ndarray] = {
            "game": np.repeat(start + slots // max_hands, players).astype(np.int64),
            "hand_no": np.repeat(slots % max_hands, players).astype(np.int16),
        }
        games_cols = {
            "game": np.arange(start, start + count, dtype=np.int64),
            "first_dealer": status[:, GameOut.first_dealer].astype(np.int8),
            "winner": status[:, GameOut.winner].astype(np.int8),
            "reason": status[:, GameOut.reason].astype(np.int8),
            "hands": status[:, GameOut.hands].astype(np.int16),
            "score_ns": status[:, GameOut.score_ns].astype(np.int32),
            "score_ew": status[:, GameOut.score_ew].astype(np.int32),
            "bags_ns": status[:, GameOut.bags_ns].astype(np.int32),
            "bags_ew": status[:, GameOut.bags_ew].astype(np.int32),
            "bag_penalty_ns": status[:, GameOut.bag_penalty_ns].astype(np.int32),
            "bag_penalty_ew": status[:, GameOut.bag_penalty_ew].astype(np.int32),
            **{
                f"{stat}_{side}": status[:, getattr(GameOut, f"{stat}_{side}")].astype(np.int32)
                for stat in ("score", "bags", "bag_penalty")
                for side in (2, 3)
            },
        }
    else:
        check_policy_errors(spec, raw["status"], start)
        keep = None
        slots = None
        extra = {"deal": np.repeat(np.arange(start, start + count, dtype=np.int64), players)}
    n_rows = raw["hand"].shape[0] if keep is None else int(keep.sum())

    def take(values: np.ndarray) -> np.ndarray:
        return values if keep is None else values[keep]

    seat = np.tile(np.arange(players, dtype=np.int8), n_rows // players)
    nil_kind = take(i8[OutI8.nil_kind])
    computed: dict[str, np.ndarray] = {
        **extra,
        "seat": seat,
        # cutthroat: every seat is its own side
        "side": seat & 1 if spec.rules.partnerships else seat,
        "hand": take(raw["hand"]),
        "nil": nil_kind == 1,
        "blind_nil": nil_kind == 2,
    }
    columns = spec.hand_columns()
    wanted = {c.name for c in columns}
    for name, row in I8_ROWS.items():
        if name in wanted:
            computed[name] = take(i8[row])
    for name, row in I32_ROWS.items():
        if name in wanted:
            computed[name] = take(i32[row])
    hands = {c.name: np.ascontiguousarray(computed[c.name], dtype=c.dtype) for c in columns}
    plays = None
    if spec.record_play:
        sel = slice(None) if slots is None else slots
        n_slots = raw["plays"].shape[0]
        ids = (
            np.arange(start, start + count, dtype=np.int64)
            if slots is None
            else np.repeat(np.arange(start, start + count), 1)[slots // spec.rules.max_hands]
        )
        plays = {
            "deal" if slots is None else "game": ids,
            "dealt": raw["dealt"].reshape(n_slots, players)[sel],
            "plays": raw["plays"][sel],
            "trick_winners": raw["winners"][sel],
        }
        if slots is not None:
            plays["hand_no"] = (slots % spec.rules.max_hands).astype(np.int16)
    return Chunk(index, start, start + count, hands, games_cols, plays)
