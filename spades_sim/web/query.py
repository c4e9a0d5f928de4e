"""What the analyser page is asked: the query of an analysis, checked, and its permalink.

Contract
--------
:func:`parse_analysis` takes the page's query (a mapping of strings, as a URL carries
them: ``hand=AKQ.J52.T84.9632&seat=S&dealer=W&bids=N4,E3&score=420-380&bags=7-2&
rules=standard``) and returns an :class:`Analysis` (frozen) or raises
:class:`~spades_sim.errors.SpadesError` with one line naming what is wrong: a hand that
is not 13 distinct cards, an unknown seat or preset, bids by the wrong seats or out of
turn, a bid the rules forbid, a score or bag count out of range, ``n`` above
:data:`MAX_N`, an over-long query. :meth:`Analysis.permalink` is the query that opens the
same analysis again (canonical: ``parse_analysis(a.query()) == a``).

Scores and bags are by side, N-S first, as everywhere in the package. The page analyses
four-player partnership tables with the standard 52-card pack (:data:`PRESETS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from spades_sim.cards import SEAT_NAMES, SEAT_WORDS, format_card, format_hand, parse_cards
from spades_sim.errors import SpadesError
from spades_sim.rules import BidRule, Rules

__all__ = [
    "DEFAULT_N",
    "MAX_N",
    "MAX_QUERY",
    "PRESETS",
    "Analysis",
    "bid_text",
    "parse_analysis",
    "parse_bid",
]

DEFAULT_N = 2000
"""Completions an analysis plays unless the query says ``n``."""
MAX_N = 20_000
"""The most completions one request may ask for (a page must answer in seconds)."""
MAX_QUERY = 2000
"""The longest query string accepted, in characters, every value together."""
BLIND = -1
"""A bid of blind nil, as :attr:`Analysis.bids` holds it (nil is 0)."""
PRESETS = tuple(
    name
    for name, fields in Rules.PRESETS.items()
    if Rules.preset(name).players == 4
    and Rules.preset(name).partnerships
    and not Rules.preset(name).jokers
    and Rules.preset(name).bid_rule is BidRule.FREE
    and not fields.get("min_side_bid")
)
"""The rule presets the page offers: four players in partnerships, the plain pack."""
KNOWN_KEYS = frozenset({"hand", "seat", "dealer", "bids", "score", "bags", "rules", "n", "dd"})


def bid_text(bid: int) -> str:
    """A bid as the page writes it: ``blind nil``, ``nil`` or the number."""
    return "blind nil" if bid == BLIND else "nil" if bid == 0 else str(bid)


def parse_bid(text: str, rules: Rules, label: str = "") -> int:
    """A bid as typed (``nil``, ``blind``, ``bnil``, ``0``, ``4``) to an int: nil 0, blind
    nil :data:`BLIND`; refused when the rules forbid it (one line naming ``label``, the
    bid as the user wrote it, seat included)."""
    key = text.strip().lower().replace(" ", "")
    text = label or text
    if key in ("nil", "0", "n"):
        return 0
    if key in ("blind", "blindnil", "bnil", "b", "bn"):
        if not rules.blind_nil:
            raise SpadesError(f"bid {text!r}: these rules do not allow blind nil")
        return BLIND
    if not key.isdigit():
        raise SpadesError(f"bid {text!r}: expected nil, blind nil or a number 1..{rules.tricks}")
    bid = int(key)
    if not 1 <= bid <= rules.tricks:
        raise SpadesError(f"bid {text!r}: a number bid is 1..{rules.tricks}")
    if bid < rules.min_number_bid:
        raise SpadesError(f"bid {text!r}: these rules ask at least {rules.min_number_bid}")
    return bid


@dataclass(frozen=True)
class Analysis:
    """One analysis the page runs: the hand at ``seat``, the ``dealer``, the ``bids`` made
    before the seat's turn (seat index, bid; nil 0, blind nil :data:`BLIND`), in the order
    they were made, ``scores`` and ``bags`` by side (N-S first), the rule preset, ``n``
    completions and whether to solve completions against perfect defence (``dd``)."""

    hand: int
    seat: int
    dealer: int
    bids: tuple[tuple[int, int], ...] = ()
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    preset: str = "standard"
    n: int = DEFAULT_N
    dd: bool = False

    @property
    def rules(self) -> Rules:
        """The rule set of :attr:`preset`."""
        return Rules.preset(self.preset)

    @property
    def hand_text(self) -> str:
        """The hand in PBN order (``S.H.D.C``)."""
        return format_hand(self.hand)

    def bids_by_seat(self) -> dict[int | str, int | str]:
        """The earlier bids as ``advise`` takes them: seat name to a number, ``"nil"`` or
        ``"blind nil"``."""
        return {SEAT_NAMES[s]: (b if b > 0 else bid_text(b)) for s, b in self.bids}

    def query(self) -> dict[str, str]:
        """The query that opens this analysis again (defaults left out)."""
        q = {
            "hand": self.hand_text,
            "seat": SEAT_NAMES[self.seat],
            "dealer": SEAT_NAMES[self.dealer],
        }
        if self.bids:
            q["bids"] = ",".join(
                SEAT_NAMES[s] + ("blind" if b == BLIND else "nil" if b == 0 else str(b))
                for s, b in self.bids
            )
        q["score"] = f"{self.scores[0]}-{self.scores[1]}"
        q["bags"] = f"{self.bags[0]}-{self.bags[1]}"
        q["rules"] = self.preset
        if self.n != DEFAULT_N:
            q["n"] = str(self.n)
        if self.dd:
            q["dd"] = "1"
        return q

    def permalink(self) -> str:
        """The page's address for this analysis, from the root (``/?hand=...``)."""
        return "/?" + urlencode(self.query(), safe=".,-")


