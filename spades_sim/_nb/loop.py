"""The batch loops: one whole hand, many independent hands, many whole games.

``run_hand_nb`` plays one hand end to end: deal (or two-player draw), blind nil
decisions, bids, blind nil exchange, 13 tricks. ``score_hand_nb`` scores it. The entry
points ``hands_nb`` and ``games_nb`` run blocks of deals (or whole games) in ``prange``;
every deal draws from its own counter-based stream, so the output is independent of
thread count and chunking.

The policies are the module globals ``bid_policy_ns_nb`` ... ``play_policy_ew_nb``
(built-in dispatchers here), called by name: Numba cannot cache a kernel that receives
a function as an argument through a real call, and inlining the whole hand into the
parallel loop to avoid that costs a minute of compile time. A run with user-written
policies loads a private copy of this module from its file with ``POLICIES`` (the four
functions) and ``CACHE = False`` set before it executes (``simulate._custom_kernels``;
``spades_sim.nb`` documents it): compiled once per process, never cached.
"""

import numpy as np
from numba import njit, prange

from spades_sim._nb.bidding import blind_nil_wanted_nb
from spades_sim._nb.bitboard import (
    bit_nb,
    deck_mask_nb,
    popcount_nb,
    select_bit_nb,
)
from spades_sim._nb.deal import (
    deal_four_nb,
    deck_cards_nb,
    draw_two_nb,
)
from spades_sim._nb.enums import (
    LANES,
    N_HEURISTIC_FIELDS,
    N_INFO,
    N_MASKS,
    N_SCORE_SLOTS,
    EndReason,
    GameOut,
    HeuristicField,
    InfoSlot,
    LockstepField,
    MaskSlot,
    OutI8,
    OutI32,
    ParamRow,
    RuleField,
    ScoreSlot,
)
from spades_sim._nb.exchange import discard_for_nil_nb, pass_cards_nb
from spades_sim._nb.features import hand_features_nb
from spades_sim._nb.lockstep import play_random_lockstep_nb
from spades_sim._nb.lockstep_heuristic import play_heuristic_lockstep_nb
from spades_sim._nb.play import (
    first_leader_nb,
    first_to_act_nb,
    play_tricks_nb,
)
from spades_sim._nb.policies import builtin_bid_nb, builtin_play_nb
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
from spades_sim._nb.score import game_result_nb, score_side_nb

BLOCK = 64  # deals per prange task; any value gives the same results
# The prange index reaches the loop body as uint64 in the parallel gufunc but as int64
# when typed first: each entry point passes np.int64(block), or its block function is
# compiled twice (measured: 25 s of a 140 s cold start).

# Set in a private copy before it executes (see the module docstring); this module as
# imported caches its kernels and dispatches the built-ins.
CACHE = globals().get("CACHE", True)
bid_policy_ns_nb, bid_policy_ew_nb, play_policy_ns_nb, play_policy_ew_nb = globals().get(
    "POLICIES", (builtin_bid_nb, builtin_bid_nb, builtin_play_nb, builtin_play_nb)
)
DECISION_COUNTER_BASE = 64


@njit(inline="always", cache=CACHE)
def blind_nil_allowed_nb(rules, info, seat):
    if not rules[RuleField.blind_nil]:
        return False
    need = rules[RuleField.blind_nil_min_deficit]
    if need == 0:
        return True
    side = seat & 1
    return info[InfoSlot.scores + 1 - side] - info[InfoSlot.scores + side] >= need


@njit(inline="always", cache=CACHE)
def ask_bid_nb(rules, info, masks, seat, params, key, counter):
    """One seat's bid through its side's policy; an out-of-range bid counts as an error."""
    rand = key + np.uint64(counter) * GOLDEN
    hand = masks[MaskSlot.hands + seat]
    if seat & 1:
        bid = bid_policy_ew_nb(hand, seat, info, rules, params[ParamRow.bid + 1], rand)
    else:
        bid = bid_policy_ns_nb(hand, seat, info, rules, params[ParamRow.bid], rand)
    if bid < 0 or bid > 13:
        return min(max(bid, 0), 13), 1
    return bid, 0


