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
compiles a copy of this module with those globals rebound (``spades_sim.simulate``),
uncached, once per process. The lock-step kernels (for runs without the sampling
bidder, ``monte-carlo``, whose rollouts dwarf the play anyway) bid through
``prepare.plain_bid_nb`` instead, so they never compile those rollouts: cold compile time
is most of a first run's wait. What happens before the first lead is in ``prepare.py``.
"""

import numpy as np
from numba import njit

from spades_sim._nb import layout as L
from spades_sim._nb.features import hand_features_nb
from spades_sim._nb.lockstep import (
    F_HAND,
    F_KEY,
    F_LEADER,
    F_TRICKS,
    LANES,
    play_random_lockstep_nb,
)
from spades_sim._nb.play import play_tricks_nb
from spades_sim._nb.policies import (
    H_BIDS,
    H_NILS,
    N_HEURISTIC_FIELDS,
    borrow_nb,
    builtin_bid_nb,
    builtin_play_nb,
    play_heuristic_lockstep_nb,
)
from spades_sim._nb.prepare import (
    M_DEALT,
    M_HANDS,
    M_WORK,
    N_MASKS,
    P_PLAY,
    prepare_plain_four_nb,
    prepare_plain_two_nb,
    prepare_with_nb,
)
from spades_sim._nb.rng import (
    GOLDEN,
    KIND_GAMES,
    KIND_HANDS,
    LOW32,
    below_nb,
    mix64_nb,
    stream_key_nb,
)
from spades_sim._nb.score import REASON_NONE, game_result_nb, score_side_nb

BLOCK = 64  # deals per block of ``hands_nb``; any value gives the same results
# Typed int64, not literals: a call with the constants -1, 0, 0 compiles its own
# Literal[int] copy of prepare_hand_nb beside the int64 one ``odds`` calls (8 s).
NO_SEAT = np.int64(-1)
ZERO_I64 = np.int64(0)

bid_policy_ns_nb = builtin_bid_nb
bid_policy_ew_nb = builtin_bid_nb
play_policy_ns_nb = builtin_play_nb
play_policy_ew_nb = builtin_play_nb


@njit(cache=True)
def prepare_hand_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind):  # fmt: skip
    """``prepare_with_nb`` with the run's bid policies (``bid_policy_ns_nb`` ...)."""
    return prepare_with_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        bid_policy_ns_nb, bid_policy_ew_nb,
    )  # fmt: skip


@njit(cache=True)
def run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners):
    """Play one hand from its stream ``key``; return the number of policy errors.

    ``prepare_hand_nb`` then 13 tricks with the play policies (see there for the
    arguments)."""
    leader, counter, errors = prepare_hand_nb(
        rules, scratch, key, dealer, params, info, masks, NO_SEAT, ZERO_I64, ZERO_I64
    )
    for s in range(4):
        masks[M_WORK + s] = masks[M_HANDS + s]
    counter, play_errors = play_tricks_nb(
        rules, masks, M_WORK, leader, info, params, P_PLAY,
        play_policy_ns_nb, play_policy_ew_nb, key, counter, plays, winners,
    )  # fmt: skip
    return errors + play_errors


@njit(inline="always", cache=True)
def score_hand_nb(rules, info, out):
    """Score both sides of a finished hand from ``info`` (bids, nil kinds, tricks, bags):
    ``out[side]`` gets the 10 fields of ``score_side_nb``."""
    four = rules[L.R_PLAYERS] == 4
    for side in range(2):
        b = side + 2
        score_side_nb(
            rules,
            info[L.I_BIDS + side], info[L.I_NIL + side], info[L.I_TRICKS_WON + side],
            info[L.I_BIDS + b], info[L.I_NIL + b], info[L.I_TRICKS_WON + b],
            four, info[L.I_BAGS + side], out[side],
        )  # fmt: skip


@njit(inline="always", cache=True)
def write_features_nb(hand, row, out_i8):
    """The hand's features (``features.hand_features_nb``) into its output row."""
    spades, high, aces, kings, queens, shortest, voids, points = hand_features_nb(hand)
    out_i8[L.O_SPADES, row] = spades
    out_i8[L.O_HIGH_SPADES, row] = high
    out_i8[L.O_ACES, row] = aces
    out_i8[L.O_KINGS, row] = kings
    out_i8[L.O_QUEENS, row] = queens
    out_i8[L.O_SHORTEST, row] = shortest
    out_i8[L.O_VOIDS, row] = voids
    out_i8[L.O_POINTS, row] = points


