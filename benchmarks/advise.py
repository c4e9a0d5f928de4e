"""The bid table of one hand: seconds for ``advise`` with 2,000 completions, warm.

``advise`` plays every completion once per bid the seat may make (blind nil, nil and
1..13 at standard rules: 15 scenarios), so 2,000 completions are 30,000 hands. Timed
warm (the kernels compiled or loaded from the cache by a first call, timed apart as
``first_call_s``), the median of ``--rounds`` calls, at 0-0 with the seat first to bid
and, for the bid-reading completions, after three earlier bids.

    python benchmarks/advise.py                    # count + heuristic, all threads
    python benchmarks/advise.py --completions 2000 --rounds 7 --threads 1 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from spades_sim import advise

HAND = "Q73.J52.T84.9632"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--completions", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bidding", default="count")
    parser.add_argument("--play", default="heuristic")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    common = {
        "bidding": args.bidding,
        "play": args.play,
        "threads": args.threads,
        "n": args.completions,
    }
    start = time.perf_counter()
    first = advise(HAND, "S", dealer="E", seed=0, **common)  # compile or load from the cache
    first_s = time.perf_counter() - start
    later = {"dealer": "S", "bids": {"W": 3, "N": 4, "E": 3}}
    advise(HAND, "S", seed=0, **later, **common)
    opening, bid_after = [], []
    relaxed = 0.0
    for r in range(args.rounds):
        start = time.perf_counter()
        advise(HAND, "S", dealer="E", seed=r, **common)
        opening.append(time.perf_counter() - start)
        start = time.perf_counter()
        relaxed = advise(HAND, "S", seed=r, **later, **common).relaxed
        bid_after.append(time.perf_counter() - start)
    result = {
        "policies": f"{args.bidding} + {args.play}",
        "threads": args.threads or "all",
        "completions": args.completions,
        "bids_in_table": len(first.table),
        "first_call_s": round(first_s, 2),
        "seconds_at_0_0_first_to_bid": round(statistics.median(opening), 3),
        "seconds_after_three_bids": round(statistics.median(bid_after), 3),
        "relaxed_share_after_three_bids": round(relaxed, 3),
    }
    if args.json:
        print(json.dumps(result))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:{width}s}  {value}")


if __name__ == "__main__":
    main()
