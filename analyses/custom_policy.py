"""A user-written bidding and play policy, run at full speed and compared in duplicate.

A policy is a plain Numba ``@njit`` function with the documented signature (see
``spades_sim.nb``, the kernel API this example builds on)::

    bid(hand, seat, info, rules, params, rand) -> int          # 0..13, 0 = nil
    play(hand, legal, seat, info, rules, params, rand) -> int  # a card id in ``legal``

``hand`` and ``legal`` are 64-bit card masks (bit ``suit * 13 + rank``; spades are suit 3,
ranks 0 = deuce .. 12 = ace), ``info`` the public table state (slots named in
``spades_sim.nb.InfoSlot``: bids so far, cards of the trick, cards played, tricks won,
scores), ``params`` your parameters in the order you gave them, ``rand`` 64 random bits
for this decision. Pass the function (or ``Policy.custom(fn, kind, params)``) to
``simulate_hands``/``simulate_games``; the simulator compiles a kernel specialised on it
once per process and then runs it like a built-in. Mark small policies
``inline="always"`` so the kernel inlines them: the call then costs nothing.

Run it: ``python analyses/custom_policy.py [deals]``. It plays the example against the
built-in ``count`` + ``heuristic`` in duplicate and prints the margin with its interval.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: import the package from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from numba import njit

from spades_sim import nb
from spades_sim.analysis import bid_accuracy, duplicate, estimate_of
from spades_sim.policies import Policy
from spades_sim.simulate import simulate_hands

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT = np.array([np.uint64(0x1FFF) << np.uint64(13 * s) for s in range(4)], dtype=np.uint64)
# the cards a nil bidder fears: every jack or higher, and the spades from the nine up
DANGER = np.uint64(sum(0xF << (13 * s + 9) for s in range(4)) | (0x3 << (39 + 7)))


@njit(inline="always")
def lowest(mask):
    """The lowest card id of a non-empty mask."""
    card = 0
    while not (mask >> np.uint64(card)) & np.uint64(1):
        card += 1
    return card


@njit(inline="always")
def highest(mask):
    """The highest card id of a non-empty mask."""
    card = 63
    while not (mask >> np.uint64(card)) & np.uint64(1):
        card -= 1
    return card


@njit(inline="always")
def quick_tricks_bid(hand, seat, info, rules, params, rand):
    """Bid the aces, the kings with a guard, and the spades beyond ``params[0]``; nil with
    no jack or higher, no spade above the 8 and at most ``params[1]`` spades."""
    aces = 0
    kings = 0
    for suit in range(4):
        held = (hand & SUIT[suit]) >> np.uint64(13 * suit)
        aces += (held >> np.uint64(12)) & np.uint64(1)
        if (held >> np.uint64(11)) & np.uint64(1) and held & np.uint64(0x7FF):
            kings += 1
    spades = hand & SUIT[SPADES]
    n_spades = 0
    for rank in range(13):
        n_spades += (spades >> np.uint64(39 + rank)) & np.uint64(1)
    if not hand & DANGER and n_spades <= params[1]:
        return 0
    extra = np.int64(n_spades) - np.int64(params[0])
    total = np.int64(aces) + kings + (extra if extra > 0 else 0)
    return min(max(total, 1), 13)


@njit(inline="always")
def cheapest_winner_play(hand, legal, seat, info, rules, params, rand):
    """Win the trick as cheaply as possible unless the partner is winning it; otherwise
    play the lowest legal card. ``params[0]`` = 1 lets the partner's trick stand."""
    n_in = info[nb.InfoSlot.n_in_trick]
    if n_in == 0:
        return lowest(legal)
    if params[0] > 0 and info[nb.InfoSlot.winning_seat] == (seat ^ 2):
        return lowest(legal)
    win = info[nb.InfoSlot.winning_card]
    led = info[nb.InfoSlot.led_suit]
    above = ~((np.uint64(1) << np.uint64(win + 1)) - np.uint64(1))
    winners = legal & above & (SUIT[led] | SUIT[SPADES])
    return lowest(winners) if winners else lowest(legal)


@njit(inline="always")
def heuristic_twin(hand, legal, seat, info, rules, params, rand):
    """The built-in heuristic, as a user-written policy: the same work through the user
    path (``params`` must then be the heuristic's parameter vector, slot 0 unused)."""
    return nb.heuristic_play_nb(hand, legal, seat, info, rules, params)


def twin_policy() -> Policy:
    """``heuristic_twin`` with the built-in heuristic's default parameter vector."""
    vector = Policy.of("heuristic", "play").lower()
    return Policy.custom(heuristic_twin, "play", {f"p{i}": v for i, v in enumerate(vector)})


def main(deals: int = 4000) -> None:
    """Print the example's bids and a duplicate match against the built-ins."""
    bidder = Policy.custom(quick_tricks_bid, "bid", {"spade_length": 3, "nil_spades": 2})
    player = Policy.custom(cheapest_winner_play, "play", {"spare_partner": 1})
    start = time.perf_counter()
    hands = simulate_hands(deals, seed=1, bidding=bidder, play=player)
    print(f"{deals} hands with the example policies in {time.perf_counter() - start:.1f} s")
    mae = estimate_of(bid_accuracy(hands), "abs_difference")
    print(f"bid accuracy (MAE of side tricks vs contract): {mae}")
    match = duplicate(player, "heuristic", deals, seed=2, bidding="count")
    print(f"play, duplicate: example vs heuristic, margin per hand {match.margin}")
    match = duplicate(bidder, "count", deals, seed=3, kind="bid", play="heuristic")
    print(f"bidding, duplicate: example vs count, margin per hand {match.margin}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
