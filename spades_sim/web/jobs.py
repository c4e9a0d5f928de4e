"""Long analyses off the request thread: one worker, progress by step, cancel between steps.

Contract
--------
:class:`Jobs` runs each submitted job's steps (named callables) in order on one worker
thread, so one analysis uses the kernels' thread pool at a time and a request never waits
on a computation. A job belongs to a browser tab (an opaque id the page makes): a tab
has at most one job running or queued; submitting another cancels the one before.
:meth:`Jobs.cancel` marks a job cancelled at once (its state says so from then on); the
worker stops it before its next step, since a kernel already running cannot be
interrupted, and discards what it computed. A step that raises ends its job as
``failed`` with the exception's one-line message (a :class:`ValueError`, the package's
way of saying the input is wrong) or a generic line (anything else: a bug, whose
traceback goes to the server's log, never to the page). :meth:`Job.status` is what the
page polls: state, the step running, steps done and total, elapsed seconds, and the
finished results by step name.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_KEPT", "Job", "Jobs", "Step"]

MAX_KEPT = 64
"""Finished jobs kept for the page to collect; older ones are forgotten."""

LOG = logging.getLogger("spades_sim.web")


@dataclass(frozen=True)
class Step:
    """One step of a job: its name (a key of the results), the words the page shows
    while it runs, and the callable computing it."""

    name: str
    label: str
    run: Callable[[], Any]


@dataclass
class Job:
    """One analysis: its steps and where it stands (the fields change under the
    :class:`Jobs` lock only)."""

    id: str
    tab: str
    steps: Sequence[Step]
    state: str = "queued"  # queued, running, done, failed, cancelled
    done: int = 0
    error: str = ""
    results: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)

    def status(self) -> dict[str, Any]:
        """What the page polls (plain values)."""
        end = self.finished if self.finished is not None else time.monotonic()
        running = self.steps[self.done].label if self.state == "running" else ""
        return {
            "id": self.id,
            "state": self.state,
            "step": running,
            "done": self.done,
            "total": len(self.steps),
            "seconds": round(end - self.started, 2),
            "error": self.error,
        }


class Jobs:
    """The job table and its worker thread (module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._by_tab: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spades-sim-job")

    def submit(self, tab: str, steps: Sequence[Step]) -> Job:
        """Queue a job for ``tab``, cancelling the tab's job before it."""
        with self._lock:
            previous = self._by_tab.get(tab, "")
            if previous in self._jobs:
                self._cancel(self._jobs[previous])
            job = Job(id=f"j{next(self._ids)}", tab=tab, steps=list(steps))
            self._jobs[job.id] = job
            self._by_tab[tab] = job.id
            while len(self._jobs) > MAX_KEPT:
                old_id, old = next(iter(self._jobs.items()))
                if old.state in ("queued", "running"):
                    break
                del self._jobs[old_id]
        self._worker.submit(self._run, job)
        return job

    def get(self, job_id: str) -> Job | None:
        """The job of that id, if it is still kept."""
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Cancel a job (no effect once it has finished); the job, if kept."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                self._cancel(job)
            return job

    def cancel_all(self) -> None:
        """Cancel every job (the step running finishes, or fails, unseen)."""
        with self._lock:
            for job in self._jobs.values():
                self._cancel(job)

    def shutdown(self) -> None:
        """Cancel every job and stop the worker (waits for the step running)."""
        self.cancel_all()
        self._worker.shutdown(wait=True)

    @staticmethod
    def _cancel(job: Job) -> None:
        if job.state in ("queued", "running"):
            job.cancelled.set()
            job.state = "cancelled"
            job.finished = time.monotonic()

    def _run(self, job: Job) -> None:
        with self._lock:
            if job.cancelled.is_set():
                return
            job.state = "running"
            job.started = time.monotonic()
        for step in job.steps:
            try:
                value = step.run()
            except ValueError as error:  # the package's word for wrong input
                self._end(job, "failed", str(error).splitlines()[0] if str(error) else "bad input")
                return
            except Exception:
                if job.cancelled.is_set():  # its worker stopped under it: nothing failed
                    return
                LOG.exception("analysis step %s failed", step.name)
                self._end(job, "failed", f"the {step.label} failed (the server's log says why)")
                return
            with self._lock:
                if job.cancelled.is_set():
                    return
                job.results = {**job.results, step.name: value}  # readers hold the old dict
                job.done += 1
        self._end(job, "done", "")

    def _end(self, job: Job, state: str, error: str) -> None:
        with self._lock:
            if job.cancelled.is_set():
                return
            job.state = state
            job.error = error
            job.finished = time.monotonic()
