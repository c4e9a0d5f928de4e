"""The batch loops: one whole hand, many independent hands, many whole games.

``run_hand_nb`` plays one hand end to end: deal (or two-player draw), blind nil
decisions, bids, blind nil exchange, 13 tricks. ``score_hand_nb`` scores it. The loops
run blocks of deals in ``prange``; every deal draws from its own counter-based stream,
so the output is independent of thread count and chunking. Policies come in as
functions (``bid_fn*``/``play_fn*``, one per side); the cached entry points
``hands_builtin_nb``/``games_builtin_nb`` bind the built-in dispatchers, and the
``*_custom_nb`` entry points take user-written ``@njit`` policies (compiled once per
process, since Numba cannot cache a kernel specialised on a function argument).
"""

import numpy as np
from numba import njit, prange

from spades_sim._nb import layout as L
from spades_sim._nb.bitboard import ONE, SUIT_MASKS, ZERO, bit_nb, popcount_nb, select_bit_nb
from spades_sim._nb.deal import deal_four_nb, draw_two_nb
from spades_sim._nb.play import play_tricks_nb
from spades_sim._nb.policies import (
    blind_nil_wanted_nb,
    builtin_bid_nb,
    builtin_play_nb,
    discard_for_nil_nb,
    pass_cards_nb,
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
)
from spades_sim._nb.score import REASON_NONE, game_result_nb, score_side_nb

BLOCK = 64  # deals per prange task; any value gives the same results
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
def ask_bid_nb(rules, info, hands, seat, bid_params, bid_fn0, bid_fn1, key, counter):
    """One seat's bid through its side's policy; an out-of-range bid counts as an error."""
    rand = key + np.uint64(counter) * GOLDEN
    if seat & 1:
        bid = bid_fn1(hands[seat], seat, info, rules, bid_params[1], rand)
    else:
        bid = bid_fn0(hands[seat], seat, info, rules, bid_params[0], rand)
    if bid < 0 or bid > 13:
        return min(max(bid, 0), 13), 1
    return bid, 0


