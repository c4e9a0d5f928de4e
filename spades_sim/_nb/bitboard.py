"""Bit-mask helpers for hands as 64-bit masks: popcount, lowest/highest card, suit masks.

Card ids follow docs/architecture.md "Data contracts" (``suit * 13 + rank``, spades 39..51,
jokers 52 and 53; with the deuces high 2S, 2D, LJ, BJ are 52..55 above the ace), so every
spade, jokers and high deuces included, has a higher id than any other card: the highest
set bit of a trick's spades is its winning trump.
``popcount_nb``/``lowest_card_nb``/``highest_card_nb`` compile to single
``popcnt``/``tzcnt``/``lzcnt`` instructions via LLVM intrinsics.
"""

import numpy as np
from llvmlite import binding, ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# BMI2's PDEP selects the k-th set bit in one instruction; the kernels are compiled for
# the host CPU (and Numba's cache is keyed by it), so use it wherever the host has it.
HAS_PDEP = "+bmi2" in binding.get_host_cpu_features().flatten().split(",")

# Every mask of the kernels is built here from these: the 13 ranks of a suit at its offset
# ``13 * suit``, and the ids above the ace of spades (52..55), which are spades: the jokers
# (52, 53), or with the deuces high the 2S, 2D, LJ and BJ in that order.
RANK_BITS = np.uint64((1 << 13) - 1)
JOKERS = np.uint64((1 << 52) | (1 << 53))
TOP_SPADES = np.uint64(0b1111 << 52)
SPADE_BITS = RANK_BITS | (TOP_SPADES >> np.uint64(39))  # a spade holding: 17 rank slots
CLUB_MASK = RANK_BITS
DIAMOND_MASK = RANK_BITS << np.uint64(13)
HEART_MASK = RANK_BITS << np.uint64(26)
SPADE_MASK = (RANK_BITS << np.uint64(39)) | TOP_SPADES
NON_SPADE_MASK = CLUB_MASK | DIAMOND_MASK | HEART_MASK
SUIT_MASKS = np.array([CLUB_MASK, DIAMOND_MASK, HEART_MASK, SPADE_MASK], dtype=np.uint64)
STANDARD_DECK = NON_SPADE_MASK | (RANK_BITS << np.uint64(39))
# with jokers, the 2D and 2H leave the deck (docs/rules.md "Jokers")
JOKER_DECK = (STANDARD_DECK & ~(np.uint64(1 << 13) | np.uint64(1 << 26))) | JOKERS
# with the deuces high, the 2C and 2H leave it and the 2S and 2D rank above the ace (their
# natural ids 39 and 13 stay empty): docs/rules.md "Jokers and deuces"
DEUCES_DECK = (STANDARD_DECK & ~np.uint64((1 << 0) | (1 << 13) | (1 << 26) | (1 << 39))) | (
    TOP_SPADES
)
# three players: 51 cards without the 2C, or with the jokers the whole 52 and both (54)
THREE_DECK = STANDARD_DECK & ~np.uint64(1)
THREE_JOKER_DECK = STANDARD_DECK | JOKERS
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
    """Suit 0..3 of a card id; the ids above the ace of spades (52..55) are spades."""
    return min(card // 13, 3)


@njit(inline="always", cache=True)
def rank_of_nb(card):
    """Rank 0..12 of a card (2..A); the ids above the ace of spades 13..16 (the jokers 13
    and 14, or with the deuces high 2S 13, 2D 14, LJ 15, BJ 16)."""
    return card - 39 if card >= 52 else card % 13


@intrinsic
def _pdep_nb(typingctx, source, mask):
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@njit(inline="always", cache=True)
def _select_bit_pdep_nb(mask, k):
    return lowest_card_nb(_pdep_nb(ONE << np.uint64(k), mask))


@njit(inline="always", cache=True)
def _select_bit_search_nb(mask, k):
    # A branch-free binary search on popcounts of halves: the choice is random, so a
    # loop clearing k bits would mispredict its exit on almost every call.
    pos = np.int64(0)
    for width in (32, 16, 8, 4, 2, 1):
        low = (mask >> np.uint64(pos)) & np.uint64((1 << width) - 1)
        count = popcount_nb(low)
        step = np.int64(k >= count)
        pos += step * width
        k -= step * count
    return pos


select_bit_nb = _select_bit_pdep_nb if HAS_PDEP else _select_bit_search_nb
"""``select_bit_nb(mask, k)``: index of the k-th lowest set bit of ``mask``."""


@njit(inline="always", cache=True)
def deck_mask_nb(jokers):
    """The mask of the cards in play by the rule array's ``jokers`` entry: 0 the standard
    deck, 1 the deck whose 2D and 2H give way to the jokers, 2 the jokers with the deuces
    high (no 2C or 2H; 2S and 2D above the ace), all of 52 cards; with three players 3
    the 51 cards without the 2C, 4 the 52 and both jokers."""
    if jokers >= 2:
        if jokers == 2:
            return DEUCES_DECK
        return THREE_DECK if jokers == 3 else THREE_JOKER_DECK
    return JOKER_DECK if jokers else STANDARD_DECK


@njit(inline="always", cache=True)
def suit_mask_nb(suit):
    """The mask of all cards of a suit (spades include the ids above the ace)."""
    return SUIT_MASKS[suit]


# --- Ranks within suits -----------------------------------------------------------------

# the cards of the suits whose bits are set (a void mask from info -> card mask)
SUIT_MASKS_BY_BITS = np.array(
    [sum(int(SUIT_MASKS[s]) for s in range(4) if (bits >> s) & 1) for bits in range(16)],
    dtype=np.uint64,
)


@njit(cache=True, forceinline=True)
def holding_nb(hand, suit):
    """The ranks held in a suit as a small mask (bit r = rank r; spades 17 bits)."""
    width = SPADE_BITS if suit == 3 else RANK_BITS
    return (hand >> np.uint64(13 * suit)) & width


@njit(cache=True, forceinline=True)
def above_nb(card):
    """Mask of every card id above ``card``."""
    return ~((ONE << np.uint64(card + 1)) - ONE)


@njit(cache=True, forceinline=True)
def below_mask_nb(card):
    """Mask of every card id below ``card``."""
    return (ONE << np.uint64(card)) - ONE


@njit(cache=True, forceinline=True)
def fold_nb(mask):
    """The ranks present in any suit of ``mask`` (bit r set when some card has rank r)."""
    return (
        (mask & RANK_BITS)
        | ((mask >> np.uint64(13)) & RANK_BITS)
        | ((mask >> np.uint64(26)) & RANK_BITS)
        | ((mask >> np.uint64(39)) & SPADE_BITS)
    )


@njit(cache=True, forceinline=True)
def low_rank_card_nb(mask):
    """The card of lowest rank in ``mask`` (clubs first on equal ranks); mask != 0."""
    rank = lowest_card_nb(fold_nb(mask))
    card = rank
    for suit in range(4):
        if (mask >> np.uint64(13 * suit + rank)) & ONE:
            card = 13 * suit + rank
            break
    return card


@njit(cache=True, forceinline=True)
def high_rank_card_nb(mask):
    """The card of highest rank in ``mask`` (spades first on equal ranks); mask != 0."""
    rank = highest_card_nb(fold_nb(mask))
    card = 39 + rank
    for suit in range(3, -1, -1):
        if (mask >> np.uint64(13 * suit + rank)) & ONE:
            card = 13 * suit + rank
            break
    return card


# --- Branch-free variants, for loops over lock-step lanes ------------------------------
# Vectorisable pieces only: a zero-defined cttz/ctlz (``x & -x`` next to a zero test turns
# into ``usub.with.overflow``, which LLVM will not vectorise), selects, shifts, no switch.


@intrinsic
def _cttz0_nb(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@intrinsic
def _ctlz0_nb(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@njit(cache=True, forceinline=True)
def lane_lo_nb(x):
    """The lowest card of ``x``, -1 when empty."""
    c = np.int64(_cttz0_nb(x))
    return c if c < 64 else np.int64(-1)


@njit(cache=True, forceinline=True)
def lane_hi_nb(x):
    """The highest card of ``x``, -1 when empty."""
    return np.int64(63) - np.int64(_ctlz0_nb(x))


@njit(cache=True, forceinline=True)
def lane_above_nb(card):
    """Every card id above ``card`` (all cards for -1)."""
    return ~((ONE << np.uint64(card + 1)) - ONE)


@njit(cache=True, forceinline=True)
def lane_suit_mask_nb(suit):
    """The cards of a suit 0..3 (spades with the jokers)."""
    return (RANK_BITS << np.uint64(13 * suit)) | (TOP_SPADES if suit == 3 else ZERO)


@njit(cache=True, forceinline=True)
def lane_void_mask_nb(bits):
    """The cards of the suits whose bits are set."""
    return (
        (RANK_BITS if bits & 1 else ZERO)
        | ((RANK_BITS << np.uint64(13)) if bits & 2 else ZERO)
        | ((RANK_BITS << np.uint64(26)) if bits & 4 else ZERO)
        | (SPADE_MASK if bits & 8 else ZERO)
    )


@njit(cache=True, forceinline=True)
def lane_low_rank_nb(m):
    """``low_rank_card_nb`` without a branch."""
    r = lane_lo_nb(fold_nb(m))
    ur = np.uint64(max(r, 0))
    card = 39 + r
    card = 26 + r if (r < 13) and (m >> (np.uint64(26) + ur)) & ONE else card
    card = 13 + r if (r < 13) and (m >> (np.uint64(13) + ur)) & ONE else card
    return r if (r < 13) and (m >> ur) & ONE else card


@njit(cache=True, forceinline=True)
def lane_high_rank_nb(m):
    """``high_rank_card_nb`` without a branch."""
    r = lane_hi_nb(fold_nb(m))
    ur = np.uint64(max(r, 0))
    card = r
    card = 13 + r if (r < 13) and (m >> (np.uint64(13) + ur)) & ONE else card
    card = 26 + r if (r < 13) and (m >> (np.uint64(26) + ur)) & ONE else card
    return 39 + r if (m >> (np.uint64(39) + ur)) & ONE else card
