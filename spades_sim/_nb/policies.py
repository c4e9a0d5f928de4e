"""Built-in policies, dispatched by integer id with a float64 parameter vector.

Every policy sees only what its seat may know: its own ``hand`` mask, the public table
state ``info`` (layout in ``layout.py``: bids, cards played, tricks, scores, known voids),
the rule array and its parameters. ``rand`` is a 64-bit value unique to the decision; a
policy that wants randomness draws from it with ``rng.mix64_nb(rand + j * GOLDEN)``. No
function here is ever given another seat's cards; the sampling policies (``rollout.py``)
deal the unseen cards at random from what the seat can see.

Signatures (user-written policies have the same, see ``spades_sim.policies``)::

    bid(hand: uint64, seat: int64, info: int64[:], rules: int64[:],
        params: float64[:], rand: uint64) -> int64          # 0..13, 0 = nil
    play(hand: uint64, legal: uint64, seat: int64, info: int64[:], rules: int64[:],
         params: float64[:], rand: uint64) -> int64         # a card id in ``legal``

For the built-ins, ``params[0]`` holds the policy id and the named parameters follow in
the registry's order (``spades_sim.policies``); the ``P_*``/``B_*``/``D_*`` constants
below are those slots.

Speed: the per-card path (``heuristic_play_nb``) is inlined into the kernels. It reads
the arrays into scalars once and hands them to scalar-only helpers compiled with
``forceinline`` (LLVM inlines them; Numba does not re-type them at every call site):
arrays inside branchy inlined code, or passed to a real call, make Numba keep atomic
reference counting on them around every decision, which cost more than the policy. The
sampling policies (``rollout.py``) are separate cached functions, called with borrowed
array views (``borrow_nb``) only when chosen. ``play_heuristic_lockstep_nb`` plays the
same heuristic, card for card, for a batch of deals in lock-step with no branch in the
per-deal loop (``heuristic_lane_nb``), so a kernel built like ``lockstep.py``'s can run
heuristic play as SIMD code.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from spades_sim._nb import layout as L
from spades_sim._nb.bitboard import (
    JOKER_DECK,
    NON_SPADE_MASK,
    ONE,
    SPADE_MASK,
    STANDARD_DECK,
    SUIT_MASKS,
    ZERO,
    bit_nb,
    highest_card_nb,
    lowest_card_nb,
    popcount_nb,
    rank_of_nb,
    select_bit_nb,
    suit_of_nb,
)
from spades_sim._nb.lockstep import (
    F_BROKEN,
    F_HAND,
    F_LEADER,
    F_LED,
    F_TRICKS,
    F_WIN_CARD,
    F_WIN_SEAT,
    LANES,
    N_FIELDS,
    end_trick_nb,
)
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, mix64_nb, unit_nb

# --- Parameter slots (params[0] is the policy id) --------------------------------------
# Shared by the count, pagat, partner-aware and monte-carlo bidders:
B_BIAS = 1
B_NIL_THRESHOLD = 2
B_BLIND_DEFICIT = 3
B_BLIND_MAX_BAGS = 4
B_BLIND_PARTNER_MIN = 5
B_BLIND_BEFORE_PARTNER = 6
B_NIL_PARTNER_MIN = 7
B_ROUND_UP = 8
# count
B_KING_VALUE = 9
B_SPADE_LENGTH = 10
B_SHORT_VALUE = 11
# pagat
B_QUEEN_VALUE = 9
B_TRUMP_LENGTH = 10
# partner-aware
B_OVERBID_CUT = 9
B_NIL_COVER_BONUS = 10
B_OPP_NIL_BONUS = 11
B_BAG_PUSH = 12
B_BAG_MARGIN = 13
B_SCORE_SHADE = 14
B_SCORE_MARGIN = 15
# monte-carlo
B_SAMPLES = 9
B_BAG_COST = 10
B_NIL_BONUS = 11
B_WINDOW = 12
B_OBJECTIVE = 13
B_TOLERANCE = 14
# heuristic play (lookahead shares 1..7 for its rollouts)
P_BAG_AVOID = 1
P_SET_PUSH = 2
P_COVER_NIL = 3
P_ATTACK_NIL = 4
P_SECOND_TRUMP = 5
P_CASH = 6
P_DRAW_TRUMPS = 7
P_SAMPLES = 8
# draw (two players): threshold uses 1..3, plan all
D_SIDE_RANK = 1
D_SPADE_RANK = 2
D_NIL_RANK = 3
D_NIL_COMMIT = 4
D_COMMIT_AFTER = 5
D_NIL_SPADE_RANK = 6

# Registry defaults the sampling policies use for the other seats' bids and the play in
# their rollouts (tests hold them equal to ``spades_sim.policies``).
COUNT_DEFAULTS = np.array(
    [L.BID_COUNT, 0.0, 2.5, 200.0, 7.0, 3.0, 1.0, 2.0, 0.5, 1.0, 4.0, 1.0, 0, 0, 0, 0],
    dtype=np.float64,
)
HEURISTIC_DEFAULTS = np.array(
    [L.PLAY_HEURISTIC, 1.0, 4.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0],
    dtype=np.float64,
)

RANK_BITS = np.uint64(0x1FFF)
JOKERS = np.uint64((1 << 52) | (1 << 53))
SPADE_BITS = np.uint64(0x7FFF)  # 13 spades and the two jokers
LOW_BITS = np.uint64(0x3F)  # ranks 2..7
# the cards of the suits whose bits are set (a void mask from info -> card mask)
SUIT_MASKS_BY_BITS = np.array(
    [sum(int(SUIT_MASKS[s]) for s in range(4) if (bits >> s) & 1) for bits in range(16)],
    dtype=np.uint64,
)


# --- Small helpers ---------------------------------------------------------------------


@intrinsic
def borrow_nb(typingctx, arr):
    """The same array without its reference count (a null meminfo), for passing to a
    non-inlined function that only reads it during the call. A call that takes the
    kernel's own arrays makes Numba keep atomic reference counting on them around every
    decision (~20 ns); borrowed views cost nothing."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        out = context.make_array(sig.return_type)(context, builder)
        context.populate_array(
            out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
            meminfo=None,
        )  # fmt: skip
        return out._getvalue()

    return arr(arr), codegen


@njit(cache=True, forceinline=True)
def holding_nb(hand, suit):
    """The ranks held in a suit as a small mask (bit r = rank r; spades 15 bits)."""
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


