"""A Spades position for the double-dummy solver: who holds what, whose turn, the trick.

Contract
--------
:class:`Position` is a frozen dataclass validated when it is built: every field is
parsed to canonical form (hands to masks, seats and cards to ids) and any position that
could not arise under the rules is refused with one :class:`~spades_sim.errors.SpadesError`
line naming what is wrong: card counts that do not fit the trick, a card held twice or
outside the pack, a trick card still in a hand, a trick card that was not legal. The
rules come from ``docs/rules.md`` ("Play"); ``spades_broken`` is the state before the
current trick's first card (a spade in the trick breaks them for the next ones).

:meth:`Position.start` gives the opening position of a deal, :meth:`Position.play` the
position after one more card (checked), :meth:`Position.after` the position after the
first ``k`` cards of a recorded hand (:class:`HandRecord`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spades_sim.cards import (
    SPADE_MASK,
    TWO_OF_CLUBS,
    Hand,
    card_suit,
    check_deal,
    deck_mask,
    format_card,
    format_hand,
    pack_name,
    parse_card,
    parse_hand,
    seat_index,
    seat_name,
)
from spades_sim.errors import CardError, IllegalPlay, SpadesError
from spades_sim.rules import FirstLead, Rules, SpadesLead

__all__ = ["HandRecord", "Position"]

SUIT_CARDS = (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, SPADE_MASK)
"""The cards of each suit as masks (spades with every id above the ace)."""
NON_SPADES = SUIT_CARDS[0] | SUIT_CARDS[1] | SUIT_CARDS[2]


def _winner(cards: Sequence[int], leader: int, players: int) -> int:
    """The seat winning a trick so far: its highest spade, else its highest card of the
    suit led (spades have the highest ids)."""
    led = card_suit(cards[0])
    best, seat = cards[0], leader
    for j, card in enumerate(cards[1:], start=1):
        if card > best and (card_suit(card) == led or card_suit(card) == 3):
            best, seat = card, (leader + j) % players
    return seat


@dataclass(frozen=True)
class Position:
    """A position of the play: ``hands`` by seat (N, E, S, W; or P0, P1), each in any
    notation or a mask; ``to_play`` a seat name or index; ``trick`` the cards already
    played to the current trick in order, the first by its leader."""

    hands: tuple[int, ...]
    to_play: int
    trick: tuple[int, ...] = ()
    spades_broken: bool = False
    first_trick: bool = False
    rules: Rules = field(default_factory=Rules)

    def __init__(
        self,
        hands: Sequence[Hand],
        to_play: int | str,
        trick: Sequence[int | str] = (),
        spades_broken: bool = False,
        first_trick: bool = False,
        rules: Rules | None = None,
    ) -> None:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise SpadesError(f"rules: expected a Rules, got {type(rules).__name__}")
        players = rules.players
        for name, flag in (("spades_broken", spades_broken), ("first_trick", first_trick)):
            if not isinstance(flag, bool):
                raise SpadesError(f"{name}: expected True or False, got {flag!r}")
        if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
            raise SpadesError(f"hands: expected one hand per seat, got {hands!r}")
        if len(hands) != players:
            raise SpadesError(f"hands: {players} players need {players} hands, got {len(hands)}")
        masks = []
        for seat, hand in enumerate(hands):
            try:
                masks.append(parse_hand(hand, rules.deuces_high))
            except CardError as error:
                raise SpadesError(f"seat {seat_name(seat, players)}: {error}") from None
        try:
            seat = seat_index(to_play, players)
        except ValueError as error:
            raise SpadesError(f"to_play: {error}") from None
        if isinstance(trick, str):
            trick = trick.replace(",", " ").split()
        try:
            cards = tuple(parse_card(c, rules.deuces_high) for c in trick)
        except CardError as error:
            raise SpadesError(f"trick: {error}") from None
        object.__setattr__(self, "hands", tuple(masks))
        object.__setattr__(self, "to_play", seat)
        object.__setattr__(self, "trick", cards)
        object.__setattr__(self, "spades_broken", spades_broken)
        object.__setattr__(self, "first_trick", first_trick)
        object.__setattr__(self, "rules", rules)
        self._check()

    # --- validation -------------------------------------------------------------------

    def _check(self) -> None:
        players = self.rules.players
        deck = deck_mask(self.rules.jokers, self.rules.deuces_high, players)
        pack = pack_name(self.rules.jokers, self.rules.deuces_high)
        holder: dict[int, int] = {}
        for seat, mask in enumerate(self.hands):
            for card in _cards(mask):
                if not deck >> card & 1:
                    raise SpadesError(
                        f"seat {seat_name(seat, players)}: card {self.card_name(card)} is not in "
                        f"the {pack} pack"
                    )
                if card in holder:
                    raise SpadesError(
                        f"card {self.card_name(card)} is held by both seat "
                        f"{seat_name(holder[card], players)} and seat {seat_name(seat, players)}"
                    )
                holder[card] = seat
        if len(self.trick) >= players:
            raise SpadesError(
                f"trick: holds {len(self.trick)} cards, a trick of {players} players at most "
                f"{players - 1} before it is complete"
            )
        seen: set[int] = set()
        for card in self.trick:
            name = self.card_name(card)
            if not deck >> card & 1:
                raise SpadesError(f"trick: card {name} is not in the {pack} pack")
            if card in seen:
                raise SpadesError(f"trick: card {name} is played twice")
            if card in holder:
                raise SpadesError(
                    f"trick: card {name} is still in the hand of seat "
                    f"{seat_name(holder[card], players)}"
                )
            seen.add(card)
        n = bin(self.hands[self.to_play]).count("1")
        if n == 0:
            raise SpadesError(f"seat {seat_name(self.to_play, players)} to play holds no card")
        leader = self.leader
        for j in range(players):
            seat = (leader + j) % players
            want = n - 1 if j < len(self.trick) else n
            have = bin(self.hands[seat]).count("1")
            if have != want:
                played = " (it played to this trick)" if j < len(self.trick) else ""
                raise SpadesError(
                    f"seat {seat_name(seat, players)} holds {have} cards, expected {want}"
                    f"{played}: every seat holds as many cards as the seat to play, less one "
                    f"for each seat that has played to the trick"
                )
        if self.first_trick and self.spades_broken:
            raise SpadesError("spades cannot be broken before the first trick")
        self._check_trick(leader)

    def _check_trick(self, leader: int) -> None:
        """Every card of the trick was legal when played."""
        players = self.rules.players
        if self.first_trick and self.rules.first_lead is FirstLead.TWO_OF_CLUBS:
            holds = self.hands[leader] >> TWO_OF_CLUBS & 1
            if (self.trick and self.trick[0] != TWO_OF_CLUBS) or (not self.trick and not holds):
                raise SpadesError(
                    f"first trick under first_lead two_of_clubs: seat "
                    f"{seat_name(leader, players)} leads it, so it must lead the 2C"
                )
        if not self.trick:
            return
        lead = self.trick[0]
        held = self.hands[leader] | (1 << lead)
        may_lead_spades = not self.first_trick and (
            self.spades_broken or self.rules.spades_lead is SpadesLead.ANY_TIME
        )
        if card_suit(lead) == 3 and not may_lead_spades and held & ~SPADE_MASK:
            raise SpadesError(
                f"trick: seat {seat_name(leader, players)} led {self.card_name(lead)} before "
                f"spades were broken, holding other suits"
            )
        led = card_suit(lead)
        for j, card in enumerate(self.trick[1:], start=1):
            seat = (leader + j) % players
            if card_suit(card) != led and self.hands[seat] & SUIT_CARDS[led]:
                raise SpadesError(
                    f"trick: seat {seat_name(seat, players)} played {self.card_name(card)} on a "
                    f"{'CDHS'[led]} lead while still holding {'CDHS'[led]}"
                )
            held = self.hands[seat] | (1 << card)
            if not _following(held, self.trick[:j], self.rules) >> card & 1:
                rule = "must_overtrump" if card_suit(card) == 3 else "must_trump"
                raise SpadesError(
                    f"trick: seat {seat_name(seat, players)} played {self.card_name(card)}, "
                    f"which {rule} does not allow with the cards it held"
                )

    # --- derived state ------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def leader(self) -> int:
        """The seat that led (or leads) the current trick."""
        return (self.to_play - len(self.trick)) % self.rules.players

    @property
    def tricks_left(self) -> int:
        """Tricks still to be completed, the current one included."""
        return bin(self.hands[self.to_play]).count("1")

    @property
    def broken_now(self) -> bool:
        """Whether a spade has been played, the current trick included."""
        return self.spades_broken or any(card_suit(c) == 3 for c in self.trick)

    def legal_cards(self) -> list[int]:
        """The cards the seat to play may play, highest id first."""
        hand = self.hands[self.to_play]
        if self.trick:
            legal = _following(hand, self.trick, self.rules)
        elif (
            self.first_trick
            and self.rules.first_lead is FirstLead.TWO_OF_CLUBS
            and hand >> TWO_OF_CLUBS & 1
        ):
            legal = 1 << TWO_OF_CLUBS
        elif not self.first_trick and (
            self.spades_broken or self.rules.spades_lead is SpadesLead.ANY_TIME
        ):
            legal = hand
        else:
            legal = (hand & NON_SPADES) or hand
        return sorted(_cards(legal), reverse=True)

    def card_name(self, card: int) -> str:
        """A card id of this position's pack as the package prints it (``"2D"``)."""
        return format_card(card, self.rules.deuces_high)

    def play(self, card: int | str) -> Position:
        """The position after the seat to play plays ``card``; :class:`IllegalPlay` when
        it may not."""
        players = self.rules.players
        c = parse_card(card, self.rules.deuces_high)
        name = seat_name(self.to_play, players)
        if not self.hands[self.to_play] >> c & 1:
            raise IllegalPlay(f"seat {name} does not hold {self.card_name(c)}")
        if c not in self.legal_cards():
            raise IllegalPlay(
                f"seat {name} may not play {self.card_name(c)} here (legal: "
                f"{' '.join(self.card_name(x) for x in self.legal_cards())})"
            )
        hands = list(self.hands)
        hands[self.to_play] &= ~(1 << c)
        trick = (*self.trick, c)
        if len(trick) < players:
            return Position(
                hands, (self.to_play + 1) % players, trick, self.spades_broken,
                self.first_trick, self.rules,
            )  # fmt: skip
        winner = _winner(trick, self.leader, players)
        broken = self.spades_broken or any(card_suit(x) == 3 for x in trick)
        if not any(hands):
            raise SpadesError("the hand ends with this card: no position follows it")
        return Position(hands, winner, (), broken, False, self.rules)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(
        cls, hands: Sequence[Hand], dealer: int | str, rules: Rules | None = None
    ) -> Position:
        """The opening position of a deal: 13 cards a seat (17 or 18 with three players),
        checked like any deal given from outside, the seat left of ``dealer`` on lead (two
        players: the one who did not draw first), or the holder of the 2C under
        ``first_lead`` two_of_clubs."""
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise SpadesError(f"rules: expected a Rules, got {type(rules).__name__}")
        players = rules.players
        masks = check_deal(
            hands, players=players, jokers=rules.jokers, deuces_high=rules.deuces_high
        )
        d = seat_index(dealer, players)
        leader = (d + 1) % players  # the dealer's left; with two players the other
        if rules.first_lead is FirstLead.TWO_OF_CLUBS:
            leader = next(s for s in range(players) if masks[s] & 1)
        return cls(masks, leader, (), False, True, rules)

    @classmethod
    def after(cls, record: HandRecord | Mapping[str, Any], plays: int) -> Position:
        """The position after the first ``plays`` cards of a recorded hand (each checked)."""
        if isinstance(record, Mapping):
            record = HandRecord(**record)
        if not isinstance(record, HandRecord):
            raise SpadesError(f"record: expected a HandRecord, got {type(record).__name__}")
        total = len(record.plays)
        if isinstance(plays, bool) or not isinstance(plays, int) or not 0 <= plays < total:
            raise SpadesError(f"plays: must be 0..{total - 1} (cards before the position)")
        pos = cls.start(record.hands, record.dealer, record.rules)
        for k, card in enumerate(record.plays[:plays]):
            try:
                pos = pos.play(card)
            except SpadesError as error:
                raise IllegalPlay(f"play {k + 1} of the record: {error}") from None
        return pos

    def __str__(self) -> str:
        players = self.rules.players
        hands = "  ".join(
            f"{seat_name(s, players)} {format_hand(h, self.rules.deuces_high)}"
            for s, h in enumerate(self.hands)
        )
        trick = " ".join(self.card_name(c) for c in self.trick) or "-"
        return f"{hands}; {seat_name(self.to_play, players)} to play; trick {trick}"


