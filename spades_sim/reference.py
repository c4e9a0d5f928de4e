"""The reference engine: a plain, readable pure-Python Spades engine written from docs/rules.md.

Contract. This module exists to check the fast Numba engine (``spades_sim._nb``), so it is
written straight from docs/rules.md and shares no code with the kernels: it uses only the
card conventions and parsers of :mod:`spades_sim.cards`, the rule set
:class:`~spades_sim.rules.Rules`, the result records of :mod:`spades_sim.results` and the
package's exceptions. It favours clarity over speed, keeping hands as ``int`` masks so
that a replay still runs at about ten thousand hands per second.

One file, on purpose (about 770 lines): it is the rules written once as code, to be read
beside docs/rules.md from top to bottom (dealing, bidding, legal plays and trick winners,
scoring, games, the blind nil exchange), and an independent second opinion only while
nothing in it is shared or split off from the rules it encodes. Splitting it would
scatter one rule book over several files without making any part of it simpler.

Conventions (docs/architecture.md "Data contracts"): card ``id = suit * 13 + rank`` (C=0,
D=1, H=2, S=3; 2=0 ... A=12; Little Joker 52, Big Joker 53, both spades); a hand is an
``int`` mask; seats N=0, E=1, S=2, W=3 with partner ``seat ^ 2`` and side ``seat % 2``;
with two players the seats are 0 and 1 and each player is its own side. In cutthroat
(``partnerships=False``, four or three players) there are no partners: each seat is its own
side, side s being seat s. Per-side tuples have one entry per side: two, or in cutthroat
one per seat. Three players (seats 0, 1, 2, named P0, P1, P2) play 17 tricks of three
cards from the pack without the 2C (18 with the jokers, whose pack is the full 52 and
both jokers); wherever the rules say 13 tricks, read all the tricks of the hand
(``Rules.tricks``).

Where docs/rules.md leaves room, this engine takes the interpretations agreed for both engines:

* The seat left of the dealer, ``(dealer + 1) % players``, bids and leads first; with two
  players the player who did not draw first (``1 - dealer``). With ``first_lead="two_of_clubs"`` the
  holder of the 2C leads it to the first trick.
* Spades are broken by the first spade played to a trick led in another suit, or led.
* A side whose contract is 0 scores no contract points (``made`` is None); its counted
  tricks, if any (only with ``nil_tricks_count_for_partner``), are all bags.
* Under ``bid_rule="suicide"`` the first partner of a side to bid decides who bids nil;
  a recorded hand is checked for what any order gives: one nil and one bid of 4 or more
  per side.
* Under ``must_overtrump`` a spade played to a trick that holds one must beat its highest
  spade when the player can, a spade lead included and whoever is winning the trick; a
  player who cannot plays any spade (``must_overtrump`` comes with ``must_trump``).
* Bags reaching ``bag_limit`` cost ``bag_penalty`` each time the limit is reached
  (``total // bag_limit`` times) and the count keeps the remainder; with ``bag_penalty = 0``
  bags are never reduced.

Public functions: :func:`score_hand`, :func:`replay_hand`, :func:`legal_cards`,
:func:`trick_winner`, :func:`game_result`, :func:`replay_game`,
:func:`check_blind_nil_exchange`, :func:`play_out`; and the record :class:`GameReplay`.
User mistakes raise ``ValueError`` (or its subclasses :class:`~spades_sim.errors.Misdeal`
and :class:`~spades_sim.errors.IllegalPlay`) with a message naming the culprit.

>>> trick_winner(["QH", "AH", "2S", "KH"])  # the 2S trumps
2
>>> score_hand(bids=(3, 4, 2, 4), tricks=(4, 4, 2, 3)).score_change  # N-S 51, E-W set
(51, -80)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spades_sim.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    N_CARD_IDS,
    SPADE_MASK,
    SPADES,
    TWO_OF_CLUBS,
    Hand,
    card_suit,
    check_deal,
    deck_mask,
    format_card,
    parse_card,
    seat_index,
    seat_name,
)
from spades_sim.errors import CardError
from spades_sim.results import HandResult, HandScore
from spades_sim.rules import Rules
from spades_sim.validate import (
    below_min_bid_text,
    below_side_min_text,
    check_bids,
    check_blind_nil_seats,
    check_rules,
    check_tricks,
    illegal_bid,
    illegal_play,
    must_overtrump_text,
    must_trump_text,
    not_held_text,
    not_spades_text,
    pack_spades_text,
    per_side_ints,
    play_count_error,
    played_twice_text,
    prepare_bids,
    prepare_hand,
    revoke_text,
    spades_not_broken_text,
    suicide_pair_text,
    two_clubs_text,
)

__all__ = [
    "GameReplay",
    "check_blind_nil_exchange",
    "game_result",
    "legal_cards",
    "play_out",
    "replay_game",
    "replay_hand",
    "score_hand",
    "trick_winner",
]

DEFAULT_RULES = Rules()
"""The standard rules (the default of every ``rules`` argument)."""


# The cards of each suit as a mask; the jokers (ids 52, 53) belong to spades.
SUIT_MASKS = {
    CLUBS: 0x1FFF << (13 * CLUBS),
    DIAMONDS: 0x1FFF << (13 * DIAMONDS),
    HEARTS: 0x1FFF << (13 * HEARTS),
    SPADES: SPADE_MASK,
}

Chooser = Callable[[int, int, int, tuple[int, ...]], "int | str"]


# --------------------------------------------------------------------------------------
# Seats and sides
# --------------------------------------------------------------------------------------


def _members(side: int, players: int, partnerships: bool = True) -> tuple[int, ...]:
    """The seats of a side: the two partners, or the lone player (two players, cutthroat)."""
    return (side, side + 2) if players == 4 and partnerships else (side,)


def _sides(rules: Rules) -> range:
    """The sides of the table: N-S and E-W (or the two players); every seat in cutthroat
    (four, or three with three players)."""
    return range(2 if rules.partnerships else rules.players)


def _first_seat(dealer: int, players: int) -> int:
    """The seat that bids first, and leads first unless the 2C rule says otherwise: the
    dealer's left, the next seat clockwise (with two players the non-dealer)."""
    return (dealer + 1) % players


