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

import resource
import statistics

from _harness import described, parser, policies, report, seconds

from spades_sim import nil_odds, simulate_hands

HAND = "Q73.J52.T84.9632"


def main() -> None:
    args = parser(__doc__, completions=100_000).parse_args()
    common = policies(args)
    n = args.completions
    warm = nil_odds(HAND, n=1_000, seed=0, **common)  # compile or load from the cache
    scenarios = 1 + len(warm.number_scores)
    hands = n * scenarios
    simulate_hands(1_000, seed=0, **common)
    odds_s, sim_s, require_s = [], [], []
    ranges = {"N": {"spades": "4.."}}
    for r in range(args.rounds):
        odds_s.append(seconds(lambda r=r: nil_odds(HAND, n=n, seed=r, **common))[0])
        sim_s.append(seconds(lambda r=r: simulate_hands(hands, seed=r, **common))[0])
        require_s.append(
            seconds(lambda r=r: nil_odds(HAND, n=n, seed=r, require=ranges, **common))[0]
        )
    odds_rate = hands / statistics.median(odds_s)
    sim_rate = hands / statistics.median(sim_s)
    report(
        {
            **described(args),
            "scenarios": scenarios,
            "nil_odds_hands_per_s": round(odds_rate),
            "nil_odds_completions_per_s": round(n / statistics.median(odds_s)),
            "simulate_hands_per_s": round(sim_rate),
            "ratio": round(odds_rate / sim_rate, 3),
            "seconds_per_100k_completions": round(statistics.median(odds_s) * 1e5 / n, 3),
            "seconds_with_require": round(statistics.median(require_s), 3),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        },
        args.json,
    )


if __name__ == "__main__":
    main()
