"""``lookahead`` reading the bids by the bidders seated at the table (``assume=3``, the
default) against ``lookahead:assume=0`` (every seat read as ``count``) in duplicate,
2,000 deals with every seat bidding ``pagat`` (seed 73), then with every seat bidding
``count:nil_threshold=4,bias=0.5`` (seed 74): the first's mean score margin a hand with
its 95% interval. Run from the repository root: ``python benchmarks/seated_lookahead.py``.
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

from spades_sim.analysis import duplicate  # noqa: E402

for bidding, seed in (("pagat", 73), ("count:nil_threshold=4,bias=0.5", 74)):
    t = time.time()
    r = duplicate("lookahead", "lookahead:assume=0", 2000, seed=seed, bidding=bidding, threads=2)
    print(
        f"lookahead vs lookahead:assume=0, bidding {bidding}, seed {seed}:", r.margin,
        f"{time.time() - t:.0f}s", flush=True,
    )  # fmt: skip
