"""Kernel throughput against the pure-Python reference engine, in one run.

Prints hands per second of the kernel (deal, bids, 13 tricks, score, the per-seat output
columns) on 1 thread and on all threads, and of the reference engine playing the same
deals (same held hands, dealer and bids; play and scoring), with the ratio, as medians of
several runs, and the process's peak memory.

    python benchmarks/throughput.py                       # random play, count bidding
    python benchmarks/throughput.py --play heuristic --hands 1000000
    python benchmarks/throughput.py --rules two-player --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import time

import numba

from spades_sim import reference
from spades_sim.rules import Rules
from spades_sim.run.chunks import run_chunk
from spades_sim.simulate import RunSpec, record_hands
from spades_sim.threads import kernel_threads


def kernel_rate(spec: RunSpec, hands: int, runs: int, threads: int) -> tuple[float, float]:
    """Median hands/s of the kernel over ``runs`` runs of ``hands`` hands, by wall clock
    and by this process's CPU time (the latter is robust to other load on a shared
    machine; with one thread it is the per-core rate)."""
    wall, cpu = [], []
    with kernel_threads(threads):
        run_chunk(spec, 0, 0, 256)  # compile or load from cache
        for _ in range(runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            run_chunk(spec, 0, 0, hands)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return hands / statistics.median(wall), hands / statistics.median(cpu)


def reference_rate(spec: RunSpec, hands: int, runs: int) -> float:
    """Median hands/s of the reference engine playing the kernel's first deals at random."""
    rules = spec.rules
    chunk = record_hands(hands, seed=spec.seed, rules=rules, bidding=spec.bidding[0])
    players = rules.players
    deals = []
    for i in range(hands):
        rows = slice(i * players, (i + 1) * players)
        held = [int(x) for x in chunk.hands["hand"][rows]]
        bids = [int(x) for x in chunk.hands["bid"][rows]]
        blind = [s for s in range(players) if chunk.hands["blind_nil"][rows][s]]
        deals.append((held, int(chunk.hands["dealer"][rows.start]), bids, blind))
    rng = random.Random(spec.seed)

    def choose(seat: int, hand: int, legal: int, trick: tuple[int, ...]) -> int:
        cards = [c for c in range(54) if legal >> c & 1]
        return rng.choice(cards)

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for held, dealer, bids, blind in deals:
            reference.play_out(held, dealer, bids, rules, choose, blind_nil=blind)
        times.append(time.perf_counter() - start)
    return hands / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000_000, help="hands per kernel run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--reference-hands", type=int, default=3000)
    parser.add_argument("--rules", default="standard", help="rules preset")
    parser.add_argument("--bidding", default="count")
    parser.add_argument("--play", default="random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON line only")
    args = parser.parse_args()

    spec = RunSpec.build(
        seed=args.seed, rules=Rules.preset(args.rules), bidding=args.bidding, play=args.play
    )
    all_threads = numba.config.NUMBA_NUM_THREADS
    one, one_cpu = kernel_rate(spec, args.hands, args.runs, 1)
    many, _ = kernel_rate(spec, args.hands, args.runs, all_threads)
    ref = reference_rate(spec, args.reference_hands, max(1, args.runs // 2))
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {
        "rules": args.rules,
        "bidding": args.bidding,
        "play": args.play,
        "hands_per_run": args.hands,
        "runs": args.runs,
        "kernel_1_thread_hands_per_s": round(one),
        "kernel_1_thread_hands_per_cpu_s": round(one_cpu),
        f"kernel_{all_threads}_threads_hands_per_s": round(many),
        "reference_hands_per_s": round(ref),
        "kernel_1_thread_over_reference": round(one / ref, 1),
        "load_average_1min": os.getloadavg()[0],
        "peak_rss_mib": round(peak_mib),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"rules={args.rules} bidding={args.bidding} play={args.play} (median of {args.runs})")
    print(f"  kernel, 1 thread      {one:>14,.0f} hands/s ({one_cpu:,.0f} per CPU second)")
    print(f"  kernel, {all_threads} threads     {many:>14,.0f} hands/s")
    print(f"  reference (Python)    {ref:>14,.0f} hands/s  (same deals: play and score)")
    print(f"  ratio 1 thread / ref  {one / ref:>14,.0f}x")
    print(f"  peak memory           {peak_mib:>14,.0f} MiB")
    print(f"  load average (1 min)  {os.getloadavg()[0]:>14.2f}  (2 cores; above ~1 is other load)")


if __name__ == "__main__":
    main()