@njit(inline="always", cache=True)
def run_hand_nb(
    rules,
    deck_cards,
    scratch,
    key,
    dealer,
    scores,
    bags,
    bid_params,
    play_params,
    draw_params,
    bid_fn0,
    bid_fn1,
    play_fn0,
    play_fn1,
    info,
    work,
    hands,
    dealt,
    bids,
    nils,
    tricks,
    plays,
    winners,
):
    """Play one hand (``work`` is scratch of 4 uint64). Fills hands (at the start of
    play), dealt (before any blind nil exchange), bids, nils (0/1 nil/2 blind), tricks,
    plays and winners; returns the number of policy errors (illegal bid or card,
    replaced by a legal one)."""
    players = rules[L.R_PLAYERS]
    for j in range(L.N_INFO):
        info[j] = 0
    info[L.I_PLAYERS] = players
    info[L.I_DEALER] = dealer
    info[L.I_SCORES] = scores[0]
    info[L.I_SCORES + 1] = scores[1]
    info[L.I_BAGS] = bags[0]
    info[L.I_BAGS + 1] = bags[1]
    for s in range(4):
        info[L.I_BIDS + s] = -1
        bids[s] = -1
        nils[s] = 0
        tricks[s] = 0
    first = (dealer + 1) & 3 if players == 4 else 1 - dealer
    info[L.I_FIRST_TO_ACT] = first
    counter = DECISION_COUNTER_BASE
    errors = 0
    exchange = rules[L.R_BLIND_NIL_EXCHANGE]
    if players == 4:
        deal_four_nb(deck_cards, scratch, key, hands)
        for s in range(4):
            dealt[s] = hands[s]
        seat = first
        for _ in range(4):
            blind = False
            if blind_nil_allowed_nb(rules, info, seat):
                rand = key + np.uint64(counter) * GOLDEN
                blind = blind_nil_wanted_nb(seat, info, rules, bid_params[seat & 1], rand)
            counter += 1
            if blind:
                bid, err = 0, 0
                nils[seat] = 2
            else:
                bid, err = ask_bid_nb(
                    rules, info, hands, seat, bid_params, bid_fn0, bid_fn1, key, counter
                )
                nils[seat] = 1 if bid == 0 else 0
            counter += 1
            errors += err
            bids[seat] = bid
            info[L.I_BIDS + seat] = bid
            info[L.I_NIL + seat] = nils[seat]
            seat = (seat + 1) & 3
        if exchange > 0:
            for side in range(2):
                a, b = side, side + 2
                if (nils[a] == 2) != (nils[b] == 2):
                    nil_seat, partner = (a, b) if nils[a] == 2 else (b, a)
                    give = pass_cards_nb(hands[nil_seat], exchange, True)
                    take = pass_cards_nb(hands[partner], exchange, False)
                    hands[nil_seat] = (hands[nil_seat] & ~give) | take
                    hands[partner] = (hands[partner] & ~take) | give
    else:
        going_nil = work  # scratch: 0/1 per player until play starts
        going_nil[0] = 0
        going_nil[1] = 0
        seat = first
        for _ in range(2):
            if blind_nil_allowed_nb(rules, info, seat):
                rand = key + np.uint64(counter) * GOLDEN
                going_nil[seat] = blind_nil_wanted_nb(seat, info, rules, bid_params[seat & 1], rand)
            counter += 1
            if going_nil[seat]:
                bids[seat] = 0
                nils[seat] = 2
                info[L.I_BIDS + seat] = 0
                info[L.I_NIL + seat] = 2
            seat = 1 - seat
        unused = draw_two_nb(deck_cards, scratch, key, dealer, going_nil, draw_params, hands)
        dealt[0] = hands[0]
        dealt[1] = hands[1]
        dealt[2] = ZERO
        dealt[3] = ZERO
        seat = first
        for _ in range(2):
            if going_nil[seat] and exchange > 0:
                discard = discard_for_nil_nb(hands[seat], exchange)
                pile = unused
                for _k in range(popcount_nb(discard)):
                    bits = draw_nb(key, counter) & LOW32
                    counter += 1
                    card = select_bit_nb(pile, below_nb(bits, popcount_nb(pile)))
                    pile &= ~bit_nb(card)
                    hands[seat] |= bit_nb(card)
                hands[seat] &= ~discard
                unused = pile | discard
            seat = 1 - seat
        seat = first
        for _ in range(2):
            if not going_nil[seat]:
                bid, err = ask_bid_nb(
                    rules, info, hands, seat, bid_params, bid_fn0, bid_fn1, key, counter
                )
                errors += err
                bids[seat] = bid
                nils[seat] = 1 if bid == 0 else 0
                info[L.I_BIDS + seat] = bid
                info[L.I_NIL + seat] = nils[seat]
            counter += 1
            seat = 1 - seat
    leader = first
    if rules[L.R_FIRST_LEAD_TWO_CLUBS]:
        for s in range(players):
            if hands[s] & ONE:
                leader = s
    for s in range(4):
        work[s] = hands[s]
    counter, play_errors = play_tricks_nb(
        rules, work, leader, info, play_params, play_fn0, play_fn1, key, counter, plays, winners
    )
    for s in range(4):
        tricks[s] = info[L.I_TRICKS_WON + s]
    return errors + play_errors


@njit(inline="always", cache=True)
def score_into_nb(rules, bids, nils, tricks, bags, side, out_side):
    """Score one side of a finished hand into ``out_side`` (10 ints, see score_side_nb)."""
    if rules[L.R_PLAYERS] == 4:
        b = side + 2
        score_side_nb(
            rules, bids[side], nils[side], tricks[side], bids[b], nils[b], tricks[b], True,
            bags[side], out_side,
        )  # fmt: skip
    else:
        score_side_nb(
            rules, bids[side], nils[side], tricks[side], 0, 0, 0, False, bags[side], out_side
        )