@njit(cache=True, forceinline=True)
def weakest_discard_nb(legal):
    """Discard: the lowest card of the side suit whose highest card is lowest (keep
    spades and strong suits); only spades left: the lowest spade."""
    best = -1
    best_top = 99
    for suit in range(3):
        m = legal & SUIT_MASKS[suit]
        if m:
            top = highest_card_nb(m) - 13 * suit
            if top < best_top:
                best_top = top
                best = lowest_card_nb(m)
    return best if best >= 0 else lowest_card_nb(legal)


@njit(cache=True, forceinline=True)
def cheapest_equal_nb(mine, top, unseen):
    """The lowest of ``mine`` that is as good as card ``top`` (no unseen card between)."""
    gap = unseen & below_mask_nb(top) & SUIT_MASKS[suit_of_nb(top)]
    if gap:
        return lowest_card_nb(mine & above_nb(highest_card_nb(gap)))
    return lowest_card_nb(mine & SUIT_MASKS[suit_of_nb(top)])


@njit(inline="always", cache=True)
def has_played_nb(info, s, players):
    """Whether seat ``s`` has already played to the current trick."""
    return (s - info[L.I_LEADER] + players) % players < info[L.I_N_IN_TRICK]


# --- Hand evaluation -------------------------------------------------------------------


@njit(cache=True, forceinline=True)
def count_value_nb(hand, king_value, spade_length, short_value):
    """The classic count of sure tricks: side aces and guarded kings, spade honours and
    length beyond ``spade_length``, voids and singletons with spare spades."""
    value = 0.0
    shortness = 0.0
    for suit in range(3):
        h = holding_nb(hand, suit)
        n = popcount_nb(h)
        if n <= 1:
            shortness += short_value if n == 0 else 0.5 * short_value
        if h & np.uint64(1 << 12):
            value += 1.0 if n <= 6 else 0.5
        if n >= 2 and h & np.uint64(1 << 11):
            value += king_value if n <= 5 else 0.5 * king_value
        if 3 <= n <= 5 and h & np.uint64(1 << 10):
            value += 0.25
    sp = holding_nb(hand, 3)
    n_spades = popcount_nb(sp)
    value += popcount_nb(sp >> np.uint64(12))  # AS, LJ, BJ
    if n_spades >= 2 and sp & np.uint64(1 << 11):
        value += 1.0
    if n_spades >= 3 and sp & np.uint64(1 << 10):
        value += 0.75
    if n_spades > spade_length:
        value += n_spades - spade_length
    spare = n_spades - 2
    if spare > 0:
        value += min(shortness, spare * 0.5)
    return value


@njit(cache=True, forceinline=True)
def pagat_value_nb(hand, queen_value, trump_length):
    """The point count of the published guide (see ``spades_sim.policies``): aces (half
    in 7+ suits), kings by suit length and company, queens in short suits, trump honours
    counted when protected by enough lower trumps, trump length, then ruffs in short
    suits by the spades not yet counted."""
    value = 0.0
    ruffs = 0.0
    for suit in range(3):
        h = holding_nb(hand, suit)
        n = popcount_nb(h)
        ace = (h >> np.uint64(12)) & ONE
        king = (h >> np.uint64(11)) & ONE
        queen = (h >> np.uint64(10)) & ONE
        if ace:
            value += 1.0 if n < 7 else 0.5
        if king:
            value += 0.25 if (n == 1 or n >= 5) else 0.75
            if n < 6 and h & np.uint64((1 << 12) | (1 << 10) | (1 << 9)):
                value += 0.25
        if queen and n <= 5:
            value += 2.0 * queen_value if (ace and king) else queen_value
        ruffs += 1.0 if n == 0 else (0.5 if n == 1 else (0.25 if n == 2 else 0.0))
    sp = holding_nb(hand, 3)
    n_spades = popcount_nb(sp)
    top = 14 if sp >> np.uint64(13) else 12
    counted = 0.0
    for rank in range(9, 15):  # J, Q, K, A and the jokers
        if (sp >> np.uint64(rank)) & ONE:
            unowned = (top - rank) - popcount_nb(sp >> np.uint64(rank + 1))
            lower = popcount_nb(sp & np.uint64((1 << rank) - 1))
            if unowned <= 0 or unowned < lower:
                counted += 1.0
            elif unowned == lower:
                counted += 0.5
    value += counted
    length = max(n_spades - trump_length, 0.0)
    value += length
    spare = n_spades - counted - length
    if spare > 0:
        value += min(ruffs, spare)
    return value


@njit(cache=True, forceinline=True)
def table_sum_nb(hand, side, spade):
    """Sum of per-rank weights over a hand: ``side[r]`` per side card, ``spade[r]`` per
    spade (jokers ranks 13 and 14)."""
    total = 0.0
    for suit in range(3):
        h = holding_nb(hand, suit)
        for rank in range(13):
            if (h >> np.uint64(rank)) & ONE:
                total += side[rank]
    sp = holding_nb(hand, 3)
    for rank in range(15):
        if (sp >> np.uint64(rank)) & ONE:
            total += spade[rank]
    return total


@njit(cache=True, forceinline=True)
def two_player_value_nb(hand):
    """Two players (no partner, 13 two-card tricks): expected tricks as a sum of weights
    per card by rank (side suits and spades apart) and per side-suit length, fitted by
    least squares on 60,000 simulated two-player hands (``heuristic`` play)."""
    value = BASE_2P + table_sum_nb(hand, SIDE_2P, SPADE_2P)
    for suit in range(3):
        value += LENGTH_2P[min(popcount_nb(holding_nb(hand, suit)), 7)]
    return value


@njit(cache=True, forceinline=True)
def two_player_nil_risk_nb(hand):
    """Two players: the nil risk is ``NIL_BASE_2P`` minus the fitted log-odds weights of the
    cards (deuces help; high side cards and any spade hurt), a logistic fit on 60,000
    simulated two-player nils; the default threshold 1.5 bids nil when the fitted chance
    of making it is about 60%."""
    return NIL_BASE_2P - table_sum_nb(hand, NIL_SIDE_2P, NIL_SPADE_2P)


@njit(cache=True, forceinline=True)
def seat_nil_risk_nb(hand, four):
    """The nil risk of a hand for four players or two."""
    return nil_risk_nb(hand) if four else two_player_nil_risk_nb(hand)


