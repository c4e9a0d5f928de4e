"""Whether ``pimc`` plays the live-nil decisions better by rollouts than by the maxims.

``pimc`` hands every decision with a live nil to the heuristic (the solver's
all-cards-seen verdict is worst for a nil); ``nil_rollouts=R`` values those decisions
instead by playing ``R`` sampled worlds out with the heuristic for every seat. The switch
changes nothing in a deal where nobody bids nil, so the deals compared here are the nil
deals among the first ``--scan`` deals of ``--seed`` (both sides bid ``count``, which
depends on the deal alone, so the same nils are bid in every run); a margin per nil
deal is also given per deal of the scan (the other deals add exactly 0 to the on-off
difference).

Prints, over those deals, each in duplicate (the same deal twice, sides swapped):

(a) the paired margin a nil deal (and a deal of the scan) of: ``pimc`` on against
    ``pimc`` off, on against ``heuristic``, off against ``heuristic``;
(b) the nils: the share of the heuristic's nils that its opponents set (``heuristic``,
    ``pimc`` off, ``pimc`` on defending) and the share of the nils of the side of each
    player that it made (its own and its partner's), with Wilson intervals, and the
    paired difference, nil by nil, of on against the heuristic with its 95% interval
    (and of on against off, both against the heuristic);
(c) on against off head to head, nil by nil: each nil bid is played once by on's side
    and once by off's (the deal's two seatings), each time against the other's defence,
    so with a switch that changes only the nil side's play (``--on nil_cover=1``) the
    defence is the same and the difference is the nil side's alone.

"On" is ``--pimc`` with ``--on``'s parameters added (by default ``nil_rollouts`` =
``--rollouts``: the defence searched against the maxims'); ``--skip-heuristic`` skips
the matches against the heuristic, leaving (a)'s head to head and (c).

Run from the repository root: ``python benchmarks/nil_search.py`` (``--quick``: a smoke
run). The deals are run one per task on ``--threads`` threads.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

from spades_sim.analysis.compare import hand_margins  # noqa: E402
from spades_sim.analysis.stats import mean_ci, proportion_ci  # noqa: E402
from spades_sim.run.chunks import run_chunk  # noqa: E402
from spades_sim.run.sinks import frame  # noqa: E402
from spades_sim.run.spec import RunSpec  # noqa: E402
from spades_sim.simulate import simulate_hands  # noqa: E402


def nil_deals(scan: int, seed: int) -> list[int]:
    """The deals among the first ``scan`` in which a seat bids nil (count bidding)."""
    df = simulate_hands(scan, seed=seed, play="heuristic")
    return sorted(df[df.nil | df.blind_nil].deal.unique().tolist())


def play(ns: str, ew: str, deals: list[int], seed: int, threads: int) -> pd.DataFrame:
    """The rows of ``deals`` with ``ns`` playing North-South and ``ew`` East-West."""
    spec = RunSpec.build(seed=seed, bidding="count", play=(ns, ew))
    run_chunk(spec, 0, deals[0], 1)  # compile or load before the threads start
    with ThreadPoolExecutor(threads) as pool:
        chunks = list(pool.map(lambda d: run_chunk(spec, 0, d, 1), deals))
    return frame([c.hands for c in chunks], spec.hand_columns())


def match(a: str, b: str, deals: list[int], seed: int, threads: int) -> dict[str, object]:
    """A against B on ``deals`` in duplicate: the paired margins and every nil's fate."""
    first = play(a, b, deals, seed, threads)
    second = play(b, a, deals, seed, threads)
    paired = ((hand_margins(first) - hand_margins(second)) / 2).to_numpy()
    rows = []
    for frame_, a_side in ((first, 0), (second, 1)):
        bid_nil = frame_[frame_.nil | frame_.blind_nil]
        for r in bid_nil.itertuples():
            rows.append((r.deal, r.seat, a_side, r.side == a_side, bool(r.nil_made)))
    nils = pd.DataFrame(rows, columns=["deal", "seat", "a_side", "mine", "made"])
    return {"paired": paired, "nils": nils}


