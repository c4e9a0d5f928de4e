"""The thread backend: kernels shared out to a pool of threads, and compiled in the open.

Contract
--------
:func:`run_tasks` is the one thread pool of the package: tasks ``0 .. n-1`` taken in turn
by :func:`current_threads` Python threads (the caller's included), each task told which
worker runs it (so a worker can keep its own tables). :func:`run_blocks` calls an entry
point of ``spades_sim._nb`` (a kernel whose first two arguments are a range of blocks
``first, end``, compiled ``nogil``) over blocks ``0 .. n_blocks-1`` through it, a few
blocks a task. The thread count is :func:`kernel_threads` (a context manager, per thread
of the caller; default all of ``NUMBA_NUM_THREADS``). Every block writes only its own
rows, and per-worker tables are integer sums, so the output never depends on the thread
count or on which thread ran which task.

Before the first call of a kernel for a signature, :func:`run_blocks` compiles it in the
calling thread. It first looks in Numba's on-disk cache for that signature (the index
file Numba itself reads, under the source digest ``_nb`` stamps on it): when the entry
is missing, a compile is coming and every watcher in the caller's context is told
beforehand (:func:`watch_compiles`, :func:`announce_compiles`: a line such as
``compiling kernels (first run only, about 22 s)`` on stderr), then given the time it took.
A kernel loaded from the cache is announced to no one.

Stopping. Python runs a signal's handler on the main thread, between bytecodes: a kernel
that holds the main thread for minutes (a ``pimc`` decision, a nil proof) would keep
Ctrl-C waiting as long. :func:`stoppable` runs such work on a helper thread while the
main thread waits, and on Ctrl-C (or SIGTERM, where ``run.interrupts`` makes it one) tells
the kernels to stop, waits for them and raises the interrupt. The kernels learn it from
an array they poll: :class:`StopCells`, an argument of :func:`run_blocks` that gives each
worker thread a row of its own, with a flag slot :meth:`StopCells.stop` sets in every row.

>>> from spades_sim._nb import loop
>>> with kernel_threads(1):
...     current_threads()
1
>>> kernel_name(loop.hands_nb)
'hands_nb'
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numba
import numpy as np
from tqdm import tqdm

__all__ = [
    "Compile",
    "CompileWatch",
    "StopCells",
    "announce_compiles",
    "current_threads",
    "ensure_compiled",
    "kernel_name",
    "kernel_threads",
    "run_blocks",
    "run_tasks",
    "stoppable",
    "thread_limit",
    "watch_compiles",
]

MAX_TASK_BLOCKS = 16
"""Blocks per task at most: small enough that threads finish together (a task of 16
blocks of 64 deals takes a few ms), large enough that a call's overhead (~10 us) is lost."""

EXPECTED_SECONDS = {
    "hands_heuristic_defaults_lockstep_count_nb": 19,
    "hands_heuristic_defaults_lockstep_nb": 22,
    "hands_heuristic_lockstep_count_nb": 19,
    "hands_random_lockstep_count_nb": 10,
    "hands_heuristic_lockstep_nb": 16,
    "hands_random_lockstep_nb": 13,
    "hands_heuristic_lockstep_two_nb": 15,
    "hands_random_lockstep_two_nb": 13,
    "hands_nb": 35,
    "games_nb": 35,
    "sample_deals_nb": 2,
    "play_deals_nb": 30,
}
"""Cold compile time of each entry point (CPU seconds, measured alone on an empty cache
on the 2-core development machine): the ``about N s`` of the notice. The scalar kernels
(``hands_nb``, ``games_nb``, ``play_deals_nb``) compile every policy, sampling ones
included; the lock-step ones only the non-sampling bidders and their play."""
DEFAULT_EXPECTED_SECONDS = 30
SOLVER_EXPECTED_SECONDS = 130
"""Added to the estimate of a generated module's kernel that plays ``pimc``: the
double-dummy solver and the pimc kernels compile with it (the first run of such a module
took 168 s wall on the development machine, two hands included)."""

_THREADS: ContextVar[int | None] = ContextVar("spades_sim_kernel_threads", default=None)
_WATCHERS: ContextVar[tuple[CompileWatch, ...]] = ContextVar("spades_sim_watchers", default=())


