"""The batch loops: one whole hand, many independent hands, many whole games.

``run_hand_nb`` plays one hand end to end: deal (or two-player draw), blind nil
decisions, bids, blind nil exchange, 13 tricks. ``score_hand_nb`` scores it. The entry
points (``hands_nb``, ``games_nb`` and the lock-step ``hands_*_lockstep_nb``) each run a
range of blocks of deals (or of games) serially and without the GIL; the caller
(``spades_sim.kernels``) shares the blocks out to threads. Every deal draws from its own
counter-based stream, so the output is independent of thread count and chunking.

The policies are the module globals ``bid_policy_ns_nb`` ... ``play_policy_ew_nb``
(built-in dispatchers here), called by name: Numba cannot cache a kernel that receives
a function as an argument through a real call, and inlining the whole hand into the
loop to avoid that costs a minute of compile time. A run with user-written policies
loads a private copy of this module from its file with ``POLICIES`` (the four
functions) and ``CACHE = False`` set before it executes (``simulate._custom_kernels``;
``spades_sim.nb`` documents it): compiled once per process, never cached. The lock-step
kernels (for runs without the sampling bidder, ``monte-carlo``, whose rollouts dwarf the
play anyway) bid in lock-step too (``prepare.prepare_lanes_four_nb``; two players through
``policies.plain_bid_nb``), so they never compile those rollouts: cold compile time is
most of a first run's wait. What happens before the first lead is in ``prepare.py``.
"""

import numpy as np
from numba import njit

from spades_sim._nb.deal import deck_cards_nb
from spades_sim._nb.enums import (
    LANES,
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
from spades_sim._nb.lockstep_heuristic import play_heuristic_lockstep_nb
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
    prepare_lanes_four_nb,
    prepare_lanes_two_nb,
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
from spades_sim._nb.score import game_result_nb, score_side_nb

BLOCK = 64  # deals per block of ``hands_nb``; any value gives the same results

# Set in a private copy before it executes (see the module docstring); this module as
# imported caches its kernels and dispatches the built-ins.
CACHE = globals().get("CACHE", True)
bid_policy_ns_nb, bid_policy_ew_nb, play_policy_ns_nb, play_policy_ew_nb = globals().get(
    "POLICIES", (builtin_bid_nb, builtin_bid_nb, builtin_play_nb, builtin_play_nb)
)


@njit(cache=CACHE)
def prepare_hand_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind):  # fmt: skip
    """``prepare_with_nb`` with the run's bid policies (``bid_policy_ns_nb`` ...)."""
    return prepare_with_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        bid_policy_ns_nb, bid_policy_ew_nb,
    )  # fmt: skip


@njit(cache=CACHE)
def run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners):
    """Play one hand from its stream ``key``; return the number of policy errors.

    ``prepare_hand_nb`` then 13 tricks with the play policies (see there for the
    arguments)."""
    leader, counter, errors = prepare_hand_nb(
        rules, scratch, key, dealer, params, info, masks, NO_SEAT, ZERO_I64, ZERO_I64
    )
    for s in range(4):
        masks[MaskSlot.work + s] = masks[MaskSlot.hands + s]
    counter, play_errors = play_tricks_nb(
        rules, masks, MaskSlot.work, leader, info, params, ParamRow.play,
        play_policy_ns_nb, play_policy_ew_nb, key, counter, plays, winners,
    )  # fmt: skip
    return errors + play_errors


@njit(inline="always", cache=CACHE)
def score_hand_nb(rules, info, out):
    """Score both sides of a finished hand from ``info`` (bids, nil kinds, tricks, bags):
    ``out[side]`` gets the 10 fields of ``score_side_nb``."""
    four = rules[RuleField.players] == 4
    for side in range(2):
        b = side + 2
        score_side_nb(
            rules,
            info[InfoSlot.bids + side], info[InfoSlot.nil + side], info[InfoSlot.tricks_won + side],
            info[InfoSlot.bids + b], info[InfoSlot.nil + b], info[InfoSlot.tricks_won + b],
            four, info[InfoSlot.bags + side], out[side],
        )  # fmt: skip


