"""How ``nil_table`` shares its deals between two threads: fixed stripes against one deal
at a time, from each nil's own CPU time.

The nils are those of the nil atlas's stage (``analyses/nil_atlas.py``: the first ``N``
deals of its nil run, the first North-South bidder's nil from the opening lead, North's
and South's in two calls, as the stage makes them), read from a directory the atlas
made (``--runs DIR/runs``). Each nil is solved alone on one thread and timed in CPU time
of the process (the work thread's, the calling thread only waiting), which the load of a
shared machine distorts far less than wall time. From those times it prints, for each
call, the two-thread makespan of fixed stripes (deal ``d`` to thread ``d mod 2``), of
handing the next deal to the first free thread (what ``nil_table`` does), and the ideal
(half the sum)::

    python analyses/nil_atlas.py --out /tmp/atlas --hands 5000 --dd-deals 0
    nice python benchmarks/nil_balance.py --runs /tmp/atlas/runs --deals 500
"""

from __future__ import annotations

import argparse
import heapq
import importlib.util
import time
from pathlib import Path

import numpy as np

from spades_sim.rules import Rules
from spades_sim.solve.batch import nil_table
from spades_sim.threads import kernel_threads

ATLAS = Path(__file__).resolve().parents[1] / "analyses" / "nil_atlas.py"


def atlas_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("nil_atlas", ATLAS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def makespans(seconds: np.ndarray) -> tuple[float, float, float]:
    """Two threads: (fixed stripes, next deal to the first free thread, ideal)."""
    stripes = max(seconds[0::2].sum(), seconds[1::2].sum())
    free = [0.0, 0.0]
    for s in seconds:
        heapq.heappush(free, heapq.heappop(free) + s)
    return float(stripes), max(free), float(seconds.sum() / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, type=Path, help="the atlas's DIR/runs")
    parser.add_argument("--deals", type=int, default=500, help="the first N deals")
    args = parser.parse_args()
    todo = atlas_module().nil_bidders(args.runs, args.deals)
    columns = [f"hand_{s}" for s in range(4)]
    total = np.zeros(3)
    for seat in (0, 2):
        mine = todo[todo["seat"] == seat]
        seconds = []
        with kernel_threads(1):
            for _, row in mine.iterrows():
                hands = row[columns].to_numpy(np.uint64)[None, :]
                start = time.process_time()
                nil_table(hands, [int(row["leader"])], seat, rules=Rules())
                seconds.append(time.process_time() - start)
        times = np.array(seconds)
        spans = makespans(times)
        total += spans
        print(
            f"seat {seat}: {len(times)} nils, {times.sum():.1f} s CPU (worst {times.max():.2f} s); "
            f"two threads: stripes {spans[0]:.1f} s, one at a time {spans[1]:.1f} s, "
            f"ideal {spans[2]:.1f} s"
        )
    print(
        f"both calls: stripes {total[0]:.1f} s, one at a time {total[1]:.1f} s, "
        f"ideal {total[2]:.1f} s"
    )


if __name__ == "__main__":
    main()
