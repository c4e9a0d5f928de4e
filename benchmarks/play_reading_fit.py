"""How often the ``heuristic`` (the model ``pimc:read_plays`` reads the play with) picks the
card a seat played, in the true deal: the ``eps`` the model would need.

For hands recorded with every seat on ``heuristic``, ``lookahead`` and ``pimc`` (count
bidding, 30 hands at seed 77), the table after 24 and after 51 cards is rebuilt in plain
Python (``tests/test_worlds.py``'s ``state_at``) and the hand replayed in the true deal
by ``pimc.play_fit_nb``; printed: the share of the other seats' decisions with a choice
where the heuristic's card is not the card played.

Run from the repository root: ``python benchmarks/play_reading_fit.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: this checkout, and the tests' table builder
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
import test_worlds  # noqa: E402

from spades_sim._nb import pimc  # noqa: E402
from spades_sim._nb.enums import HEURISTIC_DEFAULTS, N_INFO  # noqa: E402
from spades_sim.simulate import record_hands  # noqa: E402

HANDS = 30


def main() -> None:
    table = np.zeros(N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    for play in ("heuristic", "lookahead", "pimc"):
        chunk = record_hands(HANDS, seed=77, bidding="count", play=play)
        counts = {24: [0, 0], 51: [0, 0]}
        for i in range(HANDS):
            dealt = [int(x) for x in chunk.plays["dealt"][i]]
            plays = [int(c) for c in chunk.plays["plays"][i]]
            bids = [int(b) for b in chunk.hands["bid"][4 * i : 4 * i + 4]]
            nils = [int(n) for n in chunk.hands["nil"][4 * i : 4 * i + 4]]
            dealer = int(chunk.hands["dealer"][4 * i])
            for d, count in counts.items():
                info, seat, held = test_worlds.state_at(dealt, plays, bids, nils, dealer, d)
                agree, disagree = pimc.play_fit_nb(
                    np.array(held, dtype=np.uint64), np.uint64(held[seat]), seat, info,
                    test_worlds.LOWERED, HEURISTIC_DEFAULTS, table, hands,
                )  # fmt: skip
                count[0] += agree
                count[1] += disagree
        text = ", ".join(
            f"after {d} cards {b}/{a + b} = {b / (a + b):.3f}" for d, (a, b) in counts.items()
        )
        print(f"{play}: the heuristic's card is not the card played: {text}", flush=True)


if __name__ == "__main__":
    main()
