"""``nil_safe`` from the opening position of bid nils, timed one nil at a time.

The nils are those of ``benchmarks/data/nil_leak.npz`` (the first 800 nil seats, not
blind, that the default bidders bid in ``simulate_hands(20000, seed=5)``), whose
verdicts ``benchmarks/data/nil_leak.jsonl`` keeps; every verdict found here is checked
against that file. Each nil is solved by ``nil_safe_nb`` on a helper thread with one
table for the whole run (as a thread of ``nil_table`` keeps its table across deals),
and stopped through the abort flag after ``--cap`` seconds of wall time (counted as
capped, left out of the verdict check, kept in the percentiles at the CPU time it had
had). Prints, in the solving thread's CPU time, the median, the 90th, 95th and 99th
percentiles, the mean and the worst, and the nodes a nil::

    nice python benchmarks/nil_speed.py --every 4 --cap 30
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import numpy as np

from spades_sim._nb import dd
from spades_sim.rules import Rules
from spades_sim.solve.solver import DEFAULT_TABLE_BITS, play_rules, seat_nil_mask

DATA = Path(__file__).resolve().parent / "data"


def verdicts(path: Path) -> dict[int, bool]:
    """Index -> the recorded verdict (capped nils have none)."""
    out = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if "safe" in row:
            out[row["i"]] = bool(row["safe"])
    return out


def solve_one(args: tuple, stats: np.ndarray, cap: float) -> tuple[bool, float, bool]:
    """(verdict, CPU seconds, capped): the kernel on a helper thread, aborted at ``cap``
    seconds of wall time. CPU time, not wall time: the machine is shared, and a solve's
    CPU time depends far less on the others' load."""
    stats[dd.S_ABORT] = 0
    out: list[tuple[bool, float]] = []

    def run() -> None:
        start = time.thread_time()
        safe = bool(dd.nil_safe_nb(*args))
        out.append((safe, time.thread_time() - start))

    helper = threading.Thread(target=run)
    helper.start()
    helper.join(cap)
    capped = helper.is_alive()
    if capped:
        stats[dd.S_ABORT] = 1
        helper.join()
    return out[0][0], out[0][1], capped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=4, help="every k-th nil of the file")
    parser.add_argument("--first", type=int, default=800, help="of the first N nils")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds a nil may take")
    parser.add_argument("--bits", type=int, default=DEFAULT_TABLE_BITS)
    parser.add_argument("--out", default=None, help="a JSON line a nil (i, safe, seconds)")
    args = parser.parse_args()
    data = np.load(DATA / "nil_leak.npz")
    known = verdicts(DATA / "nil_leak.jsonl")
    rules = Rules()
    bits = play_rules(rules, nil=True)
    keys, table = dd.new_table(args.bits)
    stats = np.zeros(dd.STATS, dtype=np.int64)
    none = np.int64(-1)

    def node(i: int) -> tuple:
        hands = data["masks"][i].astype(np.uint64)
        mask = np.int64(seat_nil_mask(int(data["seat"][i]), rules))
        return (
            hands, np.int64(4), np.int64(data["leaders"][i]), np.int64(0), none, none, none,
            np.uint64(0), False, True, mask, bits, keys, table, stats,
        )  # fmt: skip

    dd.nil_safe_nb(*node(2))  # compile or load before timing
    chosen = range(0, min(args.first, len(data["seat"])), args.every)
    seconds, nodes, wrong, capped = [], [], [], 0
    lines = []
    for i in chosen:
        before = stats[dd.S_NODES]
        safe, took, cut = solve_one(node(i), stats, args.cap)
        seconds.append(took)
        nodes.append(int(stats[dd.S_NODES] - before))
        capped += cut
        if not cut and i in known and known[i] != safe:
            wrong.append(i)
        lines.append(
            json.dumps({"i": i, "safe": safe, "seconds": took, "capped": cut, "nodes": nodes[-1]})
        )
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    ms = 1000 * np.array(seconds)
    p50, p90, p95, p99 = np.percentile(ms, [50, 90, 95, 99])
    print(
        f"{len(ms)} nils (every {args.every} of the first {args.first}), cap {args.cap} s: "
        f"median {p50:.1f} ms, p90 {p90:.0f} ms, p95 {p95:.0f} ms, p99 {p99:.0f} ms, "
        f"mean {ms.mean():.0f} ms, worst {ms.max():.0f} ms; capped {capped}; "
        f"nodes a nil: median {int(np.median(nodes))}, p95 {int(np.percentile(nodes, 95))}; "
        f"verdicts differing from the file: {wrong}"
    )


if __name__ == "__main__":
    main()
