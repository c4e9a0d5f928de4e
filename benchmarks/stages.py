"""Where a hand's time goes in the four-player lock-step kernel, stage by stage.

Runs the stages of ``loop.lockstep_blocks_nb`` on batches of 64 deals into reused output
arrays (so no page faults are counted), 1 thread: the preparation alone (the deal, the
blind nil decisions and bids, the table set-up; ``prepare.prepare_lanes_four_nb``), then
with the 52 plays, then with the scoring and the rows (``loop.finish_lanes_four_nb``).
The differences are each stage's CPU time per hand; medians of ``--rounds``. Then the deal
and the bids on their own: ``deal.deal_lanes_four_nb`` against 64 calls of the one-deal
``deal_four_nb``, and ``lockstep_bidding.bid_lanes_four_nb`` per bidder.

    python benchmarks/stages.py                      # 1,000,000 hands, 3 rounds
    python benchmarks/stages.py --hands 4000000 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from spades_sim._nb import loop
from spades_sim._nb.deal import deal_four_nb, deal_lanes_four_nb, deck_cards_nb
from spades_sim._nb.enums import (
    LANES,
    N_DEAL_LANE_FIELDS,
    N_HEURISTIC_FIELDS,
    N_INFO,
    N_MASKS,
    N_OUT_I8,
    N_OUT_I32,
    DealLane,
)
from spades_sim._nb.lockstep_bidding import bid_lanes_four_nb
from spades_sim._nb.prepare import prepare_lanes_four_nb
from spades_sim.run.spec import RunSpec

PAIRS = (("count", "random"), ("random", "random"), ("count", "heuristic"))
BIDDERS = ("count", "pagat", "partner-aware", "random")


@njit
def _stages(stage, blocks, rules, params, out_hand, out_i8, out_i32, out_errors, heuristic):
    scratch = loop.new_scratch_nb(rules)
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    lanes = np.zeros(N_DEAL_LANE_FIELDS * LANES, dtype=np.int64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    seed = np.int64(1)
    for block in range(blocks):
        lo = block * LANES
        prepare_lanes_four_nb(
            rules, scratch, seed, 0, lo, lo + LANES, params, infos, masks, lanes, st, out_errors
        )
        if stage >= 1:
            if heuristic:
                loop.play_heuristic_lanes_nb(st, rules, params)
            else:
                loop.play_random_lanes_nb(st, rules, params)
        if stage >= 2:
            loop.finish_lanes_four_nb(
                rules, 0, lo, lo + LANES, lanes, st, out_hand, out_i8, out_i32
            )


@njit
def _deal_one_at_a_time(reps, scratch, masks):
    for r in range(reps):
        for b in range(LANES):
            deal_four_nb(scratch, np.uint64(r * LANES + b), masks, 4)


@njit
def _deal_lanes(reps, deck, decks, swaps, keys, hands):
    for r in range(reps):
        for b in range(LANES):
            keys[b] = r * LANES + b
        deal_lanes_four_nb(deck, decks, swaps, keys, hands)


@njit
def _bid_lanes(reps, rules, params, lanes):
    for _ in range(reps):
        bid_lanes_four_nb(rules, params, lanes, -1)


def _median_ns(
    fn: Callable[..., object], args: tuple[object, ...], hands: int, rounds: int
) -> float:
    """Median CPU ns per hand of ``fn(*args)`` over ``rounds`` calls of ``hands`` hands."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn(*args)
        times.append((time.process_time() - start) / hands * 1e9)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    blocks = max(1, args.hands // LANES)
    n = blocks * LANES
    out_hand = np.empty(4 * n, np.uint64)
    out_i8 = np.empty((N_OUT_I8, 4 * n), np.int8)
    out_i32 = np.empty((N_OUT_I32, 4 * n), np.int32)
    out_errors = np.empty(n, np.int8)
    print(f"CPU ns per hand, 1 thread, medians of {args.rounds} rounds of {n:,} hands\n")
    print("| bidding + play | prepare | 52 plays | scoring and rows | total |")
    print("|---|---|---|---|---|")
    for bidding, play in PAIRS:
        spec = RunSpec.build(seed=1, bidding=bidding, play=play)
        rules, params = spec.rules.lower(), spec.params()
        heuristic = play == "heuristic"
        outs = (out_hand, out_i8, out_i32, out_errors, heuristic)
        for stage in (0, 1, 2):  # compile, and touch the outputs once
            _stages(stage, blocks, rules, params, *outs)
        times: list[list[float]] = [[], [], []]
        for _ in range(args.rounds):  # the stages take turns, so load hits them alike
            for stage in (0, 1, 2):
                times[stage].append(
                    _median_ns(_stages, (stage, blocks, rules, params, *outs), n, 1)
                )
        cost = [statistics.median(t) for t in times]
        print(
            f"| {bidding} + {play} | {cost[0]:.0f} | {cost[1] - cost[0]:.0f} | "
            f"{cost[2] - cost[1]:.0f} | {cost[2]:.0f} |"
        )
    reps = max(1, n // LANES)
    scratch = np.zeros(104, np.uint8)
    scratch[52:] = deck_cards_nb(0)
    deck = deck_cards_nb(0)
    decks, swaps = np.zeros(52 * LANES, np.uint8), np.zeros(52 * LANES, np.uint8)
    keys, hands = np.zeros(LANES, np.int64), np.zeros(4 * LANES, np.int64)
    masks = np.zeros(N_MASKS, np.uint64)
    _deal_one_at_a_time(1, scratch, masks)
    _deal_lanes(1, deck, decks, swaps, keys, hands)
    one = _median_ns(_deal_one_at_a_time, (reps, scratch, masks), n, args.rounds)
    lanes_ns = _median_ns(_deal_lanes, (reps, deck, decks, swaps, keys, hands), n, args.rounds)
    print(f"\ndeal: {lanes_ns:.0f} ns in lock-step, {one:.0f} ns one deal at a time")
    lanes = np.zeros(N_DEAL_LANE_FIELDS * LANES, np.int64)
    lanes[DealLane.hands * LANES : (DealLane.hands + 4) * LANES] = hands
    lanes[DealLane.key * LANES : (DealLane.key + 1) * LANES] = np.arange(LANES)
    lanes[DealLane.first * LANES : (DealLane.first + 1) * LANES] = np.arange(LANES) & 3
    for bidding in BIDDERS:
        spec = RunSpec.build(seed=1, bidding=bidding)
        rules, params = spec.rules.lower(), spec.params()
        _bid_lanes(1, rules, params, lanes)
        cost_ns = _median_ns(_bid_lanes, (reps, rules, params, lanes), n, args.rounds)
        print(f"four {bidding} bids: {cost_ns:.0f} ns")


if __name__ == "__main__":
    main()