# --------------------------------------------------------------------------------------
# Validation of bids, tricks, blind nil, scores and bags
# --------------------------------------------------------------------------------------


def _spades(hand: int) -> int:
    return (hand & SPADE_MASK).bit_count()


def _check_bid_rule(bids: tuple[int, ...], masks: Sequence[int] | None, rules: Rules) -> None:
    """Refuse bids that break ``rules.bid_rule`` (docs/rules.md "Bid rules"); with the hands
    as bid (``masks``) every bid is checked against its hand, without only what the bids
    alone show."""
    players = rules.players
    rule = rules.bid_rule.value
    # Minimum bids: every number bid, then every partnership's total.
    least = rules.min_number_bid
    for seat in range(players):
        if 0 < bids[seat] < least:
            raise illegal_bid(below_min_bid_text(seat, players, bids[seat], least))
    if rules.min_side_bid:
        exempt = rules.min_side_bid_shortfall == "nil_exempt"
        for side in (0, 1):
            side_bids = [bids[seat] for seat in _members(side, players)]
            if sum(side_bids) < rules.min_side_bid and not (exempt and 0 in side_bids):
                raise illegal_bid(below_side_min_text(side, bids, rules.min_side_bid, exempt))
    if rule == "suicide":
        # Each partnership: one nil and one bid of 4 or more (whoever bid first chose).
        for side in (0, 1):
            pair = sorted(bids[seat] for seat in _members(side, players))
            if not (pair[0] == 0 and pair[1] >= 4):
                raise illegal_bid(suicide_pair_text(side, bids))
    if rule == "whiz":
        # Nil, or a number that is the bidder's spades.
        if masks is not None:
            for seat in range(players):
                spades = _spades(masks[seat])
                if bids[seat] not in (0, spades):
                    raise illegal_bid(not_spades_text(seat, players, bids[seat], spades, rule))
            return
        # The number bids are spades held by different players.
        pack = _spades(deck_mask(rules.jokers, rules.deuces_high, players))
        if sum(bids) > pack:
            raise illegal_bid(pack_spades_text(sum(bids), pack, players, rule))
    if rule == "mirror":
        # Every bid is the bidder's spades, jokers included; nil with none.
        if masks is not None:
            for seat in range(players):
                if bids[seat] != _spades(masks[seat]):
                    text = not_spades_text(seat, players, bids[seat], _spades(masks[seat]), rule)
                    raise illegal_bid(text)
            return
        # Four or three players hold every spade of the pack between them, two players some.
        pack = _spades(deck_mask(rules.jokers, rules.deuces_high, players))
        total = sum(bids)
        if total > pack or (players != 2 and total != pack):
            raise illegal_bid(pack_spades_text(total, pack, players, rule))


# --------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------


