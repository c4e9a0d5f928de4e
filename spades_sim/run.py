"""Runs at scale: a whole run of hands or games streamed to a Parquet dataset.

Contract
--------
:func:`run_dataset` plays ``total`` items (deals in ``"hands"`` mode, games in
``"games"`` mode) of a :class:`~spades_sim.simulate.RunSpec` and writes them to the run
directory ``out`` (layout, atomicity and readers: :mod:`spades_sim.io`).

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
- **Elsewhere.** With ``scheduler=`` the same parts are computed and written by the
  workers of a Dask cluster (:mod:`spades_sim.distributed`) and the dataset is the same.
  Both backends share :func:`compute_part` (one part's chunk, tally and part meta) and
  :class:`RunCall` (plan, writer, resume, progress and summary of one call).

>>> import tempfile
>>> from spades_sim.io import load
>>> from spades_sim.simulate import RunSpec
>>> with tempfile.TemporaryDirectory() as tmp:
...     summary = run_dataset(RunSpec.build(seed=1), 40, tmp + "/run", chunk_size=16)
...     rows = len(load(tmp + "/run"))
>>> summary.hands, summary.parts, summary.complete, rows
(40, 3, True, 160)
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numba
import numpy as np

from spades_sim.io import MAX_PART, DatasetWriter, read_manifest
from spades_sim.kernels import watch_compiles
from spades_sim.schema import GAME_COLUMNS, PLAY_COLUMNS, nullable_names
from spades_sim.simulate import Chunk, RunSpec, default_chunk_size, numba_threads, run_chunk

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

PARALLEL_CHUNK_BLOCKS = 8
"""prange iterations handed out at a time (dynamic scheduling; results do not depend on it)."""


# --------------------------------------------------------------------------------------
# Statistics, tallied per chunk
# --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Integer counts from which the summary statistics follow; they add across parts.

    >>> a = Tally(hands=2, rows=8, bids=8, nil_bids=1, nil_made=1)
    >>> (a + a).nil_bids, (a + a).nil_rate
    (2, 0.125)
    """

    hands: int = 0
    games: int = 0
    rows: int = 0
    bids: int = 0
    nil_bids: int = 0
    nil_made: int = 0
    contracts: int = 0
    made: int = 0
    bags: int = 0
    wins_ns: int = 0
    wins_ew: int = 0
    unfinished: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(**{k: v + getattr(other, k) for k, v in asdict(self).items()})

    @classmethod
    def of_chunk(cls, chunk: Chunk, players: int) -> Tally:
        """The counts of one chunk: a handful of vector reductions, no Python per row."""
        h = chunk.hands
        rows = len(h["seat"])
        nil = np.count_nonzero(h["nil"]) + np.count_nonzero(h["blind_nil"])
        made = h["made"]
        tally = cls(
            hands=rows // players,
            rows=rows,
            bids=rows,
            nil_bids=int(nil),
            nil_made=int(np.count_nonzero(h["nil_made"] == 1)),
            contracts=int(np.count_nonzero(made >= 0)),
            made=int(np.count_nonzero(made == 1)),
            bags=int(np.sum(h["bags_change"], dtype=np.int64)),
        )
        if chunk.games is not None:
            winner = chunk.games["winner"]
            tally.games = len(winner)
            tally.wins_ns = int(np.count_nonzero(winner == 0))
            tally.wins_ew = int(np.count_nonzero(winner == 1))
            tally.unfinished = int(np.count_nonzero(winner < 0))
        return tally

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: int(v) for k, v in data.items() if k in names})

    @property
    def nil_rate(self) -> float:
        """Share of bids that were nil or blind nil."""
        return _ratio(self.nil_bids, self.bids)

    @property
    def nil_success_rate(self) -> float:
        """Share of nil and blind nil bids that were made."""
        return _ratio(self.nil_made, self.nil_bids)

    @property
    def made_rate(self) -> float:
        """Share of (non-zero) side contracts made."""
        return _ratio(self.made, self.contracts)

    @property
    def bags_per_hand(self) -> float:
        """Mean bags a side takes per hand (the per-seat rows repeat the side's bags)."""
        return _ratio(self.bags, self.rows)


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


# --------------------------------------------------------------------------------------
# Progress and summary
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """Where a run stands, passed to a progress callback after each chunk is queued."""

    done: int
    """Items (deals or games) finished, parts from an earlier run included."""
    total: int
    hands: int
    """Hands computed by this call so far."""
    seconds: float
    """Time since the call started."""
    parts: int = 0
    """Parts finished, parts from an earlier run included."""
    parts_total: int = 0
    """Parts in the whole run."""


