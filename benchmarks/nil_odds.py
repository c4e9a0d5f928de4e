"""Nil odds against ``simulate_hands``: hands played per second under the same policies.

``nil_odds`` plays every completion once per scenario (nil, then each number bid), so
its hands per second are completions times scenarios. The yardstick is
``simulate_hands`` of the same policies to a DataFrame, timed alternately in the same
run; the figure of merit is the ratio (the issue asks >= 80%). Also printed: the
completions per second, the time for 100,000 completions, the cost of a ``require``
range (rejection sampling), and the process's peak memory.

    python benchmarks/nil_odds.py                          # count + heuristic, all threads
    python benchmarks/nil_odds.py --completions 200000 --rounds 7 --threads 1
    python benchmarks/nil_odds.py --play random --json
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

from spades_sim import nil_odds, simulate_hands

HAND = "Q73.J52.T84.9632"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--completions", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bidding", default="count")
    parser.add_argument("--play", default="heuristic")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    common = {"bidding": args.bidding, "play": args.play, "threads": args.threads}
    warm = nil_odds(HAND, n=1_000, seed=0, **common)  # compile or load from the cache
    scenarios = 1 + len(warm.number_scores)
    hands = args.completions * scenarios
    simulate_hands(1_000, seed=0, **common)
    odds_s, sim_s, require_s = [], [], []
    for r in range(args.rounds):
        start = time.perf_counter()
        nil_odds(HAND, n=args.completions, seed=r, **common)
        odds_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        simulate_hands(hands, seed=r, **common)
        sim_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        nil_odds(HAND, n=args.completions, seed=r, require={"N": {"spades": "4.."}}, **common)
        require_s.append(time.perf_counter() - start)
    odds_rate = hands / statistics.median(odds_s)
    sim_rate = hands / statistics.median(sim_s)
    result = {
        "policies": f"{args.bidding} + {args.play}",
        "threads": args.threads or "all",
        "completions": args.completions,
        "scenarios": scenarios,
        "nil_odds_hands_per_s": round(odds_rate),
        "nil_odds_completions_per_s": round(args.completions / statistics.median(odds_s)),
        "simulate_hands_per_s": round(sim_rate),
        "ratio": round(odds_rate / sim_rate, 3),
        "seconds_per_100k_completions": round(
            statistics.median(odds_s) * 1e5 / args.completions, 3
        ),
        "seconds_with_require": round(statistics.median(require_s), 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    if args.json:
        print(json.dumps(result))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(
            f"{key:{width}s}  {value:,}"
            if isinstance(value, (int, float))
            else f"{key:{width}s}  {value}"
        )


if __name__ == "__main__":
    main()
