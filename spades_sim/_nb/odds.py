"""Kernels for the nil odds of a given hand: conditional deals, then the hand played with
one seat's bid fixed.

``sample_deals_nb`` completes a partly known deal at random, exactly from the
conditional distribution: the unknown cards are a uniformly random arrangement of the
cards nobody is known to hold, and a completion whose hands fall outside the feature
ranges is drawn again (rejection, so the accepted ones follow the truncated law).
Completion ``i`` draws only from its own stream ``(seed, KIND_ODDS_DEAL, i, attempt)``,
so the deals are the same for any thread count or chunking. The two entry points,
``sample_deals_nb`` and ``play_deals_nb``, run a range of blocks each, serially and
without the GIL, for ``spades_sim.threads.run_blocks`` to share out to threads.

``play_deals_nb`` plays every completion once per *scenario* (a forced bid of the hero
seat: nil, blind nil or a number), through ``loop.prepare_hand_nb`` with the other seats
bidding by their policies, then in lock-step (both sides the same play policy with
lock-step lanes, ``mode`` its code: ``lockstep_entries.play_lanes_code_nb``) or
card by card (any built-in play policy); with four players and lock-step play the other
seats also bid in lock-step (``BIDS_LOCKSTEP``, ``lockstep_bidding.bid_lanes_four_nb``
with the hero's bid given), with the same bids. All scenarios of a completion share its dealer
and random stream, so their difference is due to the bid alone (common random numbers).
Per scenario it records the hero side's score, the hero's tricks, whether its nil was made
and the card with which it won its first trick (what broke the nil).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import ZERO, bit_nb, popcount_nb
from spades_sim._nb.enums import (
    LANES,
    MAX_TRICKS,
    N_DEAL_LANE_FIELDS,
    N_HEURISTIC_FIELDS,
    N_INFO,
    N_MASKS,
    N_SCORE_SLOTS,
    DealLane,
    InfoSlot,
    LockstepField,
    MaskSlot,
    ParamRow,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.features import hand_features_nb
from spades_sim._nb.lockstep_bidding import bid_lanes_four_nb
from spades_sim._nb.lockstep_entries import LANE_PLAYERS, play_lanes_code_nb
from spades_sim._nb.loop import new_scratch_nb, prepare_hand_nb, score_hand_nb
from spades_sim._nb.play import clear_history_nb, play_tricks_nb
from spades_sim._nb.policies import borrow_nb, builtin_bid_nb, builtin_play_nb
from spades_sim._nb.prepare import bid_batch_four_nb, load_lane_nb, start_hand_nb
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, draw_nb, stream_key_nb
from spades_sim._nb.rollout import bid_misfit_nb
from spades_sim._nb.score import n_sides_nb, second_member_nb, side_of_nb

KIND_ODDS_DEAL = 3  # stream kinds of ``rng``: 1 hands and 2 games are taken
KIND_ODDS_PLAY = 4
KIND_ODDS_PILOT = 5
DEALER_ITEM = 0xFFFFFFFF  # the ``b`` coordinate of a completion's dealer draw
BLOCK = 64

PLAY_SCALAR = 0
PLAY_CODES = {name: k + 1 for k, name in enumerate(LANE_PLAYERS)}
"""The ``mode`` of lock-step play by each play policy with lock-step lanes (both sides)."""
PLAY_MODES = (1 << len(LANE_PLAYERS).bit_length()) - 1  # ``mode & PLAY_MODES``: the play
BIDS_LOCKSTEP = PLAY_MODES + 1
"""A flag on a lock-step ``mode``: the other seats bid in lock-step too
(``lockstep_bidding``; four players, every side a bidder of ``LANE_BIDDERS``)."""


class SideOutT(NamedTuple):
    score_change: int = 0  # bag penalty included
    bags_change: int = 1
    bags_after: int = 2
    made: int = 3  # -1 contract 0, 0 set, 1 made


SideOut = SideOutT()
"""What ``play_deals_nb`` records of every side of a task in ``out_sides``."""
N_SIDE_OUT = len(SideOut)


@njit(inline="always", cache=True)
def set_table_nb(info, before):
    """The scores and bags of the four side slots before the hand (``before``: scores,
    then bags) into ``info``, which ``prepare.start_hand_nb`` keeps."""
    for j in range(4):
        info[InfoSlot.scores + j] = before[j]
        info[InfoSlot.bags + j] = before[4 + j]


@njit(inline="always", cache=True)
def in_ranges_nb(hand, lo, hi):
    """Whether every feature of ``hand`` (``features.FEATURES`` order) is in [lo, hi]."""
    f0, f1, f2, f3, f4, f5, f6, f7 = hand_features_nb(hand)
    return (
        lo[0] <= f0 <= hi[0]
        and lo[1] <= f1 <= hi[1]
        and lo[2] <= f2 <= hi[2]
        and lo[3] <= f3 <= hi[3]
        and lo[4] <= f4 <= hi[4]
        and lo[5] <= f5 <= hi[5]
        and lo[6] <= f6 <= hi[6]
        and lo[7] <= f7 <= hi[7]
    )


@njit(inline="always", cache=True)
def complete_deal_nb(key, known, pool, work, need, out):
    """One random completion: ``out[s]`` = ``known[s]`` plus ``need[s]`` cards of ``pool``
    (partial Fisher-Yates over ``work``, a permutation of ``pool``)."""
    size = pool.shape[0]
    k = 0
    counter = 0
    bits = ZERO
    for s in range(4):
        hand = known[s]
        for _ in range(need[s]):
            if k & 1 == 0:
                bits = draw_nb(key, counter)
                counter += 1
                r = bits & LOW32
            else:
                r = bits >> np.uint64(32)
            j = k + below_nb(r, size - k)
            card = work[j]
            work[j] = work[k]
            work[k] = card
            hand |= bit_nb(card)
            k += 1
        out[s] = hand


@njit(cache=True, nogil=True)
def sample_deals_nb(first, end, seed, kind, start, n, known, pool, need, lo, hi, max_tries,
                    rules, hero, table, assumed, fit_tries, out_deals, out_tries,
                    out_misfit):  # fmt: skip
    """Blocks ``first .. end-1`` (``BLOCK`` each) of completions ``start .. start+n-1``:
    ``out_deals[i]`` the four hands, ``out_tries[i]`` the attempts it took (``-max_tries``
    when none of them met the ranges ``lo``/``hi``, shape (4, 8), checked for the seats
    whose row is not all-permissive). Serial and without the GIL, like ``loop.hands_nb``.

    With ``fit_tries`` > 0 the completions also read the bids made before ``hero``'s turn
    (``table``: the table as ``hero`` sees it, ``N_INFO``) as the bid-reading samplers do
    (``rollout.bid_misfit_nb`` with the bidder rows ``assumed``): of the first
    ``fit_tries`` draws that meet the ranges, the first whose bids fit is kept, else the
    one that fits best (the earliest on a tie); ``out_misfit[i]`` is its misfit (0: the
    bids fit). With no bid made before, the first draw in the ranges fits, so the
    completions are the same as without fitting."""
    checked = np.zeros(4, dtype=np.bool_)
    for s in range(4):
        for f in range(lo.shape[1]):
            checked[s] |= lo[s, f] > 0 or hi[s, f] < 99
    work = pool.copy()
    hands = np.zeros(4, dtype=np.uint64)
    scratch = np.empty(N_INFO, dtype=np.int64)
    for i in range(first * BLOCK, min(n, end * BLOCK)):
        for j in range(pool.shape[0]):  # every completion starts from the same order
            work[j] = pool[j]
        out_tries[i] = -max_tries
        out_misfit[i] = 0
        best = -1
        fitted = 0
        for attempt in range(max_tries):
            key = stream_key_nb(seed, kind, start + i, attempt)
            complete_deal_nb(key, known, pool, work, need, hands)
            ok = True
            for s in range(4):
                if checked[s] and not in_ranges_nb(hands[s], lo[s], hi[s]):
                    ok = False
            if not ok:
                continue
            misfit = 0
            if fit_tries > 0:
                bound = best if best >= 0 else 1 << 30
                misfit = bid_misfit_nb(hands, hero, table, rules, assumed, scratch, bound)
            fitted += 1
            out_tries[i] = attempt + 1
            if best < 0 or misfit < best:
                best = misfit
                out_misfit[i] = misfit
                for s in range(4):
                    out_deals[i, s] = hands[s]
            if best == 0 or fitted >= fit_tries:
                break
        if best < 0:
            for s in range(4):
                out_deals[i, s] = hands[s]


@njit(cache=True)
def number_bid_nb(rules, hand, seat, params):
    """``number_bid_with_nb`` for the built-in bidders."""
    return number_bid_with_nb(rules, hand, seat, params, builtin_bid_nb)


@njit(inline="always", cache=True)
def number_bid_with_nb(rules, hand, seat, params, bid):
    """The bid of ``bid`` with parameters ``params`` for ``hand`` at ``seat`` when first to
    bid at a fresh table (scores 0) (built-ins: with their nil option switched off by the
    caller's parameters)."""
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players] = rules[RuleField.players]
    info[InfoSlot.sides] = n_sides_nb(rules)
    for s in range(4):
        info[InfoSlot.bids + s] = -1
    info[InfoSlot.first_to_act] = seat
    clear_history_nb(info)
    return bid(hand, seat, info, rules, params, stream_key_nb(0, KIND_ODDS_PLAY, 0, 0))


