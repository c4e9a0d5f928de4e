"""Whether reading the play pays when the model is right: ``pimc`` against the
``heuristic`` (the model ``read_plays`` assumes for the other seats, here both
opponents) in duplicate, with and without reading, on the same deals; the difference of
the paired margins deal by deal is the gain from reading, with a 95% interval.

Run from the repository root: ``python benchmarks/play_reading_model.py --deals 400
--eps 0.1``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from spades_sim.analysis import duplicate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eps", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    paired = {}
    for play in (f"pimc:read_plays={args.eps}", "pimc:read_plays=0"):
        t0 = time.perf_counter()
        result = duplicate(play, "heuristic", args.deals, seed=args.seed, threads=args.threads)
        paired[play] = np.asarray(result.paired, dtype=float)
        print(f"{play} vs heuristic, {args.deals} deals, seed {args.seed}: {result.margin}")
        print(f"    nils made {result.nils_made}, nils set {result.nils_set}")
        print(f"    ({time.perf_counter() - t0:.0f} s)", flush=True)
    a, b = paired.values()
    diff = a - b
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    print(
        f"gain from reading: {diff.mean():.2f} [{diff.mean() - half:.2f}, "
        f"{diff.mean() + half:.2f}] (n={len(diff)})"
    )


if __name__ == "__main__":
    main()