def thread_limit() -> int:
    """The most threads a run may use here: Numba's ``NUMBA_NUM_THREADS`` (the cores,
    unless that environment variable says otherwise)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


@contextlib.contextmanager
def kernel_threads(count: int | None) -> Iterator[None]:
    """Run the kernels on ``count`` threads (None: all) inside; the setting is this
    thread's (and this context's), restored on exit. Raises ``ValueError`` outside
    1 .. :func:`thread_limit`.

    >>> try:
    ...     with kernel_threads(0):
    ...         pass
    ... except ValueError as exc:
    ...     print(str(exc).replace(str(thread_limit()), "N"))
    threads: must be 1..N on this machine, got 0
    """
    if count is None:
        yield
        return
    limit = thread_limit()
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= limit:
        raise ValueError(f"threads: must be 1..{limit} on this machine, got {count!r}")
    token = _THREADS.set(count)
    try:
        yield
    finally:
        _THREADS.reset(token)


def current_threads() -> int:
    """The thread count :func:`run_blocks` uses here and now."""
    count = _THREADS.get()
    return thread_limit() if count is None else count


# --------------------------------------------------------------------------------------
# Compiling in the open
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compile:
    """One kernel compiled by this process (not loaded from Numba's cache)."""

    kernel: str
    seconds: float
    cached: bool  # whether the result goes to the on-disk cache (a later run loads it)


@dataclass
class CompileWatch:
    """Told of every kernel compile in its context: ``starting(kernel, expected seconds,
    cached)`` before it (when the cache says one is due) and each :class:`Compile` after."""

    starting: Callable[[str, float, bool], None] | None = None
    compiles: list[Compile] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """Seconds spent compiling so far."""
        return sum(c.seconds for c in self.compiles)


@contextlib.contextmanager
def watch_compiles(
    starting: Callable[[str, float, bool], None] | None = None,
) -> Iterator[CompileWatch]:
    """Collect the compiles of the kernels called inside (in this thread and context).

    >>> with watch_compiles() as watch:
    ...     pass
    >>> watch.compiles, watch.seconds
    ([], 0)
    """
    watch = CompileWatch(starting)
    token = _WATCHERS.set((*_WATCHERS.get(), watch))
    try:
        yield watch
    finally:
        _WATCHERS.reset(token)


def compile_notice(kernel: str, expected: float, cached: bool) -> str:
    """The line shown before a compile (a generated module's kernels are those of
    user-written policies, compiled once per machine for each version of their code).

    >>> compile_notice("hands_nb", 14.6, True)
    'compiling kernels (first run only, about 15 s)'
    >>> compile_notice("hands_nb [your policies]", 30, True)
    'compiling kernels for your policies (first run of this code only, about 30 s)'
    """
    if kernel.endswith(POLICY_SUFFIX):
        when = "first run of this code only"
        return f"compiling kernels for your policies ({when}, about {expected:.0f} s)"
    when = "first run only" if cached else "every new process"
    return f"compiling kernels ({when}, about {expected:.0f} s)"


def _say(kernel: str, expected: float, cached: bool) -> None:
    tqdm.write(compile_notice(kernel, expected, cached), file=sys.stderr)


@contextlib.contextmanager
def announce_compiles(enabled: bool = True) -> Iterator[CompileWatch]:
    """Inside, print :func:`compile_notice` on stderr before each compile (through
    ``tqdm.write``, so a progress bar is redrawn under it); with ``enabled=False``, print
    nothing (outside any such context a compile is announced all the same: a caller of
    the Python API is told why it waits)."""
    with watch_compiles(_say if enabled else None) as watch:
        yield watch


POLICY_SUFFIX = " [your policies]"


def kernel_name(kernel: Any) -> str:
    """The Python name of a Numba dispatcher (marked when it is a kernel generated for
    user-written policies, ``spades_sim.custom.kernels``)."""
    function = getattr(kernel, "py_func", kernel)
    generated = str(getattr(function, "__module__", "")).startswith("spades_sim_policies_")
    return str(function.__name__) + (POLICY_SUFFIX if generated else "")


def _in_disk_cache(kernel: Any, signature: tuple[Any, ...]) -> bool | None:
    """Whether Numba's on-disk cache holds ``kernel`` compiled for ``signature`` (the
    lookup Numba's own ``Cache.load_overload`` does, without loading the code); None
    when that cannot be told (a Numba whose cache internals differ)."""
    cache = getattr(kernel, "_cache", None)
    if type(cache).__name__ == "NullCache":
        return False  # not a cached kernel: always compiled
    try:
        key = cache._index_key(signature, kernel.targetctx.codegen())  # type: ignore[union-attr]
        files = cache._cache_file  # type: ignore[union-attr]
        name = files._load_index().get(key)
        return name is not None and os.path.exists(os.path.join(files._cache_path, name))
    except Exception:
        return None


def ensure_compiled(kernel: Any, args: tuple[Any, ...]) -> None:
    """Compile (or load) ``kernel`` for the types of ``args`` now, telling the watchers."""
    signature = tuple(kernel.typeof_pyval(a) for a in args)
    if signature in kernel.overloads:
        return
    watchers = _WATCHERS.get()
    name = kernel_name(kernel)
    cached_kernel = type(getattr(kernel, "_cache", None)).__name__ != "NullCache"
    if _in_disk_cache(kernel, signature) is False:
        expected = EXPECTED_SECONDS.get(name.removesuffix(POLICY_SUFFIX), DEFAULT_EXPECTED_SECONDS)
        module = sys.modules.get(str(getattr(kernel, "py_func", kernel).__module__))
        if module is not None and hasattr(module, "pimc_or_plain_play_nb"):
            expected += SOLVER_EXPECTED_SECONDS
        if not watchers:
            _say(name, expected, cached_kernel)
        for watch in watchers:
            if watch.starting is not None:
                watch.starting(name, expected, cached_kernel)
    misses = kernel.stats.cache_misses[signature]
    start = time.perf_counter()
    with policy_compile_errors(kernel):
        kernel.compile(signature)
    if kernel.stats.cache_misses[signature] > misses:  # compiled, not loaded
        done = Compile(name, round(time.perf_counter() - start, 2), cached_kernel)
        for watch in watchers:
            watch.compiles.append(done)


@contextlib.contextmanager
def policy_compile_errors(kernel: Any) -> Iterator[None]:
    """Around the first call or compile of ``kernel``: when it is a generated module's
    (user-written policies) and Numba cannot type it, a ``ValueError`` of one line
    (:func:`policy_typing_message`) instead of Numba's traceback. The package's own
    kernels keep Numba's whole story: there a typing error is a bug of ours."""
    try:
        yield
    except numba.core.errors.TypingError as exc:
        if not kernel_name(kernel).endswith(POLICY_SUFFIX):
            raise
        raise ValueError(policy_typing_message(str(exc))) from None


def policy_typing_message(numba_message: str) -> str:
    """One line for a user-written policy that Numba cannot compile: Numba's first reason
    and the first place it names outside the package and the generated modules (the
    user's file and line).

    >>> message = policy_typing_message(
    ...     "Failed in nopython mode\\n\\x1b[1mUnknown attribute 'x' of type uint64\\n\\n"
    ...     'File "mine.py", line 2:\\n'
    ... )
    >>> message.split(": ", 1)[1].split(";")[0]
    "Unknown attribute 'x' of type uint64 (mine.py, line 2)"
    """
    text = re.sub(r"\x1b\[[0-9;]*m", "", numba_message)
    lines = [line.strip() for line in text.splitlines()]
    reasons = [
        line for line in lines if line and not line.startswith(("Failed in", "File ", "During:"))
    ]
    package = os.path.dirname(os.path.abspath(__file__))  # spades_sim/
    where = next(
        (
            f" ({m.group(1)}, line {m.group(2)})"
            for m in re.finditer(r'File "([^"]+)", line (\d+)', text)
            if not os.path.abspath(m.group(1)).startswith(package + os.sep)
            and not re.fullmatch(r"policies_[0-9a-f]+\.py", os.path.basename(m.group(1)))
        ),
        "",
    )
    reason = reasons[0] if reasons else "Numba could not type it"
    if reason.endswith(":") and len(reasons) > 1:  # "No implementation ... signature:"
        reason = f"{reason} {reasons[1].lstrip('> ')}"
    return (
        f"your policy's code does not compile with Numba: {reason}{where}; policies are "
        "compiled in nopython mode (docs/policies.md)"
    )


# --------------------------------------------------------------------------------------
# The thread pool
# --------------------------------------------------------------------------------------


def task_blocks(n_blocks: int, count: int) -> int:
    """Blocks per task: about 8 tasks per thread, at most :data:`MAX_TASK_BLOCKS`.

    >>> task_blocks(4096, 2), task_blocks(40, 2), task_blocks(3, 2)
    (16, 2, 1)
    """
    return max(1, min(MAX_TASK_BLOCKS, n_blocks // (8 * count)))


def run_tasks(n_tasks: int, task: Callable[[int, int], None], workers: int | None = None) -> None:
    """``task(worker, k)`` for ``k`` in ``0 .. n_tasks-1`` on ``workers`` threads (None:
    :func:`current_threads`; the calling thread is worker 0), each thread taking the next
    task when it is done with one.

    An exception in any task (or Ctrl-C in the calling thread) stops the handing out of
    tasks; the running ones finish, then it is raised here.

    >>> done = []
    >>> run_tasks(5, lambda worker, k: done.append(k), workers=2)
    >>> sorted(done)
    [0, 1, 2, 3, 4]
    """
    n_tasks = int(n_tasks)
    count = min(current_threads() if workers is None else workers, n_tasks)
    if count <= 1:
        for k in range(n_tasks):
            task(0, k)
        return
    tasks = itertools.count()  # next() is atomic under the GIL
    stop = threading.Event()
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            while not stop.is_set():
                k = next(tasks)
                if k >= n_tasks:
                    return
                task(worker, k)
        except BaseException as exc:
            errors.append(exc)
            stop.set()

    helpers = [
        threading.Thread(target=work, args=(k,), name=f"spades-sim-kernel-{k}", daemon=True)
        for k in range(1, count)
    ]
    for helper in helpers:
        helper.start()
    try:
        work(0)
    finally:
        for helper in helpers:
            helper.join()
    if errors:
        raise errors[0]


@dataclass(frozen=True)
class StopCells:
    """An argument of :func:`run_blocks` that can stop its kernels in flight: an int64
    array with a row per worker thread (``rows[w]`` is what worker ``w``'s kernel calls
    get in its place, so no two threads ever share a row: a kernel may keep its own
    scratch in the rest of it) and the slot ``flag`` of every row, which :meth:`stop`
    sets and the kernels poll. Once it is set :func:`run_blocks` hands out no more
    blocks."""

    rows: np.ndarray
    flag: int

    def stop(self) -> None:
        """Tell every worker's kernel to stop (from any thread)."""
        self.rows[:, self.flag] = 1

    @property
    def stopped(self) -> bool:
        return bool(self.rows[:, self.flag].any())


def run_blocks(kernel: Any, n_blocks: int, *args: Any) -> None:
    """``kernel(first, end, *args)`` over blocks ``0 .. n_blocks-1`` on
    :func:`current_threads` threads (:func:`run_tasks`), compiled first. An argument
    that is a :class:`StopCells` is passed as the calling worker's row of it; once one
    is stopped no more blocks are handed out, and ``KeyboardInterrupt`` is raised."""
    n_blocks = int(n_blocks)
    cells = [a for a in args if isinstance(a, StopCells)]

    def worker_args(worker: int) -> tuple[Any, ...]:
        return tuple(a.rows[worker] if isinstance(a, StopCells) else a for a in args)

    ensure_compiled(kernel, (np.int64(0), np.int64(0), *worker_args(0)))
    count = min(current_threads(), n_blocks)
    if any(c.rows.shape[0] < max(count, 1) for c in cells):
        raise ValueError(f"stop cells: need a row for each of {count} worker threads")
    if count <= 1:
        kernel(np.int64(0), np.int64(max(n_blocks, 0)), *worker_args(0))
        if any(c.stopped for c in cells):
            raise KeyboardInterrupt
        return
    step = task_blocks(n_blocks, count)
    by_worker = [worker_args(w) for w in range(count)]

    def blocks(worker: int, k: int) -> None:
        if any(c.stopped for c in cells):
            raise KeyboardInterrupt  # stopping: hand out no more blocks
        first = k * step
        kernel(np.int64(first), np.int64(min(n_blocks, first + step)), *by_worker[worker])

    run_tasks(-(-n_blocks // step), blocks, count)
    if any(c.stopped for c in cells):
        raise KeyboardInterrupt


_T = TypeVar("_T")


def stoppable(work: Callable[[], _T], stop: Callable[[], None]) -> _T:
    """``work()``, which runs kernels that may hold their thread for long, made stoppable
    by Ctrl-C (module docstring, "Stopping"). From the main thread the work runs on a
    helper thread, in a copy of this context (so :func:`kernel_threads` and the compile
    watchers hold there), while this one waits; on ``KeyboardInterrupt`` (Ctrl-C, or
    SIGTERM inside ``run.interrupts.sigterm_interrupts``) it calls ``stop()``, which must
    make the kernels return soon, waits for the work, and raises that same interrupt.
    From any other thread (signals reach only the main thread) it is just called."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    results: list[_T] = []
    errors: list[BaseException] = []
    # an Event, not Thread.join: a join interrupted by Ctrl-C marks a running thread as
    # stopped (Python 3.11), so a second join would return while the kernels still run
    finished = threading.Event()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            results.append(context.run(work))
        except BaseException as error:  # handed to the waiting thread
            errors.append(error)
        finally:
            finished.set()

    threading.Thread(target=run, name="spades-sim-stoppable", daemon=True).start()
    try:
        while not finished.wait(0.05):
            pass
    except KeyboardInterrupt:
        stop()
        finished.wait()
        raise
    if errors:
        raise errors[0]
    return results[0]