BASE_2P = 0.93 - 0.75  # the fit, shaded by 3/4 trick (counts of sure tricks shade too)
SIDE_2P = np.array(
    [-0.26, -0.23, -0.22, -0.21, -0.2, -0.19, -0.18, -0.19, -0.15, -0.1, 0.09, 0.42, 0.61]
)
SPADE_2P = np.array(
    [0.56, 0.57, 0.56, 0.76, 0.8, 0.82, 0.9, 0.95, 1.04, 1.19, 1.45, 1.67, 1.66, 1.7, 1.75]
)
LENGTH_2P = np.array([-0.02, -0.29, -0.14, 0.18, 0.52, 0.79, 0.87, 0.88])
NIL_BASE_2P = 3.65 + 1.9  # fitted intercept, plus the shift that puts 1.5 at ~60%
NIL_SIDE_2P = np.array(
    [1.87, 0.42, 0.04, -0.14, -0.42, -0.71, -0.88, -0.82, -0.85, -1.09, -1.13, -0.91, -0.93]
)
NIL_SPADE_2P = np.array(
    [-0.6, -1.1, -1.8, -1.9, -2.3, -2.5, -2.9, -3.0, -3.1, -3.3, -6.1, -6.2, -6.2, -6.5, -6.5]
)


@njit(cache=True, forceinline=True)
def nil_risk_nb(hand):
    """A nil-risk score: long spades, high spades, and side honours by how many lower
    cards protect them (A, K, Q, J, T with no guards are worst; Axxx is acceptable)."""
    sp = holding_nb(hand, 3)
    n_spades = popcount_nb(sp)
    risk = max(n_spades - 3, 0) * 1.0
    for rank in range(7, 15):  # 9S and up
        if (sp >> np.uint64(rank)) & ONE:
            risk += (rank - 6) * 0.7
    for suit in range(3):
        h = holding_nb(hand, suit)
        for rank in range(8, 13):  # T, J, Q, K, A
            if (h >> np.uint64(rank)) & ONE:
                guards = popcount_nb(h & np.uint64((1 << rank) - 1))
                risk += (rank - 7) * 0.5 * max(1.0 - 0.3 * guards, 0.1)
        if h and not h & LOW_BITS:
            risk += 0.5
    return risk


# --- Bidding ---------------------------------------------------------------------------


@njit(cache=True, forceinline=True)
def nil_ok_nb(risk, threshold, four, partner_bid, partner_nil, partner_min):
    """Nil when the risk is at most ``threshold`` and the partner situation allows it: a
    partner who has bid (``partner_bid`` >= 0) must have bid a number >= ``partner_min``."""
    return risk <= threshold and (
        not four or partner_bid < 0 or (partner_nil == 0 and partner_bid >= partner_min)
    )


@njit(cache=True, forceinline=True)
def round_bid_nb(value, bias, round_up):
    """An estimate plus ``bias`` as a bid of 1..13, rounded up from ``round_up``."""
    return min(max(np.int64(np.floor(value + bias + 1.0 - round_up)), 1), 13)


