"""A play policy that learns: a linear player trained on the vector environment, measured
in duplicate against ``random`` and ``heuristic`` play as training goes on.

Design. One learner seat (North) plays its cards against ``heuristic`` partner and
opponents, every seat bidding ``count`` (``spades_sim.env.VectorSpades`` with
``learner_bids=False``); the learner is ``spades_sim.env.linear``'s linear-softmax policy
over 16 card features, trained by REINFORCE in NumPy (no PyTorch, no GPU). At each of
``--points`` checkpoints the greedy player (the legal card of highest score) is seated
as a play policy in ``spades_sim.analysis.duplicate`` (both partners of a side) against
``random`` and against ``heuristic`` on ``--deals`` deals with the sides swapped, bidding
``count``: the margin in points a deal with its 95% interval. The first checkpoint is
the untrained player (all weights 0: the lowest legal card).

Run it (from a checkout with ``pip install -e '.[report,rl]'``)::

    python analyses/learn_play.py --out runs/studies/learn_play
    python analyses/learn_play.py --out /tmp/learn --hands 20000 --points 2 --deals 300

Writes ``DIR/curve.json`` (every checkpoint's margins), ``DIR/curve.png`` (the curve,
with matplotlib) and ``DIR/player.json`` (the final weights, ``LinearPlayer.load`` reads
it). The first run compiles the player's kernels (about a minute on a shared two-core
machine, once). Reproducible from ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spades_sim.analysis import duplicate
from spades_sim.env.linear import N_CARD_FEATURES, LinearPlayer, train_linear_player

HANDS = 300_000
POINTS = 6
DEALS = 20_000
SEED = 39


def margins(player: LinearPlayer, deals: int, seed: int) -> dict[str, list[float]]:
    """The player's duplicate margin (value, low, high) against random and heuristic."""
    out = {}
    for other in ("random", "heuristic"):
        m = duplicate(player.policy(), other, deals, seed=seed).margin
        out[other] = [m.value, m.low, m.high]
    return out


def plot(curve: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    hands = [c["hands"] for c in curve]
    for other, colour in (("random", "tab:green"), ("heuristic", "tab:red")):
        value = [c["margin"][other][0] for c in curve]
        low = [c["margin"][other][1] for c in curve]
        high = [c["margin"][other][2] for c in curve]
        ax.plot(hands, value, marker="o", color=colour, label=f"against {other}")
        ax.fill_between(hands, low, high, color=colour, alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("training hands")
    ax.set_ylabel("duplicate margin, points a deal (95% CI)")
    ax.set_title("Linear player learning to play (bidding count)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(hands: int, points: int, deals: int, seed: int, out: Path) -> list[dict[str, Any]]:
    """Train, measure at ``points`` checkpoints (the untrained player first), write."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    players = [(0, LinearPlayer((0.0,) * N_CARD_FEATURES))]
    every = max(hands // max(points - 1, 1), 1)
    final, history = train_linear_player(hands, seed=seed, every=every)
    players += [(p.hands, p.player) for p in history]
    curve = []
    for trained, player in players:
        curve.append({"hands": trained, "margin": margins(player, deals, seed + 1)})
        print(f"{trained:>9,} hands: {curve[-1]['margin']}", flush=True)
    final.save(out / "player.json")
    record = {"seed": seed, "deals": deals, "seconds": time.perf_counter() - started}
    (out / "curve.json").write_text(json.dumps({**record, "curve": curve}, indent=1))
    try:
        plot(curve, out / "curve.png")
    except ImportError:
        print("matplotlib not installed: no curve.png")
    return curve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="Output directory.")
    parser.add_argument("--hands", type=int, default=HANDS, help="Training hands.")
    parser.add_argument("--points", type=int, default=POINTS, help="Checkpoints measured.")
    parser.add_argument("--deals", type=int, default=DEALS, help="Duplicate deals a point.")
    parser.add_argument("--seed", type=int, default=SEED, help=f"Seed (default {SEED}).")
    args = parser.parse_args(argv)
    run(args.hands, args.points, args.deals, args.seed, args.out)


if __name__ == "__main__":
    main()
