"""The batch loops: one whole hand, many independent hands, many whole games.

``run_hand_nb`` plays one hand end to end: deal (or two-player draw), blind nil decisions,
bids, blind nil exchange, the tricks (13; 17 or 18 with three players, who take the scalar
path: the lock-step kernels are for four and two). ``score_hand_nb`` scores it. The entry
points (``hands_nb``, ``games_nb``; the lock-step ones are generated into
``lockstep_entries.py`` on this module's ``lockstep_blocks_nb`` and lane plays
``play_NAME_lanes_nb``) each run a range of blocks of deals (or of games) serially and
without the GIL; the caller (``spades_sim.threads``) shares the blocks out to threads.
Every deal draws from its own counter-based stream, so the output is independent of
thread count and chunking.

Every function that calls a policy comes twice: a generic ``*_with_nb`` (inlined) that
takes the policy functions, or the real function built on them, as arguments, and a
cached entry point that passes the built-ins (``builtin_bid_nb``, ``blind_nil_nb``,
``builtin_play_nb``: dispatched by the id in the parameter rows). A run with
user-written policies calls a generated module's twins of ``prepare_hand_nb``,
``run_hand_nb``, ``hands_nb`` and ``games_nb``, built on the same generic functions with
the user's functions (``spades_sim.custom``), and cached on disk like these. The lock-step
kernels (for runs without the sampling bidder, ``monte-carlo``, whose rollouts dwarf the
play anyway) bid in lock-step too (``prepare.prepare_lanes_four_nb``; two players through
``policies.plain_bid_nb``), so they never compile those rollouts: cold compile time is
most of a first run's wait. What happens before the first lead is in ``prepare.py``.
"""

import numpy as np
from numba import njit

from spades_sim._nb.deal import DECK_AT, SCRATCH_SIZE, deck_cards_nb
from spades_sim._nb.enums import (
    LANES,
    MAX_TRICKS,
    N_DEAL_LANE_FIELDS,
    N_HEURISTIC_FIELDS,
    N_INFO,
    N_MASKS,
    N_SCORE_SLOTS,
    DealLane,
    EndReason,
    GameOut,
    InfoSlot,
    LockstepField,
    MaskSlot,
    OutI32,
    ParamRow,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.lockstep import play_random_lockstep_nb
from spades_sim._nb.lockstep_heuristic import (
    play_heuristic_defaults_lockstep_nb,
    play_heuristic_general_lockstep_nb,
    play_heuristic_lockstep_nb,
)
from spades_sim._nb.lockstep_score import (
    score_lanes_nb,
    write_lane_rows_four_nb,
    write_lane_rows_two_nb,
)
from spades_sim._nb.play import play_tricks_nb
from spades_sim._nb.policies import borrow_nb, builtin_bid_nb, builtin_play_nb
from spades_sim._nb.prepare import (
    NO_SEAT,
    ZERO_I64,
    blind_nil_nb,
    prepare_lanes_with_nb,
    prepare_with_nb,
)
from spades_sim._nb.rng import (
    KIND_GAMES,
    KIND_HANDS,
    LOW32,
    below_nb,
    mix64_nb,
    stream_key_nb,
)
from spades_sim._nb.rows import write_seat_row_nb
from spades_sim._nb.score import (
    game_result_nb,
    n_sides_nb,
    score_side_nb,
    second_member_nb,
    side_of_nb,
)

BLOCK = 64  # deals per block of ``hands_nb``; any value gives the same results


@njit(cache=True)
def prepare_hand_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind):  # fmt: skip
    """``prepare_with_nb`` with the built-in bidders and their blind nil rule on both
    sides (their ids in the parameter rows)."""
    return prepare_with_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        builtin_bid_nb, builtin_bid_nb, blind_nil_nb, blind_nil_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def run_hand_with_nb(rules, scratch, key, dealer, params, info, masks, plays, winners,
                     prepare_hand, play_ns, play_ew):  # fmt: skip
    """Play one hand from its stream ``key``; return the number of policy errors.

    ``prepare_hand`` (``prepare_hand_nb``, or a user policy module's twin) then 13 tricks
    with the play functions of the two sides (see ``prepare_with_nb`` for the arguments)."""
    leader, counter, errors = prepare_hand(
        rules, scratch, key, dealer, params, info, masks, NO_SEAT, ZERO_I64, ZERO_I64
    )
    for s in range(4):
        masks[MaskSlot.work + s] = masks[MaskSlot.hands + s]
    counter, play_errors = play_tricks_nb(
        rules, masks, MaskSlot.work, leader, info, params, ParamRow.play,
        play_ns, play_ew, key, counter, plays, winners,
    )  # fmt: skip
    return errors + play_errors


