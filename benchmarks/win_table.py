"""Time the win table: simulating the games, then solving the layer of 0-0.

    python benchmarks/win_table.py [--games 3000] [--target 500]

Prints the seconds of each stage (warm: run it twice; the first run compiles), the
distinct outcomes, the sweeps, and the chance to win from a few states.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spades_sim.odds.equity import win_table
from spades_sim.rules import Rules


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3_000)
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules(target=args.target)
    t0 = time.perf_counter()
    table = win_table(rules, games=args.games, seed=args.seed, cache=False)
    t1 = time.perf_counter()
    states = np.array([[0, 0], [args.target - 50, args.target - 200], [-100, 100]])
    wins = table.win(states, np.zeros_like(states), 0)
    t2 = time.perf_counter()
    print(f"{table!r}")
    print(f"simulate {t1 - t0:.1f} s, solve one layer {t2 - t1:.1f} s ({table.sweeps} sweeps)")
    for s, w in zip(states.tolist(), wins.tolist(), strict=True):
        print(f"  {s[0]}-{s[1]}, N deals: N-S wins {w:.3f}")


if __name__ == "__main__":
    main()
