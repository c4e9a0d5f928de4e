"""The realism table: how the simulated tables bid and play nil, beside published figures.

Measures one set of policies (``--bidding``/``--play``, the package's defaults unless
given) on the four-player standard table:

- from ``simulate_games(--games, seed=--games-seed)``: nil per seat and per side-hand,
  blind nil per seat, bags per side-hand, hands per game;
- from ``simulate_hands(--hands, seed=--hands-seed)``: nils made overall and by the
  highest spade held (``spades_sim.analysis.realism``);
- from the first ``--dd-nils`` nil seats of those hands, each solved double-dummy from
  its opening position (``spades_sim.solve.batch.nil_table``, the seat's nil alone): the share
  of the nils perfect defence sets that the played defence let through (the leak), and
  of the nils perfect play keeps that the played cover lost (the loss).

Prints a Markdown table (estimate and 95% interval, n) and, with ``--json FILE``, writes
the figures for the docs. Two runs (old and new defaults) side by side are the "before
and after" that docs/measurements.md shows::

    python benchmarks/realism.py --label after --json after.json
    python benchmarks/realism.py --bidding 'count:...' --play 'heuristic:...' --label before
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from spades_sim import simulate_games, simulate_hands
from spades_sim.analysis import realism
from spades_sim.analysis.stats import proportion_ci
from spades_sim.rules import Rules
from spades_sim.solve.batch import nil_table

PUBLISHED = {
    "nil_per_seat": "about 3.2% (a)",
    "nil_per_side": "3-4% (a)",
    "nil_made": "78.9% (a)",
    "nil_made_high_spade": "52.8% (a)",
    "nil_made_top_jack": "about 75% (b)",
    "nil_made_top_queen_up": "about 50% (b)",
}
SOURCES = (
    "(a) CardsWithCats' Monte Carlo bots, 1,000 games (its GitHub issue 21); (b) "
    "WorldOfCardGames' blog, \"Bidding and defending nil\" (2017), an expert's estimate"
)
ORDER = [
    "nil_per_seat",
    "nil_per_side",
    "blind_nil_per_seat",
    "nil_made",
    "nil_made_clean",
    "nil_made_high_spade",
    "nil_made_top_low",
    "nil_made_top_ten",
    "nil_made_top_jack",
    "nil_made_top_queen_up",
    "nil_unsafe_made",
    "nil_safe_lost",
    "bags_per_hand",
    "hands_per_game",
]


def double_dummy(hands: pd.DataFrame, count: int) -> dict[str, tuple[float, float, float, int]]:
    """The leak and the loss over the first ``count`` nil seats (not blind) of ``hands``."""
    rules = Rules()
    nils = hands[hands["nil"] & ~hands["blind_nil"]].head(count)
    deals = hands[hands["deal"].isin(nils["deal"])].sort_values(["deal", "seat"])
    masks = deals["hand"].to_numpy(np.uint64).reshape(-1, 4)
    dealers = deals["dealer"].to_numpy()[::4]
    by_deal = {int(d): k for k, d in enumerate(deals["deal"].to_numpy()[::4])}
    leaders = (dealers + 1) % 4  # standard rules: the dealer's left leads
    safe = np.zeros(len(nils), dtype=bool)
    for seat in range(4):
        mine = (nils["seat"] == seat).to_numpy()
        if mine.any():
            rows = [by_deal[int(d)] for d in nils["deal"].to_numpy()[mine]]
            safe[mine] = nil_table(masks[rows], leaders[rows], seat, rules=rules)
    made = nils["nil_made"].to_numpy().astype(bool)
    out = {}
    for name, chosen, hit in (
        ("nil_unsafe_made", ~safe, made),
        ("nil_safe_lost", safe, ~made),
    ):
        n = int(chosen.sum())
        e = proportion_ci(int((hit & chosen).sum()), n)
        out[name] = (e.value, e.low, e.high, n)
    return out


def measure(args: argparse.Namespace) -> dict[str, tuple[float, float, float, int]]:
    policies = {"bidding": args.bidding, "play": args.play}
    policies = {k: v for k, v in policies.items() if v}
    games = realism(simulate_games(args.games, seed=args.games_seed, **policies))
    hands = simulate_hands(args.hands, seed=args.hands_seed, **policies)
    played = realism(hands)
    figures: dict[str, tuple[float, float, float, int]] = {}
    from_games = {"nil_per_seat", "nil_per_side", "blind_nil_per_seat", "bags_per_hand",
                  "hands_per_game"}  # fmt: skip
    for table, names in ((games, from_games), (played, set(ORDER) - from_games)):
        for row in table.itertuples():
            if row.measure in names:
                figures[row.measure] = (row.estimate, row.ci_low, row.ci_high, int(row.n))
    if args.dd_nils:
        figures.update(double_dummy(hands, args.dd_nils))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bidding", help="bidding policy [default: the package's]")
    parser.add_argument("--play", help="play policy [default: the package's]")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--games-seed", type=int, default=3)
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--hands-seed", type=int, default=5)
    parser.add_argument("--dd-nils", type=int, default=400, help="nil seats solved (0: none)")
    parser.add_argument("--label", default="")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = measure(args)
    print(f"realism {args.label} ({time.perf_counter() - started:.0f} s)")
    print("| measure | estimate [95% CI] | n | published |")
    print("|---|---|---|---|")
    for name in ORDER:
        if name not in figures:
            continue
        value, low, high, n = figures[name]
        if name in ("bags_per_hand", "hands_per_game"):
            text = f"{value:.2f} [{low:.2f}, {high:.2f}]"
        else:
            text = f"{100 * value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
        print(f"| {name} | {text} | {n:,} | {PUBLISHED.get(name, '')} |")
    print(f"\nPublished: {SOURCES}.")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"label": args.label, "figures": figures, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    main()
