"""Bidding: hand evaluation and the count, pagat and partner-aware bidders; blind nil;
the bids the table's bid rule allows.

``bid_range_nb`` says which bids the bid rule (``RuleField.bid_rule``) allows a bidder
and ``legal_bid_nb`` turns any bid into an allowed one (the nearest: a nil stays nil
where nil is allowed, a number is brought into the allowed numbers, and a bidder with
no number allowed bids nil); every policy's bid goes through it (``prepare.ask_bid_nb``
and the lock-step bidding), so a bid forced by the rule is the bid. ``bid_error_nb``
checks recorded bids against the rule.

Every function sees only the bidder's own ``hand`` and the public table state ``info``
(bids so far, scores, bags). The evaluations (``count_value_nb``, ``pagat_value_nb``,
the two-player fits, ``nil_risk_nb``) are scalar-only and ``forceinline``; the
bidders read the arrays into scalars before calling them (see ``heuristic.py`` on why
that matters for speed). ``partner_aware_bid_nb`` is a separate cached function, called
with borrowed arrays from the dispatcher (``policies.py``).
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import (
    ONE,
    RANK_BITS,
    SPADE_MASK,
    deck_mask_nb,
    holding_nb,
    popcount_nb,
)
from spades_sim._nb.enums import (
    BidError,
    BidParam,
    BidPolicy,
    BidRuleId,
    InfoSlot,
    PartnerParam,
    RandomBidParam,
    RuleField,
)
from spades_sim._nb.rng import (
    GOLDEN,
    mix64_nb,
    unit_nb,
)
from spades_sim._nb.score import best_other_nb, hand_tricks_nb, partner_bid_nb, side_of_nb

OWN_SLOT = len(BidParam) + 1  # the first slot of the count's or pagat's own parameters


@njit(inline="always", cache=True)
def bid_rules_nb(rules):
    """What ``bid_range_core_nb`` reads of the rule array, as a tuple of scalars (the
    last: the tricks of a hand, the highest bid)."""
    return (
        rules[RuleField.bid_rule], rules[RuleField.min_side_bid],
        rules[RuleField.min_number_bid], rules[RuleField.min_side_bid_nil_exempt],
        hand_tricks_nb(rules),
    )  # fmt: skip


@njit(inline="always", cache=True)
def bid_range_core_nb(table, spades, partner_bid):
    """The bids the bid rule allows a bidder holding ``spades`` spades whose partner bid
    ``partner_bid`` (-1: not yet, or no partner): (nil allowed, lowest number, highest
    number), no number when lowest > highest. ``table`` is ``bid_rules_nb``'s tuple: the
    bid rule (a ``BidRuleId``) and the minimum bids. Selects only, no branch: the
    lock-step bidding calls it for 64 deals at once."""
    bid_rule, min_side, min_number, nil_exempt, tricks = table
    mirror = bid_rule == BidRuleId.mirror
    # mirror and whiz: the one number allowed is the spades held (none without spades)
    by_spades = mirror | (bid_rule == BidRuleId.whiz)
    # suicide: the first partner to bid may nil or bid 4 or more; after a nil the other
    # bids 4 or more, after a number it bids nil
    suicide = bid_rule == BidRuleId.suicide
    nil_ok = ((not mirror) | (spades == 0)) & ((not suicide) | (partner_bid != 0))
    lo = max(spades, 1) if by_spades else (4 if suicide else min_number)
    hi = spades if by_spades else (0 if suicide & (partner_bid > 0) else tricks)
    # minimum side bid: the side's last bidder (its partner has bid, 0 for a nil) bids
    # what the side still needs, a nil only once the partner's number reaches it; with
    # the nil exemption a side with a nil needs no minimum
    need = max(min_side - partner_bid, 0) if partner_bid >= 0 else 0
    need = 0 if (nil_exempt != 0) & (partner_bid == 0) else need
    nil_ok = nil_ok & ((need == 0) | (nil_exempt != 0))
    lo = max(lo, need)
    return nil_ok, np.int64(lo), np.int64(hi)


@njit(inline="always", cache=True)
def legal_bid_core_nb(table, bid, spades, partner_bid):
    """``bid`` (0 nil, up to the tricks of the hand) made allowed (``bid_range_core_nb``):
    a nil stays nil where nil is allowed, a number (or a nil where it is not allowed) is
    brought into the allowed numbers, and with no number allowed the bid is nil; under
    suicide a first partner's 1 or 2 is nearer nil than 4, so it becomes nil."""
    nil_ok, lo, hi = bid_range_core_nb(table, spades, partner_bid)
    number = min(max(bid, lo), hi)
    # under suicide the first partner's number below 4 goes to the nearer of nil and 4
    # (a tie to nil): a weak hand takes the side's nil, a fair one the number
    nearer_nil = (table[0] == BidRuleId.suicide) & nil_ok & (bid > 0) & (bid <= lo - bid)
    return np.int64(0) if ((bid == 0) & nil_ok) | (lo > hi) | nearer_nil else number


