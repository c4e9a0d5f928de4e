"""Card ids, hand masks, and the two text notations of docs/rules.md ("Cards and notation").

Contract (docs/architecture.md "Data contracts"): ``id = suit * 13 + rank`` with suits C=0,
D=1, H=2, S=3 and ranks 2=0 ... A=12; with the jokers variant the Little Joker is id 52 and
the Big Joker id 53 (spade ranks 13 and 14), and the 2♦ (id 13) and 2♥ (id 26) leave the
deck. With the deuces high as well (``deuces_high``), the trumps above the ace take ids
52..55 in rank order: 2♠ 52, 2♦ 53 (a spade), Little Joker 54, Big Joker 55; the 2♣ and
2♥ leave the deck, and ids 13 and 39 stay empty. So an id is read with its pack: the
functions that parse or print take ``deuces_high`` (text names the natural cards: ``2D``
is the 2♦ whatever its id). A hand is a ``uint64``-sized ``int`` with bit ``id`` set for
each card held. Seats N=0, E=1, S=2, W=3.

Text: a card is rank ``2-9 T J Q K A`` (or ``10``) then suit ``S H D C`` (any case, or
``♠ ♥ ♦ ♣``); jokers are ``LJ`` and ``BJ``. A hand is either cards separated by spaces
(``AS KS 7H``) or PBN suit order ``S.H.D.C`` (``AK73.QJ2.T98.654``), with any jokers at
the head of the spade holding (``BJLJAK.QJ2.T98.6543``). Output uses PBN.

>>> parse_card("AS"), parse_card("10d"), parse_card("2♣"), parse_card("BJ")
(51, 21, 0, 53)
>>> parse_card("2D", deuces_high=True), format_card(53, deuces_high=True)
(53, '2D')
>>> format_hand(parse_hand("AK73.QJ2.T98.654"))
'AK73.QJ2.T98.654'
>>> format_hand(parse_hand("7h as ks"))
'AK.7..'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from spades_sim.errors import CardError, Misdeal

SUIT_LETTERS = "CDHS"
RANK_LETTERS = "23456789TJQKA"
SEAT_NAMES = ("N", "E", "S", "W")
SEAT_WORDS = ("North", "East", "South", "West")
SIDE_NAMES = ("N-S", "E-W")
"""The partnerships' display names: side 0 (N and S) and side 1 (E and W)."""
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
LITTLE_JOKER = 52
BIG_JOKER = 53
TWO_OF_CLUBS = 0
TWO_OF_DIAMONDS = 13
TWO_OF_HEARTS = 26
N_CARD_IDS = 56
# with the deuces high: the natural id of each trump above the ace, by its id in the pack
_DEUCES_NATURAL = {52: 39, 53: TWO_OF_DIAMONDS, 54: LITTLE_JOKER, 55: BIG_JOKER}
_DEUCES_PACK = {natural: card for card, natural in _DEUCES_NATURAL.items()}

_SUIT_ALIASES = {
    "C": CLUBS, "D": DIAMONDS, "H": HEARTS, "S": SPADES,
    "♣": CLUBS, "♦": DIAMONDS, "♥": HEARTS, "♠": SPADES,
    "♧": CLUBS, "♢": DIAMONDS, "♡": HEARTS, "♤": SPADES,
}  # fmt: skip
_RANK_ALIASES = {letter: rank for rank, letter in enumerate(RANK_LETTERS)} | {"10": 8}

STANDARD_DECK = (1 << 52) - 1
JOKER_DECK = (STANDARD_DECK & ~((1 << TWO_OF_DIAMONDS) | (1 << TWO_OF_HEARTS))) | (
    (1 << LITTLE_JOKER) | (1 << BIG_JOKER)
)
DEUCES_DECK = (
    STANDARD_DECK
    & ~((1 << TWO_OF_CLUBS) | (1 << TWO_OF_DIAMONDS) | (1 << TWO_OF_HEARTS) | (1 << 39))
) | (0b1111 << 52)
THREE_PLAYER_DECK = STANDARD_DECK & ~(1 << TWO_OF_CLUBS)
THREE_PLAYER_JOKER_DECK = STANDARD_DECK | (1 << LITTLE_JOKER) | (1 << BIG_JOKER)
SPADE_MASK = (((1 << 13) - 1) << 39) | (0b1111 << 52)
"""Every spade id: the 13 natural spades and the ids above the ace (52..55)."""

