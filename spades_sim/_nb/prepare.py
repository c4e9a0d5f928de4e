"""Everything before the first lead of a hand: the deal (or the two-player draw), blind
nil decisions, the bids, the blind nil exchange.

``prepare_with_nb`` does it for any player count with the bid functions it is given (seat s
bids through ``bid_ns``/``bid_ew`` by ``s & 1``); ``prepare_four_nb``, ``prepare_three_nb``
(three-player cutthroat: the deal, blind nil and bids, no exchange) and ``prepare_two_nb``
are its parts. They are inlined into real, cached functions: ``loop.prepare_hand_nb`` (the
run's bid policies, every built-in one included, or user-written ones) and
``prepare_plain_two_nb``, which bids through ``plain_bid_nb`` (the built-in bidders but the
sampling one, ``monte-carlo``). The lock-step kernels prepare a batch of ``LANES`` deals at
once: ``prepare_lanes_four_nb`` deals them together and bids in lock-step
(``lockstep_bidding.py``; ``prepare_lanes_count_four_nb`` when only ``count`` and ``random``
bid, which compiles less), ``prepare_lanes_two_nb`` goes deal by deal through
``prepare_plain_two_nb`` (the draw is sequential); a default run compiles neither the
rollouts nor the two-player code. Randomness comes from the hand's stream ``key`` with
counters from ``DECISION_COUNTER_BASE``; the play continues from the counter returned.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bidding import blind_nil_wanted_nb, legal_bid_nb
from spades_sim._nb.bitboard import bit_nb, deck_mask_nb, popcount_nb, select_bit_nb
from spades_sim._nb.deal import (
    DECISION_COUNTER_BASE,
    DECK_AT,
    FOUR_PLAY_COUNTER,
    deal_lanes_four_nb,
    deal_seats_nb,
    draw_two_nb,
)
from spades_sim._nb.enums import (
    GIVEN_KIND,
    GIVEN_MASK,
    GIVEN_SHIFT,
    LANES,
    N_INFO,
    DealLane,
    HeuristicField,
    InfoSlot,
    LockstepField,
    MaskSlot,
    ParamRow,
    RuleField,
)
from spades_sim._nb.exchange import discard_for_nil_nb, pass_cards_nb
from spades_sim._nb.lockstep_bidding import bid_lanes_count_four_nb, bid_lanes_four_nb
from spades_sim._nb.play import clear_history_nb, first_leader_nb, first_to_act_nb, next_seat_nb
from spades_sim._nb.policies import borrow_nb, plain_bid_nb
from spades_sim._nb.rng import GOLDEN, KIND_HANDS, LOW32, below_nb, draw_nb, stream_key_nb
from spades_sim._nb.score import (
    best_other_nb,
    hand_tricks_nb,
    n_sides_nb,
    partner_bid_nb,
    side_of_nb,
)

# Real calls with borrowed arrays (``policies.borrow_nb``, no reference counting) for the
# larger steps of ``prepare_with_nb``: inlined, each call site compiled its own copy, and
# Numba's inlining and typing of that one big function were most of its compile time.


@njit(inline="always", cache=True)
def blind_nil_allowed_nb(rules, info, seat):
    if not rules[RuleField.blind_nil]:
        return False
    need = rules[RuleField.blind_nil_min_deficit]
    if need == 0:
        return True
    side = side_of_nb(info[InfoSlot.sides], seat)
    # behind the leading other side (the one opponent side, or in cutthroat the leader)
    return best_other_nb(info, side) - info[InfoSlot.scores + side] >= need


@njit(inline="always", cache=True)
def ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew):
    """One seat's bid through its side's policy; an out-of-range bid counts as an error.
    The bid is then what the bid rule allows (``bidding.legal_bid_nb``: a forced bid is
    the bid, an illegal one the nearest allowed)."""
    rand = key + np.uint64(counter) * GOLDEN
    hand = masks[MaskSlot.hands + seat]
    if seat & 1:
        bid = bid_ew(hand, seat, info, rules, params[ParamRow.bid + 1], rand)
    else:
        bid = bid_ns(hand, seat, info, rules, params[ParamRow.bid], rand)
    error = 0
    top = hand_tricks_nb(rules)
    if bid < 0 or bid > top:
        bid = min(max(bid, 0), top)
        error = 1
    return legal_bid_call_nb(borrow_nb(rules), bid, hand, partner_bid_nb(info, seat)), error


@njit(cache=True)
def legal_bid_call_nb(rules, bid, hand, partner_bid):
    return legal_bid_nb(rules, bid, hand, partner_bid)


@njit(inline="always", cache=True)
def ask_blind_nil_nb(rules, info, seat, params, key, counter, blind_ns, blind_ew):
    """Whether ``seat`` declares blind nil, by its side's blind nil decision
    ``blind(seat, info, rules, params, rand)``: a built-in bidder's rule (``blind_nil_nb``)
    or a user-written bidder's own (``spades_sim.custom``). Each reads only its own side's
    parameter row, and the built-in rule is never given a user's. Blind: the decision
    sees the table, never the cards."""
    rand = key + np.uint64(counter) * GOLDEN
    if seat & 1:
        return blind_ew(seat, info, rules, params[ParamRow.bid + 1], rand)
    return blind_ns(seat, info, rules, params[ParamRow.bid], rand)


@njit(inline="always", cache=True)
def blind_nil_nb(seat, info, rules, params, rand):
    """The built-in bidders' blind nil rule (``bidding.blind_nil_wanted_nb``), compiled
    once for its call sites. ``params`` must be a built-in bidder's own row: the rule
    reads its slots by the built-ins' layout."""
    return blind_nil_call_nb(seat, borrow_nb(info), borrow_nb(rules), borrow_nb(params), rand)


