"""Where ``pimc``'s nil side parts from the ``heuristic``'s, card by card.

Both sides bid ``count`` (the deal alone decides the bids), so on a nil deal the same
nil is bid whether ``--pimc`` or the ``heuristic`` sits at the nil's side, the other side
being the ``heuristic`` both times. The heuristic is deterministic, so the two plays of
the deal agree card for card up to the first card ``pimc`` chooses differently; this
prints, over the nil deals of ``--scan`` deals of ``--seed`` (both seatings), where that
first card falls (the trick, who played it: the nil seat, its partner, and which of
``pimc``'s rules chose it: ``lookahead``'s before ``solve_from``, the nil maxims, the
partner's cover search) and how often the nil was made each way when it did.

Run from the repository root: ``python benchmarks/nil_diff.py --scan 400 --seed 41``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(ROOT))

from spades_sim.run.chunks import run_chunk  # noqa: E402
from spades_sim.run.spec import RunSpec  # noqa: E402
from spades_sim.simulate import simulate_hands  # noqa: E402


def recorded(ns: str, ew: str, deal: int, seed: int) -> dict[str, np.ndarray]:
    """One deal played with the play recorded: held hands, bids, nils, plays, rows."""
    spec = RunSpec.build(seed=seed, bidding="count", play=(ns, ew), record_play=True)
    chunk = run_chunk(spec, 0, deal, 1)
    h = chunk.hands
    assert chunk.plays is not None
    return {
        "hand": np.asarray(h["hand"]).astype(np.uint64),
        "nil": np.asarray(h["nil"]) | np.asarray(h["blind_nil"]),
        "nil_made": np.asarray(h["nil_made"]),
        "plays": np.asarray(chunk.plays["plays"][0]).astype(np.int64),
        "winners": np.asarray(chunk.plays["trick_winners"][0]).astype(np.int64),
    }


def owner(hands: np.ndarray, card: int) -> int:
    """The seat holding ``card`` at the start of play."""
    for s, mask in enumerate(hands):
        if (int(mask) >> card) & 1:
            return s
    raise ValueError(card)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scan", type=int, default=400)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--pimc", default="pimc")
    parser.add_argument("--solve-from", type=int, default=6)
    parser.add_argument("--verbose", action="store_true", help="print every parted nil")
    args = parser.parse_args(argv)
    df = simulate_hands(args.scan, seed=args.seed, play="heuristic")
    deals = sorted(df[df.nil | df.blind_nil].deal.unique().tolist())
    print(f"{len(deals)} nil deals among {args.scan} (seed {args.seed}); {args.pimc}", flush=True)
    where: Counter[tuple[str, str]] = Counter()
    fate: Counter[tuple[str, str, bool, bool]] = Counter()
    same = Counter()
    for deal in deals:
        for pimc_side in (0, 1):
            seats = (args.pimc, "heuristic") if pimc_side == 0 else ("heuristic", args.pimc)
            h = recorded("heuristic", "heuristic", deal, args.seed)
            p = recorded(*seats, deal, args.seed)
            for nil_seat in np.flatnonzero(h["nil"]):
                if nil_seat % 2 != pimc_side:
                    continue
                made_h, made_p = bool(h["nil_made"][nil_seat]), bool(p["nil_made"][nil_seat])
                diff = np.flatnonzero(h["plays"] != p["plays"])
                if len(diff) == 0:
                    same[(made_h, made_p)] += 1
                    continue
                k = int(diff[0])
                trick = k // 4
                seat = owner(h["hand"], int(p["plays"][k]))
                lost_before = any(int(w) == nil_seat for w in h["winners"][:trick])
                role = "nil" if seat == nil_seat else "partner"
                if lost_before:
                    rule = "nil lost"
                elif trick < args.solve_from:
                    rule = "lookahead"
                elif role == "nil":
                    rule = "maxims"
                else:
                    rule = "cover search"
                where[(role, rule)] += 1
                fate[(role, rule, made_h, made_p)] += 1
                if args.verbose:
                    print(
                        f"  deal {deal} nil {nil_seat} trick {trick} pos {k % 4} {role} {rule}: "
                        f"heuristic {int(h['plays'][k])} pimc {int(p['plays'][k])}; "
                        f"made {made_h} -> {made_p}",
                        flush=True,
                    )
    print(f"\nsame play throughout: {sum(same.values())} nils {dict(same)}")
    print("first parting card (role, rule): nils; made by heuristic -> by pimc")
    for key, n in sorted(where.items()):
        fates = {f"{a}->{b}": fate[(*key, a, b)] for a in (True, False) for b in (True, False)}
        print(f"  {key}: {n}; {fates}")


if __name__ == "__main__":
    main()