Hand = str | int | np.integer | Iterable[str | int]


def deck_mask(jokers: bool = False, deuces_high: bool = False, players: int = 4) -> int:
    """The deck as a mask: 52 cards, standard, or with jokers for the 2♦ and 2♥, or with
    jokers and the deuces high (no 2♣ or 2♥; the 2♠ and 2♦ at ids 52 and 53). With three
    players 51 cards (no 2♣), or with the jokers all 54.

    >>> [bin(deck_mask(*pack)).count("1") for pack in ((), (True,), (True, True))]
    [52, 52, 52]
    >>> bin(deck_mask(players=3)).count("1"), bin(deck_mask(True, players=3)).count("1")
    (51, 54)
    """
    if players == 3:
        return THREE_PLAYER_JOKER_DECK if jokers else THREE_PLAYER_DECK
    if deuces_high:
        return DEUCES_DECK
    return JOKER_DECK if jokers else STANDARD_DECK


def pack_name(jokers: bool = False, deuces_high: bool = False, players: int = 4) -> str:
    """The pack's name in messages: ``standard``, ``jokers`` or ``jokers-and-deuces``
    (with three players ``three-player`` or ``three-player jokers``)."""
    if players == 3:
        return "three-player jokers" if jokers else "three-player"
    return "jokers-and-deuces" if deuces_high else ("jokers" if jokers else "standard")


def pack_card(card: int, deuces_high: bool = False) -> int:
    """The id a natural card (as :func:`parse_card` reads it without ``deuces_high``) has
    in the pack: with the deuces high the 2♠, 2♦ and jokers move above the ace.

    >>> pack_card(39), pack_card(39, deuces_high=True), pack_card(53, deuces_high=True)
    (39, 52, 55)
    """
    return _DEUCES_PACK.get(card, card) if deuces_high else card


def natural_card(card: int, deuces_high: bool = False) -> int:
    """The inverse of :func:`pack_card`: a pack id as the natural card's id."""
    return _DEUCES_NATURAL.get(card, card) if deuces_high else card


def card_suit(card: int) -> int:
    """Suit of a card id (jokers are spades).

    >>> card_suit(51), card_suit(53), card_suit(0)
    (3, 3, 0)
    """
    return SPADES if card >= LITTLE_JOKER else card // 13


def parse_card(text: str | int, deuces_high: bool = False) -> int:
    """The id of one card written as text (``"AS"``, ``"10h"``, ``"Q♦"``, ``"BJ"``), in
    the pack with the deuces high when ``deuces_high``.

    An int is taken as an id (of that pack) and range-checked. Raises :class:`CardError`
    naming the text.

    >>> parse_card("TS"), parse_card("ts"), parse_card("T♠")
    (47, 47, 47)
    """
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        card = int(text)
        if not 0 <= card < N_CARD_IDS:
            raise CardError(f"unknown card id {card} (ids are 0..{N_CARD_IDS - 1})")
        return card
    if not isinstance(text, str):
        raise CardError(f"unknown card {text!r}")
    token = text.strip().upper()
    if token in ("BJ", "LJ"):
        return pack_card(BIG_JOKER if token == "BJ" else LITTLE_JOKER, deuces_high)
    if len(token) < 2:
        raise CardError(f"unknown card {text!r}")
    rank_text, suit_text = token[:-1], token[-1]
    rank = _RANK_ALIASES.get(rank_text)
    suit = _SUIT_ALIASES.get(suit_text)
    if rank is None or suit is None:
        raise CardError(f"unknown card {text!r} (write rank 2-9 T J Q K A, then suit S H D C)")
    return pack_card(suit * 13 + rank, deuces_high)