@njit(inline="always", cache=CACHE)
def set_bid_nb(info, seat, bid, nil_kind):
    info[InfoSlot.bids + seat] = bid
    info[InfoSlot.nil + seat] = nil_kind


@njit(cache=CACHE)
def prepare_hand_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind):  # fmt: skip
    """Everything before the first lead: deal (or draw), blind nil decisions, bids, blind
    nil exchange. Returns (first leader, random counter for the play, policy errors).

    ``forced_seat`` -1 plays the hand as dealt from ``key``. A seat 0..3 instead takes the
    hands already in ``masks[MaskSlot.hands:]`` (a conditional deal, ``odds``), and that seat
    bids ``forced_bid`` with nil kind ``forced_kind`` (0 number, 1 nil, 2 blind nil,
    declared at its blind-nil turn) instead of asking its policy; everything else
    (other seats' decisions, the exchange or two-player redraw) runs as usual.

    Few arguments on purpose: every array passed to a non-inlined call costs reference
    counting, and this call happens once per hand. ``scratch`` holds the deck's 52 card
    ids in [52:104] and shuffle space in [0:52]. ``info`` is the public table state
    (``InfoSlot``; the caller sets the scores and bags before the hand), which the
    policies read and which ends with the bids, nil kinds (0/1 nil/2 blind) and tricks.
    ``masks`` (hidden from policies) receives the hands at the start of play
    (``MaskSlot.hands``) and as dealt before any blind nil exchange (``MaskSlot.dealt``). ``params``
    rows: bid N-S, bid E-W, play N-S, play E-W, draw.
    """
    players = rules[RuleField.players]
    for j in range(InfoSlot.scores):
        info[j] = 0
    for j in range(InfoSlot.voids, N_INFO):
        info[j] = 0
    info[InfoSlot.players] = players
    info[InfoSlot.dealer] = dealer
    for s in range(4):
        info[InfoSlot.bids + s] = -1
    first = first_to_act_nb(dealer, players)
    info[InfoSlot.first_to_act] = first
    counter = DECISION_COUNTER_BASE
    errors = 0
    exchange = rules[RuleField.blind_nil_exchange]
    dealt = forced_seat >= 0
    if players == 4:
        if not dealt:
            deal_four_nb(scratch, key, masks, MaskSlot.hands)
        for s in range(4):
            masks[MaskSlot.dealt + s] = masks[MaskSlot.hands + s]
        seat = first
        for _ in range(4):
            blind = False
            if seat == forced_seat:
                blind = forced_kind == 2
            elif blind_nil_allowed_nb(rules, info, seat):
                rand = key + np.uint64(counter) * GOLDEN
                blind = blind_nil_wanted_nb(
                    seat, info, rules, params[ParamRow.bid + (seat & 1)], rand
                )
            counter += 1
            if blind:
                set_bid_nb(info, seat, 0, 2)
            elif seat == forced_seat:
                set_bid_nb(info, seat, forced_bid, forced_kind)
            else:
                bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter)
                errors += err
                set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
            counter += 1
            seat = (seat + 1) & 3
        if exchange > 0:
            for side in range(2):
                a, b = side, side + 2
                if (info[InfoSlot.nil + a] == 2) != (info[InfoSlot.nil + b] == 2):
                    nil_seat, partner = (a, b) if info[InfoSlot.nil + a] == 2 else (b, a)
                    give = pass_cards_nb(masks[MaskSlot.hands + nil_seat], exchange, True)
                    take = pass_cards_nb(masks[MaskSlot.hands + partner], exchange, False)
                    masks[MaskSlot.hands + nil_seat] = (
                        masks[MaskSlot.hands + nil_seat] & ~give
                    ) | take
                    masks[MaskSlot.hands + partner] = (
                        masks[MaskSlot.hands + partner] & ~take
                    ) | give
    else:
        seat = first
        for _ in range(2):
            going_nil = False
            if seat == forced_seat:
                going_nil = forced_kind == 2
            elif blind_nil_allowed_nb(rules, info, seat):
                rand = key + np.uint64(counter) * GOLDEN
                going_nil = blind_nil_wanted_nb(
                    seat, info, rules, params[ParamRow.bid + seat], rand
                )
            counter += 1
            if going_nil:
                set_bid_nb(info, seat, 0, 2)
            seat = 1 - seat
        if dealt:
            unused = deck_mask_nb(rules[RuleField.jokers]) & ~(
                masks[MaskSlot.hands] | masks[MaskSlot.hands + 1]
            )
        else:
            unused = draw_two_nb(
                scratch, key, dealer, info, params[ParamRow.draw], masks, MaskSlot.hands
            )
        for s in range(4):
            masks[MaskSlot.dealt + s] = masks[MaskSlot.hands + s]
        seat = first
        for _ in range(2):
            if info[InfoSlot.nil + seat] == 2 and exchange > 0:
                discard = discard_for_nil_nb(masks[MaskSlot.hands + seat], exchange)
                pile = unused
                for _k in range(popcount_nb(discard)):
                    bits = draw_nb(key, counter) & LOW32
                    counter += 1
                    card = select_bit_nb(pile, below_nb(bits, popcount_nb(pile)))
                    pile &= ~bit_nb(card)
                    masks[MaskSlot.hands + seat] |= bit_nb(card)
                masks[MaskSlot.hands + seat] &= ~discard
                # Replacements come from the cards unused by the draw, never from another
                # declarer's discards (both players may have bid blind nil).
                unused = pile
            seat = 1 - seat
        seat = first
        for _ in range(2):
            if seat == forced_seat and forced_kind != 2:
                set_bid_nb(info, seat, forced_bid, forced_kind)
            elif info[InfoSlot.nil + seat] != 2:
                bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter)
                errors += err
                set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
            counter += 1
            seat = 1 - seat
    leader = first_leader_nb(masks, MaskSlot.hands, players, first, rules)
    return leader, counter, errors


