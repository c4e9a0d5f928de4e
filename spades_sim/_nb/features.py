"""Hand features: the eight numbers the output schema records for every hand.

``hand_features_nb`` returns them in ``FEATURES`` order; ``rows.write_features_nb``
writes them into the output columns and ``odds`` checks conditions on them, so a
feature means the same in a dataset and in a ``require=`` range.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import SUIT_MASKS, popcount_nb

FEATURES = (
    "spades",
    "high_spades",
    "aces",
    "kings",
    "queens",
    "shortest_suit",
    "voids",
    "points",
)
N_FEATURES = 8

ACE_MASK = np.uint64((1 << 12) | (1 << 25) | (1 << 38) | (1 << 51))
KING_MASK = ACE_MASK >> np.uint64(1)
QUEEN_MASK = ACE_MASK >> np.uint64(2)
JACK_MASK = ACE_MASK >> np.uint64(3)
HIGH_SPADE_MASK = np.uint64((0b111 << 49) | (0b1111 << 52))  # QS, KS, AS and every id above


@njit(inline="always", cache=True)
def hand_features_nb(hand):
    """(spades, high spades, aces, kings, queens, shortest suit, voids, points) of a
    hand mask; jokers count as spades and high spades, points are A4 K3 Q2 J1."""
    aces = popcount_nb(hand & ACE_MASK)
    kings = popcount_nb(hand & KING_MASK)
    queens = popcount_nb(hand & QUEEN_MASK)
    jacks = popcount_nb(hand & JACK_MASK)
    shortest = 13
    voids = 0
    for suit in range(4):
        n = popcount_nb(hand & SUIT_MASKS[suit])
        shortest = min(shortest, n)
        voids += n == 0
    return (
        popcount_nb(hand & SUIT_MASKS[3]),
        popcount_nb(hand & HIGH_SPADE_MASK),
        aces,
        kings,
        queens,
        shortest,
        voids,
        4 * aces + 3 * kings + 2 * queens + jacks,
    )