@njit(cache=True)
def blind_nil_call_nb(seat, info, rules, params, rand):
    return blind_nil_wanted_nb(seat, info, rules, params, rand)


@njit(inline="always", cache=True)
def set_bid_nb(info, seat, bid, nil_kind):
    info[InfoSlot.bids + seat] = bid
    info[InfoSlot.nil + seat] = nil_kind


@njit(cache=True)
def prepare_plain_two_nb(rules, scratch, key, dealer, params, info, masks, forced_seat,
                         forced_bid, forced_kind):  # fmt: skip
    """``prepare_two_nb`` with ``plain_bid_nb`` on both sides."""
    return prepare_two_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        plain_bid_nb, plain_bid_nb, blind_nil_nb, blind_nil_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def prepare_with_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind, bid_ns, bid_ew, blind_ns, blind_ew):  # fmt: skip
    """Everything before the first lead: deal (or draw), blind nil decisions, bids (side s
    through ``bid_ns``/``bid_ew``), blind nil exchange. Returns (first leader, random
    counter for the play, policy errors).

    ``forced_seat`` -1 plays the hand as dealt from ``key``; ``PREDEALT`` (4, four players)
    takes the hands already in ``masks[MaskSlot.hands:]``, every seat deciding. A seat 0..3
    takes them too (a conditional deal, ``odds``), and that seat
    bids ``forced_bid`` with nil kind ``forced_kind`` (0 number, 1 nil, 2 blind nil,
    declared at its blind-nil turn) instead of asking its policy; with three or four
    players, the bids given to other seats (the bids made before the forced seat's turn,
    ``spades_sim.advise``) ride above its bid in ``forced_bid`` (``enums.GIVEN_SHIFT``)
    and those seats bid them; everything else
    (other seats' decisions, the exchange or two-player redraw) runs as usual.

    Few arguments on purpose: every array passed to a non-inlined call costs reference
    counting, and this call happens once per hand (through ``prepare_hand_nb``,
    or ``prepare_plain_two_nb``, which are real calls).
    ``scratch`` holds shuffle space and the deck's card ids (``deal.DECK_AT``).
    ``info`` is the public table state (``enums.InfoSlot``; the caller sets the scores and
    bags before the hand), which the policies read and which ends with the bids, nil
    kinds (0/1 nil/2 blind) and tricks.
    ``masks`` (hidden from policies) receives the hands at the start of play
    (``MaskSlot.hands``) and as dealt before any blind nil exchange (``MaskSlot.dealt``). ``params``
    rows: bid N-S, bid E-W, play N-S, play E-W, draw.
    """
    if rules[RuleField.players] == 4:
        return prepare_four_nb(
            rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
            forced_kind, bid_ns, bid_ew, blind_ns, blind_ew,
        )  # fmt: skip
    if rules[RuleField.players] == 3:
        return prepare_three_nb(
            rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
            forced_kind, bid_ns, bid_ew, blind_ns, blind_ew,
        )  # fmt: skip
    return prepare_two_nb(
        rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid, forced_kind,
        bid_ns, bid_ew, blind_ns, blind_ew,
    )  # fmt: skip