@njit(inline="always", cache=True)
def record_outcome_nb(rules, info, hero, side_out, t, first_won, out_score, out_tricks,
                      out_nil_made, out_first_won, out_sides):  # fmt: skip
    """Score task ``t``'s finished hand and record the hero's outcome, through one real
    call with borrowed arrays: inlined at each of a block's three call sites, the scoring
    rules made the odds kernel much slower to compile."""
    record_outcome_call_nb(
        rules, borrow_nb(info), hero, borrow_nb(side_out), t, first_won, borrow_nb(out_score),
        borrow_nb(out_tricks), borrow_nb(out_nil_made), borrow_nb(out_first_won),
        borrow_nb(out_sides),
    )  # fmt: skip


@njit(cache=True)
def record_outcome_call_nb(rules, info, hero, side_out, t, first_won, out_score, out_tricks,
                           out_nil_made, out_first_won, out_sides):  # fmt: skip
    score_hand_nb(rules, info, side_out)
    sides = info[InfoSlot.sides]
    if out_sides.shape[0] > 0:  # every side's outcome (``SideOut``)
        for side in range(sides):
            out_sides[t, side, SideOut.score_change] = side_out[side, ScoreSlot.score_change]
            out_sides[t, side, SideOut.bags_change] = side_out[side, ScoreSlot.bags_change]
            out_sides[t, side, SideOut.bags_after] = side_out[side, ScoreSlot.bags_after]
            out_sides[t, side, SideOut.made] = side_out[side, ScoreSlot.made]
    res = side_out[side_of_nb(sides, hero)]
    out_score[t] = res[ScoreSlot.score_change]
    out_tricks[t] = info[InfoSlot.tricks_won + hero]
    second = second_member_nb(sides, hero)
    out_nil_made[t] = res[ScoreSlot.nil_made_b] if second else res[ScoreSlot.nil_made_a]
    out_first_won[t] = first_won if info[InfoSlot.tricks_won + hero] > 0 else -1


