"""Time the win table: simulating the games, then solving the layer of 0-0.

    python benchmarks/win_table.py [--games 3000] [--target 500]

Prints the seconds of each stage (warm: run it twice; the first run compiles), the
distinct outcomes, the sweeps, and the chance to win from a few states.

    python benchmarks/win_table.py --ship

builds (or reads from the cache) the standard game's table as ``advise`` uses it (every
seat ``count`` and ``heuristic``, 20,000 games, seed 0), solves its layer of 0-0, and
writes it into the package (``spades_sim/odds/tables/``, quantised, the other files there
removed), so a first ``advise`` reads it instead of solving; run it when
``tests/test_equity.py``'s shipped-table test says the policies now play other games.
With ``--race`` it also prints the race model's fit to that table (the ``advise``
bidder's ``race_mean``, ``race_sd``, ``race_bags``) and its error.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spades_sim.odds.equity import QUANTUM, SHIPPED, race_fit, win_table
from spades_sim.rules import Rules


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3_000)
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ship", action="store_true", help="ship the standard table's layer")
    parser.add_argument("--race", action="store_true", help="with --ship: the race model's fit")
    args = parser.parse_args()
    if args.ship:
        ship(args.race)
        return
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


def ship(race: bool) -> None:
    """Write the standard table's solved layer of 0-0 into the package."""
    table = win_table()
    table.win([[0, 0]], [[0, 0]], 0, nearest=True)  # solve (or read) the layer of 0-0
    assert table.path is not None
    SHIPPED.mkdir(exist_ok=True)
    for old in SHIPPED.glob("*.npz"):
        old.unlink()
    layers = {
        f"layer_{a}_{b}": np.round(values * QUANTUM).astype(np.uint16)
        for (a, b), values in table.solved_layers().items()
    }
    np.savez_compressed(SHIPPED / table.path.name, **layers)
    size = (SHIPPED / table.path.name).stat().st_size
    print(f"{table!r}: wrote {SHIPPED / table.path.name} ({size / 1e6:.1f} MB)")
    if race:
        print(race_fit(table))


if __name__ == "__main__":
    main()