@njit(inline="always", cache=True)
def nil_allowed_nb(seat, info, params, threshold, risk):
    """``nil_ok_nb`` for a seat at the table (for the non-inlined bidders)."""
    p = seat ^ 2
    return nil_ok_nb(
        risk, threshold, info[L.I_PLAYERS] == 4, info[L.I_BIDS + p], info[L.I_NIL + p],
        params[B_NIL_PARTNER_MIN],
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def counting_bid_core_nb(
    hand, four, policy, partner_bid, partner_nil, bias, threshold, partner_min, round_up, a, b, c
):
    """The count and pagat bidders on scalars: nil when the nil risk is at most
    ``threshold`` and a partner who has bid (``partner_bid`` >= 0) bid a number of at least
    ``partner_min``; otherwise the estimate plus ``bias``, rounded up from ``round_up``
    (``a``, ``b``, ``c``: the policy's own parameters)."""
    if nil_ok_nb(
        seat_nil_risk_nb(hand, four), threshold, four, partner_bid, partner_nil, partner_min
    ):
        return 0
    if not four:
        value = two_player_value_nb(hand)
    elif policy == L.BID_COUNT:
        value = count_value_nb(hand, a, b, c)
    else:
        value = pagat_value_nb(hand, a, b)
    return round_bid_nb(value, bias, round_up)


@njit(inline="always", cache=True)
def counting_bid_nb(hand, seat, info, params, policy):
    """The count (``policy`` BID_COUNT) and pagat bidders (see ``counting_bid_core_nb``)."""
    p = seat ^ 2
    return counting_bid_core_nb(
        hand, info[L.I_PLAYERS] == 4, policy, info[L.I_BIDS + p], info[L.I_NIL + p],
        params[B_BIAS], params[B_NIL_THRESHOLD], params[B_NIL_PARTNER_MIN], params[B_ROUND_UP],
        params[9], params[10], params[11],
    )  # fmt: skip


PAGAT_QUEEN = 0.25
PAGAT_TRUMP_LENGTH = 4.0


@njit(cache=True)
def partner_aware_bid_nb(hand, seat, info, rules, params):
    """Partner-aware bidding: the guide's count, adjusted to the table and the score."""
    players = info[L.I_PLAYERS]
    four = players == 4
    if four:
        value = pagat_value_nb(hand, PAGAT_QUEEN, PAGAT_TRUMP_LENGTH)
    else:
        value = two_player_value_nb(hand)
    side = seat & 1 if four else seat
    threshold = params[B_NIL_THRESHOLD]
    # the table: bids so far against 13 tricks, nils by partner or opponents
    known = 0
    unbid = 0
    opp_nil = False
    for s in range(players):
        if s == seat:
            continue
        b = info[L.I_BIDS + s]
        if b < 0:
            unbid += 1
        elif info[L.I_NIL + s] != 0:
            if four and s == (seat ^ 2):
                value += params[B_NIL_COVER_BONUS]
            else:
                opp_nil = True
        else:
            known += b
    if opp_nil:
        value += params[B_OPP_NIL_BONUS]
    excess = known + value + 3.0 * unbid - 13.0
    if excess > 0:
        value -= params[B_OVERBID_CUT] * excess
    if four and info[L.I_BIDS + (seat ^ 2)] >= 4 and info[L.I_NIL + (seat ^ 2)] == 0:
        threshold += 0.5
    # the game: bags near the limit, score near the target or far behind
    if (
        rules[L.R_BAG_PENALTY] > 0
        and info[L.I_BAGS + side] >= rules[L.R_BAG_LIMIT] - params[B_BAG_MARGIN]
    ):
        value += params[B_BAG_PUSH]
    mine = info[L.I_SCORES + side]
    theirs = info[L.I_SCORES + 1 - side]
    if mine >= rules[L.R_TARGET] - params[B_SCORE_MARGIN] and mine > theirs:
        value -= params[B_SCORE_SHADE]
        threshold -= 0.5
    elif theirs - mine >= params[B_SCORE_MARGIN]:
        value += params[B_SCORE_SHADE]
        threshold += 0.5
    if nil_allowed_nb(seat, info, params, threshold, seat_nil_risk_nb(hand, four)):
        return 0
    return round_bid_nb(value, params[B_BIAS], params[B_ROUND_UP])


@njit(cache=True, forceinline=True)
def blind_nil_core_nb(
    four, deficit, bags, partner_bid, partner_nil, need_deficit, max_bags, partner_min, before
):
    """Blind nil when behind by at least ``need_deficit`` with at most ``max_bags`` bags,
    and (four players) a partner who has bid a number >= ``partner_min`` or, when
    ``before``, is still to bid."""
    if deficit < need_deficit or bags > max_bags:
        return False
    if not four:
        return True
    if partner_bid < 0:
        return before
    return partner_nil == 0 and partner_bid >= partner_min


@njit(inline="always", cache=True)
def blind_nil_wanted_nb(seat, info, rules, params, rand):
    """Whether a seat declares blind nil before seeing its cards (the rules allow it).

    ``random`` with probability ``blind_nil_rate``; the other bidders by score deficit,
    bags and the partner's position (``blind_nil_core_nb``)."""
    four = info[L.I_PLAYERS] == 4
    side = seat & 1
    p = seat ^ 2
    wanted = blind_nil_core_nb(
        four, info[L.I_SCORES + 1 - side] - info[L.I_SCORES + side], info[L.I_BAGS + side],
        info[L.I_BIDS + p], info[L.I_NIL + p], params[B_BLIND_DEFICIT],
        params[B_BLIND_MAX_BAGS], params[B_BLIND_PARTNER_MIN], params[B_BLIND_BEFORE_PARTNER] > 0,
    )  # fmt: skip
    if np.int64(params[0]) == L.BID_RANDOM:
        wanted = unit_nb(mix64_nb(rand + GOLDEN)) < params[2]
    return wanted


# --- Play ------------------------------------------------------------------------------


@njit(cache=True, forceinline=True)
def duck_nb(legal, n_in, last, led, win_card):
    """Try not to win: lead the lowest rank; otherwise the highest card that still loses;
    if every card wins, the highest when last (the trick is lost anyway), else the lowest
    (a later player may still overtake)."""
    if n_in == 0:
        return low_rank_card_nb(legal)
    beats = legal & above_nb(win_card) & (SUIT_MASKS[led] | SPADE_MASK)
    loses = legal & ~beats
    if loses:
        return high_rank_card_nb(loses)
    return highest_card_nb(legal) if last else lowest_card_nb(legal)


@njit(cache=True, forceinline=True)
def lead_nb(legal, unseen, opp_voids, cash, draw_trumps):
    """Lead for tricks: a sure winner in a suit no opponent has shown out of (or with no
    spades left out), the top spade to draw trumps, else low from the weakest side suit."""
    spades_out = unseen & SPADE_MASK
    if cash:
        for suit in range(3):
            m = legal & SUIT_MASKS[suit]
            if m and (spades_out == ZERO or not (opp_voids >> suit) & 1):
                top = highest_card_nb(m)
                if not unseen & SUIT_MASKS[suit] & above_nb(top):
                    return cheapest_equal_nb(m, top, unseen)
    sp = legal & SPADE_MASK
    if draw_trumps and sp and spades_out:
        top = highest_card_nb(sp)
        if top > highest_card_nb(spades_out):
            return cheapest_equal_nb(sp, top, unseen)
    side = legal & NON_SPADE_MASK
    return weakest_discard_nb(side if side else legal)


@njit(cache=True, forceinline=True)
def follow_nb(legal, second, last, led, win_card, partner_wins, unseen, cash, second_trump):
    """Follow for tricks: second hand low unless holding a sure winner, third hand high
    but as cheaply as an equal card allows, last hand wins as cheaply as possible, never
    overtake a winning partner; void: trump (over a trump) when it can win, except in
    second seat unless ``second_trump``; otherwise discard from the weakest suit."""
    trumped = win_card >= 39 and led != 3
    follow = legal & SUIT_MASKS[led]
    if follow:
        if trumped or partner_wins:
            return lowest_card_nb(follow)
        beaters = follow & above_nb(win_card)
        if not beaters:
            return lowest_card_nb(follow)
        if last:
            return lowest_card_nb(beaters)
        rest = unseen & SUIT_MASKS[led]
        masters = follow & above_nb(highest_card_nb(rest)) if rest else follow
        if second:
            return lowest_card_nb(masters if (masters and cash) else follow)
        if masters:
            return lowest_card_nb(masters)
        return cheapest_equal_nb(beaters, highest_card_nb(beaters), unseen)
    sp = legal & SPADE_MASK
    if partner_wins or not sp:
        return weakest_discard_nb(legal)
    if trumped:
        over = sp & above_nb(win_card)
        return lowest_card_nb(over) if over else weakest_discard_nb(legal)
    if second and not second_trump:
        return weakest_discard_nb(legal)
    return lowest_card_nb(sp)


@njit(cache=True, forceinline=True)
def cover_nb(legal, n_in, led, win_card, partner_played, partner_wins, partner_voids):
    """Partner of a live nil: lead high (in a suit the nil bidder is void in if any); before
    the nil bidder plays, set the bar high (top card, or a trump when void); after it,
    overtake it as cheaply as possible. -1: no special card, play on."""
    if n_in == 0:
        for suit in range(3):
            m = legal & SUIT_MASKS[suit]
            if m and (partner_voids >> suit) & 1:
                return highest_card_nb(m)
        return high_rank_card_nb(legal)
    if partner_played:
        if partner_wins:
            beats = legal & above_nb(win_card) & (SUIT_MASKS[led] | SPADE_MASK)
            if beats:
                return lowest_card_nb(beats)
        return -1
    follow = legal & SUIT_MASKS[led]
    if follow:
        top = highest_card_nb(follow)
        return top if top > win_card else lowest_card_nb(follow)
    over = legal & SPADE_MASK & above_nb(win_card)
    return lowest_card_nb(over) if over else weakest_discard_nb(legal)


@njit(cache=True, forceinline=True)
def attack_nb(legal, n_in, last, led, win_card, nil_played, nil_wins, nil_voids):
    """Opponent of a live nil: lead low in a suit the nil bidder still holds; play low
    before it; never overtake it. -1: no special card, play on."""
    if n_in == 0:
        m = legal & ~SUIT_MASKS_BY_BITS[nil_voids & 15]
        return low_rank_card_nb(m if m else legal)
    if not nil_played:
        follow = legal & SUIT_MASKS[led]
        return lowest_card_nb(follow) if follow else weakest_discard_nb(legal)
    if nil_wins:
        return duck_nb(legal, n_in, last, led, win_card)
    return -1


@njit(cache=True, forceinline=True)
def heuristic_core_nb(
    hand, legal, seat, players, n_in, leader, led, win_card, win_seat, unseen, alive, voids,
    need, opp_need, remaining, flags, set_push,
):  # fmt: skip
    """The heuristic on scalars (see ``heuristic_play_nb``): ``alive`` has bit s set when
    seat s has a live nil, ``voids`` holds four bits of known voids per seat, ``flags`` the
    on/off parameters (bit k: slot k + 1)."""
    if not legal & (legal - ONE):
        return lowest_card_nb(legal)
    last = n_in == players - 1
    if (alive >> seat) & 1:
        return duck_nb(legal, n_in, last, led, win_card)
    four = players == 4
    partner = seat ^ 2
    opp_a = seat ^ 1
    opp_b = seat ^ 3 if four else opp_a
    card = -1
    if four and flags & F_COVER and (alive >> partner) & 1:
        card = cover_nb(
            legal, n_in, led, win_card, (partner - leader + players) % players < n_in,
            win_seat == partner, (voids >> (4 * partner)) & 15,
        )  # fmt: skip
    elif flags & F_ATTACK and (alive >> opp_a | alive >> opp_b) & 1:
        target = opp_a if (alive >> opp_a) & 1 else opp_b
        card = attack_nb(
            legal, n_in, last, led, win_card, (target - leader + players) % players < n_in,
            win_seat == target, (voids >> (4 * target)) & 15,
        )  # fmt: skip
    if card >= 0:
        return card
    # a side that has made its bid ducks, unless a few more tricks would set the others
    if flags & F_BAG_AVOID and need <= 0 and (opp_need <= 0 or remaining + 1 - opp_need > set_push):
        return duck_nb(legal, n_in, last, led, win_card)
    if n_in == 0:
        opp_voids = ((voids >> (4 * opp_a)) | (voids >> (4 * opp_b))) & 15
        return lead_nb(legal, unseen, opp_voids, flags & F_CASH, flags & F_DRAW_TRUMPS)
    return follow_nb(
        legal, four and n_in == 1, last, led, win_card, four and win_seat == partner, unseen,
        flags & F_CASH, flags & F_SECOND_TRUMP,
    )  # fmt: skip


F_BAG_AVOID = 1 << (P_BAG_AVOID - 1)
F_COVER = 1 << (P_COVER_NIL - 1)
F_ATTACK = 1 << (P_ATTACK_NIL - 1)
F_SECOND_TRUMP = 1 << (P_SECOND_TRUMP - 1)
F_CASH = 1 << (P_CASH - 1)
F_DRAW_TRUMPS = 1 << (P_DRAW_TRUMPS - 1)


@njit(inline="always", cache=True)
def heuristic_play_nb(hand, legal, seat, info, rules, params):
    """The heuristic play policy (deterministic; ``spades_sim.policies`` describes it).

    Reads the table state into scalars and hands them to ``heuristic_core_nb``: keeping
    the arrays out of the branchy part lets Numba drop their reference counting."""
    players = info[L.I_PLAYERS]
    for_partner = rules[L.R_NIL_TRICKS_FOR_PARTNER] != 0
    alive = 0
    voids = 0
    need = 0
    opp_need = 0
    contract = 0
    opp_contract = 0
    for s in range(players):
        nil = info[L.I_NIL + s] != 0
        won = info[L.I_TRICKS_WON + s]
        alive |= np.int64(nil and won == 0) << s
        voids |= info[L.I_VOIDS + s] << (4 * s)
        bid = 0 if nil else info[L.I_BIDS + s]
        counted = won if (for_partner or not nil) else 0
        if (s & 1) == (seat & 1):
            contract += bid
            need += bid - counted
        else:
            opp_contract += bid
            opp_need += bid - counted
    flags = 0
    for k in range(1, 8):
        flags |= np.int64(params[k] > 0) << (k - 1)
    deck = JOKER_DECK if rules[L.R_JOKERS] else STANDARD_DECK
    return heuristic_core_nb(
        hand, legal, seat, players, info[L.I_N_IN_TRICK], info[L.I_LEADER],
        info[L.I_LED_SUIT], info[L.I_WINNING_CARD], info[L.I_WINNING_SEAT],
        deck & ~hand & ~np.uint64(info[L.I_PLAYED]), alive, voids,
        need if contract > 0 else -99, opp_need if opp_contract > 0 else -99,
        13 - info[L.I_TRICK], flags, params[P_SET_PUSH],
    )  # fmt: skip


# --- The heuristic for lock-step kernels ------------------------------------------------
# ``heuristic_lane_nb`` decides exactly as ``heuristic_core_nb`` (the tests hold them equal
# on thousands of table states) but without a branch: every candidate card is computed and
# the answer selected, so a loop over the lanes of a lock-step batch compiles to SIMD code.
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
    return (RANK_BITS << np.uint64(13 * suit)) | (JOKERS if suit == 3 else ZERO)


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


@njit(cache=True, forceinline=True)
def lane_weakest_nb(legal):
    """``weakest_discard_nb`` without a branch."""
    m0 = legal & RANK_BITS
    m1 = legal & (RANK_BITS << np.uint64(13))
    m2 = legal & (RANK_BITS << np.uint64(26))
    k0 = lane_hi_nb(m0) if m0 else 99
    k1 = lane_hi_nb(m1) - 13 if m1 else 99
    k2 = lane_hi_nb(m2) - 26 if m2 else 99
    best = m1 if k1 < k0 else m0
    key = min(k0, k1)
    best = m2 if k2 < key else best
    key = min(k2, key)
    return lane_lo_nb(best) if key < 99 else lane_lo_nb(legal)


@njit(cache=True, forceinline=True)
def lane_cheapest_equal_nb(mine, top, unseen, suit_mask):
    """``cheapest_equal_nb`` without a branch (``mine`` within the suit of ``suit_mask``)."""
    gap = unseen & ((ONE << np.uint64(max(top, 0))) - ONE) & suit_mask
    return lane_lo_nb(mine & lane_above_nb(lane_hi_nb(gap)))


@njit(cache=True, forceinline=True)
def lane_cash_nb(legal, unseen, spades_out, opp_voids, suit, current):
    """The cheapest sure winner in side suit ``suit`` when it may be cashed, else current."""
    sm = RANK_BITS << np.uint64(13 * suit)
    m = legal & sm
    top = lane_hi_nb(m)
    ok = (
        (m != ZERO)
        & ((spades_out == ZERO) | (((opp_voids >> suit) & 1) == 0))
        & ((unseen & sm & lane_above_nb(top)) == ZERO)
    )
    card = lane_cheapest_equal_nb(m, top, unseen, sm)
    return card if ok else current


@njit(cache=True, forceinline=True)
def lane_void_top_nb(legal, voids, suit, current):
    """The top card of side suit ``suit`` when a (partner's) void mask has it, else current."""
    m = legal & (RANK_BITS << np.uint64(13 * suit))
    return lane_hi_nb(m) if (m != ZERO) & (((voids >> suit) & 1) != 0) else current


@njit(cache=True, forceinline=True)
def heuristic_lane_nb(
    hand, legal, seat, players, n_in, leader, led, win_card, win_seat, unseen, alive, voids,
    need, opp_need, remaining, flags, set_push,
):  # fmt: skip
    """``heuristic_core_nb`` (same arguments, same card) computed without a branch."""
    return _heuristic_lane_nb(
        hand, legal, seat, players, n_in, n_in == 0, leader, led, win_card, win_seat, unseen,
        alive, voids, need, opp_need, remaining, flags, set_push,
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def _heuristic_lane_nb(
    hand, legal, seat, players, n_in, leading, leader, led, win_card, win_seat, unseen, alive,
    voids, need, opp_need, remaining, flags, set_push,
):  # fmt: skip
    # ``leading`` apart from ``n_in``: a lock-step caller passes a constant, and the lead
    # (or follow) half of the work folds away
    four = players == 4
    last = n_in == players - 1
    partner = seat ^ 2
    opp_a = seat ^ 1
    opp_b = seat ^ 3 if four else opp_a
    led_mask = lane_suit_mask_nb(max(led, 0)) if led >= 0 else ZERO
    lo_legal = lane_lo_nb(legal)
    # duck: the highest card that still loses
    beats = legal & lane_above_nb(win_card) & (led_mask | SPADE_MASK)
    loses = legal & ~beats
    duck = lane_high_rank_nb(loses) if loses else (lane_hi_nb(legal) if last else lo_legal)
    duck = lane_low_rank_nb(legal) if leading else duck
    # lead for tricks
    spades_out = unseen & SPADE_MASK
    opp_voids = ((voids >> (4 * opp_a)) | (voids >> (4 * opp_b))) & 15
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, 2, -1)
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, 1, cash)
    cash = lane_cash_nb(legal, unseen, spades_out, opp_voids, 0, cash)
    sp = legal & SPADE_MASK
    top_sp = lane_hi_nb(sp)
    draw = (sp != ZERO) & (spades_out != ZERO) & (top_sp > lane_hi_nb(spades_out))
    side = legal & NON_SPADE_MASK
    lead = lane_weakest_nb(side if side else legal)
    trumps = lane_cheapest_equal_nb(sp, top_sp, unseen, SPADE_MASK)
    lead = trumps if (flags & F_DRAW_TRUMPS) and draw else lead
    lead = cash if (flags & F_CASH) and cash >= 0 else lead
    # follow for tricks
    trumped = (win_card >= 39) & (led != 3)
    partner_wins = four & (win_seat == partner)
    follow = legal & led_mask
    lo_follow = lane_lo_nb(follow)
    beaters = follow & lane_above_nb(win_card)
    masters = follow & lane_above_nb(lane_hi_nb(unseen & led_mask))
    second = four & (n_in == 1)
    cheap = lane_cheapest_equal_nb(beaters, lane_hi_nb(beaters), unseen, led_mask)
    third = lane_lo_nb(masters) if masters else cheap
    second_card = lane_lo_nb(masters) if (masters and flags & F_CASH) else lo_follow
    winning = lane_lo_nb(beaters) if last else (second_card if second else third)
    on_suit = winning if (beaters and not (trumped or partner_wins)) else lo_follow
    discard = lane_weakest_nb(legal)
    over = sp & lane_above_nb(win_card)
    ruff = lane_lo_nb(over) if over else discard
    ruff = (
        ruff
        if trumped
        else (discard if (second and not flags & F_SECOND_TRUMP) else lane_lo_nb(sp))
    )
    off_suit = ruff if (sp and not partner_wins) else discard
    card = lead if leading else (on_suit if follow else off_suit)
    # a side that has made its bid ducks, unless a few more tricks would set the others
    ducking = (
        (flags & F_BAG_AVOID)
        and need <= 0
        and (opp_need <= 0 or remaining + 1 - opp_need > set_push)
    )
    card = duck if ducking else card
    # a partner's live nil: cover it; an opponent's: try to set it
    covering = four and (flags & F_COVER) and (alive >> partner) & 1
    partner_voids = (voids >> (4 * partner)) & 7
    cover_lead = lane_high_rank_nb(legal)
    cover_lead = lane_void_top_nb(legal, partner_voids, 2, cover_lead)
    cover_lead = lane_void_top_nb(legal, partner_voids, 1, cover_lead)
    cover_lead = lane_void_top_nb(legal, partner_voids, 0, cover_lead)
    cover_after = lane_lo_nb(beats) if (win_seat == partner and beats) else -1
    hi_follow = lane_hi_nb(follow)
    trump_over = legal & SPADE_MASK & lane_above_nb(win_card)
    cover_before = (
        (hi_follow if hi_follow > win_card else lo_follow)
        if follow
        else (lane_lo_nb(trump_over) if trump_over else discard)
    )
    partner_played = (partner - leader + players) & (players - 1) < n_in
    cover = cover_lead if leading else (cover_after if partner_played else cover_before)
    target = opp_a if (alive >> opp_a) & 1 else opp_b
    attacking = (flags & F_ATTACK) and (alive >> target) & 1
    still_in = legal & ~lane_void_mask_nb((voids >> (4 * target)) & 15)
    attack_lead = lane_low_rank_nb(still_in if still_in else legal)
    attack_before = lo_follow if follow else discard
    attack_after = duck if win_seat == target else -1
    target_played = (target - leader + players) & (players - 1) < n_in
    attack = attack_lead if leading else (attack_after if target_played else attack_before)
    special = cover if covering else (attack if attacking else -1)
    card = special if special >= 0 else card
    card = duck if (alive >> seat) & 1 else card
    return lo_legal if not legal & (legal - ONE) else card


