"""Whether reading the bids by the bidders seated at the table pays, and what it costs.

The sampling players' default ``assume=3`` reads each other seat's bids by the bidder
seated there, with its parameters; ``assume=0`` reads every seat as ``count`` at its
defaults. With ``count`` seated at its defaults the two are the same run, so the
comparison is made with other bidders seated (``--bidding``, default ``pagat`` on both
sides). Prints:

(a) fit: at the decisions of ``--hands`` recorded hands (``--bidding`` bidding, heuristic
    play; the seat to play after 0 .. 45 cards), ``pimc``'s worlds (8 a decision, 256
    tries) drawn against the seated bidders and against ``count``: the share of relaxed
    worlds and the sampler's time a decision (alternated, ``--repeats`` times);
(b) speed: hands a second with every seat on ``pimc`` (``--speed-hands`` hands, one
    thread), ``assume=3`` and ``assume=0`` alternated;
(c) strength: ``pimc`` (``assume=3``) against ``pimc:assume=0`` in duplicate over
    ``--boards`` deals at ``--seed``, every seat bidding ``--bidding``: the first's mean
    score margin a hand with its 95% interval.

Run from the repository root: ``python benchmarks/seated.py`` (``--quick``: a smoke run).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

from worlds import decisions  # noqa: E402  (benchmarks/worlds.py)

from spades_sim._nb import rollout  # noqa: E402
from spades_sim._nb.enums import ParamRow  # noqa: E402
from spades_sim.analysis import duplicate  # noqa: E402
from spades_sim.rules import Rules  # noqa: E402
from spades_sim.run.spec import RunSpec  # noqa: E402
from spades_sim.simulate import simulate_hands  # noqa: E402

WORLDS = 8
TRIES = 256


def fit_table(states, bidding: str, repeats: int) -> None:
    rules = Rules().lower()
    row = RunSpec.build(seed=0, bidding=bidding, play="pimc").params()[ParamRow.play]
    worlds = np.zeros((WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(WORLDS, dtype=np.int64)
    times: dict[int, list[float]] = {3: [], 0: []}
    relaxed = dict.fromkeys(times, 0)
    for rep in range(repeats):
        for assume in times:
            assumed = rollout.assumed_rows_nb(row, np.int64(assume))
            start = time.perf_counter()
            got = 0
            for j, (hand, seat, info) in enumerate(states):
                got += rollout.fitted_worlds_nb(
                    np.int64(rollout.SAMPLE_WORLD), hand, seat, info, rules, assumed, TRIES,
                    np.uint64(j + 7), worlds, misfits,
                )  # fmt: skip
            times[assume].append((time.perf_counter() - start) / len(states) * 1e3)
            if rep == 0:
                relaxed[assume] = got
    n = len(states) * WORLDS
    for assume in times:
        ms = " ".join(f"{t:.2f}" for t in times[assume])
        print(
            f"pimc sampler, assume={assume}: {relaxed[assume]}/{n} relaxed "
            f"({relaxed[assume] / n:.1%}); ms a decision: {ms}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bidding", default="pagat")
    parser.add_argument("--hands", type=int, default=40, help="recorded hands for the fit table")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--speed-hands", type=int, default=24)
    parser.add_argument("--boards", type=int, default=400, help="deals of the match")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=70)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.repeats, args.speed_hands, args.boards = 4, 1, 2, 4
    print(f"python {platform.python_version()} on {platform.machine()}", flush=True)
    fit_table(decisions(args.hands, args.seed + 1, args.bidding), args.bidding, args.repeats)
    simulate_hands(2, seed=1, bidding=args.bidding, play="pimc", threads=1)  # warm-up
    for _ in range(args.repeats):
        for assume in (3, 0):
            start = time.perf_counter()
            simulate_hands(args.speed_hands, seed=3, bidding=args.bidding,
                           play=f"pimc:assume={assume}", threads=1)  # fmt: skip
            rate = args.speed_hands / (time.perf_counter() - start)
            print(f"pimc:assume={assume}: {rate:.2f} hands/s (every seat, one thread)", flush=True)
    if args.boards:
        start = time.perf_counter()
        r = duplicate("pimc", "pimc:assume=0", args.boards, seed=args.seed,
                      bidding=args.bidding, threads=args.threads)  # fmt: skip
        print(
            f"pimc (assume=3) vs pimc:assume=0, every seat bidding {args.bidding}, duplicate "
            f"n={r.margin.n}: {r.margin} points a hand ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