@njit(inline="always", cache=True)
def start_hand_nb(rules, dealer, info):
    """The table before the hand: ``info`` reset but for the scores and bags; returns the
    first seat to act."""
    players = rules[RuleField.players]
    for j in range(InfoSlot.scores):
        info[j] = 0
    for j in range(InfoSlot.voids, N_INFO):
        info[j] = 0
    clear_history_nb(info)
    info[InfoSlot.players] = players
    info[InfoSlot.dealer] = dealer
    info[InfoSlot.sides] = n_sides_nb(rules)
    for s in range(4):
        info[InfoSlot.bids + s] = -1
    first = first_to_act_nb(dealer, players)
    info[InfoSlot.first_to_act] = first
    return first


@njit(inline="always", cache=True)
def given_bid_nb(forced_seat, forced_bid, seat):
    """The code of the bid given for ``seat`` in ``forced_bid`` (``enums.GIVEN_SHIFT``: 0
    none, else 1 + kind * ``GIVEN_KIND`` + bid), read only when ``forced_seat`` is a seat
    (a conditional deal)."""
    if forced_seat < 0 or forced_seat > 3:
        return np.int64(0)
    return (forced_bid >> (GIVEN_SHIFT * (seat + 1))) & GIVEN_MASK


@njit(inline="always", cache=True)
def bid_round_nb(rules, key, params, info, masks, first, players, forced_seat, forced_bid,
                 forced_kind, bid_ns, bid_ew, blind_ns, blind_ew):  # fmt: skip
    """The blind nil decisions and bids of the four or three seats, clockwise from
    ``first``: each seat's blind nil turn (counter ``DECISION_COUNTER_BASE + 2k``) then its
    bid (``+ 2k + 1``); ``forced_seat`` bids ``forced_bid``/``forced_kind`` instead of
    asking its policy (``prepare_with_nb``). Returns (next counter, policy errors)."""
    counter = DECISION_COUNTER_BASE
    errors = 0
    seat = first
    for _ in range(players):
        blind = False
        given = given_bid_nb(forced_seat, forced_bid, seat)
        if seat == forced_seat:
            blind = forced_kind == 2
        elif given > 0:
            blind = (given - 1) // GIVEN_KIND == 2
        elif blind_nil_allowed_nb(rules, info, seat):
            blind = ask_blind_nil_nb(rules, info, seat, params, key, counter, blind_ns, blind_ew)
        counter += 1
        if blind:
            set_bid_nb(info, seat, 0, 2)
        elif seat == forced_seat:
            set_bid_nb(info, seat, forced_bid & GIVEN_MASK, forced_kind)
        elif given > 0:
            set_bid_nb(info, seat, (given - 1) % GIVEN_KIND, (given - 1) // GIVEN_KIND)
        else:
            bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew)
            errors += err
            set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
        counter += 1
        seat = next_seat_nb(seat, players)
    return counter, errors


@njit(inline="always", cache=True)
def prepare_four_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                    forced_kind, bid_ns, bid_ew, blind_ns, blind_ew):  # fmt: skip
    """``prepare_with_nb`` for four players: the deal, blind nil, bids, the exchange."""
    first = start_hand_nb(rules, dealer, info)
    if forced_seat < 0:
        deal_four_call_nb(borrow_nb(scratch), key, borrow_nb(masks))
    for s in range(4):
        masks[MaskSlot.dealt + s] = masks[MaskSlot.hands + s]
    counter, errors = bid_round_nb(
        rules, key, params, info, masks, first, 4, forced_seat, forced_bid, forced_kind,
        bid_ns, bid_ew, blind_ns, blind_ew,
    )  # fmt: skip
    exchange_four_call_nb(borrow_nb(rules), borrow_nb(info), borrow_nb(masks))
    return (
        first_leader_call_nb(borrow_nb(masks), first, borrow_nb(rules)),
        counter,
        errors,
    )


