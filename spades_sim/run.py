"""Runs at scale: a whole run of hands or games streamed to a Parquet dataset.

Contract
--------
:func:`run_dataset` plays ``total`` items (deals in ``"hands"`` mode, games in
``"games"`` mode) of a :class:`~spades_sim.simulate.RunSpec` and writes them to the run
directory ``out`` (layout, atomicity and readers: :mod:`spades_sim.dataset`).

- **One part per chunk.** Chunk ``k`` covers items ``[k * chunk_size, (k + 1) *
  chunk_size)`` and becomes part file ``k``. Every item draws from its own random stream,
  so the rows do not depend on the chunk size or the thread count; the part boundaries
  do. The run's meta (rules, policies, seed, mode, package and schema version, ``total``
  and ``chunk_size``) is stored in the manifest and in every file.
- **Streaming.** The main thread runs chunk ``k + 1`` on all cores (Numba threads inside
  the kernel, dynamically scheduled so a core busy writing does not hold the others back)
  while a writer thread encodes chunk ``k``; at most one more chunk waits between them,
  so memory is flat (about three chunks) however large ``total`` is.
- **Resume.** ``resume=True`` skips the parts already complete and computes the others;
  the dataset then equals an uninterrupted run's. The stored meta must match (a different
  seed, rule, policy, total or chunk size is refused with ``ValueError``); with
  ``chunk_size=None`` a resume takes the stored chunk size. Writing into an existing run
  without ``resume`` or ``overwrite`` raises ``FileExistsError``.
- **Interrupts.** ``KeyboardInterrupt`` (and SIGTERM, turned into one while the run is on
  the main thread) stops computing, lets the parts already queued land, and raises
  :class:`RunInterrupted` (a ``KeyboardInterrupt``) carrying the summary so far. Every
  finished part stays; a resume continues from there.
- **Summary.** :class:`RunSummary` (hands, games, time, rate, nil, contract and bag
  statistics) is tallied from the chunks as they are made, with a few NumPy reductions
  per chunk, and the per-part tallies are kept in the manifest (``part_meta["stats"]``),
  so a resumed run reports on the whole dataset without reading it back.
  (:mod:`spades_sim.summary` holds the tallies and the summary,
  :mod:`spades_sim.interrupts` the signal handling; this module plans, computes and
  writes the parts.)
- **Elsewhere.** With ``scheduler=`` the same parts are computed and written by the
  workers of a Dask cluster (:mod:`spades_sim.distributed`) and the dataset is the same.
  Both backends share :func:`compute_part` (one part's chunk, tally and part meta) and
  :class:`RunCall` (plan, writer, resume, progress and summary of one call).

>>> import tempfile
>>> from spades_sim.dataset import load
>>> from spades_sim.simulate import RunSpec
>>> with tempfile.TemporaryDirectory() as tmp:
...     summary = run_dataset(RunSpec.build(seed=1), 40, tmp + "/run", chunk_size=16)
...     rows = len(load(tmp + "/run"))
>>> summary.hands, summary.parts, summary.complete, rows
(40, 3, True, 160)
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from spades_sim.dataset import MAX_PART, DatasetWriter, PartFormat, read_manifest
from spades_sim.interrupts import RunInterrupted, interrupt_signal, sigterm_interrupts
from spades_sim.kernels import CompileWatch, watch_compiles
from spades_sim.schema import GAME_COLUMNS, PLAY_COLUMNS, nullable_names
from spades_sim.simulate import Chunk, RunSpec, default_chunk_size, numba_threads, run_chunk
from spades_sim.summary import Progress, RunSummary, Tally
from spades_sim.validate import check_count

__all__ = [
    "Progress",
    "RunInterrupted",
    "RunSummary",
    "Tally",
    "plan",
    "run_dataset",
    "spec_from_meta",
]

ROW_GROUP_ROWS = 1 << 20
"""Rows per Parquet row group: a default hands chunk (262,144 deals) is one row group."""

STATISTICS_COLUMNS = ("deal", "game", "hand_no")
"""Columns that keep min/max statistics (sorted, so row groups prune on them)."""

PLAIN_COLUMNS = ("seat",)
"""Integer columns stored PLAIN: the seat repeats 0, 1, 2, 3 down the rows, which zstd
matches away at a fifth of the cost of delta-encoding it (0.8 against 4.2 ns a row)."""


def plan(spec: RunSpec, total: int, chunk_size: int | None = None) -> list[tuple[int, int, int]]:
    """The chunks of a run as ``(part index, first item, item count)``.

    >>> plan(RunSpec.build(seed=0), 10, chunk_size=4)
    [(0, 0, 4), (1, 4, 4), (2, 8, 2)]
    """
    what = "hands" if spec.mode == "hands" else "games"
    total = check_count(total, "total", 0, f"the number of {what}")
    size = check_count(
        default_chunk_size(spec) if chunk_size is None else chunk_size, "chunk size", 1
    )
    n_parts = -(-total // size)
    if n_parts > MAX_PART + 1:
        raise ValueError(
            f"chunk size: {total:,} {what} in chunks of {size:,} make {n_parts:,} part files; "
            f"at most {MAX_PART + 1:,} are allowed, use a chunk size of at least "
            f"{-(-total // (MAX_PART + 1)):,}"
        )
    return [(k, start, min(size, total - start)) for k, start in enumerate(range(0, total, size))]


def _stored_chunk_size(out: str | os.PathLike[str]) -> int | None:
    try:
        size = read_manifest(out)["meta"].get("chunk_size")
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    return size if isinstance(size, int) and size >= 1 else None


def _tqdm_progress(
    spec: RunSpec, total: int, initial: int, show_parts: bool = False
) -> tuple[Callable[[Progress], None], Callable[[], None]]:
    """A tqdm bar on stderr: items with ETA (for games, hands per second; with
    ``show_parts``, the parts done, as the Dask backend shows them)."""
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
    tally = Tally.of_chunk(chunk, spec.rules.players)
    item = "game" if spec.mode == "games" else "deal"  # the part's item range keys
    part_meta = {f"{item}_start": start, f"{item}_stop": start + count, "stats": asdict(tally)}
    return chunk, tally, part_meta


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
            chunk_size = _stored_chunk_size(out)
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
        self.todo = [c for c in chunks if c[0] not in done]
        """The parts still to compute, as ``(part index, first item, item count)``."""
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


WRITER_THREADS = 2
"""Parts encoded at once by default. With one, a 2-core run waited on the encoder: 1.27
million hands/s against 1.59 million with two (2 kernel threads, default policies, the
same 1.2 µs of CPU a hand), each part in flight holding its ~50 MB of columns."""


def run_dataset(
    spec: RunSpec,
    total: int,
    out: str | os.PathLike[str],
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | Callable[[Progress], None] = False,
    writer_threads: int = WRITER_THREADS,
    fsync: bool = True,
    integer_encoding: str = "DELTA_BINARY_PACKED",
    scheduler: Any = None,
    aggregate: bool | str | Sequence[str] | None = None,
) -> RunSummary:
    """Play ``total`` hands (or games, per ``spec.mode``) into the run directory ``out``.

    ``out`` is a local path or a URI pyarrow's filesystems resolve (``file:///...``,
    ``s3://...``; see :mod:`spades_sim.dataset`). ``chunk_size`` items per part (None: about a
    million per-seat rows); ``threads`` Numba threads (None: all cores);
    ``resume``/``overwrite`` as in :class:`~spades_sim.dataset.DatasetWriter`; ``progress``
    True for a tqdm bar on stderr or a callable taking a :class:`Progress`;
    ``writer_threads`` (default ``WRITER_THREADS``), ``fsync`` and ``integer_encoding`` go to
    the writer (``"BYTE_STREAM_SPLIT"`` takes ~10% less CPU time per hand but needs recent readers;
    see :mod:`spades_sim.dataset`). ``scheduler`` runs the same parts on a Dask cluster
    instead (a scheduler address ``"tcp://HOST:8786"``, ``"local:N"`` or a
    ``distributed.Client``; see :func:`spades_sim.distributed.run_distributed`, where
    ``threads`` is per worker and ``writer_threads`` does not apply): the dataset is the
    same. ``aggregate`` (True, or the keys to count by) writes the run's counts instead
    of its rows (:func:`spades_sim.aggregate_run.run_aggregate`; local runs only). Raises
    ``ValueError`` for a bad argument or a resume with other settings,
    ``FileExistsError`` for an existing run without ``resume``/``overwrite``, and
    :class:`RunInterrupted` on Ctrl-C or SIGTERM.

    >>> import tempfile
    >>> spec = RunSpec.build(seed=2, mode="games")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     first = run_dataset(spec, 3, tmp + "/games")
    ...     again = run_dataset(spec, 3, tmp + "/games", resume=True)
    >>> first.games, first.wins_ns + first.wins_ew + first.unfinished, again.parts_skipped
    (3, 3, 1)
    """
    if aggregate is not None and aggregate is not False:
        if scheduler is not None:
            raise ValueError("aggregate mode runs locally: drop the scheduler")
        from spades_sim.aggregate_run import run_aggregate

        return run_aggregate(
            spec,
            total,
            out,
            by=None if aggregate is True else aggregate,
            chunk_size=chunk_size,
            threads=threads,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            fsync=fsync,
        )
    if scheduler is not None:
        from spades_sim.distributed import run_distributed

        return run_distributed(
            spec,
            total,
            out,
            scheduler=scheduler,
            chunk_size=chunk_size,
            threads=threads,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            fsync=fsync,
            integer_encoding=integer_encoding,
        )
    with numba_threads(threads), watch_compiles() as compiles:  # threads checked first
        call = RunCall(
            spec,
            total,
            out,
            chunk_size=chunk_size,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            max_pending=1,
            writer_threads=writer_threads,
            fsync=fsync,
            integer_encoding=integer_encoding,
        )
        writer = call.writer
        interrupted: int | None = None
        try:
            with sigterm_interrupts(), writer:
                call.report()
                try:
                    for index, start, count in call.todo:
                        chunk, tally, part_meta = compute_part(spec, index, start, count)
                        writer.write_part_async(
                            index, chunk.hands, chunk.games, chunk.plays, part_meta
                        )
                        del chunk
                        call.part_done(count, tally)
                except KeyboardInterrupt as exc:
                    interrupted = interrupt_signal(exc)
                if interrupted is None:
                    writer.finish()
        finally:
            call.close_bar()
    return call.result(interrupted, compiles)


def spec_from_meta(meta: Mapping[str, Any]) -> RunSpec:
    """The :class:`RunSpec` a run's manifest meta describes (to regenerate its deals).

    A user-written policy is loaded again from where the meta says its code lives, and
    refused when that code changed (its digest differs). Raises ``ValueError`` if the
    meta is not a run's, or a user policy cannot be found or changed.

    >>> spec = RunSpec.build(seed=9, play=("random", "random"), mode="games")
    >>> spec_from_meta(spec.meta()) == spec
    True
    """
    from spades_sim.policies import Policy
    from spades_sim.rules import Rules

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
