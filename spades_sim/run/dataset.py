"""Runs at scale: a whole run of hands or games (or their counts) streamed to a run directory.

Contract
--------
:func:`run_dataset` plays ``total`` items (deals in ``"hands"`` mode, games in
``"games"`` mode) of a :class:`~spades_sim.run.spec.RunSpec` and writes them to the run
directory ``out`` (layout, atomicity and readers: :mod:`spades_sim.dataset`): the plan's
pieces driven into a :class:`~spades_sim.run.sinks.PartsSink` on the thread pool, or the
same parts on a Dask cluster (:mod:`spades_sim.run.cluster`).

- **One part per chunk.** Chunk ``k`` covers items ``[k * chunk_size, (k + 1) *
  chunk_size)`` and becomes part file ``k``. Every item draws from its own random stream,
  so the rows do not depend on the chunk size or the thread count; the part boundaries
  do. The run's meta (rules, policies, seed, mode, package and schema version, ``total``
  and ``chunk_size``) is stored in the manifest and in every file.
- **Streaming.** The main thread runs chunk ``k + 1`` on all cores (the kernel threads,
  dynamically scheduled so a core busy writing does not hold the others back)
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
  (:mod:`spades_sim.run.summary` holds the tallies and the summary,
  :mod:`spades_sim.run.interrupts` the signal handling.)
- **Counts.** With ``aggregate=`` each part is the long table of its chunk's counts
  (:mod:`spades_sim.run.counting`, a few hundred rows whatever the chunk size; about
  four million hands a part by default), the manifest's meta holds ``aggregate: {"by":
  [...]}``, so a resume with other keys is refused like one with another seed, and
  :func:`~spades_sim.run.aggregate_frames.load_aggregate` reads the run back summed.
- **Elsewhere.** With ``scheduler=`` the same parts are computed and written by the
  workers of a Dask cluster (:mod:`spades_sim.run.cluster`) and the dataset is the same.
  Both backends share :func:`~spades_sim.run.sinks.compute_part` (one part's chunk, tally
  and part meta) and :class:`~spades_sim.run.sinks.RunCall` (plan, writer, resume,
  progress and summary of one call).

>>> import tempfile
>>> from spades_sim.dataset import load
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
from collections.abc import Callable, Sequence
from typing import Any

from spades_sim.dataset import read_manifest
from spades_sim.dataset.store import open_store
from spades_sim.run.counting import layout
from spades_sim.run.double_dummy import dd_state, solve_run
from spades_sim.run.interrupts import RunInterrupted, interrupt_signal, sigterm_interrupts
from spades_sim.run.plan import default_aggregate_chunk, stored_chunk_size
from spades_sim.run.sinks import PartsSink, RunCall, drive
from spades_sim.run.spec import RunSpec
from spades_sim.run.summary import Progress, RunSummary
from spades_sim.solve.solver import check_solvable_rules
from spades_sim.threads import kernel_threads, watch_compiles

__all__ = ["WRITER_THREADS", "run_aggregate", "run_dataset"]

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
    dd: bool = False,
) -> RunSummary:
    """Play ``total`` hands (or games, per ``spec.mode``) into the run directory ``out``.

    ``out`` is a local path or a URI pyarrow's filesystems resolve (``file:///...``,
    ``s3://...``; see :mod:`spades_sim.dataset`). ``chunk_size`` items per part (None: about a
    million per-seat rows); ``threads`` kernel threads (None: all cores);
    ``resume``/``overwrite`` as in :class:`~spades_sim.dataset.DatasetWriter`; ``progress``
    True for a tqdm bar on stderr or a callable taking a :class:`Progress`;
    ``writer_threads`` (default ``WRITER_THREADS``), ``fsync`` and ``integer_encoding`` go to
    the writer (``"BYTE_STREAM_SPLIT"`` takes ~10% less CPU time per hand but needs recent readers;
    see :mod:`spades_sim.dataset`). ``scheduler`` runs the same parts on a Dask cluster
    instead (a scheduler address ``"tcp://HOST:8786"``, ``"local:N"`` or a
    ``distributed.Client``; see :func:`spades_sim.run.cluster.run_distributed`, where
    ``threads`` is per worker and ``writer_threads`` does not apply): the dataset is the
    same. ``aggregate`` (True, or the keys to count by) writes the run's counts instead
    of its rows (local runs only; ``chunk_size`` defaults to about four million hands).
    ``dd`` (hands runs with rows, in a local directory) then solves every deal
    double-dummy into ``out/_dd/`` (:func:`~spades_sim.run.double_dummy.solve_run`; a
    resume solves only the parts missing), which gives the rows the columns
    ``dd_side_tricks`` and ``dd_nil_safe`` when they are read. Raises
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
    counts = aggregate is not None and aggregate is not False
    if counts and scheduler is not None:
        raise ValueError("aggregate mode runs locally: drop the scheduler")
    if not isinstance(dd, bool):
        raise ValueError(f"dd: expected True or False, got {dd!r}")
    if dd:
        _check_dd(spec, out, counts)
    if scheduler is not None:
        # imports dask.distributed (about a second) only for the runs that go to a cluster
        from spades_sim.run.cluster import run_distributed

        summary = run_distributed(
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
        return _solve_stage(summary, out, threads, progress is True) if dd else _dd_left(summary)
    by = None if isinstance(aggregate, bool) else aggregate
    lay = layout(by, spec.rules, spec.mode) if counts else None
    if lay is not None and chunk_size is None:
        stored = stored_chunk_size(out) if resume else None
        chunk_size = default_aggregate_chunk(spec) if stored is None else stored
    with kernel_threads(threads), watch_compiles() as compiles:  # threads checked first
        call = RunCall(
            spec,
            total,
            out,
            chunk_size=chunk_size,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            extra_meta=None if lay is None else {"aggregate": {"by": list(lay.by)}},
            max_pending=1,
            writer_threads=writer_threads if lay is None else 1,
            fsync=fsync,
            integer_encoding=integer_encoding,
        )
        writer = call.writer
        interrupted: int | None = None
        try:
            with sigterm_interrupts(), writer:
                call.report()
                try:
                    drive(spec, call.todo, PartsSink(call, lay))
                except KeyboardInterrupt as exc:
                    interrupted = interrupt_signal(exc)
                if interrupted is None:
                    writer.finish()
        finally:
            call.close_bar()
        if interrupted is not None:
            return call.result(interrupted, compiles)
        if not dd:
            return _dd_left(call.result(None, compiles))
        summary = call.result(None, compiles)
    return _solve_stage(summary, out, threads, progress is True)


def _check_dd(spec: RunSpec, out: str | os.PathLike[str], counts: bool) -> None:
    """Refuse ``dd`` where no double-dummy column can be made, before anything runs."""
    if counts:
        raise ValueError(
            "dd: aggregate mode counts in kernels that never call the solver; make a run of "
            "rows with dd=True"
        )
    if spec.mode != "hands":
        raise ValueError("dd: double-dummy columns are for runs of hands, not games")
    check_solvable_rules(spec.rules)
    if open_store(out).local_path is None:
        raise ValueError(
            "dd: double-dummy parts are written beside the rows on a local filesystem; "
            "give a local out"
        )


def _dd_left(summary: RunSummary) -> RunSummary:
    """``summary`` of a call that did not solve: a run whose double-dummy stage was begun
    and not finished says so, instead of reading as complete."""
    if summary.complete and dd_state(read_manifest(summary.out)) == "partial":
        return dataclasses.replace(summary, dd_complete=False)
    return summary


def _solve_stage(
    summary: RunSummary, out: str | os.PathLike[str], threads: int | None, bar: bool
) -> RunSummary:
    """The double-dummy stage after a finished run's rows, on this machine's threads:
    ``summary`` with the stage's figures, or :class:`RunInterrupted` with them."""
    interrupted: int | None = None
    solved = 0
    seconds = 0.0
    started = time.perf_counter()
    with kernel_threads(threads), sigterm_interrupts():
        try:
            result = solve_run(out, progress=bar)
            solved, seconds = result.solved, result.seconds
        except KeyboardInterrupt as exc:
            interrupted = interrupt_signal(exc)
            seconds = time.perf_counter() - started
    summary = dataclasses.replace(
        summary,
        complete=interrupted is None,
        seconds=summary.seconds + seconds,
        dd_complete=interrupted is None,
        dd_solved=solved,
        dd_seconds=round(seconds, 2),
    )
    if interrupted is not None:
        raise RunInterrupted(summary, interrupted)
    return summary


def run_aggregate(
    spec: RunSpec,
    total: int,
    out: str | os.PathLike[str],
    *,
    by: str | Sequence[str] | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | Callable[[Progress], None] = False,
    fsync: bool = True,
) -> RunSummary:
    """Count ``total`` hands (or games) of ``spec`` by ``by`` into the run directory
    ``out``: :func:`run_dataset` with ``aggregate=by`` (its arguments). Raises
    :class:`~spades_sim.run.counting.AggregateKeyError` (a ``ValueError``) for a bad
    ``by``, before anything is written.

    >>> import tempfile
    >>> from spades_sim.run.aggregate_frames import load_aggregate
    >>> spec = RunSpec.build(seed=1, play="random")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     summary = run_aggregate(spec, 300, tmp + "/agg", by="seat", chunk_size=100)
    ...     agg = load_aggregate(tmp + "/agg")
    >>> summary.parts, summary.hands, agg.hands, agg.by
    (3, 300, 300, ('seat',))
    """
    return run_dataset(
        spec,
        total,
        out,
        aggregate=True if by is None else by,
        chunk_size=chunk_size,
        threads=threads,
        resume=resume,
        overwrite=overwrite,
        progress=progress,
        fsync=fsync,
    )
