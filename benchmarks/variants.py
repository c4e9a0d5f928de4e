"""Hands per second of rule variants against the standard game, in one run.

Each preset simulates ``--hands`` independent hands (``simulate_hands``) and ``--games``
whole games (``simulate_games``, hands/s over the hands the games played) with the
default policies (``count`` bidding, ``heuristic`` play), warm (every kernel compiled
before timing), the presets alternated round by round; prints the median of
``--rounds`` rounds and each preset's ratio to the first.

    python benchmarks/variants.py                          # standard against cutthroat-4
    python benchmarks/variants.py --presets standard,jokers,cutthroat-4 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from spades_sim import Rules, simulate_games, simulate_hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="standard,cutthroat-4")
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--games", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    rules = {p: Rules.preset(p) for p in presets}
    for p in presets:  # compile every kernel before timing
        simulate_hands(2_000, seed=0, rules=rules[p])
        simulate_games(20, seed=0, rules=rules[p])
    hands: dict[str, list[float]] = {p: [] for p in presets}
    games: dict[str, list[float]] = {p: [] for p in presets}
    for r in range(args.rounds):
        for p in presets:
            t = time.perf_counter()
            simulate_hands(args.hands, seed=r, rules=rules[p])
            hands[p].append(args.hands / (time.perf_counter() - t))
            t = time.perf_counter()
            _, table = simulate_games(args.games, seed=r, rules=rules[p])
            games[p].append(int(table["hands"].sum()) / (time.perf_counter() - t))
    base_h = statistics.median(hands[presets[0]])
    base_g = statistics.median(games[presets[0]])
    print("| preset | hands mode, hands/s | ratio | games mode, hands/s | ratio |")
    print("|---|---|---|---|---|")
    for p in presets:
        h, g = statistics.median(hands[p]), statistics.median(games[p])
        print(f"| `{p}` | {h:,.0f} | {h / base_h:.2f} | {g:,.0f} | {g / base_g:.2f} |")


if __name__ == "__main__":
    main()
