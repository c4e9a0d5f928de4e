"""Sinks: where a run's chunks go, and the one loop that feeds them.

Contract
--------
A :class:`Sink` is a mode of a run: what each chunk is computed into (``produces``:
rows or counts, the kernel :func:`~spades_sim.run.select.select_kernel` picks for it)
and what becomes of it. :func:`drive` is the one loop every local run goes through:
for each :class:`~spades_sim.run.plan.Piece` of the plan, :meth:`Sink.compute` then
:meth:`Sink.take`; the kernels inside run on the thread pool
(:mod:`spades_sim.threads`). The sinks:

- :class:`FrameSink`: rows kept in memory, as one pandas frame (two in games mode);
- :class:`TablesSink`: counts added in memory, an :class:`~spades_sim.run.Aggregate`;
- :class:`PartsSink`: a run directory, one Parquet part per chunk (rows, or the long
  table of the chunk's counts), through :class:`RunCall` (plan, writer, resume,
  progress and summary of one call, which the Dask backend shares).

:func:`compute_part` is the one computation behind a part of rows, here and on a Dask
worker: a chunk, its :class:`~spades_sim.run.summary.Tally` and its part meta.
"""

from __future__ import annotations

import dataclasses
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from spades_sim.dataset import DatasetWriter, PartFormat
from spades_sim.run.aggregate_frames import Aggregate, tally
from spades_sim.run.chunks import Chunk, run_chunk
from spades_sim.run.counting import Layout, Tables, aggregate_chunk, to_aggregate
from spades_sim.run.interrupts import RunInterrupted
from spades_sim.run.plan import Piece, default_chunk_size, plan, stored_chunk_size
from spades_sim.run.select import Produces
from spades_sim.run.spec import RunSpec
from spades_sim.run.summary import Progress, RunSummary, Tally
from spades_sim.schema import GAME_COLUMNS, PLAY_COLUMNS, Column, nullable_names
from spades_sim.threads import CompileWatch

__all__ = [
    "FrameSink",
    "PartsSink",
    "RunCall",
    "Sink",
    "TablesSink",
    "compute_part",
    "drive",
    "frame",
]

ROW_GROUP_ROWS = 1 << 20
"""Rows per Parquet row group: a default hands chunk (262,144 deals) is one row group."""

STATISTICS_COLUMNS = ("deal", "game", "hand_no")
"""Columns that keep min/max statistics (sorted, so row groups prune on them)."""

PLAIN_COLUMNS = ("seat",)
"""Integer columns stored PLAIN: the seat repeats 0, 1, 2, 3 down the rows, which zstd
matches away at a fifth of the cost of delta-encoding it (0.8 against 4.2 ns a row)."""


class Sink(ABC):
    """A mode of a run: what a chunk is computed into and what becomes of it."""

    produces: Produces = "rows"

    @abstractmethod
    def compute(self, spec: RunSpec, piece: Piece) -> Any:
        """Piece ``piece`` of the run ``spec`` computed (on the thread pool)."""

    @abstractmethod
    def take(self, piece: Piece, computed: Any) -> None:
        """Keep what :meth:`compute` gave for ``piece``."""


def drive(spec: RunSpec, pieces: Sequence[Piece], sink: Sink) -> None:
    """Every piece of ``pieces`` computed into ``sink``, in order."""
    for piece in pieces:
        sink.take(piece, sink.compute(spec, piece))


def frame(columns: Sequence[dict[str, np.ndarray]], schema: Sequence[Column]) -> pd.DataFrame:
    """The chunks' columns as one frame: a single chunk's arrays as they are, several
    concatenated once. pandas then copies the columns into one 2-D block per dtype, on
    purpose: that copy costs ~27 ns a hand once (1M hands, 1 thread), while a frame left
    with a block per column (``copy=False``) made every later row selection slower
    (``df[df.bid > 3]`` 2.4x, ``analysis.compare.side_rows`` 2.6x on 500k hands), a
    loss after one or two analyses."""
    data: dict[str, Any] = {}
    for c in schema:
        if len(columns) == 1:
            values = columns[0][c.name]
        elif columns:
            values = np.concatenate([chunk[c.name] for chunk in columns])
        else:
            values = np.empty(0, c.dtype)
        if c.nullable_bool:
            data[c.name] = pd.arrays.BooleanArray(values == 1, values < 0)
        else:
            data[c.name] = values
    return pd.DataFrame(data)


class FrameSink(Sink):
    """Rows kept in memory: :meth:`hands` and :meth:`games` are the run's frames."""

    produces: Produces = "rows"

    def __init__(self) -> None:
        self.chunks: list[Chunk] = []

    def compute(self, spec: RunSpec, piece: Piece) -> Chunk:
        return run_chunk(spec, *piece)

    def take(self, piece: Piece, computed: Chunk) -> None:
        self.chunks.append(computed)

    def hands(self, spec: RunSpec) -> pd.DataFrame:
        """The per-seat rows, with the run meta as ``attrs["spades_sim"]`` (analyses group
        by policy and rules from it)."""
        out = frame([c.hands for c in self.chunks], spec.hand_columns())
        out.attrs["spades_sim"] = spec.meta()
        return out

    def games(self, spec: RunSpec) -> pd.DataFrame:
        """The per-game rows (games mode), with the run meta."""
        out = frame([c.games for c in self.chunks if c.games is not None], GAME_COLUMNS)
        out.attrs["spades_sim"] = spec.meta()
        return out


