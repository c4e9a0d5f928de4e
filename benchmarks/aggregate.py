"""Aggregate mode against the rows: speed, CPU time per hand and peak memory.

Two measurements, on the default policies (``count`` bidding, ``heuristic`` play) unless
``--play``/``--bidding`` say otherwise:

1. **In process**, alternating in rounds (medians of ``--rounds``): hands counted in
   aggregate mode (``simulate_aggregate``, by ``spades,seat``) on 1 and 2 threads, the
   rows path to Parquet (``run_dataset``, the code of ``spades-sim simulate``) on 2
   threads, and the row kernel alone (chunks computed, nothing kept) on 2 threads. Each
   with its wall-clock rate and its CPU time per hand (this process, all threads), which
   a machine shared with other work does not blur.
2. **As a command**: ``spades-sim simulate --aggregate --by spades,seat`` as a child
   process for each of ``--memory-hands`` (default 10 and 100 million hands): its rate,
   its CPU time per hand and its peak resident memory (``ru_maxrss`` of the child).

    python benchmarks/aggregate.py                       # 2M hands, 3 rounds; 10M, 100M
    python benchmarks/aggregate.py --hands 1000000 --memory-hands 10000000 --json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from spades_sim.run import run_dataset
from spades_sim.run.chunks import run_chunk
from spades_sim.run.plan import plan
from spades_sim.simulate import RunSpec, simulate_aggregate
from spades_sim.threads import kernel_threads

BY = "spades,seat"
SCRIPT = Path(sys.executable).with_name("spades-sim")


def in_process(spec: RunSpec, hands: int, rounds: int, tmp: Path) -> dict[str, dict[str, float]]:
    def rows() -> None:
        out = tmp / "rows"
        run_dataset(spec, hands, out, threads=2, fsync=False)
        shutil.rmtree(out)

    def kernel() -> None:
        with kernel_threads(2):
            for piece in plan(spec, hands):
                run_chunk(spec, *piece)
                pass

    paths: dict[str, Callable[[], object]] = {
        "aggregate, 1 thread": lambda: simulate_aggregate(spec, hands, BY, threads=1),
        "aggregate, 2 threads": lambda: simulate_aggregate(spec, hands, BY, threads=2),
        "rows to Parquet, 2 threads": rows,
        "row kernel only, 2 threads": kernel,
    }
    simulate_aggregate(spec, 1000, BY)  # compile or load the kernels first
    run_dataset(spec, 1000, tmp / "warm", threads=2)
    seen: dict[str, dict[str, list[float]]] = {k: {"rate": [], "cpu": []} for k in paths}
    for _ in range(rounds):
        for name, fn in paths.items():
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            seen[name]["rate"].append(hands / (time.perf_counter() - wall))
            seen[name]["cpu"].append((time.process_time() - cpu) / hands * 1e6)
    return {
        name: {"hands_per_s": statistics.median(v["rate"]), "cpu_us": statistics.median(v["cpu"])}
        for name, v in seen.items()
    }


# A parent of its own per command, so that ru_maxrss is that command's peak alone.
MEASURE = """
import resource, subprocess, sys, time
wall = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, capture_output=True)
seconds = time.perf_counter() - wall
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(seconds, r.ru_utime + r.ru_stime, r.ru_maxrss)
"""


def as_command(spec_args: list[str], hands: int, tmp: Path) -> dict[str, float]:
    out = tmp / f"agg{hands}"
    command = [str(SCRIPT), "simulate", "--hands", str(hands), "--aggregate", "--by", BY]
    command += [*spec_args, "--seed", "1", "--out", str(out), "--quiet"]
    measured = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], check=True, capture_output=True, text=True
    )
    seconds, cpu, max_rss_kib = (float(x) for x in measured.stdout.split())
    disk = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    shutil.rmtree(out)
    return {
        "hands": hands,
        "hands_per_s": hands / seconds,
        "cpu_us": cpu / hands * 1e6,
        "peak_rss_mib": max_rss_kib / 1024,  # Linux reports KiB
        "disk_kib": disk / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000_000, help="hands per path and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-hands", type=int, nargs="*", default=[10_000_000, 100_000_000])
    parser.add_argument("--bidding", default="count")
    parser.add_argument("--play", default="heuristic")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spec = RunSpec.build(seed=1, bidding=args.bidding, play=args.play)
    spec_args = ["--bidding", args.bidding, "--play", args.play]
    with tempfile.TemporaryDirectory() as tmp:
        paths = in_process(spec, args.hands, args.rounds, Path(tmp))
        commands = [as_command(spec_args, n, Path(tmp)) for n in sorted(args.memory_hands)]
    if args.json:
        print(json.dumps({"in_process": paths, "commands": commands}))
        return
    print(f"{args.bidding} + {args.play}, by {BY}; medians of {args.rounds} rounds of "
          f"{args.hands:,} hands\n")  # fmt: skip
    print("| path | hands/s | CPU per hand |\n|---|---|---|")
    for name, v in paths.items():
        print(f"| {name} | {v['hands_per_s']:,.0f} | {v['cpu_us']:.3f} µs |")
    print("\n| command | hands/s | CPU per hand | peak memory | on disk |\n|---|---|---|---|---|")
    for c in commands:
        print(
            f"| `simulate --aggregate`, {c['hands']:,} hands | {c['hands_per_s']:,.0f} | "
            f"{c['cpu_us']:.3f} µs | {c['peak_rss_mib']:.0f} MiB | {c['disk_kib']:.0f} KiB |"
        )


if __name__ == "__main__":
    main()
