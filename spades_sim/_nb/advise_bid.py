"""The score-aware bidder ``advise``: the bid table's best bid, inside the kernels.

Contract
--------
``advise_bid_nb(hand, seat, info, rules, params, rand)`` is a bidding policy (the
signature of ``_nb/policies.py``): it returns the bid (0 nil) whose mean value over
``n`` completions of the deal is highest, the value being, with ``objective`` 1, the
side's chance to win the game after this hand and, with ``objective`` 0, the side's
points this hand (bag penalty included). Deterministic in ``rand``; no I/O.

What it does is what ``spades_sim.advise`` does for a player, in a kernel:

1. ``n`` completions of the deal as the seat knows it, from the one world sampler
   (``rollout.fitted_worlds_nb``): the unseen cards dealt at random, each world redrawn
   up to ``fit_tries`` times until every earlier bid fits the bidder seated there (its
   parameter row's seated bidders, ``rollout.assumed_rows_nb``).
2. The same completions for every bid weighed (paired): nil when the rules and the
   partner allow it (``nil_threshold``, ``nil_partner_min``: with the defaults, every
   hand), and the numbers within ``window`` of the ``count`` bid the rules allow. For
   each, the seats still to bid bid by their seated bidders knowing it (a random or
   sampling bidder's seat as ``count``), then every seat plays the hand out with the
   ``heuristic`` at its defaults.
3. The side's result of each: its points (bag penalty included) and the state after the
   hand; a finished game is a win, a loss, or plays on at a tie; else the win chance is
   the race model's (``race.py``, three numbers fitted to the win table of
   ``spades_sim.odds.equity``: ``race_mean``, ``race_sd``, ``race_bags``).

The highest mean wins (a number bid on a tie, the lowest; nil only when strictly higher);
``bias`` shifts a chosen number as ``monte-carlo``'s does. Blind nil is declared, or not,
before the bid by the counting bidders' rule (``_BID_COMMON``). What it does not model:
the partners' card exchange after a nil (the hand is played as dealt), the seated play
policies (the rollouts play the heuristic), and the approximations of the race model.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import (
    bid_range_nb,
    counting_bid_nb,
    legal_bid_nb,
    nil_allowed_nb,
    seat_nil_risk_nb,
)
from spades_sim._nb.enums import (
    COUNT_DEFAULTS,
    HEURISTIC_DEFAULTS,
    MAX_TRICKS,
    N_INFO,
    N_SCORE_SLOTS,
    AdviseParam,
    BidParam,
    BidPolicy,
    InfoSlot,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.play import clear_history_nb, first_leader_nb, next_seat_nb, reset_trick_info_nb
from spades_sim._nb.race import race_win_nb
from spades_sim._nb.rollout import (
    ASSUME_SEATED,
    SAMPLE_HANDS,
    assumed_bid_nb,
    assumed_rows_nb,
    bid_table_nb,
    copy_state_nb,
    fitted_worlds_nb,
    playout_nb,
    seat_bidder_nb,
    side_points_nb,
)
from spades_sim._nb.score import partner_bid_nb, side_of_nb


@njit(cache=True)
def later_bids_nb(world, seat, base, rules, assumed, table):
    """The bids of the seats after ``seat`` that have not bid, into ``base``: each by its
    seated bidder (``assumed``; a random one read as ``count``) from its hand in
    ``world`` at the table it sees (the earlier bids, ``seat``'s included)."""
    players = base[InfoSlot.players]
    s = next_seat_nb(seat, players)
    while s != base[InfoSlot.first_to_act]:
        if base[InfoSlot.bids + s] < 0:
            row = seat_bidder_nb(assumed, s)
            bid_table_nb(base, s, table)
            if np.int64(row[0]) == BidPolicy.random:
                b = assumed_bid_nb(world[s], s, table, rules, COUNT_DEFAULTS)
            else:
                b = assumed_bid_nb(world[s], s, table, rules, row)
            base[InfoSlot.bids + s] = b
            base[InfoSlot.nil + s] = 1 if b == 0 else 0
        s = next_seat_nb(s, players)


@njit(cache=True)
def hand_value_nb(rules, state, side, objective, params, out, after, bags_after):
    """The value to ``side`` of the finished hand in ``state``: its points (bag penalty
    included) with ``objective`` 0, else its chance to win the game from the scores
    after the hand (a finished game exactly, else the race model). ``out``, ``after``
    and ``bags_after`` are scratch."""
    sides = max(state[InfoSlot.sides], 2)  # a table built without it (a test's) has two
    if objective == 0:
        side_points_nb(rules, state, side, 0.0, out)
        return np.float64(out[ScoreSlot.score_change])
    for s in range(sides):
        side_points_nb(rules, state, s, 0.0, out)
        after[s] = state[InfoSlot.scores + s] + out[ScoreSlot.score_change]
        bags_after[s] = out[ScoreSlot.bags_after]
    target = rules[RuleField.target]
    top = after[0]
    for s in range(1, sides):
        top = max(top, after[s])
    leaders = 0
    for s in range(sides):
        if after[s] == top:
            leaders += 1
    ended = top >= target
    if rules[RuleField.has_loss_threshold] != 0:
        for s in range(sides):
            if after[s] <= rules[RuleField.loss_threshold]:
                ended = True
    if ended and leaders == 1:
        return 1.0 if after[side] == top else 0.0
    return race_win_nb(
        after, bags_after, sides, side, np.float64(target), params[AdviseParam.race_mean],
        params[AdviseParam.race_sd], params[AdviseParam.race_bags],
        np.float64(rules[RuleField.bag_penalty]), rules[RuleField.bag_limit],
    )  # fmt: skip


@njit(cache=True)
def advise_bid_nb(hand, seat, info, rules, params, rand):
    """The bid with the best mean value over the completions (the module docstring)."""
    players = info[InfoSlot.players]
    side = side_of_nb(info[InfoSlot.sides], seat)
    n = max(np.int64(params[AdviseParam.n]), 1)
    objective = np.int64(params[AdviseParam.objective])
    window = max(np.int64(params[AdviseParam.window]), 0)
    tries = max(np.int64(params[AdviseParam.fit_tries]), 1)
    nil_rule, lo_rule, hi_rule = bid_range_nb(rules, hand, partner_bid_nb(info, seat))
    own = legal_bid_nb(
        rules, max(counting_bid_nb(hand, seat, info, COUNT_DEFAULTS, BidPolicy.count), 1),
        hand, partner_bid_nb(info, seat),
    )  # fmt: skip
    if own == 0:  # no number allowed: the bid rule's nil
        return np.int64(0)
    lo = max(own - window, lo_rule)
    hi = min(own + window, hi_rule)
    try_nil = nil_rule and nil_allowed_nb(
        seat, info, params, params[BidParam.nil_threshold], seat_nil_risk_nb(hand, players > 2)
    )
    worlds = np.empty((n, 4), dtype=np.uint64)
    misfits = np.empty(n, dtype=np.int64)
    assumed = assumed_rows_nb(params, np.int64(ASSUME_SEATED))
    fitted_worlds_nb(
        np.int64(SAMPLE_HANDS), hand, seat, info, rules, assumed, tries, np.uint64(rand),
        worlds, misfits,
    )  # fmt: skip
    ev = np.zeros(MAX_TRICKS + 1, dtype=np.float64)  # ev[0]: nil
    hands = np.empty(4, dtype=np.uint64)
    state = np.empty(N_INFO, dtype=np.int64)
    table = np.empty(N_INFO, dtype=np.int64)
    out = np.empty(N_SCORE_SLOTS, dtype=np.int64)
    after = np.zeros(4, dtype=np.float64)
    bags_after = np.zeros(4, dtype=np.int64)
    first = info[InfoSlot.first_to_act]
    for k in range(n):
        world = worlds[k]
        leader = first_leader_nb(world, 0, players, first, rules)
        for option in range(lo - 1 if try_nil else lo, hi + 1):
            bid = 0 if option == lo - 1 else option
            copy_state_nb(world, info, hands, state)
            state[InfoSlot.bids + seat] = bid
            state[InfoSlot.nil + seat] = 1 if bid == 0 else 0
            later_bids_nb(world, seat, state, rules, assumed, table)
            state[InfoSlot.played] = 0
            state[InfoSlot.broken] = 0
            for s in range(4):
                state[InfoSlot.tricks_won + s] = 0
                state[InfoSlot.voids + s] = 0
                state[InfoSlot.played_by + s] = 0
            clear_history_nb(state)
            reset_trick_info_nb(state, 0, leader)
            playout_nb(hands, state, rules, HEURISTIC_DEFAULTS)
            ev[bid] += hand_value_nb(rules, state, side, objective, params, out, after, bags_after)
    best = lo
    for b in range(lo + 1, hi + 1):
        if ev[b] > ev[best]:
            best = b
    if try_nil and ev[0] > ev[best]:
        return np.int64(0)
    shifted = best + np.int64(np.floor(params[BidParam.bias] + 0.5))
    return min(max(shifted, lo_rule), hi_rule)