@dataclass(frozen=True)
class RunSummary:
    """What a run did: sizes, time, rate and a few statistics of the whole dataset.

    ``hands``/``games`` and the statistics cover every part of the dataset (resumed ones
    included); ``new_hands`` and ``hands_per_second`` only the work of this call.
    """

    out: str
    mode: str
    total: int
    hands: int
    games: int
    rows: int
    parts: int
    parts_skipped: int
    new_hands: int
    seconds: float
    complete: bool
    nil_rate: float
    nil_success_rate: float
    made_rate: float
    bags_per_hand: float
    wins_ns: int = 0
    wins_ew: int = 0
    unfinished: int = 0
    # Kernels this call compiled (Numba's cache was cold for them; first run only) and the
    # seconds that took, part of ``seconds``. False/0 for a warm cache and for --scheduler.
    compiled: bool = False
    compile_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def hands_per_second(self) -> float:
        """Hands computed and written by this call per second of its wall time."""
        return _ratio(self.new_hands, self.seconds) if self.seconds > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        """The figures as a flat dict (JSON-ready: NaN becomes None), rate included."""
        data = {k: v for k, v in asdict(self).items() if k != "meta"}
        data["hands_per_second"] = self.hands_per_second
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in data.items()}

    def to_json(self) -> str:
        """One line of JSON (the command line's output when it is not on a terminal)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def format(self) -> str:
        """A one-screen, human-readable summary."""
        meta = self.meta
        policies = meta.get("policies", {})
        kinds = {"bidding": "bid", "play": "play"}

        def pair(kind: str) -> str:
            both = policies.get(kind, {})
            texts = [_policy_text(both.get(side, {}), kinds[kind]) for side in ("ns", "ew")]
            return texts[0] if texts[0] == texts[1] else f"{texts[0]} (N-S) vs {texts[1]} (E-W)"

        status = "complete" if self.complete else "INCOMPLETE (run again with --resume)"
        done = f"{self.hands:,} hands"
        if self.mode == "games":
            done = f"{self.games:,} games, {done}"
        lines = [
            f"spades-sim: {done} in {self.out} ({self.parts} parts, {self.rows:,} rows, {status})",
            f"  rules      {_rules_text(meta.get('rules', {}))}",
            f"  bidding    {pair('bidding')}",
            f"  play       {pair('play')}",
            f"  seed       {meta.get('seed')}",
            f"  time       {self.seconds:,.2f} s for {self.new_hands:,} new hands "
            f"({_num(self.hands_per_second, ',.0f')} hands/s)"
            + (f", {self.parts_skipped} parts kept from before" if self.parts_skipped else "")
            + (f", {self.compile_seconds:,.1f} s of it compiling kernels" if self.compiled else ""),
            f"  nil        {_pct(self.nil_rate)} of bids, {_pct(self.nil_success_rate)} made",
            f"  contracts  {_pct(self.made_rate)} made",
            f"  bags       {_num(self.bags_per_hand, '.3f')} per side per hand",
        ]
        if self.mode == "games":
            g = max(self.games, 1)
            lines.append(
                f"  games      N-S won {self.wins_ns / g:.1%}, E-W {self.wins_ew / g:.1%}, "
                f"unfinished {self.unfinished / g:.1%}"
            )
        return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.2%}"


def _num(x: float, spec: str) -> str:
    return "n/a" if math.isnan(x) else format(x, spec)


def _policy_text(d: Mapping[str, Any], kind: str | None = None) -> str:
    """``name[:param=value,...]``, listing only the parameters off their defaults."""
    params = dict(d.get("params") or {})
    name = str(d.get("name", "?"))
    if kind is not None and d.get("builtin", True):
        from spades_sim.policies import lookup

        try:
            defaults = {p.name: p.default for p in lookup(name, kind).params}  # type: ignore[arg-type]
        except ValueError:
            defaults = {}
        params = {k: v for k, v in params.items() if defaults.get(k) != v}
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={v:g}" for k, v in params.items())


def _rules_text(rules: Mapping[str, Any]) -> str:
    """The rules as the closest preset plus the fields that differ from it."""
    from spades_sim.rules import Rules

    try:
        current = Rules(**rules).to_dict()
    except (TypeError, ValueError):
        return json.dumps(rules)
    best: tuple[int, str, dict[str, Any]] | None = None
    for name in Rules.PRESETS:
        base = Rules.preset(name).to_dict()
        diff = {k: v for k, v in current.items() if base.get(k) != v}
        if best is None or len(diff) < best[0]:
            best = (len(diff), name, diff)
    assert best is not None
    _, name, diff = best
    extra = " ".join(f"{k}={json.dumps(v)}" for k, v in diff.items())
    return f"{name} {extra}".strip()


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM; every finished part is kept.

    ``summary`` describes the dataset as left; ``signal_number`` is the signal
    (``signal.SIGINT`` or ``signal.SIGTERM``).
    """

    def __init__(self, summary: RunSummary, signal_number: int) -> None:
        super().__init__(f"interrupted: {summary.parts} parts of {summary.out} are complete")
        self.summary = summary
        self.signal_number = signal_number


