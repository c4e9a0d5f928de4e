"""Validation of a hand given from outside: bids, tricks, blind nil seats, scores, bags.

Boundary code shared by the kernel-backed API (``spades_sim.hand``) and the reference
engine (``spades_sim.reference``): it parses and checks what a user passes and returns it
in canonical form (tuples of ints, a frozenset of blind nil seats), raising ``ValueError``
(or ``Misdeal``) with a message that names the argument and the culprit. It holds no
playing or scoring rule, so the two engines stay independent where it matters.

It also words what both engines report, so they say it the same way: the
:class:`~spades_sim.errors.IllegalPlay` messages (each engine decides on its own *why* a
play is illegal; :func:`illegal_play` and the ``*_text`` functions only phrase it), and
the check of a count given to the API (:func:`check_count`: hands, games, chunk sizes,
completions).

>>> check_bids((3, 0, 4, 13), 4)
(3, 0, 4, 13)
>>> check_bids((3, 14, 4, 1), 4)
Traceback (most recent call last):
...
ValueError: bids: seat E has 14, outside 0..13
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

from spades_sim.cards import Hand, check_deal, format_card, seat_index, seat_name, side_name
from spades_sim.errors import IllegalBid, IllegalPlay
from spades_sim.rules import Rules

TRICKS_PER_HAND = 13
MAX_BID = 13


SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
"""Suit names by suit number, as the messages say them."""


def is_int(value: Any) -> bool:
    """A whole number (Python or NumPy int), but not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_count(value: Any, name: str, low: int = 0, what: str = "") -> int:
    """``value`` as an int if it is a whole number >= ``low``; else ValueError naming the
    argument ``name`` (and saying ``what`` it counts).

    >>> check_count(5, "total")
    5
    >>> check_count(0, "n", 1, "the number of completions")
    Traceback (most recent call last):
    ...
    ValueError: n: the number of completions must be a whole number >= 1, got 0
    """
    if not is_int(value) or value < low:
        subject = f"{name}: {what}" if what else f"{name}:"
        raise ValueError(f"{subject} must be a whole number >= {low}, got {value!r}")
    return int(value)


# --------------------------------------------------------------------------------------
# How an illegal play is said (both engines)
# --------------------------------------------------------------------------------------


def illegal_play(trick_number: int, seat: int, players: int, what: str) -> IllegalPlay:
    """The IllegalPlay naming the trick (1-based) and the seat, then ``what`` went wrong.

    >>> str(illegal_play(3, 1, 4, not_held_text(51)))
    'trick 3, seat E: does not hold AS'
    """
    return IllegalPlay(f"trick {trick_number}, seat {seat_name(seat, players)}: {what}")


def play_count_error(count: int, players: int, tricks: int = TRICKS_PER_HAND) -> IllegalPlay:
    """The IllegalPlay for a hand's plays that are not ``tricks`` tricks (``Rules.tricks``)
    of ``players`` cards."""
    expected = tricks * players
    return IllegalPlay(
        f"expected {expected} plays ({tricks} tricks of {players} cards), got {count}"
    )


def not_held_text(card: int, deuces_high: bool = False) -> str:
    """A card the player does not hold."""
    return f"does not hold {format_card(card, deuces_high)}"


def played_twice_text(card: int, trick_number: int, deuces_high: bool = False) -> str:
    """A card already played, to trick ``trick_number`` (1-based)."""
    return f"{format_card(card, deuces_high)} was already played (trick {trick_number})"


def revoke_text(
    card: int, led: int, seat: int, players: int, example: int, deuces_high: bool = False
) -> str:
    """A card off the suit led while the seat holds that suit (``example``, one of them).

    >>> revoke_text(51, 2, 0, 4, 38)
    'AS does not follow hearts (N holds AH)'
    """
    who = seat_name(seat, players)
    return (
        f"{format_card(card, deuces_high)} does not follow {SUIT_WORDS[led]} ({who} holds "
        f"{format_card(example, deuces_high)})"
    )