@njit(inline="always", cache=True)
def bid_range_nb(rules, hand, partner_bid):
    """``bid_range_core_nb`` for the bidder holding ``hand`` under the rule array."""
    spades = popcount_nb(hand & SPADE_MASK)
    return bid_range_core_nb(bid_rules_nb(rules), spades, partner_bid)


@njit(inline="always", cache=True)
def legal_bid_nb(rules, bid, hand, partner_bid):
    """``legal_bid_core_nb`` for the bidder holding ``hand`` under the rule array."""
    spades = popcount_nb(hand & SPADE_MASK)
    return legal_bid_core_nb(bid_rules_nb(rules), bid, spades, partner_bid)


@njit(cache=True)
def bid_error_nb(rules, bids, hands, has_hands):
    """Why a hand's recorded ``bids`` (per seat) break the bid rule: (``BidError`` code,
    seat or -1). With ``has_hands`` each seat's bid is checked against its ``hands``
    entry (the cards it held when it bid); without, only what the bids alone can show
    (under ``mirror`` four players' bids are all the pack's spades, two players' at most
    that; under ``whiz`` the number bids at most that). Under ``suicide`` the seat is the
    side whose partners did not bid one nil and one 4 or more."""
    players = rules[RuleField.players]
    rule = rules[RuleField.bid_rule]
    mirror = rule == BidRuleId.mirror
    if mirror or rule == BidRuleId.whiz:
        if has_hands:
            for s in range(players):
                spades = popcount_nb(hands[s] & SPADE_MASK)
                # whiz lets any seat bid nil; mirror only a seat without spades
                if bids[s] != spades and (mirror or bids[s] != 0):
                    return BidError.not_spades, s
        else:
            total = 0
            for s in range(players):
                total += bids[s]
            pack = popcount_nb(deck_mask_nb(rules[RuleField.jokers]) & SPADE_MASK)
            # four and three players hold every spade of the pack, two players some
            if total > pack or (mirror and players != 2 and total != pack):
                return BidError.pack_spades, -1
    if rule == BidRuleId.suicide:
        # whoever decided, each side ends with one nil and one bid of 4 or more
        for side in range(2):
            a, b = bids[side], bids[side + 2]
            if not ((a == 0 and b >= 4) or (b == 0 and a >= 4)):
                return BidError.suicide_pair, side
    for s in range(players):
        if 0 < bids[s] < rules[RuleField.min_number_bid]:
            return BidError.below_min_bid, s
    if rules[RuleField.min_side_bid] > 0:
        # whoever bid last, a side reaches the minimum (with the nil exemption, unless
        # it has a nil)
        for side in range(2):
            a, b = bids[side], bids[side + 2]
            exempt = rules[RuleField.min_side_bid_nil_exempt] != 0 and (a == 0 or b == 0)
            if a + b < rules[RuleField.min_side_bid] and not exempt:
                return BidError.below_side_min, side
    return BidError.ok, -1


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
    top = 16 if sp >> np.uint64(15) else (14 if sp >> np.uint64(13) else 12)
    counted = 0.0
    for rank in range(9, 17):  # J, Q, K, A and the jokers (and high deuces)
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
    spade (jokers ranks 13 and 14; with the deuces high the 2S, rank 13, weighs as a
    Little Joker and the ranks above it as a Big Joker)."""
    total = 0.0
    for suit in range(3):
        h = holding_nb(hand, suit)
        for rank in range(13):
            if (h >> np.uint64(rank)) & ONE:
                total += side[rank]
    sp = holding_nb(hand, 3)
    for rank in range(17):
        if (sp >> np.uint64(rank)) & ONE:
            total += spade[min(rank, 14)]
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


# Four players: the nil risk is the fitted log-odds that a nil fails, shifted. A logistic
# fit of nil made on the bidder's cards, on 567,065 nils (simulate_hands(300_000, seed=101,
# bidding="count:nil_threshold=8") with the default heuristic play, nil defence and cover
# included): each spade by rank, the spade length, each side card by rank and how many lower
# cards of its suit guard it (0, 1, 2, 3 or more), and the side voids and singletons. The
# weights are log-odds of making the nil, each card's against an average card (0.5 taken off
# every card's fitted weight, so a hand of more cards is not made safer by its count alone).
# It puts the dangers where the tables' advice does: the A of spades all but sets a nil, the
# K, Q and J of spades cost more the higher they are, and so do side honours with no low
# card under them (a bare A, K or Q), while length in spades beyond three hurts and a long
# side suit of small cards helps.
NIL_INTERCEPT_4 = 0.96
NIL_SPADE_4 = np.array(
    [-0.13, -0.2, -0.3, -0.35, -0.43, -0.53, -0.58, -0.68, -0.78, -0.96, -1.12, -1.45, -6.0]
)
NIL_LENGTH_4 = np.array([0.0, 0.52, 1.01, 1.44, 0.83, -0.81, -2.81])
NIL_SIDE_4 = np.array(
    [
        [0.24, 0.0, 0.0, 0.0], [0.23, 0.08, 0.0, 0.0], [0.2, 0.05, -0.03, 0.0],
        [0.14, 0.02, -0.01, 0.43], [0.08, -0.01, -0.02, 0.39], [0.01, -0.07, -0.06, 0.35],
        [-0.1, -0.13, -0.1, 0.32], [-0.2, -0.23, -0.13, 0.32], [-0.33, -0.35, -0.17, 0.28],
        [-0.48, -0.51, -0.25, 0.23], [-0.71, -0.77, -0.35, 0.17], [-1.14, -1.21, -0.54, 0.08],
        [-4.13, -2.42, -0.89, -0.03],
    ]
)  # fmt: skip
NIL_VOID_4 = -0.32
NIL_SINGLE_4 = -0.13
NIL_SHIFT_4 = 3.9
"""Added to the fitted log-odds of failing, so that the shared default threshold (2.5)
bids nil when the fitted chance of making it is at least 1 / (1 + e^-1.4), 80%: nil on
7.7% of seats under the default policies (simulate_games(20_000, seed=3)), where the
published bots and tables bid it on a few percent of their bids."""


# The partner's number when the nil is bid after it: among the nils of the fit's run
# (threshold 1) whose partner had bid first, made 61% behind a partner's 2, 66% behind 3,
# 72% behind 4, 77% behind 5, 82% behind 6 and 88% behind 7, about 0.29 in log-odds a
# trick; 3.5 is about where a partner yet to bid stands.
NIL_PARTNER_SLOPE = 0.29
NIL_PARTNER_MID = 3.5


def _side_by_holding() -> np.ndarray:
    """The weights of every side-suit holding (13 bits): its cards by rank and guards, and
    the void or singleton, summed once here so the risk is one look-up a suit."""
    out = np.zeros(1 << 13)
    for h in range(1 << 13):
        ranks = [r for r in range(13) if (h >> r) & 1]
        out[h] = sum(NIL_SIDE_4[r, min(g, 3)] for g, r in enumerate(ranks))
        out[h] += NIL_VOID_4 if not ranks else (NIL_SINGLE_4 if len(ranks) == 1 else 0.0)
    return out


NIL_SIDE_BY_HOLDING = _side_by_holding()
NIL_SPADES_BY_HOLDING = np.array(
    [sum(NIL_SPADE_4[r] for r in range(13) if (h >> r) & 1) for h in range(1 << 13)]
)


@njit(cache=True, forceinline=True)
def nil_risk_nb(hand):
    """The nil risk of a four-player hand: ``NIL_SHIFT_4`` plus the fitted log-odds that a
    nil with it fails (see the weights above): high and long spades, side honours by how
    many lower cards guard them, voids and singletons."""
    sp = holding_nb(hand, 3)
    made = NIL_INTERCEPT_4 + NIL_LENGTH_4[min(popcount_nb(sp), 6)]
    made += NIL_SPADES_BY_HOLDING[sp & RANK_BITS]
    made += popcount_nb(sp >> np.uint64(13)) * NIL_SPADE_4[12]  # jokers, high deuces: aces
    for suit in range(3):
        made += NIL_SIDE_BY_HOLDING[holding_nb(hand, suit)]
    return NIL_SHIFT_4 - made


@njit(cache=True, forceinline=True)
def nil_ok_nb(risk, threshold, four, partner_bid, partner_nil, partner_min):
    """Nil when the risk is at most ``threshold`` and the partner situation allows it: a
    partner who has bid (``partner_bid`` >= 0) must have bid a number >= ``partner_min``.
    A partner's number, once bid, moves the risk by ``NIL_PARTNER_SLOPE`` a trick from
    ``NIL_PARTNER_MID``: a strong partner covers better."""
    known = four and partner_bid > 0 and partner_nil == 0
    risk = risk - NIL_PARTNER_SLOPE * (partner_bid - NIL_PARTNER_MID) if known else risk
    return risk <= threshold and (
        not four or partner_bid < 0 or (partner_nil == 0 and partner_bid >= partner_min)
    )


@njit(cache=True, forceinline=True)
def round_bid_nb(value, bias, round_up):
    """An estimate plus ``bias`` as a bid of 1..13, rounded up from ``round_up``."""
    return round_bid_to_nb(value, bias, round_up, 13)


@njit(cache=True, forceinline=True)
def round_bid_to_nb(value, bias, round_up, top):
    """``round_bid_nb`` with bids up to ``top`` (the tricks of the hand)."""
    return min(max(np.int64(np.floor(value + bias + 1.0 - round_up)), 1), top)


# Three players: the four-player hand counts, taken to the tricks a 17- or 18-card hand
# takes against two opponents. Fitted on 20,000 hands each (count, pagat and
# partner-aware bidding, heuristic play, seed 1): a hand counted at v took about
# 1.18 v + 1.1 tricks with 17 cards and 1.04 v + 0.8 with the jokers' 18, so the estimate
# is that less 0.3 (a contract a little under what the hand expects, as the four-player
# counts are). A nil of 17 or 18 cards against two attackers was made 5% of the time at
# the default threshold (24% at the least risky 0.3% of hands), so the nil threshold is
# lowered by THREE_NIL_SHIFT: the built-ins then bid no nil unless told a higher one
# (with the fitted four-player risk, 3.0: no nil in 60,000 seats of
# simulate_hands(20_000, seed=12) at the default, 690 of 9,000 at nil_threshold=5).
THREE_SCALE_17, THREE_SHIFT_17 = 1.18, 0.8
THREE_SCALE_18, THREE_SHIFT_18 = 1.04, 0.5
THREE_NIL_SHIFT = 3.0


@njit(cache=True, forceinline=True)
def three_player_fit_nb(hand, players):
    """(scale, shift, nil threshold shift, highest bid) of the estimate for a bidder
    holding ``hand`` at a table of ``players``: (1, 0, 0, 13) unless there are three."""
    if players != 3:
        return 1.0, 0.0, 0.0, np.int64(13)
    if popcount_nb(hand) == 18:
        return THREE_SCALE_18, THREE_SHIFT_18, THREE_NIL_SHIFT, np.int64(18)
    return THREE_SCALE_17, THREE_SHIFT_17, THREE_NIL_SHIFT, np.int64(17)


@njit(inline="always", cache=True)
def nil_allowed_nb(seat, info, params, threshold, risk):
    """``nil_ok_nb`` for a seat at the table (for the non-inlined bidders)."""
    p = seat ^ 2
    return nil_ok_nb(
        risk, threshold, info[InfoSlot.players] > 2, partner_bid_nb(info, seat),
        info[InfoSlot.nil + p], params[BidParam.nil_partner_min],
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def counting_bid_core_nb(
    hand, four, policy, partner_bid, partner_nil, bias, threshold, partner_min, round_up, a, b, c
):
    """The count and pagat bidders on scalars: nil when the nil risk is at most
    ``threshold`` and a partner who has bid (``partner_bid`` >= 0) bid a number of at least
    ``partner_min``; otherwise the estimate plus ``bias``, rounded up from ``round_up``
    (``a``, ``b``, ``c``: the policy's own parameters)."""
    return counting_bid_fit_nb(
        hand, four, policy, partner_bid, partner_nil, bias, threshold, partner_min, round_up,
        a, b, c, 1.0, 0.0, 13,
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def counting_bid_fit_nb(
    hand, four, policy, partner_bid, partner_nil, bias, threshold, partner_min, round_up, a, b,
    c, scale, shift, top,
):  # fmt: skip
    """``counting_bid_core_nb`` with the estimate taken as ``scale * value + shift`` and bids
    up to ``top`` (three players: ``three_player_fit_nb``)."""
    if nil_ok_nb(
        seat_nil_risk_nb(hand, four), threshold, four, partner_bid, partner_nil, partner_min
    ):
        return 0
    if not four:
        value = two_player_value_nb(hand)
    elif policy == BidPolicy.count:
        value = count_value_nb(hand, a, b, c)
    else:
        value = pagat_value_nb(hand, a, b)
    return round_bid_to_nb(scale * value + shift, bias, round_up, top)


@njit(inline="always", cache=True)
def counting_bid_nb(hand, seat, info, params, policy):
    """The count (``policy`` BidPolicy.count) and pagat bidders (see ``counting_bid_core_nb``;
    the policy's own parameters are the three slots after ``BidParam``'s)."""
    p = seat ^ 2
    players = info[InfoSlot.players]
    scale, shift, nil_shift, top = three_player_fit_nb(hand, players)
    return counting_bid_fit_nb(
        hand, players > 2, policy, partner_bid_nb(info, seat), info[InfoSlot.nil + p],
        params[BidParam.bias], params[BidParam.nil_threshold] - nil_shift,
        params[BidParam.nil_partner_min], params[BidParam.round_up], params[OWN_SLOT],
        params[OWN_SLOT + 1], params[OWN_SLOT + 2], scale, shift, top,
    )  # fmt: skip


PAGAT_QUEEN = 0.25

PAGAT_TRUMP_LENGTH = 4.0


@njit(cache=True)
def partner_aware_bid_nb(hand, seat, info, rules, params):
    """Partner-aware bidding: the guide's count, adjusted to the table and the score
    (``partner_aware_core_nb``, after reading the table from ``info``)."""
    players = info[InfoSlot.players]
    # four (or three) hands: the four-player hand evaluations; two players the fit
    four = players > 2
    # cutthroat: no partner, every other seat an opponent
    partnered = four and info[InfoSlot.sides] <= 2
    side = side_of_nb(info[InfoSlot.sides], seat)
    # the table: bids so far against 13 tricks, nils by partner or opponents
    known = 0
    unbid = 0
    partner_nil = False
    opp_nil = False
    for s in range(players):
        if s == seat:
            continue
        b = info[InfoSlot.bids + s]
        if b < 0:
            unbid += 1
        elif info[InfoSlot.nil + s] != 0:
            if partnered and s == (seat ^ 2):
                partner_nil = True
            else:
                opp_nil = True
        else:
            known += b
    # three players: the table against all the tricks of the hand, an unbid seat's share a
    # third of them (the core reckons 13 tricks and 3 a seat)
    table = np.float64(known)
    if players == 3:
        tricks = hand_tricks_nb(rules)
        table += (tricks / 3.0 - 3.0) * unbid - (tricks - 13.0)
    p = seat ^ 2
    scale, shift, nil_shift, top = three_player_fit_nb(hand, players)
    return partner_aware_fit_nb(
        hand, four, table, unbid, partner_nil, opp_nil,
        info[InfoSlot.bids + p] if partnered else -1, info[InfoSlot.nil + p] if partnered else 0,
        info[InfoSlot.bags + side], info[InfoSlot.scores + side], best_other_nb(info, side),
        rules[RuleField.bag_penalty] > 0, rules[RuleField.bag_limit], rules[RuleField.target],
        params[BidParam.bias], params[BidParam.nil_threshold] - nil_shift,
        params[BidParam.nil_partner_min], params[BidParam.round_up],
        params[PartnerParam.overbid_cut], params[PartnerParam.nil_cover_bonus],
        params[PartnerParam.opp_nil_bonus], params[PartnerParam.bag_push],
        params[PartnerParam.bag_margin], params[PartnerParam.score_shade],
        params[PartnerParam.score_margin], scale, shift, top,
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def partner_aware_core_nb(
    hand, four, known, unbid, partner_nil, opp_nil, partner_bid, partner_nil_kind, bags, mine,
    theirs, bag_rule, bag_limit, target, bias, threshold, partner_min, round_up, overbid_cut,
    cover_bonus, opp_bonus, bag_push, bag_margin, score_shade, score_margin,
):  # fmt: skip
    """The partner-aware bidder on scalars: the guide's count (``pagat_value_nb`` with its
    defaults; two players the fit), plus ``cover_bonus`` when the partner bid nil and
    ``opp_bonus`` when an opponent did; cut by ``overbid_cut`` per trick the table (``known``
    bids, 3 per ``unbid`` seat) exceeds 13; pushed up near the bag limit (``bag_rule``) and
    when behind, shaded down near the ``target`` when ahead (the nil threshold moves with
    the score and with a partner bid of 4 or more)."""
    return partner_aware_fit_nb(
        hand, four, known, unbid, partner_nil, opp_nil, partner_bid, partner_nil_kind, bags,
        mine, theirs, bag_rule, bag_limit, target, bias, threshold, partner_min, round_up,
        overbid_cut, cover_bonus, opp_bonus, bag_push, bag_margin, score_shade, score_margin,
        1.0, 0.0, 13,
    )  # fmt: skip


@njit(cache=True, forceinline=True)
def partner_aware_fit_nb(
    hand, four, known, unbid, partner_nil, opp_nil, partner_bid, partner_nil_kind, bags, mine,
    theirs, bag_rule, bag_limit, target, bias, threshold, partner_min, round_up, overbid_cut,
    cover_bonus, opp_bonus, bag_push, bag_margin, score_shade, score_margin, scale, shift, top,
):  # fmt: skip
    """``partner_aware_core_nb`` with the count taken as ``scale * value + shift`` and bids
    up to ``top`` (three players: ``three_player_fit_nb``)."""
    if four:
        value = scale * pagat_value_nb(hand, PAGAT_QUEEN, PAGAT_TRUMP_LENGTH) + shift
    else:
        value = two_player_value_nb(hand)
    if partner_nil:
        value += cover_bonus
    if opp_nil:
        value += opp_bonus
    excess = known + value + 3.0 * unbid - 13.0
    if excess > 0:
        value -= overbid_cut * excess
    if four and partner_bid >= 4 and partner_nil_kind == 0:
        threshold += 0.5
    # the game: bags near the limit, score near the target or far behind
    if bag_rule and bags >= bag_limit - bag_margin:
        value += bag_push
    if mine >= target - score_margin and mine > theirs:
        value -= score_shade
        threshold -= 0.5
    elif theirs - mine >= score_margin:
        value += score_shade
        threshold += 0.5
    if nil_ok_nb(
        seat_nil_risk_nb(hand, four), threshold, four, partner_bid, partner_nil_kind, partner_min
    ):
        return 0
    return round_bid_to_nb(value, bias, round_up, top)


@njit(cache=True, forceinline=True)
def blind_nil_core_nb(
    four, deficit, to_go, bags, partner_bid, partner_nil, need_deficit, within, max_bags,
    partner_min, before,
):  # fmt: skip
    """Blind nil when behind by at least ``need_deficit``, the opponents ``to_go`` points
    short of the target are within ``within`` of it (the game may end this hand or the
    next, so a long shot is worth its cost), with at most ``max_bags`` bags, and (four
    players) a partner who has bid a number >= ``partner_min`` or, when ``before``, is
    still to bid."""
    if deficit < need_deficit or to_go > within or bags > max_bags:
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
    how close the opponents are to the target, bags and the partner's position
    (``blind_nil_core_nb``)."""
    # no partner to consider with two players or in cutthroat; "theirs" is the leading
    # other side (in cutthroat the best of the three opponents)
    partnered = info[InfoSlot.players] == 4 and info[InfoSlot.sides] <= 2
    side = side_of_nb(info[InfoSlot.sides], seat)
    p = seat ^ 2
    theirs = best_other_nb(info, side)
    wanted = blind_nil_core_nb(
        partnered, theirs - info[InfoSlot.scores + side], rules[RuleField.target] - theirs,
        info[InfoSlot.bags + side], info[InfoSlot.bids + p], info[InfoSlot.nil + p],
        params[BidParam.blind_nil_deficit], params[BidParam.blind_nil_opp_within],
        params[BidParam.blind_nil_max_bags], params[BidParam.blind_nil_partner_min],
        params[BidParam.blind_nil_before_partner] > 0,
    )  # fmt: skip
    if info[InfoSlot.players] == 3:
        # 17 or 18 cards blind against two attackers: 0.3% of the built-ins' blind nils
        # were made (300 games, seed 0), so they declare none (``random`` still does)
        wanted = False
    if np.int64(params[0]) == BidPolicy.random:
        wanted = unit_nb(mix64_nb(rand + GOLDEN)) < params[RandomBidParam.blind_nil_rate]
    return wanted