class _Terminated(KeyboardInterrupt):
    """SIGTERM arrived (raised by the temporary handler)."""


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`_Terminated` (a ``KeyboardInterrupt``) in the
    main thread; :func:`interrupt_signal` tells it from Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    before = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextlib.contextmanager
def parallel_chunks(blocks: int) -> Iterator[None]:
    """Dynamic prange scheduling in this thread, so a busy core does not stall the rest."""
    before = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(blocks)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(before)


def plan(spec: RunSpec, total: int, chunk_size: int | None = None) -> list[tuple[int, int, int]]:
    """The chunks of a run as ``(part index, first item, item count)``.

    >>> plan(RunSpec.build(seed=0), 10, chunk_size=4)
    [(0, 0, 4), (1, 4, 4), (2, 8, 2)]
    """
    what = "hands" if spec.mode == "hands" else "games"
    if isinstance(total, bool) or not isinstance(total, (int, np.integer)) or total < 0:
        raise ValueError(f"the number of {what} must be a whole number >= 0, got {total!r}")
    size = default_chunk_size(spec) if chunk_size is None else chunk_size
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"chunk size: must be a whole number >= 1, got {chunk_size!r}")
    total, size = int(total), int(size)
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


def interrupt_signal(exc: KeyboardInterrupt) -> int:
    """The signal behind a ``KeyboardInterrupt`` caught inside :func:`sigterm_interrupts`."""
    return signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT


class RunCall:
    """The bookkeeping of one call that runs a dataset, locally or on a cluster.

    Plans the parts, opens the :class:`~spades_sim.io.DatasetWriter` (which owns the
    manifest, the resume checks and the clean-up of a crashed run), works out what is left
    (:attr:`todo`), reports :class:`Progress` and builds the :class:`RunSummary`. The
    caller computes the parts in :attr:`todo`, has them written and calls
    :meth:`part_done` for each; ``show_parts`` adds the parts done to the progress bar,
    ``started`` is when the call began (default: now) and ``writer_options`` go to the
    writer.
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
        **writer_options: Any,
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
        nullable = (
            nullable_names(spec.hand_columns())
            | nullable_names(GAME_COLUMNS)
            | nullable_names(PLAY_COLUMNS)
        )
        self.writer = DatasetWriter(
            out,
            meta=self.meta,
            resume=resume,
            overwrite=overwrite,
            nullable_bool=nullable,
            row_group_size=ROW_GROUP_ROWS,
            write_statistics=STATISTICS_COLUMNS,
            **writer_options,
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
    writer_threads: int = 1,
    fsync: bool = True,
    integer_encoding: str = "DELTA_BINARY_PACKED",
    scheduler: Any = None,
) -> RunSummary:
    """Play ``total`` hands (or games, per ``spec.mode``) into the run directory ``out``.

    ``out`` is a local path or a URI pyarrow's filesystems resolve (``file:///...``,
    ``s3://...``; see :mod:`spades_sim.io`). ``chunk_size`` items per part (None: about a
    million per-seat rows); ``threads`` Numba threads (None: all cores);
    ``resume``/``overwrite`` as in :class:`~spades_sim.io.DatasetWriter`; ``progress``
    True for a tqdm bar on stderr or a callable taking a :class:`Progress`;
    ``writer_threads``, ``fsync`` and ``integer_encoding`` go to the writer
    (``"BYTE_STREAM_SPLIT"`` takes ~10% less CPU time per hand but needs recent readers;
    see :mod:`spades_sim.io`). ``scheduler`` runs the same parts on a Dask cluster
    instead (a scheduler address ``"tcp://HOST:8786"``, ``"local:N"`` or a
    ``distributed.Client``; see :func:`spades_sim.distributed.run_distributed`, where
    ``threads`` is per worker and ``writer_threads`` does not apply): the dataset is the
    same. Raises ``ValueError`` for a bad argument or a resume with other settings,
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
            with sigterm_interrupts(), parallel_chunks(PARALLEL_CHUNK_BLOCKS), writer:
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
    summary = dataclasses.replace(
        call.summary(complete=interrupted is None),
        compiled=bool(compiles.compiles),
        compile_seconds=round(compiles.seconds, 1),
    )
    if interrupted is not None:
        raise RunInterrupted(summary, interrupted)
    return summary


def spec_from_meta(meta: Mapping[str, Any]) -> RunSpec:
    """The :class:`RunSpec` a run's manifest meta describes (to regenerate its deals).

    Raises ``ValueError`` if the meta is not a run's or names a user-written policy (its
    code is not stored, so it cannot be rebuilt from the manifest).

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
            if not entry.get("builtin", True):
                raise ValueError(
                    f"the run used a user-written {kind} policy {entry.get('name')!r}; only "
                    "runs with built-in policies can be regenerated from their manifest"
                )
            return Policy.of(entry["name"], kind, entry.get("params") or {})

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