def must_trump_text(
    card: int, led: int, seat: int, players: int, example: int, deuces_high: bool = False
) -> str:
    """A discard under ``must_trump`` by a seat that cannot follow ``led`` and holds a
    spade (``example``, one of them).

    >>> must_trump_text(5, 2, 3, 4, 40)
    'W must trump: holds spades and cannot follow hearts (7C played, W holds 3S)'
    """
    who = seat_name(seat, players)
    return (
        f"{who} must trump: holds spades and cannot follow {SUIT_WORDS[led]} "
        f"({format_card(card, deuces_high)} played, {who} holds "
        f"{format_card(example, deuces_high)})"
    )


def must_overtrump_text(
    card: int, top: int, seat: int, players: int, example: int, deuces_high: bool = False
) -> str:
    """A spade under ``must_overtrump`` no higher than ``top``, the trick's highest spade,
    by a seat that holds a higher one (``example``).

    >>> must_overtrump_text(40, 46, 1, 4, 49)
    'E must overtrump the 9S: holds a higher spade (3S played, E holds QS)'
    """
    who = seat_name(seat, players)
    return (
        f"{who} must overtrump the {format_card(top, deuces_high)}: holds a higher spade "
        f"({format_card(card, deuces_high)} played, {who} holds "
        f"{format_card(example, deuces_high)})"
    )


def two_clubs_text(card: int, deuces_high: bool = False) -> str:
    """A first lead other than the 2C under ``first_lead="two_of_clubs"``."""
    return f"must lead the 2C to the first trick, not {format_card(card, deuces_high)}"


def spades_not_broken_text(card: int, deuces_high: bool = False) -> str:
    """A spade led before spades are broken."""
    return f"cannot lead spades before they are broken ({format_card(card, deuces_high)})"


# --------------------------------------------------------------------------------------
# How bids that break the bid rule are said (both engines)
# --------------------------------------------------------------------------------------


def illegal_bid(what: str) -> IllegalBid:
    """The IllegalBid for recorded bids that break the bid rule: ``what`` is wrong.

    >>> str(illegal_bid(not_spades_text(1, 4, 3, 5, "mirror")))  # doctest: +ELLIPSIS
    "bids: seat E bid 3 but holds 5 spades; under bid_rule 'mirror' each seat bids ..."
    """
    return IllegalBid(f"bids: {what}")


def not_spades_text(seat: int, players: int, bid: int, spades: int, rule: str) -> str:
    """A bid that is not the spades the seat holds, where the bid rule ``rule`` (``mirror``
    or ``whiz``) wants them."""
    who = seat_name(seat, players)
    wanted = "nil or exactly its spades" if rule == "whiz" else "exactly its spades (nil with none)"
    return (
        f"seat {who} bid {bid} but holds {spades} spades; under bid_rule {rule!r} each seat "
        f"bids {wanted}"
    )


def below_min_bid_text(seat: int, players: int, bid: int, least: int) -> str:
    """A number bid below ``min_number_bid``."""
    return (
        f"seat {seat_name(seat, players)} bid {bid}; a number bid is at least {least} "
        "(min_number_bid), 0 being nil"
    )


def below_side_min_text(side: int, bids: Sequence[int], least: int, nil_exempt: bool) -> str:
    """A partnership whose bids stay below ``min_side_bid`` (and, with the nil exemption,
    hold no nil)."""
    unless = ", unless one of them bids nil" if nil_exempt else ""
    return (
        f"side {side_name(side, 4)} bid {bids[side]} and {bids[side + 2]}; a side bids at "
        f"least {least} between its partners (min_side_bid){unless}"
    )