def score_hand(
    bids: Sequence[int],
    tricks: Sequence[int],
    rules: Rules = DEFAULT_RULES,
    blind_nil: Iterable[int | str] = (),
    scores_before: Sequence[int] | None = None,
    bags_before: Sequence[int] | None = None,
) -> HandScore:
    """Score one hand from the bids and the tricks each seat won (docs/rules.md, "Scoring a hand").

    ``bids`` and ``tricks`` are per seat (4, or 2 with two players), a bid of 0 being Nil,
    or Blind Nil for the seats in ``blind_nil``. ``scores_before`` and ``bags_before`` are
    per side. Raises ValueError naming the argument on invalid input.

    The pagat example: N-S on 337 points carrying 7 bags bid 3 + 2 and win 8 tricks.

    >>> score = score_hand((3, 4, 2, 4), (5, 2, 3, 3), scores_before=(337, 0), bags_before=(7, 0))
    >>> score.score_change, score.scores_after, score.bags_after, score.bag_penalties
    ((-47, -80), (290, -80), (0, 0), (100, 0))
    """
    rules = check_rules(rules)
    bid_list, blind, scores, bags = prepare_bids(bids, rules, blind_nil, scores_before, bags_before)
    _check_bid_rule(bid_list, None, rules)
    trick_list = check_tricks(tricks, rules.players, rules.tricks)
    return _score(bid_list, trick_list, blind, rules, scores, bags)


def _score(
    bids: tuple[int, ...],
    tricks: tuple[int, ...],
    blind: frozenset[int],
    rules: Rules,
    scores_before: tuple[int, ...],
    bags_before: tuple[int, ...],
) -> HandScore:
    """Score validated input; see :func:`score_hand`."""
    players = rules.players
    nil_made: list[bool | None] = [None] * players
    per_side: list[dict[str, Any]] = []

    for side in _sides(rules):
        members = _members(side, players, rules.partnerships)
        bidders = [seat for seat in members if bids[seat] > 0]
        nil_bidders = [seat for seat in members if bids[seat] == 0]

        # The contract and the tricks counted toward it.
        contract = sum(bids[seat] for seat in bidders)
        counted = sum(tricks[seat] for seat in bidders)
        nil_tricks = sum(tricks[seat] for seat in nil_bidders)
        if rules.nil_tricks_count_for_partner:
            counted += nil_tricks

        points = 0
        bags = 0
        made: bool | None
        # A big bid ("ten for two hundred"): its contract points are multiplied.
        per_trick = 10
        if rules.big_bid_threshold is not None and contract >= rules.big_bid_threshold:
            per_trick = 10 * rules.big_bid_multiplier
        if contract > 0:
            made = counted >= contract
            if made:
                overtricks = counted - contract
                points += per_trick * contract + overtricks
                bags += overtricks
            else:
                points -= per_trick * contract
        else:
            # Nothing to make; any counted tricks (nil tricks counted for the partner)
            # are all excess, so bags.
            made = None
            points += counted
            bags += counted

        # Each nil or blind nil on its own.
        for seat in nil_bidders:
            value = rules.blind_nil_value if seat in blind else rules.nil_value
            nil_made[seat] = tricks[seat] == 0
            points += value if tricks[seat] == 0 else -value

        # Nil tricks as bags, whether or not the contract was made.
        if rules.nil_tricks_count_as_bags:
            points += nil_tricks
            bags += nil_tricks

        # all the tricks of the hand: 13, or 17 or 18 with three players
        boston = sum(tricks[seat] for seat in members) == rules.tricks
        if boston:
            points += rules.boston_bonus

        # Sandbagging: each time the accumulated bags reach bag_limit, lose bag_penalty.
        total_bags = bags_before[side] + bags
        penalty_points = 0
        if rules.bag_penalty > 0:
            penalties = total_bags // rules.bag_limit
            penalty_points = penalties * rules.bag_penalty
            total_bags -= penalties * rules.bag_limit
        change = points - penalty_points

        per_side.append(
            {
                "contract": contract,
                "counted": counted,
                "made": made,
                "change": change,
                "after": scores_before[side] + change,
                "bags_change": bags,
                "bags_after": total_bags,
                "penalty": penalty_points,
                "boston": boston,
            }
        )

    def pair(key: str) -> tuple[Any, ...]:
        return tuple(entry[key] for entry in per_side)

    return HandScore(
        contracts=pair("contract"),
        side_tricks=pair("counted"),
        made=pair("made"),
        score_change=pair("change"),
        scores_after=pair("after"),
        bags_change=pair("bags_change"),
        bags_after=pair("bags_after"),
        bag_penalties=pair("penalty"),
        boston=pair("boston"),
        nil_made=tuple(nil_made),
    )


# --------------------------------------------------------------------------------------
# Tricks and legal cards
# --------------------------------------------------------------------------------------


# The trumps from the lowest, by name (docs/rules.md "Jokers" and "Jokers and deuces").
_TRUMPS = [rank + "S" for rank in "23456789TJQKA"] + ["LJ", "BJ"]
_TRUMPS_DEUCES_HIGH = [rank + "S" for rank in "3456789TJQKA"] + ["2S", "2D", "LJ", "BJ"]


def _trump_rank(card: int, deuces_high: bool) -> int:
    """The rank of a spade among the trumps, from the names of the rules, not the ids."""
    order = _TRUMPS_DEUCES_HIGH if deuces_high else _TRUMPS
    return order.index(format_card(card, deuces_high))