def head_to_head(nils: pd.DataFrame) -> None:
    """(c): every nil of the on-off match made by on's side against by off's, nil by nil."""
    pairs = nils[nils.mine].merge(nils[~nils.mine], on=["deal", "seat"], suffixes=("", "_b"))
    n = len(pairs)
    print(f"\n(c) on against off, nil by nil ({n} nils, each bid by both; 95% intervals)")
    on_made, off_made = int(pairs.made.sum()), int(pairs.made_b.sum())
    print(f"  made by on's side {proportion_ci(on_made, n)}; by off's {proportion_ci(off_made, n)}")
    diff = (pairs.made.astype(int) - pairs.made_b.astype(int)).to_numpy()
    print(f"  on's nils made less off's: {mean_ci(diff)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scan", type=int, default=1600, help="deals scanned for nils")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument(
        "--pimc", default="pimc:worlds=4,nil_rollouts=0", help="pimc with the switch off"
    )
    parser.add_argument("--rollouts", type=int, default=16, help="nil_rollouts when on")
    parser.add_argument("--on", default=None, help="parameters added when on (a=1,b=2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-head", action="store_true", help="skip on against off")
    parser.add_argument("--skip-off", action="store_true", help="skip off against heuristic")
    parser.add_argument(
        "--skip-heuristic", action="store_true", help="skip every match against the heuristic"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.scan = 12
    off = args.pimc
    on = f"{off},{args.on or f'nil_rollouts={args.rollouts}'}"
    print(f"python {platform.python_version()} on {platform.machine()}", flush=True)
    deals = nil_deals(args.scan, args.seed)
    print(f"{len(deals)} nil deals among {args.scan} (seed {args.seed}); on: {on}", flush=True)
    results = {}
    pairs = [] if args.skip_heuristic else [("heuristic", "heuristic"), (on, "heuristic")]
    if not args.skip_off and not args.skip_heuristic:
        pairs.insert(1, (off, "heuristic"))
    if not args.skip_head:
        pairs.append((on, off))
    for a, b in pairs:
        start = time.perf_counter()
        results[(a, b)] = match(a, b, deals, args.seed, args.threads)
        print(f"  {a} vs {b}: {time.perf_counter() - start:.0f} s", flush=True)
    print("\n(a) paired margin of A (points a nil deal; a deal of the scan)")
    for (a, b), r in results.items():
        if a == b:
            continue
        paired = np.asarray(r["paired"])
        per_nil = mean_ci(paired)
        per_deal = mean_ci(np.concatenate([paired, np.zeros(args.scan - len(deals))]))
        print(f"  {a} vs {b}: {per_nil}; {per_deal}")
    if (on, off) in results:
        head_to_head(results[(on, off)]["nils"])
    if args.skip_heuristic:
        return
    print("\n(b) the nils (both seatings; 95% Wilson intervals)")
    base = results[("heuristic", "heuristic")]["nils"]
    for (a, b), r in results.items():
        if b != "heuristic":
            continue
        nils = r["nils"]
        theirs, mine = nils[~nils.mine], nils[nils.mine]
        set_ = proportion_ci(int((~theirs.made).sum()), len(theirs))
        made = proportion_ci(int(mine.made.sum()), len(mine))
        print(f"  {a}: sets the heuristic's nils {set_}; its side's nils made {made}")
        if a == "heuristic":
            continue
        joined = nils.merge(base, on=["deal", "seat", "a_side"], suffixes=("", "_h"))
        theirs, mine = joined[~joined.mine], joined[joined.mine]
        for label, rows, sign in (("set", theirs, -1), ("made", mine, 1)):
            diff = sign * (rows.made.astype(int) - rows.made_h.astype(int)).to_numpy()
            print(f"    nils {label} against the heuristic's play, nil by nil: {mean_ci(diff)}")
    if (off, "heuristic") in results and (on, "heuristic") in results:
        a, b = results[(on, "heuristic")]["nils"], results[(off, "heuristic")]["nils"]
        joined = a[a.mine].merge(b[b.mine], on=["deal", "seat", "a_side"], suffixes=("", "_off"))
        diff = (joined.made.astype(int) - joined.made_off.astype(int)).to_numpy()
        print(f"  on's side's nils made less off's, both against the heuristic: {mean_ci(diff)}")
        gain = np.asarray(results[(on, "heuristic")]["paired"]) - np.asarray(
            results[(off, "heuristic")]["paired"]
        )
        print(f"  on's margin less off's, both against the heuristic (a nil deal): {mean_ci(gain)}")


if __name__ == "__main__":
    main()
