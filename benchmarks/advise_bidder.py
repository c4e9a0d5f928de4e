"""The score-aware bidder ``advise`` against ``count`` in duplicate games, and where its
wins come from.

Three duplicate comparisons in games to 500 under the standard rules, every seat playing
``heuristic`` (the same deals both ways round, ``spades_sim.analysis.duplicate``):

1. ``advise`` (win objective) against ``count``: the whole gain;
2. ``advise:objective=0`` (the most points a hand) against ``count``: what bidding each
   hand by its completions gains, blind to the score;
3. ``advise`` against ``advise:objective=0``: what reading the score adds.

For each: games won by A with the 95% interval, deals played, A's mean margin a hand,
and the share of A's nils made. Prints a Markdown table::

    nice python benchmarks/advise_bidder.py --games 1000 --n 32
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from spades_sim.analysis import duplicate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games a seating")
    parser.add_argument("--n", type=int, default=32, help="the advise bidder's completions")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    win = f"advise:n={args.n}"
    points = f"advise:n={args.n},objective=0"
    rows = []
    for a, b in ((win, "count"), (points, "count"), (win, points)):
        start = time.perf_counter()
        result = duplicate(
            a, b, args.games, seed=args.seed, kind="bid", mode="games", threads=args.threads
        )
        seconds = time.perf_counter() - start
        assert result.wins is not None
        rows.append(
            {
                "A": a, "B": b, "games": 2 * args.games,
                "deals": int(result.paired.shape[0]),
                "A won": f"{result.wins.value:.1%}",
                "95% interval": f"{result.wins.low:.1%} - {result.wins.high:.1%}",
                "A's margin a hand": f"{result.margin.value:+.1f} ({result.margin.low:+.1f}, "
                f"{result.margin.high:+.1f})",
                "A's nils made": "-" if result.nils_made is None
                else f"{result.nils_made.value:.1%} of {result.nils_made.n}",
                "seconds": round(seconds),
            }
        )  # fmt: skip
        print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    print("| " + " | ".join(frame.columns) + " |")
    print("|" + "---|" * len(frame.columns))
    for row in frame.itertuples(index=False):
        print("| " + " | ".join(str(v) for v in row) + " |")


if __name__ == "__main__":
    main()