@njit(cache=True)
def run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners):
    """``run_hand_with_nb`` with the built-in policies."""
    return run_hand_with_nb(
        rules, scratch, key, dealer, params, info, masks, plays, winners, prepare_hand_nb,
        builtin_play_nb, builtin_play_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def score_hand_nb(rules, info, out):
    """Score every side of a finished hand from ``info`` (bids, nil kinds, tricks, bags):
    ``out[side]`` gets the 10 fields of ``score_side_nb`` (in cutthroat four or three lone
    sides, side s being seat s)."""
    sides = info[InfoSlot.sides]
    if sides > 2:
        for side in range(sides):
            score_side_nb(
                rules,
                info[InfoSlot.bids + side], info[InfoSlot.nil + side],
                info[InfoSlot.tricks_won + side], ZERO_I64, ZERO_I64, ZERO_I64, False,
                info[InfoSlot.bags + side], out[side],
            )  # fmt: skip
        return
    four = rules[RuleField.players] == 4
    for side in range(2):
        b = side + 2
        score_side_nb(
            rules,
            info[InfoSlot.bids + side], info[InfoSlot.nil + side], info[InfoSlot.tricks_won + side],
            info[InfoSlot.bids + b], info[InfoSlot.nil + b], info[InfoSlot.tricks_won + b],
            four, info[InfoSlot.bags + side], out[side],
        )  # fmt: skip


@njit(inline="always", cache=True)
def write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Write the per-seat rows of one scored hand starting at row ``row0``
    (``rows.write_seat_row_nb``, then the scores and bags before and after)."""
    players = rules[RuleField.players]
    sides = info[InfoSlot.sides]
    for seat in range(players):
        row = row0 + seat
        side = side_of_nb(sides, seat)
        res = side_out[side]
        second = second_member_nb(sides, seat)
        write_seat_row_nb(
            row, masks[MaskSlot.hands + seat], dealer, info[InfoSlot.bids + seat],
            info[InfoSlot.nil + seat], info[InfoSlot.tricks_won + seat],
            res[ScoreSlot.nil_made_b] if second else res[ScoreSlot.nil_made_a],
            res[ScoreSlot.contract], res[ScoreSlot.side_tricks], res[ScoreSlot.made],
            res[ScoreSlot.bags_change], res[ScoreSlot.boston], res[ScoreSlot.score_change],
            res[ScoreSlot.bag_penalty], out_hand, out_i8, out_i32,
        )  # fmt: skip
        score_before = info[InfoSlot.scores + side]
        out_i32[OutI32.score_before, row] = score_before
        out_i32[OutI32.score_after, row] = score_before + res[ScoreSlot.score_change]
        out_i32[OutI32.bags_before, row] = info[InfoSlot.bags + side]
        out_i32[OutI32.bags_after, row] = res[ScoreSlot.bags_after]


@njit(inline="always", cache=True)
def finish_hand_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Score a finished hand (``score_hand_nb``, into ``side_out``) and write its rows
    (``write_rows_nb``), through one real call with borrowed arrays: inlined into every
    entry point, the scoring rules made each of them slower to compile."""
    finish_hand_call_nb(
        rules, row0, dealer, borrow_nb(info), borrow_nb(masks), borrow_nb(side_out),
        borrow_nb(out_hand), borrow_nb(out_i8), borrow_nb(out_i32),
    )  # fmt: skip


@njit(cache=True)
def finish_hand_call_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    score_hand_nb(rules, info, side_out)
    write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32)


@njit(inline="always", cache=True)
def finish_lanes_with_nb(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32,
                         write_rows):  # fmt: skip
    """``finish_hand_nb`` for the deals lo .. hi-1 of a played lock-step batch: scored
    together (``lockstep_score.score_lanes_nb``), then their rows written by
    ``write_rows`` (``lockstep_score.write_lane_rows_four_nb`` or ``_two_nb``, the values
    of ``write_rows_nb``), from the hands, bids and nil kinds ``prepare`` left in ``lanes``
    and the tricks of the play."""
    n = hi - lo
    for s in range(4):
        for b in range(n):
            lanes[(DealLane.tricks + s) * LANES + b] = st[(LockstepField.tricks + s) * LANES + b]
    score_lanes_nb(rules, lanes, n)
    write_rows(lanes, n, deal_start + lo, lo * rules[RuleField.players], out_hand, out_i8,
               out_i32)  # fmt: skip


