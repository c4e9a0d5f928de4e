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
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spades_sim.run.summary import RunSummary

__all__ = ["RunInterrupted", "interrupt_signal", "sigterm_interrupts"]


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
