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
``plain_bid_nb`` instead, so they never compile those rollouts: cold compile time is
most of a first run's wait.
"""

import numpy as np
from numba import njit

from spades_sim._nb import layout as L
from spades_sim._nb.bitboard import (
    JOKER_DECK,
    ONE,
    STANDARD_DECK,
    bit_nb,
    popcount_nb,
    select_bit_nb,
)
from spades_sim._nb.deal import deal_four_nb, draw_two_nb
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
    blind_nil_wanted_nb,
    borrow_nb,
    builtin_bid_nb,
    builtin_play_nb,
    counting_bid_nb,
    discard_for_nil_nb,
    partner_aware_bid_nb,
    pass_cards_nb,
    play_heuristic_lockstep_nb,
)
from spades_sim._nb.rng import (
    GOLDEN,
    KIND_GAMES,
    KIND_HANDS,
    LOW32,
    below_nb,
    draw_nb,
    mix64_nb,
    stream_key_nb,
    unit_nb,
)
from spades_sim._nb.score import REASON_NONE, game_result_nb, score_side_nb

BLOCK = 64  # deals per block of ``hands_nb``; any value gives the same results
# Typed int64, not literals: a call with the constants -1, 0, 0 compiles its own
# Literal[int] copy of prepare_hand_nb beside the int64 one ``odds`` calls (8 s).
NO_SEAT = np.int64(-1)
ZERO_I64 = np.int64(0)
M_WORK, M_HANDS, M_DEALT, N_MASKS = 0, 4, 8, 12  # slots of the hidden ``masks`` array
P_BID, P_PLAY, P_DRAW, N_PARAM_ROWS = 0, 2, 4, 5  # rows of the ``params`` array

bid_policy_ns_nb = builtin_bid_nb
bid_policy_ew_nb = builtin_bid_nb
play_policy_ns_nb = builtin_play_nb
play_policy_ew_nb = builtin_play_nb
DECISION_COUNTER_BASE = 64


@njit(inline="always", cache=True)
def blind_nil_allowed_nb(rules, info, seat):
    if not rules[L.R_BLIND_NIL]:
        return False
    need = rules[L.R_BLIND_NIL_MIN_DEFICIT]
    if need == 0:
        return True
    side = seat & 1
    return info[L.I_SCORES + 1 - side] - info[L.I_SCORES + side] >= need


@njit(inline="always", cache=True)
def ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew):
    """One seat's bid through its side's policy; an out-of-range bid counts as an error."""
    rand = key + np.uint64(counter) * GOLDEN
    hand = masks[M_HANDS + seat]
    if seat & 1:
        bid = bid_ew(hand, seat, info, rules, params[P_BID + 1], rand)
    else:
        bid = bid_ns(hand, seat, info, rules, params[P_BID], rand)
    if bid < 0 or bid > 13:
        return min(max(bid, 0), 13), 1
    return bid, 0


# Real calls with borrowed arrays (``policies.borrow_nb``, no reference counting) for the
# larger steps of ``prepare_with_nb``: inlined, each call site compiled its own copy, and
# Numba's inlining and typing of that one big function were most of its compile time.


@njit(inline="always", cache=True)
def blind_nil_nb(seat, info, rules, params, rand):
    """``policies.blind_nil_wanted_nb``, compiled once for its two call sites."""
    return blind_nil_call_nb(seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand)


@njit(cache=True)
def blind_nil_call_nb(seat, info, rules, params, rand):
    return blind_nil_wanted_nb(seat, info, rules, params, rand)


@njit(inline="always", cache=True)
def draw_two_players_nb(scratch, key, first_drawer, info, draw_params, masks, base):
    """``deal.draw_two_nb`` (the two-player draw), compiled on its own."""
    return draw_two_call_nb(
        borrow_nb(scratch), key, first_drawer, borrow_nb(info), borrow_nb(draw_params),
        borrow_nb(masks), base,
    )  # fmt: skip


@njit(cache=True)
def draw_two_call_nb(scratch, key, first_drawer, info, draw_params, masks, base):
    return draw_two_nb(scratch, key, first_drawer, info, draw_params, masks, base)


@njit(inline="always", cache=True)
def set_bid_nb(info, seat, bid, nil_kind):
    info[L.I_BIDS + seat] = bid
    info[L.I_NIL + seat] = nil_kind


@njit(inline="always", cache=True)
def plain_bid_nb(hand, seat, info, rules, params, rand):
    """``policies.builtin_bid_nb`` without the sampling bidder (``monte-carlo``): the bid
    dispatch of the kernels for runs that do not use it, which then do not compile its
    rollouts. Same bids for every other policy. A real call with borrowed arrays
    (``policies.borrow_nb``): inlined, each of the four call sites in ``prepare_with_nb``
    would compile a copy of every bidder."""
    return plain_bid_call_nb(hand, seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand)


@njit(cache=True)
def plain_bid_call_nb(hand, seat, info, rules, params, rand):
    """``plain_bid_nb``'s dispatch (its arrays borrowed by the caller)."""
    policy = np.int64(params[0])
    if policy == L.BID_RANDOM:
        bits = mix64_nb(rand)
        if unit_nb(bits) < params[1]:
            return 0
        return 1 + below_nb(mix64_nb(rand + GOLDEN) & LOW32, np.int64(params[3]))
    if policy == L.BID_PARTNER:
        return partner_aware_bid_nb(hand, seat, info, rules, params)
    return counting_bid_nb(hand, seat, info, params, policy)


