"""How fast ``pimc`` plays, and how its strength grows with ``worlds``.

Prints:

(a) speed: every seat playing ``pimc:worlds=W`` (``early_worlds`` and ``early_tricks``
    at their defaults), bidding ``count``, for each W of ``--worlds``, on one thread and
    on ``--threads``: hands per second and decisions per second (52 plays a hand; a
    decision with one distinct card is played without search and counts all the same),
    by wall clock after a warm-up run that compiles or loads the kernels; the process's
    peak resident memory at the end. With ``--solve-from 0,4,6`` each W is timed at each
    ``solve_from`` (the tricks before it played by ``lookahead``'s card), and ``--rounds``
    repeats the table on fresh deals, the settings alternated within a round;
(c) with ``--profile``: where a hand's time goes. Four ``pimc`` seats play ``--hands``
    hands through ``spades_sim.env.table.Table`` (count bidding), each decision timed
    around ``pimc_decide_nb``, the call the kernels make: milliseconds a hand by trick,
    and for the first tricks by position in the trick (one thread);
(b) strength: ``pimc:worlds=W`` against ``--against`` (default ``heuristic``) in
    duplicate (``duplicate``: the same deals twice, sides swapped, both sides bidding
    ``count``), the pimc side's mean score margin per hand with its 95% interval, for each
    W of ``--strength-worlds`` and each ``solve_from`` of ``--strength-solve-from`` over
    ``--boards`` deals.

Run from the repository root: ``python benchmarks/pimc.py`` (``--quick`` is a smoke
run). The first run in a fresh cache compiles the solver and the kernels (about three
minutes on a two-core machine).
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from spades_sim.analysis import duplicate  # noqa: E402
from spades_sim.simulate import simulate_hands  # noqa: E402


def speed(
    worlds: int, hands: int, threads: int, seed: int, solve_from: int = 0
) -> tuple[float, float]:
    """(hands per second, decisions per second) with every seat on pimc."""
    play = f"pimc:worlds={worlds},solve_from={solve_from}"
    start = time.perf_counter()
    simulate_hands(hands, seed=seed, play=play, threads=threads)
    seconds = time.perf_counter() - start
    return hands / seconds, 52 * hands / seconds


def profile(worlds: int, hands: int, seed: int) -> None:
    """Milliseconds a hand by trick (and by position in the first tricks' tricks)."""
    # the kernels and the table are needed by this mode only
    from spades_sim._nb import pimc
    from spades_sim._nb.enums import InfoSlot
    from spades_sim.env.table import Table, TableConfig
    from spades_sim.policies import parse_policy

    config = TableConfig()
    table = Table(config, agents=[0, 1, 2, 3], bids=False)
    rules = config.rules.lower()
    params = parse_policy(f"pimc:worlds={worlds}", "play").lower()
    ms = np.zeros((13, 4))
    n = np.zeros((13, 4))
    for h in range(-1, hands):  # hand -1 compiles or loads the kernels
        table.reset(seed, max(h, 0) + (1000 if h < 0 else 0))
        k = 0
        while table.decision == "card":
            seat = table.to_act
            info = table.info.copy()
            hand = np.uint64(table.hands_at_play()[seat] & ~int(info[InfoSlot.played]))
            legal = np.uint64(sum(1 << int(c) for c in np.flatnonzero(table.legal_mask()[:56])))
            t0 = time.perf_counter()
            card = pimc.pimc_decide_nb(
                hand, legal, seat, info, rules, params, np.uint64(seed * 7919 + h * 64 + k)
            )
            if h >= 0:
                t, j = int(info[InfoSlot.trick]), int(info[InfoSlot.n_in_trick])
                ms[t, j] += (time.perf_counter() - t0) * 1e3
                n[t, j] += 1
            table.apply(int(card))
            k += 1
    total = ms.sum() / hands
    print(f"\n(c) profile: pimc:worlds={worlds}, {hands} hands, seed {seed}, one thread")
    print(f"{total:.0f} ms a hand ({1e3 / total:.2f} hands/s); by trick, ms a hand (share):")
    for t in range(13):
        row = ms[t].sum() / hands
        by_pos = "  ".join(f"{ms[t, j] / max(n[t, j], 1):6.1f}" for j in range(4))
        share = row / total
        print(f"trick {t + 1:2d}: {row:7.1f} ({share:4.0%})  ms a decision by position {by_pos}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", default="4,8,16", help="worlds for the speed table")
    parser.add_argument("--hands", type=int, default=4, help="hands per speed measurement")
    parser.add_argument("--threads", type=int, default=2, help="threads of the second column")
    parser.add_argument("--solve-from", default="0", help="solve_from values for the speed table")
    parser.add_argument("--rounds", type=int, default=1, help="speed rounds, settings alternated")
    parser.add_argument("--strength-worlds", default="4,8", help="worlds for the strength table")
    parser.add_argument("--boards", type=int, default=40, help="deals per duplicate match")
    parser.add_argument("--against", default="heuristic", help="the strength table's opponent")
    parser.add_argument("--strength-solve-from", default="0", help="solve_from values, strength")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--profile", action="store_true", help="(c): time by trick and position")
    args = parser.parse_args(argv)
    if args.quick:
        args.worlds, args.hands, args.strength_worlds, args.boards = "2", 1, "2", 2
    print(f"python {platform.python_version()} on {platform.machine()}", flush=True)
    simulate_hands(1, seed=0, play="pimc:worlds=1,early_worlds=1")  # compile or load
    if not args.skip_speed:
        print("\n(a) speed: four pimc seats, count bidding (hands/s, decisions/s)")
        head = f"{'worlds':>6} {'solve_from':>10}"
        print(f"{head} | {'1 thread':>20} | {f'{args.threads} threads':>20}")
        solve_from = [int(x) for x in args.solve_from.split(",")]
        for r in range(args.rounds):  # rounds alternate the settings, so load drifts hit all
            for w in (int(x) for x in args.worlds.split(",")):
                for k in solve_from:
                    seed = args.seed + 1000 * r
                    one = speed(w, args.hands, 1, seed, k)
                    many = speed(w, args.hands, args.threads, seed, k)
                    print(
                        f"{w:>6} {k:>10} | {one[0]:8.3f} {one[1]:10.1f}  | "
                        f"{many[0]:8.3f} {many[1]:10.1f}",
                        flush=True,
                    )
    if args.profile:
        profile(int(args.worlds.split(",")[-1]), args.hands, args.seed)
    if not args.skip_strength:
        print(f"\n(b) strength: pimc against {args.against}, duplicate, {args.boards} deals")
        for w in (int(x) for x in args.strength_worlds.split(",")):
            for k in (int(x) for x in args.strength_solve_from.split(",")):
                start = time.perf_counter()
                result = duplicate(
                    f"pimc:worlds={w},solve_from={k}", args.against, args.boards,
                    seed=args.seed, threads=args.threads,
                )  # fmt: skip
                m = result.margin
                print(
                    f"worlds={w:<4} solve_from={k:<2} margin {m.value:+7.1f} points/hand "
                    f"[{m.low:+.1f}, {m.high:+.1f}] (n={m.n}; "
                    f"{time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