@njit(inline="always", cache=True)
def write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Write the per-seat rows of one scored hand starting at row ``row0``."""
    players = rules[L.R_PLAYERS]
    for seat in range(players):
        row = row0 + seat
        side = seat & 1
        res = side_out[side]
        hand = masks[M_HANDS + seat]
        out_hand[row] = hand
        out_i8[L.O_BID, row] = info[L.I_BIDS + seat]
        out_i8[L.O_NIL, row] = info[L.I_NIL + seat]
        out_i8[L.O_TRICKS, row] = info[L.I_TRICKS_WON + seat]
        out_i8[L.O_NIL_MADE, row] = res[9] if seat >= 2 else res[8]
        out_i8[L.O_SIDE_CONTRACT, row] = res[0]
        out_i8[L.O_SIDE_TRICKS, row] = res[1]
        out_i8[L.O_MADE, row] = res[2]
        out_i8[L.O_BAGS_CHANGE, row] = res[4]
        out_i8[L.O_DEALER, row] = dealer
        out_i8[L.O_BOSTON, row] = res[7]
        write_features_nb(hand, row, out_i8)
        score_before = info[L.I_SCORES + side]
        out_i32[L.O_SCORE_CHANGE, row] = res[3]
        out_i32[L.O_BAG_PENALTY, row] = res[6]
        out_i32[L.O_SCORE_BEFORE, row] = score_before
        out_i32[L.O_SCORE_AFTER, row] = score_before + res[3]
        out_i32[L.O_BAGS_BEFORE, row] = info[L.I_BAGS + side]
        out_i32[L.O_BAGS_AFTER, row] = res[5]


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
def new_scratch_nb(rules):
    """Per-task scratch: shuffle space [0:52], then the deck's 52 card ids [52:104],
    ascending. Filled card by card: a slice assignment would compile Numba's shape-mismatch
    error path (string formatting, 1.7 s of a cold start) into every kernel."""
    scratch = np.empty(104, dtype=np.uint8)
    jokers = rules[L.R_JOKERS] != 0
    n = 52
    for card in range(54):
        if (card == 13 or card == 26) if jokers else card >= 52:
            continue
        scratch[n] = card
        n += 1
    return scratch


# --- Entry points ----------------------------------------------------------------------
# Each runs blocks ``first .. end-1`` of its items, serially and without the GIL:
# ``spades_sim.kernels.run_blocks`` hands block ranges to a pool of Python threads. A
# ``prange`` loop instead compiled three times slower (the parallel wrapper re-optimises
# everything it calls), and a block writes only its own rows, so the results do not
# depend on how the blocks are shared out.


@njit(cache=True, nogil=True)
def hands_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Independent hands (fresh scores, dealer = deal index modulo players): blocks
    ``first .. end-1`` of ``BLOCK`` deals of deals deal_start .. deal_start+n-1.

    ``params`` (5 x 16 float64) rows: bid N-S, bid E-W, play N-S, play E-W, draw. Every
    play policy through ``play_tricks_nb``; with non-empty ``rec_plays`` the deal as dealt,
    the cards in play order and the trick winners are recorded."""
    players = rules[L.R_PLAYERS]
    record = rec_plays.shape[0] > 0
    scratch = new_scratch_nb(rules)
    info = np.zeros(L.N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    side_out = np.zeros((2, 10), dtype=np.int64)
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
                rec_dealt[i * players + s] = masks[M_DEALT + s]
            for t in range(13):
                rec_winners[i, t] = winners[t]


@njit(cache=True, nogil=True)
def games_nb(
    first, end, rules, seed, game_start, n, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Whole games, one block each: games game_start+first .. game_start+end-1 of the
    ``n`` from game_start, played to the end. Game i's hand h fills rows from
    ``(i * max_hands + h) * players``; ``out_game[i]`` gets its summary."""
    players = rules[L.R_PLAYERS]
    max_hands = rules[L.R_MAX_HANDS]
    record = rec_plays.shape[0] > 0
    scratch = new_scratch_nb(rules)
    info = np.zeros(L.N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    penalties = np.zeros(2, dtype=np.int64)
    side_out = np.zeros((2, 10), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
    for i in range(first, min(n, end)):
        game = game_start + i
        game_key = stream_key_nb(seed, KIND_GAMES, game, 0xFFFFFFFF)
        first_dealer = below_nb(mix64_nb(game_key) & LOW32, players)
        winner, reason, h = -1, REASON_NONE, 0
        errors = 0
        for j in range(L.N_INFO):  # each game starts from a clean table
            info[j] = 0
        for j in range(N_MASKS):
            masks[j] = 0
        penalties[0] = penalties[1] = 0
        while reason == REASON_NONE:
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
                    rec_dealt[slot * players + s] = masks[M_DEALT + s]
                for t in range(13):
                    rec_winners[slot, t] = winners[t]
            for side in range(2):
                info[L.I_SCORES + side] += side_out[side, 3]
                info[L.I_BAGS + side] = side_out[side, 5]
                penalties[side] += side_out[side, 6]
            h += 1
            winner, reason = game_result_nb(rules, info[L.I_SCORES], info[L.I_SCORES + 1], h)
        out_game[i, L.G_FIRST_DEALER] = first_dealer
        out_game[i, L.G_WINNER] = winner
        out_game[i, L.G_REASON] = reason
        out_game[i, L.G_HANDS] = h
        out_game[i, L.G_SCORE0] = info[L.I_SCORES]
        out_game[i, L.G_SCORE1] = info[L.I_SCORES + 1]
        out_game[i, L.G_BAGS0] = info[L.I_BAGS]
        out_game[i, L.G_BAGS1] = info[L.I_BAGS + 1]
        out_game[i, L.G_PENALTY0] = penalties[0]
        out_game[i, L.G_PENALTY1] = penalties[1]
        out_game[i, L.G_POLICY_ERROR] = errors


@njit(inline="always", cache=True)
def load_lane_nb(st, b, info, masks, leader, play_key):
    """Put a prepared hand (``prepare_hand_nb``) into lane ``b`` of the lock-step state."""
    for s in range(4):
        st[(F_HAND + s) * LANES + b] = masks[M_HANDS + s]
        st[(F_TRICKS + s) * LANES + b] = 0
        st[(H_BIDS + s) * LANES + b] = max(info[L.I_BIDS + s], 0)
        st[(H_NILS + s) * LANES + b] = info[L.I_NIL + s] != 0
    st[F_LEADER * LANES + b] = leader
    st[F_KEY * LANES + b] = play_key


@njit(inline="always", cache=True)
def play_lockstep_nb(st, rules, params, heuristic):
    """Play the 13 tricks of every lane: ``heuristic`` or ``random`` on both sides."""
    if heuristic:
        play_heuristic_lanes_nb(st, rules, params)
    else:
        play_random_lanes_nb(st, rules, params)


@njit(inline="always", cache=True)
def play_heuristic_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane with the ``heuristic`` on both sides."""
    play_heuristic_lockstep_nb(
        st, rules[L.R_PLAYERS], rules[L.R_FIRST_LEAD_TWO_CLUBS] != 0,
        rules[L.R_SPADES_ANY_TIME] != 0, rules[L.R_JOKERS] != 0,
        rules[L.R_NIL_TRICKS_FOR_PARTNER] != 0, params[P_PLAY], params[P_PLAY + 1],
    )  # fmt: skip


@njit(inline="always", cache=True)
def play_random_lanes_nb(st, rules, params):
    """Play the 13 tricks of every lane at random on both sides (``params`` unused)."""
    play_random_lockstep_nb(
        st, rules[L.R_PLAYERS], rules[L.R_FIRST_LEAD_TWO_CLUBS] != 0,
        rules[L.R_SPADES_ANY_TIME] != 0,
    )  # fmt: skip


@njit(inline="always", cache=True)
def lockstep_blocks_nb(first, end, rules, seed, deal_start, n, params, prepare, play,
                       out_hand, out_i8, out_i32, out_errors):  # fmt: skip
    """``hands_nb`` for runs whose play policy is the same lock-step one on both sides:
    per block of ``LANES`` deals, bid one deal at a time through ``prepare``, then play
    all of them at once with ``play`` (``play_heuristic_lanes_nb`` or
    ``play_random_lanes_nb``, which give the scalar path's cards)."""
    players = rules[L.R_PLAYERS]
    scratch = new_scratch_nb(rules)
    infos = np.zeros((LANES, L.N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    side_out = np.zeros((2, 10), dtype=np.int64)
    for block in range(first, end):
        lo = block * LANES
        hi = min(n, lo + LANES)
        for b in range(LANES):
            i = lo + b if lo + b < hi else lo  # lanes past the end replay the first deal
            deal = deal_start + i
            key = stream_key_nb(seed, KIND_HANDS, deal, 0)
            leader, counter, errors = prepare(
                rules,
                scratch,
                key,
                deal % players,
                params,
                infos[b],
                masks[b],
                NO_SEAT,
                ZERO_I64,
                ZERO_I64,
            )
            if lo + b < hi:
                out_errors[i] = errors
            load_lane_nb(st, b, infos[b], masks[b], leader, key + np.uint64(counter) * GOLDEN)
        play(st, rules, params)
        for b in range(hi - lo):
            info = infos[b]
            for s in range(4):
                info[L.I_TRICKS_WON + s] = st[(F_TRICKS + s) * LANES + b]
            deal = deal_start + lo + b
            finish_hand_nb(
                rules, (lo + b) * players, deal % players, info, masks[b], side_out,
                out_hand, out_i8, out_i32,
            )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_lockstep_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_nb`` for four players when both sides play ``heuristic``, no side bids
    ``monte-carlo`` and no play is recorded: the same results, in lock-step batches of
    ``LANES`` deals (the ``rec_*`` arrays, for the same signature, are not used)."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_plain_four_nb,
        play_heuristic_lanes_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_random_lockstep_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_heuristic_lockstep_nb`` when both sides play ``random``."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_plain_four_nb,
        play_random_lanes_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_heuristic_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_heuristic_lockstep_nb`` for two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_plain_two_nb,
        play_heuristic_lanes_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def hands_random_lockstep_two_nb(
    first, end, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_random_lockstep_nb`` for two players."""
    lockstep_blocks_nb(
        first, end, rules, seed, deal_start, n, params, prepare_plain_two_nb,
        play_random_lanes_nb, out_hand, out_i8, out_i32, out_errors,
    )  # fmt: skip
