"""Random play for a batch of deals in lock-step, written so LLVM can vectorise it.

``play_random_lockstep_nb`` plays the 13 tricks of ``LANES`` deals at once: position j of
trick t is played in every deal before position j+1, with all per-deal state in one flat
uint64 array (field f of deal b at ``f * LANES + b``) and no branch in the per-deal loop,
so the loop over deals compiles to AVX-512 (or whatever SIMD the host has) instead of 64
dependent scalar chains. It draws exactly the random numbers the scalar path
(``play.play_tricks_nb`` with the built-in ``random`` play policy) draws, and picks the
same card from them, so both paths give identical hands; the tests hold them equal.

Vector width: on AVX-512 hosts, LLVM's tuning for most Intel server cores prefers
256-bit vectors, and the lock-step loops run faster with 512-bit ones. The functions
that hold lane loops call ``prefer_wide_vectors_nb()``, which puts the LLVM function
attribute ``"prefer-vector-width"="512"`` on the function being compiled: this
package's lock-step kernels get wide vectors, every other function in the process (the
user's own Numba code included) keeps Numba's settings. The attribute only widens
vectors the CPU has (none on a host without AVX-512) and never changes a result.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from spades_sim._nb.bitboard import (
    NON_SPADE_MASK,
    ONE,
    RANK_BITS,
    SPADE_MASK,
    TOP_SPADES,
    ZERO,
    lane_above_nb,
    popcount_nb,
)
from spades_sim._nb.enums import LANES, LockstepField
from spades_sim._nb.rng import GOLDEN, LOW32, mix64_nb

U13 = np.uint64(13)
U26 = np.uint64(26)
U39 = np.uint64(39)


WIDE_VECTORS = '"prefer-vector-width"="512"'


@intrinsic
def prefer_wide_vectors_nb(typingctx):
    """Mark the function being compiled to be vectorised with 512-bit vectors where the
    CPU has them (see the module docstring). llvmlite accepts only its list of known
    function attributes, so the string attribute is added to its set directly; a test
    checks it reaches the compiled kernels."""

    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, WIDE_VECTORS)
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def keep_apart_nb(typingctx):
    """Mark the function being compiled never to be inlined into its callers: a lane
    loop vectorised under ``prefer_wide_vectors_nb`` stays the code it was compiled to,
    not re-optimised inside a caller that lacks the attribute."""

    def codegen(context, builder, signature, args):
        builder.function.attributes.add("noinline")
        return context.get_dummy_value()

    return types.none(), codegen


@njit(inline="always", cache=True)
def lane_at_nb(field, lane):
    """The index of field ``field`` of lane ``lane`` in a lock-step state array (the
    lanes of one field side by side, so a loop over the lanes reads them in a row)."""
    return field * LANES + lane


@njit(inline="always", cache=True)
def _select_bit_nb(mask, k):
    # Binary search on the popcounts of halves: branch-free, so it vectorises (PDEP,
    # which the scalar path uses, has no vector form).
    pos = ZERO
    for width in (32, 16, 8, 4, 2, 1):
        low = (mask >> pos) & np.uint64((1 << width) - 1)
        count = np.uint64(popcount_nb(low))
        step = np.uint64(k >= count)
        pos += step * np.uint64(width)
        k -= step * count
    return pos


@njit(inline="always", cache=True)
def lane_trump_rules_nb(hand, follow, legal, win_card, must_trump, must_over):
    """``legal`` (a follower's: ``follow``, else ``hand``) narrowed by ``must_trump`` and
    ``must_overtrump`` as ``play.legal_cards_nb`` narrows it, without a branch
    (``win_card``: the trick's winning card)."""
    trumps = hand & SPADE_MASK
    forced = must_trump & (follow == ZERO) & (trumps != ZERO)
    legal = trumps if forced else legal
    over = legal & SPADE_MASK & lane_above_nb(win_card)
    return over if (must_over & (over != ZERO)) else legal


@njit(inline="always", cache=True)
def _play_position_nb(st, trick_no, j, players, two_clubs, any_time, must_trump, must_over):
    seat_mask = np.uint64(players - 1)
    play_step = np.uint64(trick_no * players + j) * GOLDEN
    uj = np.uint64(j)
    leading = j == 0
    first_trick = trick_no == 0
    for b in range(LANES):
        seat = (st[lane_at_nb(LockstepField.leader, b)] + uj) & seat_mask
        h0 = st[lane_at_nb(LockstepField.hand, b)]
        h1 = st[lane_at_nb(LockstepField.hand + 1, b)]
        h2 = st[lane_at_nb(LockstepField.hand + 2, b)]
        h3 = st[lane_at_nb(LockstepField.hand + 3, b)]
        hand = h0
        hand = h1 if seat == ONE else hand
        hand = h2 if seat == np.uint64(2) else hand
        hand = h3 if seat == np.uint64(3) else hand
        if leading:
            side = hand & NON_SPADE_MASK
            restricted = side if side != ZERO else hand
            free = (not first_trick) & (
                any_time | (st[lane_at_nb(LockstepField.broken, b)] != ZERO)
            )
            legal = hand if free else restricted
            if first_trick and two_clubs:
                legal = ONE
        else:
            led = st[lane_at_nb(LockstepField.led, b)]
            suit_mask = (RANK_BITS << (U13 * led)) | (TOP_SPADES if led == np.uint64(3) else ZERO)
            follow = hand & suit_mask
            legal = follow if follow != ZERO else hand
            legal = lane_trump_rules_nb(
                hand, follow, legal, np.int64(st[lane_at_nb(LockstepField.win_card, b)]),
                must_trump, must_over,
            )  # fmt: skip
        n = np.uint64(popcount_nb(legal))
        bits = mix64_nb(st[lane_at_nb(LockstepField.key, b)] + play_step)
        k = ((bits & LOW32) * n) >> np.uint64(32)
        card = _select_bit_nb(legal, k)
        keep = ~(ONE << card)
        st[lane_at_nb(LockstepField.hand, b)] = h0 & keep
        st[lane_at_nb(LockstepField.hand + 1, b)] = h1 & keep
        st[lane_at_nb(LockstepField.hand + 2, b)] = h2 & keep
        st[lane_at_nb(LockstepField.hand + 3, b)] = h3 & keep
        suit = np.uint64(card >= U13) + np.uint64(card >= U26) + np.uint64(card >= U39)
        spade = card >= U39
        st[lane_at_nb(LockstepField.broken, b)] |= np.uint64(spade)
        if leading:
            st[lane_at_nb(LockstepField.led, b)] = suit
            st[lane_at_nb(LockstepField.win_card, b)] = card
            st[lane_at_nb(LockstepField.win_seat, b)] = seat
        else:
            win_card = st[lane_at_nb(LockstepField.win_card, b)]
            beats = (card > win_card) & ((suit == st[lane_at_nb(LockstepField.led, b)]) | spade)
            st[lane_at_nb(LockstepField.win_card, b)] = card if beats else win_card
            st[lane_at_nb(LockstepField.win_seat, b)] = (
                seat if beats else st[lane_at_nb(LockstepField.win_seat, b)]
            )


@njit(cache=True)
def play_random_lockstep_nb(st, players, two_clubs, any_time, must_trump, must_over):
    """Play 13 tricks of uniformly random legal cards in all ``LANES`` deals of ``st``.

    On entry each deal's hands, leader and ``key + counter * GOLDEN``
    (``LockstepField.key``) are set and its tricks are 0; on return its tricks per seat
    are in ``LockstepField.tricks`` (``LockstepField.first_won``: see ``end_trick_nb``).
    """
    prefer_wide_vectors_nb()
    for b in range(LANES):
        st[lane_at_nb(LockstepField.broken, b)] = ZERO
    for trick_no in range(13):
        for j in range(players):
            _play_position_nb(st, trick_no, j, players, two_clubs, any_time, must_trump, must_over)
        end_trick_nb(st)


@njit(inline="always", cache=True)
def end_trick_nb(st):
    """Close the trick in every lane: count it for its winner, remember the card of the
    winner's first trick (``LockstepField.first_won``, what broke a nil), and let the
    winner lead."""
    for b in range(LANES):
        win = st[lane_at_nb(LockstepField.win_seat, b)]
        card = st[lane_at_nb(LockstepField.win_card, b)]
        for s in range(4):
            won = win == np.uint64(s)
            first = won & (st[lane_at_nb(LockstepField.tricks + s, b)] == ZERO)
            st[lane_at_nb(LockstepField.first_won + s, b)] = (
                card if first else st[lane_at_nb(LockstepField.first_won + s, b)]
            )
            st[lane_at_nb(LockstepField.tricks + s, b)] += np.uint64(won)
        st[lane_at_nb(LockstepField.leader, b)] = win