def format_card(card: int, deuces_high: bool = False) -> str:
    """The canonical text of a card id (of the pack with the deuces high when
    ``deuces_high``).

    >>> format_card(51), format_card(8), format_card(52), format_card(52, deuces_high=True)
    ('AS', 'TC', 'LJ', '2S')
    """
    card = natural_card(card, deuces_high)
    if card == BIG_JOKER:
        return "BJ"
    if card == LITTLE_JOKER:
        return "LJ"
    if not 0 <= card < 52:
        raise CardError(f"unknown card id {card} (ids are 0..{N_CARD_IDS - 1})")
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def cards_of(mask: int) -> list[int]:
    """The card ids in a mask, ascending.

    >>> cards_of(0b1011)
    [0, 1, 3]
    """
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The mask holding the given card ids (duplicates are not detected here)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _parse_pbn(text: str, deuces_high: bool) -> list[int]:
    holdings = text.strip().split(".")
    if len(holdings) != 4:
        raise CardError(f"PBN hand {text!r} needs four suits S.H.D.C separated by dots")
    cards: list[int] = []
    for holding, suit in zip(holdings, (SPADES, HEARTS, DIAMONDS, CLUBS), strict=True):
        rest = holding.strip().upper().replace("10", "T")
        if suit == SPADES:
            while rest[:2] in ("BJ", "LJ"):
                cards.append(
                    pack_card(BIG_JOKER if rest[:2] == "BJ" else LITTLE_JOKER, deuces_high)
                )
                rest = rest[2:]
        for letter in rest:
            rank = _RANK_ALIASES.get(letter)
            if rank is None:
                raise CardError(
                    f"unknown rank {letter!r} in {SUIT_LETTERS[suit]} holding of PBN hand {text!r}"
                )
            cards.append(pack_card(suit * 13 + rank, deuces_high))
    return cards


def parse_cards(hand: Hand, deuces_high: bool = False) -> list[int]:
    """The card ids of a hand in any accepted form, in the order given, duplicates kept
    (ids of the pack with the deuces high when ``deuces_high``).

    >>> parse_cards("AS KS 7H")
    [51, 50, 31]
    """
    if isinstance(hand, (int, np.integer)) and not isinstance(hand, bool):
        value = int(hand)
        if value < 0 or value >> N_CARD_IDS:
            raise CardError(f"hand mask {value:#x} has bits outside the {N_CARD_IDS} card ids")
        return cards_of(value)
    if isinstance(hand, str):
        if "." in hand:
            return _parse_pbn(hand, deuces_high)
        return [parse_card(token, deuces_high) for token in hand.replace(",", " ").split()]
    if isinstance(hand, bool) or not isinstance(hand, Iterable):
        raise CardError(f"a hand must be text, a mask or a list of cards, got {hand!r}")
    return [parse_card(card, deuces_high) for card in hand]


def parse_hand(hand: Hand, deuces_high: bool = False) -> int:
    """A hand in any accepted form as a mask. Raises :class:`CardError` on a duplicate.

    >>> parse_hand("AS KS") == (1 << 51) | (1 << 50)
    True
    """
    mask = 0
    for card in parse_cards(hand, deuces_high):
        if mask >> card & 1:
            raise CardError(f"card {format_card(card, deuces_high)} appears twice in hand {hand!r}")
        mask |= 1 << card
    return mask


def format_hand(mask: int, deuces_high: bool = False) -> str:
    """A hand mask in canonical PBN form ``S.H.D.C`` (jokers head the spades; with the
    deuces high the 2♠ and 2♦ are written where they are printed, in their suits).

    >>> format_hand(parse_hand("BJ AS 2C"))
    'BJA...2'
    >>> format_hand(parse_hand("BJ AS 2S 2D", deuces_high=True), deuces_high=True)
    'BJA2..2.'
    """
    mask = mask_of(natural_card(c, deuces_high) for c in cards_of(int(mask)))
    parts = []
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        letters = ""
        if suit == SPADES:
            letters += "BJ" if mask >> BIG_JOKER & 1 else ""
            letters += "LJ" if mask >> LITTLE_JOKER & 1 else ""
        for rank in range(12, -1, -1):
            if mask >> (suit * 13 + rank) & 1:
                letters += RANK_LETTERS[rank]
        parts.append(letters)
    return ".".join(parts)