@njit(cache=CACHE)
def run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners):
    """Play one hand from its stream ``key``; return the number of policy errors.

    ``prepare_hand_nb`` then 13 tricks with the play policies (see there for the
    arguments)."""
    leader, counter, errors = prepare_hand_nb(
        rules, scratch, key, dealer, params, info, masks, -1, 0, 0
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
def write_features_nb(hand, row, out_i8):
    """The hand's features (``features.hand_features_nb``) into its output row."""
    spades, high, aces, kings, queens, shortest, voids, points = hand_features_nb(hand)
    out_i8[OutI8.spades, row] = spades
    out_i8[OutI8.high_spades, row] = high
    out_i8[OutI8.aces, row] = aces
    out_i8[OutI8.kings, row] = kings
    out_i8[OutI8.queens, row] = queens
    out_i8[OutI8.shortest_suit, row] = shortest
    out_i8[OutI8.voids, row] = voids
    out_i8[OutI8.points, row] = points


@njit(inline="always", cache=CACHE)
def write_rows_nb(rules, row0, dealer, info, masks, side_out, out_hand, out_i8, out_i32):
    """Write the per-seat rows of one scored hand starting at row ``row0``."""
    players = rules[RuleField.players]
    for seat in range(players):
        row = row0 + seat
        side = seat & 1
        res = side_out[side]
        hand = masks[MaskSlot.hands + seat]
        out_hand[row] = hand
        out_i8[OutI8.bid, row] = info[InfoSlot.bids + seat]
        out_i8[OutI8.nil_kind, row] = info[InfoSlot.nil + seat]
        out_i8[OutI8.tricks, row] = info[InfoSlot.tricks_won + seat]
        out_i8[OutI8.nil_made, row] = (
            res[ScoreSlot.nil_made_b] if seat >= 2 else res[ScoreSlot.nil_made_a]
        )
        out_i8[OutI8.side_contract, row] = res[ScoreSlot.contract]
        out_i8[OutI8.side_tricks, row] = res[ScoreSlot.side_tricks]
        out_i8[OutI8.made, row] = res[ScoreSlot.made]
        out_i8[OutI8.bags_change, row] = res[ScoreSlot.bags_change]
        out_i8[OutI8.dealer, row] = dealer
        out_i8[OutI8.boston, row] = res[ScoreSlot.boston]
        write_features_nb(hand, row, out_i8)
        score_before = info[InfoSlot.scores + side]
        out_i32[OutI32.score_change, row] = res[ScoreSlot.score_change]
        out_i32[OutI32.bag_penalty, row] = res[ScoreSlot.bag_penalty]
        out_i32[OutI32.score_before, row] = score_before
        out_i32[OutI32.score_after, row] = score_before + res[ScoreSlot.score_change]
        out_i32[OutI32.bags_before, row] = info[InfoSlot.bags + side]
        out_i32[OutI32.bags_after, row] = res[ScoreSlot.bags_after]


@njit(inline="always", cache=CACHE)
def new_scratch_nb(rules):
    """Per-task scratch: shuffle space [0:52], then the deck's 52 card ids [52:104]."""
    scratch = np.empty(104, dtype=np.uint8)
    scratch[52:] = deck_cards_nb(rules[RuleField.jokers])
    return scratch


@njit(cache=CACHE)
def hands_block_nb(
    block, rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Play block ``block`` (BLOCK deals) of deals deal_start .. deal_start+n-1 as
    independent hands (fresh scores, dealer = deal index modulo players)."""
    players = rules[RuleField.players]
    record = rec_plays.shape[0] > 0
    scratch = new_scratch_nb(rules)
    info = np.zeros(N_INFO, dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    side_out = np.zeros((2, N_SCORE_SLOTS), dtype=np.int64)
    no_plays = np.empty(0, dtype=np.int8)
    winners = np.zeros(13, dtype=np.int8)
    for i in range(block * BLOCK, min(n, (block + 1) * BLOCK)):
        deal = deal_start + i
        dealer = deal % players
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        plays = rec_plays[i] if record else no_plays
        out_errors[i] = run_hand_nb(
            rules, scratch, key, dealer, params, info, masks, plays, winners
        )
        score_hand_nb(rules, info, side_out)
        write_rows_nb(rules, i * players, dealer, info, masks, side_out, out_hand, out_i8, out_i32)
        if record:
            for s in range(players):
                rec_dealt[i * players + s] = masks[MaskSlot.dealt + s]
            for t in range(13):
                rec_winners[i, t] = winners[t]


@njit(cache=CACHE)
def game_one_nb(
    i, rules, seed, game_start, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Play game ``game_start + i`` to the end. Its hand h fills rows from
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
    game = game_start + i
    game_key = stream_key_nb(seed, KIND_GAMES, game, 0xFFFFFFFF)
    first_dealer = below_nb(mix64_nb(game_key) & LOW32, players)
    winner, reason, h = -1, EndReason.none, 0
    errors = 0
    while reason == EndReason.none:
        dealer = (first_dealer + h) % players
        key = stream_key_nb(seed, KIND_GAMES, game, h)
        slot = i * max_hands + h
        plays = rec_plays[slot] if record else no_plays
        errors += run_hand_nb(rules, scratch, key, dealer, params, info, masks, plays, winners)
        score_hand_nb(rules, info, side_out)
        write_rows_nb(
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
        winner, reason = game_result_nb(rules, info[InfoSlot.scores], info[InfoSlot.scores + 1], h)
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


@njit(cache=CACHE, parallel=True)
def hands_nb(
    rules, seed, deal_start, n, params,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Independent hands: deals deal_start .. deal_start+n-1 (see hands_block_nb).

    ``params`` (5 x 16 float64) rows: bid N-S, bid E-W, play N-S, play E-W, draw."""
    for block in prange((n + BLOCK - 1) // BLOCK):
        hands_block_nb(
            np.int64(block), rules, seed, deal_start, n, params,
            out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
        )  # fmt: skip


@njit(inline="always", cache=CACHE)
def load_lane_nb(st, b, info, masks, leader, play_key):
    """Put a prepared hand (``prepare_hand_nb``) into lane ``b`` of the lock-step state."""
    for s in range(4):
        st[(LockstepField.hand + s) * LANES + b] = masks[MaskSlot.hands + s]
        st[(LockstepField.tricks + s) * LANES + b] = 0
        st[(HeuristicField.bids + s) * LANES + b] = max(info[InfoSlot.bids + s], 0)
        st[(HeuristicField.nils + s) * LANES + b] = info[InfoSlot.nil + s] != 0
    st[LockstepField.leader * LANES + b] = leader
    st[LockstepField.key * LANES + b] = play_key


@njit(inline="always", cache=CACHE)
def play_lockstep_nb(st, rules, params, heuristic):
    """Play the 13 tricks of every lane: ``heuristic`` or ``random`` on both sides."""
    players = rules[RuleField.players]
    two_clubs = rules[RuleField.first_lead_two_clubs] != 0
    any_time = rules[RuleField.spades_any_time] != 0
    if heuristic:
        play_heuristic_lockstep_nb(
            st, players, two_clubs, any_time, rules[RuleField.jokers] != 0,
            rules[RuleField.nil_tricks_for_partner] != 0, params[ParamRow.play],
            params[ParamRow.play + 1],
        )  # fmt: skip
    else:
        play_random_lockstep_nb(st, players, two_clubs, any_time)


@njit(cache=CACHE)
def hands_lockstep_block_nb(
    block, rules, seed, deal_start, n, params, heuristic, out_hand, out_i8, out_i32, out_errors
):  # fmt: skip
    """``hands_block_nb`` for runs whose play policy is ``random`` (or, with
    ``heuristic``, ``heuristic``) on both sides: bids one deal at a time, then plays all
    the block's deals in lock-step (``lockstep``, ``lockstep_heuristic``)."""
    players = rules[RuleField.players]
    scratch = new_scratch_nb(rules)
    infos = np.zeros((LANES, N_INFO), dtype=np.int64)
    masks = np.zeros((LANES, N_MASKS), dtype=np.uint64)
    st = np.zeros(N_HEURISTIC_FIELDS * LANES, dtype=np.uint64)
    side_out = np.zeros((2, N_SCORE_SLOTS), dtype=np.int64)
    lo = block * LANES
    hi = min(n, lo + LANES)
    for b in range(LANES):
        i = lo + b if lo + b < hi else lo  # lanes past the end replay the first deal
        deal = deal_start + i
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        leader, counter, errors = prepare_hand_nb(
            rules, scratch, key, deal % players, params, infos[b], masks[b], -1, 0, 0
        )
        if lo + b < hi:
            out_errors[i] = errors
        load_lane_nb(st, b, infos[b], masks[b], leader, key + np.uint64(counter) * GOLDEN)
    play_lockstep_nb(st, rules, params, heuristic)
    for b in range(hi - lo):
        info = infos[b]
        for s in range(4):
            info[InfoSlot.tricks_won + s] = st[(LockstepField.tricks + s) * LANES + b]
        score_hand_nb(rules, info, side_out)
        deal = deal_start + lo + b
        write_rows_nb(
            rules, (lo + b) * players, deal % players, info, masks[b], side_out,
            out_hand, out_i8, out_i32,
        )  # fmt: skip


@njit(cache=CACHE, parallel=True)
def hands_lockstep_nb(
    rules, seed, deal_start, n, params, heuristic,
    out_hand, out_i8, out_i32, out_errors, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """``hands_nb`` when both sides play ``random`` (or both ``heuristic``) and no play
    is recorded: the same results, computed in lock-step batches of ``LANES`` deals."""
    for block in prange((n + LANES - 1) // LANES):
        hands_lockstep_block_nb(
            np.int64(block), rules, seed, deal_start, n, params, heuristic,
            out_hand, out_i8, out_i32, out_errors,
        )  # fmt: skip


@njit(cache=CACHE, parallel=True)
def games_nb(
    rules, seed, game_start, n, params,
    out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
):  # fmt: skip
    """Whole games: games game_start .. game_start+n-1 (see game_one_nb)."""
    for i in prange(n):
        game_one_nb(
            np.int64(i), rules, seed, game_start, params,
            out_hand, out_i8, out_i32, out_game, rec_dealt, rec_plays, rec_winners,
        )  # fmt: skip