def suicide_pair_text(side: int, bids: Sequence[int]) -> str:
    """A partnership whose bids are not one nil and one bid of 4 or more under suicide."""
    return (
        f"side {side_name(side, 4)} bid {bids[side]} and {bids[side + 2]}; under bid_rule "
        "'suicide' one partner bids nil and the other at least 4"
    )


def pack_spades_text(total: int, pack: int, players: int, rule: str) -> str:
    """Bids that cannot all be the spades held: they add up to ``total``, and the pack
    holds ``pack`` spades (all of them held with four players)."""
    if rule == "whiz":
        return (
            f"under bid_rule {rule!r} a number bid is the spades held, so the bids add up to "
            f"at most the pack's {pack} spades, not {total}"
        )
    if players == 4:
        return (
            f"under bid_rule {rule!r} the bids are the spades held, so they add up to the "
            f"pack's {pack} spades, not {total}"
        )
    return (
        f"under bid_rule {rule!r} the bids are the spades held, so they add up to at most "
        f"the pack's {pack} spades, not {total}"
    )


def per_seat_ints(name: str, values: Any, players: int, high: int) -> tuple[int, ...]:
    """``values`` as a tuple of ``players`` ints in 0..high; raise ValueError naming ``name``."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name}: expected {players} numbers (one per seat), got {values!r}")
    values = list(values)
    if len(values) != players:
        raise ValueError(f"{name}: expected {players} entries (one per seat), got {len(values)}")
    out = []
    for seat, value in enumerate(values):
        who = seat_name(seat, players)
        if not is_int(value):
            raise ValueError(f"{name}: seat {who} has {value!r}, not a whole number")
        if not 0 <= int(value) <= high:
            raise ValueError(f"{name}: seat {who} has {int(value)}, outside 0..{high}")
        out.append(int(value))
    return tuple(out)


def per_side_ints(name: str, values: Any, sides: int = 2) -> tuple[int, ...]:
    """``values`` as ints, one per side (``sides`` of them: 2, or 4 in cutthroat); None is
    all zeros."""
    if values is None:
        return (0,) * sides
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name}: expected {sides} numbers (one per side), got {values!r}")
    values = list(values)
    if len(values) != sides or not all(is_int(value) for value in values):
        raise ValueError(f"{name}: expected {sides} whole numbers (one per side), got {values!r}")
    return tuple(int(value) for value in values)


def check_bids(bids: Any, players: int, high: int = MAX_BID) -> tuple[int, ...]:
    """The bids, one per seat, each 0..``high`` (the tricks of a hand, ``Rules.tricks``)."""
    return per_seat_ints("bids", bids, players, high)


def check_tricks(tricks: Any, players: int, total: int = TRICKS_PER_HAND) -> tuple[int, ...]:
    """The tricks won, one per seat, summing to ``total`` (``Rules.tricks``)."""
    counts = per_seat_ints("tricks", tricks, players, total)
    if sum(counts) != total:
        raise ValueError(f"tricks: must sum to {total}, got {sum(counts)} ({counts})")
    return counts


def check_blind_nil_seats(
    blind_nil: Iterable[int | str], bids: tuple[int, ...], rules: Rules
) -> frozenset[int]:
    """The blind nil seats as a set; each in range, allowed by the rules and bidding 0."""
    if isinstance(blind_nil, (int, str)):
        blind_nil = (blind_nil,)
    seats = set()
    for given in blind_nil:
        try:
            seat = seat_index(given, rules.players)
        except ValueError as error:
            raise ValueError(f"blind_nil: {error}") from None
        who = seat_name(seat, rules.players)
        if not rules.blind_nil:
            raise ValueError(f"blind_nil: seat {who} bid blind nil but the rules forbid it")
        if bids[seat] != 0:
            raise ValueError(f"blind_nil: seat {who} bid {bids[seat]}, but a blind nil bid is 0")
        seats.add(seat)
    return frozenset(seats)


def check_blind_nil_deficit(
    blind: frozenset[int], scores_before: tuple[int, ...], rules: Rules
) -> None:
    """Refuse blind nil by a side not behind by ``blind_nil_min_deficit`` points or more
    (behind the leading other side: in cutthroat the best of the three others)."""
    need = rules.blind_nil_min_deficit
    if need <= 0:
        return
    for seat in sorted(blind):
        side = rules.side_of(seat)
        others = [score for s, score in enumerate(scores_before) if s != side]
        behind = max(others) - scores_before[side]
        if behind < need:
            standing = (
                f"is behind by {behind} points"
                if behind > 0
                else "is level"
                if behind == 0
                else f"is ahead by {-behind} points"
            )
            raise ValueError(
                f"blind_nil: seat {seat_name(seat, rules.players)} may not bid blind nil: "
                f"side {rules.side_name(side)} {standing}, it must be behind by "
                f"at least {need} (blind_nil_min_deficit)"
            )


def check_bags_before(bags_before: Any, rules: Rules, name: str = "bags_before") -> tuple[int, ...]:
    """The bags each side carries into a hand (argument ``name``), one per side: none
    negative, and below ``bag_limit`` while the bag penalty is on (docs/rules.md,
    "Sandbagging"); a side is named as the tables name it (``N-S``, ``P1``).

    >>> check_bags_before((3, -1), Rules(), "bags")
    Traceback (most recent call last):
    ...
    ValueError: bags: E-W has -1 bags, a negative count
    """
    bags = per_side_ints(name, bags_before, rules.sides)
    for side, count in enumerate(bags):
        who = rules.side_name(side)
        if count < 0:
            raise ValueError(f"{name}: {who} has {count} bags, a negative count")
        if rules.bag_penalty > 0 and count >= rules.bag_limit:
            raise ValueError(
                f"{name}: {who} carries {count} bags; with a bag penalty the bags carried in "
                f"must be below bag_limit {rules.bag_limit}"
            )
    return bags


def check_rules(rules: Any) -> Rules:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules: expected a Rules, got {type(rules).__name__}")
    return rules


def prepare_hand(
    hands: Sequence[Hand],
    dealer: int | str,
    bids: Sequence[int],
    rules: Rules,
    blind_nil: Iterable[int | str],
    scores_before: Sequence[int] | None,
    bags_before: Sequence[int] | None,
) -> tuple[list[int], int, tuple[int, ...], frozenset[int], tuple[int, ...], tuple[int, ...]]:
    """Validate the input of a hand to play; return it in canonical form."""
    rules = check_rules(rules)
    masks = check_deal(
        hands, players=rules.players, jokers=rules.jokers, deuces_high=rules.deuces_high
    )
    try:
        dealer_seat = seat_index(dealer, rules.players)
    except ValueError as error:
        raise ValueError(f"dealer: {error}") from None
    bid_list, blind, scores, bags = prepare_bids(bids, rules, blind_nil, scores_before, bags_before)
    return masks, dealer_seat, bid_list, blind, scores, bags


def prepare_bids(
    bids: Sequence[int],
    rules: Rules,
    blind_nil: Iterable[int | str],
    scores_before: Sequence[int] | None,
    bags_before: Sequence[int] | None,
) -> tuple[tuple[int, ...], frozenset[int], tuple[int, ...], tuple[int, ...]]:
    """Validate the bids, blind nil seats, scores and bags of a hand (in that order of
    checks); return (bids, blind nil seats, scores before, bags before).

    >>> prepare_bids((3, 0, 4, 0), Rules(), ("E",), (0, 0), (0, 0))[1]
    frozenset({1})
    """
    bid_list = check_bids(bids, rules.players, rules.tricks)
    scores = per_side_ints("scores_before", scores_before, rules.sides)
    bags = check_bags_before(bags_before, rules)
    blind = check_blind_nil_seats(blind_nil, bid_list, rules)
    check_blind_nil_deficit(blind, scores, rules)
    return bid_list, blind, scores, bags