@njit(cache=True)
def prepare_hand_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind):  # fmt: skip
    """``prepare_with_nb`` with the run's bid policies (``bid_policy_ns_nb`` ...)."""
    return prepare_with_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        bid_policy_ns_nb, bid_policy_ew_nb,
    )  # fmt: skip


@njit(cache=True)
def prepare_plain_four_nb(rules, scratch, key, dealer, params, info, masks, forced_seat,
                          forced_bid, forced_kind):  # fmt: skip
    """``prepare_four_nb`` with ``plain_bid_nb`` on both sides (no sampling bidder); the
    lock-step kernels have one per player count, so neither compiles the other's code."""
    return prepare_four_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        plain_bid_nb, plain_bid_nb,
    )  # fmt: skip


@njit(cache=True)
def prepare_plain_two_nb(rules, scratch, key, dealer, params, info, masks, forced_seat,
                         forced_bid, forced_kind):  # fmt: skip
    """``prepare_two_nb`` with ``plain_bid_nb`` on both sides."""
    return prepare_two_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        plain_bid_nb, plain_bid_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def prepare_with_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind, bid_ns, bid_ew):  # fmt: skip
    """Everything before the first lead: deal (or draw), blind nil decisions, bids (side s
    through ``bid_ns``/``bid_ew``), blind nil exchange. Returns (first leader, random
    counter for the play, policy errors).

    ``forced_seat`` -1 plays the hand as dealt from ``key``. A seat 0..3 instead takes the
    hands already in ``masks[M_HANDS:]`` (a conditional deal, ``odds``), and that seat
    bids ``forced_bid`` with nil kind ``forced_kind`` (0 number, 1 nil, 2 blind nil,
    declared at its blind-nil turn) instead of asking its policy; everything else
    (other seats' decisions, the exchange or two-player redraw) runs as usual.

    Few arguments on purpose: every array passed to a non-inlined call costs reference
    counting, and this call happens once per hand (through ``prepare_hand_nb``,
    ``prepare_plain_four_nb`` or ``prepare_plain_two_nb``, which are real calls).
    ``scratch`` holds the deck's 52 card ids in [52:104] and shuffle space in [0:52].
    ``info`` is the public table state (layout ``I_*``; the caller sets the scores and
    bags before the hand), which the policies read and which ends with the bids, nil
    kinds (0/1 nil/2 blind) and tricks.
    ``masks`` (hidden from policies) receives the hands at the start of play
    (``M_HANDS``) and as dealt before any blind nil exchange (``M_DEALT``). ``params``
    rows: bid N-S, bid E-W, play N-S, play E-W, draw.
    """
    if rules[L.R_PLAYERS] == 4:
        return prepare_four_nb(
            rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
            forced_kind, bid_ns, bid_ew,
        )  # fmt: skip
    return prepare_two_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        bid_ns, bid_ew,
    )  # fmt: skip


@njit(inline="always", cache=True)
def start_hand_nb(rules, dealer, info):
    """The table before the hand: ``info`` reset but for the scores and bags; returns the
    first seat to act."""
    players = rules[L.R_PLAYERS]
    for j in range(L.I_SCORES):
        info[j] = 0
    for j in range(L.I_VOIDS, L.N_INFO):
        info[j] = 0
    info[L.I_PLAYERS] = players
    info[L.I_DEALER] = dealer
    for s in range(4):
        info[L.I_BIDS + s] = -1
    first = (dealer + 1) & 3 if players == 4 else 1 - dealer
    info[L.I_FIRST_TO_ACT] = first
    return first


@njit(inline="always", cache=True)
def first_leader_nb(rules, masks, first):
    """Who leads the first trick: ``first``, or the holder of the two of clubs."""
    leader = first
    if rules[L.R_FIRST_LEAD_TWO_CLUBS]:
        for s in range(rules[L.R_PLAYERS]):
            if masks[M_HANDS + s] & ONE:
                leader = s
    return leader


