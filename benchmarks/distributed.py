"""Throughput of the Dask backend: a local cluster of 2 single-threaded workers against the
threaded local run of the same hands.

Each round, in this order:

- **local**: ``run_dataset(spec, N, DIR)`` in this process, the kernels on all cores and
  the writer thread behind them; its rate is the summary's (hands per second from the
  call's start to the last part on disk).
- **cluster start-up**: a ``LocalCluster`` of 2 worker processes with one task thread
  each, as ``--scheduler local:2`` starts it (``spades_sim.run.cluster.local_cluster``):
  the processes up and connected, then the warm-up (each worker imports the package and
  loads the run's kernels from Numba's cache). Timed apart from the run: a cluster that
  stays up pays them once.
- **cluster**: ``run_distributed(spec, N, DIR, scheduler=client)`` on that warm cluster,
  each task's kernel on all cores as locally (``--threads`` caps them); its rate is the
  summary's, from the call's start (registering the warm-up plugin, submitting, the
  manifest written by the client) to the last part recorded.

The rounds alternate local and cluster runs so that changes in the machine's load hit
both; the medians are printed with the ratio cluster / local (target, issue 11: at least
0.80 at 20,000,000 hands). Every run writes to a fresh directory under ``--dir`` (fsync
on, as the command line does), deleted after it. Wall-clock rates depend on other work
on the machine (the load average before and after is printed), so each run's CPU time
per hand is printed too, all threads of all its processes (for the cluster: the workers
and this process, which holds the client, the scheduler and the nannies): the ratio of
those is the rate ratio a machine with nothing else running would see.

    python benchmarks/distributed.py                          # 20,000,000 hands, 3 rounds
    python benchmarks/distributed.py --hands 5000000 --repeat 2 --threads 1
    python benchmarks/distributed.py --json                   # one JSON line
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This script shares its name with the dask.distributed package: drop its folder from the
# import path (which worker processes inherit) so that `import distributed` finds Dask.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from spades_sim.run import run_dataset  # noqa: E402
from spades_sim.run.cluster import WarmUp, local_cluster, run_distributed  # noqa: E402
from spades_sim.simulate import RunSpec  # noqa: E402

TARGET_RATIO = 0.80


def cpu_seconds() -> float:
    """CPU time of this process so far, all threads (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def local_round(spec: RunSpec, hands: int, out: Path) -> dict[str, float]:
    cpu = cpu_seconds()
    summary = run_dataset(spec, hands, out)
    cpu = cpu_seconds() - cpu
    shutil.rmtree(out)
    return {"local": summary.hands_per_second, "local_cpu_us": cpu / hands * 1e6}


def cluster_round(
    spec: RunSpec, hands: int, out: Path, workers: int, threads: int | None
) -> dict[str, float]:
    from distributed import Client

    started = time.perf_counter()
    with local_cluster(workers) as cluster, Client(cluster, set_as_default=False) as client:
        up = time.perf_counter()
        client.register_plugin(WarmUp(spec, threads), name="benchmark-warm-up")
        warm = time.perf_counter()
        # CPU of the whole cluster: the workers' processes, and this one (the client, the
        # scheduler and the nannies of a LocalCluster run here).
        workers_cpu = sum(client.run(cpu_seconds).values())
        here_cpu = cpu_seconds()
        summary = run_distributed(spec, hands, out, scheduler=client, threads=threads)
        here_cpu = cpu_seconds() - here_cpu
        workers_cpu = sum(client.run(cpu_seconds).values()) - workers_cpu
    shutil.rmtree(out)
    return {
        "rate": summary.hands_per_second,
        "cluster_cpu_us": (workers_cpu + here_cpu) / hands * 1e6,
        "start_s": up - started,
        "warm_up_s": warm - up,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (median reported)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="kernel threads per task [default: all cores, as --scheduler local:N]",
    )
    parser.add_argument("--play", default="heuristic")
    parser.add_argument("--bidding", default="count")
    parser.add_argument("--dir", type=Path, default=None, help="where runs are written")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()

    spec = RunSpec.build(seed=1, bidding=args.bidding, play=args.play)
    base = Path(tempfile.mkdtemp(prefix="spades-dist-", dir=args.dir))
    load_before = os.getloadavg()
    # Load this process's kernels (and fill Numba's cache) before the first timed run.
    run_dataset(spec, 1000, base / "warm")
    shutil.rmtree(base / "warm")
    rounds: list[dict[str, float]] = []
    try:
        for i in range(args.repeat):
            local = local_round(spec, args.hands, base / f"local-{i}")
            cluster = cluster_round(
                spec, args.hands, base / f"cluster-{i}", args.workers, args.threads
            )
            ratio = cluster["rate"] / local["local"]
            rounds.append({**local, **cluster, "ratio": ratio})
            if not args.json:
                print(
                    f"round {i + 1}: local {local['local']:,.0f} hands/s "
                    f"({local['local_cpu_us']:.3f} us CPU/hand), cluster {cluster['rate']:,.0f} "
                    f"hands/s ({cluster['cluster_cpu_us']:.3f} us CPU/hand), ratio {ratio:.1%}; "
                    f"cluster start {cluster['start_s']:.2f} s + warm-up "
                    f"{cluster['warm_up_s']:.2f} s",
                    flush=True,
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    median: dict[str, Any] = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    result = {
        "hands": args.hands,
        "rounds": args.repeat,
        "workers": args.workers,
        "threads_per_task": args.threads,
        "play": args.play,
        "bidding": args.bidding,
        "cores": os.cpu_count(),
        "local_hands_per_s": round(median["local"]),
        "cluster_hands_per_s": round(median["rate"]),
        "ratio": round(median["ratio"], 4),
        "local_cpu_us_per_hand": round(median["local_cpu_us"], 4),
        "cluster_cpu_us_per_hand": round(median["cluster_cpu_us"], 4),
        "cpu_ratio": round(median["local_cpu_us"] / median["cluster_cpu_us"], 4),
        "cluster_start_s": round(median["start_s"], 2),
        "warm_up_s": round(median["warm_up_s"], 2),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(result))
        return
    verdict = "meets" if result["ratio"] >= TARGET_RATIO else "MISSES"
    print(
        f"{args.hands:,} hands, --play {args.play}, medians of {args.repeat} rounds "
        f"({os.cpu_count()} cores):\n"
        f"  threaded local run         {result['local_hands_per_s']:>12,} hands/s\n"
        f"  {args.workers} workers x 1 thread"
        + " "
        * 9
        + f"{result['cluster_hands_per_s']:>12,} hands/s\n"
        f"  ratio                      {result['ratio']:>12.1%}  ({verdict} the "
        f"{TARGET_RATIO:.0%} target)\n"
        f"  CPU per hand (all threads) {result['local_cpu_us_per_hand']:.3f} us local, "
        f"{result['cluster_cpu_us_per_hand']:.3f} us cluster: on an idle machine the cluster "
        f"would reach {result['cpu_ratio']:.1%} of the local rate\n"
        f"  cluster start-up           {result['cluster_start_s']:>10.2f} s processes up"
        f" + {result['warm_up_s']:.2f} s warm-up\n"
        f"  load average before/after  {result['load_before']} / {result['load_after']}"
    )


if __name__ == "__main__":
    main()