def _winner(trick: Sequence[int], deuces_high: bool = False) -> int:
    """Position of the winning card among validated card ids: the highest trump by the
    trump order, else the highest card of the suit led (side-suit ids rise with rank).
    """
    spades = [
        (_trump_rank(card, deuces_high), pos)
        for pos, card in enumerate(trick)
        if card_suit(card) == SPADES
    ]
    if spades:
        return max(spades)[1]
    led = card_suit(trick[0])
    return max((card, pos) for pos, card in enumerate(trick) if card_suit(card) == led)[1]


def trick_winner(trick: Sequence[int | str], rules: Rules | None = None) -> int:
    """The 0-based position in ``trick`` (cards in play order) of the card that wins it.

    The highest spade wins (Big Joker > Little Joker > AS > ... > 2S; with the deuces high
    Big Joker > Little Joker > 2D > 2S > AS > ... > 3S, the 2D a spade); with no spade, the
    highest card of the suit led. Cards may be ids (of the rules' pack) or text.

    >>> trick_winner(["KH", "2S", "AH", "3S"]), trick_winner(["KH", "AD", "QH", "2H"])
    (3, 0)
    >>> trick_winner(["AS", "BJ", "LJ"])
    1
    >>> trick_winner(["AD", "AS", "2D", "2S"], Rules.preset("jokers-deuces"))
    2
    """
    deuces_high = rules is not None and check_rules(rules).deuces_high
    cards = [parse_card(card, deuces_high) for card in trick]
    if not cards:
        raise ValueError("trick: an empty trick has no winner")
    if len(set(cards)) != len(cards):
        names = [format_card(c, deuces_high) for c in cards]
        raise ValueError(f"trick: a card appears twice in {names}")
    return _winner(cards, deuces_high)


def _legal(
    hand: int, trick: Sequence[int], spades_broken: bool, first_trick: bool, rules: Rules
) -> int:
    """Mask of legal cards (see :func:`legal_cards`); the caller checks the 2C rule."""
    if trick:
        # Following: the suit led if held (jokers are spades), otherwise anything; under
        # must_trump a spade when the player holds one.
        follow = hand & SUIT_MASKS[card_suit(trick[0])]
        if follow:
            legal = follow
        elif rules.must_trump and hand & SPADE_MASK:
            legal = hand & SPADE_MASK
        else:
            legal = hand
        # Under must_overtrump a spade played to a trick that holds one must beat the
        # highest spade in it, when the player has a spade that does.
        higher = _spades_above(legal, trick, rules.deuces_high)
        if rules.must_overtrump and higher:
            legal = higher
        return legal
    if first_trick:
        if rules.first_lead == "two_of_clubs":
            return hand & (1 << TWO_OF_CLUBS)
        # any_but_spades: a non-spade if the hand holds one.
        non_spades = hand & ~SPADE_MASK
        return non_spades if non_spades else hand
    if rules.spades_lead == "any_time" or spades_broken:
        return hand
    non_spades = hand & ~SPADE_MASK
    return non_spades if non_spades else hand


def _spades_above(cards: int, trick: Sequence[int], deuces_high: bool) -> int:
    """The spades of ``cards`` higher than every spade in ``trick`` (0 if it holds none)."""
    trick_spades = [_trump_rank(card, deuces_high) for card in trick if card_suit(card) == SPADES]
    if not trick_spades:
        return 0
    top = max(trick_spades)
    held = [c for c in range(N_CARD_IDS) if cards >> c & 1 and card_suit(c) == SPADES]
    return sum(1 << c for c in held if _trump_rank(c, deuces_high) > top)


def legal_cards(
    hand: int, trick: Sequence[int], spades_broken: bool, first_trick: bool, rules: Rules
) -> int:
    """The mask of the cards in ``hand`` that may be played to ``trick``.

    ``trick`` holds the cards already played to this trick, in order (empty when leading).
    Following: cards of the suit led if held (jokers count as spades), otherwise any card,
    or with ``must_trump`` any spade if the hand holds one. With ``must_overtrump``, when
    the trick holds a spade and these cards include spades higher than its highest, only
    those (following a spade lead or trumping alike).
    Leading the first trick: with ``first_lead="any_but_spades"`` any non-spade if held,
    else anything; with ``"two_of_clubs"`` only the 2C (a leader without it is a
    ValueError). Leading later tricks: with ``spades_lead="after_broken"`` non-spades
    unless spades are broken or the hand holds only spades; with ``"any_time"`` anything.

    >>> from spades_sim.cards import format_hand, parse_hand
    >>> hand = parse_hand("AK.Q..2")
    >>> format_hand(legal_cards(hand, [], False, False, Rules()))
    '.Q..2'
    >>> format_hand(legal_cards(hand, [parse_card("3S")], False, False, Rules()))
    'AK...'
    """
    rules = check_rules(rules)
    hand = int(hand)
    cards = [parse_card(card, rules.deuces_high) for card in trick]
    if len(cards) >= rules.players:
        raise ValueError(f"trick: already holds {len(cards)} cards, it is complete")
    two_of_clubs_lead = not cards and first_trick and rules.first_lead == "two_of_clubs"
    if two_of_clubs_lead and hand and not hand >> TWO_OF_CLUBS & 1:
        raise ValueError(
            "hand: under first_lead='two_of_clubs' the holder of the 2C leads the "
            "first trick, and this hand does not hold it"
        )
    return _legal(hand, cards, bool(spades_broken), bool(first_trick), rules)