# Lock-step state: the fields of ``lockstep.py`` plus what the heuristic reads. Field f
# of deal b is ``st[f * LANES + b]``; bids and nil flags are set before play (nil 0/1,
# seats beyond the players 0), played and voids are cleared by the play function.
H_PLAYED = N_FIELDS
H_VOIDS = N_FIELDS + 1  # 4 bits per seat: the suits it has shown out of
H_BIDS = N_FIELDS + 2  # 4 fields
H_NILS = N_FIELDS + 6  # 4 fields
H_ALIVE = N_FIELDS + 10  # seats with a live nil, a bit each
H_NEED = N_FIELDS + 11  # 2 fields: tricks each side still needs (-99: no contract)
N_HEURISTIC_FIELDS = N_FIELDS + 13


@njit(cache=True, forceinline=True)
def _at_nb(field, lane):
    return field * LANES + lane


@njit(cache=True, forceinline=True)
def heuristic_flags_nb(params):
    """The on/off parameters of a heuristic parameter vector as ``heuristic_core_nb``'s
    ``flags`` (bit k for slot k + 1)."""
    flags = 0
    for k in range(1, 8):
        flags |= np.int64(params[k] > 0) << (k - 1)
    return flags


@njit(cache=True, forceinline=True)
def _heuristic_position_nb(
    st, trick_no, j, leading, players, two_clubs, any_time, deck, flags0, flags1, push0, push1
):
    first_trick = trick_no == 0
    seat_bits = np.uint64(players - 1)
    for b in range(LANES):
        leader_u = st[_at_nb(F_LEADER, b)]
        seat = np.int64((leader_u + np.uint64(j)) & seat_bits)
        h0 = st[_at_nb(F_HAND, b)]
        h1 = st[_at_nb(F_HAND + 1, b)]
        h2 = st[_at_nb(F_HAND + 2, b)]
        h3 = st[_at_nb(F_HAND + 3, b)]
        hand = (
            (h0 & (ZERO - np.uint64(seat == 0)))
            | (h1 & (ZERO - np.uint64(seat == 1)))
            | (h2 & (ZERO - np.uint64(seat == 2)))
            | (h3 & (ZERO - np.uint64(seat == 3)))
        )
        led_now = np.int64(st[_at_nb(F_LED, b)])
        led = -1 if leading else led_now
        played = st[_at_nb(H_PLAYED, b)]
        # the legal cards, as legal_cards_nb
        side = hand & NON_SPADE_MASK
        restricted = side if side != ZERO else hand
        free = (not first_trick) and (any_time or st[_at_nb(F_BROKEN, b)] != ZERO)
        lead_legal = hand if free else restricted
        lead_legal = ONE if (first_trick and two_clubs and hand & ONE) else lead_legal
        follow = hand & lane_suit_mask_nb(max(led_now, 0))
        legal = lead_legal if leading else (follow if follow != ZERO else hand)
        # the table state the heuristic reads (kept per trick by _heuristic_needs_nb)
        alive = np.int64(st[_at_nb(H_ALIVE, b)])
        need0 = np.int64(st[_at_nb(H_NEED, b)])
        need1 = np.int64(st[_at_nb(H_NEED + 1, b)])
        odd = (seat & 1) == 1
        win_card = np.int64(st[_at_nb(F_WIN_CARD, b)])
        win_seat = np.int64(st[_at_nb(F_WIN_SEAT, b)])
        voids = np.int64(st[_at_nb(H_VOIDS, b)])
        card = _heuristic_lane_nb(
            hand, legal, seat, players, j, leading, np.int64(leader_u), led,
            -1 if leading else win_card, -1 if leading else win_seat,
            deck & ~hand & ~played, alive, voids,
            need1 if odd else need0, need0 if odd else need1, 13 - trick_no,
            flags1 if odd else flags0, push1 if odd else push0,
        )  # fmt: skip
        # play it, as play_tricks_nb does
        ucard = np.uint64(card)
        keep = ~(ONE << ucard)
        st[_at_nb(F_HAND, b)] = h0 & keep
        st[_at_nb(F_HAND + 1, b)] = h1 & keep
        st[_at_nb(F_HAND + 2, b)] = h2 & keep
        st[_at_nb(F_HAND + 3, b)] = h3 & keep
        suit = np.int64(card >= 13) + np.int64(card >= 26) + np.int64(card >= 39)
        spade = card >= 39
        st[_at_nb(F_BROKEN, b)] |= np.uint64(spade)
        st[_at_nb(H_PLAYED, b)] = played | (ONE << ucard)
        beats_now = (card > win_card) and ((suit == led_now) or spade)
        shown_out = np.int64(suit != led_now) << (4 * seat + max(led_now, 0))
        st[_at_nb(H_VOIDS, b)] = np.uint64(voids if leading else voids | shown_out)
        st[_at_nb(F_LED, b)] = np.uint64(suit) if leading else np.uint64(led_now)
        take = leading or beats_now
        st[_at_nb(F_WIN_CARD, b)] = ucard if take else np.uint64(win_card)
        st[_at_nb(F_WIN_SEAT, b)] = np.uint64(seat) if take else np.uint64(win_seat)


