"""A signal sent to the test's own process, for the tests that time how fast a run stops.

``Signal(signum, after, when=None)`` is a context manager: on entry it puts Python's own
``default_int_handler`` on ``signum`` (so a signal that comes late raises
``KeyboardInterrupt`` in the test instead of ending the process, whatever an earlier
test in the worker left there), then sends ``signum`` to this process ``after`` seconds
later, or ``after`` seconds after ``when()`` first holds. ``sent`` is the
``time.perf_counter()`` of the send (infinity until then). On exit the signal is no
longer sent and the previous handler is back.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any


class Signal:
    """Send ``signum`` to this process ``after`` seconds in (see the module docstring)."""

    def __init__(self, signum: int, after: float, when: Callable[[], bool] | None = None) -> None:
        self.signum = signum
        self.after = after
        self.when = when
        self.sent = float("inf")
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.previous: Any = None

    def run(self) -> None:
        while self.when is not None and not self.when():
            if self.done.wait(0.02):
                return
        if self.done.wait(self.after):
            return
        self.sent = time.perf_counter()
        os.kill(os.getpid(), self.signum)

    def __enter__(self) -> Signal:
        self.previous = signal.signal(self.signum, signal.default_int_handler)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()
        signal.signal(self.signum, self.previous)
