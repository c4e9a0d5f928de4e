"""Tables for learning agents: a hand (or game) advanced one decision at a time.

Contract. A table is three arrays the caller owns: ``info`` (the public table state,
``enums.InfoSlot``, what the built-in policies read), ``hid`` (uint64, the ``H_*`` slots
after ``enums.MaskSlot``'s: the hands, hidden from every seat but their holder, the stream
key, the cards each seat has played, the cards chosen for an exchange) and ``ext`` (int64,
the ``E_*`` slots: where the hand stands and whose decision is pending). Nothing here
validates its input: ``spades_sim.env`` (and ``vec_step_nb`` itself) check actions
against the mask before they are applied.

A decision is one of four kinds (``DECIDE_*``): a blind nil turn (the seat has not seen
its cards: ``BLIND_NIL_ACTION`` or ``LOOK_ACTION``), a bid (0 nil .. the tricks of the
hand), a card to pass in a four-player exchange, or a card to play. One action space
covers them: card ids 0..55 (``cards.py``; 52..55 are the jokers and the deuces-high
remaps), then the bids, then blind nil and look.

The order of the decisions is the engine's (``prepare.py``): with four or three players
each seat in turn from the dealer's left takes its blind nil turn (where the rules allow
it) then bids; with four players the exchanges follow (``exchange_turn_nb``: a blind nil
side's, then a nil side's, the nil bidder choosing its cards first, card by card, then
its partner, then the swap); with two players both blind nil turns come first, then the
draw, then the bids. Decisions no agent takes (``agents``: bit s for seat s's cards, bit
s + 4 for its blind nil turn, bid and exchange) are taken here by the built-in policies
(``policies.plain_bid_nb`` / ``plain_play_nb``, the built-in blind nil rule and
``exchange.pass_cards_nb``; parameter rows ``params[seat]`` for bids and
``params[4 + seat]`` for play; row 8 the two-player draw). What no seat decides is the
engine's own: the deal from the stream key (``deal.py``) and the two-player draw and
blind nil discards (``prepare.draw_two_hands_call_nb``). The legal bids are
``bidding.legal_bid_nb``'s, the legal cards ``play.legal_cards_nb``'s, who exchanges
``prepare.exchange_pair_nb``'s, the hand's score ``loop.score_hand_nb``'s and the end of
a game ``score.game_result_nb``'s: nothing of the rules is written again here.

``reset_nb`` starts episode ``episode`` of table ``table`` from the stream
``rng.stream_key_nb(seed, KIND_ENV, table, episode)`` (hand ``h`` of a game: the stream of
``(table, episode * 65536 + h)``), so a table's episodes do not depend on how many tables
there are. ``advance_nb`` runs the table until an agent must decide or the episode is
over; ``apply_nb`` applies an agent's action. ``observe_nb`` writes one seat's
observation (the ``O_*`` fields), ``legal_actions_nb`` the pending decision's mask.
``vec_step_nb`` / ``vec_reset_nb`` do it for many tables with one learner seat (or side) each,
auto-resetting finished ones. ``card_features_nb`` / ``linear_card_nb`` are the trained
linear player's (``spades_sim.env.linear``).
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import legal_bid_nb
from spades_sim._nb.bitboard import (
    ONE,
    SUIT_MASKS,
    ZERO,
    above_nb,
    bit_nb,
    deck_mask_nb,
    lowest_card_nb,
    popcount_nb,
    suit_of_nb,
)
from spades_sim._nb.deal import DECISION_COUNTER_BASE
from spades_sim._nb.enums import MAX_TRICKS, N_INFO, N_SCORE_SLOTS, InfoSlot, MaskSlot, RuleField
from spades_sim._nb.exchange import pass_cards_nb
from spades_sim._nb.loop import new_scratch_nb, score_hand_nb
from spades_sim._nb.play import (
    first_leader_nb,
    legal_cards_nb,
    next_seat_nb,
    record_play_nb,
    reset_trick_info_nb,
    shown_out_nb,
)
from spades_sim._nb.policies import borrow_nb, plain_bid_nb, plain_play_nb
from spades_sim._nb.prepare import (
    blind_nil_allowed_nb,
    blind_nil_call_nb,
    deal_four_call_nb,
    deal_three_call_nb,
    draw_two_hands_call_nb,
    exchange_pair_nb,
    set_bid_nb,
    start_hand_nb,
)
from spades_sim._nb.rng import GOLDEN, LOW32, below_nb, mix64_nb, stream_key_nb
from spades_sim._nb.score import game_result_nb, hand_tricks_nb, n_sides_nb, partner_bid_nb

KIND_ENV = 7  # the stream kind of the environment's deals (rng.py: 1 hands, 2 games)

# --- the action space ---
N_CARD_ACTIONS = 56
BID_ACTION = N_CARD_ACTIONS  # bid b is action BID_ACTION + b, b = 0 (nil) .. MAX_TRICKS
BLIND_NIL_ACTION = BID_ACTION + MAX_TRICKS + 1
LOOK_ACTION = BLIND_NIL_ACTION + 1
N_ACTIONS = LOOK_ACTION + 1

# --- decisions and stages ---
DECIDE_NONE = -1
DECIDE_BLIND = 0
DECIDE_BID = 1
DECIDE_CARD = 2
DECIDE_PASS = 3  # a card to pass in a four-player exchange
STAGE_BLIND = 0  # two players: the blind nil turns before the draw
STAGE_BID = 1
STAGE_PLAY = 2
STAGE_OVER = 3
STAGE_EXCHANGE = 4  # four players, after the bids: the blind nil and nil exchanges

# --- ext (int64) slots ---
E_STAGE = 0
E_K = 1  # how many seats have finished the current round of turns
E_SUB = 2  # 0: the seat's blind nil turn is still to come, 1: its bid
E_TO_ACT = 3
E_DECISION = 4
E_FIRST = 5  # first to act this hand
E_DEALER = 6
E_COUNTER = 7  # the hand's random counter (policy decisions, the draw)
E_HANDS = 8  # hands played this episode
E_EPISODE = 9
E_TABLE = 10
E_GAME = 11  # 1: the episode is a whole game
E_OVER = 12  # 1: the episode is over
E_FIRST_DEALER = 13
E_SEED = 14
E_REWARD = 15  # 4 slots: points each side scored since the slots were last cleared
E_PREV_TRICK = 19  # 4 slots: the last finished trick's cards by seat (-1 none)
E_PREV_LEADER = 23
E_X = 24  # the exchange in progress: 0, 1 blind nil (side 0, 1), 2, 3 nil; 4 done
E_X_ROLE = 25  # 0 the nil bidder chooses its cards, 1 its partner, 2 both chosen
N_EXT = 26

# --- hid (uint64) slots: MaskSlot's 12, then ---
H_KEY = 12  # the hand's stream key
H_PLAYED_BY = 13  # 4 slots: the cards each seat has played this hand
H_GIVE = 17  # the cards the nil bidder passes in the exchange in progress
H_TAKE = 18  # the cards its partner passes
N_HID = 19

# --- the observation (float32), field by field ---
O_PHASE = 0  # 5: one-hot blind nil turn, bidding, play, over, exchange
O_DEALER = 5  # 4: one-hot, relative seat of the dealer
O_HAND = 9  # 56: the seat's own cards (none on its blind nil turn, before it looks)
O_PASSING = O_HAND + N_CARD_ACTIONS  # 56: the cards it has chosen to pass (exchange)
# 4 x 21 per relative seat: one-hot bid 0..18, 19 not yet bid, 20 blind nil
O_BIDS = O_PASSING + N_CARD_ACTIONS
BID_WIDTH = MAX_TRICKS + 3
O_TRICKS_WON = O_BIDS + 4 * BID_WIDTH  # 4: tricks won by relative seat / tricks of a hand
O_LEADER = O_TRICKS_WON + 4  # 4: one-hot, relative seat leading the current trick
O_TRICK = O_LEADER + 4  # 4 x 56: the current trick's cards by relative seat
O_PREV_TRICK = O_TRICK + 4 * N_CARD_ACTIONS  # 4 x 56: the last finished trick by relative seat
O_PLAYED = O_PREV_TRICK + 4 * N_CARD_ACTIONS  # 4 x 56: every card played, by relative seat
O_SCORES = O_PLAYED + 4 * N_CARD_ACTIONS  # 4: score / target by relative side
O_BAGS = O_SCORES + 4  # 4: bags / bag_limit by relative side
O_BROKEN = O_BAGS + 4  # 1: spades broken
O_TRICK_NO = O_BROKEN + 1  # 1: tricks finished / tricks of a hand
O_TO_ACT = O_TRICK_NO + 1  # 4: one-hot, relative seat whose decision is pending
N_OBS = O_TO_ACT + 4


@njit(cache=True)
def reset_nb(rules, info, hid, ext, scratch, params, seed, table, episode, game):
    """Start episode ``episode`` of table ``table`` (a hand, or with ``game`` a game) and
    deal its first hand; the caller then runs ``advance_nb``."""
    players = rules[RuleField.players]
    for j in range(N_INFO):
        info[j] = 0
    for j in range(N_HID):
        hid[j] = 0
    for j in range(N_EXT):
        ext[j] = 0
    ext[E_TABLE] = table
    ext[E_EPISODE] = episode
    ext[E_GAME] = game
    ext[E_SEED] = seed
    if game:
        first_dealer = below_nb(mix64_nb(stream_key_nb(seed, KIND_ENV, table, episode)) & LOW32,
                                players)  # fmt: skip
    else:
        first_dealer = episode % players
    ext[E_FIRST_DEALER] = first_dealer
    start_deal_nb(rules, info, hid, ext, scratch, params)


@njit(cache=True)
def start_deal_nb(rules, info, hid, ext, scratch, params):
    """Deal hand ``ext[E_HANDS]`` of the episode (with two players: ready the blind nil
    turns; the draw follows them)."""
    players = rules[RuleField.players]
    h = ext[E_HANDS]
    dealer = (ext[E_FIRST_DEALER] + h) % players
    key = stream_key_nb(ext[E_SEED], KIND_ENV, ext[E_TABLE], ext[E_EPISODE] * 65536 + h)
    hid[H_KEY] = key
    ext[E_DEALER] = dealer
    ext[E_COUNTER] = DECISION_COUNTER_BASE
    first = start_hand_nb(rules, dealer, info)
    ext[E_FIRST] = first
    for s in range(4):
        hid[H_PLAYED_BY + s] = 0
        ext[E_PREV_TRICK + s] = -1
        hid[MaskSlot.hands + s] = 0
    ext[E_PREV_LEADER] = -1
    for j in range(4):
        info[InfoSlot.trick_cards + j] = -1
    info[InfoSlot.led_suit] = -1
    info[InfoSlot.winning_seat] = -1
    info[InfoSlot.winning_card] = -1
    ext[E_K] = 0
    ext[E_SUB] = 0
    if players == 4:
        deal_four_call_nb(scratch, key, hid)
    elif players == 3:
        deal_three_call_nb(scratch, key, hid, rules[RuleField.jokers])
    if players == 2:
        ext[E_STAGE] = STAGE_BLIND
    else:
        for s in range(4):
            hid[MaskSlot.dealt + s] = hid[MaskSlot.hands + s]
        ext[E_STAGE] = STAGE_BID
    ext[E_DECISION] = DECIDE_NONE
    ext[E_TO_ACT] = -1


@njit(inline="always", cache=True)
def own_hand_nb(hid, ext, seat):
    """The cards ``seat`` holds now (the work hands in play, the hands before)."""
    if ext[E_STAGE] == STAGE_PLAY:
        return hid[MaskSlot.work + seat]
    return hid[MaskSlot.hands + seat]


@njit(cache=True)
def legal_actions_nb(rules, info, hid, ext, out):
    """``legal_inline_nb`` as a real call."""
    legal_inline_nb(rules, info, hid, ext, out)


@njit(inline="always", cache=True)
def legal_inline_nb(rules, info, hid, ext, out):
    """``out`` (N_ACTIONS bools) gets the pending decision's legal actions; all false
    when nothing is pending."""
    for a in range(N_ACTIONS):
        out[a] = False
    decision = ext[E_DECISION]
    seat = ext[E_TO_ACT]
    if decision == DECIDE_BLIND:
        out[BLIND_NIL_ACTION] = True
        out[LOOK_ACTION] = True
    elif decision == DECIDE_BID:
        hand = hid[MaskSlot.hands + seat]
        partner = partner_bid_nb(info, seat)
        for b in range(hand_tricks_nb(rules) + 1):
            if legal_bid_nb(rules, b, hand, partner) == b:
                out[BID_ACTION + b] = True
    elif decision == DECIDE_PASS:
        legal = hid[MaskSlot.hands + seat] & ~hid[H_GIVE + ext[E_X_ROLE]]
        while legal:
            out[lowest_card_nb(legal)] = True
            legal &= legal - ONE
    elif decision == DECIDE_CARD:
        legal = card_mask_nb(rules, info, hid, seat)
        while legal:
            out[lowest_card_nb(legal)] = True
            legal &= legal - ONE


@njit(inline="always", cache=True)
def card_mask_nb(rules, info, hid, seat):
    return legal_cards_nb(
        hid[MaskSlot.work + seat], info[InfoSlot.led_suit], info[InfoSlot.broken] != 0,
        info[InfoSlot.trick], rules[RuleField.first_lead_two_clubs] != 0,
        rules[RuleField.spades_any_time] != 0, rules[RuleField.must_trump] != 0,
        rules[RuleField.must_overtrump] != 0, info[InfoSlot.winning_card],
    )  # fmt: skip


@njit(cache=True)
def apply_nb(rules, info, hid, ext, action):
    """Apply ``action`` (already checked legal) to the pending decision."""
    decision = ext[E_DECISION]
    seat = ext[E_TO_ACT]
    ext[E_DECISION] = DECIDE_NONE
    ext[E_TO_ACT] = -1
    if decision == DECIDE_BLIND:
        blind_done_nb(rules, info, ext, seat, action == BLIND_NIL_ACTION)
    elif decision == DECIDE_BID:
        bid_done_nb(rules, info, ext, seat, action - BID_ACTION)
    elif decision == DECIDE_PASS:
        hid[H_GIVE + ext[E_X_ROLE]] |= bit_nb(action)
    elif decision == DECIDE_CARD:
        play_card_nb(rules, info, hid, ext, seat, action)


@njit(inline="always", cache=True)
def blind_done_nb(rules, info, ext, seat, blind):
    if blind:
        set_bid_nb(info, seat, 0, 2)
    if ext[E_STAGE] == STAGE_BLIND:
        ext[E_K] += 1
    else:
        ext[E_SUB] = 1


@njit(inline="always", cache=True)
def bid_done_nb(rules, info, ext, seat, bid):
    set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
    ext[E_K] += 1
    ext[E_SUB] = 1 if rules[RuleField.players] == 2 else 0


@njit(cache=True)
def play_card_nb(rules, info, hid, ext, seat, card):
    """``play_card_inline_nb`` as a real call (an agent's card)."""
    play_card_inline_nb(rules, info, hid, ext, seat, card)


@njit(inline="always", cache=True)
def play_card_inline_nb(rules, info, hid, ext, seat, card):
    """Play ``card`` for ``seat`` (the bookkeeping of ``play.play_tricks_nb``: the trick,
    its winner so far, voids shown, spades broken) and close the trick when it is full."""
    players = rules[RuleField.players]
    bit = bit_nb(card)
    hid[MaskSlot.work + seat] &= ~bit
    hid[H_PLAYED_BY + seat] |= bit
    suit = suit_of_nb(card)
    j = info[InfoSlot.n_in_trick]
    if j == 0:
        info[InfoSlot.led_suit] = suit
        info[InfoSlot.winning_card] = card
        info[InfoSlot.winning_seat] = seat
    else:
        led = info[InfoSlot.led_suit]
        win = info[InfoSlot.winning_card]
        if (card > win) and ((suit == led) or (card >= 39)):
            info[InfoSlot.winning_card] = card
            info[InfoSlot.winning_seat] = seat
        info[InfoSlot.voids + seat] |= shown_out_nb(suit, led, rules[RuleField.must_trump] != 0)
    if card >= 39:
        info[InfoSlot.broken] = 1
    record_play_nb(info, seat, card, bit)
    info[InfoSlot.trick_cards + j] = card
    info[InfoSlot.n_in_trick] = j + 1
    if j + 1 == players:
        winner = info[InfoSlot.winning_seat]
        info[InfoSlot.tricks_won + winner] += 1
        leader = info[InfoSlot.leader]
        for s in range(4):
            ext[E_PREV_TRICK + s] = -1
        for i in range(players):
            ext[E_PREV_TRICK + (leader + i) % players] = info[InfoSlot.trick_cards + i]
        ext[E_PREV_LEADER] = leader
        trick_no = info[InfoSlot.trick] + 1
        reset_trick_info_nb(info, trick_no, winner)
        if trick_no == hand_tricks_nb(rules):
            info[InfoSlot.trick] = trick_no
            end_hand_nb(rules, info, ext)
        else:
            ext[E_K] = winner  # the seat to play next
    else:
        ext[E_K] = next_seat_nb(seat, players)


@njit(cache=True)
def end_hand_nb(rules, info, ext):
    """Score the finished hand (``loop.score_hand_nb``), add each side's points to its
    reward slot and its score, and end the episode (a hand, or a game that is over)."""
    side_out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    score_hand_nb(rules, info, side_out)
    n_sides = n_sides_nb(rules)
    for side in range(n_sides):
        change = side_out[side, 3]  # ScoreSlot.score_change
        ext[E_REWARD + side] += change
        info[InfoSlot.scores + side] += change
        info[InfoSlot.bags + side] = side_out[side, 5]  # ScoreSlot.bags_after
    ext[E_HANDS] += 1
    ext[E_STAGE] = STAGE_OVER
    if ext[E_GAME]:
        _, reason = game_result_nb(rules, info, n_sides, ext[E_HANDS])
        ext[E_OVER] = reason != 0
    else:
        ext[E_OVER] = 1


@njit(cache=True)
def advance_nb(rules, info, hid, ext, scratch, params, agents):
    """Run the table until an agent must decide (``agents``: bit s for seat s's cards,
    bit s + 4 for its blind nil turn and bid; then ``ext[E_TO_ACT]``/``ext[E_DECISION]``
    say who and what) or the episode is over (a game's next hand is dealt here). Other
    seats decide by the built-in policies: the cards here (the hot path, inlined), the
    rest through ``next_turn_nb`` and ``policy_bid_nb``."""
    while True:
        if ext[E_STAGE] == STAGE_PLAY:
            seat = ext[E_K]
            if (agents >> seat) & 1:
                ext[E_TO_ACT] = seat
                ext[E_DECISION] = DECIDE_CARD
                return
            counter = ext[E_COUNTER]
            ext[E_COUNTER] = counter + 1
            rand = hid[H_KEY] + np.uint64(counter) * GOLDEN
            hand = hid[MaskSlot.work + seat]
            legal = card_mask_nb(rules, info, hid, seat)
            card = plain_play_nb(hand, legal, seat, info, rules, params[4 + seat], rand)
            if card < 0 or card > 55 or not (legal >> np.uint64(card)) & ONE:
                card = lowest_card_nb(legal)
            play_card_inline_nb(rules, info, hid, ext, seat, card)
            continue
        seat, decision = next_turn_nb(rules, info, hid, ext, scratch, params)
        if decision == DECIDE_NONE:
            return
        if decision == DECIDE_CARD:
            continue
        if (agents >> (seat + 4)) & 1:
            ext[E_TO_ACT] = seat
            ext[E_DECISION] = decision
            return
        policy_bid_nb(rules, info, hid, ext, params, seat, decision)


@njit(cache=True)
def next_turn_nb(rules, info, hid, ext, scratch, params):
    """Out of the play: do what no seat decides (deal a game's next hand, the two-player
    draw, skip turns that are not taken, the exchanges and the first lead) up to the next
    decision; returns (seat, decision): a blind nil turn or a bid, ``DECIDE_CARD`` once
    the play has begun (the seat in ``ext[E_K]``), ``DECIDE_NONE`` when the episode is
    over."""
    players = rules[RuleField.players]
    while True:
        stage = ext[E_STAGE]
        if stage == STAGE_PLAY:
            return ext[E_K], DECIDE_CARD
        if stage == STAGE_OVER:
            if ext[E_OVER]:
                return -1, DECIDE_NONE
            start_deal_nb(rules, info, hid, ext, scratch, params)
            continue
        if stage == STAGE_BLIND:  # two players: both blind nil turns, then the draw
            if ext[E_K] == 2:
                ext[E_COUNTER] = draw_two_hands_call_nb(
                    rules, scratch, hid[H_KEY], ext[E_DEALER], ext[E_FIRST], info, params[8],
                    hid, False, ext[E_COUNTER],
                )  # fmt: skip
                ext[E_STAGE] = STAGE_BID
                ext[E_K] = 0
                ext[E_SUB] = 1
                continue
            seat = (ext[E_FIRST] + ext[E_K]) % 2
            if not blind_nil_allowed_nb(rules, info, seat):
                ext[E_K] += 1
                continue
            return seat, DECIDE_BLIND
        if stage == STAGE_EXCHANGE:
            seat = exchange_turn_nb(rules, info, hid, ext)
            if seat >= 0:
                return seat, DECIDE_PASS
            continue
        # the bidding
        if ext[E_K] == players:
            if players == 4:
                ext[E_STAGE] = STAGE_EXCHANGE
                ext[E_X] = 0
                ext[E_X_ROLE] = 0
                hid[H_GIVE] = 0
                hid[H_TAKE] = 0
            else:
                start_play_nb(rules, info, hid, ext)
            continue
        seat = (ext[E_FIRST] + ext[E_K]) % players
        if ext[E_SUB] == 0:
            if not blind_nil_allowed_nb(rules, info, seat):
                ext[E_SUB] = 1
                continue
            return seat, DECIDE_BLIND
        if info[InfoSlot.nil + seat] == 2:
            ext[E_K] += 1
            ext[E_SUB] = 1 if players == 2 else 0
            continue
        return seat, DECIDE_BID


@njit(cache=True)
def exchange_turn_nb(rules, info, hid, ext):
    """The exchanges after a four-player bidding, as decisions (``prepare.exchange_four_nb``
    makes the same ones at once): for a blind nil, then a nil, on each side where
    ``prepare.exchange_pair_nb`` says so, the nil bidder chooses the rules' number of
    cards to pass, then its partner, then the two swap. Returns the seat choosing a card
    (-1: the exchanges are over and the play has begun)."""
    while True:
        x = ext[E_X]
        if x == 4:
            start_play_nb(rules, info, hid, ext)
            return -1
        kind = 2 if x < 2 else 1
        n = rules[RuleField.blind_nil_exchange] if kind == 2 else rules[RuleField.nil_exchange]
        swap, nil_seat, partner = exchange_pair_nb(kind, info, x & 1)
        if n == 0 or not swap:
            ext[E_X] = x + 1
            continue
        role = ext[E_X_ROLE]
        if role < 2:
            chooser = nil_seat if role == 0 else partner
            if popcount_nb(hid[H_GIVE + role]) < min(n, popcount_nb(hid[MaskSlot.hands + chooser])):
                return chooser
            ext[E_X_ROLE] = role + 1
            continue
        give, take = hid[H_GIVE], hid[H_TAKE]
        hid[MaskSlot.hands + nil_seat] = (hid[MaskSlot.hands + nil_seat] & ~give) | take
        hid[MaskSlot.hands + partner] = (hid[MaskSlot.hands + partner] & ~take) | give
        hid[H_GIVE] = 0
        hid[H_TAKE] = 0
        ext[E_X_ROLE] = 0
        ext[E_X] = x + 1


@njit(cache=True)
def start_play_nb(rules, info, hid, ext):
    """After the bids (and the exchanges): the first leader, the first trick."""
    players = rules[RuleField.players]
    leader = first_leader_nb(hid, MaskSlot.hands, players, ext[E_FIRST], rules)
    for s in range(4):
        hid[MaskSlot.work + s] = hid[MaskSlot.hands + s]
    reset_trick_info_nb(info, 0, leader)
    ext[E_STAGE] = STAGE_PLAY
    ext[E_K] = leader


@njit(cache=True)
def policy_bid_nb(rules, info, hid, ext, params, seat, decision):
    """A blind nil turn, bid or exchange of a seat no agent bids for, by its built-in
    bidder (``params[seat]``; as ``prepare.ask_bid_nb``: the bid clamped, then made
    legal) or the engine's exchange choice."""
    counter = ext[E_COUNTER]
    rand = hid[H_KEY] + np.uint64(counter) * GOLDEN
    ext[E_COUNTER] = counter + 1
    if decision == DECIDE_BLIND:
        blind = blind_nil_call_nb(seat, info, rules, params[seat], rand)
        blind_done_nb(rules, info, ext, seat, blind)
    elif decision == DECIDE_PASS:
        # the engine's choice (``exchange.pass_cards_nb``): the nil bidder its most
        # dangerous cards, the partner its lowest side cards
        x = ext[E_X]
        kind = 2 if x < 2 else 1
        n = rules[RuleField.blind_nil_exchange] if kind == 2 else rules[RuleField.nil_exchange]
        hand = hid[MaskSlot.hands + seat]
        hid[H_GIVE + ext[E_X_ROLE]] = pass_cards_nb(hand, n, info[InfoSlot.nil + seat] == kind)
    else:
        hand = hid[MaskSlot.hands + seat]
        bid = plain_bid_nb(hand, seat, info, rules, params[seat], rand)
        top = hand_tricks_nb(rules)
        bid = min(max(bid, 0), top)
        bid = legal_bid_nb(rules, bid, hand, partner_bid_nb(info, seat))
        bid_done_nb(rules, info, ext, seat, bid)


@njit(inline="always", cache=True)
def wrap_nb(x, n):
    """``x % n`` for ``-n <= x < 2n`` without a division (the observation's relative
    seats and sides)."""
    if x < 0:
        return x + n
    return x - n if x >= n else x


@njit(inline="always", cache=True)
def set_cards_nb(out, base, cards):
    """``out[base + c] = 1`` for every card ``c`` of the mask ``cards``."""
    while cards:
        out[base + lowest_card_nb(cards)] = 1.0
        cards &= cards - ONE


@njit(inline="always", cache=True)
def sees_hand_nb(rules, info, ext, seat):
    """Whether ``seat`` has looked at its cards: always in play; never before the
    two-player draw; in the bidding once its blind nil turn is behind it (where blind nil
    is in the rules at all: a seat that could still bid blind has not looked)."""
    stage = ext[E_STAGE]
    if stage == STAGE_BLIND:
        return False
    if stage != STAGE_BID or rules[RuleField.players] == 2 or not rules[RuleField.blind_nil]:
        return True
    if info[InfoSlot.bids + seat] >= 0:
        return True
    current = (ext[E_FIRST] + ext[E_K]) % rules[RuleField.players]
    return seat == current and ext[E_SUB] == 1


@njit(cache=True)
def observe_nb(rules, info, hid, ext, seat, out):
    """``observe_inline_nb`` as a real call."""
    observe_inline_nb(rules, info, hid, ext, seat, out)


@njit(inline="always", cache=True)
def observe_inline_nb(rules, info, hid, ext, seat, out):
    """Write what ``seat`` may know into ``out`` (N_OBS float32; the ``O_*`` fields): its
    own cards, the bids, every card played and by whom, the trick, tricks won, scores and
    bags; seats and sides are counted from ``seat`` clockwise (0 is the seat itself)."""
    players = rules[RuleField.players]
    sides = n_sides_nb(rules)
    per_trick = 1.0 / hand_tricks_nb(rules)
    for j in range(N_OBS):
        out[j] = 0.0
    stage = ext[E_STAGE]
    if stage == STAGE_BLIND or ext[E_DECISION] == DECIDE_BLIND:
        out[O_PHASE] = 1.0
    else:
        out[O_PHASE + stage] = 1.0
    passing = ZERO
    if stage == STAGE_EXCHANGE:
        # the cards this seat has chosen to pass so far (out of its hand until the swap)
        swap, nil_seat, partner = exchange_pair_nb(2 if ext[E_X] < 2 else 1, info, ext[E_X] & 1)
        if swap and seat == nil_seat:
            passing = hid[H_GIVE]
        elif swap and seat == partner:
            passing = hid[H_TAKE]
        set_cards_nb(out, O_PASSING, passing)
    out[O_DEALER + wrap_nb(ext[E_DEALER] - seat, players)] = 1.0
    if sees_hand_nb(rules, info, ext, seat):
        set_cards_nb(out, O_HAND, own_hand_nb(hid, ext, seat) & ~passing)
    for r in range(players):
        s = wrap_nb(seat + r, players)
        base = O_BIDS + r * BID_WIDTH
        bid = info[InfoSlot.bids + s]
        if bid < 0:
            out[base + MAX_TRICKS + 1] = 1.0
        else:
            out[base + bid] = 1.0
            if info[InfoSlot.nil + s] == 2:
                out[base + MAX_TRICKS + 2] = 1.0
        out[O_TRICKS_WON + r] = info[InfoSlot.tricks_won + s] * per_trick
        set_cards_nb(out, O_PLAYED + r * N_CARD_ACTIONS, hid[H_PLAYED_BY + s])
        prev = ext[E_PREV_TRICK + s]
        if prev >= 0:
            out[O_PREV_TRICK + r * N_CARD_ACTIONS + prev] = 1.0
    if stage == STAGE_PLAY:
        leader = info[InfoSlot.leader]
        out[O_LEADER + wrap_nb(leader - seat, players)] = 1.0
        for i in range(info[InfoSlot.n_in_trick]):
            r = wrap_nb(wrap_nb(leader + i, players) - seat, players)
            out[O_TRICK + r * N_CARD_ACTIONS + info[InfoSlot.trick_cards + i]] = 1.0
    my_side = seat if sides > 2 else seat & 1
    per_point = 1.0 / rules[RuleField.target]
    per_bag = 1.0 / rules[RuleField.bag_limit]
    for side in range(sides):
        rel = wrap_nb(side - my_side, sides)
        out[O_SCORES + rel] = info[InfoSlot.scores + side] * per_point
        out[O_BAGS + rel] = info[InfoSlot.bags + side] * per_bag
    out[O_BROKEN] = 1.0 if info[InfoSlot.broken] else 0.0
    out[O_TRICK_NO] = min(info[InfoSlot.trick] * per_trick, 1.0)
    if ext[E_TO_ACT] >= 0:
        out[O_TO_ACT + wrap_nb(ext[E_TO_ACT] - seat, players)] = 1.0


@njit(inline="always", cache=True)
def learner_nb(ext, seat):
    """The learner seat whose decision is pending (``seat`` or, when the learner plays a
    side, its partner); ``seat`` when the episode is over."""
    who = ext[E_TO_ACT]
    return who if who >= 0 else seat


@njit(inline="always", cache=True)
def take_reward_nb(rules, ext, seat):
    """The points the side of ``seat`` scored since the last call; clears every side's."""
    sides = n_sides_nb(rules)
    side = seat if sides > 2 else seat & 1
    r = ext[E_REWARD + side]
    for s in range(4):
        ext[E_REWARD + s] = 0
    return r


@njit(cache=True, nogil=True)
def vec_reset_nb(rules, infos, hids, exts, scratch, params, seed, seat, agents, game,
                 first_table, episodes, obs, legal):  # fmt: skip
    """Start every table (table i is ``first_table + i``, its next episode
    ``episodes[i]``) and run it to the learner's first decision; write its observation and
    mask. ``agents``: the learner's bits (``advance_nb``): seat ``seat``, or its side."""
    rules, scratch, params = borrow_nb(rules), borrow_nb(scratch), borrow_nb(params)
    for i in range(infos.shape[0]):
        info, hid, ext = borrow_nb(infos[i]), borrow_nb(hids[i]), borrow_nb(exts[i])
        reset_nb(rules, info, hid, ext, scratch, params, seed, first_table + i, episodes[i],
                 game)  # fmt: skip
        episodes[i] += 1
        advance_nb(rules, info, hid, ext, scratch, params, agents)
        take_reward_nb(rules, ext, seat)
        observe_nb(rules, info, hid, ext, learner_nb(ext, seat), borrow_nb(obs[i]))
        legal_actions_nb(rules, info, hid, ext, borrow_nb(legal[i]))


@njit(cache=True)
def vec_check_nb(actions, legal):
    """The first table whose action is not legal in ``legal`` (-1: none)."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= legal.shape[1] or not legal[i, a]:
            return i
    return -1


@njit(cache=True, nogil=True)
def vec_step_nb(rules, infos, hids, exts, scratch, params, seed, seat, agents, game,
                first_table, episodes, actions, obs, legal, rewards, dones):  # fmt: skip
    """One learner decision at every table: apply ``actions[i]``, run the other seats to
    the learner's next decision; a finished episode's reward and done flag are written
    and the table starts its next episode at once (the observation is then the new
    episode's first). Every action is checked against ``legal`` first: the first table
    whose action is illegal is returned and no table moves; -1 when all were applied."""
    for i in range(infos.shape[0]):
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or not legal[i, a]:
            return i
    # borrowed views (``policies.borrow_nb``): no reference counting in the calls below
    rules, scratch, params = borrow_nb(rules), borrow_nb(scratch), borrow_nb(params)
    for i in range(infos.shape[0]):
        info, hid, ext = borrow_nb(infos[i]), borrow_nb(hids[i]), borrow_nb(exts[i])
        apply_nb(rules, info, hid, ext, actions[i])
        advance_nb(rules, info, hid, ext, scratch, params, agents)
        rewards[i] = take_reward_nb(rules, ext, seat)
        done = ext[E_STAGE] == STAGE_OVER and ext[E_OVER] != 0
        dones[i] = done
        if done:
            reset_nb(rules, info, hid, ext, scratch, params, seed, first_table + i,
                     episodes[i], game)  # fmt: skip
            episodes[i] += 1
            advance_nb(rules, info, hid, ext, scratch, params, agents)
        observe_inline_nb(rules, info, hid, ext, learner_nb(ext, seat), borrow_nb(obs[i]))
        legal_inline_nb(rules, info, hid, ext, borrow_nb(legal[i]))
    return -1


@njit(cache=True)
def new_env_scratch_nb(rules):
    """The deal's scratch (``loop.new_scratch_nb``) as a real call."""
    return new_scratch_nb(rules)


@njit(cache=True)
def vec_random_actions_nb(legal, seed, counter, out):
    """``out[i]``: an action drawn uniformly from the legal ones of ``legal[i]`` (0 where
    none is legal), from the stream of ``(seed, counter)``: a random learner for
    baselines and benchmarks."""
    key = stream_key_nb(seed, KIND_ENV + 1, counter, 0)
    n_actions = legal.shape[1]
    for i in range(legal.shape[0]):
        n = 0
        for a in range(n_actions):
            n += legal[i, a]
        out[i] = 0
        if n == 0:
            continue
        k = below_nb(mix64_nb(key + np.uint64(i) * GOLDEN) & LOW32, n)
        for a in range(n_actions):
            if legal[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


# --- card features of a linear player (``spades_sim.env.linear``) ---
N_CARD_FEATURES = 16


@njit(inline="always", cache=True)
def card_features_nb(hand, seat, info, rules, card):
    """The ``N_CARD_FEATURES`` features of playing ``card`` from ``hand`` (a tuple, in the
    order of ``spades_sim.env.linear.CARD_FEATURES``), from what the seat may know only:
    its hand and the public table state ``info``. The same function feeds training
    (``vec_card_features_nb``) and the trained player (``linear_card_nb``)."""
    players = info[InfoSlot.players]
    n_in = info[InfoSlot.n_in_trick]
    leading = 1.0 if n_in == 0 else 0.0
    partner = seat ^ 2 if (players == 4 and info[InfoSlot.sides] == 2) else -1
    suit = suit_of_nb(card)
    rank = 1.0 if card >= 52 else (card % 13) / 12.0
    spade = 1.0 if suit == 3 else 0.0
    win_card = info[InfoSlot.winning_card]
    led = info[InfoSlot.led_suit]
    wins = 0.0
    if n_in > 0 and card > win_card and (suit == led or card >= 39):
        wins = 1.0
    partner_winning = (
        1.0 if (partner >= 0 and n_in > 0 and info[InfoSlot.winning_seat] == partner) else 0.0
    )
    own_nil = 1.0 if info[InfoSlot.nil + seat] > 0 else 0.0
    partner_nil = 1.0 if (partner >= 0 and info[InfoSlot.nil + partner] > 0) else 0.0
    contract = 0
    taken = info[InfoSlot.tricks_won + seat]
    if info[InfoSlot.nil + seat] == 0:
        contract += max(info[InfoSlot.bids + seat], 0)
    if partner >= 0:
        taken += info[InfoSlot.tricks_won + partner]
        if info[InfoSlot.nil + partner] == 0:
            contract += max(info[InfoSlot.bids + partner], 0)
    need = 1.0 if contract > taken else 0.0
    made = 1.0 if (contract > 0 and taken >= contract) else 0.0
    last = 1.0 if n_in == players - 1 else 0.0
    played = np.uint64(info[InfoSlot.played])
    unseen = deck_mask_nb(rules[RuleField.jokers]) & ~played & ~hand
    boss = 0.0 if unseen & above_nb(card) & SUIT_MASKS[suit] else 1.0
    length = popcount_nb(hand & SUIT_MASKS[suit]) / 13.0
    ruff = 1.0 if (n_in > 0 and led != 3 and suit == 3) else 0.0
    return (
        rank, spade, wins, wins * partner_winning, wins * need, wins * own_nil, wins * last,
        leading * rank, leading * spade, rank * own_nil, boss, boss * leading, length,
        wins * partner_nil, ruff, wins * made,
    )  # fmt: skip


@njit(inline="always", cache=True)
def linear_card_nb(hand, legal, seat, info, rules, weights):
    """The legal card of highest ``weights . card_features_nb`` (ties to the lowest card):
    the trained linear player's choice; ``weights`` any indexable of N_CARD_FEATURES."""
    best = lowest_card_nb(legal)
    best_value = -np.inf
    cards = legal
    while cards:
        card = lowest_card_nb(cards)
        cards &= cards - ONE
        f = card_features_nb(hand, seat, info, rules, card)
        value = 0.0
        for k in range(N_CARD_FEATURES):
            value += weights[k] * f[k]
        if value > best_value:
            best, best_value = card, value
    return best


@njit(cache=True)
def vec_card_features_nb(rules, infos, hids, exts, out):
    """``out[i, c]``: the card features of every legal card ``c`` at table ``i`` whose
    pending decision is a card (the seat to act's; zeros elsewhere)."""
    for i in range(infos.shape[0]):
        for c in range(out.shape[1]):
            for k in range(N_CARD_FEATURES):
                out[i, c, k] = 0.0
        info, hid, ext = infos[i], hids[i], exts[i]
        if ext[E_DECISION] != DECIDE_CARD:
            continue
        seat = ext[E_TO_ACT]
        hand = hid[MaskSlot.work + seat]
        legal = card_mask_nb(rules, info, hid, seat)
        while legal:
            card = lowest_card_nb(legal)
            legal &= legal - ONE
            f = card_features_nb(hand, seat, info, rules, card)
            for k in range(N_CARD_FEATURES):
                out[i, card, k] = f[k]
