"""Cold start of ``spades-sim simulate``: the time Numba spends compiling the kernels.

Runs the README's first command (``spades-sim simulate --hands N --seed 1``) as a
subprocess twice on one empty Numba cache (``NUMBA_CACHE_DIR`` set to a new temporary
directory): the first run compiles every kernel it needs, the second loads them all from
that cache. The difference is the cold-start cost. Each figure is wall time and the
child's CPU time (user + system, from ``os.wait4``); on a shared machine the CPU time is
the one to compare, since other load stretches wall time but not CPU time.

``--per-function`` instead compiles in this process, on its own empty cache, and prints
the exclusive compile time of every function Numba compiled for 0.1 s or more (its own
time, the functions it called and compiled excluded), longest first, from Numba's
``numba:compile`` events: CPU time of the compiling thread, then wall time.

    python benchmarks/compile_time.py                   # 1,000,000 hands, 1 repeat
    python benchmarks/compile_time.py --repeat 3 --json
    python benchmarks/compile_time.py --per-function --hands 1000 -- --play random
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def command_path() -> str:
    script = Path(sys.executable).with_name("spades-sim")
    return str(script) if script.exists() else "spades-sim"


def child_cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_child(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one child: CPU from RUSAGE_CHILDREN deltas."""
    before = child_cpu_seconds()
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return wall, child_cpu_seconds() - before, done.stdout


def cold_and_warm(hands: int, extra: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        base = [command_path(), "simulate", "--hands", str(hands), "--seed", "1", "--quiet"]
        cold = one_child([*base, "--out", out + "/cold", *extra], env)
        warm = one_child([*base, "--out", out + "/warm", *extra], env)
    summary = json.loads(cold[2].strip().splitlines()[-1])
    return {
        "cold_wall_s": round(cold[0], 1),
        "cold_cpu_s": round(cold[1], 1),
        "warm_wall_s": round(warm[0], 1),
        "warm_cpu_s": round(warm[1], 1),
        "compile_wall_s": round(cold[0] - warm[0], 1),
        "compile_cpu_s": round(cold[1] - warm[1], 1),
        "reported_compile_s": summary.get("compile_seconds"),
    }


def per_function(hands: int, extra: list[str]) -> list[tuple[str, float, float, float]]:
    """(function, exclusive CPU seconds, inclusive CPU seconds, exclusive wall seconds) of
    every compile in this process."""
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()  # before numba reads its config
    from numba.core import event

    from spades_sim.cli import cli

    local = threading.local()
    rows: list[tuple[str, float, float, float]] = []

    class Recorder(event.Listener):  # type: ignore[misc]
        def on_start(self, ev: Any) -> None:
            stack = getattr(local, "stack", None) or []
            local.stack = stack
            stack.append([time.thread_time(), 0.0, time.perf_counter(), 0.0])

        def on_end(self, ev: Any) -> None:
            start, children, start_wall, children_wall = local.stack.pop()
            took = time.thread_time() - start
            took_wall = time.perf_counter() - start_wall
            if local.stack:
                local.stack[-1][1] += took
                local.stack[-1][3] += took_wall
            name = ev.data["dispatcher"].py_func.__qualname__
            args = ", ".join(str(a) for a in ev.data["args"])
            own_wall = took_wall - children_wall
            rows.append((f"{name}({args[:60]})", took - children, took, own_wall))

    with tempfile.TemporaryDirectory() as out, event.install_listener("numba:compile", Recorder()):
        argv = ["simulate", "--hands", str(hands), "--seed", "1", "--quiet", "--out", out + "/r"]
        with contextlib.suppress(SystemExit):
            cli.main([*argv, *extra], standalone_mode=False)
    return sorted(rows, key=lambda r: -r[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="cold/warm pairs (median)")
    parser.add_argument("--per-function", action="store_true")
    parser.add_argument(
        "--min-seconds", type=float, default=0.1, help="--per-function: shortest compile shown"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per repeat")
    parser.add_argument("extra", nargs="*", help="more simulate options, after --")
    args = parser.parse_args()
    if args.per_function:
        start, start_cpu = time.perf_counter(), time.process_time()
        rows = per_function(args.hands, args.extra)
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        print(f"{'CPU own':>8} {'CPU incl':>8} {'wall own':>8}  function (all in seconds)")
        for name, own, total, own_wall in rows:
            if own < args.min_seconds:
                continue  # Numba's own small overloads (np.empty, min, ...)
            print(f"{own:8.1f} {total:8.1f} {own_wall:8.1f}  {name}")
        print(f"total CPU in compiles: {sum(r[1] for r in rows):.1f} s")
        print(f"process: {wall:.1f} s wall, {cpu:.1f} s CPU, load {os.getloadavg()[0]:.2f}")
        return
    results = []
    for _ in range(args.repeat):
        result = cold_and_warm(args.hands, args.extra)
        result["load_average_1min"] = os.getloadavg()[0]
        results.append(result)
        print(json.dumps(result) if args.json else result, flush=True)
    if not args.json and len(results) > 1:
        for key in ("cold_wall_s", "cold_cpu_s", "compile_wall_s", "compile_cpu_s"):
            print(f"median {key}: {statistics.median(r[key] for r in results):.1f}")


if __name__ == "__main__":
    main()
