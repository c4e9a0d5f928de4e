"""Bit-mask helpers for hands as 64-bit masks: popcount, lowest/highest card, suit masks.

Card ids follow DESIGN.md (``suit * 13 + rank``, spades 39..51, jokers 52 and 53), so every
spade, jokers included, has a higher id than any other card: the highest set bit of a
trick's spades is its winning trump. ``popcount_nb``/``lowest_card_nb``/``highest_card_nb``
compile to single ``popcnt``/``tzcnt``/``lzcnt`` instructions via LLVM intrinsics.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

CLUB_MASK = np.uint64((1 << 13) - 1)
DIAMOND_MASK = np.uint64(((1 << 13) - 1) << 13)
HEART_MASK = np.uint64(((1 << 13) - 1) << 26)
SPADE_MASK = np.uint64((((1 << 13) - 1) << 39) | (1 << 52) | (1 << 53))
NON_SPADE_MASK = np.uint64((1 << 39) - 1)
SUIT_MASKS = np.array([CLUB_MASK, DIAMOND_MASK, HEART_MASK, SPADE_MASK], dtype=np.uint64)
STANDARD_DECK = np.uint64((1 << 52) - 1)
JOKER_DECK = np.uint64((((1 << 52) - 1) & ~((1 << 13) | (1 << 26))) | (1 << 52) | (1 << 53))
ONE = np.uint64(1)
ZERO = np.uint64(0)


@intrinsic
def popcount_nb(typingctx, x):
    """Number of set bits of a 64-bit integer (``llvm.ctpop``)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(x), codegen


@intrinsic
def lowest_card_nb(typingctx, x):
    """Index of the lowest set bit (``llvm.cttz``); undefined for 0."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(x), codegen


@intrinsic
def _ctlz_nb(typingctx, x):
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(x), codegen


@njit(inline="always", cache=True)
def highest_card_nb(x):
    """Index of the highest set bit; undefined for 0."""
    return 63 - _ctlz_nb(x)


@njit(inline="always", cache=True)
def bit_nb(card):
    """The mask of one card id."""
    return ONE << np.uint64(card)


@njit(inline="always", cache=True)
def suit_of_nb(card):
    """Suit 0..3 of a card id; the jokers (52, 53) are spades."""
    return min(card // 13, 3)


@njit(inline="always", cache=True)
def rank_of_nb(card):
    """Rank 0..12 of a card (2..A); Little Joker 13, Big Joker 14."""
    return card - 39 if card >= 52 else card % 13


@njit(inline="always", cache=True)
def select_bit_nb(mask, k):
    """Index of the k-th lowest set bit of ``mask`` (k < popcount(mask))."""
    for _ in range(k):
        mask &= mask - ONE
    return lowest_card_nb(mask)


@njit(inline="always", cache=True)
def suit_mask_nb(suit):
    """The mask of all cards of a suit (spades include the jokers)."""
    return SUIT_MASKS[suit]