@njit(cache=True, forceinline=True)
def _heuristic_needs_nb(st, for_partner):
    """Per lane, the live nils and what each side still needs, as ``heuristic_play_nb``
    computes them; they change only when a trick is won."""
    for b in range(LANES):
        t0 = np.int64(st[_at_nb(F_TRICKS, b)])
        t1 = np.int64(st[_at_nb(F_TRICKS + 1, b)])
        t2 = np.int64(st[_at_nb(F_TRICKS + 2, b)])
        t3 = np.int64(st[_at_nb(F_TRICKS + 3, b)])
        n0 = st[_at_nb(H_NILS, b)] != ZERO
        n1 = st[_at_nb(H_NILS + 1, b)] != ZERO
        n2 = st[_at_nb(H_NILS + 2, b)] != ZERO
        n3 = st[_at_nb(H_NILS + 3, b)] != ZERO
        alive = (
            np.int64(n0 and t0 == 0)
            | (np.int64(n1 and t1 == 0) << 1)
            | (np.int64(n2 and t2 == 0) << 2)
            | (np.int64(n3 and t3 == 0) << 3)
        )
        b0 = 0 if n0 else np.int64(st[_at_nb(H_BIDS, b)])
        b1 = 0 if n1 else np.int64(st[_at_nb(H_BIDS + 1, b)])
        b2 = 0 if n2 else np.int64(st[_at_nb(H_BIDS + 2, b)])
        b3 = 0 if n3 else np.int64(st[_at_nb(H_BIDS + 3, b)])
        c0 = t0 if (for_partner or not n0) else 0
        c1 = t1 if (for_partner or not n1) else 0
        c2 = t2 if (for_partner or not n2) else 0
        c3 = t3 if (for_partner or not n3) else 0
        k0 = b0 + b2
        k1 = b1 + b3
        st[_at_nb(H_ALIVE, b)] = np.uint64(alive)
        st[_at_nb(H_NEED, b)] = np.uint64(k0 - c0 - c2 if k0 > 0 else -99)
        st[_at_nb(H_NEED + 1, b)] = np.uint64(k1 - c1 - c3 if k1 > 0 else -99)


