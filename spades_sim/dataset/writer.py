"""The writer of one run: parts written now or by background threads, recorded as they land.

Contract
--------
:class:`DatasetWriter` opens a run directory (:class:`~.rundir.RunDirectory`: new,
``overwrite`` or ``resume``), writes parts with a :class:`~.format.PartFormat`
(:func:`~.parts.write_files`: temporary names, then renames) and records each in the
manifest once its files are in place. :meth:`DatasetWriter.record_part` records a part
another process wrote with :func:`~.parts.write_part_files`.

Background writing. :meth:`DatasetWriter.write_part_async` validates in the caller's
thread, queues the part and returns a ``concurrent.futures.Future``; ``writer_threads``
threads (pyarrow releases the GIL while encoding) write parts in parallel, and at most
``max_pending`` parts wait in the queue: one more call blocks until a slot frees, so
memory stays bounded. The arrays are not copied: leave them alone until the future is
done. A failure in a writer thread fails its future, makes later calls raise at once and
is re-raised by ``wait()``, ``close()``, ``finish()`` and leaving the ``with`` block.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy.typing as npt

from spades_sim.dataset.format import DEFAULT_FORMAT, PartFormat
from spades_sim.dataset.layout import Columns
from spades_sim.dataset.parts import check_part, write_files
from spades_sim.dataset.rundir import RunDirectory
from spades_sim.validate import check_count

__all__ = ["DatasetWriter"]


@dataclass
class _Job:
    index: int
    tables: dict[str, dict[str, npt.NDArray[Any]]]
    part_meta: dict[str, Any]
    future: Future[dict[str, Any]]


class DatasetWriter:
    """Write one run's part files and manifest, atomically, optionally in the background.

    ``path`` is the run directory (a local path or a URI), created if missing. ``meta``
    (JSON-serialisable: rules, policies, seed, package and schema version, ...) is stored
    in the manifest and in every file. An existing non-empty directory is refused
    (``FileExistsError``) unless ``overwrite`` (delete what a run writes; ``ValueError``
    if the directory is not a run but holds other files) or ``resume`` (continue: the
    stored meta must equal ``meta``, else ``ValueError`` naming the first differing key;
    :attr:`done_parts` tells what to skip). ``fmt`` is how the files are encoded (kept as
    :attr:`format`). Background writes (:meth:`write_part_async`) run on
    ``writer_threads`` threads with at most ``max_pending`` parts queued behind them.

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import load, read_manifest
    >>> run = tempfile.mkdtemp() + "/run"
    >>> chunk = {"deal": np.arange(4, dtype=np.int64), "made": np.array([1, 0, -1, 1], "i1")}
    >>> fmt = PartFormat(nullable_bool={"made"})
    >>> with DatasetWriter(run, meta={"seed": 7}, fmt=fmt) as w:
    ...     _ = w.write_part_async(0, chunk, part_meta={"deal_start": 0, "deal_stop": 4})
    ...     w.finish()
    >>> load(run)["made"].tolist()
    [True, False, <NA>, True]
    >>> read_manifest(run)["parts"]["00000"]["rows"]
    4
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        meta: Mapping[str, Any],
        fmt: PartFormat = DEFAULT_FORMAT,
        overwrite: bool = False,
        resume: bool = False,
        max_pending: int = 1,
        writer_threads: int = 1,
    ) -> None:
        if not isinstance(fmt, PartFormat):
            raise ValueError(f"fmt must be a PartFormat, got {type(fmt).__name__}")
        if overwrite and resume:  # before anything is opened, as the directory checks it
            raise ValueError("overwrite and resume exclude each other: pick one")
        max_pending = check_count(max_pending, "max_pending", 1, "parts waiting to be written")
        writer_threads = check_count(writer_threads, "writer_threads", 1, "threads")
        self.format = fmt
        self.run = RunDirectory(path, meta, overwrite=overwrite, resume=resume, fsync=fmt.fsync)
        self.path: str | Path = self.run.path
        self.meta: dict[str, Any] = self.run.meta

        self._lock = threading.Lock()
        self._pending: set[int] = set()
        self._error: BaseException | None = None
        self._closed = False
        self._queue: queue.Queue[_Job | None] = queue.Queue(maxsize=max_pending)
        self._writer_threads = writer_threads
        self._threads: list[threading.Thread] = []  # started by the first background write

    # ----------------------------------------------------------------------- state

    @property
    def done_parts(self) -> set[int]:
        """Indices of the parts recorded in the manifest (resumed ones and those written)."""
        return self.run.done_parts

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the manifest as last written."""
        return self.run.manifest

    def remove_stray_files(self) -> None:
        """Delete temporary files and part files the manifest does not list
        (:meth:`RunDirectory.remove_stray_files`)."""
        self.run.remove_stray_files()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _claim(self, index: int) -> None:
        """Mark part ``index`` as being written; ValueError if it is listed or claimed."""
        with self._lock:
            if self.run.is_listed(index) or index in self._pending:
                raise ValueError(f"part {index} is already written or being written")
            self._pending.add(index)

    def _release(self, index: int) -> None:
        with self._lock:
            self._pending.discard(index)

    # ----------------------------------------------------------------------- writing

    def _prepare(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None,
        plays: Columns | npt.NDArray[Any] | None,
        part_meta: Mapping[str, Any] | None,
    ) -> _Job:
        if self._closed:
            raise RuntimeError(f"the writer for {self.path} is closed")
        self._raise_if_failed()
        index, tables, extra = check_part(
            part_index, hands, games, plays, part_meta, self.format.nullable_bool
        )
        self._claim(index)
        return _Job(index, tables, extra, Future())

    def write_part(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None = None,
        plays: Columns | npt.NDArray[Any] | None = None,
        part_meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Write part ``part_index`` now, in this thread; return its manifest entry.

        ``hands`` (and ``games``, ``plays`` when given) map column names to numpy arrays;
        ``part_meta`` (e.g. ``{"deal_start": a, "deal_stop": b}``) goes to the manifest
        entry and the files' metadata. Parts may come in any order.

        >>> import tempfile, numpy as np
        >>> with DatasetWriter(tempfile.mkdtemp(), meta={}) as w:
        ...     w.write_part(3, {"x": np.arange(5, dtype=np.int16)})["rows"]
        5
        """
        job = self._prepare(part_index, hands, games, plays, part_meta)
        try:
            return self._run(job)
        finally:
            self._release(job.index)

    def write_part_async(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None = None,
        plays: Columns | npt.NDArray[Any] | None = None,
        part_meta: Mapping[str, Any] | None = None,
    ) -> Future[dict[str, Any]]:
        """Queue part ``part_index`` for a writer thread; return a future of its entry.

        Arguments as :meth:`write_part`; they are validated here, so a bad column raises
        at once. The arrays are written without a copy: do not modify them until the
        future is done. Blocks while ``max_pending`` parts are already queued
        (back-pressure); raises at once if an earlier background write failed. A failure
        is also re-raised by :meth:`wait`, :meth:`close` and :meth:`finish`.

        >>> import tempfile, numpy as np
        >>> with DatasetWriter(tempfile.mkdtemp(), meta={}) as w:
        ...     future = w.write_part_async(0, {"x": np.arange(5, dtype=np.int16)})
        ...     future.result()["file"]
        'part-00000.parquet'
        """
        job = self._prepare(part_index, hands, games, plays, part_meta)
        if not self._threads:
            self._threads = [
                threading.Thread(target=self._work, name=f"spades_sim-writer-{i}", daemon=True)
                for i in range(self._writer_threads)
            ]
            for t in self._threads:
                t.start()
        try:
            self._queue.put(job)
        except BaseException:
            self._release(job.index)
            raise
        return job.future

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                self._queue.task_done()
                return
            try:
                if self._error is not None:
                    raise RuntimeError(f"part {job.index} not written: an earlier write failed")
                job.future.set_result(self._run(job))
            except BaseException as exc:  # kept for the caller: never lost in this thread
                with self._lock:
                    if self._error is None:
                        exc.add_note(f"while writing part {job.index} of {self.path}")
                        self._error = exc
                job.future.set_exception(exc)
            finally:
                self._release(job.index)
                self._queue.task_done()

    def _run(self, job: _Job) -> dict[str, Any]:
        """Write every table of a part, rename them into place, then record the part."""
        entry = write_files(
            self.run.store, job.index, job.tables, self.meta, job.part_meta, self.format
        )
        self.run.record(job.index, entry)
        return dict(entry)

    def record_part(self, part_index: int, entry: Mapping[str, Any]) -> None:
        """List in the manifest a part another process wrote with
        :func:`~spades_sim.dataset.parts.write_part_files`.

        ``entry`` is what ``write_part_files`` returned. The part's files are checked
        first (present, with the row counts the entry gives): ``ValueError`` if they are
        not, or if the part is already listed. See ``write_part_files`` for an example.
        """
        if self._closed:
            raise RuntimeError(f"the writer for {self.path} is closed")
        index, normal = self.run.check_entry(part_index, entry)
        self._claim(index)
        try:
            self.run.record(index, normal)
        finally:
            self._release(index)

    # ----------------------------------------------------------------------- closing

    def wait(self) -> None:
        """Block until every queued part is written; re-raise a background failure."""
        self._queue.join()
        self._raise_if_failed()

    def close(self) -> None:
        """Wait for pending writes, stop the writer threads, re-raise a background failure.

        The run stays marked incomplete (call :meth:`finish` for that). Calling it again
        is harmless.
        """
        if not self._closed:
            self._closed = True
            for _ in self._threads:
                self._queue.put(None)
            for t in self._threads:
                t.join()
        self._raise_if_failed()

    def finish(self) -> None:
        """Wait for pending writes, close the writer and mark the run complete."""
        self.close()
        self.run.mark_complete()

    def __enter__(self) -> DatasetWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.close()
            return
        try:  # the body failed: still let queued parts land, report both failures
            self.close()
        except BaseException as writer_exc:
            exc.add_note(f"the background writer also failed: {writer_exc!r}")
        if not isinstance(exc, KeyboardInterrupt):
            # a failure before the first part (a policy that does not compile, say) leaves
            # no run behind in a directory that held nothing, so the command can be rerun
            # as it was; an interrupt keeps its manifest, for --resume
            with contextlib.suppress(OSError):
                self.run.abandon_if_unused()