@njit(inline="always", cache=True)
def prepare_four_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind, bid_ns, bid_ew):  # fmt: skip
    """``prepare_with_nb`` for four players: the deal, blind nil, bids, the exchange."""
    first = start_hand_nb(rules, dealer, info)
    counter = DECISION_COUNTER_BASE
    errors = 0
    exchange = rules[L.R_BLIND_NIL_EXCHANGE]
    dealt = forced_seat >= 0
    if not dealt:
        deal_four_nb(scratch, key, masks, M_HANDS)
    for s in range(4):
        masks[M_DEALT + s] = masks[M_HANDS + s]
    seat = first
    for _ in range(4):
        blind = False
        if seat == forced_seat:
            blind = forced_kind == 2
        elif blind_nil_allowed_nb(rules, info, seat):
            rand = key + np.uint64(counter) * GOLDEN
            blind = blind_nil_nb(seat, info, rules, params[P_BID + (seat & 1)], rand)
        counter += 1
        if blind:
            set_bid_nb(info, seat, 0, 2)
        elif seat == forced_seat:
            set_bid_nb(info, seat, forced_bid, forced_kind)
        else:
            bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew)
            errors += err
            set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
        counter += 1
        seat = (seat + 1) & 3
    if exchange > 0:
        for side in range(2):
            a, b = side, side + 2
            if (info[L.I_NIL + a] == 2) != (info[L.I_NIL + b] == 2):
                nil_seat, partner = (a, b) if info[L.I_NIL + a] == 2 else (b, a)
                # the flag from the table, not a constant: pass_cards_nb is then
                # compiled once, not once per literal True/False
                give = pass_cards_nb(
                    masks[M_HANDS + nil_seat], exchange, info[L.I_NIL + nil_seat] == 2
                )
                take = pass_cards_nb(
                    masks[M_HANDS + partner], exchange, info[L.I_NIL + partner] == 2
                )
                masks[M_HANDS + nil_seat] = (masks[M_HANDS + nil_seat] & ~give) | take
                masks[M_HANDS + partner] = (masks[M_HANDS + partner] & ~take) | give
    return first_leader_nb(rules, masks, first), counter, errors


@njit(inline="always", cache=True)
def prepare_two_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                   forced_kind, bid_ns, bid_ew):  # fmt: skip
    """``prepare_with_nb`` for two players: blind nil, the draw (and a blind nil
    declarer's discards and replacements), then the bids."""
    first = start_hand_nb(rules, dealer, info)
    counter = DECISION_COUNTER_BASE
    errors = 0
    exchange = rules[L.R_BLIND_NIL_EXCHANGE]
    dealt = forced_seat >= 0
    seat = first
    for _ in range(2):
        going_nil = False
        if seat == forced_seat:
            going_nil = forced_kind == 2
        elif blind_nil_allowed_nb(rules, info, seat):
            rand = key + np.uint64(counter) * GOLDEN
            going_nil = blind_nil_nb(seat, info, rules, params[P_BID + seat], rand)
        counter += 1
        if going_nil:
            set_bid_nb(info, seat, 0, 2)
        seat = 1 - seat
    if dealt:
        unused = deck_mask_nb(rules) & ~(masks[M_HANDS] | masks[M_HANDS + 1])
    else:
        unused = draw_two_players_nb(scratch, key, dealer, info, params[P_DRAW], masks, M_HANDS)
    for s in range(4):
        masks[M_DEALT + s] = masks[M_HANDS + s]
    seat = first
    for _ in range(2):
        if info[L.I_NIL + seat] == 2 and exchange > 0:
            discard = discard_for_nil_nb(masks[M_HANDS + seat], exchange)
            pile = unused
            for _k in range(popcount_nb(discard)):
                bits = draw_nb(key, counter) & LOW32
                counter += 1
                card = select_bit_nb(pile, below_nb(bits, popcount_nb(pile)))
                pile &= ~bit_nb(card)
                masks[M_HANDS + seat] |= bit_nb(card)
            masks[M_HANDS + seat] &= ~discard
            # Replacements come from the cards unused by the draw, never from another
            # declarer's discards (both players may have bid blind nil).
            unused = pile
        seat = 1 - seat
    seat = first
    for _ in range(2):
        if seat == forced_seat and forced_kind != 2:
            set_bid_nb(info, seat, forced_bid, forced_kind)
        elif info[L.I_NIL + seat] != 2:
            bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew)
            errors += err
            set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
        counter += 1
        seat = 1 - seat
    return first_leader_nb(rules, masks, first), counter, errors


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
def deck_mask_nb(rules):
    """The mask of this rule set's 52 cards."""
    return JOKER_DECK if rules[L.R_JOKERS] else STANDARD_DECK


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
