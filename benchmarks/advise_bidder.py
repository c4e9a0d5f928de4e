"""The score-aware bidder ``advise`` against ``count`` in duplicate games, and where its
wins come from.

Three duplicate comparisons in games to 500 under the standard rules, every seat playing
``heuristic`` (the same deals both ways round, ``spades_sim.analysis.duplicate``):

1. ``advise`` (win objective) against ``count``: the whole gain;
2. ``advise:objective=0`` (the most points a hand) against ``count``: what bidding each
   hand by its completions gains, blind to the score;
3. ``advise`` against ``advise:objective=0``: what reading the score adds.

For each: games won by A with the 95% interval, deals played, A's mean margin a hand,
and the share of A's nils made; then how ``advise`` and ``count`` bid against each other
(nils, contracts made, bags, penalties; in all hands and in the end game). Prints Markdown
tables (``--habits``: only the second)::

    nice python benchmarks/advise_bidder.py --games 1000 --n 32
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from spades_sim import simulate_games
from spades_sim.analysis import duplicate


def habits(bidder: str, games: int, seed: int, threads: int | None) -> pd.DataFrame:
    """How ``bidder`` (N-S) and ``count`` (E-W) bid in games against each other: nils,
    contracts made, bags, penalties; overall and in the end game (either side at 400 or
    more before the hand)."""
    hands, table = simulate_games(games, seed=seed, bidding=(bidder, "count"), threads=threads)
    top = hands.groupby(["game", "hand_no"]).score_before.transform("max")
    rows = []
    for label, part in (("all hands", hands), ("end game (a side at 400+)", hands[top >= 400])):
        for side, name in ((0, bidder), (1, "count")):
            mine = part[part.side == side]
            sides = mine[mine.seat == side]
            nils = mine[mine.nil | mine.blind_nil]
            numbers = sides[sides.side_contract > 0]
            rows.append(
                {
                    "hands": label, "bidder": name, "seat bids": len(mine),
                    "nil a bid": f"{len(nils) / max(len(mine), 1):.1%}",
                    "nils made": f"{nils.nil_made.mean():.1%}" if len(nils) else "-",
                    "mean number bid": f"{mine[mine.bid > 0].bid.mean():.2f}",
                    "contracts made": f"{numbers.made.mean():.1%}",
                    "bags a hand": f"{sides.bags_change.mean():.2f}",
                    "penalty points a hand": f"{sides.bag_penalty.mean():.1f}",
                }
            )  # fmt: skip
    wins = (table.winner == 0).mean()
    print(f"{bidder} (N-S) against count (E-W), {games} games: N-S won {wins:.1%}")
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games a seating")
    parser.add_argument("--n", type=int, default=32, help="the advise bidder's completions")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--habits", action="store_true", help="only the bidding habits")
    args = parser.parse_args()
    win = f"advise:n={args.n}"
    if args.habits:
        print(markdown(habits(win, args.games, args.seed, args.threads)))
        return
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
    print(markdown(pd.DataFrame(rows)))
    print(markdown(habits(win, args.games, args.seed, args.threads)))


if __name__ == "__main__":
    main()
