"""spades_sim against OpenSpiel's spades, measured alternately in one run.

The yardstick (docs/architecture.md "Performance yardstick") is OpenSpiel 2.0.2's ``spades``
played by its C++ ``pyspiel.evaluate_bots`` loop with uniform random bots, one thread: one
call plays one hand (4 bids, 52 cards, scoring). Absolute rates differ up to 3x between
machines of this kind, so what this script reports is the *ratio* of each spades_sim path
to the yardstick measured in the same rounds (the yardstick and every path take turns;
medians of ``--rounds``), with absolute rates beside them.

Paths:
  kernel only     the kernel call that fills the output arrays (1 thread)
  simulate_hands  to a pandas DataFrame (1 thread)
  run to Parquet  ``spades_sim.run.run_dataset``, the code behind ``spades-sim simulate``,
                  on 2 threads with the default policies, part files on disk
  aggregate       ``simulate_hands(..., aggregate=...)``, the code behind ``spades-sim simulate
                  --aggregate``: hands counted inside the kernel, no rows (by ``spades``), on
                  2 threads, with random bids and random play (what the yardstick's uniform
                  random bots do) and with ``count`` bidding

Besides the rates, every path reports its CPU time per hand (all threads of its process)
and the *CPU ratio*, the yardstick's CPU time per hand over the path's: on a machine
shared with other work the wall-clock rate of a 2-thread path suffers more than the
1-thread yardstick's, the CPU times do not. On idle cores a 1-thread path's wall ratio is
its CPU ratio, and a 2-thread path's at most twice it.

On first use the yardstick is installed into its own virtual environment
(``benchmarks/.openspiel-venv``, ``pip install open_spiel==2.0.2``); where that fails the
script still prints every spades_sim figure, without ratios.

    python benchmarks/vs_openspiel.py                    # 1M hands per path, 5 rounds
    python benchmarks/vs_openspiel.py --hands 2000000 --rounds 7 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable
from pathlib import Path

from spades_sim.run import run_dataset
from spades_sim.run.chunks import kernel_outputs
from spades_sim.simulate import RunSpec, simulate_aggregate, simulate_hands
from spades_sim.threads import kernel_threads

HERE = Path(__file__).resolve().parent
YARDSTICK_VENV = HERE / ".openspiel-venv"
OPENSPIEL = "open_spiel==2.0.2"
YARDSTICK_SCRIPT = """
import sys, time, pyspiel
game = pyspiel.load_game("spades")
bots = [pyspiel.make_uniform_random_bot(p, 1) for p in range(4)]
n = int(sys.argv[1])
for i in range(200):  # warm up
    pyspiel.evaluate_bots(game.new_initial_state(), bots, i)
start, cpu = time.perf_counter(), time.process_time()
for i in range(n):
    pyspiel.evaluate_bots(game.new_initial_state(), bots, i)
