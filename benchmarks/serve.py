"""The hand analyser page, warm: seconds from "Analyse" to the bid table over HTTP.

Serves the app (``spades_sim.web.create_app``) on a free loopback port after warming the
kernels, then, ``--rounds`` times, POSTs an analysis of a hand at 0-0 (South first to
bid, ``-n`` completions; a new random hand each round, since the solver's table keeps
what it solved for a hand seen before) and polls its job until the bid table is in (the page polls
the same way, every 0.15 s; this polls every 0.02 s), and until the whole analysis is
done. Prints the median and range of both; CPU time of this process per round beside
them, which a machine shared with other work blurs less than the wall clock.

    python benchmarks/serve.py                 # 2,000 completions, 5 rounds
    python benchmarks/serve.py -n 500 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
import urllib.request

import numpy as np
import uvicorn

from spades_sim.cards import format_hand
from spades_sim.web import create_app, warm_up
from spades_sim.web.server import free_port

SEED = 7


def post(url: str, data: dict[str, str]) -> dict[str, str]:
    body = json.dumps(data).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return dict(json.load(answer))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="completions per analysis")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    app = create_app()
    print(f"warm-up: {warm_up(lambda _line: None, app.state.pool):.1f} s")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    table, whole, cpu = [], [], []
    rng = np.random.default_rng(SEED)
    for r in range(args.rounds):
        hand = format_hand(sum(1 << int(c) for c in rng.permutation(52)[:13]))
        c0, t0 = time.process_time(), time.monotonic()
        job = post(base + "/api/analyse", {"tab": "bench", "hand": hand, "n": str(args.n)})["job"]
        first = None
        while True:
            with urllib.request.urlopen(f"{base}/api/job/{job}") as answer:
                status = json.load(answer)
            if first is None and status["done"] >= 1:
                first = time.monotonic() - t0
            if status["state"] not in ("queued", "running"):
                break
            time.sleep(0.02)
        assert status["state"] == "done", status
        table.append(first or 0.0)
        whole.append(time.monotonic() - t0)
        cpu.append(time.process_time() - c0)
        print(
            f"round {r + 1} ({hand}): bid table {table[-1]:.2f} s, whole analysis {whole[-1]:.2f} s"
        )
    print(
        f"bid table (n={args.n}): median {statistics.median(table):.2f} s "
        f"[{min(table):.2f}, {max(table):.2f}]; whole analysis median "
        f"{statistics.median(whole):.2f} s; CPU per round {statistics.median(cpu):.2f} s"
    )
    server.should_exit = True


if __name__ == "__main__":
    main()
