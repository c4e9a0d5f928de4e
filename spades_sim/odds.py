"""Nil odds of a given hand: how often it makes nil, and whether nil beats a number bid.

:func:`nil_odds` holds ``hand`` at ``seat`` and deals the other cards at random, many
times. Each completion is played once with the seat bidding nil (or blind nil) and once
per candidate number bid, everyone else bidding and playing by the policies, so the
answer to "should I bid nil?" comes from the same deals (paired, as duplicate bridge).

Conditioning is exact. Cards known to be held (``partner=``, ``given=``) are placed
first; the others are a uniformly random arrangement of the rest, so a completion
follows the conditional distribution given those cards. Ranges on other seats' hand
features (``require=``) are met by rejection: a completion outside them is drawn again
from its own stream, so the kept ones follow the truncated distribution. A range no hand
can meet is refused at once; a combination that no completion met in a pilot of
millions is refused with the count tried; a rare one says how many were drawn.

Reproducible: completion ``i`` draws its cards, its dealer and its play from streams
keyed by ``(seed, i)`` alone, so the answer is the same for any thread count.

Two players: the opponent's hand is a uniformly random 13 of the unseen cards (the draw
policy is not replayed), and blind nil discards and redraws from the 26 unused cards.

>>> odds = nil_odds("Q73.J52.T84.9632", n=2_000, seed=1)
>>> 0.0 < odds.probability < 1.0 and odds.ci_low <= odds.probability <= odds.ci_high
True
>>> odds.n, odds.seat
(2000, 'S')
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spades_sim import kernels
from spades_sim._nb import layout as L
from spades_sim._nb import odds as nb
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
from spades_sim._nb.lockstep import LANES
from spades_sim._nb.policies import B_NIL_THRESHOLD
from spades_sim.analysis.stats import Estimate, mean_ci_of_moments, proportion_ci
from spades_sim.cards import (
    SEAT_NAMES,
    SEAT_WORDS,
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
from spades_sim.run import _policy_text, _rules_text
from spades_sim.simulate import PolicyArg, RunSpec, SidePolicies, _params, numba_threads

__all__ = ["FEATURES", "Conditions", "NilOdds", "deal_completions", "nil_odds", "parse_range"]

CHUNK = 1 << 16  # completions per kernel call: bounded memory at any n
PILOT_FIRST = 1 << 12  # pilot tries before the first estimate of the acceptance rate
PILOT_WANTED = 50  # acceptances that make the rate estimate good enough
PILOT_MAX = 1 << 23  # pilot draws before conditions met by none are refused (about 1 s)
NO_LIMIT = 99  # the kernels' "no upper bound" for a feature
RANDOM_NIL_RATE = 1  # the random bidder's nil_rate slot (builtin_bid_nb)
FAIL_EXPONENT = 40.0  # attempts per completion: 40 / rate, so a miss has odds e**-40

Range = tuple[int, int]


@dataclass(frozen=True)
class NilOdds:
    """The answer of :func:`nil_odds`. ``probability`` (with its Wilson 95% interval
    ``ci_low`` .. ``ci_high``) is the share of ``n`` completions in which the nil (or blind
    nil) was made; the ``*_score`` estimates are the side's mean score per hand.

    ``number_scores`` maps each candidate number bid to the side's score when the seat
    bids it instead, on the same completions; ``best_number_bid`` is the best of them,
    ``number_score`` its score and ``nil_gain`` the paired difference nil minus that bid
    (positive: bid nil). ``fatal_cards`` gives, for the failed nils, the share of each
    card with which the nil bidder took its first trick, most frequent first.
    ``tried`` counts the completions drawn, rejected ones included.
    """

    hand: str
    seat: str
    blind: bool
    n: int
    made: int
    probability: float
    ci_low: float
    ci_high: float
    nil_score: Estimate
    number_scores: Mapping[int, Estimate]
    best_number_bid: int | None
    number_score: Estimate | None
    nil_gain: Estimate | None
    fatal_cards: Mapping[str, float]
    tried: int
    seed: int
    rules: Rules = field(repr=False)
    bidding: str = "count"
    play: str = "heuristic"
    conditions: str = ""

    @property
    def acceptance(self) -> float:
        """The share of drawn completions that met the ``require`` ranges."""
        return self.n / self.tried if self.tried else math.nan

    def __str__(self) -> str:
        kind = "blind nil" if self.blind else "nil"
        pct = _percent
        lines = [
            f"{SEAT_WORD.get(self.seat, self.seat)} holding {self.hand} makes {kind} "
            f"{pct(self.probability)} of the time [{pct(self.ci_low)}, {pct(self.ci_high)}], "
            f"over {self.n:,} random completions ({self.made:,} made; {self.bidding} bidding, "
            f"{self.play} play, {_rules_text(self.rules.to_dict())} rules; seed {self.seed})."
        ]
        if self.conditions:
            drawn = f" ({self.tried:,} drawn, {pct(self.acceptance)} kept)"
            lines.append(f"Given {self.conditions}{drawn if self.tried > self.n else ''}.")
        score = f"The side scores {_signed(self.nil_score)} a hand bidding {kind}"
        if self.best_number_bid is not None and self.number_score and self.nil_gain:
            verdict = (
                f"bid {kind}"
                if self.nil_gain.low > 0
                else f"bid {self.best_number_bid}"
                if self.nil_gain.high < 0
                else "too close to call"
            )
            score += (
                f", {_signed(self.number_score)} bidding {self.best_number_bid} (the best of "
                f"{', '.join(map(str, self.number_scores))}): {kind} gains "
                f"{_signed(self.nil_gain)} a hand, so {verdict}."
            )
        else:
            score += "."
        lines.append(score)
        if self.fatal_cards:
            top = list(self.fatal_cards.items())[:4]
            shares = ", ".join(f"{card} {pct(share)}" for card, share in top)
            lines.append(f"Failed nils took their first trick with {shares}.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (estimates as value/ci_low/ci_high/n)."""

        def est(e: Estimate | None) -> dict[str, float] | None:
            return None if e is None else {"value": e.value, "ci_low": e.low, "ci_high": e.high}

        return {
            "hand": self.hand,
            "seat": self.seat,
            "blind": self.blind,
            "n": self.n,
            "made": self.made,
            "probability": self.probability,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "nil_score": est(self.nil_score),
            "number_scores": {str(bid): est(e) for bid, e in self.number_scores.items()},
            "best_number_bid": self.best_number_bid,
            "number_score": est(self.number_score),
            "nil_gain": est(self.nil_gain),
            "fatal_cards": dict(self.fatal_cards),
            "tried": self.tried,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "bidding": self.bidding,
            "play": self.play,
            "conditions": self.conditions,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


SEAT_WORD = dict(zip(SEAT_NAMES, SEAT_WORDS, strict=True))  # two players: P0, P1 as they are


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _signed(e: Estimate) -> str:
    return f"{e.value:+.1f} [{e.low:+.1f}, {e.high:+.1f}]"


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


def _seat(value: int | str, players: int, what: str) -> int:
    try:
        return seat_index(value, players)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


def _cards(hand: Hand, deck: int, what: str) -> int:
    try:
        cards = parse_cards(hand)
    except SpadesError as error:
        raise Misdeal(f"{what}: {error}") from None
    mask = 0
    for card in cards:
        if not deck >> card & 1:
            raise Misdeal(f"{what}: card {format_card(card)} is not in this deck")
        if mask >> card & 1:
            raise Misdeal(f"{what}: card {format_card(card)} appears twice")
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


def _holding_text(mask: int) -> str:
    """A whole hand in PBN, a few known cards as a list (``AS KH``)."""
    if mask.bit_count() == 13:
        return format_hand(mask)
    return " ".join(format_card(c) for c in sorted(cards_of(mask), reverse=True))


def _range_text(r: Range) -> str:
    lo, hi = r
    return str(lo) if lo == hi else f"{lo}.." + ("" if hi >= NO_LIMIT else str(hi))


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
        hero = _seat(("S" if players == 4 else 0) if seat is None else seat, players, "seat")
        deck = deck_mask(rules.jokers)
        known = [0, 0, 0, 0]
        owner: dict[int, str] = {}

        def place(where: int, mask: int, what: str) -> None:
            name = seat_name(where, players)
            for card in cards_of(mask):
                if card in owner:
                    held = owner[card]
                    raise Misdeal(f"{what}: card {format_card(card)} is already held by {held}")
                owner[card] = name
            known[where] |= mask
            count = known[where].bit_count()
            if count > 13:
                raise Misdeal(f"{what}: {name} would hold {count} cards (13 at most)")

        mine = _cards(hand, deck, "hand")
        if mine.bit_count() != 13:
            raise Misdeal(f"hand: a hand holds 13 cards, got {mine.bit_count()}")
        place(hero, mine, "hand")
        if partner is not None:
            if players != 4:
                raise ValueError("partner: two-player Spades has no partner")
            place(hero ^ 2, _cards(partner, deck, "partner"), "partner")
        for seat_key, cards in (given or {}).items():
            where = _seat(seat_key, players, "given")
            name = seat_name(where, players)
            if where == hero:
                raise ValueError(f"given: {name} is the seat whose hand is given")
            if partner is not None and where == hero ^ 2:
                raise ValueError(f"given: {name}'s cards are already given by partner=")
            place(where, _cards(cards, deck, f"given {name}"), f"given {name}")
        need = [13 - known[s].bit_count() if s < players else 0 for s in range(4)]
        pool = deck & ~sum(known)
        lo = np.zeros((4, N_FEATURES), dtype=np.int64)
        hi = np.full((4, N_FEATURES), NO_LIMIT, dtype=np.int64)
        words = [
            f"{seat_name(s, players)} holds {_holding_text(known[s])}"
            for s in range(players)
            if s != hero and known[s]
        ]
        for seat_key, ranges in (require or {}).items():
            where = _seat(seat_key, players, "require")
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


class _Sampler:
    """Draws the completions of a :class:`Conditions` in chunks (after a pilot that sets
    the attempts allowed per completion when there are feature ranges)."""

    def __init__(self, conditions: Conditions, seed: int, n: int, max_tries: int) -> None:
        self.conditions = conditions
        self.seed = int(seed)
        self.known = np.array(conditions.known, dtype=np.uint64)
        self.pool = np.array(cards_of(conditions.pool), dtype=np.uint8)
        self.need = np.array(conditions.need, dtype=np.int64)
        self.attempts = 1
        if conditions.constrained:
            rate = self._pilot(max_tries)
            if n / rate > max_tries:
                raise ValueError(
                    f"require: about {n / rate:,.0f} completions would have to be drawn to keep "
                    f"{n:,} (1 in {1 / rate:,.0f} meets the conditions), more than "
                    f"max_tries={max_tries:,}"
                )
            self.attempts = min(max_tries, int(FAIL_EXPONENT / rate) + 100)

    def _draw(self, kind: int, start: int, count: int, attempts: int) -> tuple[Any, Any]:
        deals = np.empty((count, 4), dtype=np.uint64)
        tries = np.empty(count, dtype=np.int64)
        c = self.conditions
        kernels.run_blocks(
            nb.sample_deals_nb, -(-count // nb.BLOCK), self.seed, kind, start, count,
            self.known, self.pool, self.need, c.lo, c.hi, attempts, deals, tries,
        )  # fmt: skip
        return deals, tries

    def _pilot(self, max_tries: int) -> float:
        """The acceptance rate of the ranges, from draws of a stream of their own."""
        tried = accepted = 0
        batch = PILOT_FIRST
        most = min(max_tries, PILOT_MAX)
        while accepted < PILOT_WANTED and tried < most:
            batch = min(batch, most - tried)
            _, tries = self._draw(nb.KIND_ODDS_PILOT, tried, batch, 1)
            accepted += int((tries > 0).sum())
            tried += batch
            batch *= 8
        if accepted == 0:
            raise ValueError(
                f"require: no completion out of {tried:,} random ones met the conditions; "
                f"they cannot hold together, or hold less than once in {tried:,} deals"
            )
        return accepted / tried

    def sample(self, start: int, count: int) -> tuple[np.ndarray, int]:
        """Completions ``start .. start+count-1`` and the number of draws they took."""
        deals, tries = self._draw(nb.KIND_ODDS_DEAL, start, count, self.attempts)
        failed = np.flatnonzero(tries < 0)
        if failed.size:
            raise ValueError(
                f"require: completion {start + int(failed[0])} met the conditions in none of "
                f"{self.attempts:,} draws: they are too rare for this n"
            )
        return deals, int(tries.sum())


def deal_completions(
    hand: Hand,
    n: int,
    *,
    seed: int = 0,
    seat: int | str | None = None,
    rules: Rules | None = None,
    partner: Hand | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
    threads: int | None = None,
    max_tries: int = 200_000_000,
) -> np.ndarray:
    """``n`` random deals that complete what is known (as :func:`nil_odds` draws them):
    an (n, 4) array of hand masks by seat (two players: seats 2 and 3 empty).

    >>> from spades_sim.cards import parse_hand
    >>> deals = deal_completions("Q73.J52.T84.9632", 3, partner="AKJ.AK.AKQ.AKQJT")
    >>> deals.shape, {int(d) for d in deals[:, 0]} == {parse_hand("AKJ.AK.AKQ.AKQJT")}
    ((3, 4), True)
    """
    _check_count(n, max_tries)
    conditions = Conditions.build(
        hand, seat=seat, rules=rules, partner=partner, given=given, require=require
    )
    with numba_threads(threads):
        sampler = _Sampler(conditions, seed, n, max_tries)
        parts = [sampler.sample(start, min(CHUNK, n - start))[0] for start in range(0, n, CHUNK)]
    return np.concatenate(parts)


def _check_count(n: int, max_tries: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n: the number of completions must be a whole number >= 1, got {n!r}")
    if isinstance(max_tries, bool) or not isinstance(max_tries, int) or max_tries < n:
        raise ValueError(f"max_tries: must be a whole number >= n ({n}), got {max_tries!r}")


def _no_nil(params: np.ndarray) -> np.ndarray:
    """A bidding parameter vector with its nil option switched off (built-in bidders)."""
    out = params.copy()
    if int(out[0]) == L.BID_RANDOM:
        out[RANDOM_NIL_RATE] = 0.0
    else:  # count, pagat, partner-aware and monte-carlo share the nil threshold slot
        out[B_NIL_THRESHOLD] = -1e9
    return out


@dataclass
class _Played:
    """The outcome of one chunk of completions, one row per completion, a column per
    scenario (nil first, then each number bid)."""

    score: np.ndarray
    tricks: np.ndarray
    nil_made: np.ndarray
    first_won: np.ndarray
    dealers: np.ndarray
    held: np.ndarray | None = None
    moves: np.ndarray | None = None


def _play(
    spec: RunSpec,
    hero: int,
    deals: np.ndarray,
    start: int,
    bids: np.ndarray,
    kinds: np.ndarray,
    dealer: int,
    scalar: bool = False,
    record: bool = False,
) -> _Played:
    """Play completions ``start ..`` (``deals``) once per scenario (``bids``/``kinds``)."""
    rules = spec.rules
    count = deals.shape[0]
    dealers = np.empty(count, dtype=np.int64)
    nb.draw_dealers_nb(int(spec.seed), start, count, rules.players, dealer, dealers)
    names = {p.name for p in spec.play}
    mode = nb.PLAY_SCALAR
    if not (scalar or record) and len(names) == 1 and names <= {"random", "heuristic"}:
        mode = nb.PLAY_HEURISTIC_LOCKSTEP if "heuristic" in names else nb.PLAY_RANDOM_LOCKSTEP
    shape = (count, bids.shape[0])
    tasks = count * bids.shape[0]
    score = np.empty(tasks, dtype=np.int64)
    tricks = np.empty(tasks, dtype=np.int8)
    nil_made = np.empty(tasks, dtype=np.int8)
    first_won = np.empty(tasks, dtype=np.int64)
    errors = np.zeros(tasks, dtype=np.int64)
    held = np.zeros((tasks if record else 0, 4), dtype=np.uint64)
    moves = np.zeros((tasks if record else 0, 8 + 13 * rules.players), dtype=np.int64)
    kernels.run_blocks(
        nb.play_deals_nb, -(-tasks // LANES), rules.lower(), int(spec.seed), start, deals,
        dealers, hero, bids, kinds, _params(spec), mode, score, tricks, nil_made, first_won,
        errors, held, moves,
    )  # fmt: skip
    if errors.any():  # built-in policies never err; this is a bug, not a user mistake
        raise RuntimeError(f"nil_odds: a built-in policy erred on completion {start}")
    return _Played(
        score.reshape(shape),
        tricks.reshape(shape),
        nil_made.reshape(shape),
        first_won.reshape(shape),
        dealers,
        held.reshape(*shape, 4) if record else None,
        moves.reshape(*shape, moves.shape[1]) if record else None,
    )


def nil_odds(
    hand: Hand,
    *,
    seat: int | str | None = None,
    rules: Rules | None = None,
    bidding: SidePolicies = "count",
    play: SidePolicies = "heuristic",
    n: int = 100_000,
    seed: int = 0,
    partner: Hand | None = None,
    given: Mapping[int | str, Hand] | None = None,
    require: Mapping[int | str, Mapping[str, Any]] | None = None,
    blind: bool = False,
    number_bids: Sequence[int] | None = None,
    dealer: int | str | None = None,
    threads: int | None = None,
    max_tries: int = 200_000_000,
    draw: PolicyArg = "threshold",
) -> NilOdds:
    """How often ``hand`` held at ``seat`` (default South; two players: P0) makes nil.

    ``hand`` is text in either notation or a mask. The other cards are dealt at random
    ``n`` times, conditioned on ``partner`` (the partner's cards, four players), ``given``
    (cards known to be held by other seats: ``{"E": "AS KH"}``, a full or partial hand) and
    ``require`` (feature ranges of other seats: ``{"N": {"spades": (4, 13)}}`` or
    ``"4..13"``; features as the dataset's columns: ``FEATURES``). With ``blind`` the seat
    bids blind nil: the hand is as dealt, before the exchange of ``blind_nil_exchange``
    cards (or the two-player redraw), which the policies then make.

    Each completion is also played with the seat bidding each of ``number_bids``
    (default: the bidding policy's own number bid for the hand and one either side), for
    the paired comparison nil against the best of them. The dealer is drawn at random per
    completion unless ``dealer`` fixes it; the seats bid in turn from the dealer's left,
    so those after the nil bidder know of it. Only built-in policies run here.

    >>> odds = nil_odds("Q73.J52.T84.9632", n=1_000, seed=2, require={"N": {"spades": "4.."}})
    >>> odds.n, odds.tried > 1_000
    (1000, True)
    """
    _check_count(n, max_tries)
    spec = RunSpec.build(seed=seed, rules=rules, bidding=bidding, play=play, draw=draw)
    rules = spec.rules  # validated by RunSpec.build
    if not spec.builtin:
        raise ValueError("nil_odds runs built-in policies only (for user-written ones: simulate)")
    if blind and not rules.blind_nil:
        raise ValueError("blind: these rules do not allow blind nil (blind_nil = false)")
    if blind and rules.blind_nil_min_deficit > 0:
        raise ValueError(
            "blind: these rules allow blind nil only to a side behind by "
            f"{rules.blind_nil_min_deficit} points, and every completion starts at 0-0"
        )
    conditions = Conditions.build(
        hand, seat=seat, rules=rules, partner=partner, given=given, require=require
    )
    hero = conditions.hero
    fixed_dealer = -1 if dealer is None else _seat(dealer, rules.players, "dealer")
    if number_bids is None:
        side_params = _no_nil(_params(spec)[hero & 1])
        own = int(nb.number_bid_nb(rules.lower(), np.uint64(conditions.hand), hero, side_params))
        number_bids = [b for b in (own - 1, own, own + 1) if 1 <= b <= 13]
    candidates = sorted({int(b) for b in number_bids})
    if any(not 1 <= b <= 13 for b in candidates):
        raise ValueError(f"number_bids: each must be 1..13, got {list(number_bids)}")
    bids = np.array([0, *candidates], dtype=np.int64)
    kinds = np.array([2 if blind else 1] + [0] * len(candidates), dtype=np.int64)
    sums = np.zeros(len(bids))
    squares = np.zeros(len(bids))
    diff_sums = np.zeros(len(bids))
    diff_squares = np.zeros(len(bids))
    made = tried = 0
    fatal = np.zeros(54, dtype=np.int64)
    with numba_threads(threads):
        sampler = _Sampler(conditions, seed, n, max_tries)
        for start in range(0, n, CHUNK):
            deals, draws = sampler.sample(start, min(CHUNK, n - start))
            tried += draws
            played = _play(spec, hero, deals, start, bids, kinds, fixed_dealer)
            score = played.score.astype(np.float64)
            sums += score.sum(axis=0)
            squares += (score**2).sum(axis=0)
            diff = score[:, :1] - score
            diff_sums += diff.sum(axis=0)
            diff_squares += (diff**2).sum(axis=0)
            nil = played.nil_made[:, 0]
            made += int((nil == 1).sum())
            fatal += np.bincount(played.first_won[nil == 0, 0], minlength=54)
    ci = proportion_ci(made, n)
    estimates = [mean_ci_of_moments(n, sums[k], squares[k]) for k in range(len(bids))]
    number_scores = {bid: estimates[k + 1] for k, bid in enumerate(candidates)}
    best = max(number_scores, key=lambda b: number_scores[b].value) if candidates else None
    gain = None
    if best is not None:
        k = candidates.index(best) + 1
        gain = mean_ci_of_moments(n, diff_sums[k], diff_squares[k])
    order = np.argsort(-fatal, kind="stable")
    failures = max(n - made, 1)
    fatal_cards = {format_card(int(c)): float(fatal[c] / failures) for c in order if fatal[c]}
    return NilOdds(
        hand=format_hand(conditions.hand),
        seat=seat_name(hero, rules.players),
        blind=bool(blind),
        n=int(n),
        made=made,
        probability=ci.value,
        ci_low=ci.low,
        ci_high=ci.high,
        nil_score=estimates[0],
        number_scores=number_scores,
        best_number_bid=best,
        number_score=number_scores[best] if best is not None else None,
        nil_gain=gain,
        fatal_cards=fatal_cards,
        tried=tried,
        seed=int(seed),
        rules=rules,
        bidding=_side_text(spec.bidding),
        play=_side_text(spec.play),
        conditions=conditions.text,
    )


def _side_text(pair: tuple[Any, Any]) -> str:
    a, b = (_policy_text(p.to_dict(), p.kind) for p in pair)
    return a if a == b else f"{a} (N-S) / {b} (E-W)"