@njit(inline="always", cache=True)
def prepare_three_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                     forced_kind, bid_ns, bid_ew, blind_ns, blind_ew):  # fmt: skip
    """``prepare_with_nb`` for three players: the deal (17 or 18 cards each), blind nil
    and the bids, clockwise from the dealer's left; no exchange (nothing needs a partner
    in cutthroat)."""
    first = start_hand_nb(rules, dealer, info)
    if forced_seat < 0:
        deal_three_call_nb(borrow_nb(scratch), key, borrow_nb(masks), rules[RuleField.jokers])
    for s in range(4):
        masks[MaskSlot.dealt + s] = masks[MaskSlot.hands + s]
    counter, errors = bid_round_nb(
        rules, key, params, info, masks, first, 3, forced_seat, forced_bid, forced_kind,
        bid_ns, bid_ew, blind_ns, blind_ew,
    )  # fmt: skip
    return (
        first_leader_call_nb(borrow_nb(masks), first, borrow_nb(rules)),
        counter,
        errors,
    )


@njit(cache=True)
def deal_three_call_nb(scratch, key, masks, jokers):
    # 51 cards (no 2C), or 54 with the jokers (``bitboard.deck_mask_nb`` 3 and 4)
    deal_seats_nb(scratch, key, masks, MaskSlot.hands, 3, 18 if jokers == 4 else 17)


@njit(cache=True)
def deal_four_call_nb(scratch, key, masks):
    deal_seats_nb(scratch, key, masks, MaskSlot.hands, 4, 13)


@njit(cache=True)
def exchange_four_call_nb(rules, info, masks):
    exchange_four_nb(rules, info, masks)


@njit(cache=True)
def first_leader_call_nb(masks, first, rules):
    return first_leader_nb(masks, MaskSlot.hands, rules[RuleField.players], first, rules)


@njit(inline="always", cache=True)
def exchange_four_nb(rules, info, masks):
    """The exchanges after the bids: a blind nil bidder whose partner did not also bid
    blind nil swaps ``blind_nil_exchange`` cards with the partner; a nil bidder whose
    partner bid a number swaps ``nil_exchange`` cards with it (the nil bidder passes its
    most dangerous cards either way)."""
    exchange_four_kind_nb(rules[RuleField.blind_nil_exchange], 2, info, masks)
    exchange_four_kind_nb(rules[RuleField.nil_exchange], 1, info, masks)


@njit(inline="always", cache=True)
def exchange_pair_nb(kind, info, side):
    """Whether side ``side`` (four players) exchanges for a nil of ``kind`` (2 blind, 1
    seen): one partner bid it and the other did not (blind: not blind nil; seen: a
    number); and (nil bidder, partner)."""
    a, b = side, side + 2
    ka, kb = info[InfoSlot.nil + a], info[InfoSlot.nil + b]
    blind = (ka == 2) != (kb == 2)
    seen = ((ka == 1) & (kb == 0)) | ((kb == 1) & (ka == 0))
    swap = blind if kind == 2 else seen
    nil_seat, partner = (a, b) if ka == kind else (b, a)
    return swap, nil_seat, partner


@njit(inline="always", cache=True)
def exchange_four_kind_nb(exchange, kind, info, masks):
    """``exchange`` cards swapped in each side where one partner bid nil of ``kind`` and
    the other did not (``exchange_pair_nb``)."""
    if exchange > 0:
        for side in range(2):
            swap, nil_seat, partner = exchange_pair_nb(kind, info, side)
            if swap:
                # the flag from the table, not a constant: pass_cards_nb is then
                # compiled once, not once per literal True/False
                give = pass_cards_nb(
                    masks[MaskSlot.hands + nil_seat],
                    exchange,
                    info[InfoSlot.nil + nil_seat] == kind,
                )
                take = pass_cards_nb(
                    masks[MaskSlot.hands + partner], exchange, info[InfoSlot.nil + partner] == kind
                )
                masks[MaskSlot.hands + nil_seat] = (masks[MaskSlot.hands + nil_seat] & ~give) | take
                masks[MaskSlot.hands + partner] = (masks[MaskSlot.hands + partner] & ~take) | give


