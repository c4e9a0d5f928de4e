"""Running the page: warm the kernels, bind, say where, open the browser.

Contract
--------
:func:`warm_up` runs :func:`load_kernels` in the app's worker process: one small
analysis of every kind the page offers (bid tables with and without bids before the
seat, nil odds, a double-dummy solve, each card's value and a nil verdict), so the
kernels are compiled or loaded from Numba's cache before the first request; ``say``
hears a line before and after.
:func:`free_port` asks the OS for a free port on ``host``. :func:`serve` builds the app
and runs it under uvicorn on ``host:port`` (a free port when ``port`` is 0) until
interrupted, printing the URL through ``say`` and opening it in a browser unless told
not to.
"""

from __future__ import annotations

import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import uvicorn

from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
from spades_sim.web.analyse import bid_table, nil_view
from spades_sim.web.app import create_app
from spades_sim.web.query import parse_analysis

__all__ = ["free_port", "load_kernels", "serve", "warm_up"]

WARM_HAND = "AKQ.J52.T84.9632"


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the OS's choice)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def load_kernels() -> None:
    """One small analysis of every kind (module docstring), quietly."""
    first = parse_analysis({"hand": WARM_HAND, "seat": "S", "dealer": "E", "n": "64"})
    bid_table(first)
    nil_view(first)
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
    say: Callable[[str], None] = print,
) -> None:
    """Serve the page until interrupted (module docstring)."""
    app = create_app(runs=runs)
    if warm:
        warm_up(say, app.state.pool)
    port = port or free_port(host)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    say(f"serving the hand analyser at {url} (Ctrl-C stops it)")
    if browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server.run()
