"""Whether ``pimc`` gains by weighting its worlds by the play (``read_plays``).

Prints (a) ``pimc:read_plays=EPS`` against ``pimc:read_plays=0`` (every other parameter
at its default) in duplicate, both sides bidding ``count``: points per hand of the reading side
with a 95% interval, and the nils it made and set; (b) the cost: hands per second on one
thread of every seat on each, alternated ``--rounds`` times on the same deals, and the
ratio of the medians.

Run from the repository root: ``python benchmarks/play_reading.py --deals 400 --eps 0.2``
(minutes on two cores, plus the pimc kernels' compile on a cold cache).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

from spades_sim import simulate_hands  # noqa: E402
from spades_sim.analysis import duplicate  # noqa: E402

BASE = "pimc:read_plays=0"  # pimc without reading the play (the default reads it)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eps", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timing-deals", type=int, default=12)
    parser.add_argument("--skip-duplicate", action="store_true")
    args = parser.parse_args()
    reading = f"pimc:read_plays={args.eps}"
    if not args.skip_duplicate:
        t0 = time.perf_counter()
        result = duplicate(reading, BASE, args.deals, seed=args.seed, threads=args.threads)
        print(f"(a) {reading} vs {BASE}, {args.deals} deals, seed {args.seed}:")
        print(f"    points a hand {result.margin}")
        print(f"    nils made {result.nils_made}, nils set {result.nils_set}")
        print(f"    ({time.perf_counter() - t0:.0f} s)", flush=True)
    times: dict[str, list[float]] = {reading: [], BASE: []}
    for r in range(args.rounds):
        for play in (reading, BASE) if r % 2 == 0 else (BASE, reading):
            t0 = time.perf_counter()
            simulate_hands(args.timing_deals, seed=args.seed + 1000, play=play, threads=1)
            times[play].append(args.timing_deals / (time.perf_counter() - t0))
    for play, rates in times.items():
        print(f"(b) {play}: hands/s on one thread {[round(x, 2) for x in rates]}")
    ratio = statistics.median(times[BASE]) / statistics.median(times[reading])
    print(f"    time with / without reading (median): {ratio:.2f}")


if __name__ == "__main__":
    main()
