"""Replaying and scoring single hands with the kernels: the checked, user-facing API.

``replay_hand`` checks a hand record (deal, bids, every play) and scores it;
``score_hand`` scores bids and tricks. Input is validated here (``spades_sim.validate``)
and lowered to arrays; the kernels (``_nb.play.replay_tricks_nb``,
``_nb.loop.score_hand_nb``) do the work. The reference engine offers the same two
functions, and the tests hold them equal.

>>> score_hand((3, 4, 2, 4), (5, 2, 3, 3), scores_before=(337, 0), bags_before=(7, 0)).scores_after
(290, -80)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from spades_sim._nb.bidding import bid_error_nb
from spades_sim._nb.enums import N_INFO, N_SCORE_SLOTS, BidError, InfoSlot, ReplayError
from spades_sim._nb.enums import ScoreSlot as S
from spades_sim._nb.loop import score_hand_nb
from spades_sim._nb.play import opening_leader_nb, replay_tricks_nb
from spades_sim.cards import SPADE_MASK, Hand, card_suit, cards_of, deck_mask, mask_of, parse_card
from spades_sim.errors import CardError, IllegalPlay
from spades_sim.results import HandResult, HandScore
from spades_sim.rules import Rules, Shortfall
from spades_sim.validate import (
    below_min_bid_text,
    below_side_min_text,
    check_rules,
    check_tricks,
    illegal_bid,
    illegal_play,
    must_overtrump_text,
    must_trump_text,
    not_held_text,
    not_spades_text,
    pack_spades_text,
    play_count_error,
    played_twice_text,
    prepare_bids,
    prepare_hand,
    revoke_text,
    spades_not_broken_text,
    suicide_pair_text,
    two_clubs_text,
)


def _score(
    bids: tuple[int, ...],
    tricks: Sequence[int],
    blind: frozenset[int],
    rules: Rules,
    scores: tuple[int, ...],
    bags: tuple[int, ...],
) -> HandScore:
    players = rules.players
    sides = rules.sides
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.sides] = sides
    for seat in range(players):
        info[InfoSlot.bids + seat] = bids[seat]
        info[InfoSlot.nil + seat] = 0 if bids[seat] else (2 if seat in blind else 1)
        info[InfoSlot.tricks_won + seat] = tricks[seat]
    info[InfoSlot.bags : InfoSlot.bags + sides] = bags
    out = np.zeros((4, N_SCORE_SLOTS), dtype=np.int64)
    score_hand_nb(rules.lower(), info, out)
    out = out[:sides]
    nil_made: list[bool | None] = []
    for seat in range(players):
        second = players == 4 and seat >= 2 and sides == 2  # member b of a partnership
        value = out[rules.side_of(seat), S.nil_made_b if second else S.nil_made_a]
        nil_made.append(None if value < 0 else bool(value))
    change = tuple(int(x) for x in out[:, S.score_change])
    return HandScore(
        contracts=tuple(int(x) for x in out[:, S.contract]),
        side_tricks=tuple(int(x) for x in out[:, S.side_tricks]),
        made=tuple(None if x < 0 else bool(x) for x in out[:, S.made]),
        score_change=change,
        scores_after=tuple(before + delta for before, delta in zip(scores, change, strict=True)),
        bags_change=tuple(int(x) for x in out[:, S.bags_change]),
        bags_after=tuple(int(x) for x in out[:, S.bags_after]),
        bag_penalties=tuple(int(x) for x in out[:, S.bag_penalty]),
        boston=tuple(bool(x) for x in out[:, S.boston]),
        nil_made=tuple(nil_made),
    )


def _check_bid_rule(bids: tuple[int, ...], masks: Sequence[int] | None, rules: Rules) -> None:
    """Refuse bids that break the bid rule (the kernel ``bid_error_nb`` decides); with
    ``masks`` (the hands as bid) each bid against its hand."""
    players = rules.players
    bid_array = np.zeros(4, dtype=np.int64)
    bid_array[:players] = bids
    held = np.zeros(4, dtype=np.uint64)
    if masks is not None:
        held[:players] = masks
    code, seat = bid_error_nb(rules.lower(), bid_array, held, masks is not None)
    rule = rules.bid_rule.value
    if code == BidError.not_spades and masks is not None:
        spades = (int(masks[seat]) & SPADE_MASK).bit_count()
        raise illegal_bid(not_spades_text(int(seat), players, bids[seat], spades, rule))
    if code == BidError.pack_spades:
        pack = (deck_mask(rules.jokers, rules.deuces_high, players) & SPADE_MASK).bit_count()
        raise illegal_bid(pack_spades_text(sum(bids), pack, players, rule))
    if code == BidError.suicide_pair:
        raise illegal_bid(suicide_pair_text(int(seat), bids))
    if code == BidError.below_min_bid:
        least = rules.min_number_bid
        raise illegal_bid(below_min_bid_text(int(seat), players, bids[seat], least))
    if code == BidError.below_side_min:
        exempt = rules.min_side_bid_shortfall is Shortfall.NIL_EXEMPT
        raise illegal_bid(below_side_min_text(int(seat), bids, rules.min_side_bid, exempt))


def score_hand(
    bids: Sequence[int],
    tricks: Sequence[int],
    rules: Rules | None = None,
    blind_nil: Iterable[int | str] = (),
    scores_before: Sequence[int] | None = None,
    bags_before: Sequence[int] | None = None,
) -> HandScore:
    """Score one hand from the bids and the tricks won, per seat (docs/rules.md "Scoring a hand").

    A bid of 0 is Nil, or Blind Nil for the seats in ``blind_nil``; ``scores_before`` and
    ``bags_before`` are per side. Bad input raises ``ValueError`` naming the argument.

    >>> s = score_hand((3, 0, 2, 4), (6, 1, 2, 4))
    >>> s.score_change, s.nil_made
    ((53, -59), (None, False, None, None))
    """
    rules = check_rules(rules or Rules())
    bid_list, blind, scores, bags = prepare_bids(bids, rules, blind_nil, scores_before, bags_before)
    _check_bid_rule(bid_list, None, rules)
    trick_list = check_tricks(tricks, rules.players, rules.tricks)
    return _score(bid_list, trick_list, blind, rules, scores, bags)


def _parse_plays(
    plays: Iterable[int | str], players: int, deuces_high: bool, tricks: int
) -> tuple[list[int], dict[int, str]]:
    """Card ids in play order (-1 for text that is no card) and the errors by index."""
    out: list[int] = []
    unknown: dict[int, str] = {}
    for index, text in enumerate(plays):
        try:
            out.append(parse_card(text, deuces_high))
        except CardError as error:
            out.append(-1)
            unknown[index] = str(error)
    if len(out) != tricks * players:
        raise play_count_error(len(out), players, tricks)
    return out, unknown


def _explain(
    code: int,
    index: int,
    seat: int,
    plays: list[int],
    masks: list[int],
    players: int,
    unknown: dict[int, str],
    deuces_high: bool,
) -> IllegalPlay:
    """The IllegalPlay for the kernel's error ``code`` at play ``index`` by ``seat``."""
    trick_no = index // players

    def illegal(what: str) -> IllegalPlay:
        return illegal_play(trick_no + 1, seat, players, what)

    if code == ReplayError.unknown_card:
        return illegal(unknown[index])
    card = plays[index]
    if code == ReplayError.played_twice:
        return illegal(played_twice_text(card, plays.index(card) // players + 1, deuces_high))
    if code == ReplayError.not_held:
        return illegal(not_held_text(card, deuces_high))
    led = card_suit(plays[trick_no * players])
    still_held = masks[seat] & ~mask_of(plays[:index])
    if code == ReplayError.revoke:
        example = min(c for c in cards_of(still_held) if card_suit(c) == led)
        return illegal(revoke_text(card, led, seat, players, example, deuces_high))
    if code == ReplayError.must_trump:
        example = min(cards_of(still_held & SPADE_MASK))
        return illegal(must_trump_text(card, led, seat, players, example, deuces_high))
    if code == ReplayError.must_overtrump:
        top = max(c for c in plays[trick_no * players : index] if card_suit(c) == 3)
        example = min(c for c in cards_of(still_held & SPADE_MASK) if c > top)
        return illegal(must_overtrump_text(card, top, seat, players, example, deuces_high))
    if code == ReplayError.must_lead_two_clubs:
        return illegal(two_clubs_text(card, deuces_high))
    return illegal(spades_not_broken_text(card, deuces_high))


def replay_hand(
    hands: Sequence[Hand],
    dealer: int | str,
    bids: Sequence[int],
    plays: Iterable[int | str],
    rules: Rules | None = None,
    blind_nil: Iterable[int | str] = (),
    scores_before: Sequence[int] | None = None,
    bags_before: Sequence[int] | None = None,
) -> HandResult:
    """Replay a whole hand, checking every play, and score it.

    ``hands`` by seat (N, E, S, W, or the two or three players) are the cards held when play
    begins, each in PBN (``AK73.QJ2.T98.654``), as a card list (``"AS KS ..."``) or a mask;
    ``dealer`` a seat (0..3 or ``"N"``; two players: who drew first); ``bids`` by seat
    (0 = Nil, Blind Nil for seats in ``blind_nil``); ``plays`` the cards in play order.
    Raises :class:`~spades_sim.errors.Misdeal` for a bad deal and
    :class:`~spades_sim.errors.IllegalPlay` naming the trick, seat and card of a bad play.

    >>> hands = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    >>> plays = [rank + suit for rank in "AKQJT98765432" for suit in "SHDC"]
    >>> r = replay_hand(hands, "W", (13, 0, 0, 0), plays)
    >>> r.tricks, r.score_change
    ((13, 0, 0, 0), (230, 200))
    """
    rules = check_rules(rules or Rules())
    masks, dealer_seat, bid_list, blind, scores, bags = prepare_hand(
        hands, dealer, bids, rules, blind_nil, scores_before, bags_before
    )
    _check_bid_rule(bid_list, masks, rules)
    players = rules.players
    play_list, unknown = _parse_plays(plays, players, rules.deuces_high, rules.tricks)
    held = np.zeros(4, dtype=np.uint64)
    held[:players] = masks
    lowered = rules.lower()
    leader = opening_leader_nb(lowered, held, np.int64(dealer_seat))
    winners = np.zeros(rules.tricks, dtype=np.int8)
    tricks = np.zeros(4, dtype=np.int64)
    code, index, seat = replay_tricks_nb(
        lowered, held, leader, np.array(play_list, dtype=np.int64), winners, tricks
    )
    if code != ReplayError.ok:
        raise _explain(
            int(code), int(index), int(seat), play_list, masks, players, unknown, rules.deuces_high
        )
    score = _score(bid_list, tricks[:players].tolist(), blind, rules, scores, bags)
    return HandResult(
        **{f: getattr(score, f) for f in HandScore.__dataclass_fields__},
        trick_winners=tuple(int(w) for w in winners),
        tricks=tuple(int(t) for t in tricks[:players]),
    )