def _seat(value: str, what: str) -> int:
    key = value.strip().upper()
    for index, (letter, word) in enumerate(zip(SEAT_NAMES, SEAT_WORDS, strict=True)):
        if key in (letter, word.upper()):
            return index
    raise SpadesError(f"{what}: expected N, E, S or W, got {value!r}")


def _pair(value: str, what: str, low: int, high: int, example: str) -> tuple[int, int]:
    """``420-380`` (also ``-120--40``, ``420,380``, ``420/380``) as two ints in range; a
    mistake is said with ``example``, a value of the kind."""
    text = value.strip().replace(" ", "")
    for sep in (",", "/", ":"):
        if sep in text:
            first, _, second = text.partition(sep)
            break
    else:
        cut = text.find("-", 1)  # a leading minus belongs to the first number
        if cut < 0:
            raise SpadesError(f"{what}: expected N-S then E-W, as {example}, got {value!r}")
        first, second = text[:cut], text[cut + 1 :]
    out = []
    for part in (first, second):
        digits = part[1:] if part.startswith("-") else part
        if not digits.isdigit() or len(digits) > 6:
            raise SpadesError(f"{what}: expected N-S then E-W, as {example}, got {value!r}")
        number = int(part)
        if not low <= number <= high:
            raise SpadesError(f"{what}: {number} is out of range {low}..{high}")
        out.append(number)
    return out[0], out[1]


def parse_analysis(query: Mapping[str, str]) -> Analysis:
    """The :class:`Analysis` a query asks for, or one :class:`SpadesError` line."""
    if sum(len(k) + len(str(v)) + 2 for k, v in query.items()) > MAX_QUERY:
        raise SpadesError(f"the request is longer than {MAX_QUERY} characters")
    unknown = sorted(set(query) - KNOWN_KEYS)
    if unknown:
        raise SpadesError(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})")
    preset = query.get("rules", "standard").strip() or "standard"
    if preset not in PRESETS:
        raise SpadesError(
            f"rules: {preset!r} is not a preset this page offers ({', '.join(PRESETS)})"
        )
    rules = Rules.preset(preset)
    text = query.get("hand", "").strip()
    if not text:
        raise SpadesError("hand: pick 13 cards (or type them: AKQ.J52.T84.9632 or AS KS 7H ...)")
    try:
        cards = parse_cards(text)
    except ValueError as error:
        raise SpadesError(f"hand: {error}") from None
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise SpadesError(f"hand: {format_card(card)} is given twice")
        if card >= 52:
            raise SpadesError(f"hand: {format_card(card)} is not in the pack of these rules")
        seen.add(card)
    if len(cards) != rules.tricks:
        raise SpadesError(f"hand: a hand holds {rules.tricks} cards, got {len(cards)}")
    hand = sum(1 << c for c in cards)
    seat = _seat(query.get("seat", "S"), "seat")
    dealer = _seat(query.get("dealer", "E"), "dealer")
    before = [(dealer + k) % 4 for k in range(1, (seat - dealer) % 4 or 4)]
    bids: list[tuple[int, int]] = []
    raw = query.get("bids", "").strip()
    items = [item.strip() for item in raw.split(",") if item.strip()] if raw else []
    for k, item in enumerate(items):
        who = _seat(item[0], f"bid {item!r}")
        if k >= len(before) or who != before[k]:
            where = f"bid {item!r}: with {SEAT_NAMES[dealer]} dealing"
            if not before:
                raise SpadesError(f"{where}, {SEAT_NAMES[seat]} bids first: no bid comes before")
            order = ", ".join(SEAT_NAMES[s] for s in before)
            raise SpadesError(
                f"{where}, the bids before {SEAT_NAMES[seat]} are by {order}, in that order"
            )
        bid = parse_bid(item[1:].lstrip("=:"), rules, item)
        bids.append((who, bid))
    if len(bids) != len(before):
        # the table is read as the seat sees it: every bid before its turn is known
        order = ", ".join(SEAT_NAMES[s] for s in before)
        raise SpadesError(
            f"bids: with {SEAT_NAMES[dealer]} dealing, {order} bid before {SEAT_NAMES[seat]}: "
            f"give their bids, as {','.join(SEAT_NAMES[s] + '3' for s in before)}"
        )
    target = rules.target
    # a side at or below the loss threshold (mercy) has lost: the game is over
    low = -10 * target if rules.loss_threshold is None else rules.loss_threshold + 1
    scores = _pair(query.get("score", "0-0"), "score", low, target - 1, "420-380")
    limit = rules.bag_limit - 1 if rules.bag_penalty else 13 * rules.max_hands
    bags = _pair(query.get("bags", "0-0"), "bags", 0, limit, "7-2")
    n_text = query.get("n", str(DEFAULT_N)).strip()
    if not n_text.isdigit() or not 1 <= int(n_text) <= MAX_N:
        raise SpadesError(f"n: the completions to play, 1..{MAX_N:,}, got {n_text!r}")
    dd = query.get("dd", "").strip().lower() in ("1", "on", "true", "yes")
    return Analysis(hand, seat, dealer, tuple(bids), scores, bags, preset, int(n_text), dd)