@njit(inline="always", cache=CACHE)
def write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Write the per-seat rows of one scored hand starting at row ``row0``
    (``rows.write_seat_row_nb``, then the scores and bags before and after)."""
    players = rules[RuleField.players]
    for seat in range(players):
        row = row0 + seat
        side = seat & 1
        res = side_out[side]
        write_seat_row_nb(
            row, masks[MaskSlot.hands + seat], dealer, info[InfoSlot.bids + seat],
            info[InfoSlot.nil + seat], info[InfoSlot.tricks_won + seat],
            res[ScoreSlot.nil_made_b] if seat >= 2 else res[ScoreSlot.nil_made_a],
            res[ScoreSlot.contract], res[ScoreSlot.side_tricks], res[ScoreSlot.made],
            res[ScoreSlot.bags_change], res[ScoreSlot.boston], res[ScoreSlot.score_change],
            res[ScoreSlot.bag_penalty], out_hand, out_i8, out_i32,
        )  # fmt: skip
        score_before = info[InfoSlot.scores + side]
        out_i32[OutI32.score_before, row] = score_before
        out_i32[OutI32.score_after, row] = score_before + res[ScoreSlot.score_change]
        out_i32[OutI32.bags_before, row] = info[InfoSlot.bags + side]
        out_i32[OutI32.bags_after, row] = res[ScoreSlot.bags_after]


@njit(inline="always", cache=CACHE)
def finish_hand_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Score a finished hand (``score_hand_nb``, into ``side_out``) and write its rows
    (``write_rows_nb``), through one real call with borrowed arrays: inlined into every
    entry point, the scoring rules made each of them slower to compile."""
    finish_hand_call_nb(
        rules, row0, dealer, borrow_nb(info), borrow_nb(masks), borrow_nb(side_out),
        borrow_nb(out_hand), borrow_nb(out_i8), borrow_nb(out_i32),
    )  # fmt: skip


@njit(cache=CACHE)
def finish_hand_call_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    score_hand_nb(rules, info, side_out)
    write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32)


@njit(inline="always", cache=CACHE)
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


@njit(cache=CACHE)
def finish_lanes_four_nb(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32):
    """``finish_lanes_with_nb`` for four players."""
    finish_lanes_with_nb(
        rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32, write_lane_rows_four_nb,
    )  # fmt: skip


@njit(cache=CACHE)
def finish_lanes_two_nb(rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32):
    """``finish_lanes_with_nb`` for two players."""
    finish_lanes_with_nb(
        rules, deal_start, lo, hi, lanes, st, out_hand, out_i8, out_i32, write_lane_rows_two_nb,
    )  # fmt: skip


@njit(inline="always", cache=CACHE)
def new_scratch_nb(rules):
    """Per-task scratch: shuffle space [0:52], then the deck's 52 card ids [52:104],
    ascending (``deal.deck_cards_nb``). Copied card by card: a slice assignment would
    compile Numba's shape-mismatch error path (string formatting, 1.7 s of a cold start)
    into every kernel."""
    scratch = np.empty(104, dtype=np.uint8)
    deck = deck_cards_nb(rules[RuleField.jokers])
    for k in range(52):
        scratch[52 + k] = deck[k]
    return scratch


# --- Entry points ----------------------------------------------------------------------
# Each runs blocks ``first .. end-1`` of its items, serially and without the GIL:
# ``spades_sim.kernels.run_blocks`` hands block ranges to a pool of Python threads. A
# ``prange`` loop instead compiled three times slower (the parallel wrapper re-optimises
# everything it calls), and a block writes only its own rows, so the results do not
# depend on how the blocks are shared out.