@njit(inline="always", cache=True)
def prepare_two_nb(rules, scratch, key, dealer, params, info, masks, forced_seat, forced_bid,
                   forced_kind, bid_ns, bid_ew, blind_ns, blind_ew):  # fmt: skip
    """``prepare_with_nb`` for two players: blind nil, the draw (and a blind nil
    declarer's discards and replacements), then the bids."""
    first = start_hand_nb(rules, dealer, info)
    counter = DECISION_COUNTER_BASE
    errors = 0
    dealt = forced_seat >= 0
    seat = first
    for _ in range(2):
        going_nil = False
        if seat == forced_seat:
            going_nil = forced_kind == 2
        elif blind_nil_allowed_nb(rules, info, seat):
            going_nil = ask_blind_nil_nb(
                rules, info, seat, params, key, counter, blind_ns, blind_ew
            )
        counter += 1
        if going_nil:
            set_bid_nb(info, seat, 0, 2)
        seat = 1 - seat
    counter = draw_two_hands_call_nb(
        borrow_nb(rules), borrow_nb(scratch), key, dealer, first, borrow_nb(info),
        borrow_nb(params[ParamRow.draw]), borrow_nb(masks), dealt, counter,
    )  # fmt: skip
    seat = first
    for _ in range(2):
        if seat == forced_seat and forced_kind != 2:
            set_bid_nb(info, seat, forced_bid, forced_kind)
        elif info[InfoSlot.nil + seat] != 2:
            bid, err = ask_bid_nb(rules, info, masks, seat, params, key, counter, bid_ns, bid_ew)
            errors += err
            set_bid_nb(info, seat, bid, 1 if bid == 0 else 0)
        counter += 1
        seat = 1 - seat
    return (
        first_leader_call_nb(borrow_nb(masks), first, borrow_nb(rules)),
        counter,
        errors,
    )


@njit(cache=True)
def draw_two_hands_call_nb(rules, scratch, key, dealer, first, info, draw_params, masks, dealt,
                           counter):  # fmt: skip
    """The two players' hands after the blind nil decisions: drawn (or, ``dealt``, as
    given), then each blind nil declarer's discards replaced from the unused cards.
    Returns the random counter after the replacements (a real call: none of it depends
    on the policies, so it is compiled once, not in every generated module)."""
    exchange = rules[RuleField.blind_nil_exchange]
    if dealt:
        unused = deck_mask_nb(rules[RuleField.jokers]) & ~(
            masks[MaskSlot.hands] | masks[MaskSlot.hands + 1]
        )
    else:
        unused = draw_two_nb(scratch, key, dealer, info, draw_params, masks, MaskSlot.hands)
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
    return counter


# --- Lock-step batches -------------------------------------------------------------------
# A batch is ``LANES`` deals, lo .. hi-1 (lanes past hi replay deal lo, their results
# unused), prepared into ``infos[b]``/``masks[b]`` and loaded into the play state ``st``.


@njit(inline="always", cache=True)
def load_lane_nb(st, b, info, masks, leader, play_key):
    """Put a prepared hand into lane ``b`` of the lock-step play state."""
    for s in range(4):
        st[(LockstepField.hand + s) * LANES + b] = masks[MaskSlot.hands + s]
        st[(LockstepField.tricks + s) * LANES + b] = 0
        st[(HeuristicField.bids + s) * LANES + b] = max(info[InfoSlot.bids + s], 0)
        st[(HeuristicField.nils + s) * LANES + b] = info[InfoSlot.nil + s] != 0
    st[LockstepField.leader * LANES + b] = leader
    st[LockstepField.key * LANES + b] = play_key


@njit(inline="always", cache=True)
def deal_batch_four_nb(scratch, seed, deal_start, lo, hi, lanes):
    """Deal a four-player batch together (``deal.deal_lanes_four_nb``: the shuffles of the
    scalar deal): each deal's stream key into ``DealLane.key``, its hands into
    ``DealLane.hands``."""
    for b in range(LANES):
        deal = deal_start + (lo + b if lo + b < hi else lo)
        lanes[DealLane.key * LANES + b] = np.int64(stream_key_nb(seed, KIND_HANDS, deal, 0))
    keys = lanes[DealLane.key * LANES : (DealLane.key + 1) * LANES]
    hands = lanes[DealLane.hands * LANES : (DealLane.hands + 4) * LANES]
    deck, shuffle, swaps = (
        scratch[DECK_AT : DECK_AT + 52],
        np.empty(52 * LANES, np.uint8),
        np.empty(52 * LANES, np.uint8),
    )
    deal_lanes_four_nb(deck, shuffle, swaps, keys, hands)


@njit(inline="always", cache=True)
def prepare_lanes_four_with_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks,
                               lanes, st, out_errors, bid_lanes):  # fmt: skip
    """A four-player batch with every bid taken in lock-step by ``bid_lanes``
    (``lockstep_bidding.bid_lanes_four_nb`` or ``bid_lanes_count_four_nb``; the lock-step
    kernels run only bidders they cover): the same hands, bids and random counters as
    ``prepare_four_nb`` with ``plain_bid_nb`` deal by deal. ``lanes``: the bidder's state
    (``enums.DealLane``), left with each deal's hands at the start of play, bids and nil
    kinds for the rows; ``out_errors[i]`` gets deal i's policy errors."""
    deal_batch_four_nb(scratch, seed, deal_start, lo, hi, lanes)
    for b in range(LANES):
        deal = deal_start + (lo + b if lo + b < hi else lo)
        lanes[DealLane.first * LANES + b] = start_hand_nb(rules, deal % 4, infos[b])
    bid_batch_four_nb(
        rules, params, infos, masks, lanes, st, lo, hi, out_errors, bid_lanes, NO_SEAT
    )


@njit(inline="always", cache=True)
def bid_batch_four_nb(rules, params, infos, masks, lanes, st, lo, hi, out_errors, bid_lanes,
                      forced_seat):  # fmt: skip
    """The bids of the four-player batch of items lo .. hi-1 whose ``lanes`` hold each
    deal's hands as dealt, stream key and first bidder (``infos[b]`` started), by
    ``bid_lanes`` (``forced_seat`` bidding the lanes' ``DealLane.forced_*``); per deal the
    hands as dealt into ``masks[b]``, the bids into ``infos[b]``, the blind nil exchange, the
    hands at the start of play back into ``lanes`` (for the rows) and the lane's play state
    into ``st``; item i's policy errors into ``out_errors[i]``."""
    for b in range(LANES):
        for s in range(4):
            dealt = np.uint64(lanes[(DealLane.hands + s) * LANES + b])
            masks[b, MaskSlot.hands + s] = dealt
            masks[b, MaskSlot.dealt + s] = dealt
    bid_lanes(rules, params, lanes, forced_seat)
    for b in range(LANES):
        info = infos[b]
        m = masks[b]
        for s in range(4):
            bid = lanes[(DealLane.bids + s) * LANES + b]
            set_bid_nb(info, s, bid, lanes[(DealLane.nils + s) * LANES + b])
        exchange_four_nb(rules, info, m)
        for s in range(4):  # the hands at the start of play, for the rows
            lanes[(DealLane.hands + s) * LANES + b] = np.int64(m[MaskSlot.hands + s])
        leader = first_leader_nb(m, MaskSlot.hands, 4, lanes[DealLane.first * LANES + b], rules)
        key = np.uint64(lanes[DealLane.key * LANES + b])
        load_lane_nb(st, b, info, m, leader, key + np.uint64(FOUR_PLAY_COUNTER) * GOLDEN)
    for b in range(hi - lo):
        out_errors[lo + b] = lanes[DealLane.errors * LANES + b]


@njit(inline="always", cache=True)
def prepare_lanes_four_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes,
                          st, out_errors):  # fmt: skip
    """``prepare_lanes_four_with_nb`` with every lane bidder (``LANE_BIDDERS``)."""
    prepare_lanes_four_with_nb(
        rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes, st, out_errors,
        bid_lanes_four_nb,
    )  # fmt: skip


@njit(inline="always", cache=True)
def prepare_lanes_count_four_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks,
                                lanes, st, out_errors):  # fmt: skip
    """``prepare_lanes_four_with_nb`` with only ``count`` and ``random`` bidding
    (``COUNT_LANE_BIDDERS``), which compiles in a fraction of the time."""
    prepare_lanes_four_with_nb(
        rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes, st, out_errors,
        bid_lanes_count_four_nb,
    )  # fmt: skip


@njit(cache=True)
def prepare_lanes_two_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes,
                         st, out_errors):  # fmt: skip
    """A two-player batch, deal by deal through ``prepare_plain_two_nb`` (the draw is
    sequential); the hands at the start of play, bids and nil kinds are then copied into
    ``lanes``, where ``prepare_lanes_four_nb`` leaves them."""
    for b in range(LANES):
        i = lo + b if lo + b < hi else lo
        deal = deal_start + i
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        leader, counter, errors = prepare_plain_two_nb(
            rules, scratch, key, deal % 2, params, infos[b], masks[b], NO_SEAT, ZERO_I64, ZERO_I64
        )
        if lo + b < hi:
            out_errors[i] = errors
        info = infos[b]
        for s in range(4):  # what the rows need, where the four-player batch leaves it
            lanes[(DealLane.hands + s) * LANES + b] = np.int64(masks[b, MaskSlot.hands + s])
            lanes[(DealLane.bids + s) * LANES + b] = info[InfoSlot.bids + s]
            lanes[(DealLane.nils + s) * LANES + b] = info[InfoSlot.nil + s]
        load_lane_nb(st, b, info, masks[b], leader, key + np.uint64(counter) * GOLDEN)


@njit(inline="always", cache=True)
def prepare_lanes_with_nb(rules, scratch, seed, deal_start, lo, hi, params, infos, masks, lanes,
                          st, out_errors, prepare_hand):  # fmt: skip
    """A batch prepared deal by deal through ``prepare_hand`` (a ``prepare_with_nb`` with a
    run's bid functions, e.g. a user policy module's), after dealing the four-player hands
    together in lock-step (the shuffles of the scalar deal); two players draw deal by deal.
    Leaves in ``lanes`` what ``prepare_lanes_four_nb`` leaves, in ``st`` each lane's play
    state, and in ``infos[b]``/``masks[b]`` each deal's table (for a play that is not in
    lock-step)."""
    four = rules[RuleField.players] == 4
    if four:
        deal_batch_four_nb(scratch, seed, deal_start, lo, hi, lanes)
        for b in range(LANES):
            for s in range(4):
                masks[b, MaskSlot.hands + s] = np.uint64(lanes[(DealLane.hands + s) * LANES + b])
    players = rules[RuleField.players]
    for b in range(LANES):
        i = lo + b if lo + b < hi else lo
        deal = deal_start + i
        key = stream_key_nb(seed, KIND_HANDS, deal, 0)
        info = infos[b]
        leader, counter, errors = prepare_hand(
            rules, scratch, key, deal % players, params, info, masks[b],
            PREDEALT if four else NO_SEAT, ZERO_I64, ZERO_I64,
        )  # fmt: skip
        if lo + b < hi:
            out_errors[i] = errors
        for s in range(4):  # what the rows need, where the four-player batch leaves it
            lanes[(DealLane.hands + s) * LANES + b] = np.int64(masks[b, MaskSlot.hands + s])
            lanes[(DealLane.bids + s) * LANES + b] = info[InfoSlot.bids + s]
            lanes[(DealLane.nils + s) * LANES + b] = info[InfoSlot.nil + s]
        load_lane_nb(st, b, info, masks[b], leader, key + np.uint64(counter) * GOLDEN)


# Typed int64, not literals: a call with the constants -1, 0, 0 compiles its own
# Literal[int] copy beside the int64 one. ``PREDEALT`` is a forced seat that is no seat:
# the hands are in ``masks`` already and every seat decides by its policy.
NO_SEAT = np.int64(-1)
PREDEALT = np.int64(4)
ZERO_I64 = np.int64(0)