@njit(inline="always", cache=True)
def score_hand_nb(rules, bids, nils, tricks, bags, out):
    """Score both sides: ``out[side]`` gets the 10 fields of ``score_side_nb``."""
    for side in range(2):
        score_into_nb(rules, bids, nils, tricks, bags, side, out[side])


ACE_MASK = np.uint64((1 << 12) | (1 << 25) | (1 << 38) | (1 << 51))
KING_MASK = ACE_MASK >> np.uint64(1)
QUEEN_MASK = ACE_MASK >> np.uint64(2)
JACK_MASK = ACE_MASK >> np.uint64(3)
HIGH_SPADE_MASK = np.uint64((0b111 << 49) | (1 << 52) | (1 << 53))  # QS, KS, AS, LJ, BJ


@njit(inline="always", cache=True)
def write_features_nb(hand, row, out_i8):
    """Hand features: spade count, high spades, aces/kings/queens, shortest suit, voids,
    high-card points (A4 K3 Q2 J1)."""
    aces = popcount_nb(hand & ACE_MASK)
    kings = popcount_nb(hand & KING_MASK)
    queens = popcount_nb(hand & QUEEN_MASK)
    jacks = popcount_nb(hand & JACK_MASK)
    shortest = 13
    voids = 0
    for suit in range(4):
        n = popcount_nb(hand & SUIT_MASKS[suit])
        shortest = min(shortest, n)
        voids += n == 0
    out_i8[L.O_SPADES, row] = popcount_nb(hand & SUIT_MASKS[3])
    out_i8[L.O_HIGH_SPADES, row] = popcount_nb(hand & HIGH_SPADE_MASK)
    out_i8[L.O_ACES, row] = aces
    out_i8[L.O_KINGS, row] = kings
    out_i8[L.O_QUEENS, row] = queens
    out_i8[L.O_SHORTEST, row] = shortest
    out_i8[L.O_VOIDS, row] = voids
    out_i8[L.O_POINTS, row] = 4 * aces + 3 * kings + 2 * queens + jacks


@njit(inline="always", cache=True)
def write_rows_nb(
    rules, row0, dealer, hands, bids, nils, tricks, scores, bags, side_out, out_hand, out_i8,
    out_i32,
):  # fmt: skip
    """Write the per-seat rows of one scored hand starting at row ``row0``."""
    players = rules[L.R_PLAYERS]
    for seat in range(players):
        row = row0 + seat
        side = seat & 1
        res = side_out[side]
        out_hand[row] = hands[seat]
        out_i8[L.O_BID, row] = bids[seat]
        out_i8[L.O_NIL, row] = nils[seat]
        out_i8[L.O_TRICKS, row] = tricks[seat]
        member_b = players == 4 and seat >= 2
        out_i8[L.O_NIL_MADE, row] = res[9] if member_b else res[8]
        out_i8[L.O_SIDE_CONTRACT, row] = res[0]
        out_i8[L.O_SIDE_TRICKS, row] = res[1]
        out_i8[L.O_MADE, row] = res[2]
        out_i8[L.O_BAGS_CHANGE, row] = res[4]
        out_i8[L.O_DEALER, row] = dealer
        out_i8[L.O_BOSTON, row] = res[7]
        write_features_nb(hands[seat], row, out_i8)
        out_i32[L.O_SCORE_CHANGE, row] = res[3]
        out_i32[L.O_BAG_PENALTY, row] = res[6]
        out_i32[L.O_SCORE_BEFORE, row] = scores[side]
        out_i32[L.O_SCORE_AFTER, row] = scores[side] + res[3]
        out_i32[L.O_BAGS_BEFORE, row] = bags[side]
        out_i32[L.O_BAGS_AFTER, row] = res[5]


