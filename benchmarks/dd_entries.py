"""The solver as its users meet it, timed warm: a ``--dd`` run's deals a second and
``nil_odds`` against perfect defence.

- ``--dd``: ``run_dataset(RunSpec.build(seed=S), N, DIR, dd=True)``, what ``spades-sim
  simulate --hands N --seed S --dd --out DIR`` runs, into a fresh directory. The rows
  take milliseconds, so the call's time is the solve stage (each deal's tricks from the
  opening lead and all four seats' nils): deals a second in wall time, and CPU seconds a
  deal of the whole process (every thread, ``time.process_time``), beside the run
  summary's own ``dd_seconds``.
- ``nil-odds``: ``nil_odds(HAND, n=M, defense="dd", dd_completions=M)``, what
  ``spades-sim nil-odds HAND -n M --defense dd --dd-completions M`` runs, timed on its
  second call (the first compiles the kernels or loads them from Numba's cache), in
  wall time and CPU time of the process.

The machine's load average (``/proc/loadavg``) is printed before and after each figure:
on a shared machine the wall times mean little without it, the CPU times far less so.
The solver's kernels are loaded (or compiled) before any clock starts.

    nice python benchmarks/dd_entries.py --hands 300 --completions 1000
    nice python benchmarks/dd_entries.py --skip-run --hand 7.J52.T842.96432 --json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from spades_sim import nil_odds
from spades_sim.rules import Rules
from spades_sim.run import run_dataset
from spades_sim.run.dd_solve import dd_table
from spades_sim.simulate import RunSpec
from spades_sim.solve.batch import nil_table

HAND = "7.J52.T842.96432"  # docs/nil-odds.md's example of a nil perfect defence rarely sets
# one suit a seat: solved at once, to load the kernels before any clock
SUITS = [0x1FFF << (13 * s) for s in range(4)]


def load() -> str:
    """The first three fields of ``/proc/loadavg`` (1, 5 and 15 minutes)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def timed(call: Any) -> tuple[Any, float, float]:
    """``call()``'s result, wall seconds and CPU seconds of the process (every thread)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def warm() -> None:
    """Load (or compile) the kernels every timed call takes."""
    deal = np.array([SUITS], dtype=np.uint64)
    dd_table(deal, [3])
    nil_table(deal, [0], 3, rules=Rules())


def dd_run(hands: int, seed: int, threads: int | None) -> dict[str, Any]:
    """A ``--dd`` run of ``hands`` hands into a temporary directory, timed."""
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        spec = RunSpec.build(seed=seed)
        summary, wall, cpu = timed(
            lambda: run_dataset(spec, hands, Path(tmp) / "run", threads=threads, dd=True)
        )
    return {
        "dd_run": f"{hands} hands, seed {seed}, threads {threads or 'all'}",
        "dd_run_wall_s": round(wall, 1),
        "dd_run_cpu_s": round(cpu, 1),
        "dd_stage_wall_s": summary.dd_seconds,
        "dd_deals_per_s_wall": round(summary.dd_solved / summary.dd_seconds, 3),
        "dd_cpu_s_per_deal": round(cpu / hands, 3),
        "dd_load_before_after": f"{before} / {load()}",
    }


def odds_dd(hand: str, completions: int, seed: int, threads: int | None) -> dict[str, Any]:
    """``nil_odds`` of ``hand`` against perfect defence, ``completions`` solved, timed on
    its second call."""

    def call() -> Any:
        return nil_odds(
            hand, n=completions, seed=seed, defense="dd", dd_completions=completions,
            threads=threads,
        )  # fmt: skip

    first, first_wall, first_cpu = timed(call)
    before = load()
    odds, wall, cpu = timed(call)
    assert odds.dd_pairs == first.dd_pairs  # the solver is exact: the same verdicts
    return {
        "nil_odds": f"{hand}, {completions} completions solved, seed {seed}",
        "nil_odds_first_call_wall_s": round(first_wall, 1),
        "nil_odds_first_call_cpu_s": round(first_cpu, 1),
        "nil_odds_warm_wall_s": round(wall, 1),
        "nil_odds_warm_cpu_s": round(cpu, 1),
        "nil_odds_dd_safe": round(float(odds.dd_probability), 4),
        "nil_odds_load_before_after": f"{before} / {load()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="hands of the --dd run")
    parser.add_argument("--seed", type=int, default=1, help="seed of the --dd run")
    parser.add_argument("--hand", default=HAND, help="the nil hand of nil_odds")
    parser.add_argument("--completions", type=int, default=1000, help="completions solved")
    parser.add_argument("--odds-seed", type=int, default=0, help="seed of nil_odds")
    parser.add_argument("--threads", type=int, default=None, help="threads [default: all]")
    parser.add_argument("--skip-run", action="store_true", help="no --dd run")
    parser.add_argument("--skip-odds", action="store_true", help="no nil_odds")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()
    warm()
    result: dict[str, Any] = {}
    if not args.skip_run:
        result |= dd_run(args.hands, args.seed, args.threads)
    if not args.skip_odds:
        result |= odds_dd(args.hand, args.completions, args.odds_seed, args.threads)
    if args.json:
        print(json.dumps(result))
        return
    width = max(map(len, result), default=0)
    for key, value in result.items():
        print(f"{key:{width}s}  {value}")


if __name__ == "__main__":
    main()
