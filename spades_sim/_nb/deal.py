"""Dealing: the four-player shuffle-and-deal and the two-player draw-and-discard.

Both draw only from the deal's own random stream (``rng``), counters 0..63, so a deal is
a function of ``(seed, deal coordinates)`` alone. The two-player keep-or-discard choice
is taken by ``policies.keep_drawn_card_nb``, which sees only the drawer's own cards.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import ZERO, bit_nb
from spades_sim._nb.policies import keep_drawn_card_nb
from spades_sim._nb.rng import LOW32, below_nb, draw_nb

DEAL_COUNTER_BASE = 0  # counters 0..31 shuffle the deck


@njit(inline="always", cache=True)
def shuffle_deck_nb(deck_cards, scratch, key):
    """Fisher-Yates shuffle of the 52 card ids of ``deck_cards`` into ``scratch``."""
    for i in range(52):
        scratch[i] = deck_cards[i]
    counter = DEAL_COUNTER_BASE
    bits = ZERO
    for i in range(51, 0, -1):
        if i & 1:
            bits = draw_nb(key, counter)
            counter += 1
            r = bits & LOW32
        else:
            r = bits >> np.uint64(32)
        j = below_nb(r, i + 1)
        tmp = scratch[i]
        scratch[i] = scratch[j]
        scratch[j] = tmp


@njit(inline="always", cache=True)
def deal_four_nb(deck_cards, scratch, key, hands):
    """Deal 13 cards to each of four seats: ``hands[s]`` gets cards 13s..13s+12 of the shuffle."""
    shuffle_deck_nb(deck_cards, scratch, key)
    for seat in range(4):
        mask = ZERO
        for k in range(13 * seat, 13 * seat + 13):
            mask |= bit_nb(scratch[k])
        hands[seat] = mask


@njit(inline="always", cache=True)
def draw_two_nb(deck_cards, scratch, key, first_drawer, going_nil, draw_params, hands):
    """The two-player draw: players alternate, first_drawer first, 26 turns of two cards.

    On a turn the drawer sees the top card and keeps it (then sees and discards the next)
    or discards it (then must keep the next). Returns the mask of the 26 unused cards.
    """
    shuffle_deck_nb(deck_cards, scratch, key)
    hands[0] = ZERO
    hands[1] = ZERO
    unused = ZERO
    drawer = first_drawer
    for turn in range(26):
        top = np.int64(scratch[2 * turn])
        nxt = np.int64(scratch[2 * turn + 1])
        held = hands[drawer]
        kept_so_far = turn // 2
        if keep_drawn_card_nb(held, top, kept_so_far, going_nil[drawer], draw_params):
            hands[drawer] = held | bit_nb(top)
            unused |= bit_nb(nxt)
        else:
            hands[drawer] = held | bit_nb(nxt)
            unused |= bit_nb(top)
        drawer ^= 1
    return unused