# --------------------------------------------------------------------------------------
# Playing a hand
# --------------------------------------------------------------------------------------


def _lowest_card(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _play_hand(
    masks: list[int], leader: int, rules: Rules, pick: Callable[[int, int, int, list[int]], Any]
) -> tuple[list[int], list[int], list[int]]:
    """Play the hand's tricks (``rules.tricks``) from ``masks``, asking
    ``pick(seat, hand, legal, trick)`` for each card.

    Every card is checked against the rules and an :class:`IllegalPlay` names the trick,
    the seat and the card. Returns (plays in order, trick winner seats, tricks per seat).
    """
    players = rules.players
    deuces = rules.deuces_high
    hands = list(masks)
    played_in: dict[int, int] = {}  # card -> trick number (1-based) it was played to
    spades_broken = False
    plays: list[int] = []
    winners: list[int] = []
    tricks = [0] * players

    for trick_number in range(1, rules.tricks + 1):
        first_trick = trick_number == 1
        trick: list[int] = []
        for position in range(players):
            seat = (leader + position) % players
            hand = hands[seat]
            legal = _legal(hand, trick, spades_broken, first_trick, rules)
            given = pick(seat, hand, legal, trick)
            try:
                card = parse_card(given, deuces)
            except CardError as error:
                raise illegal_play(trick_number, seat, players, str(error)) from None

            if card in played_in:
                text = played_twice_text(card, played_in[card], deuces)
                raise illegal_play(trick_number, seat, players, text)
            if not hand >> card & 1:
                raise illegal_play(trick_number, seat, players, not_held_text(card, deuces))
            if not legal >> card & 1:
                why = _why_illegal(card, hand, trick, seat, first_trick, rules)
                raise illegal_play(trick_number, seat, players, why)

            # Spades break when one is led or played to a trick led in another suit.
            if card_suit(card) == SPADES and (not trick or card_suit(trick[0]) != SPADES):
                spades_broken = True
            hands[seat] = hand & ~(1 << card)
            played_in[card] = trick_number
            trick.append(card)
            plays.append(card)

        winner = (leader + _winner(trick, deuces)) % players
        winners.append(winner)
        tricks[winner] += 1
        leader = winner
    return plays, winners, tricks


def _why_illegal(
    card: int, hand: int, trick: list[int], seat: int, first_trick: bool, rules: Rules
) -> str:
    """Explain why a held card is not a legal play (the caller knows it is not legal)."""
    deuces = rules.deuces_high
    if trick:
        led = card_suit(trick[0])
        players = rules.players
        if hand & SUIT_MASKS[led] and card_suit(card) != led:
            example = _lowest_card(hand & SUIT_MASKS[led])
            return revoke_text(card, led, seat, players, example, deuces)
        if card_suit(card) != SPADES:
            example = _lowest_card(hand & SPADE_MASK)
            return must_trump_text(card, led, seat, players, example, deuces)
        top = max(
            (c for c in trick if card_suit(c) == SPADES), key=lambda c: _trump_rank(c, deuces)
        )
        example = _lowest_card(_spades_above(hand, trick, deuces))
        return must_overtrump_text(card, top, seat, players, example, deuces)
    if first_trick and rules.first_lead == "two_of_clubs":
        return two_clubs_text(card, deuces)
    return spades_not_broken_text(card, deuces)


def _first_leader(masks: list[int], dealer: int, rules: Rules) -> int:
    if rules.first_lead == "two_of_clubs":
        return next(seat for seat, mask in enumerate(masks) if mask >> TWO_OF_CLUBS & 1)
    return _first_seat(dealer, rules.players)


def _result(score: HandScore, winners: list[int], tricks: list[int]) -> HandResult:
    fields = {spec.name: getattr(score, spec.name) for spec in dataclasses.fields(HandScore)}
    return HandResult(**fields, trick_winners=tuple(winners), tricks=tuple(tricks))


def replay_hand(
    hands: Sequence[Hand],
    dealer: int | str,
    bids: Sequence[int],
    plays: Iterable[int | str],
    rules: Rules = DEFAULT_RULES,
    blind_nil: Iterable[int | str] = (),
    scores_before: Sequence[int] | None = None,
    bags_before: Sequence[int] | None = None,
) -> HandResult:
    """Replay a whole hand, checking every play, and score it.

    ``hands`` by seat are the cards held when play begins (PBN, card list or mask);
    ``dealer`` a seat (with two players: the player who drew first); ``bids`` by seat;
    ``plays`` every card in play order (13 tricks of ``rules.players`` cards). Raises
    :class:`~spades_sim.errors.Misdeal` for a bad deal, :class:`~spades_sim.errors.
    IllegalPlay` naming the trick, seat and card for a bad play, ValueError otherwise.

    Each seat holds one suit; North, left of dealer West, holds the spades, so leads them
    and wins every trick (N bid 13, the others nil).

    >>> hands = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    >>> plays = [rank + suit for rank in "AKQJT98765432" for suit in "SHDC"]
    >>> result = replay_hand(hands, "W", (13, 0, 0, 0), plays)
    >>> result.tricks, result.nil_made, result.score_change
    ((13, 0, 0, 0), (None, True, True, True), (230, 200))
    """
    masks, dealer_seat, bid_list, blind, scores, bags = prepare_hand(
        hands, dealer, bids, rules, blind_nil, scores_before, bags_before
    )
    _check_bid_rule(bid_list, masks, rules)
    play_list = list(plays)
    if len(play_list) != rules.tricks * rules.players:
        raise play_count_error(len(play_list), rules.players, rules.tricks)
    next_play = iter(play_list)

    def pick(seat: int, hand: int, legal: int, trick: list[int]) -> Any:
        return next(next_play)

    leader = _first_leader(masks, dealer_seat, rules)
    _, winners, tricks = _play_hand(masks, leader, rules, pick)
    score = _score(bid_list, tuple(tricks), blind, rules, scores, bags)
    return _result(score, winners, tricks)


def play_out(
    hands: Sequence[Hand],
    dealer: int | str,
    bids: Sequence[int],
    rules: Rules,
    choose: Chooser,
    blind_nil: Iterable[int | str] = (),
) -> tuple[list[int], HandResult]:
    """Play a whole hand, ``choose(seat, hand_mask, legal_mask, trick_so_far)`` picking cards.

    ``trick_so_far`` is a tuple of the card ids already played to the trick. The choice is
    checked like a replayed play (an illegal choice raises IllegalPlay). Returns the plays
    in order and the scored result, starting from 0-0 scores and no bags.

    >>> hands = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    >>> lowest = lambda seat, hand, legal, trick: (legal & -legal).bit_length() - 1
    >>> plays, result = play_out(hands, "S", (13, 0, 0, 0), Rules(), lowest)
    >>> len(plays), result.tricks, result.score_change
    (52, (13, 0, 0, 0), (230, 200))
    """
    masks, dealer_seat, bid_list, blind, scores, bags = prepare_hand(
        hands, dealer, bids, rules, blind_nil, (0, 0), (0, 0)
    )
    _check_bid_rule(bid_list, masks, rules)

    def pick(seat: int, hand: int, legal: int, trick: list[int]) -> Any:
        return choose(seat, hand, legal, tuple(trick))

    leader = _first_leader(masks, dealer_seat, rules)
    plays, winners, tricks = _play_hand(masks, leader, rules, pick)
    score = _score(bid_list, tuple(tricks), blind, rules, scores, bags)
    return plays, _result(score, winners, tricks)


# --------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------


def game_result(scores: tuple[int, ...], hands_played: int, rules: Rules) -> tuple[int | None, str]:
    """Whether the game is over after ``hands_played`` hands with these scores (one per
    side: two, or four in cutthroat).

    Returns (winning side, reason): reason ``"target"`` or ``"loss_threshold"``;
    ``(None, "unfinished")`` once ``max_hands`` hands are played without a result; and
    ``(None, "")`` while play goes on. A tie for the highest score at or over the target,
    or with a side at or below the loss threshold, plays on. Reaching the target beats
    the threshold.

    >>> game_result((510, 480), 12, Rules()), game_result((510, 510), 12, Rules())
    ((0, 'target'), (None, ''))
    >>> game_result((-210, 40), 5, Rules.preset("mercy"))
    (1, 'loss_threshold')
    >>> game_result((320, 505, 505, 90), 9, Rules.preset("cutthroat-4"))
    (None, '')
    """
    rules = check_rules(rules)
    scores = per_side_ints("scores", scores, rules.sides)
    best = max(scores)
    leaders = [side for side, score in enumerate(scores) if score == best]
    # the one side with the highest score, if there is one
    winner = leaders[0] if len(leaders) == 1 else None
    if best >= rules.target:
        if winner is not None:
            return winner, "target"
        # A tie at the top at or over the target: play on until it is broken (or max_hands).
    elif (
        rules.loss_threshold is not None
        and min(scores) <= rules.loss_threshold
        and winner is not None
    ):
        return winner, "loss_threshold"
    if hands_played >= rules.max_hands:
        return None, "unfinished"
    return None, ""


@dataclass(frozen=True)
class GameReplay:
    """A replayed game: every hand's result, the final state and how the game ended."""

    results: tuple[HandResult, ...]
    """Each hand's result, in order."""
    scores: tuple[int, ...]
    """Final scores per side."""
    bags: tuple[int, ...]
    """Bags carried per side at the end."""
    bag_penalties: tuple[int, ...]
    """Points each side lost to the bag penalty over the game."""
    winner: int | None
    """The winning side, or None for an unfinished game."""
    reason: str
    """``"target"``, ``"loss_threshold"`` or ``"unfinished"``."""
    hands_played: int


_MISSING = object()


def _record_field(record: Any, name: str, index: int, default: Any = _MISSING) -> Any:
    if isinstance(record, Mapping):
        value = record.get(name, default)
    else:
        value = getattr(record, name, default)
    if value is _MISSING:
        raise ValueError(f"records: hand {index + 1} has no {name!r}")
    return value


def replay_game(records: Iterable[Any], rules: Rules = DEFAULT_RULES) -> GameReplay:
    """Replay the consecutive hands of one game from 0-0 and no bags, and say who won.

    Each record (a mapping or an object) has ``hands``, ``dealer``, ``bids``, ``plays`` and
    optionally ``blind_nil`` (as for :func:`replay_hand`) and ``dealt`` (the hands before a
    blind nil exchange, checked with :func:`check_blind_nil_exchange` when given). The
    dealer must pass clockwise (two players: alternate). Raises ValueError if hands follow
    the end of the game, or if the records stop before the game ends and before
    ``max_hands``; an error replaying a hand keeps its type and names the hand.

    >>> hands = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    >>> lowest = lambda seat, hand, legal, trick: (legal & -legal).bit_length() - 1
    >>> plays, _ = play_out(hands, "S", (13, 0, 0, 0), Rules(), lowest)
    >>> game = replay_game([{"hands": hands, "dealer": "S", "bids": (13, 0, 0, 0),
    ...                      "plays": plays}], Rules(target=100))
    >>> game.scores, game.winner, game.reason, game.hands_played
    ((230, 200), 0, 'target', 1)
    """
    rules = check_rules(rules)
    players = rules.players
    scores: tuple[int, ...] = (0,) * rules.sides
    bags: tuple[int, ...] = (0,) * rules.sides
    penalties = [0] * rules.sides
    results: list[HandResult] = []
    winner: int | None = None
    reason = ""
    first_dealer = 0

    for index, record in enumerate(records):
        if reason:
            raise ValueError(
                f"records: hand {index + 1} follows the end of the game "
                f"(after hand {index}: {reason})"
            )
        hands = _record_field(record, "hands", index)
        dealer_given = _record_field(record, "dealer", index)
        bids = _record_field(record, "bids", index)
        plays = _record_field(record, "plays", index)
        blind_nil = _record_field(record, "blind_nil", index, ())
        dealt = _record_field(record, "dealt", index, None)
        blind_nil = () if blind_nil is None else blind_nil

        try:
            dealer = seat_index(dealer_given, players)
        except ValueError as error:
            raise ValueError(f"records: hand {index + 1}: dealer: {error}") from None
        if index == 0:
            first_dealer = dealer
        expected_dealer = (first_dealer + index) % players
        if dealer != expected_dealer:
            raise ValueError(
                f"records: hand {index + 1}: dealer is {seat_name(dealer, players)}, "
                f"but the deal passes to {seat_name(expected_dealer, players)}"
            )

        try:
            if dealt is not None:
                check_blind_nil_exchange(dealt, hands, bids, blind_nil, rules)
            result = replay_hand(hands, dealer, bids, plays, rules, blind_nil, scores, bags)
        except ValueError as error:
            raise type(error)(f"hand {index + 1}: {error}") from error

        results.append(result)
        scores = tuple(result.scores_after)
        bags = tuple(result.bags_after)
        for side, lost in enumerate(result.bag_penalties):
            penalties[side] += lost
        winner, reason = game_result(scores, len(results), rules)

    if not results:
        raise ValueError("records: a game needs at least one hand")
    if not reason:
        raise ValueError(
            f"records: stop after {len(results)} hands with scores {scores}, "
            f"before the game ended (target {rules.target}, max_hands {rules.max_hands})"
        )
    return GameReplay(
        results=tuple(results),
        scores=scores,
        bags=bags,
        bag_penalties=tuple(penalties),
        winner=winner,
        reason=reason,
        hands_played=len(results),
    )


# --------------------------------------------------------------------------------------
# Blind nil exchange
# --------------------------------------------------------------------------------------


def check_blind_nil_exchange(
    dealt: Sequence[Hand],
    held: Sequence[Hand],
    bids: Sequence[int],
    blind_nil: Iterable[int | str],
    rules: Rules,
) -> None:
    """Raise ValueError unless ``held`` follows from ``dealt`` by the blind nil exchange
    (and the nil exchange, ``rules.nil_exchange``).

    ``k = rules.blind_nil_exchange``. Four players: a blind nil bidder whose partner did not
    also bid blind nil passes exactly k cards to the partner and receives k cards back; a
    nil bidder (not blind) whose partner bid a number does the same with
    ``rules.nil_exchange`` cards; every other hand is unchanged (all hands, if both are
    0). Two players: a blind nil bidder may replace up to k cards with cards from the
    unused pile (held by neither player after the draw); the other hand is unchanged.
    Both deals are checked as deals first (Misdeal).

    >>> rules = Rules.preset("blind-nil-exchange")
    >>> dealt = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    >>> held = ["JT98765432..AKQ.", dealt[1], "AKQ..JT98765432.", dealt[3]]  # N and S swap 3
    >>> check_blind_nil_exchange(dealt, held, (0, 3, 4, 3), [0], rules)
    >>> check_blind_nil_exchange(dealt, held, (0, 3, 4, 3), [], rules)
    Traceback (most recent call last):
    ...
    ValueError: seat N: hand changed, but no blind nil exchange involves it
    """
    rules = check_rules(rules)
    players = rules.players
    dealt_masks = check_deal(
        dealt, players=players, jokers=rules.jokers, deuces_high=rules.deuces_high
    )
    held_masks = check_deal(
        held, players=players, jokers=rules.jokers, deuces_high=rules.deuces_high
    )
    bid_list = check_bids(bids, players, rules.tricks)
    blind = check_blind_nil_seats(blind_nil, bid_list, rules)
    k = rules.blind_nil_exchange

    # The seats whose hand may change.
    involved: set[int] = set()
    if k > 0 and players == 4:
        for seat in blind:
            partner = seat ^ 2
            if partner not in blind:
                involved |= {seat, partner}
    elif k > 0:
        involved = set(blind)
    # The cards each nil bidder of an exchange passes: blind nils above; with nil
    # passing, a seen nil whose partner bid a number trades rules.nil_exchange cards.
    passing = dict.fromkeys(blind & involved, k) if players == 4 else {}
    if rules.nil_exchange:
        for seat in range(4):
            partner = seat ^ 2
            if bid_list[seat] == 0 and seat not in blind and bid_list[partner] > 0:
                passing[seat] = rules.nil_exchange
                involved |= {seat, partner}

    for seat in range(players):
        if seat not in involved and held_masks[seat] != dealt_masks[seat]:
            kinds = "nil or blind nil" if rules.nil_exchange else "blind nil"
            raise ValueError(
                f"seat {seat_name(seat, players)}: hand changed, "
                f"but no {kinds} exchange involves it"
            )

    if players == 4:
        for seat in sorted(passing):
            k = passing[seat]
            kind = "blind nil" if seat in blind else "nil"
            partner = seat ^ 2
            before = dealt_masks[seat] | dealt_masks[partner]
            after = held_masks[seat] | held_masks[partner]
            if before != after:
                raise ValueError(
                    f"seat {seat_name(seat, 4)}: the {kind} exchange with partner "
                    f"{seat_name(partner, 4)} changed the pair's cards"
                )
            for giver, taker in ((seat, partner), (partner, seat)):
                passed = dealt_masks[giver] & ~held_masks[giver]
                count = passed.bit_count()
                if count != k or passed & ~held_masks[taker]:
                    raise ValueError(
                        f"seat {seat_name(giver, 4)}: passed {count} cards to "
                        f"{seat_name(taker, 4)} in the {kind} exchange, must pass exactly {k}"
                    )
    else:
        dealt_anywhere = dealt_masks[0] | dealt_masks[1]
        for seat in sorted(involved):
            name = seat_name(seat, 2)
            discarded = dealt_masks[seat] & ~held_masks[seat]
            drawn = held_masks[seat] & ~dealt_masks[seat]
            if discarded.bit_count() > k:
                raise ValueError(
                    f"seat {name}: replaced {discarded.bit_count()} cards after blind nil, "
                    f"at most {k} allowed"
                )
            if drawn & dealt_anywhere:
                card = format_card(_lowest_card(drawn & dealt_anywhere), rules.deuces_high)
                raise ValueError(
                    f"seat {name}: drew {card} after blind nil, but it was not in the unused pile"
                )
