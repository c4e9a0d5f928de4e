"""Ctrl-C and SIGTERM during a run: both stop it the same way, and say which it was.

Contract
--------
Inside :func:`sigterm_interrupts` (on the main thread) SIGTERM raises a
``KeyboardInterrupt`` as Ctrl-C does, so a run has one way to stop: it catches
``KeyboardInterrupt``, lets the parts already queued land, and raises
:class:`RunInterrupted` carrying its summary and the signal
(:func:`interrupt_signal` tells SIGTERM from Ctrl-C). Every finished part stays; a resume
continues from there. Elsewhere than the main thread, nothing changes (signals reach the
main thread only).

Where a signal must not raise at any point (inside a storage's commit, say: ``tune``'s
Optuna study), :func:`deferred_interrupts` notes Ctrl-C and SIGTERM instead: the code
raises them where it can stop cleanly (:meth:`Deferred.check`, or anywhere inside
:meth:`Deferred.raising`), as the same ``KeyboardInterrupt`` they would have been.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spades_sim.run.summary import RunSummary

__all__ = [
    "Deferred",
    "RunInterrupted",
    "deferred_interrupts",
    "interrupt_for",
    "interrupt_signal",
    "sigterm_interrupts",
]


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


def interrupt_signal(exc: KeyboardInterrupt) -> int:
    """The signal behind a ``KeyboardInterrupt`` caught inside :func:`sigterm_interrupts`."""
    return signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT


def interrupt_for(signal_number: int) -> KeyboardInterrupt:
    """The ``KeyboardInterrupt`` a signal raises inside :func:`sigterm_interrupts`
    (:func:`interrupt_signal` gives the signal back)."""
    return _Terminated() if signal_number == signal.SIGTERM else KeyboardInterrupt()


class Deferred:
    """Ctrl-C and SIGTERM noted while :func:`deferred_interrupts` is active: raised only
    by :meth:`check` or inside :meth:`raising`."""

    def __init__(self) -> None:
        self.signal_number: int | None = None
        self._raising = False

    def handler(self, signum: int, frame: Any) -> None:
        if self.signal_number is None:
            self.signal_number = signum
        if self._raising:
            raise interrupt_for(signum)

    def check(self) -> None:
        """Raise the interrupt of a signal noted, if any."""
        if self.signal_number is not None:
            raise interrupt_for(self.signal_number)

    @contextlib.contextmanager
    def raising(self) -> Iterator[None]:
        """Inside, a signal (or one noted before) raises at once: for work that holds
        nothing half written (a measurement), so stopping it loses nothing."""
        self._raising = True
        try:
            self.check()
            yield
        finally:
            self._raising = False


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[Deferred]:
    """While inside (on the main thread), Ctrl-C and SIGTERM are noted in the
    :class:`Deferred` yielded rather than raised wherever the code happens to be; the
    handlers before are restored on the way out. Elsewhere than the main thread nothing
    changes (signals reach the main thread only)."""
    noted = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    before = {s: signal.signal(s, noted.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield noted
    finally:
        for s, handler in before.items():
            # None: a handler not set from Python; the default is the nearest there is
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