@dataclass(frozen=True)
class HandRecord:
    """A hand as recorded: the cards held when play began (by seat), the dealer (two
    players: who drew first), the cards in play order, and the rules."""

    hands: tuple[int, ...]
    dealer: int
    plays: tuple[int, ...]
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise SpadesError(f"rules: expected a Rules, got {type(self.rules).__name__}")
        players = self.rules.players
        object.__setattr__(
            self,
            "hands",
            tuple(
                check_deal(
                    self.hands,
                    players=players,
                    jokers=self.rules.jokers,
                    deuces_high=self.rules.deuces_high,
                )
            ),
        )
        object.__setattr__(self, "dealer", seat_index(self.dealer, players))
        try:
            object.__setattr__(
                self,
                "plays",
                tuple(parse_card(c, self.rules.deuces_high) for c in self.plays),
            )
        except CardError as error:
            raise SpadesError(f"plays: {error}") from None


def _following(hand: int, trick: Sequence[int], rules: Rules) -> int:
    """The cards of ``hand`` that may follow to ``trick`` (docs/rules.md "Following" and
    "The trump rules")."""
    follow = hand & SUIT_CARDS[card_suit(trick[0])]
    legal = follow or hand
    if not follow and rules.must_trump and hand & SPADE_MASK:
        legal = hand & SPADE_MASK
    trick_spades = [c for c in trick if card_suit(c) == 3]
    if rules.must_overtrump and trick_spades:
        over = sum(1 << c for c in _cards(legal & SPADE_MASK) if c > max(trick_spades))
        legal = over or legal
    return legal


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