print(n / (time.perf_counter() - start), (time.process_time() - cpu) / n * 1e6)
"""

TARGETS = {
    "kernel only, 1 thread, count + random": 100,
    "kernel only, 1 thread, count + heuristic": 100,
    "simulate_hands to a DataFrame, 1 thread": 50,
    "run to Parquet, 2 threads, default policies": 60,
    "aggregate mode, 2 threads, random + random": 150,
    "aggregate mode, 2 threads, count + random": 100,
}


FRAME, PARQUET = list(TARGETS)[2:4]


def yardstick_python() -> Path | None:
    """The yardstick venv's python, created and filled on first use (None if impossible)."""
    python = YARDSTICK_VENV / "bin" / "python"
    if python.exists():
        return python
    print(f"installing the yardstick ({OPENSPIEL}) into {YARDSTICK_VENV} ...", file=sys.stderr)
    try:
        venv.create(YARDSTICK_VENV, with_pip=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", OPENSPIEL],
            check=True,
            timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as error:
        print(f"yardstick unavailable ({error}); ratios are left out", file=sys.stderr)
        return None
    return python


def yardstick_rate(python: Path, hands: int) -> float:
    out = subprocess.run(
        [str(python), "-c", YARDSTICK_SCRIPT, str(hands)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    rate, cpu = (float(x) for x in out.stdout.split())
    CPU_PER_HAND.setdefault("yardstick", []).append(cpu)
    return rate


CPU_PER_HAND: dict[str, list[float]] = {}
"""Microseconds of CPU (this process, all threads) per hand, by path, per round."""


def timed(fn: Callable[[], object], hands: int, name: str = "") -> float:
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    rate = hands / (time.perf_counter() - start)
    CPU_PER_HAND.setdefault(name, []).append((time.process_time() - cpu) / hands * 1e6)
    return rate


def paths(hands: int, tmp: Path) -> dict[str, Callable[[], float]]:
    random_play = RunSpec.build(seed=1, bidding="count", play="random")
    heuristic = RunSpec.build(seed=1, bidding="count", play="heuristic")
    default = RunSpec.build(seed=1)
    all_random = RunSpec.build(seed=1, bidding="random", play="random")
    counter = iter(range(10**6))

    def kernel(spec: RunSpec, name: str) -> Callable[[], float]:
        def run() -> float:
            with kernel_threads(1):
                return timed(lambda: kernel_outputs(spec, 0, hands), hands, name)

        return run

    def frame() -> float:
        with kernel_threads(1):
            return timed(lambda: simulate_hands(hands, seed=1), hands, FRAME)

    def aggregate(spec: RunSpec, name: str) -> Callable[[], float]:
        def run() -> float:
            return timed(lambda: simulate_aggregate(spec, hands, "spades", threads=2), hands, name)

        return run

    def parquet() -> float:
        out = tmp / f"run{next(counter)}"
        rate = timed(lambda: run_dataset(default, hands, out, threads=2), hands, PARQUET)
        for f in sorted(out.rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
        out.rmdir()
        return rate

    names = list(TARGETS)
    return {
        names[0]: kernel(random_play, names[0]),
        names[1]: kernel(heuristic, names[1]),
        FRAME: frame,
        PARQUET: parquet,
        names[4]: aggregate(all_random, names[4]),
        names[5]: aggregate(random_play, names[5]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands per path and round")
    parser.add_argument("--yardstick-hands", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    python = yardstick_python()
    rates: dict[str, list[float]] = {"yardstick": []}
    with tempfile.TemporaryDirectory() as tmp:
        todo = paths(args.hands, Path(tmp))
        for run in todo.values():  # compile or load every kernel before timing
            run()
        CPU_PER_HAND.clear()
        for name in todo:
            rates[name] = []
        for _ in range(args.rounds):
            if python is not None:
                rates["yardstick"].append(yardstick_rate(python, args.yardstick_hands))
            for name, run in todo.items():
                rates[name].append(run())
    yard = statistics.median(rates["yardstick"]) if rates["yardstick"] else None
    yard_cpu = statistics.median(CPU_PER_HAND["yardstick"]) if yard else None
    rows = []
    for name, target in TARGETS.items():
        rate = statistics.median(rates[name]) if rates.get(name) else None
        ratio = rate / yard if rate and yard else None
        cpu = statistics.median(CPU_PER_HAND[name]) if CPU_PER_HAND.get(name) else None
        cpu_ratio = yard_cpu / cpu if yard_cpu and cpu else None
        rows.append(
            {
                "path": name,
                "hands_per_s": rate,
                "ratio": ratio,
                "target": target,
                "cpu_us": cpu,
                "cpu_ratio": cpu_ratio,
            }
        )
    if args.json:
        summary = {"yardstick_hands_per_s": yard, "yardstick_cpu_us": yard_cpu}
        print(json.dumps({**summary, "rounds": args.rounds, "paths": rows}))
        return
    print(f"yardstick: OpenSpiel 2.0.2 evaluate_bots, random bots, 1 thread: "
          f"{yard:,.0f} hands/s, {yard_cpu:.1f} µs CPU per hand"
          if yard else "yardstick: unavailable")  # fmt: skip
    print(f"medians of {args.rounds} rounds, {args.hands:,} hands per path and round\n")
    print("| path | hands/s | ratio | target | CPU per hand | CPU ratio |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        rate = f"{row['hands_per_s']:,.0f}" if row["hands_per_s"] else "not built"
        ratio = f"{row['ratio']:.1f}x" if row["ratio"] else "-"
        cpu = f"{row['cpu_us']:.3f} µs" if row["cpu_us"] else "-"
        cpu_ratio = f"{row['cpu_ratio']:.1f}x" if row["cpu_ratio"] else "-"
        print(f"| {row['path']} | {rate} | {ratio} | >= {row['target']}x | {cpu} | {cpu_ratio} |")


if __name__ == "__main__":
    main()
