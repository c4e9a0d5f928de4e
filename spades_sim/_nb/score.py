"""Scoring as pure functions: one side's hand score, and the end-of-game test.

``side_score_nb`` implements docs/rules.md "Scoring a hand" (big bids included) for one
side (a partnership, or a lone player with two players or in cutthroat);
``game_result_nb`` implements "Ending a game" for any number of sides.

What a side is: ``n_sides_nb`` says how many (2, or in cutthroat, ``partnerships`` false,
one per player: 4 or 3), ``side_of_nb`` which one a seat belongs to (``seat & 1`` with
partnerships and with two players, the seat itself in cutthroat), ``partner_of_nb`` a
seat's partner's bid slot reading (-1: no partner) and ``best_other_nb`` the leading score among the
other sides (what "behind" means for blind nil when there are several opponents).
``hand_tricks_nb`` is the number of tricks of a hand (13, or 17 or 18 with three players),
the highest bid and what a Boston takes.
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import EndReason, InfoSlot, RuleField, ScoreSlot


@njit(inline="always", cache=True)
def n_sides_nb(rules):
    """How many sides score: in cutthroat (``partnerships`` false) one per player, 4 or 3;
    else 2."""
    return rules[RuleField.players] if rules[RuleField.partnerships] == 0 else 2


@njit(inline="always", cache=True)
def hand_tricks_nb(rules):
    """The tricks of a hand, by the rule array's pack (``bitboard.deck_mask_nb``): 13, or
    with three players 17 (the 51-card pack) or 18 (54 cards with the jokers)."""
    pack = rules[RuleField.jokers]
    if pack >= 3:
        return np.int64(18) if pack == 4 else np.int64(17)
    return np.int64(13)


@njit(inline="always", cache=True)
def side_of_nb(sides, seat):
    """The side of ``seat`` at a table of ``sides`` sides (``InfoSlot.sides``): the seat
    itself in cutthroat (more than two sides), else ``seat & 1`` (the seat itself with
    two players too)."""
    return seat if sides > 2 else seat & 1


@njit(inline="always", cache=True)
def second_member_nb(sides, seat):
    """Whether ``seat`` is member b of a two-seat side (S or W of a partnership), whose
    nil ``ScoreSlot.nil_made_b`` records: only at a table of two sides and four seats.
    A lone seat of cutthroat (seat 2 of three included) is member a of its own side."""
    return sides == 2 and seat >= 2


@njit(inline="always", cache=True)
def partner_bid_nb(info, seat):
    """The bid of ``seat``'s partner, -1 while it has not bid or when it has no partner
    (two players, cutthroat)."""
    if info[InfoSlot.sides] > 2:
        return np.int64(-1)
    return info[InfoSlot.bids + (seat ^ 2)]


@njit(inline="always", cache=True)
def best_other_nb(info, side):
    """The highest score among the sides other than ``side`` (before this hand)."""
    best = np.int64(-(1 << 62))
    for s in range(max(info[InfoSlot.sides], 2)):
        if s != side and info[InfoSlot.scores + s] > best:
            best = info[InfoSlot.scores + s]
    return best


@njit(inline="always", cache=True)
def member_nb(rules, bid, nil_kind, tricks):
    """One member's share: (contract, counted tricks, nil tricks, nil points, nil made)
    where nil made is -1 without a nil."""
    if nil_kind == 0:
        return bid, tricks, 0, 0, -1
    value = rules[RuleField.blind_nil_value] if nil_kind == 2 else rules[RuleField.nil_value]
    made = tricks == 0
    return 0, 0, tricks, value if made else -value, 1 if made else 0


@njit(inline="always", cache=True)
def big_bid_factor_nb(rules, contract):
    """What the contract points of ``contract`` are multiplied by: ``big_bid_multiplier``
    from ``big_bid_threshold`` tricks up (0 is off), else 1."""
    threshold = rules[RuleField.big_bid_threshold]
    big = (threshold > 0) & (contract >= threshold)
    return rules[RuleField.big_bid_multiplier] if big else 1


@njit(inline="always", cache=True)
def score_side_nb(rules, bid_a, nil_a, tricks_a, bid_b, nil_b, tricks_b, has_b, bags_before, out):
    """Score one side for one hand (``side_score_nb``) into ``out`` (``ScoreSlot`` order)."""
    res = side_score_nb(rules, bid_a, nil_a, tricks_a, bid_b, nil_b, tricks_b, has_b, bags_before)
    out[ScoreSlot.contract] = res[0]
    out[ScoreSlot.side_tricks] = res[1]
    out[ScoreSlot.made] = res[2]
    out[ScoreSlot.score_change] = res[3]
    out[ScoreSlot.bags_change] = res[4]
    out[ScoreSlot.bags_after] = res[5]
    out[ScoreSlot.bag_penalty] = res[6]
    out[ScoreSlot.boston] = res[7]
    out[ScoreSlot.nil_made_a] = res[8]
    out[ScoreSlot.nil_made_b] = res[9]


@njit(inline="always", cache=True)
def side_score_nb(rules, bid_a, nil_a, tricks_a, bid_b, nil_b, tricks_b, has_b, bags_before):
    """Score one side for one hand.

    ``nil_*`` is 0 (no nil), 1 (nil) or 2 (blind nil); member b is ignored unless has_b.
    Returns, in ``ScoreSlot`` order: contract, side_tricks, made (-1 contract 0, 0 set,
    1 made), score_change, bags_change, bags_after, penalty_points, boston (0/1),
    nil_made_a, nil_made_b, where nil_made_* is -1 (no nil), 0 or 1.
    """
    if not has_b:
        bid_b = 0
        nil_b = 0
        tricks_b = 0
    for_partner = rules[RuleField.nil_tricks_for_partner] != 0
    as_bags = rules[RuleField.nil_tricks_as_bags] != 0
    contract_a, counted_a, nil_tricks_a, points_a, nil_made_a = member_nb(
        rules, bid_a, nil_a, tricks_a
    )
    contract_b, counted_b, nil_tricks_b, points_b, nil_made_b = member_nb(
        rules, bid_b, nil_b, tricks_b
    )
    contract = contract_a + contract_b
    counted = counted_a + counted_b
    nil_tricks = nil_tricks_a + nil_tricks_b
    points = points_a + points_b
    if for_partner:
        counted += nil_tricks
    bags = 0
    if contract == 0:
        made = -1
        if for_partner:
            bags += counted
    elif counted >= contract:
        made = 1
        points += 10 * contract * big_bid_factor_nb(rules, contract)
        bags += counted - contract
    else:
        made = 0
        points -= 10 * contract * big_bid_factor_nb(rules, contract)
    if as_bags:
        bags += nil_tricks
    points += bags
    boston = (tricks_a + tricks_b) == hand_tricks_nb(rules)
    if boston:
        points += rules[RuleField.boston_bonus]
    total = bags_before + bags
    penalty = 0
    if rules[RuleField.bag_penalty] > 0:
        times = total // rules[RuleField.bag_limit]
        penalty = times * rules[RuleField.bag_penalty]
        total -= times * rules[RuleField.bag_limit]
    points -= penalty
    return (
        contract, counted, made, points, bags, total, penalty, np.int64(boston), nil_made_a,
        nil_made_b,
    )  # fmt: skip


@njit(inline="always", cache=True)
def game_result_nb(rules, info, n_sides, hands_played):
    """(winner side or -1, reason) after a hand from the ``n_sides`` scores in ``info``;
    EndReason.none means play goes on. A side at or over the target, or (with a loss
    threshold) at or below it, ends the game when one side alone has the highest score;
    a tie at the top plays on."""
    target = rules[RuleField.target]
    floor = rules[RuleField.loss_threshold]
    top = np.int64(0)
    best = info[InfoSlot.scores]
    tie = False
    reached = False
    low = False
    for s in range(n_sides):
        v = info[InfoSlot.scores + s]
        if s > 0 and v > best:
            top, best, tie = np.int64(s), v, False
        elif s > 0 and v == best:
            tie = True
        reached |= v >= target
        low |= v <= floor
    if reached:
        if not tie:
            return top, EndReason.target
    elif rules[RuleField.has_loss_threshold] and low and not tie:
        return top, EndReason.loss_threshold
    if hands_played >= rules[RuleField.max_hands]:
        return -1, EndReason.unfinished
    return -1, EndReason.none
