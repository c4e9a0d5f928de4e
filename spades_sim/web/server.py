"""Running the page: warm the kernels, bind, say where, open the browser.

Contract
--------
:func:`warm_up` runs :func:`load_kernels` in the app's worker process: one small
analysis of every kind the page offers (bid tables with and without bids before the
seat, the nil against perfect defence, a double-dummy solve, each card's value and a nil
verdict), so the kernels are compiled or loaded from Numba's cache before the first
request; ``say`` hears a line before and after.
:func:`free_port` asks the OS for a free port on ``host``. :func:`listen` binds
``host:port`` (a free port when ``port`` is 0) or raises :class:`BindError` naming the
host or the port, in one line. :func:`serve` binds first (a port in use is said at once,
not after minutes of warming up), then builds the app, warms up and runs it under uvicorn
on that socket until interrupted, printing the URL through ``say`` (by default at once,
into a pipe or a log too) and opening it in a browser unless told not to. Ctrl-C or
SIGTERM, while warming up or serving, stops the worker process before ``serve`` raises
``KeyboardInterrupt`` (:func:`~spades_sim.run.interrupts.interrupt_signal` tells which):
no worker is left running and no semaphore left for multiprocessing's tracker to warn of.
"""

from __future__ import annotations

import errno
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import uvicorn

from spades_sim.run.interrupts import sigterm_interrupts
from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
from spades_sim.web.analyse import bid_table, perfect_view
from spades_sim.web.app import create_app, stop_pool
from spades_sim.web.query import parse_analysis

__all__ = ["BindError", "free_port", "listen", "load_kernels", "serve", "warm_up"]

WARM_HAND = "AKQ.J52.T84.9632"
SOCKET_BACKLOG = 2048  # uvicorn's default
SAY = partial(print, flush=True)
"""How :func:`serve` speaks by default: each line at once, into a pipe or a log too."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the OS's choice)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class BindError(ValueError):
    """The page cannot listen where it was asked: ``option`` is ``"host"`` or ``"port"``,
    whichever is at fault."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (the OS's choice of port when 0), or
    :class:`BindError` saying in one line what is wrong."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as error:
        raise BindError(
            "host", f"{host!r} is no address of this machine ({error.strerror})"
        ) from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    # as uvicorn binds: a port left in TIME_WAIT by the last run can be taken again
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise BindError(
                "port", f"port {port} is in use on {host}; give another, or none for a free one"
            ) from None
        if error.errno == errno.EACCES:
            raise BindError(
                "port", f"port {port} on {host} needs privileges; give a port above 1023"
            ) from None
        raise BindError("host", f"cannot listen on {host} ({error.strerror})") from None
    # listening from now: a browser opened on the URL as it is printed waits for uvicorn
    # to accept rather than being refused
    sock.listen(SOCKET_BACKLOG)
    return sock


def load_kernels() -> None:
    """One small analysis of every kind (module docstring), quietly."""
    first = parse_analysis({"hand": WARM_HAND, "seat": "S", "dealer": "E", "n": "64"})
    bid_table(first)
    perfect_view(parse_analysis({**first.query(), "n": "2"}))  # the nil solver's kernels
    # with bids before the seat the table's kernels take them: a kernel of its own
    bid_table(parse_analysis({**first.query(), "dealer": "W", "bids": "N3,E3"}))
    pos = Position.start(
        ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"], "W"
    )
    dd_tricks(pos)
    dd_cards(pos)
    nil_safe(pos, "E")


def warm_up(say: Callable[[str], None] = print, pool: ProcessPoolExecutor | None = None) -> float:
    """Compile (or load) every kernel the page uses, in ``pool``'s worker process (the
    app's, ``app.state.pool``) or here; the seconds it took."""
    say("loading the kernels (the first start compiles them: a minute or two)...")
    t0 = time.monotonic()
    if pool is None:
        load_kernels()
    else:
        pool.submit(load_kernels).result()
    seconds = time.monotonic() - t0
    say(f"kernels ready ({seconds:.0f} s)")
    return seconds


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    runs: str | Path | None = None,
    browser: bool = True,
    warm: bool = True,
    say: Callable[[str], None] = SAY,
    listening: Callable[[], None] | None = None,
) -> None:
    """Serve the page until interrupted (module docstring); ``listening`` is called once
    the socket is bound, before anything else."""
    sock = listen(host, port)
    if listening is not None:
        listening()
    port = int(sock.getsockname()[1])
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    # uvicorn handles both signals while it serves, then raises them again once shut
    # down: inside, SIGTERM raises KeyboardInterrupt as Ctrl-C does instead of ending
    # the process on the spot, with the worker running and its semaphores unreleased
    with sock, sigterm_interrupts():
        app = create_app(runs=runs)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        server = uvicorn.Server(config)
        try:
            if warm:
                warm_up(say, app.state.pool)
            say(f"serving the hand analyser at {url} (Ctrl-C stops it)")
            if browser:
                threading.Timer(0.5, webbrowser.open, args=(url,)).start()
            server.run(sockets=[sock])
        finally:
            stop_pool(app.state.pool)
