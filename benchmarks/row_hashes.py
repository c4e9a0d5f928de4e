"""A digest of the rows of fixed-seed runs, to hold a refactoring to "the same rows".

Runs ``simulate_hands`` for every rule preset, every built-in policy of every kind on
both sides (with its defaults, and the heuristic off its defaults too, so both the
constant-folded and the general lock-step loops run), ``simulate_games`` for every
preset, ``duplicate`` of two bidders and two players, and the user-written policies of
``analyses/custom_policy.py`` (a bidder and a player, their twins of the built-ins),
each with a fixed seed; prints one SHA-256 per run.

    python benchmarks/row_hashes.py --save before.json    # at the commit before
    python benchmarks/row_hashes.py --check before.json   # after: exit 1 on any change

Small runs (a few hundred hands): this is a check of equality, not a measurement.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyses.custom_policy import (
    cheapest_winner_play,
    count_twin,
    heuristic_twin,
    quick_tricks_bid,
)
from spades_sim import Rules, simulate_games, simulate_hands
from spades_sim.analysis import duplicate
from spades_sim.policies import describe

SEED = 20261207
# the sampling policies are slow per decision: fewer deals for them
FEW = {"monte-carlo", "advise", "lookahead", "pimc"}


def digest(frame: pd.DataFrame) -> str:
    """The SHA-256 of a frame's columns, names, dtypes and values in order."""
    h = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        h.update(f"{name}:{column.dtype}".encode())
        h.update(pd.util.hash_pandas_object(column, index=False).to_numpy().tobytes())
    return h.hexdigest()


def runs() -> dict[str, Any]:
    """Every named run: a function returning a frame."""
    out: dict[str, Any] = {}
    for preset in Rules.PRESETS:
        rules = Rules.preset(preset)
        out[f"hands/{preset}"] = lambda r=rules: simulate_hands(256, seed=SEED, rules=r)
        out[f"hands-random/{preset}"] = lambda r=rules: simulate_hands(
            256, seed=SEED, rules=r, bidding="random", play="random"
        )
        out[f"games/{preset}"] = lambda r=rules: simulate_games(3, seed=SEED, rules=r)[1]
        out[f"game-hands/{preset}"] = lambda r=rules: simulate_games(3, seed=SEED, rules=r)[0]
    two = Rules.preset("two-player")
    for spec in describe():
        n = 16 if spec.name in FEW else 256
        if spec.kind == "bid":
            kw: dict[str, Any] = {"bidding": spec.name}
        elif spec.kind == "play":
            kw = {"play": spec.name}
        else:
            kw = {"draw": spec.name, "rules": two}
        out[f"policy/{spec.kind}/{spec.name}"] = lambda n=n, kw=kw: simulate_hands(
            n, seed=SEED, **kw
        )
        if spec.kind != "draw":
            out[f"policy-two/{spec.kind}/{spec.name}"] = lambda n=n, kw=kw: simulate_hands(
                n, seed=SEED, rules=two, **kw
            )
    out["heuristic-off-defaults"] = lambda: simulate_hands(
        256, seed=SEED, play="heuristic:set_push=0"
    )
    out["heuristic-mixed"] = lambda: simulate_hands(
        256,
        seed=SEED,
        bidding=("pagat", "partner-aware"),
        play=("heuristic", "heuristic:set_push=0"),
    )
    out["user/bid+play"] = lambda: simulate_hands(
        128, seed=SEED, bidding=quick_tricks_bid, play=cheapest_winner_play
    )
    out["user/twins"] = lambda: simulate_hands(
        128, seed=SEED, bidding=(count_twin, "count"), play=(heuristic_twin, "heuristic")
    )
    out["user/games"] = lambda: simulate_games(
        2, seed=SEED, bidding=quick_tricks_bid, play=("random", cheapest_winner_play)
    )[1]

    def dup(a: Any, b: Any, kind: str) -> pd.DataFrame:
        d = duplicate(a, b, 128, seed=SEED, kind=kind)  # type: ignore[arg-type]
        return pd.DataFrame({"text": [repr(d.margin)]})

    out["duplicate/bid"] = lambda: dup("count", "pagat", "bid")
    out["duplicate/play"] = lambda: dup("heuristic", "random", "play")
    out["duplicate/user"] = lambda: dup(cheapest_winner_play, "heuristic", "play")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path)
    parser.add_argument("--check", type=Path)
    parser.add_argument("-k", default="", help="only the runs whose name holds this")
    args = parser.parse_args()
    hashes = {}
    for name, run in runs().items():
        if args.k in name:
            hashes[name] = digest(run())
            print(name, hashes[name][:16], flush=True)
    if args.save:
        args.save.write_text(json.dumps(hashes, indent=1) + "\n")
    if args.check:
        saved = json.loads(args.check.read_text())
        changed = [n for n in hashes if n in saved and saved[n] != hashes[n]]
        missing = [n for n in hashes if n not in saved]
        print(
            f"{len(hashes) - len(changed) - len(missing)} equal, {len(changed)} changed: "
            f"{changed}, {len(missing)} new: {missing}"
        )
        sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
