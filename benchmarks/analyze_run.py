"""How fast, and in how little memory, the analyses summarise a large run directory.

Makes a hands run with ``spades-sim simulate`` (or reuses one: ``--run DIR``), then runs
each analysis on the directory in a fresh child process and prints its wall time, its
scan rate and the child's peak resident memory (``ru_maxrss`` from ``os.wait4``: the
whole process, Python, NumPy, pandas, pyarrow and Numba included; the memory after the
imports is shown beside it). The analyses read the run part file by part file, so the
peak should not depend on the run's size: the issue asks for a 100-million-hand run
summarised in under 1 GiB.

Run from the repository root::

    python benchmarks/analyze_run.py --hands 100000000            # ~5 GB on disk, deleted after
    python benchmarks/analyze_run.py --run runs/first             # an existing run, kept

The run is written to ``--out`` (default ``runs/analyze-bench``) and deleted at the end
unless ``--keep`` is given or it came from ``--run``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

CASES = (
    "nil_success",
    "nil_success by spades,seat,policy",
    "bag_accumulation by side",
    "bid_accuracy by side_contract",
    "bid_accuracy distribution",
    "bid_accuracy calibration",
    "analyze all (one scan, 5 tables)",
)


def child(case: str, run: str) -> None:
    """In a fresh process: import, run one case, print its time and memory as JSON."""
    from spades_sim.analysis import analyze, bag_accumulation, bid_accuracy, nil_success

    calls: dict[str, Callable[[], object]] = {
        "nil_success": lambda: nil_success(run),
        "nil_success by spades,seat,policy": lambda: nil_success(
            run, by=["spades", "seat", "policy"]
        ),
        "bag_accumulation by side": lambda: bag_accumulation(run, by="side"),
        "bid_accuracy by side_contract": lambda: bid_accuracy(run, by="side_contract"),
        "bid_accuracy distribution": lambda: bid_accuracy(run, view="distribution"),
        "bid_accuracy calibration": lambda: bid_accuracy(run, view="calibration"),
        "analyze all (one scan, 5 tables)": lambda: analyze(run, what="all"),
    }
    after_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start, cpu = time.perf_counter(), time.process_time()
    result = calls[case]()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    tables = getattr(result, "tables", {"": result})
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": cpu_seconds,
                "after_import_mib": after_import,
                "table_rows": sum(len(t) for t in tables.values()),
            }
        )
    )


def measured(cmd: list[str]) -> tuple[str, float, float]:
    """Run ``cmd``; return its stdout, wall seconds and peak RSS in MiB (``os.wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, cwd=ROOT, env=_env())
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed with exit status {proc.returncode}")
    return out, time.perf_counter() - start, usage.ru_maxrss / 1024


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _spades_sim() -> list[str]:
    script = Path(sys.executable).with_name("spades-sim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "spades_sim.cli"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000_000, help="hands to simulate")
    parser.add_argument("--run", type=Path, help="analyse this existing run instead")
    parser.add_argument("--out", type=Path, default=Path("runs/analyze-bench"))
    parser.add_argument("--keep", action="store_true", help="keep the run made here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play", default="heuristic")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, str(args.run))
        return

    import pandas as pd
    import pyarrow as pa

    from spades_sim.dataset import read_manifest

    print("$ python " + " ".join([Path(sys.argv[0]).as_posix(), *(argv or sys.argv[1:])]))
    print(
        f"python {platform.python_version()}, pandas {pd.__version__}, pyarrow {pa.__version__}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start"
    )
    run = args.run
    made_here = run is None
    if made_here:
        run = args.out
        free = shutil.disk_usage(run.parent if run.parent.exists() else ROOT).free
        need = args.hands * 52  # bytes per hand, measured: ~49 MB per million hands
        if free < 2 * need:
            raise SystemExit(
                f"not enough disk: {free / 2**30:.1f} GiB free, {need / 2**30:.1f} needed"
            )
        cmd = [*_spades_sim(), "simulate", "--hands", str(args.hands), "--seed", str(args.seed),
               "--play", args.play, "--out", str(run), "--overwrite", "--quiet"]  # fmt: skip
        out, seconds, rss = measured(cmd)
        summary = json.loads(out)
        print(
            f"simulate: {args.hands:,} hands in {seconds:,.1f} s "
            f"({summary['hands_per_second']:,.0f} hands/s, peak {rss:,.0f} MiB)"
        )
    assert run is not None
    manifest = read_manifest(run)
    size = sum(f.stat().st_size for f in Path(run).rglob("*.parquet"))
    hands = sum(p.get("deal_stop", 0) - p.get("deal_start", 0) for p in manifest["parts"].values())
    print(
        f"run {run}: {hands:,} hands, {len(manifest['parts'])} parts, "
        f"{size / 1e9:.2f} GB of Parquet\n"
    )
    head = ("analysis", "wall", "CPU", "hands/s", "peak RSS", "imports")
    print("{:36s} {:>9s} {:>9s} {:>12s} {:>12s} {:>9s}".format(*head))
    for case in CASES:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--run", str(run)]
        out, _, rss = measured(cmd)
        r = json.loads(out)
        print(
            f"{case:36s} {r['seconds']:8.1f}s {r['cpu_seconds']:8.1f}s "
            f"{hands / r['seconds']:12,.0f} {rss:8,.0f} MiB {r['after_import_mib']:5,.0f} MiB"
        )
    _, seconds, rss = measured([*_spades_sim(), "analyze", str(run), "--format", "json"])
    print(f"{'spades-sim analyze RUN (end to end)':36s} {seconds:8.1f}s {'':9s} "
          f"{hands / seconds:12,.0f} {rss:8,.0f} MiB")  # fmt: skip
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    if made_here and not args.keep:
        shutil.rmtree(run)
        print(f"deleted {run}")


if __name__ == "__main__":
    main()
