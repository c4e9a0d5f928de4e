"""What one seat may know, turned into the OpenSpiel states its ``MCTSBot`` searches.

Contract. Everything here is pure Python (and the package's Numba kernels); nothing
imports ``pyspiel``, so the tests run where OpenSpiel is not installed.

* :class:`SeatView` is the table as one seat sees it: its own cards, the dealer and the
  first seat to act, the four bids, and every card played so far in order with the seat
  that played it. Nothing else of the true deal goes in, so nothing built from a view can
  depend on another seat's hidden cards.
  :func:`seat_view` cuts a true table (every seat's cards) down to that.
* :func:`table_info` lowers a view to the kernels' ``info`` array (``InfoSlot``): the
  current trick, tricks won, the voids each seat revealed by not following suit, spades
  broken. Both sides of the outside rung decide from it: ``heuristic`` reads it directly,
  the MCTS side samples its worlds from it.
* :func:`sample_world` deals the cards the seat has not seen to the other seats
  (``rollout.sample_world_nb``, the sampler ``pimc`` uses): every other seat gets exactly as
  many cards as it still holds, none already played and none of a suit it showed out of.
  It is a function of the view and the key only.
* :func:`openspiel_actions` is the action sequence that builds the determinized state in
  OpenSpiel 2.0.2's ``spades``: 52 chance actions dealing card ``i`` of the sequence to
  player ``i % 4``, the four bids (action ``52 + bid``, nil = 52), then the plays.
  OpenSpiel's player 0 bids and leads first, so our seat ``s`` is OpenSpiel's player
  ``(s - first_seat) % 4``. :func:`decode_actions` reads such a sequence back (the tests
  check the round trip without OpenSpiel; the rung's worker checks the card names
  against ``pyspiel`` itself).
* :func:`vote` picks the action most worlds chose, ties to the lowest action.

Four players with partnerships only (OpenSpiel's spades is that game).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spades_sim._nb import rollout
from spades_sim._nb.enums import N_INFO, InfoSlot
from spades_sim.cards import card_suit, format_card, parse_card
from spades_sim.reference import trick_winner
from spades_sim.rules import Rules

PLAYERS = 4
CARDS = 52
BID_ACTION_BASE = 52  # OpenSpiel's spades: actions 52..65 are the bids Nil, 1 .. 13
OPENSPIEL_SUITS = "CDHS"  # pyspiel's action_to_string: 0 -> "C2", 1 -> "C3", ..., 51 -> "SA"
OPENSPIEL_RANKS = "23456789TJQKA"


def openspiel_card(card: int) -> int:
    """OpenSpiel's action for our card id, by the card's name (our ``"2C"``, theirs "C2")."""
    name = format_card(card)
    return OPENSPIEL_SUITS.index(name[-1]) * 13 + OPENSPIEL_RANKS.index(name[:-1])


def card_of_openspiel(action: int) -> int:
    """Our card id for an OpenSpiel card action (the inverse of :func:`openspiel_card`)."""
    suit, rank = divmod(action, 13)
    return int(parse_card(OPENSPIEL_RANKS[rank] + OPENSPIEL_SUITS[suit]))


def openspiel_name(action: int) -> str:
    """What ``state.action_to_string`` says for a card action (the worker checks it)."""
    suit, rank = divmod(action, 13)
    return OPENSPIEL_SUITS[suit] + OPENSPIEL_RANKS[rank]


def openspiel_player(seat: int, first_seat: int) -> int:
    return (seat - first_seat) % PLAYERS


@dataclass(frozen=True)
class SeatView:
    """The table as ``seat`` sees it: all a decision of that seat may read."""

    seat: int
    hand: int  # the cards the seat holds now (mask)
    dealer: int
    first_seat: int  # bids and leads first: the seat left of the dealer
    bids: tuple[int, ...]  # by seat; 0 is nil
    plays: tuple[tuple[int, int], ...]  # (seat, card) in play order, this trick included


def seat_view(
    seat: int,
    hands: Sequence[int],
    dealer: int,
    bids: Sequence[int],
    plays: Sequence[tuple[int, int]],
) -> SeatView:
    """The view of ``seat`` of a true table (every seat's cards now in ``hands``): the
    one place the truth is cut down to what the seat may know, its own cards and the
    public bids and plays."""
    return SeatView(
        seat, int(hands[seat]), dealer, (dealer + 1) % PLAYERS, tuple(bids), tuple(plays)
    )


@dataclass(frozen=True)
class Table:
    """The public state a view implies (derived, never given)."""

    trick_no: int
    leader: int
    trick: tuple[int, ...]
    played: int
    voids: tuple[int, ...]  # bit s: the seat showed out of suit s
    tricks_won: tuple[int, ...]
    broken: bool


def public_table(view: SeatView, rules: Rules) -> Table:
    """Walk the plays: who led each trick, who won it, which suits each seat showed out of."""
    leader = view.first_seat
    trick: list[int] = []
    played = 0
    voids = [0] * PLAYERS
    won = [0] * PLAYERS
    broken = False
    trick_no = 0
    for seat, card in view.plays:
        if seat != (leader + len(trick)) % PLAYERS:
            raise ValueError(f"play {format_card(card)}: seat {seat} is not on turn")
        if trick and card_suit(card) != card_suit(trick[0]):
            voids[seat] |= 1 << card_suit(trick[0])
        broken = broken or card_suit(card) == 3
        played |= 1 << card
        trick.append(card)
        if len(trick) == PLAYERS:
            leader = (leader + trick_winner(trick, rules)) % PLAYERS
            won[leader] += 1
            trick = []
            trick_no += 1
    return Table(trick_no, leader, tuple(trick), played, tuple(voids), tuple(won), broken)


def table_info(view: SeatView, rules: Rules) -> np.ndarray:
    """The kernels' ``info`` array for the view (scores and bags 0: one hand, as OpenSpiel)."""
    table = public_table(view, rules)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[InfoSlot.players] = PLAYERS
    info[InfoSlot.dealer] = view.dealer
    info[InfoSlot.trick] = table.trick_no
    info[InfoSlot.leader] = table.leader
    info[InfoSlot.n_in_trick] = len(table.trick)
    info[InfoSlot.trick_cards : InfoSlot.trick_cards + 4] = -1
    for j, card in enumerate(table.trick):
        info[InfoSlot.trick_cards + j] = card
    info[InfoSlot.played] = table.played
    info[InfoSlot.broken] = int(table.broken)
    if table.trick:
        win = trick_winner(list(table.trick), rules)
        info[InfoSlot.led_suit] = card_suit(table.trick[0])
        info[InfoSlot.winning_card] = table.trick[win]
        info[InfoSlot.winning_seat] = (table.leader + win) % PLAYERS
    else:
        info[InfoSlot.led_suit] = info[InfoSlot.winning_card] = info[InfoSlot.winning_seat] = -1
    for s in range(PLAYERS):
        info[InfoSlot.bids + s] = view.bids[s]
        info[InfoSlot.nil + s] = int(view.bids[s] == 0)
        info[InfoSlot.tricks_won + s] = table.tricks_won[s]
        info[InfoSlot.voids + s] = table.voids[s]
    info[InfoSlot.first_to_act] = view.first_seat
    info[InfoSlot.sides] = 2
    return info


def sample_world(view: SeatView, rules: Rules, key: int, world: int) -> tuple[int, ...]:
    """The four hands now of one world consistent with the view (``world`` picks the
    sampler's stream for ``key``)."""
    out = np.zeros(PLAYERS, dtype=np.uint64)
    info = table_info(view, rules)
    ok = rollout.sample_world_nb(
        np.uint64(view.hand), view.seat, info, rules.lower(), np.uint64(key), world, out
    )
    if not ok:  # never for a view of a real hand
        raise ValueError("no deal is consistent with this view")
    return tuple(int(h) for h in out)


def openspiel_actions(view: SeatView, world: Sequence[int]) -> list[int]:
    """The OpenSpiel action sequence of the determinized state: the world's hands plus
    the cards each seat played are its dealt cards; then the bids and the plays."""
    dealt = [int(world[s]) for s in range(PLAYERS)]
    for seat, card in view.plays:
        dealt[seat] |= 1 << card
    by_player = [[] for _ in range(PLAYERS)]  # type: list[list[int]]
    for seat in range(PLAYERS):
        cards = [c for c in range(CARDS) if dealt[seat] >> c & 1]
        if len(cards) != 13:
            raise ValueError(f"seat {seat} would be dealt {len(cards)} cards")
        by_player[openspiel_player(seat, view.first_seat)] = [openspiel_card(c) for c in cards]
    actions = [by_player[i % PLAYERS][i // PLAYERS] for i in range(CARDS)]
    actions += [BID_ACTION_BASE + view.bids[(view.first_seat + p) % PLAYERS] for p in range(4)]
    actions += [openspiel_card(card) for _, card in view.plays]
    return actions


def decode_actions(
    actions: Sequence[int], first_seat: int, rules: Rules
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The dealt hands and bids by our seat and the plays (seat, card) of an OpenSpiel
    spades action sequence, reading it the way OpenSpiel applies it."""
    dealt = [0] * PLAYERS
    for i, action in enumerate(actions[:CARDS]):
        seat = (first_seat + i % PLAYERS) % PLAYERS
        dealt[seat] |= 1 << card_of_openspiel(action)
    bids = [0] * PLAYERS
    for p, action in enumerate(actions[CARDS : CARDS + PLAYERS]):
        bids[(first_seat + p) % PLAYERS] = action - BID_ACTION_BASE
    plays: list[tuple[int, int]] = []
    leader, trick = first_seat, []  # type: int, list[int]
    for action in actions[CARDS + PLAYERS :]:
        card = card_of_openspiel(action)
        plays.append(((leader + len(trick)) % PLAYERS, card))
        trick.append(card)
        if len(trick) == PLAYERS:
            leader = (leader + trick_winner(trick, rules)) % PLAYERS
            trick = []
    return tuple(dealt), tuple(bids), tuple(plays)


def vote(actions: Sequence[int]) -> int:
    """The action most worlds chose; a tie goes to the lowest action (a fixed order)."""
    counts = Counter(actions)
    return min(counts, key=lambda a: (-counts[a], a))
