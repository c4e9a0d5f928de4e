"""Built-in policies, dispatched by integer id with a float64 parameter vector.

Every policy sees only what its seat may know: its own ``hand`` mask, the public table
state ``info`` (layout in ``layout.py``: bids, cards played, tricks, scores), the rule
array and its parameters. ``rand`` is a 64-bit value unique to the decision; a policy
that wants randomness draws from it with ``rng.mix64_nb(rand + j * GOLDEN)``.

Signatures (user-written policies have the same, see ``spades_sim.policies``)::

    bid(hand: uint64, seat: int64, info: int64[:], rules: int64[:],
        params: float64[:], rand: uint64) -> int64          # 0..13, 0 = nil
    play(hand: uint64, legal: uint64, seat: int64, info: int64[:], rules: int64[:],
         params: float64[:], rand: uint64) -> int64         # a card id in ``legal``

For the built-ins, ``params[0]`` holds the policy id (set by the Python layer).
"""

import numpy as np
from numba import njit

from spades_sim._nb import layout as L
from spades_sim._nb.bitboard import (
    SPADE_MASK,
    ZERO,
    bit_nb,
    popcount_nb,
    rank_of_nb,
    select_bit_nb,
    suit_of_nb,
)
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, mix64_nb, unit_nb


@njit(inline="always", cache=True)
def danger_card_nb(k):
    """The k-th most dangerous card for a nil bidder (k = 0..53): the jokers and spades
    from the top, then the side suits rank by rank from the aces down (hearts first)."""
    if k < 15:
        return 53 - k
    k -= 15
    return (2 - k % 3) * 13 + 12 - k // 3


@njit(inline="always", cache=True)
def count_value_nb(hand):
    """The classic count of sure tricks: side aces and guarded kings, spade honours and
    length, shortness with spare spades. Returns a float number of tricks."""
    spades = hand & SPADE_MASK
    n_spades = popcount_nb(spades)
    value = 0.0
    shortness = 0.0
    for suit in range(3):
        held = hand & (np.uint64(0x1FFF) << np.uint64(13 * suit))
        n = popcount_nb(held)
        if n == 0:
            shortness += 1.0
            continue
        if n == 1:
            shortness += 0.5
        if held & bit_nb(13 * suit + 12):
            value += 1.0
        if n >= 2 and held & bit_nb(13 * suit + 11):
            value += 1.0 if n <= 5 else 0.5
        if n >= 3 and held & bit_nb(13 * suit + 10):
            value += 0.25
    high = (spades >> np.uint64(51)) & np.uint64(7)  # AS, LJ, BJ
    value += popcount_nb(high)
    if n_spades >= 2 and spades & bit_nb(50):
        value += 1.0
    if n_spades >= 3 and spades & bit_nb(49):
        value += 0.75
    if n_spades > 4:
        value += n_spades - 4
    spare = n_spades - 2
    if spare > 0:
        value += min(shortness, spare * 0.5)
    return value


@njit(inline="always", cache=True)
def nil_risk_nb(hand):
    """A nil-risk score: high or many spades, unguarded high cards in the side suits."""
    spades = hand & SPADE_MASK
    n_spades = popcount_nb(spades)
    risk = 0.0
    if n_spades > 3:
        risk += 2.0 * (n_spades - 3)
    top = spades >> np.uint64(48)  # QS and above
    risk += 2.0 * popcount_nb(top)
    for suit in range(3):
        held = hand & (np.uint64(0x1FFF) << np.uint64(13 * suit))
        n = popcount_nb(held)
        low = popcount_nb(held & (np.uint64(0x3F) << np.uint64(13 * suit)))  # 2..7
        for rank in range(9, 13):  # J, Q, K, A
            if held & bit_nb(13 * suit + rank):
                risk += (rank - 8) * 0.5 if low < 3 else (rank - 8) * 0.2
        if n > 0 and low == 0:
            risk += 0.5
    return risk


@njit(inline="always", cache=True)
def blind_nil_wanted_nb(seat, info, rules, params, rand):
    """Whether a seat declares blind nil before seeing its cards (the rules allow it)."""
    policy = np.int64(params[0])
    side = seat & 1 if info[L.I_PLAYERS] == 4 else seat
    deficit = info[L.I_SCORES + 1 - side] - info[L.I_SCORES + side]
    if policy == L.BID_COUNT:
        return deficit >= params[3]
    if policy == L.BID_RANDOM:
        return unit_nb(mix64_nb(rand + GOLDEN)) < params[2]
    return False


@njit(inline="always", cache=True)
def builtin_bid_nb(hand, seat, info, rules, params, rand):
    """Bid 0..13 (0 = nil) with the built-in bidding policy ``params[0]``."""
    policy = np.int64(params[0])
    if policy == L.BID_RANDOM:
        bits = mix64_nb(rand)
        if unit_nb(bits) < params[1]:
            return 0
        return 1 + below_nb(mix64_nb(rand + GOLDEN) & LOW32, np.int64(params[3]))
    # BID_COUNT
    if nil_risk_nb(hand) <= params[2]:
        return 0
    bid = np.int64(np.floor(count_value_nb(hand) + params[1] + 0.5))
    return min(max(bid, 1), 13)


@njit(inline="always", cache=True)
def builtin_play_nb(hand, legal, seat, info, rules, params, rand):
    """Play a card of ``legal`` with the built-in play policy ``params[0]``."""
    n = popcount_nb(legal)
    k = below_nb(mix64_nb(rand) & LOW32, n)
    return select_bit_nb(legal, k)


@njit(cache=True)
def pass_cards_nb(hand, k, nil_bidder):
    """The k cards a seat passes in a blind nil exchange: the nil bidder its most
    dangerous (high spades, then high side cards), the partner its lowest side cards."""
    out = ZERO
    taken = 0
    for j in range(54):
        if taken == k:
            break
        card = danger_card_nb(j if nil_bidder else 53 - j)
        if hand & bit_nb(card):
            out |= bit_nb(card)
            taken += 1
    return out


@njit(cache=True)
def discard_for_nil_nb(hand, k):
    """Two players: the cards a blind nil declarer discards (up to k): its dangerous
    cards, i.e. any spade above the 5 and side cards J or higher, most dangerous first."""
    out = ZERO
    taken = 0
    for j in range(54):
        if taken == k:
            break
        card = danger_card_nb(j)
        if not hand & bit_nb(card):
            continue
        rank = rank_of_nb(card)
        if (suit_of_nb(card) == 3 and rank >= 4) or rank >= 9:
            out |= bit_nb(card)
            taken += 1
    return out


@njit(inline="always", cache=True)
def keep_drawn_card_nb(held, card, kept_so_far, going_nil, draw_params):
    """Two-player draw policy: keep a high card (or, going for nil, a low side card).

    ``draw_params``: [policy id, side rank to keep from, spade rank to keep from, nil:
    highest side rank to keep]. Ranks are 0 (deuce) .. 12 (ace), jokers 13 and 14.
    """
    rank = rank_of_nb(card)
    spade = card >= 39
    if going_nil:
        return (not spade) and rank <= draw_params[3]
    if spade:
        return rank >= draw_params[2]
    return rank >= draw_params[1]
