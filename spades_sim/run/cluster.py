"""The same run on a Dask cluster: workers compute and write the parts, the client the manifest.

Contract
--------
:func:`run_distributed` (also reached as :func:`~spades_sim.run.dataset.run_dataset` with
``scheduler=...``) plays the run :func:`~spades_sim.run.dataset.run_dataset` would play, on the
workers of a Dask cluster, and leaves the same dataset: the same parts (the same
:func:`~spades_sim.run.plan.plan`), the same rows, the same manifest. Needs the ``dask`` extra
(``pip install 'spades_sim[dask]'``) on the client and on every worker.

- **Where.** ``scheduler`` is the address of a running scheduler
  (``"tcp://HOST:8786"``, or another protocol Dask speaks: ``tls``, ``ws``, ``wss``,
  ``ucx``), ``"local:N"`` (a cluster of N single-threaded worker processes started on
  this machine for the call and stopped after it) or a connected ``distributed.Client``.
  Every worker must reach ``out`` under the same name: a directory on a filesystem the
  client and the workers share, or a URI pyarrow's filesystems resolve
  (``s3://bucket/runs/x``). Workers import the kernels from the package installed on
  them (the same version as the client's: a task refuses to run otherwise).
- **Parts.** One task per part of the plan. The task runs on a worker, computes the
  part's chunk with :func:`~spades_sim.run.sinks.compute_part` on all the worker machine's
  cores (the kernel threads, as locally; ``threads`` caps them), one kernel at a time per
  worker process, then writes the part's files atomically
  (:func:`~spades_sim.dataset.write_part_files`) and returns its manifest entry. A worker
  with two or more task threads thus writes one part while the next one's kernel runs,
  as the local writer thread does. The client alone opens the run (resume checks,
  clean-up of a crashed run, overwrite) before any task starts, and alone writes the
  manifest, part by part as tasks finish (:meth:`~spades_sim.dataset.DatasetWriter.record_part`).
- **Warm-up.** A worker plugin loads the run's kernels once per worker process, before
  its first part (from Numba's cache on that machine; compiled there the first time, by
  one process while the others on the machine wait to load them), and again in a worker
  that joins or restarts during the run: tasks do not pay it. It also lets the worker
  reuse one part's memory for the next, as a local run does (:func:`_reuse_part_memory`).
- **Failures.** A task that raises is retried, ``retries`` times, on any worker; a task
  whose worker dies is run again by the scheduler. Each attempt writes its own
  temporary files and a rename replaces the part whole, so a part written twice is
  written identically and listed once; temporary files a dead worker left are deleted
  before the run is marked complete. An error that persists stops the run: the parts in
  flight land, then the error is raised, and ``resume`` continues from there.
- **In flight.** The client keeps about two tasks per worker thread submitted (the
  scheduler hands them out as workers free up). On Ctrl-C or SIGTERM it submits no more,
  lets the parts in flight land and raises :class:`~spades_sim.run.interrupts.RunInterrupted`
  (``local:N`` workers ignore the Ctrl-C that reaches their process group too); a second
  Ctrl-C, or :data:`WORKERLESS_GIVE_UP_S` seconds without a worker, abandons them. A run
  that stops early deletes the part files its manifest does not list once it is done
  with the cluster (``local:N`` workers stopped), so the files on disk are the parts
  listed; a part abandoned on a running cluster that lands later is deleted on
  ``resume``.
- **Progress and summary** as locally (:class:`~spades_sim.run.summary.Progress` with the parts
  done, :class:`~spades_sim.run.summary.RunSummary`): the rate is hands per second across the
  cluster over the whole call, starting a ``local:N`` cluster and warming up included.

Doctests here do not start a cluster (seconds each); ``tests/test_distributed.py`` does.

>>> Scheduler.parse("tcp://10.0.0.5:8786")
Scheduler(address='tcp://10.0.0.5:8786', local_workers=0)
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import re
import signal
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spades_sim._version import __version__
from spades_sim.dataset import PartFormat, is_uri, write_part_files
from spades_sim.run.interrupts import RunInterrupted, interrupt_signal, sigterm_interrupts
from spades_sim.run.sinks import RunCall, compute_part
from spades_sim.run.spec import RunSpec
from spades_sim.run.summary import Progress, RunSummary, Tally
from spades_sim.threads import kernel_threads
from spades_sim.validate import check_count

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster, WorkerPlugin
else:
    try:  # the dask extra; without it this module imports and run_distributed says so
        from distributed import WorkerPlugin
    except ImportError:
        WorkerPlugin = object

__all__ = [
    "DASK_EXTRA",
    "IgnoreInterrupts",
    "Scheduler",
    "WarmUp",
    "local_cluster",
    "require_dask",
    "run_distributed",
    "write_part",
]

DASK_EXTRA = "pip install 'spades_sim[dask]'"
"""How to install what this module needs."""

TASKS_PER_THREAD = 2
"""Tasks kept submitted per worker thread: one running, one ready to start."""

WORKERLESS_GIVE_UP_S = 5.0
"""After an interrupt, how long the parts in flight are waited for with no worker left."""

_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS_RE = re.compile(
    rf"(?:{'|'.join(_PROTOCOLS)})://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::\d{{1,5}})?/?"
)


def require_dask() -> None:
    """Raise ``ImportError`` naming the extra to install if dask.distributed is missing.

    >>> require_dask()  # dask is installed here
    """
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ImportError(f"running on a Dask cluster needs the dask extra: {DASK_EXTRA}") from None


@dataclass(frozen=True)
class Scheduler:
    """Where a run goes: a running scheduler's ``address``, or ``local_workers``
    single-threaded worker processes started on this machine for the run."""

    address: str | None = None
    local_workers: int = 0

    @classmethod
    def parse(cls, text: str) -> Scheduler:
        """``"tcp://HOST:PORT"`` (tls, ws, wss, ucx too) or ``"local:N"``; ValueError else.

        >>> Scheduler.parse("local:2")
        Scheduler(address=None, local_workers=2)
        >>> Scheduler.parse("local:0")
        Traceback (most recent call last):
        ...
        ValueError: local:N needs a number of workers N >= 1, got 'local:0'
        """
        text = str(text).strip()
        local = re.fullmatch(r"local:(\S*)", text)
        if local:
            count = local.group(1)
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"local:N needs a number of workers N >= 1, got {text!r}")
            return cls(local_workers=int(count))
        if _ADDRESS_RE.fullmatch(text):
            return cls(address=text.rstrip("/"))
        raise ValueError(
            "expected tcp://HOST:PORT (a running Dask scheduler) or local:N (N worker "
            f"processes started here), got {text!r}"
        )

    def __str__(self) -> str:
        return self.address or f"local:{self.local_workers}"


# --------------------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------------------

_KERNEL_LOCK = threading.Lock()
"""One kernel at a time per process: a kernel already keeps every core busy, and Numba's
workqueue threading layer must not be entered from two threads at once."""


def _check_version(client_version: str) -> None:
    if __version__ != client_version:
        raise RuntimeError(
            f"this worker runs spades_sim {__version__} but the client {client_version}: "
            "install the same version on every machine"
        )


@contextlib.contextmanager
def _one_warm_up_per_machine() -> Iterator[None]:
    """Worker processes on one machine warm up in turn: with Numba's cache cold, the first
    compiles the kernels into it (10-20 s each, minutes on a busy machine) and the others
    load them from it, instead of all compiling the same kernels at once."""
    try:
        # POSIX only: elsewhere the ImportError below turns the lock off
        import fcntl
    except ImportError:  # not POSIX: no lock, each process compiles if it must
        yield
        return
    path = os.path.join(tempfile.gettempdir(), f"spades_sim-warm-up-{os.getuid()}.lock")
    try:
        handle = open(path, "a")  # noqa: SIM115  (held for the whole block)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released by the OS if this process dies
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


GLIBC_MMAP_THRESHOLD = 32 << 20
"""Allocations below this come from the heap and are reused (glibc's own dynamic ceiling)."""
GLIBC_TRIM_THRESHOLD = 256 << 20
"""Free heap memory kept before it is returned to the system."""


def _reuse_part_memory() -> None:
    """Let a worker reuse the memory of one part's arrays for the next, as a local run does.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which turns off
    glibc's dynamic mmap threshold: every array of every part (tens of MB) would then be
    mapped and page-faulted afresh, measured at +0.5 us of system CPU per hand (+15%).
    Setting the thresholds to what the dynamic adjustment would reach restores the local
    run's cost. Not glibc: nothing to do.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    mallopt(m_mmap_threshold, GLIBC_MMAP_THRESHOLD)
    mallopt(m_trim_threshold, GLIBC_TRIM_THRESHOLD)


def _warm_up(spec: RunSpec, threads: int | None) -> None:
    """Load the kernels ``spec`` runs on (one item; the result is dropped)."""
    _reuse_part_memory()
    with _one_warm_up_per_machine(), _KERNEL_LOCK, kernel_threads(threads):
        compute_part(spec, 0, 0, 1)


def write_part(
    spec: RunSpec,
    out: str,
    index: int,
    start: int,
    count: int,
    *,
    meta: dict[str, Any],
    fmt: PartFormat,
    threads: int | None,
    version: str,
) -> dict[str, Any]:
    """The task: compute part ``index`` (items ``[start, start + count)``) on this
    process's cores and write its files into ``out``; return its manifest entry.

    Runs on a worker (module-level, so workers import it from the installed package);
    ``meta`` and ``fmt`` are the client writer's, ``version`` the client's package version.

    >>> import tempfile
    >>> from spades_sim._version import __version__
    >>> spec = RunSpec.build(seed=1, play="random")
    >>> new = dict(chunk_size=4, resume=False, overwrite=False, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     call = RunCall(spec, 8, tmp, **new)
    ...     options = dict(meta=call.meta, fmt=call.writer.format, version=__version__)
    ...     entry = write_part(spec, tmp, 1, 4, 4, threads=1, **options)
    >>> entry["rows"], entry["deal_start"], entry["file"]
    (16, 4, 'part-00001.parquet')
    """
    _check_version(version)
    with _KERNEL_LOCK, kernel_threads(threads):
        chunk, _, part_meta = compute_part(spec, index, start, count)
    try:
        return write_part_files(
            out,
            index,
            chunk.hands,
            chunk.games,
            chunk.plays,
            meta=meta,
            part_meta=part_meta,
            fmt=fmt,
            attempt=uuid.uuid4().hex[:12],
        )
    except FileNotFoundError:  # the client opened it: this worker does not see it
        raise FileNotFoundError(
            f"{out} is not a directory on the worker on {socket.gethostname()}: the output "
            "must be on a filesystem the client and every worker share, under the same "
            "path, or a URI such as s3://bucket/run"
        ) from None


class IgnoreInterrupts(WorkerPlugin):
    """Worker plugin of ``local:N`` clusters: the worker process ignores SIGINT.

    Its workers share the terminal's process group, so Ctrl-C reaches them too; the
    client alone handles it (it lets the parts in flight land, which needs the workers).
    Given to the workers when they start, so it holds for a restarted worker as well.
    """

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():  # where signals are set
            signal.signal(signal.SIGINT, signal.SIG_IGN)


class WarmUp(WorkerPlugin):
    """Worker plugin: load a run's kernels once in each worker process.

    Runs when registered and in every worker that joins (or restarts) while it is
    registered. The loading runs in a thread, not on the worker's event loop, so a cold
    compile (seconds) does not stall the worker's heartbeats.
    """

    def __init__(self, spec: RunSpec, threads: int | None) -> None:
        self.spec = spec
        self.threads = threads

    async def setup(self, worker: Any) -> None:
        await asyncio.get_running_loop().run_in_executor(None, _warm_up, self.spec, self.threads)


# --------------------------------------------------------------------------------------
# Client side
# --------------------------------------------------------------------------------------


def local_cluster(workers: int) -> LocalCluster:
    """The cluster ``"local:N"`` starts: ``workers`` worker processes on this machine, one
    task thread each (close it when done; it is a context manager).

    Each worker computes a part, then writes it, while the others compute. There is no
    dashboard, and the scheduler's HTTP server (health checks) takes any free port: on
    8787, its default, a second cluster on the machine would warn. Logs below ERROR are
    silenced: a worker restarted after a crash is the run's business, not noise. The
    workers ignore Ctrl-C (:class:`IgnoreInterrupts`).
    """
    require_dask()
    # the dask extra, loaded only by runs that go to a cluster (about a second)
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.ERROR,
        plugins=(IgnoreInterrupts(),),
    )


@contextlib.contextmanager
def _connect(scheduler: Scheduler | Client) -> Iterator[Client]:
    """A client of the cluster the run goes to (a ``local:N`` cluster lives as long)."""
    # the dask extra, loaded only by runs that go to a cluster
    from distributed import Client

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler.local_workers:
        with (
            local_cluster(scheduler.local_workers) as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler.address, set_as_default=False)
    except (OSError, TimeoutError) as exc:  # unreachable, refused, timed out
        reason = " ".join(str(exc).split())
        raise ConnectionError(
            f"cannot reach the Dask scheduler at {scheduler.address}: {reason}"
        ) from None
    with client:
        yield client


def _check_whole(name: str, value: int | None, low: int) -> None:
    """The client-side check of a count (``threads`` is checked again on each worker,
    against its own cores)."""
    if value is not None:
        check_count(value, name, low)


class _Parts:
    """The parts in flight: submitted as a bounded window, recorded as they land."""

    def __init__(self, client: Client, call: RunCall, submit: Callable[[int, int, int], Future]):
        # the dask extra, loaded only by runs that go to a cluster
        from distributed import as_completed

        self.client = client
        self.call = call
        self.submit = submit
        self.waiting = list(reversed(call.todo))
        self.flying: dict[Future, tuple[int, int]] = {}
        self.landed = as_completed(loop=client.loop)  # this client: it is not the default
        self.window = TASKS_PER_THREAD
        self._window_checked = -1.0

    def _refresh_window(self) -> None:
        now = time.monotonic()
        if now - self._window_checked >= 1.0:  # workers come and go; ask once a second
            threads = sum(self.client.nthreads().values())
            self.window = TASKS_PER_THREAD * max(threads, 1)
            self._window_checked = now

    def top_up(self) -> None:
        """Submit parts until the window is full (or none is left)."""
        self._refresh_window()
        while self.waiting and len(self.flying) < self.window:
            index, start, count = self.waiting.pop()
            future = self.submit(index, start, count)
            self.flying[future] = (index, count)
            self.landed.add(future)

    def land(self, future: Future) -> None:
        """Record a finished part (its error, if it failed, is raised here).

        The part leaves :attr:`flying` once it is recorded, or failed: a Ctrl-C half-way
        leaves it there, and :meth:`stop` lands it again (recording it if it is not yet).
        """
        index, count = self.flying[future]
        try:
            entry = future.result()
            if not self.call.writer.run.is_listed(index):
                self.call.writer.record_part(index, entry)
        except Exception:
            del self.flying[future]  # it failed: nothing to record, a resume computes it
            raise
        del self.flying[future]
        self.call.part_done(count, Tally.from_dict(entry.get("stats", {})))

    def run(self) -> None:
        self.top_up()
        for future in self.landed:
            self.land(future)
            self.top_up()

    def stop(self) -> None:
        """Submit no more; record the parts in flight as they land (one that fails is
        left to a resume). Gives up on them after a second Ctrl-C, or when the cluster
        has had no worker for :data:`WORKERLESS_GIVE_UP_S` seconds (they died too)."""
        self.waiting.clear()
        workerless_since: float | None = None
        checked = time.monotonic()
        try:
            while self.flying:
                landed = [f for f in self.flying if f.done()]  # local state: no round trip
                for future in landed:
                    with contextlib.suppress(Exception):
                        self.land(future)
                if landed:
                    continue
                time.sleep(0.05)
                if time.monotonic() - checked < 1.0:
                    continue
                checked = time.monotonic()
                if self.client.nthreads():
                    workerless_since = None
                elif workerless_since is None:
                    workerless_since = checked
                elif checked - workerless_since > WORKERLESS_GIVE_UP_S:
                    break
        except KeyboardInterrupt:
            pass
        if self.flying:  # abandoned: their files are deleted when the run stops early
            self.client.cancel(list(self.flying))
            self.flying.clear()


def _remove_unlisted_parts(call: RunCall) -> None:
    """After a run stopped early, delete the part files its manifest does not list.

    A part can land without being recorded: a task abandoned after an interrupt (or one
    submitted in the instant Ctrl-C arrived) still runs to its end on its worker. Called
    once the client is done, so a ``local:N`` cluster's workers are gone and write no
    more; a task abandoned on a running cluster may still land later, and a resume
    deletes it then. Best effort: the run stops anyway, and a resume cleans up too.
    """
    with contextlib.suppress(OSError, ValueError):
        call.writer.remove_stray_files()


def run_distributed(
    spec: RunSpec,
    total: int,
    out: Any,
    *,
    scheduler: str | Scheduler | Client,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | Callable[[Progress], None] = False,
    retries: int = 2,
    fsync: bool = True,
    integer_encoding: str = "DELTA_BINARY_PACKED",
) -> RunSummary:
    """Play ``total`` hands (or games) of ``spec`` on a Dask cluster into ``out``.

    Arguments as :func:`~spades_sim.run.dataset.run_dataset` (``out`` a path every worker sees
    under that name, or a URI), plus ``scheduler`` (``"tcp://HOST:PORT"``, ``"local:N"``,
    a :class:`Scheduler` or a ``distributed.Client``, left open) and ``retries`` (times a
    failing task is tried again). ``threads`` caps the kernel threads of each task
    (default: all the worker machine's cores, as locally). With ``"local:N"``, call it from a
    script's ``if __name__ == "__main__":`` block: worker processes are spawned and
    import the main module. Raises as ``run_dataset`` does, plus ``ImportError`` without
    the dask extra, ``ConnectionError`` when the scheduler cannot be reached and the
    error of a task that keeps failing.

    No example here: starting a cluster takes seconds (``tests/test_distributed.py``).
    """
    require_dask()
    # the dask extra, loaded only by runs that go to a cluster
    from distributed import Client

    started = time.perf_counter()
    where = scheduler if isinstance(scheduler, (Client, Scheduler)) else Scheduler.parse(scheduler)
    _check_whole("threads", threads, 1)
    _check_whole("retries", retries, 0)
    # Workers resolve the location themselves: a local path must name the same directory
    # there, so it goes out absolute (a relative one would follow each worker's cwd).
    location = str(out) if is_uri(out) else os.path.abspath(out)

    with _connect(where) as client:
        call = RunCall(
            spec,
            total,
            out,
            chunk_size=chunk_size,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            show_parts=True,
            started=started,  # the rate covers connecting (and starting local workers)
            fsync=fsync,
            integer_encoding=integer_encoding,
        )
        run_id = uuid.uuid4().hex[:8]

        def submit(index: int, start: int, count: int) -> Future:
            return client.submit(
                write_part,
                spec,
                location,
                index,
                start,
                count,
                meta=call.meta,
                fmt=call.writer.format,
                threads=threads,
                version=__version__,
                key=f"spades_sim-part-{index:05d}-{run_id}",
                retries=retries,
                pure=False,
            )

        plugin_name = f"spades_sim-warm-up-{run_id}"
        registered = False
        interrupted: int | None = None
        failure: BaseException | None = None
        try:
            with sigterm_interrupts(), call.writer:
                call.report()
                parts = _Parts(client, call, submit)
                try:
                    if call.todo:
                        client.register_plugin(WarmUp(spec, threads), name=plugin_name)
                        registered = True
                    parts.run()
                except KeyboardInterrupt as exc:
                    interrupted = interrupt_signal(exc)
                    parts.stop()
                except Exception as exc:
                    failure = exc
                    parts.stop()
                if interrupted is None and failure is None:
                    call.writer.remove_stray_files()
                    call.writer.finish()
        finally:
            call.close_bar()
            if registered:  # new workers need not warm up for a run that is over
                with contextlib.suppress(Exception):  # the scheduler may be gone
                    client.unregister_worker_plugin(plugin_name)
    if failure is not None or interrupted is not None:
        _remove_unlisted_parts(call)
    if failure is not None:
        raise failure
    if interrupted is not None:
        raise RunInterrupted(call.summary(complete=False), interrupted)
    return call.summary(complete=True)
