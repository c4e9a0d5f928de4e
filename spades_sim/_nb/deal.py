"""Dealing: the four- and three-player shuffle-and-deal and the two-player draw-and-discard.

Scratch layout (``loop.new_scratch_nb``): shuffle space ``[0:DECK_AT]``, then the deck's
card ids, ascending, from ``DECK_AT`` (52 of them, or with three players 51 or 54).

Both draw only from the deal's own random stream (``rng``), counters 0..63, so a deal is
a function of ``(seed, deal coordinates)`` alone. The two-player keep-or-discard choice
is taken by ``exchange.keep_drawn_card_nb``, which sees only the drawer's own cards.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import (
    ONE,
    ZERO,
    bit_nb,
    deck_mask_nb,
    popcount_nb,
)
from spades_sim._nb.enums import LANES, InfoSlot
from spades_sim._nb.exchange import keep_drawn_card_nb
from spades_sim._nb.lockstep import prefer_wide_vectors_nb
from spades_sim._nb.rng import LOW32, below_nb, draw_nb

DEAL_COUNTER_BASE = 0  # counters 0..31 shuffle the deck
# the blind nil decisions and bids, then the play, draw from here on (``prepare.py``):
# four players, bidder k takes counter BASE + 2k for blind nil and BASE + 2k + 1 for its
# bid, and the play starts at FOUR_PLAY_COUNTER
DECISION_COUNTER_BASE = 64
FOUR_PLAY_COUNTER = DECISION_COUNTER_BASE + 8
DECK_AT = 56  # where the deck's card ids start in the scratch (room for 54 before them)
SCRATCH_SIZE = 2 * DECK_AT


@njit(cache=True)
def deck_cards_nb(jokers):
    """The card ids of the deck (``bitboard.deck_mask_nb``: 52, or with three players 51
    or 54), ascending: the order the shuffle starts from."""
    mask = deck_mask_nb(jokers)
    deck = np.empty(popcount_nb(mask), dtype=np.uint8)
    n = 0
    for card in range(56):
        if (mask >> np.uint64(card)) & ONE:
            deck[n] = card
            n += 1
    return deck


@njit(inline="always", cache=True)
def shuffle_cards_nb(scratch, key, n):
    """Fisher-Yates shuffle of the deck's ``n`` card ids (``scratch[DECK_AT:]``: 52, or
    with three players 51 or 54) into scratch[0:n], from position n - 1 down, two steps
    a draw (the low half of the draw first)."""
    for i in range(n):
        scratch[i] = scratch[DECK_AT + i]
    counter = DEAL_COUNTER_BASE
    bits = ZERO
    for step in range(n - 1):
        i = n - 1 - step
        if step & 1 == 0:
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
def deal_seats_nb(scratch, key, masks, base, seats, size):
    """Shuffle ``seats * size`` cards (``shuffle_cards_nb``) and deal ``size`` to each of
    ``seats`` seats: ``masks[base + s]`` gets cards ``size * s`` .. ``size * s + size - 1``
    of the shuffle; the masks of the four beyond ``seats`` are emptied. Four players: 4
    seats of 13; three: 3 of 17, or 18 with the jokers."""
    shuffle_cards_nb(scratch, key, seats * size)
    for seat in range(seats):
        mask = ZERO
        for k in range(size * seat, size * seat + size):
            mask |= bit_nb(scratch[k])
        masks[base + seat] = mask
    for seat in range(seats, 4):
        masks[base + seat] = ZERO


@njit(inline="always", cache=True)
def draw_two_nb(scratch, key, first_drawer, info, draw_params, masks, base):
    """The two-player draw: players alternate, first_drawer first, 26 turns of two cards.

    On a turn the drawer sees the top card and keeps it (then sees and discards the next)
    or discards it (then must keep the next); a player who declared blind nil
    (``info``) draws for nil. ``masks[base + p]`` receives player p's 13 cards; returns
    the mask of the 26 unused cards.
    """
    shuffle_cards_nb(scratch, key, 52)
    for p in range(4):
        masks[base + p] = ZERO
    unused = ZERO
    drawer = first_drawer
    for turn in range(26):
        top = np.int64(scratch[2 * turn])
        nxt = np.int64(scratch[2 * turn + 1])
        held = masks[base + drawer]
        going_nil = info[InfoSlot.nil + drawer] == 2
        if keep_drawn_card_nb(held, top, turn // 2, going_nil, draw_params):
            masks[base + drawer] = held | bit_nb(top)
            unused |= bit_nb(nxt)
        else:
            masks[base + drawer] = held | bit_nb(nxt)
            unused |= bit_nb(top)
        drawer ^= 1
    return unused


@njit(cache=True)
def draw_swaps_lanes_nb(keys, swaps):
    """The swap partners of ``shuffle_cards_nb`` (52 cards) for ``LANES`` deals from their stream
    ``keys[b]`` (uint64 bit patterns in an int64 array): step s (position 51 - s) of deal b
    at ``swaps[s * LANES + b]``. One loop over the deals per counter, vectorised (a real
    function with arrays of its own: inlined beside the swaps, LLVM did not vectorise it)."""
    prefer_wide_vectors_nb()
    for t in range(26):  # counter t: positions 51 - 2t (low bits) and 50 - 2t (high bits)
        i = 51 - 2 * t
        for b in range(LANES):
            bits = draw_nb(np.uint64(keys[b]), DEAL_COUNTER_BASE + t)
            swaps[2 * t * LANES + b] = below_nb(bits & LOW32, i + 1)
            swaps[(2 * t + 1) * LANES + b] = below_nb(bits >> np.uint64(32), i)


@njit(inline="always", cache=True)
def deal_lanes_four_nb(deck, decks, swaps, keys, hands):
    """``deal_seats_nb`` (four seats of 13) for ``LANES`` deals at once: the same shuffle of
    ``deck`` (the deck's card ids, ``deck_cards_nb``) from each deal's stream ``keys[b]``
    (uint64 bit patterns in an int64 array). The swap partners are drawn first for every
    deal (``draw_swaps_lanes_nb``, vectorised), then the swaps go step by step across the
    deals, so the 64 independent shuffles overlap in the CPU instead of each waiting on its
    own memory (~42 against ~100 ns a deal one at a time). ``hands[s * LANES + b]`` gets
    deal b's seat s (as an int64 bit pattern); ``decks`` and ``swaps`` (``52 * LANES`` uint8
    each) are scratch: position p of deal b at ``decks[p * LANES + b]``."""
    draw_swaps_lanes_nb(keys, swaps)
    for p in range(52):
        for b in range(LANES):
            decks[p * LANES + b] = deck[p]
    for step in range(51):
        i = 51 - step
        for b in range(LANES):
            j = np.int64(swaps[step * LANES + b])
            tmp = decks[i * LANES + b]
            decks[i * LANES + b] = decks[j * LANES + b]
            decks[j * LANES + b] = tmp
    for seat in range(4):
        for b in range(LANES):
            mask = ZERO
            for k in range(13 * seat, 13 * seat + 13):
                mask |= ONE << np.uint64(decks[k * LANES + b])
            hands[seat * LANES + b] = np.int64(mask)