@njit(inline="always", cache=True)
def finish_lanes_four_nb(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32):
    """``finish_lanes_with_nb`` for four players."""
    finish_lanes_with_nb(
        rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32, write_lane_rows_four_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def finish_lanes_two_nb(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32):
    """``finish_lanes_with_nb`` for two players."""
    finish_lanes_with_nb(
        rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32, write_lane_rows_two_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def new_scratch_nb(rules):
    """Per-task scratch: shuffle space [0:DECK_AT], then the deck's card ids (52, or 51
    or 54 with three players) from ``DECK_AT``, ascending (``deal.deck_cards_nb``).
    Copied card by card: a slice assignment would compile Numba's shape-mismatch error
    path (string formatting, 1.7 s of a cold start) into every kernel."""
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.uint8)
    deck = deck_cards_nb(rules[RuleField.jokers])
    for k in range(deck.shape[0]):
        scratch[DECK_AT + k] = deck[k]
    return scratch


# --- Entry points ----------------------------------------------------------------------
# Each runs blocks ``first .. end-1`` of its items, serially and without the GIL:
# ``spades_sim.threads.run_blocks`` hands block ranges to a pool of Python threads. A
# ``prange`` loop instead compiled three times slower (the parallel wrapper re-optimises
# everything it calls), and a block writes only its own rows, so the results do not
# depend on how the blocks are shared out.


@njit(cache=True, nogil=True)
def hands_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_with_nb`` with the built-in policies."""
    hands_with_nb(
        first, end, rules, seed, deal_start, n, params, out_hand, out_i8, out_i32, out_errors,
        rec_dealt, rec_plays, rec_winners, run_hand_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def hands_with_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners, run_hand,
):  # fmt: skip
    """Independent hands (fresh scores, dealer = deal index modulo players): blocks
    ``first .. end-1`` of ``BLOCK`` deals of deals deal_start .. deal_start+n-1.

    ``params`` (5 x 16 float64) rows: bid N-S, bid E-W, play N-S, play E-W, draw. Every
    play policy through ``play_tricks_nb``; with non-empty ``rec_plays`` the deal as dealt,
    the cards in play order and the trick winners are recorded."""
    players = rules[RuleField.players]
    record = rec_plays.shape[0] > 0
    scratch = new_scratch_nb(rules)
    info = np.zeros(N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(MAX_TRICKS, dtype=np.int8)
    for i in range(first * BLOCK, min(n, end * BLOCK)):
        deal = deal_start + i
        dealer = deal % players
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        plays = rec_plays[i] if record else no_plays
        out_errors[i] = run_hand(rules, scratch, key, dealer, params, info, masks, plays, winners)
        finish_hand_nb(rules, i * players, dealer, info, masks, side_out, out_hand, out_i8, out_i32)
        if record:
            for s in range(players):
                rec_dealt[i * players + s] = masks[MaskSlot.dealt + s]
            for t in range(rec_winners.shape[1]):
                rec_winners[i, t] = winners[t]


@njit(cache=True, nogil=True)
def games_nb(
    first, end, rules, seed, game_start, n, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``games_with_nb`` with the built-in policies."""
    games_with_nb(
        first, end, rules, seed, game_start, n, params, out_hand, out_i8, out_i32, out_game,
        rec_dealt, rec_plays, rec_winners, run_hand_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def games_with_nb(
    first, end, rules, seed, game_start, n, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners, run_hand,
):  # fmt: skip
    """Whole games, one block each: games game_start+first .. game_start+end-1 of the
    ``n`` from game_start, played to the end. Game i's hand h fills rows from
    ``(i * max_hands + h) * players``; ``out_game[i]`` gets its summary."""
    players = rules[RuleField.players]
    max_hands = rules[RuleField.max_hands]
    record = rec_plays.shape[0] > 0
    scratch = new_scratch_nb(rules)
    info = np.zeros(N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    penalties = np.zeros(4, dtype=np.int64)
    n_sides = n_sides_nb(rules)
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(MAX_TRICKS, dtype=np.int8)
    for i in range(first, min(n, end)):
        game = game_start + i
        game_key = stream_key_nb(seed, KIND_GAMES, game, 0xFFFFFFFF)
        first_dealer = below_nb(mix64_nb(game_key) & LOW32, players)
        winner, reason, h = -1, EndReason.none, 0
        errors = 0
        for j in range(N_INFO):  # each game starts from a clean table
            info[j] = 0
        for j in range(N_MASKS):
            masks[j] = 0
        for side in range(4):
            penalties[side] = 0
        while reason == EndReason.none:
            dealer = (first_dealer + h) % players
            key = stream_key_nb(seed, KIND_GAMES, game, h)
            slot = i * max_hands + h
            plays = rec_plays[slot] if record else no_plays
            errors += run_hand(rules, scratch, key, dealer, params, info, masks, plays, winners)
            finish_hand_nb(
                rules, slot * players, dealer, info, masks, side_out, out_hand, out_i8, out_i32
            )
            if record:
                for s in range(players):
                    rec_dealt[slot * players + s] = masks[MaskSlot.dealt + s]
                for t in range(rec_winners.shape[1]):
                    rec_winners[slot, t] = winners[t]
            for side in range(n_sides):
                info[InfoSlot.scores + side] += side_out[side, ScoreSlot.score_change]
                info[InfoSlot.bags + side] = side_out[side, ScoreSlot.bags_after]
                penalties[side] += side_out[side, ScoreSlot.bag_penalty]
            h += 1
            winner, reason = game_result_nb(rules, info, n_sides, h)
        out_game[i, GameOut.first_dealer] = first_dealer
        out_game[i, GameOut.winner] = winner
        out_game[i, GameOut.reason] = reason
        out_game[i, GameOut.hands] = h
        out_game[i, GameOut.score_ns] = info[InfoSlot.scores]
        out_game[i, GameOut.score_ew] = info[InfoSlot.scores + 1]
        out_game[i, GameOut.bags_ns] = info[InfoSlot.bags]
        out_game[i, GameOut.bags_ew] = info[InfoSlot.bags + 1]
        out_game[i, GameOut.bag_penalty_ns] = penalties[0]
        out_game[i, GameOut.bag_penalty_ew] = penalties[1]
        # sides 2 and 3 exist in cutthroat only; with two sides their slots stay 0
        out_game[i, GameOut.score_2] = info[InfoSlot.scores + 2]
        out_game[i, GameOut.score_3] = info[InfoSlot.scores + 3]
        out_game[i, GameOut.bags_2] = info[InfoSlot.bags + 2]
        out_game[i, GameOut.bags_3] = info[InfoSlot.bags + 3]
        out_game[i, GameOut.bag_penalty_2] = penalties[2]
        out_game[i, GameOut.bag_penalty_3] = penalties[3]
        out_game[i, GameOut.policy_error] = errors


# --- Lock-step play -------------------------------------------------------------------
# Each play policy with lock-step lanes (``policy_table``: ``lanes``) has its lane play
# here, ``play_NAME_lanes_nb(st, rules, params)``: the 13 tricks of every lane, both
# sides playing it. Its entry points are generated from the table into
# ``lockstep_entries.py`` (``spades_sim.lockstep_source``), which also takes
# ``play_NAME_defaults_lanes_nb`` and ``play_NAME_general_lanes_nb`` where a policy has a
# copy compiled with its registry defaults as constants.


@njit(inline="always", cache=True)
def play_heuristic_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane with the ``heuristic`` on both sides, in the
    defaults' copy of the loops or the general one as ``params`` say (both compiled)."""
    play_heuristic_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.must_trump] != 0,
        rules[RuleField.must_overtrump] != 0, rules[RuleField.jokers],
        rules[RuleField.nil_tricks_for_partner] != 0, params[ParamRow.play],
        params[ParamRow.play + 1],
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_heuristic_general_lanes_nb(st, rules, params):
    """``play_heuristic_lanes_nb`` through the general loops only (any parameters)."""
    play_heuristic_general_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.must_trump] != 0,
        rules[RuleField.must_overtrump] != 0, rules[RuleField.jokers],
        rules[RuleField.nil_tricks_for_partner] != 0, params[ParamRow.play],
        params[ParamRow.play + 1],
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_heuristic_defaults_lanes_nb(st, rules, params):
    """``play_heuristic_lanes_nb`` through the defaults' copy only: four players, both
    play rows at the registry defaults (anything else raises ``ValueError``)."""
    play_heuristic_defaults_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.must_trump] != 0,
        rules[RuleField.must_overtrump] != 0, rules[RuleField.jokers],
        rules[RuleField.nil_tricks_for_partner] != 0, params[ParamRow.play],
        params[ParamRow.play + 1],
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_random_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane at random on both sides (``params`` unused)."""
    play_random_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.must_trump] != 0,
        rules[RuleField.must_overtrump] != 0,
    )  # fmt: skip


@njit(inline="always", cache=True)
def lockstep_blocks_nb(first, end, rules, seed, deal_start, n, params, prepare, play, finish,
                       out_hand, out_i8, out_i32, out_errors):  # fmt: skip
    """``hands_nb`` for runs whose play policy is the same lock-step one on both sides
    (the body of ``lockstep_entries``' entry points): per block of ``LANES`` deals,
    ``prepare`` (``prepare.prepare_lanes_four_nb`` or ``prepare_lanes_count_four_nb``,
    bids in lock-step too, or ``prepare_lanes_two_nb``), ``play`` (a
    ``play_NAME_lanes_nb``, which gives the scalar path's cards) for all of them at once,
    then ``finish`` (``finish_lanes_four_nb`` or ``finish_lanes_two_nb``)."""
    scratch = new_scratch_nb(rules)
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    lanes = np.zeros(N_DEAL_LANE_FIELDS * LANES, dtype=np.int64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    for block in range(first, end):
        lo = block * LANES
        hi = min(n, lo + LANES)
        prepare(rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes, st,
                out_errors)  # fmt: skip
        play(st, rules, params)
        finish(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32)


# --- Batches for user-written policies -----------------------------------------------------
# The same batches of ``LANES`` deals, prepared deal by deal through a user policy module's
# ``prepare_hand_nb`` (its bidders are scalar code), then played in lock-step by a
# built-in (``lockstep_entries.NAME_lanes_nb``) or lane by lane through the play
# functions (``play_lanes_with_nb``), then scored and written in lock-step: the same rows
# as the module's ``hands_nb``.


@njit(inline="always", cache=True)
def lane_blocks_with_nb(first, end, rules, seed, deal_start, n, params, prepare_hand,
                        play_lanes, finish, out_hand, out_i8, out_i32, out_errors):  # fmt: skip
    """``hands_nb`` in batches: ``prepare.prepare_lanes_with_nb`` with ``prepare_hand``, then
    ``play_lanes(st, rules, params, infos, masks, lo, hi, out_errors)``, then ``finish``
    (``finish_lanes_four_nb`` or ``finish_lanes_two_nb``)."""
    scratch = new_scratch_nb(rules)
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    lanes = np.zeros(N_DEAL_LANE_FIELDS * LANES, dtype=np.int64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    for block in range(first, end):
        lo = block * LANES
        hi = min(n, lo + LANES)
        prepare_lanes_with_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks,
                              lanes, st, out_errors, prepare_hand)  # fmt: skip
        play_lanes(st, rules, params, infos, masks, lo, hi, out_errors)
        finish(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32)


@njit(inline="always", cache=True)
def play_lanes_with_nb(st, rules, params, infos, masks, lo, hi, out_errors, play_ns, play_ew):
    """The 13 tricks of each deal of the batch through ``play_ns``/``play_ew``, lane by
    lane from its prepared table (the random counters of the scalar path: the lane's key
    holds the prepare's last counter), the tricks left where the lock-step play leaves
    them; policy errors added to ``out_errors``."""
    plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(MAX_TRICKS, dtype=np.int8)
    for b in range(hi - lo):
        m = masks[b]
        info = infos[b]
        for s in range(4):
            m[MaskSlot.work + s] = m[MaskSlot.hands + s]
        leader = np.int64(st[LockstepField.leader * LANES + b])
        key = st[LockstepField.key * LANES + b]
        _, errors = play_tricks_nb(
            rules, m, MaskSlot.work, leader, info, params, ParamRow.play, play_ns, play_ew,
            key, ZERO_I64, plays, winners,
        )  # fmt: skip
        out_errors[lo + b] += errors
        for s in range(4):
            st[(LockstepField.tricks + s) * LANES + b] = info[InfoSlot.tricks_won + s]