@njit(cache=True)
def play_block_nb(block, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
                  out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held,
                  rec_moves, before, out_sides):  # fmt: skip
    """``play_block_with_nb`` with the built-in policies, or ``play_block_lane_bids_nb``
    when ``mode`` has ``BIDS_LOCKSTEP``."""
    if mode & BIDS_LOCKSTEP:
        play_block_lane_bids_nb(
            block, rules, seed, start, deals, dealers, hero, bids, kinds, params,
            mode & PLAY_MODES, out_score, out_tricks, out_nil_made, out_first_won, out_errors,
            before, out_sides,
        )  # fmt: skip
        return
    play_block_with_nb(
        block, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode, out_score,
        out_tricks, out_nil_made, out_first_won, out_errors, rec_held, rec_moves, before,
        out_sides, prepare_hand_nb, builtin_play_nb, builtin_play_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_block_lane_bids_nb(block, rules, seed, start, deals, dealers, hero, bids, kinds,
                            params, mode, out_score, out_tricks, out_nil_made, out_first_won,
                            out_errors, before, out_sides):  # fmt: skip
    """``play_block_with_nb`` in a lock-step ``mode`` for four players whose bidders
    ``lockstep_bidding.bid_lanes_four_nb`` covers: the other seats bid in lock-step, the
    hero's bid given per lane (``DealLane.forced_*``); the same random counters, so the
    same bids and cards as ``prepare_hand_nb`` lane by lane."""
    n_scen = bids.shape[0]
    n_tasks = deals.shape[0] * n_scen
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    lanes = np.zeros(N_DEAL_LANE_FIELDS * LANES, dtype=np.int64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    lo = block * LANES
    hi = min(n_tasks, lo + LANES)
    for b in range(LANES):
        t = lo + b if lo + b < hi else lo  # lanes past the end replay the first task
        i = t // n_scen
        k = t % n_scen
        key = stream_key_nb(seed, KIND_ODDS_PLAY, start + i, 0)
        set_table_nb(infos[b], before)
        lanes[DealLane.key * LANES + b] = np.int64(key)
        lanes[DealLane.first * LANES + b] = start_hand_nb(rules, dealers[i], infos[b])
        lanes[DealLane.forced_bid * LANES + b] = bids[k]
        lanes[DealLane.forced_kind * LANES + b] = kinds[k]
        for s in range(4):
            lanes[(DealLane.hands + s) * LANES + b] = np.int64(deals[i, s])
    bid_batch_four_nb(
        rules, params, infos, masks, lanes, st, lo, hi, out_errors, bid_lanes_four_nb, hero
    )
    finish_lockstep_block_nb(
        rules, params, mode, hero, infos, st, lo, hi, out_score, out_tricks, out_nil_made,
        out_first_won, out_sides,
    )  # fmt: skip


@njit(inline="always", cache=True)
def finish_lockstep_block_nb(rules, params, mode, hero, infos, st, lo, hi, out_score, out_tricks,
                             out_nil_made, out_first_won, out_sides):  # fmt: skip
    """Play a prepared lock-step block (``mode`` a ``PLAY_CODES`` code) and record each task's
    outcome."""
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    play_lanes_code_nb(st, rules, params, mode)
    for b in range(hi - lo):
        info = infos[b]
        for s in range(4):
            info[InfoSlot.tricks_won + s] = st[(LockstepField.tricks + s) * LANES + b]
        first_won = np.int64(st[(LockstepField.first_won + hero) * LANES + b])
        record_outcome_nb(
            rules, info, hero, side_out, lo + b, first_won,
            out_score, out_tricks, out_nil_made, out_first_won, out_sides,
        )  # fmt: skip


@njit(inline="always", cache=True)
def play_block_with_nb(block, rules, seed, start, deals, dealers, hero, bids, kinds, params,
                       mode, out_score, out_tricks, out_nil_made, out_first_won, out_errors,
                       rec_held, rec_moves, before, out_sides, prepare_hand, play_ns,
                       play_ew):  # fmt: skip
    """Tasks ``block * LANES ...`` of ``play_deals_nb`` (task t: completion t // S,
    scenario t % S), prepared by ``prepare_hand`` and played by ``play_ns``/``play_ew`` (or,
    in a lock-step ``mode``, by the built-in lock-step play)."""
    n_scen = bids.shape[0]
    n_tasks = deals.shape[0] * n_scen
    players = rules[RuleField.players]
    scratch = new_scratch_nb(rules)
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    plays = np.zeros(MAX_TRICKS * players, dtype=np.int8)
    record = rec_held.shape[0] > 0
    winners = np.zeros(MAX_TRICKS, dtype=np.int8)
    lo = block * LANES
    hi = min(n_tasks, lo + LANES)
    for b in range(LANES):
        t = lo + b if lo + b < hi else lo  # lanes past the end replay the first task
        i = t // n_scen
        k = t % n_scen
        key = stream_key_nb(seed, KIND_ODDS_PLAY, start + i, 0)
        info = infos[b]
        set_table_nb(info, before)
        m = masks[b]
        for s in range(4):
            m[MaskSlot.hands + s] = deals[i, s]
        leader, counter, errors = prepare_hand(
            rules, scratch, key, dealers[i], params, info, m, hero, bids[k], kinds[k]
        )
        if lo + b < hi:
            out_errors[t] = errors
        if mode != PLAY_SCALAR:
            load_lane_nb(st, b, info, m, leader, key + np.uint64(counter) * GOLDEN)
        elif lo + b < hi:
            if record:  # the hands when play begins, the bids and nil kinds
                for s in range(4):
                    rec_held[t, s] = m[MaskSlot.hands + s]
                    rec_moves[t, s] = info[InfoSlot.bids + s]
                    rec_moves[t, 4 + s] = info[InfoSlot.nil + s]
            n_tricks = popcount_nb(m[MaskSlot.hands + leader])  # 13; 17 or 18 for three
            _, err = play_tricks_nb(
                rules, m, MaskSlot.hands, leader, info, params, ParamRow.play,
                play_ns, play_ew, key, counter, plays, winners,
            )  # fmt: skip
            out_errors[t] += err
            if record:
                for j in range(n_tricks * players):
                    rec_moves[t, 8 + j] = plays[j]
            first_won = -1
            lead = leader
            for trick in range(n_tricks):
                if winners[trick] == hero:
                    first_won = plays[trick * players + (hero - lead) % players]
                    break
                lead = winners[trick]
            record_outcome_nb(
                rules, info, hero, side_out, t, first_won,
                out_score, out_tricks, out_nil_made, out_first_won, out_sides,
            )  # fmt: skip
    if mode == PLAY_SCALAR:
        return
    finish_lockstep_block_nb(
        rules, params, mode, hero, infos, st, lo, hi, out_score, out_tricks, out_nil_made,
        out_first_won, out_sides,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def play_deals_nb(first, end, rules, seed, start, deals, dealers, hero, bids, kinds, params,
                  mode, out_score, out_tricks, out_nil_made, out_first_won, out_errors,
                  rec_held, rec_moves, before, out_sides):  # fmt: skip
    """Blocks ``first .. end-1`` (``LANES`` tasks each) of: play completions ``start ..``
    (``deals`` (n, 4) hands, ``dealers`` (n,)) once per scenario k (the hero bids
    ``bids[k]`` with nil kind ``kinds[k]``). Outputs, one per task ``i * S + k``: the hero
    side's score change, the hero's tricks, its nil made (-1 no nil, 0, 1), the card of its
    first trick won (-1 none) and policy errors. ``params`` rows as ``loop.hands_nb``;
    ``mode`` ``PLAY_*``. With ``PLAY_SCALAR`` and non-empty ``rec_held`` (tasks, 4) and
    ``rec_moves`` (tasks, 60) each task also records the hands at the first lead, then
    bids, nil kinds and the plays (for the tests). ``before`` (8) is the table before the
    hand: the scores, then the bags, of the four side slots (``set_table_nb``); with a
    non-empty ``out_sides`` (tasks, 4, ``N_SIDE_OUT``) each task also records every side's
    outcome (``SideOut``). Serial and without the GIL."""
    play_deals_with_nb(
        first, end, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
        out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held, rec_moves,
        before, out_sides, play_block_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_deals_with_nb(first, end, rules, seed, start, deals, dealers, hero, bids, kinds,
                       params, mode, out_score, out_tricks, out_nil_made, out_first_won,
                       out_errors, rec_held, rec_moves, before, out_sides,
                       play_block):  # fmt: skip
    """``play_deals_nb`` through ``play_block`` (``play_block_nb`` or a user policy
    module's twin)."""
    for block in range(first, end):
        play_block(
            block, rules, seed, start, deals, dealers, hero, bids, kinds, params, mode,
            out_score, out_tricks, out_nil_made, out_first_won, out_errors, rec_held, rec_moves,
            before, out_sides,
        )  # fmt: skip


@njit(cache=True)
def draw_dealers_nb(seed, start, n, players, fixed, out):
    """Each completion's dealer: ``fixed`` (a seat), or drawn from its own stream (-1)."""
    for i in range(n):
        if fixed >= 0:
            out[i] = fixed
        else:
            key = stream_key_nb(seed, KIND_ODDS_DEAL, start + i, DEALER_ITEM)
            out[i] = below_nb(draw_nb(key, 0) & LOW32, players)