class TablesSink(Sink):
    """Counts added in memory, by the layout ``lay``; ``progress`` is called with the
    items done after each piece."""

    produces: Produces = "counts"

    def __init__(self, lay: Layout, progress: Callable[[int], None] | None = None) -> None:
        self.lay = lay
        self.total = Tables.zeros(lay)
        self.done = 0
        self.progress = progress

    def compute(self, spec: RunSpec, piece: Piece) -> Tables:
        return aggregate_chunk(spec, self.lay, piece.start, piece.items)

    def take(self, piece: Piece, computed: Tables) -> None:
        self.total.add(computed)
        self.done += piece.items
        if self.progress is not None:
            self.progress(self.done)

    def result(self, spec: RunSpec) -> Aggregate:
        return to_aggregate(spec, self.lay, self.total)


def _part_meta(spec: RunSpec, piece: Piece, counts: Tally) -> dict[str, Any]:
    """A part's manifest entry: its item range and its tally."""
    item = "game" if spec.mode == "games" else "deal"
    return {
        f"{item}_start": piece.start,
        f"{item}_stop": piece.start + piece.items,
        "stats": asdict(counts),
    }


def compute_part(
    spec: RunSpec, index: int, start: int, count: int
) -> tuple[Chunk, Tally, dict[str, Any]]:
    """Part ``index`` of a run: items ``[start, start + count)`` as a :class:`Chunk`, its
    :class:`Tally` and its part meta (the item range and the tally, as the manifest keeps
    them). The one computation behind a part, here and on a Dask worker.

    >>> chunk, tally, part_meta = compute_part(RunSpec.build(seed=1), 2, 10, 5)
    >>> tally.hands, part_meta["deal_start"], part_meta["deal_stop"], len(chunk.hands["deal"])
    (5, 10, 15, 20)
    """
    chunk = run_chunk(spec, index, start, count)
    counts = Tally.of_chunk(chunk, spec.rules.players)
    return chunk, counts, _part_meta(spec, Piece(index, start, count), counts)


class PartsSink(Sink):
    """A run directory: each chunk a part, written by ``call``'s writer in the background
    (rows), or the long table of its counts by ``lay`` (aggregate mode)."""

    def __init__(self, call: RunCall, lay: Layout | None = None) -> None:
        self.call = call
        self.lay = lay
        self.produces = "rows" if lay is None else "counts"

    def compute(self, spec: RunSpec, piece: Piece) -> tuple[Any, Tally, dict[str, Any]]:
        if self.lay is None:
            return compute_part(spec, *piece)
        agg = to_aggregate(
            spec, self.lay, aggregate_chunk(spec, self.lay, piece.start, piece.items)
        )
        counts = tally(agg, spec.rules.players, spec.rules.sides)
        return agg, counts, _part_meta(spec, piece, counts)

    def take(self, piece: Piece, computed: tuple[Any, Tally, dict[str, Any]]) -> None:
        result, counts, part_meta = computed
        writer = self.call.writer
        if isinstance(result, Chunk):
            writer.write_part_async(piece.part, result.hands, result.games, result.plays, part_meta)
        else:
            writer.write_part_async(piece.part, result.columns(), part_meta=part_meta)
        self.call.part_done(piece.items, counts)


def _tqdm_progress(
    spec: RunSpec, total: int, initial: int, show_parts: bool = False
) -> tuple[Callable[[Progress], None], Callable[[], None]]:
    """A tqdm bar on stderr: items with ETA (for games, hands per second; with
    ``show_parts``, the parts done, as the Dask backend shows them)."""
    # tqdm only when a progress bar is asked for
    from tqdm import tqdm

    games = spec.mode == "games"
    bar = tqdm(
        total=total,
        initial=initial,
        unit=" games" if games else " hands",
        unit_scale=True,
        dynamic_ncols=True,
        smoothing=0.1,
        desc="spades-sim",
    )

    def update(p: Progress) -> None:
        bar.update(p.done - bar.n)
        notes = []
        if games and p.seconds > 0:
            notes.append(f"{p.hands / p.seconds:,.0f} hands/s")
        if show_parts:
            notes.append(f"parts {p.parts}/{p.parts_total}")
        if notes:
            bar.set_postfix_str(", ".join(notes), refresh=False)

    return update, bar.close


def _no_bar() -> None:
    return None


