"""What reading the bids costs the sampling players, and whether it pays.

Prints:

(a) fit: at the decisions of ``--hands`` recorded hands (``record_hands``: count bidding,
    heuristic play; the seat to play after 0, 1, 4, 9, 17, 22, 30, 37 and 45 cards), the
    worlds of ``pimc`` and ``lookahead`` (8 a decision) drawn with each ``fit_tries`` of
    ``--tries``: the share of relaxed worlds (none of the draws fitted the bids), the
    misfits of the worlds kept, and the sampler's time a decision (0 tries: bid-blind);
(b) speed: hands per second with every seat on ``lookahead`` (``--speed-hands`` hands,
    one thread), bid-blind and bid-reading, after a warm-up;
(c) strength: ``lookahead:read_bids=1`` against ``lookahead:read_bids=0`` in duplicate
    over ``--boards`` deals (both sides bidding ``count``), the reading side's mean
    score margin a hand with its 95% interval; with ``--pimc N`` the same for ``pimc``
    over N deals (minutes: every seat solves);
(d) with ``--assume N``: ``lookahead:assume=2`` against ``lookahead:assume=0`` in duplicate
    over N deals with every seat bidding ``partner-aware``: whether telling the player
    which bidder is seated (``assume=2``: partner-aware) pays over assuming ``count``.

Run from the repository root: ``python benchmarks/worlds.py`` (``--quick``: a smoke run).
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

from spades_sim._nb import pimc, rollout  # noqa: E402
from spades_sim._nb.enums import N_INFO, InfoSlot  # noqa: E402
from spades_sim.analysis import duplicate  # noqa: E402
from spades_sim.rules import Rules  # noqa: E402
from spades_sim.simulate import record_hands, simulate_hands  # noqa: E402

POINTS = (0, 1, 4, 9, 17, 22, 30, 37, 45)
WORLDS = 8


def decisions(
    hands: int, seed: int, bidding: str = "count"
) -> list[tuple[np.uint64, int, np.ndarray]]:
    """(hand, seat, info) of the seat to play at ``POINTS`` of recorded hands (``bidding``
    bidding, heuristic play)."""
    chunk = record_hands(hands, seed=seed, bidding=bidding, play="heuristic")
    out = []
    for i in range(hands):
        dealt = [int(x) for x in chunk.plays["dealt"][i]]
        plays = [int(c) for c in chunk.plays["plays"][i]]
        dealer = int(chunk.hands["dealer"][4 * i])
        for d in POINTS:
            info = np.zeros(N_INFO, dtype=np.int64)
            info[InfoSlot.players], info[InfoSlot.sides], info[InfoSlot.dealer] = 4, 2, dealer
            info[InfoSlot.first_to_act] = (dealer + 1) % 4
            for s in range(4):
                info[InfoSlot.bids + s] = chunk.hands["bid"][4 * i + s]
                info[InfoSlot.nil + s] = chunk.hands["nil"][4 * i + s]
            held = list(dealt)
            leader = next(s for s in range(4) if dealt[s] >> plays[0] & 1)
            trick: list[int] = []
            win = led = best = -1
            for card in plays[:d]:
                seat = (leader + len(trick)) % 4
                suit = min(card // 13, 3)
                if not trick:
                    led, win, best = suit, seat, card
                else:
                    if suit != led:
                        info[InfoSlot.voids + seat] |= 1 << led
                    if card > best and (suit == led or card >= 39):
                        win, best = seat, card
                held[seat] &= ~(1 << card)
                info[InfoSlot.played_by + seat] |= 1 << card
                info[InfoSlot.played] |= 1 << card
                trick.append(card)
                if len(trick) == 4:
                    info[InfoSlot.tricks_won + win] += 1
                    leader, trick = win, []
            info[InfoSlot.trick] = d // 4
            info[InfoSlot.leader], info[InfoSlot.n_in_trick] = leader, len(trick)
            seat = (leader + len(trick)) % 4
            out.append((np.uint64(held[seat]), seat, info))
    return out


def fit_table(states, tries_list: list[int]) -> None:
    rules = Rules().lower()
    worlds = np.zeros((WORLDS, 4), dtype=np.uint64)
    misfits = np.zeros(WORLDS, dtype=np.int64)
    print("sampler    fit_tries  relaxed worlds  misfit 0/1/2/3+   ms a decision")
    for name, draw in (("pimc", pimc.pimc_worlds_nb), ("lookahead", rollout.lookahead_worlds_nb)):
        for tries in tries_list:
            hand, seat, info = states[0]
            draw(hand, seat, info, rules, tries, np.uint64(1), worlds, misfits)  # compile
            counts = np.zeros(4, dtype=np.int64)
            relaxed = 0
            start = time.perf_counter()
            for j, (hand, seat, info) in enumerate(states):
                relaxed += draw(hand, seat, info, rules, tries, np.uint64(j + 7), worlds, misfits)
                for m in misfits:
                    counts[min(int(m), 3)] += 1
            ms = (time.perf_counter() - start) / len(states) * 1e3
            n = len(states) * WORLDS
            print(
                f"{name:10} {tries:9}  {relaxed:5}/{n} {relaxed / n:6.1%}  "
                f"{'/'.join(str(int(c)) for c in counts):16}  {ms:.3f}",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="recorded hands for the fit table")
    parser.add_argument("--tries", default="0,64,256,1024", help="fit_tries of the fit table")
    parser.add_argument("--speed-hands", type=int, default=300)
    parser.add_argument("--boards", type=int, default=6000, help="deals of the lookahead match")
    parser.add_argument("--pimc", type=int, default=0, help="deals of the pimc match (0: none)")
    parser.add_argument("--assume", type=int, default=0, help="deals of the assume match")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.speed_hands, args.boards, args.pimc = 4, 4, 4, 0
    print(f"python {platform.python_version()} on {platform.machine()}", flush=True)
    fit_table(decisions(args.hands, args.seed + 1), [int(t) for t in args.tries.split(",")])
    simulate_hands(4, seed=1, play="lookahead:read_bids=1", threads=1)  # warm-up
    for read in (0, 1):
        start = time.perf_counter()
        simulate_hands(args.speed_hands, seed=3, play=f"lookahead:read_bids={read}", threads=1)
        rate = args.speed_hands / (time.perf_counter() - start)
        print(f"lookahead:read_bids={read}: {rate:.1f} hands/s (every seat, one thread)")
    matches = [("lookahead", args.boards)] + ([("pimc", args.pimc)] if args.pimc else [])
    for player, boards in [(p, b) for p, b in matches if b]:
        start = time.perf_counter()
        r = duplicate(f"{player}:read_bids=1", f"{player}:read_bids=0", boards, seed=args.seed,
                      threads=args.threads)  # fmt: skip
        print(
            f"{player}:read_bids=1 vs {player}:read_bids=0, duplicate: {r.margin} points a hand "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    if args.assume:
        start = time.perf_counter()
        r = duplicate("lookahead:assume=2", "lookahead:assume=0", args.assume, seed=args.seed,
                      bidding="partner-aware", threads=args.threads)  # fmt: skip
        print(
            f"lookahead:assume=2 vs lookahead:assume=0, every seat bidding partner-aware, "
            f"duplicate: {r.margin} points a hand ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
