"""End-to-end throughput and memory of ``spades-sim simulate``, against the kernel alone.

Runs the real command as a subprocess, ``spades-sim simulate --hands N --play heuristic
... --quiet``, and reads the rate it reports for itself (hands per second from its own
start to the last Parquet part on disk). Each child's peak resident memory comes from the
kernel's accounting of that child (``os.wait4``, the figure ``/usr/bin/time`` and
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` report). Alternating with those runs
it times the kernel alone on the same configuration (``simulate.run_chunk`` chunk by
chunk, the per-seat columns built, nothing written), and prints the ratio. Targets (issue 4): at
least 1,000,000 hands/s end to end, at least 40% of the kernel-only rate, peak memory
under 1 GiB, at N and at 10 N.

The rates are wall-clock rates, so other work on the machine lowers them; the load
average before and after is printed, and so is the CPU time per hand (user + system, all
threads), which does not depend on contention: ``cores / cpu_us_per_hand`` is the rate an
idle machine would reach.

    python benchmarks/end_to_end.py                      # N = 10,000,000, 3 runs
    python benchmarks/end_to_end.py --scale10            # also N = 100,000,000 (1 run)
    python benchmarks/end_to_end.py --hands 2000000 --repeat 5 --play random
    python benchmarks/end_to_end.py --json               # one JSON line per size
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numba

import spades_sim
from spades_sim.policies import lookup
from spades_sim.run.chunks import run_chunk
from spades_sim.run.plan import default_chunk_size
from spades_sim.run.spec import RunSpec
from spades_sim.threads import kernel_threads

ROOT = Path(spades_sim.__path__[0]).parent
TARGET_RATE = 1_000_000
TARGET_RATIO = 0.40
TARGET_RSS = 1 << 30


def command_path() -> str:
    script = Path(sys.executable).with_name("spades-sim")
    return str(script) if script.exists() else "spades-sim"


def child_env() -> dict[str, str]:
    """The child imports the same checkout as this script."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def pick_play(requested: str | None) -> tuple[str, str]:
    """The play policy to measure, and a note when ``heuristic`` is not available."""
    if requested:
        return requested, ""
    try:
        lookup("heuristic", "play")
    except ValueError:
        return "random", "note: play policy 'heuristic' is not registered yet; measured 'random'"
    return "heuristic", ""