@njit(cache=True)
def deck_cards_nb(rules):
    """The 52 card ids of this rule set's deck, ascending."""
    deck = np.empty(52, dtype=np.uint8)
    n = 0
    for card in range(54):
        if rules[L.R_JOKERS]:
            if card == 13 or card == 26:
                continue
        elif card >= 52:
            continue
        deck[n] = card
        n += 1
    return deck


@njit(inline="always", cache=True)
def hands_block_nb(
    block, deck_cards, rules, seed, deal_start, n, bid_params, play_params, draw_params,
    bid_fn0, bid_fn1, play_fn0, play_fn1,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Play block ``block`` (BLOCK deals) of deals deal_start .. deal_start+n-1 as
    independent hands (fresh scores, dealer = deal index modulo players)."""
    players = rules[L.R_PLAYERS]
    record = rec_plays.shape[0] > 0
    scratch = np.empty(52, dtype=np.uint8)
    info = np.zeros(L.N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    work = np.zeros(4, dtype=np.uint64)
    dealt = np.zeros(4, dtype=np.uint64)
    bids = np.zeros(4, dtype=np.int64)
    nils = np.zeros(4, dtype=np.int64)
    tricks = np.zeros(4, dtype=np.int64)
    scores = np.zeros(2, dtype=np.int64)
    bags = np.zeros(2, dtype=np.int64)
    side_out = np.zeros((2, 10), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
    for i in range(block * BLOCK, min(n, (block + 1) * BLOCK)):
        deal = deal_start + i
        dealer = deal % players
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        plays = rec_plays[i] if record else no_plays
        errors = run_hand_nb(
            rules, deck_cards, scratch, key, dealer, scores, bags,
            bid_params, play_params, draw_params, bid_fn0, bid_fn1, play_fn0, play_fn1,
            info, work, hands, dealt, bids, nils, tricks, plays, winners,
        )  # fmt: skip
        out_errors[i] = errors
        score_hand_nb(rules, bids, nils, tricks, bags, side_out)
        write_rows_nb(
            rules, i * players, dealer, hands, bids, nils, tricks, scores, bags, side_out,
            out_hand, out_i8, out_i32,
        )  # fmt: skip
        if record:
            for s in range(players):
                rec_dealt[i * players + s] = dealt[s]
            for t in range(13):
                rec_winners[i, t] = winners[t]


@njit(inline="always", cache=True)
def game_one_nb(
    i, deck_cards, rules, seed, game_start, bid_params, play_params, draw_params,
    bid_fn0, bid_fn1, play_fn0, play_fn1,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Play game ``game_start + i`` to the end. Its hand h fills rows from
    ``(i * max_hands + h) * players``; ``out_game[i]`` gets its summary."""
    players = rules[L.R_PLAYERS]
    max_hands = rules[L.R_MAX_HANDS]
    record = rec_plays.shape[0] > 0
    scratch = np.empty(52, dtype=np.uint8)
    info = np.zeros(L.N_INFO, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    work = np.zeros(4, dtype=np.uint64)
    dealt = np.zeros(4, dtype=np.uint64)
    bids = np.zeros(4, dtype=np.int64)
    nils = np.zeros(4, dtype=np.int64)
    tricks = np.zeros(4, dtype=np.int64)
    scores = np.zeros(2, dtype=np.int64)
    bags = np.zeros(2, dtype=np.int64)
    penalties = np.zeros(2, dtype=np.int64)
    side_out = np.zeros((2, 10), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
    game = game_start + i
    game_key = stream_key_nb(seed, KIND_GAMES, game, 0xFFFFFFFF)
    first_dealer = below_nb(mix64_nb(game_key) & LOW32, players)
    winner, reason, h = -1, REASON_NONE, 0
    errors = 0
    while reason == REASON_NONE:
        dealer = (first_dealer + h) % players
        key = stream_key_nb(seed, KIND_GAMES, game, h)
        slot = i * max_hands + h
        plays = rec_plays[slot] if record else no_plays
        errors += run_hand_nb(
            rules, deck_cards, scratch, key, dealer, scores, bags,
            bid_params, play_params, draw_params, bid_fn0, bid_fn1, play_fn0, play_fn1,
            info, work, hands, dealt, bids, nils, tricks, plays, winners,
        )  # fmt: skip
        score_hand_nb(rules, bids, nils, tricks, bags, side_out)
        write_rows_nb(
            rules, slot * players, dealer, hands, bids, nils, tricks, scores, bags,
            side_out, out_hand, out_i8, out_i32,
        )  # fmt: skip
        if record:
            for s in range(players):
                rec_dealt[slot * players + s] = dealt[s]
            for t in range(13):
                rec_winners[slot, t] = winners[t]
        for side in range(2):
            scores[side] += side_out[side, 3]
            bags[side] = side_out[side, 5]
            penalties[side] += side_out[side, 6]
        h += 1
        winner, reason = game_result_nb(rules, scores[0], scores[1], h)
    out_game[i, L.G_FIRST_DEALER] = first_dealer
    out_game[i, L.G_WINNER] = winner
    out_game[i, L.G_REASON] = reason
    out_game[i, L.G_HANDS] = h
    out_game[i, L.G_SCORE0] = scores[0]
    out_game[i, L.G_SCORE1] = scores[1]
    out_game[i, L.G_BAGS0] = bags[0]
    out_game[i, L.G_BAGS1] = bags[1]
    out_game[i, L.G_PENALTY0] = penalties[0]
    out_game[i, L.G_PENALTY1] = penalties[1]
    out_game[i, L.G_POLICY_ERROR] = errors


@njit(cache=True, parallel=True)
def hands_builtin_nb(
    rules, seed, deal_start, n, bid_params, play_params, draw_params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Cached entry point: independent hands with the built-in policies."""
    deck_cards = deck_cards_nb(rules)
    for block in prange((n + BLOCK - 1) // BLOCK):
        hands_block_nb(
        block, deck_cards, rules, seed, deal_start, n, bid_params, play_params, draw_params,
        builtin_bid_nb, builtin_bid_nb, builtin_play_nb, builtin_play_nb,
        out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
    )  # fmt: skip


@njit(cache=True, parallel=True)
def games_builtin_nb(
    rules, seed, game_start, n, bid_params, play_params, draw_params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Cached entry point: whole games with the built-in policies."""
    deck_cards = deck_cards_nb(rules)
    for i in prange(n):
        game_one_nb(
        i, deck_cards, rules, seed, game_start, bid_params, play_params, draw_params,
        builtin_bid_nb, builtin_bid_nb, builtin_play_nb, builtin_play_nb,
        out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
    )  # fmt: skip


@njit(parallel=True)
def hands_custom_nb(
    rules, seed, deal_start, n, bid_params, play_params, draw_params,
    bid_fn0, bid_fn1, play_fn0, play_fn1,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Entry point for user-written policies (specialised on the functions given)."""
    deck_cards = deck_cards_nb(rules)
    for block in prange((n + BLOCK - 1) // BLOCK):
        hands_block_nb(
        block, deck_cards, rules, seed, deal_start, n, bid_params, play_params, draw_params,
        bid_fn0, bid_fn1, play_fn0, play_fn1,
        out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
    )  # fmt: skip


@njit(parallel=True)
def games_custom_nb(
    rules, seed, game_start, n, bid_params, play_params, draw_params,
    bid_fn0, bid_fn1, play_fn0, play_fn1,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Entry point for user-written policies, whole games."""
    deck_cards = deck_cards_nb(rules)
    for i in prange(n):
        game_one_nb(
        i, deck_cards, rules, seed, game_start, bid_params, play_params, draw_params,
        bid_fn0, bid_fn1, play_fn0, play_fn1,
        out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
    )  # fmt: skip