@njit(cache=True)
def play_heuristic_lockstep_nb(st, players, two_clubs, any_time, jokers, for_partner, params0,
                               params1):  # fmt: skip
    """Play 13 tricks of the ``heuristic`` in all ``LANES`` deals of ``st`` (layout above:
    hands, leader, tricks 0, bids and nil flags set), side s with parameters ``params{s}``.
    Every card is the one ``heuristic_play_nb`` picks in the same state, so the results
    equal the scalar path's; the loop over lanes has no branch and compiles to SIMD."""
    deck = JOKER_DECK if jokers else STANDARD_DECK
    flags0 = heuristic_flags_nb(params0)
    flags1 = heuristic_flags_nb(params1)
    push0 = params0[P_SET_PUSH]
    push1 = params1[P_SET_PUSH]
    for b in range(LANES):
        st[_at_nb(F_BROKEN, b)] = ZERO
        st[_at_nb(H_PLAYED, b)] = ZERO
        st[_at_nb(H_VOIDS, b)] = ZERO
    for trick_no in range(13):
        _heuristic_needs_nb(st, for_partner)
        _heuristic_position_nb(
            st, trick_no, 0, True, players, two_clubs, any_time, deck, flags0, flags1, push0, push1
        )
        for j in range(1, players):
            _heuristic_position_nb(
                st, trick_no, j, False, players, two_clubs, any_time, deck, flags0, flags1,
                push0, push1,
            )  # fmt: skip
        end_trick_nb(st)