def run_command(args: list[str], workdir: Path) -> dict[str, Any]:
    """Run one ``spades-sim`` command; its JSON summary plus wall time and peak RSS."""
    out_file = workdir / "stdout.json"
    err_file = workdir / "stderr.txt"
    with open(out_file, "w") as out, open(err_file, "w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {err_file.read_text()}")
    summary: dict[str, Any] = json.loads(out_file.read_text())
    summary["wall_outside"] = wall
    summary["peak_rss"] = usage.ru_maxrss * 1024  # Linux reports KiB
    summary["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return summary


def kernel_only(spec: RunSpec, hands: int, threads: int | None) -> tuple[float, float]:
    """Hands/s and CPU us per hand of ``run_chunk`` over ``hands`` hands in default chunks."""
    size = default_chunk_size(spec)
    with kernel_threads(threads):
        run_chunk(spec, 0, 0, 1024)  # load the compiled kernel
        c0, w0 = time.process_time(), time.perf_counter()
        for index, start in enumerate(range(0, hands, size)):
            run_chunk(spec, index, start, min(size, hands - start))
        wall = time.perf_counter() - w0
    return hands / wall, (time.process_time() - c0) / hands * 1e6


def measure(n: int, repeat: int, cli_args: list[str], spec: RunSpec, threads: int | None,
            workdir: Path) -> dict[str, Any]:  # fmt: skip
    """``repeat`` rounds of (the command at ``n`` hands, then the kernel alone).

    Alternating the two keeps them under the same conditions when other work shares the
    machine; before each round a small run makes sure the kernels are compiled and
    cached, so no round pays for compiling them.
    """
    runs, kernels = [], []
    command = ""
    for r in range(repeat):
        warm = [command_path(), "simulate", "--hands", "20000", *cli_args,
                "--out", str(workdir / "warm"), "--quiet", "--overwrite"]  # fmt: skip
        run_command(warm, workdir)
        out = workdir / f"run-{n}-{r}"
        args = [command_path(), "simulate", "--hands", str(n), *cli_args, "--out", str(out)]
        args += ["--quiet", "--overwrite"]
        command = " ".join("OUT" if a == str(out) else a for a in args)
        runs.append(run_command(args, workdir))
        shutil.rmtree(out, ignore_errors=True)
        kernels.append(kernel_only(spec, min(n, 10_000_000), threads))
    rate = statistics.median(r["hands_per_second"] for r in runs)
    kernel_rate = statistics.median(k[0] for k in kernels)
    return {
        "hands": n,
        "runs": len(runs),
        "command": command,
        "e2e_rate": rate,
        "e2e_rates": [round(r["hands_per_second"]) for r in runs],
        "kernel_rate": kernel_rate,
        "kernel_rates": [round(k[0]) for k in kernels],
        "ratio": rate / kernel_rate,
        "peak_rss": max(r["peak_rss"] for r in runs),
        "e2e_cpu_us_per_hand": statistics.median(r["cpu_seconds"] / n * 1e6 for r in runs),
        "kernel_cpu_us_per_hand": statistics.median(k[1] for k in kernels),
        "seconds": statistics.median(r["seconds"] for r in runs),
    }


def report(result: dict[str, Any], cores: int) -> str:
    def mark(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    rate, ratio, rss = result["e2e_rate"], result["ratio"], result["peak_rss"]
    idle_e2e = cores / result["e2e_cpu_us_per_hand"] * 1e6
    idle_kernel = cores / result["kernel_cpu_us_per_hand"] * 1e6
    return "\n".join([
        f"$ {result['command']}",
        f"  hands            {result['hands']:,} ({result['runs']} run(s), median; "
        f"{result['seconds']:.1f} s each)",
        f"  end to end       {rate:,.0f} hands/s  (runs: "
        f"{', '.join(f'{r:,}' for r in result['e2e_rates'])})  "
        f"[target >= {TARGET_RATE:,}: {mark(rate >= TARGET_RATE)}]",
        f"  kernel only      {result['kernel_rate']:,.0f} hands/s  (runs: "
        f"{', '.join(f'{r:,}' for r in result['kernel_rates'])}; run_chunk, same config, "
        "nothing written)",
        f"  ratio            {ratio:.1%}  [target >= {TARGET_RATIO:.0%}: "
        f"{mark(ratio >= TARGET_RATIO)}]",
        f"  peak memory      {rss / 2**20:,.0f} MiB  [target < 1024 MiB: {mark(rss < TARGET_RSS)}]",
        f"  CPU per hand     end to end {result['e2e_cpu_us_per_hand']:.3f} us, kernel "
        f"{result['kernel_cpu_us_per_hand']:.3f} us -> on {cores} idle cores "
        f"{idle_e2e:,.0f} vs {idle_kernel:,.0f} hands/s ({idle_e2e / idle_kernel:.1%})",
    ])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000, help="N (default 10,000,000)")
    parser.add_argument("--scale10", action="store_true", help="also run 10 N hands")
    parser.add_argument("--repeat", type=int, default=3, help="runs at N (median)")
    parser.add_argument("--repeat10", type=int, default=1, help="runs at 10 N (median)")
    parser.add_argument("--play", help="play policy (default: heuristic if registered)")
    parser.add_argument("--bidding", default="count", help="bidding policy (default count)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, help="kernel threads (default: all)")
    parser.add_argument("--workdir", type=Path, help="where to write the runs (deleted)")
    parser.add_argument("--json", action="store_true", help="one JSON line per size")
    opts = parser.parse_args()

    play, note = pick_play(opts.play)
    cli_args = ["--seed", str(opts.seed), "--bidding", opts.bidding, "--play", play]
    if opts.threads:
        cli_args += ["--threads", str(opts.threads)]
    spec = RunSpec.build(seed=opts.seed, bidding=opts.bidding, play=play)
    cores = opts.threads or numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    workdir = Path(tempfile.mkdtemp(prefix="spades-e2e-", dir=opts.workdir))
    try:
        if note and not opts.json:
            print(note)
        load_before = os.getloadavg()
        sizes = [(opts.hands, opts.repeat)]
        if opts.scale10:
            sizes.append((10 * opts.hands, opts.repeat10))
        for n, repeat in sizes:
            result = measure(n, repeat, cli_args, spec, opts.threads, workdir)
            result["note"] = note
            result["load_before"] = load_before
            result["load_after"] = os.getloadavg()
            if opts.json:
                print(json.dumps(result), flush=True)
            else:
                print(report(result, cores), flush=True)
                print(
                    "  load average     before {:.2f}, after {:.2f} (1 min; {} cores)".format(
                        load_before[0], result["load_after"][0], os.cpu_count()
                    ),
                    flush=True,
                )
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        if not opts.json:
            print(f"peak RSS of any child (RUSAGE_CHILDREN): {children / 2**20:,.0f} MiB")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