@njit(cache=CACHE, nogil=True)
def hands_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
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
    side_out = np.zeros((2, N_SCORE_SLOTS), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
    for i in range(first * BLOCK, min(n, end * BLOCK)):
        deal = deal_start + i
        dealer = deal % players
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        plays = rec_plays[i] if record else no_plays
        out_errors[i] = run_hand_nb(
            rules, scratch, key, dealer, params, info, masks, plays, winners
        )
        finish_hand_nb(rules, i * players, dealer, info, masks, side_out, out_hand, out_i8, out_i32)
        if record:
            for s in range(players):
                rec_dealt[i * players + s] = masks[MaskSlot.dealt + s]
            for t in range(13):
                rec_winners[i, t] = winners[t]


@njit(cache=CACHE, nogil=True)
def games_nb(
    first, end, rules, seed, game_start, n, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
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
    penalties = np.zeros(2, dtype=np.int64)
    side_out = np.zeros((2, N_SCORE_SLOTS), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
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
        penalties[0] = penalties[1] = 0
        while reason == EndReason.none:
            dealer = (first_dealer + h) % players
            key = stream_key_nb(seed, KIND_GAMES, game, h)
            slot = i * max_hands + h
            plays = rec_plays[slot] if record else no_plays
            errors += run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners)
            finish_hand_nb(
                rules, slot * players, dealer, info, masks, side_out, out_hand, out_i8, out_i32
            )
            if record:
                for s in range(players):
                    rec_dealt[slot * players + s] = masks[MaskSlot.dealt + s]
                for t in range(13):
                    rec_winners[slot, t] = winners[t]
            for side in range(2):
                info[InfoSlot.scores + side] += side_out[side, ScoreSlot.score_change]
                info[InfoSlot.bags + side] = side_out[side, ScoreSlot.bags_after]
                penalties[side] += side_out[side, ScoreSlot.bag_penalty]
            h += 1
            winner, reason = game_result_nb(
                rules, info[InfoSlot.scores], info[InfoSlot.scores + 1], h
            )
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
        out_game[i, GameOut.policy_error] = errors


@njit(inline="always", cache=CACHE)
def play_lockstep_nb(st, rules, params, heuristic):
    """Play the 13 tricks of every lane: ``heuristic`` or ``random`` on both sides."""
    if heuristic:
        play_heuristic_lanes_nb(st, rules, params)
    else:
        play_random_lanes_nb(st, rules, params)


@njit(inline="always", cache=CACHE)
def play_heuristic_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane with the ``heuristic`` on both sides."""
    play_heuristic_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.jokers] != 0,
        rules[RuleField.nil_tricks_for_partner] != 0, params[ParamRow.play],
        params[ParamRow.play + 1],
    )  # fmt: skip


@njit(inline="always", cache=CACHE)
def play_random_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane at random on both sides (``params`` unused)."""
    play_random_lockstep_nb(
        st, rules[RuleField.players], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0,
    )  # fmt: skip


@njit(inline="always", cache=CACHE)
def lockstep_blocks_nb(first, end, rules, seed, deal_start, n, params, prepare, play, finish,
                       out_hand, out_i8, out_i32, out_errors):  # fmt: skip
    """``hands_nb`` for runs whose play policy is the same lock-step one on both sides:
    per block of ``LANES`` deals, ``prepare`` (``prepare.prepare_lanes_four_nb``, bids in
    lock-step too, or ``prepare_lanes_two_nb``), ``play`` (``play_heuristic_lanes_nb`` or
    ``play_random_lanes_nb``, which give the scalar path's cards) for all of them at once,
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


@njit(cache=CACHE, nogil=True)
def hands_heuristic_lockstep_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_nb`` for four players when both sides play ``heuristic``, no side bids
    ``monte-carlo`` and no play is recorded: the same results, in lock-step batches of
    ``LANES`` deals (the ``rec_*`` arrays, for the same signature, are not used)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_four_nb,
        play_heuristic_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=CACHE, nogil=True)
def hands_random_lockstep_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_heuristic_lockstep_nb`` when both sides play ``random``."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_four_nb,
        play_random_lanes_nb, finish_lanes_four_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=CACHE, nogil=True)
def hands_heuristic_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_heuristic_lockstep_nb`` for two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_two_nb,
        play_heuristic_lanes_nb, finish_lanes_two_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=CACHE, nogil=True)
def hands_random_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_random_lockstep_nb`` for two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_lanes_two_nb,
        play_random_lanes_nb, finish_lanes_two_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip
