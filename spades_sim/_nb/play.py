"""Card play: the legal-card mask, one whole hand of tricks, and a validating replay.

A hand has as many tricks as the first leader holds cards: 13, or with three players 17
(18 with the jokers); the loops read that once, from the hands, so they need no rule.

Legal cards (docs/rules.md "Play"): follow the suit led if able (jokers are spades); with
``must_trump`` a player who cannot follow trumps if able, and with ``must_overtrump`` a
spade played to a trick holding a spade beats it if able; the first lead obeys
``first_lead`` (no spade unless only spades, or the 2C); later leads may not be spades
before they are broken unless the hand holds only spades (``spades_lead``
``after_broken``). A trick goes to its highest spade, else the highest card of the suit
led: as spades have the highest ids, a card takes the lead when it is higher than the
winning card and is a spade or of the suit led.
"""

import numpy as np
from numba import njit

from spades_sim._nb.bitboard import (
    NON_SPADE_MASK,
    ONE,
    SPADE_MASK,
    SUIT_MASKS,
    ZERO,
    above_nb,
    bit_nb,
    lowest_card_nb,
    popcount_nb,
    suit_of_nb,
)
from spades_sim._nb.enums import MAX_PLAYS, InfoSlot, ReplayError, RuleField
from spades_sim._nb.rng import GOLDEN


@njit(inline="always", cache=True)
def legal_cards_nb(
    hand, led_suit, broken, trick_no, two_clubs, spades_any_time, must_trump, must_overtrump,
    win_card,
):  # fmt: skip
    """Mask of the cards of ``hand`` that may be played; ``led_suit`` -1 when leading,
    ``win_card`` the card winning the trick so far (read only when following)."""
    if led_suit >= 0:
        follow = hand & SUIT_MASKS[led_suit]
        legal = follow if follow else hand
        if must_trump and not follow:
            trumps = hand & SPADE_MASK
            legal = trumps if trumps else hand
        if must_overtrump:
            # the spades of ``legal`` that beat the winning card: when it is not a spade,
            # every spade (must_overtrump comes with must_trump, so ``legal`` is then all
            # spades, or holds none)
            over = legal & SPADE_MASK & above_nb(win_card)
            legal = over if over else legal
        return legal
    if trick_no == 0:
        if two_clubs and hand & ONE:
            return ONE
    elif broken or spades_any_time:
        return hand
    side = hand & NON_SPADE_MASK
    return side if side else hand


@njit(inline="always", cache=True)
def shown_out_nb(suit, led, must_trump):
    """The suits (bits) a seat shows out of by playing a card of ``suit`` to a trick led
    in ``led``: none when it follows; the suit led when it does not, and spades too when
    it discards under ``must_trump`` (it would have had to trump)."""
    off = np.int64(suit != led)
    discard = off & np.int64(must_trump) & np.int64(suit != 3)
    return (off << led) | (discard << 3)


@njit(inline="always", cache=True)
def first_to_act_nb(dealer, players):
    """The first bidder and, before the 2C rule, the first leader: the dealer's left (the
    next seat clockwise of ``players``), with two players the non-dealer."""
    return next_seat_nb(dealer, players)


@njit(inline="always", cache=True)
def first_leader_nb(hands, base, players, first, rules):
    """Who leads the first trick: the holder of the 2C (``hands[base + seat]``) when the
    rules say so, else ``first`` (``first_to_act_nb``)."""
    leader = first
    if rules[RuleField.first_lead_two_clubs]:
        for s in range(players):
            if hands[base + s] & ONE:
                leader = s
    return leader


@njit(cache=True)
def opening_leader_nb(rules, hands, dealer):
    """Who leads the first trick of a hand dealt by ``dealer`` with ``hands`` (a real call,
    for the Python layer: ``spades_sim.hand``)."""
    players = rules[RuleField.players]
    return first_leader_nb(hands, 0, players, first_to_act_nb(dealer, players), rules)


@njit(inline="always", cache=True)
def next_seat_nb(seat, players):
    seat += 1
    return 0 if seat == players else seat


@njit(inline="always", cache=True)
def reset_trick_info_nb(info, trick_no, leader):
    info[InfoSlot.trick] = trick_no
    info[InfoSlot.leader] = leader
    info[InfoSlot.n_in_trick] = 0
    info[InfoSlot.led_suit] = -1
    info[InfoSlot.winning_seat] = -1
    info[InfoSlot.winning_card] = -1
    for j in range(4):
        info[InfoSlot.trick_cards + j] = -1


@njit(inline="always", cache=True)
def clear_history_nb(info):
    """No card played yet: every ``InfoSlot.history`` slot -1."""
    for j in range(MAX_PLAYS):
        info[InfoSlot.history + j] = -1


@njit(inline="always", cache=True)
def record_play_nb(info, seat, card, bit):
    """Note ``card`` (its mask ``bit``) played by ``seat`` in ``info``'s public record: the
    played masks and the next ``history`` slot (as many cards as were played before)."""
    played = np.uint64(info[InfoSlot.played])
    info[InfoSlot.history + popcount_nb(played)] = card
    info[InfoSlot.played] = np.int64(played | bit)
    info[InfoSlot.played_by + seat] |= np.int64(bit)


@njit(inline="always", cache=True)
def play_tricks_nb(
    rules, masks, base, leader, info, params, row, play_fn0, play_fn1, key, counter, plays,
    winners,
):  # fmt: skip
    """Play every trick of the hand (as many as ``leader`` holds cards) from ``leader``;
    the hands ``masks[base + seat]`` lose their cards as they are played. Seat s plays
    with ``play_fn{s & 1}`` and parameters ``params[row + (s & 1)]`` (the N-S and E-W rows:
    with three players seats 0 and 2 take the first, seat 1 the second).

    The play policies see their own hand, the legal mask and ``info`` (kept up to date
    here, ``history`` included: it starts cleared, ``start_hand_nb``). ``plays`` (tricks
    x players slots, or empty) receives the cards in play order, ``winners`` (at least the
    tricks' slots) the winning seat of each trick. Returns (counter, policy_errors).
    """
    players = rules[RuleField.players]
    two_clubs = rules[RuleField.first_lead_two_clubs] != 0
    any_time = rules[RuleField.spades_any_time] != 0
    must_trump = rules[RuleField.must_trump] != 0
    must_over = rules[RuleField.must_overtrump] != 0
    record = plays.shape[0] > 0
    broken = False
    errors = 0
    played = ZERO
    n = 0
    for trick_no in range(popcount_nb(masks[base + leader])):
        reset_trick_info_nb(info, trick_no, leader)
        seat = leader
        led = -1
        win_card = -1
        win_seat = -1
        for j in range(players):
            hand = masks[base + seat]
            legal = legal_cards_nb(
                hand, led, broken, trick_no, two_clubs, any_time, must_trump, must_over, win_card
            )
            rand = key + np.uint64(counter) * GOLDEN
            counter += 1
            if seat & 1:
                card = play_fn1(hand, legal, seat, info, rules, params[row + 1], rand)
            else:
                card = play_fn0(hand, legal, seat, info, rules, params[row], rand)
            if card < 0 or card > 55 or not (legal >> np.uint64(card)) & ONE:
                errors += 1
                card = lowest_card_nb(legal)
            bit = bit_nb(card)
            masks[base + seat] = hand & ~bit
            suit = suit_of_nb(card)
            if j == 0:
                led = suit
                win_card = card
                win_seat = seat
                info[InfoSlot.led_suit] = led
            else:
                # branch-free: the outcome is random, a branch would mispredict
                beats = (card > win_card) & ((suit == led) | (card >= 39))
                win_card = card if beats else win_card
                win_seat = seat if beats else win_seat
                info[InfoSlot.voids + seat] |= shown_out_nb(suit, led, must_trump)
            broken |= card >= 39
            played |= bit
            info[InfoSlot.trick_cards + j] = card
            info[InfoSlot.n_in_trick] = j + 1
            info[InfoSlot.played] = np.int64(played)
            info[InfoSlot.played_by + seat] |= np.int64(bit)
            info[InfoSlot.history + n] = card
            info[InfoSlot.broken] = broken
            info[InfoSlot.winning_seat] = win_seat
            info[InfoSlot.winning_card] = win_card
            if record:
                plays[n] = card
            n += 1
            seat = next_seat_nb(seat, players)
        info[InfoSlot.tricks_won + win_seat] += 1
        winners[trick_no] = win_seat
        leader = win_seat
    return counter, errors


@njit(cache=True)
def replay_tricks_nb(rules, hands, leader, plays, winners, tricks):
    """Replay given plays, checking every rule. Returns (error code, play index, seat).

    ``hands`` (masks at the start of play) are consumed; on success ``winners`` holds
    the winning seat of each trick and ``tricks`` the count per seat.
    """
    players = rules[RuleField.players]
    two_clubs = rules[RuleField.first_lead_two_clubs] != 0
    any_time = rules[RuleField.spades_any_time] != 0
    must_trump = rules[RuleField.must_trump] != 0
    must_over = rules[RuleField.must_overtrump] != 0
    broken = False
    played = ZERO
    n = 0
    for trick_no in range(popcount_nb(hands[leader])):
        seat = leader
        led = -1
        win_card = -1
        win_seat = -1
        for j in range(players):
            card = plays[n]
            hand = hands[seat]
            if card < 0 or card > 55:
                return ReplayError.unknown_card, n, seat
            bit = bit_nb(card)
            if not hand & bit:
                return (ReplayError.played_twice if played & bit else ReplayError.not_held), n, seat
            legal = legal_cards_nb(
                hand, led, broken, trick_no, two_clubs, any_time, must_trump, must_over, win_card
            )
            if not legal & bit:
                if led >= 0:
                    if hand & SUIT_MASKS[led] and not bit & SUIT_MASKS[led]:
                        return ReplayError.revoke, n, seat
                    # a spade that follows or trumps but does not beat the trick's spade
                    if bit & SPADE_MASK:
                        return ReplayError.must_overtrump, n, seat
                    return ReplayError.must_trump, n, seat
                if trick_no == 0 and two_clubs and legal == ONE:
                    return ReplayError.must_lead_two_clubs, n, seat
                return ReplayError.spades_not_broken, n, seat
            hands[seat] = hand & ~bit
            played |= bit
            suit = suit_of_nb(card)
            if j == 0:
                led = suit
                win_card = card
                win_seat = seat
            elif card > win_card and (suit == led or card >= 39):
                win_card = card
                win_seat = seat
            if card >= 39:
                broken = True
            n += 1
            seat = next_seat_nb(seat, players)
        winners[trick_no] = win_seat
        tricks[win_seat] += 1
        leader = win_seat
    return ReplayError.ok, n, -1


@njit(inline="always", cache=True)
def has_played_nb(info, s, players):
    """Whether seat ``s`` has already played to the current trick."""
    return (s - info[InfoSlot.leader] + players) % players < info[InfoSlot.n_in_trick]
