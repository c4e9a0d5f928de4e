"""Running the page: warm the kernels, bind, say where, open the browser.

Contract
--------
:func:`warm_up` runs one small analysis of every kind the page offers (bid table, nil
odds, a double-dummy solve and a nil verdict), so the kernels are compiled or loaded from
Numba's cache before the first request; ``say`` hears a line before and after.
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
from pathlib import Path

import uvicorn

from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
from spades_sim.web.analyse import bid_table, nil_view
from spades_sim.web.app import create_app
from spades_sim.web.query import parse_analysis

__all__ = ["free_port", "serve", "warm_up"]

WARM_HAND = "AKQ.J52.T84.9632"


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the OS's choice)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def warm_up(say: Callable[[str], None] = print) -> float:
    """Compile (or load) every kernel the page uses; the seconds it took."""
    say("loading the kernels (the first start compiles them: a minute or two)...")
    t0 = time.monotonic()
    a = parse_analysis({"hand": WARM_HAND, "seat": "S", "dealer": "W", "bids": "N3,E3", "n": "64"})
    bid_table(a)
    nil_view(a)
    pos = Position.start(
        ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"], "W"
    )
    dd_tricks(pos)
    dd_cards(pos)
    nil_safe(pos, "E")
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
        warm_up(say)
    port = port or free_port(host)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    say(f"serving the hand analyser at {url} (Ctrl-C stops it)")
    if browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server.run()
