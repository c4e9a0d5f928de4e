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

import statistics

from _harness import described, parser, policies, report, seconds

from spades_sim import advise

HAND = "Q73.J52.T84.9632"


def main() -> None:
    args = parser(__doc__, completions=2_000).parse_args()
    common = {**policies(args), "n": args.completions}
    # compile or load from the cache
    first_s, first = seconds(lambda: advise(HAND, "S", dealer="E", seed=0, **common))
    later = {"dealer": "S", "bids": {"W": 3, "N": 4, "E": 3}}
    advise(HAND, "S", seed=0, **later, **common)
    opening, bid_after = [], []
    relaxed = 0.0
    for r in range(args.rounds):
        opening.append(seconds(lambda r=r: advise(HAND, "S", dealer="E", seed=r, **common))[0])
        took, advice = seconds(lambda r=r: advise(HAND, "S", seed=r, **later, **common))
        bid_after.append(took)
        relaxed = advice.relaxed
    report(
        {
            **described(args),
            "bids_in_table": len(first.table),
            "first_call_s": round(first_s, 2),
            "seconds_at_0_0_first_to_bid": round(statistics.median(opening), 3),
            "seconds_after_three_bids": round(statistics.median(bid_after), 3),
            "relaxed_share_after_three_bids": round(relaxed, 3),
        },
        args.json,
    )


if __name__ == "__main__":
    main()