class RunCall:
    """The bookkeeping of one call that runs a dataset, locally or on a cluster.

    Plans the parts, opens the :class:`~spades_sim.dataset.DatasetWriter` (which owns the
    manifest, the resume checks and the clean-up of a crashed run), works out what is left
    (:attr:`todo`), reports :class:`Progress` and builds the :class:`RunSummary`. The
    caller computes the parts in :attr:`todo`, has them written and calls
    :meth:`part_done` for each; ``show_parts`` adds the parts done to the progress bar,
    ``started`` is when the call began (default: now), ``extra_meta`` is added to the run
    meta (aggregate mode's ``aggregate``); ``fsync`` and ``integer_encoding``
    go to the run's :class:`~spades_sim.dataset.PartFormat`, ``max_pending`` and
    ``writer_threads`` to the writer.
    """

    def __init__(
        self,
        spec: RunSpec,
        total: int,
        out: str | os.PathLike[str],
        *,
        chunk_size: int | None,
        resume: bool,
        overwrite: bool,
        progress: bool | Callable[[Progress], None],
        show_parts: bool = False,
        started: float | None = None,
        extra_meta: Mapping[str, Any] | None = None,
        fsync: bool = True,
        integer_encoding: str = "DELTA_BINARY_PACKED",
        max_pending: int = 1,
        writer_threads: int = 1,
    ) -> None:
        self.started = time.perf_counter() if started is None else started
        """When the call started (``time.perf_counter()``): its time and rate count from here."""
        self.spec = spec
        if resume and chunk_size is None:
            chunk_size = stored_chunk_size(out)
        chunks = plan(spec, total, chunk_size)
        self.total = int(total)
        size = default_chunk_size(spec) if chunk_size is None else int(chunk_size)
        self.meta: dict[str, Any] = {**spec.meta(), "total": self.total, "chunk_size": size}
        self.meta.update(extra_meta or {})  # aggregate mode's keys
        nullable = (
            nullable_names(spec.hand_columns())
            | nullable_names(GAME_COLUMNS)
            | nullable_names(PLAY_COLUMNS)
        )
        fmt = PartFormat(
            nullable_bool=frozenset(nullable),
            plain_columns=frozenset(PLAIN_COLUMNS),
            row_group_size=ROW_GROUP_ROWS,
            write_statistics=STATISTICS_COLUMNS,
            integer_encoding=integer_encoding,
            fsync=fsync,
        )
        self.writer = DatasetWriter(
            out,
            meta=self.meta,
            fmt=fmt,
            resume=resume,
            overwrite=overwrite,
            max_pending=max_pending,
            writer_threads=writer_threads,
        )
        done = self.writer.done_parts
        stored = self.writer.manifest["parts"]
        self.parts_skipped = len(stored)
        self.before = Tally()
        for entry in stored.values():
            self.before += Tally.from_dict(entry.get("stats", {}))
        self.todo = [c for c in chunks if c.part not in done]
        """The parts still to compute, as :class:`~spades_sim.run.plan.Piece` s."""
        self.items_done = sum(n for k, _, n in chunks if k in done)
        self.parts_done = len(chunks) - len(self.todo)
        self.parts_total = len(chunks)
        self.new = Tally()

        self._callback: Callable[[Progress], None] | None = None
        self.close_bar: Callable[[], None] = _no_bar
        if progress is True:
            self._callback, self.close_bar = _tqdm_progress(
                spec, self.total, self.items_done, show_parts
            )
        elif callable(progress):
            self._callback = progress

    def report(self) -> None:
        """Pass the progress so far to the callback, if there is one."""
        if self._callback is not None:
            elapsed = time.perf_counter() - self.started
            self._callback(
                Progress(
                    self.items_done,
                    self.total,
                    self.new.hands,
                    elapsed,
                    self.parts_done,
                    self.parts_total,
                )
            )

    def part_done(self, count: int, tally: Tally) -> None:
        """Count a part of ``count`` items handed to the writer (or written), and report."""
        self.new += tally
        self.items_done += count
        self.parts_done += 1
        self.report()

    def summary(self, complete: bool) -> RunSummary:
        """The :class:`RunSummary` of the dataset as it stands."""
        whole = self.before + self.new
        return RunSummary(
            out=str(self.writer.path),
            mode=self.spec.mode,
            total=self.total,
            hands=whole.hands,
            games=whole.games,
            rows=whole.rows,
            parts=len(self.writer.done_parts),
            parts_skipped=self.parts_skipped,
            new_hands=self.new.hands,
            seconds=time.perf_counter() - self.started,
            complete=complete,
            nil_rate=whole.nil_rate,
            nil_success_rate=whole.nil_success_rate,
            made_rate=whole.made_rate,
            bags_per_hand=whole.bags_per_hand,
            wins_ns=whole.wins_ns,
            wins_ew=whole.wins_ew,
            wins_2=whole.wins_2,
            wins_3=whole.wins_3,
            unfinished=whole.unfinished,
            meta=self.meta,
        )

    def result(self, interrupted: int | None, compiles: CompileWatch) -> RunSummary:
        """The call's summary with the kernels it compiled (``compiles``), once its parts
        are done; raises :class:`RunInterrupted` with it when signal ``interrupted`` stopped
        the call."""
        summary = dataclasses.replace(
            self.summary(complete=interrupted is None),
            compiled=bool(compiles.compiles),
            compile_seconds=round(compiles.seconds, 1),
        )
        if interrupted is not None:
            raise RunInterrupted(summary, interrupted)
        return summary
