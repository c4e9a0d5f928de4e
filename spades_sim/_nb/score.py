"""Scoring as pure functions: one side's hand score, and the end-of-game test.

``side_score_nb`` implements docs/rules.md "Scoring a hand" (big bids included) for one
side (a partnership, or a lone player with two players); ``game_result_nb`` implements
"Ending a game".
"""

import numpy as np
from numba import njit

from spades_sim._nb.enums import EndReason, RuleField, ScoreSlot


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
    boston = (tricks_a + tricks_b) == 13
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
def game_result_nb(rules, score0, score1, hands_played):
    """(winner side or -1, reason) after a hand; EndReason.none means play goes on."""
    target = rules[RuleField.target]
    if score0 >= target or score1 >= target:
        if score0 != score1:
            return (0 if score0 > score1 else 1), EndReason.target
    elif rules[RuleField.has_loss_threshold]:
        floor = rules[RuleField.loss_threshold]
        if (score0 <= floor or score1 <= floor) and score0 != score1:
            return (0 if score0 > score1 else 1), EndReason.loss_threshold
    if hands_played >= rules[RuleField.max_hands]:
        return -1, EndReason.unfinished
    return -1, EndReason.none
