"""The double-dummy solver against DDS, and nil_safe and dd_table, timed.

The same random deals are solved from each leader with spades broken (so that DDS, with
spades as trump, solves the same problem): by ``spades_sim.solve.dd_tricks`` and by DDS
through endplay (``SolveBoard``, one thread, the best card only), the two timed
alternately in one run; then every card's value (``dd_cards``, the call ``pimc`` makes in
each world, against ``SolveBoard`` with ``solutions=3``) on the first ``--cards-deals``
of them, alternately too; then ``nil_safe`` from the opening position against
``dd_tricks`` from it, and ``dd_table`` on all cores (deals a second, peak memory).

The solves against DDS run on a worker thread, where the solver's kernels run on the
calling thread, so that each is also timed in CPU time of that thread (what a shared,
loaded machine does not distort); nodes are counted for both (DDS's are its trick
starts, ours every node and the trick starts apart).

    python benchmarks/solver.py --deals 1000
    python benchmarks/solver.py --deals 30 --nodes-only   # dd_tricks alone: nodes, CPU a node
"""

from __future__ import annotations

import argparse
import resource
import threading
import time

import numpy as np


def deals(n: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        perm = rng.permutation(52)
        out.append([sum(1 << int(c) for c in perm[13 * s : 13 * s + 13]) for s in range(4)])
    return out


def nodes_only(n: int, seed: int) -> None:
    """dd_tricks alone on the positions of the comparison with DDS, on a worker thread
    (CPU time of that thread), one table throughout as in ``main``."""
    from spades_sim._nb.dd import S_BOUNDS, S_HITS, S_NODES, S_PROBES
    from spades_sim.solve import Position, dd_tricks
    from spades_sim.solve.solver import thread_table

    sample = deals(n, seed)
    cpu: list[float] = []
    counts: list[np.ndarray] = []
    values: list[int] = []

    def run() -> None:
        stats = thread_table().stats
        dd_tricks(Position(sample[0], 0, spades_broken=True))  # compile outside
        before = stats.copy()
        c0 = time.thread_time()
        for hands in sample:
            for leader in range(4):
                values.append(dd_tricks(Position(hands, leader, spades_broken=True)))
        cpu.append(time.thread_time() - c0)
        counts.append(stats - before)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    d = counts[0]
    print(
        f"{4 * n} solves: nodes {d[S_NODES] / 1e6:.2f} million, trick starts "
        f"{(d[S_PROBES] + d[S_BOUNDS]) / 1e6:.3f} million (table probes "
        f"{d[S_PROBES] / 1e6:.3f} million, hits {d[S_HITS] / 1e6:.3f} million), CPU "
        f"{cpu[0]:.2f} s, {cpu[0] / d[S_NODES] * 1e9:.0f} ns a node; tricks summed "
        f"{sum(values)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--table-deals", type=int, default=None, help="dd_table deals [--deals]")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cards-deals", type=int, default=None, help="all-cards deals [--deals]")
    parser.add_argument("--skip-dds", action="store_true", help="only nil_safe and dd_table")
    parser.add_argument(
        "--nodes-only",
        action="store_true",
        help="only dd_tricks on the positions against DDS, one table, in order: total nodes, "
        "trick starts, CPU time a node (what a change to the search does, without DDS)",
    )
    args = parser.parse_args()
    if args.nodes_only:
        nodes_only(args.deals, args.seed)
        return

    import endplay._dds as _dds
    from endplay.types import Deal, Denom, Player

    from spades_sim._nb.dd import S_BOUNDS, S_NODES, S_PROBES
    from spades_sim.cards import format_hand
    from spades_sim.run import dd_table
    from spades_sim.solve import Position, dd_cards, dd_tricks, nil_safe
    from spades_sim.solve.solver import thread_table

    sample = deals(args.deals, args.seed)
    # compile (or load) the kernels outside the timings
    dd_tricks(Position(sample[0], 0, spades_broken=True))
    nil_safe(Position.start(sample[0], 3), 0)

    ours, theirs = [], []
    ours_cpu, theirs_cpu, ours_nodes, ours_starts, theirs_nodes = [], [], [], [], []
    failure: list[str] = []

    def against_dds() -> None:
        stats = thread_table().stats
        for hands in [] if args.skip_dds else sample:
            pbn = "N:" + " ".join(format_hand(h) for h in hands)
            for leader in range(4):
                pos = Position(hands, leader, spades_broken=True)
                deal = Deal(pbn, first=Player(leader), trump=Denom.spades)
                fut = _dds.futureTricks()
                c0, t0 = time.thread_time(), time.perf_counter()
                _dds.SolveBoard(deal._data, -1, 1, 0, fut, 0)
                c1, t1 = time.thread_time(), time.perf_counter()
                before = stats.copy()
                mine = dd_tricks(pos)
                c2, t2 = time.thread_time(), time.perf_counter()
                theirs.append(t1 - t0)
                ours.append(t2 - t1)
                theirs_cpu.append(c1 - c0)
                ours_cpu.append(c2 - c1)
                theirs_nodes.append(fut.nodes)
                ours_nodes.append(stats[S_NODES] - before[S_NODES])
                # trick starts that reached a bound or the table
                ours_starts.append(
                    stats[S_PROBES] + stats[S_BOUNDS] - before[S_PROBES] - before[S_BOUNDS]
                )
                if mine != fut.score[0]:
                    failure.append(f"disagreement: {pbn} leader {leader}: {mine} vs {fut.score[0]}")
                    return

    # on a worker thread the kernels run on the calling thread: its CPU time is theirs
    worker = threading.Thread(target=against_dds)
    worker.start()
    worker.join()
    if failure:
        raise SystemExit(failure[0])
    a, b = np.array(ours or [np.nan]) * 1e3, np.array(theirs or [np.nan]) * 1e3
    ac, bc = np.array(ours_cpu or [np.nan]) * 1e3, np.array(theirs_cpu or [np.nan]) * 1e3
    print(f"{len(ours)} solves ({args.deals} deals x 4 leaders, spades broken), all equal to DDS")
    print("| solver | mean ms | p99 ms | mean CPU ms | median CPU ms | mean nodes |")
    print("|---|---|---|---|---|---|")
    print(
        f"| spades_sim dd_tricks | {a.mean():.2f} | {np.percentile(a, 99):.1f} "
        f"| {ac.mean():.2f} | {np.median(ac):.2f} | {np.mean(ours_nodes or [0]):.0f} "
        f"({np.mean(ours_starts or [0]):.0f} trick starts at a bound or the table) |"
    )
    print(
        f"| DDS (endplay SolveBoard, 1 thread) | {b.mean():.2f} | {np.percentile(b, 99):.1f} "
        f"| {bc.mean():.2f} | {np.median(bc):.2f} | {np.mean(theirs_nodes or [0]):.0f} "
        "(trick starts) |"
    )
    print(
        f"ratio (ours / DDS): mean {a.mean() / b.mean():.2f}, "
        f"median of the per-solve ratios {np.median(a / b):.2f}; CPU time: mean "
        f"{ac.mean() / bc.mean():.2f}, median of the per-solve ratios "
        f"{np.median(ac / np.maximum(bc, 1e-3)):.2f}"
    )

    # every card's value: what pimc asks of the solver in each world
    ours_all, theirs_all = [], []
    n_cards = args.deals if args.cards_deals is None else args.cards_deals
    for hands in [] if args.skip_dds else sample[:n_cards]:
        pbn = "N:" + " ".join(format_hand(h) for h in hands)
        for leader in range(4):
            pos = Position(hands, leader, spades_broken=True)
            deal = Deal(pbn, first=Player(leader), trump=Denom.spades)
            fut = _dds.futureTricks()
            t0 = time.perf_counter()
            _dds.SolveBoard(deal._data, -1, 3, 0, fut, 0)
            t1 = time.perf_counter()
            mine = dd_cards(pos)
            t2 = time.perf_counter()
            theirs_all.append(t1 - t0)
            ours_all.append(t2 - t1)
            if max(mine.values()) != fut.score[0]:
                raise SystemExit(f"disagreement (all cards): {pbn} leader {leader}")
    if ours_all:
        e, f = np.array(ours_all) * 1e3, np.array(theirs_all) * 1e3
        print(f"\nevery card's value, {len(ours_all)} solves ({n_cards} deals x 4 leaders)")
        print("| solver | mean ms | median ms | p99 ms |")
        print("|---|---|---|---|")
        print(
            f"| spades_sim dd_cards | {e.mean():.2f} | {np.median(e):.2f} "
            f"| {np.percentile(e, 99):.1f} |"
        )
        print(
            f"| DDS (SolveBoard, solutions=3) | {f.mean():.2f} | {np.median(f):.2f} "
            f"| {np.percentile(f, 99):.1f} |"
        )
        print(
            f"ratio (ours / DDS): mean {e.mean() / f.mean():.2f}, "
            f"median of the per-solve ratios {np.median(e / f):.2f}\n"
        )

    opening_dd, opening_nil = [], []
    for i, hands in enumerate(sample):
        pos = Position.start(hands, i % 4)
        t0 = time.perf_counter()
        dd_tricks(pos)
        t1 = time.perf_counter()
        for seat in range(4):
            nil_safe(pos, seat)
        t2 = time.perf_counter()
        opening_dd.append(t1 - t0)
        opening_nil.append((t2 - t1) / 4)
    c, d = np.mean(opening_dd) * 1e3, np.mean(opening_nil) * 1e3
    print(
        f"opening position: dd_tricks {c:.2f} ms, nil_safe {d:.2f} ms a seat ({c / d:.1f}x faster)"
    )

    n_table = args.table_deals or args.deals
    masks = np.array(deals(n_table, args.seed + 1), dtype=np.uint64)
    dd_table(masks[:1], np.zeros(1, dtype=np.int64))  # compile outside the timing
    t0 = time.perf_counter()
    dd_table(masks, np.arange(n_table) % 4)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table_mib = thread_table().nbytes / 2**20  # each dd_table thread has one this size
    print(
        f"dd_table: {n_table} deals in {seconds:.1f} s, {n_table / seconds:.2f} deals/s "
        f"(opening tricks and 4 nils each), peak RSS {peak:.0f} MiB (this process, DDS "
        f"included; a thread's table {table_mib:.0f} MiB, fixed)"
    )


if __name__ == "__main__":
    main()