def seat_index(seat: int | str, players: int = 4) -> int:
    """A seat given as an index (``2`` or ``"2"``) or by its name at this table: a letter
    or word at four seats (``"N"``, ``"east"``), ``P0``, ``P1`` ... with two or three
    players (one rule a table: the compass names are refused where the seats are not
    called so, instead of standing silently for another seat).

    >>> seat_index("W"), seat_index(2), seat_index("south"), seat_index("P1", players=2)
    (3, 2, 2, 1)
    >>> seat_index("0"), seat_index("2", players=3)
    (0, 2)
    """
    names = "N, E, S, W" if players == 4 else ", ".join(f"P{p}" for p in range(players))
    if isinstance(seat, str):
        key = seat.strip().upper()
        if key.isdigit():
            seat = int(key)
        elif players in (2, 3):
            # the names seat_name gives two and three players, and no others
            if key not in tuple(f"P{p}" for p in range(players)):
                raise ValueError(
                    f"unknown seat {seat!r}: a table of {players} calls its seats {names} "
                    f"(or 0..{players - 1})"
                )
            return int(key[1])
        else:
            for index, (letter, word) in enumerate(zip(SEAT_NAMES, SEAT_WORDS, strict=True)):
                if key in (letter, word.upper()):
                    return index
            raise ValueError(f"unknown seat {seat!r} (use {names} or 0..{players - 1})")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise ValueError(f"unknown seat {seat!r}")
    if not 0 <= int(seat) < players:
        named = "" if players == 4 else f" ({names})"
        raise ValueError(
            f"seat {seat} is out of range 0..{players - 1}{named} for {players} players"
        )
    return int(seat)


def seat_name(seat: int, players: int = 4) -> str:
    """The display name of a seat: N/E/S/W, or P0/P1 with two players (P0/P1/P2 with
    three)."""
    return SEAT_NAMES[seat] if players == 4 else f"P{seat}"


def side_name(side: int, players: int = 4) -> str:
    """The display name of a side: N-S/E-W, or the player (P0/P1) with two players.

    >>> side_name(1), side_name(1, players=2)
    ('E-W', 'P1')
    """
    return seat_name(side, players) if players in (2, 3) else SIDE_NAMES[side]


def check_deal(
    hands: Sequence[Hand], *, players: int = 4, jokers: bool = False, deuces_high: bool = False
) -> list[int]:
    """Parse and check a deal given from outside; return the hands as masks.

    Four players hold the whole deck, 13 cards each; three the whole three-player
    pack, 17 each (18 with the jokers); two players hold 13 each from the deck, the rest
    unused. Raises :class:`Misdeal` naming the card and the seat for a
    wrong number of hands, an unknown or duplicated card, a card not in this deck, a
    wrong card count, or a card missing from a four-player deal.

    >>> hands = check_deal(["AKQJT98765432...", ".AKQJT98765432..",
    ...                     "..AKQJT98765432.", "...AKQJT98765432"])
    >>> [bin(h).count("1") for h in hands]
    [13, 13, 13, 13]
    """
    if isinstance(hands, (str, bytes)) or len(hands) != players:
        count = "a string" if isinstance(hands, (str, bytes)) else f"{len(hands)} hands"
        raise Misdeal(f"a {players}-player deal needs {players} hands, got {count}")
    deck = deck_mask(jokers, deuces_high, players)
    size = (18 if jokers else 17) if players == 3 else 13
    masks: list[int] = []
    holder: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        name = seat_name(seat, players)
        try:
            cards = parse_cards(hand, deuces_high)
        except CardError as error:
            raise Misdeal(f"seat {name}: {error}") from None
        mask = 0
        for card in cards:
            if not deck >> card & 1:
                which = pack_name(jokers, deuces_high, players)
                what = f"id {card}" if deuces_high and card in (13, 39) else format_card(card)
                raise Misdeal(f"seat {name}: card {what} is not in the {which} deck")
            text = format_card(card, deuces_high)
            if mask >> card & 1:
                raise Misdeal(f"seat {name}: card {text} appears twice")
            if card in holder:
                first = seat_name(holder[card], players)
                raise Misdeal(f"seat {name}: card {text} is also held by seat {first}")
            holder[card] = seat
            mask |= 1 << card
        masks.append(mask)
    counts = [bin(mask).count("1") for mask in masks]
    short = ", ".join(
        f"{seat_name(s, players)} holds {n}" for s, n in enumerate(counts) if n != size
    )
    if players in (3, 4):
        missing = deck & ~mask_of(holder)
        if missing:
            raise Misdeal(
                f"card {format_card(cards_of(missing)[0], deuces_high)} is missing from the "
                f"deal ({short})"
            )
    if short:
        raise Misdeal(f"every seat must hold {size} cards: {short}")
    return masks
