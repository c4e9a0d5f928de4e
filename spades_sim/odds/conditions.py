"""What is known of a deal: the hand held, cards known elsewhere, ranges of features.

Contract
--------
:meth:`Conditions.build` checks and lowers the arguments of
:func:`~spades_sim.odds.nil_odds` that describe the deal (the hand, the seat, the
partner's and other seats' known cards, feature ranges of other seats) to masks and
per-seat ``lo``/``hi`` arrays the sampling kernels take. A bad or conflicting card is a
:class:`~spades_sim.errors.Misdeal`; a bad seat, feature or range, or a range no hand can
meet given the known cards (computed exactly, feature by feature), a ``ValueError``.
:func:`parse_range` reads one range (``"4..13"``, ``"2"``, ``"..1"``, a pair).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spades_sim._nb.bitboard import SUIT_MASKS
from spades_sim._nb.features import (
    ACE_MASK,
    FEATURES,
    HIGH_SPADE_MASK,
    JACK_MASK,
    KING_MASK,
    N_FEATURES,
    QUEEN_MASK,
)
from spades_sim.cards import (
    Hand,
    cards_of,
    deck_mask,
    format_card,
    format_hand,
    parse_cards,
    seat_index,
    seat_name,
)
from spades_sim.errors import Misdeal, SpadesError
from spades_sim.rules import Rules

__all__ = ["FEATURES", "NO_LIMIT", "Conditions", "Range", "no_partner", "parse_range", "seat_of"]

NO_LIMIT = 99  # the kernels' "no upper bound" for a feature

Range = tuple[int, int]


def parse_range(text: str | int | Sequence[int], what: str = "range") -> Range:
    """A feature range from ``"LO..HI"``, ``"N"``, ``"LO.."``, ``"..HI"``, an int or a pair.

    >>> parse_range("4..13"), parse_range("2"), parse_range("..1"), parse_range((0, 3))
    ((4, 13), (2, 2), (0, 1), (0, 3))
    """
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        return int(text), int(text)
    if isinstance(text, str):
        lo_text, dots, hi_text = text.strip().partition("..")
        try:
            lo = int(lo_text) if lo_text.strip() else 0
            hi = int(hi_text) if hi_text.strip() else NO_LIMIT
            if not dots:
                hi = lo
        except ValueError:
            raise ValueError(f"{what}: expected LO..HI, N, LO.. or ..HI, got {text!r}") from None
    elif isinstance(text, Sequence) and len(text) == 2 and not isinstance(text, (str, bytes)):
        lo, hi = (int(v) for v in text)
    else:
        raise ValueError(f"{what}: expected LO..HI or a (lo, hi) pair, got {text!r}")
    if lo < 0 or hi < lo:
        raise ValueError(f"{what}: need 0 <= LO <= HI, got {lo}..{hi}")
    return lo, min(hi, NO_LIMIT)


def seat_of(value: int | str, players: int, what: str) -> int:
    try:
        return seat_index(value, players)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


def _cards(hand: Hand, deck: int, what: str, deuces_high: bool) -> int:
    try:
        cards = parse_cards(hand, deuces_high)
    except SpadesError as error:
        raise Misdeal(f"{what}: {error}") from None
    mask = 0
    for card in cards:
        if not deck >> card & 1:
            raise Misdeal(f"{what}: card {format_card(card, deuces_high)} is not in this deck")
        if mask >> card & 1:
            raise Misdeal(f"{what}: card {format_card(card, deuces_high)} appears twice")
        mask |= 1 << card
    return mask


def _feature_bounds(known: int, need: int, pool: int) -> dict[str, Range]:
    """The least and most each feature can be for a seat holding ``known`` plus ``need``
    cards of ``pool`` (exact, feature by feature; masks as the kernels' features)."""
    point_masks = (
        (int(ACE_MASK), 4),
        (int(KING_MASK), 3),
        (int(QUEEN_MASK), 2),
        (int(JACK_MASK), 1),
    )

    def count_range(subset: int) -> Range:
        have, avail = (known & subset).bit_count(), (pool & subset).bit_count()
        rest = pool.bit_count() - avail
        return have + max(0, need - rest), have + min(need, avail)

    def points(card: int) -> int:
        return sum(weight for mask, weight in point_masks if mask >> card & 1)

    values = sorted(points(c) for c in cards_of(pool))
    base_points = sum(points(c) for c in cards_of(known))
    bounds = {
        "spades": count_range(int(SUIT_MASKS[3])),
        "high_spades": count_range(int(HIGH_SPADE_MASK)),
        "aces": count_range(int(ACE_MASK)),
        "kings": count_range(int(KING_MASK)),
        "queens": count_range(int(QUEEN_MASK)),
        "points": (
            base_points + sum(values[:need]),
            base_points + sum(values[len(values) - need :]),
        ),
    }
    suits = [int(m) for m in SUIT_MASKS]
    have = [(known & m).bit_count() for m in suits]
    avail = [(pool & m).bit_count() for m in suits]
    shortest: list[int] = []
    voids: list[int] = []
    for x in itertools.product(*(range(a + 1) for a in avail[:3])):
        last = need - sum(x)
        if 0 <= last <= avail[3]:
            lengths = [h + k for h, k in zip(have, (*x, last), strict=True)]
            shortest.append(min(lengths))
            voids.append(lengths.count(0))
    bounds["shortest_suit"] = (min(shortest), max(shortest))
    bounds["voids"] = (min(voids), max(voids))
    return bounds


def _holding_text(mask: int, deuces_high: bool, size: int = 13) -> str:
    """A whole hand (``size`` cards) in PBN, a few known cards as a list (``AS KH``)."""
    if mask.bit_count() == size:
        return format_hand(mask, deuces_high)
    cards = sorted(cards_of(mask), reverse=True)
    return " ".join(format_card(c, deuces_high) for c in cards)


def _range_text(r: Range) -> str:
    lo, hi = r
    return str(lo) if lo == hi else f"{lo}.." + ("" if hi >= NO_LIMIT else str(hi))


def no_partner(rules: Rules) -> str:
    """Why a seat of ``rules`` has no partner, and that other seats' cards are given
    another way (the caller names that way: ``given=`` or ``--given``).

    >>> no_partner(Rules.preset("cutthroat"))
    'three-player cutthroat has no partners: give the cards another seat is known to hold'
    """
    table = (
        "two-player Spades"
        if rules.players == 2
        else "three-player cutthroat"
        if rules.players == 3
        else "cutthroat (partnerships=false)"
    )
    return f"{table} has no partners: give the cards another seat is known to hold"


@dataclass(frozen=True)
class Conditions:
    """What is known of a deal: the hand held at ``hero``, cards known to be held by
    other seats, and feature ranges (``lo``/``hi``, shape (4, 8), ``FEATURES`` order) for
    other seats. Built and checked by :meth:`build`; ``pool`` is the mask of the cards
    nobody is known to hold, ``need[s]`` how many of them seat ``s`` receives.

    >>> c = Conditions.build("Q73.J52.T84.9632", seat="S", partner="AKJ.AK.AKQ.AKQJT")
    >>> c.need, c.text
    ((0, 13, 0, 13), 'N holds AKJ.AK.AKQ.AKQJT')
    """

    players: int
    hero: int
    known: tuple[int, int, int, int]
    need: tuple[int, int, int, int]
    pool: int
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    text: str = ""

    @property
    def hand(self) -> int:
        return self.known[self.hero]

    @property
    def constrained(self) -> bool:
        """Whether some seat has a feature range (completions are then drawn by rejection)."""
        return bool((self.lo > 0).any() or (self.hi < NO_LIMIT).any())

    @classmethod
    def build(
        cls,
        hand: Hand,
        *,
        seat: int | str | None = None,
        rules: Rules | None = None,
        partner: Hand | None = None,
        given: Mapping[int | str, Hand] | None = None,
        require: Mapping[int | str, Mapping[str, Any]] | None = None,
    ) -> Conditions:
        """Check and lower the arguments of :func:`nil_odds` that describe the deal.

        Raises :class:`~spades_sim.errors.Misdeal` for a bad or conflicting card and
        ``ValueError`` for a bad seat, feature or range, or a range no hand can meet.
        """
        rules = Rules() if rules is None else rules
        players = rules.players
        hero = seat_of(("S" if players == 4 else 0) if seat is None else seat, players, "seat")
        deck = deck_mask(rules.jokers, rules.deuces_high, players)
        size = rules.tricks  # cards a hand: 13, or 17 or 18 with three players
        deuces = rules.deuces_high
        known = [0, 0, 0, 0]
        owner: dict[int, str] = {}

        def place(where: int, mask: int, what: str) -> None:
            name = seat_name(where, players)
            for card in cards_of(mask):
                if card in owner:
                    held = owner[card]
                    name = format_card(card, deuces)
                    raise Misdeal(f"{what}: card {name} is already held by {held}")
                owner[card] = name
            known[where] |= mask
            count = known[where].bit_count()
            if count > size:
                raise Misdeal(f"{what}: {name} would hold {count} cards ({size} at most)")

        mine = _cards(hand, deck, "hand", deuces)
        if mine.bit_count() != size:
            raise Misdeal(f"hand: a hand holds {size} cards, got {mine.bit_count()}")
        place(hero, mine, "hand")
        if partner is not None:
            if players != 4 or not rules.partnerships:
                raise ValueError(f"partner: {no_partner(rules)} with given={{seat: cards}}")
            place(hero ^ 2, _cards(partner, deck, "partner", deuces), "partner")
        for seat_key, cards in (given or {}).items():
            where = seat_of(seat_key, players, "given")
            name = seat_name(where, players)
            if where == hero:
                raise ValueError(f"given: {name} is the seat whose hand is given")
            if partner is not None and where == hero ^ 2:
                raise ValueError(f"given: {name}'s cards are already given by partner=")
            place(where, _cards(cards, deck, f"given {name}", deuces), f"given {name}")
        need = [size - known[s].bit_count() if s < players else 0 for s in range(4)]
        pool = deck & ~sum(known)
        lo = np.zeros((4, N_FEATURES), dtype=np.int64)
        hi = np.full((4, N_FEATURES), NO_LIMIT, dtype=np.int64)
        words = [
            f"{seat_name(s, players)} holds {_holding_text(known[s], deuces, size)}"
            for s in range(players)
            if s != hero and known[s]
        ]
        for seat_key, ranges in (require or {}).items():
            where = seat_of(seat_key, players, "require")
            name = seat_name(where, players)
            if where == hero:
                raise ValueError(f"require: {name} holds the given hand; its features are fixed")
            if not isinstance(ranges, Mapping):
                raise ValueError(f"require: {name}: expected {{feature: range}}, got {ranges!r}")
            bounds = _feature_bounds(known[where], need[where], pool)
            for feature, value in ranges.items():
                if feature not in FEATURES:
                    raise ValueError(
                        f"require: unknown feature {feature!r} for {name} "
                        f"(features: {', '.join(FEATURES)})"
                    )
                f = FEATURES.index(feature)
                a, b = parse_range(value, f"require {name} {feature}")
                least, most = bounds[feature]
                if b < least or a > most:
                    raise ValueError(
                        f"require: {name} {feature} {_range_text((a, b))} is impossible: with "
                        f"the known cards {name} holds {least}..{most} {feature.replace('_', ' ')}"
                    )
                lo[where, f] = max(lo[where, f], a)
                hi[where, f] = min(hi[where, f], b)
                words.append(f"{name} {feature} {_range_text((a, b))}")
        return cls(
            players=players,
            hero=hero,
            known=(known[0], known[1], known[2], known[3]),
            need=(need[0], need[1], need[2], need[3]),
            pool=pool,
            lo=lo,
            hi=hi,
            text=", ".join(words),
        )