# --- Exchanges and the two-player draw -------------------------------------------------


@njit(inline="always", cache=True)
def danger_card_nb(k):
    """The k-th most dangerous card for a nil bidder (k = 0..53): the jokers and spades
    from the top, then the side suits rank by rank from the aces down (hearts first)."""
    if k < 15:
        return 53 - k
    k -= 15
    return (2 - k % 3) * 13 + 12 - k // 3


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
    """Two-player draw policy ``draw_params[0]``: keep the drawn card or not.

    ``threshold``: keep a high card (spade from ``spade_rank``, side card from
    ``side_rank``), or going for (blind) nil a low side card up to ``nil_rank``. ``plan``:
    the same, but after ``commit_after`` kept cards a hand whose nil risk is at most
    ``nil_commit`` plays for nil (low side cards, spades up to ``nil_spade_rank``). Ranks
    are 0 (deuce) .. 12 (ace), jokers 13 and 14.
    """
    rank = rank_of_nb(card)
    spade = card >= 39
    nil = going_nil
    if not nil and np.int64(draw_params[0]) == L.DRAW_PLAN:
        if kept_so_far >= draw_params[D_COMMIT_AFTER]:
            nil = -table_sum_nb(held, NIL_SIDE_2P, NIL_SPADE_2P) <= draw_params[D_NIL_COMMIT]
        if nil:
            return (
                rank <= draw_params[D_NIL_SPADE_RANK] if spade else rank <= draw_params[D_NIL_RANK]
            )
    if nil:
        return (not spade) and rank <= draw_params[D_NIL_RANK]
    if spade:
        return rank >= draw_params[D_SPADE_RANK]
    return rank >= draw_params[D_SIDE_RANK]


# --- Dispatchers -----------------------------------------------------------------------
# The sampling policies live in rollout.py, which plays with the heuristic above.
from spades_sim._nb.rollout import lookahead_play_nb, monte_carlo_bid_nb  # noqa: E402


@njit(inline="always", cache=True)
def builtin_bid_nb(hand, seat, info, rules, params, rand):
    """Bid 0..13 (0 = nil) with the built-in bidding policy ``params[0]``."""
    policy = np.int64(params[0])
    if policy == L.BID_RANDOM:
        bits = mix64_nb(rand)
        if unit_nb(bits) < params[1]:
            return 0
        return 1 + below_nb(mix64_nb(rand + GOLDEN) & LOW32, np.int64(params[3]))
    if policy == L.BID_PARTNER:
        return partner_aware_bid_nb(
            hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params)
        )
    if policy == L.BID_MONTE_CARLO:
        return monte_carlo_bid_nb(
            hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand
        )
    return counting_bid_nb(hand, seat, info, params, policy)


@njit(inline="always", cache=True)
def builtin_play_nb(hand, legal, seat, info, rules, params, rand):
    """Play a card of ``legal`` with the built-in play policy ``params[0]``."""
    policy = np.int64(params[0])
    if policy == L.PLAY_HEURISTIC:
        return heuristic_play_nb(hand, legal, seat, info, rules, params)
    if policy == L.PLAY_LOOKAHEAD:
        return lookahead_play_nb(
            hand, legal, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand
        )
    n = popcount_nb(legal)
    k = below_nb(mix64_nb(rand) & LOW32, n)
    return select_bit_nb(legal, k)
