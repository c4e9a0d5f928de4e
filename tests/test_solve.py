"""The double-dummy solver against a brute-force minimax written from docs/rules.md.

The reference below shares no code with the kernels: it plays the rules of "Play"
(follow suit; spades are trumps; a spade may not be led before spades are broken unless
the leader holds only spades; the first lead under ``first_lead``; any spade played
breaks them; "The trump rules" ``must_trump`` and ``must_overtrump``) over every line
of play, with a memo. ``dd_tricks``, ``dd_cards``, ``nil_safe`` and ``nil_cards`` must
equal it on random small endings; the invariants
and the input errors are tested after it.
"""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

from spades_sim import Rules
from spades_sim.cards import cards_of, deck_mask, format_card
from spades_sim.errors import SpadesError
from spades_sim.solve import HandRecord, Position, dd_cards, dd_tricks, nil_cards, nil_safe

# --- the reference, from docs/rules.md -----------------------------------------------

LJ, BJ = 52, 53


# "Jokers and deuces": the trumps by name from the lowest; the 2D is one of them
DEUCES_TRUMPS = [r + "S" for r in "3456789TJQKA"] + ["2S", "2D", "LJ", "BJ"]
DEUCES = {"on": False}  # the pack of the case being solved (the ids are read with it)


def suit(card: int) -> int:
    if DEUCES["on"]:
        return 3 if format_card(card, True) in DEUCES_TRUMPS else card // 13
    return 3 if card >= LJ else card // 13


def rank(card: int) -> int:
    if DEUCES["on"] and suit(card) == 3:
        return DEUCES_TRUMPS.index(format_card(card, True))
    return card - 39 if card >= 39 else card % 13


def name(card: int) -> str:
    return format_card(card, DEUCES["on"])


def may_play(hand, trick, broken, first, any_time, two_clubs, must_trump=False, over=False):
    if trick:
        led = suit(trick[0][1])
        follow = [c for c in hand if suit(c) == led]
        spades = [c for c in hand if suit(c) == 3]
        # "The trump rules": a void player trumps if it can; a spade beats the trick's
        # spades if it can
        cards = follow or (must_trump and spades) or list(hand)
        in_trick = [rank(c) for _, c in trick if suit(c) == 3]
        if over and in_trick:
            higher = [c for c in cards if suit(c) == 3 and rank(c) > max(in_trick)]
            cards = higher or cards
        return cards
    if first and two_clubs and 0 in hand:
        return [0]
    if not first and (broken or any_time):
        return list(hand)
    others = [c for c in hand if suit(c) != 3]
    return others or list(hand)


def trick_winner(trick):
    """``trick``: (seat, card) in play order. The highest spade, else the highest card of
    the suit led."""
    spades = [(rank(c), s) for s, c in trick if suit(c) == 3]
    if spades:
        return max(spades)[1]
    led = suit(trick[0][1])
    return max((rank(c), s) for s, c in trick if suit(c) == led)[1]


class Reference:
    def __init__(self, players, any_time=False, two_clubs=False, must_trump=False, over=False):
        self.players, self.any_time, self.two_clubs = players, any_time, two_clubs
        self.must_trump, self.over = must_trump, over
        self.tricks = lru_cache(maxsize=None)(self._tricks)
        self.safe = lru_cache(maxsize=None)(self._safe)

    def moves(self, hands, seat, trick, broken, first):
        legal = may_play(
            hands[seat], trick, broken, first, self.any_time, self.two_clubs, self.must_trump,
            self.over,
        )  # fmt: skip
        for card in legal:
            rest = list(hands)
            rest[seat] = tuple(c for c in hands[seat] if c != card)
            now = (*trick, (seat, card))
            brk = broken or suit(card) == 3
            if len(now) == self.players:
                yield card, tuple(rest), trick_winner(now), (), brk, False
            else:
                yield card, tuple(rest), (seat + 1) % self.players, now, brk, first

    def done(self, hands, trick):
        return not trick and not any(hands)

    def _tricks(self, hands, seat, trick, broken, first):
        """Side 0's tricks from here, the current trick included."""
        if self.done(hands, trick):
            return 0
        values = []
        for _, rest, nxt, now, brk, fst in self.moves(hands, seat, trick, broken, first):
            won = 1 if not now and nxt % 2 == 0 else 0
            values.append(won + self.tricks(rest, nxt, now, brk, fst))
        return max(values) if seat % 2 == 0 else min(values)

    def card_tricks(self, hands, seat, trick, broken, first):
        """Mover's side tricks after each legal card."""
        total = len(hands[seat])
        out = {}
        for card, rest, nxt, now, brk, fst in self.moves(hands, seat, trick, broken, first):
            won = 1 if not now and nxt % 2 == 0 else 0
            v0 = won + self.tricks(rest, nxt, now, brk, fst)
            out[name(card)] = v0 if seat % 2 == 0 else total - v0
        return out

    def _safe(self, hands, seat, trick, broken, first, nils, alone=False):
        """Whether the nil side keeps every seat of ``nils`` from winning a trick; the
        nil side is the nils' partnership, or (``alone``: cutthroat) the nil seat alone
        against the other three."""
        if self.done(hands, trick):
            return True
        side = next(iter(nils)) % 2
        results = []
        for _, rest, nxt, now, brk, fst in self.moves(hands, seat, trick, broken, first):
            if not now and nxt in nils:
                results.append(False)
            else:
                results.append(self.safe(rest, nxt, now, brk, fst, nils, alone))
        ours = seat in nils if alone else seat % 2 == side
        return any(results) if ours else all(results)

    def card_safe(self, hands, seat, trick, broken, first, nils, alone=False):
        out = []
        for card, rest, nxt, now, brk, fst in self.moves(hands, seat, trick, broken, first):
            lost = not now and nxt in nils
            if not lost and self.safe(rest, nxt, now, brk, fst, nils, alone):
                out.append(card)
        return [name(c) for c in sorted(out, reverse=True)]


# --- random endings --------------------------------------------------------------------


def random_case(rng: random.Random, max_cards: int = 4, cutthroat: int = 0):
    """A random ending; ``cutthroat`` (4 or 3) plays that many lone seats instead."""
    players = cutthroat or rng.choice((2, 4, 4))
    jokers = rng.random() < 0.3
    deuces = jokers and players != 3 and rng.random() < 0.5
    DEUCES["on"] = deuces
    any_time = rng.random() < 0.2
    n = rng.randint(2, max_cards if players == 4 else max_cards + 1)
    deck = cards_of(deck_mask(jokers, deuces, players))
    rng.shuffle(deck)
    if rng.random() < 0.4:  # spade-heavy endings: trumps, ruffs, broken or not
        deck.sort(key=lambda c: (suit(c) != 3) + rng.random())
    hands = [sorted(deck[i * n : (i + 1) * n]) for i in range(players)]
    first = rng.random() < 0.15
    broken = not first and rng.random() < 0.5
    two_clubs = (
        first and players == 4 and not deuces and rng.random() < 0.5 and any(0 in h for h in hands)
    )
    leader = rng.randrange(players)
    if two_clubs:
        leader = next(s for s in range(players) if 0 in hands[s])
    must_trump = rng.random() < 0.25
    over = must_trump and rng.random() < 0.5
    ref = Reference(players, any_time, two_clubs, must_trump, over)
    hands_t = tuple(tuple(h) for h in hands)
    trick: tuple = ()
    seat = leader
    for _ in range(rng.randrange(players)):
        legal = may_play(hands_t[seat], trick, broken, first, any_time, two_clubs, must_trump, over)
        card = rng.choice(legal)
        rest = list(hands_t)
        rest[seat] = tuple(c for c in hands_t[seat] if c != card)
        hands_t = tuple(rest)
        trick = (*trick, (seat, card))
        seat = (seat + 1) % players
    rules = Rules(
        players=players,
        jokers=jokers,
        deuces_high=deuces,
        spades_lead="any_time" if any_time else "after_broken",
        first_lead="two_of_clubs" if two_clubs else "any_but_spades",
        must_trump=must_trump,
        must_overtrump=over,
        partnerships=not cutthroat,
    )
    pos = Position(list(hands_t), seat, [c for _, c in trick], broken, first, rules)
    broken_now = broken or any(suit(c) == 3 for _, c in trick)
    return ref, pos, (hands_t, seat, trick, broken_now, first)


def check_cases(count: int, seed: int, max_cards: int = 4) -> None:
    rng = random.Random(seed)
    for i in range(count):
        ref, pos, state = random_case(rng, max_cards)
        hands, seat, trick, broken, first = state
        total = len(hands[seat])
        v0 = ref.tricks(hands, seat, trick, broken, first)
        want = v0 if seat % 2 == 0 else total - v0
        assert dd_tricks(pos) == want, (i, str(pos))
        assert dd_cards(pos) == ref.card_tricks(hands, seat, trick, broken, first), (i, str(pos))
        players = pos.rules.players
        nil_seat = rng.randrange(players)
        nils = frozenset([nil_seat])
        assert nil_safe(pos, nil_seat) == ref.safe(hands, seat, trick, broken, first, nils), (
            i, str(pos), nil_seat,
        )  # fmt: skip
        got = nil_cards(pos, nil_seat)
        assert got == ref.card_safe(hands, seat, trick, broken, first, nils), (i, str(pos))
        if players == 4:
            pair = frozenset([nil_seat, nil_seat ^ 2])
            expect = ref.safe(hands, seat, trick, broken, first, pair)
            assert nil_safe(pos, tuple(pair)) == expect, (i, str(pos), sorted(pair))


def test_solver_equals_brute_force_on_random_endings():
    check_cases(40, seed=1)


@pytest.mark.parametrize("players", [4, 3])
def test_cutthroat_nil_is_the_seat_alone_against_the_others(players: int) -> None:
    # cutthroat: the nil seat alone is the nil side; with four the seat opposite plays
    # against it, with three the tricks are of three cards
    rng = random.Random(4 + players)
    differs = 0
    for i in range(60):
        ref, pos, (hands, seat, trick, broken, first) = random_case(rng, 4, cutthroat=players)
        nil_seat = rng.randrange(players)
        nils = frozenset([nil_seat])
        want = ref.safe(hands, seat, trick, broken, first, nils, True)
        assert nil_safe(pos, nil_seat) == want, (i, str(pos), nil_seat)
        got = nil_cards(pos, nil_seat)
        assert got == ref.card_safe(hands, seat, trick, broken, first, nils, True), (i, str(pos))
        differs += want != ref.safe(hands, seat, trick, broken, first, nils)
    if players == 4:
        assert differs >= 3  # positions where the partner's help decided the verdict
    with pytest.raises(SpadesError, match=r"in cutthroat .* solves only a nil"):
        dd_tricks(pos)
    with pytest.raises(SpadesError, match="a nil is solved one seat at a time"):
        nil_safe(pos, (0, 2))


def test_three_players_nil_from_a_whole_deal() -> None:
    # an opening position of 17 cards a seat: the lowest hand is safe (it can always duck
    # under two opponents who must follow above it or discard) and the top hand is not
    rules = Rules.preset("cutthroat")
    deck = sorted(cards_of(deck_mask(players=3)), key=lambda c: (c % 13, c))
    low, high = deck[:17], deck[-17:]
    middle = [c for c in deck if c not in low and c not in high]
    pos = Position.start([sum(1 << c for c in h) for h in (low, middle, high)], 2, rules)
    assert pos.to_play == 0 and nil_safe(pos, 0) and not nil_safe(pos, 2)


@pytest.mark.slow
def test_solver_equals_brute_force_on_many_endings():
    check_cases(150, seed=2, max_cards=5)


def nil_bound(hands, nils):
    """The nil search's verdicts at a trick start, from their statement (docs/solver.md):
    True (safe), False (lost) or None."""
    spades = [c for h in hands for c in h if suit(c) == 3]
    for x in nils:
        mine = sorted((c for c in hands[x] if suit(c) == 3), reverse=True)
        for j, top in enumerate(mine, start=1):
            if sum(1 for c in spades if c > top and c not in mine) < j:
                return False
    if len(hands) != 4 or len(nils) != 1:
        return None
    (x,) = nils
    if any(suit(c) == 3 for c in hands[x]):
        return None
    for s in range(3):
        mine = [c for c in hands[x] if suit(c) == s]
        theirs = [c for c in hands[x ^ 2] if suit(c) == s]
        if mine and (len(theirs) < len(mine) or min(theirs) < max(mine)):
            return None
    return True


def test_nil_bounds_equal_brute_force_where_they_fire():
    """Positions where a nil bound settles the search at the root: its verdict must be
    the brute force's (spade-heavy deals for the lost bound, the nil seat short and low
    under its partner for the safe one)."""
    rng = random.Random(5)
    fired = {True: 0, False: 0}
    while min(fired.values()) < 40:
        n = rng.randint(2, 4)
        deck = list(range(52))
        rng.shuffle(deck)
        x = rng.randrange(4)
        if rng.random() < 0.5:
            deck.sort(key=lambda c: (suit(c) != 3) + rng.random())
            hands = [sorted(deck[i * n : (i + 1) * n]) for i in range(4)]
        else:  # the nil seat low in side suits, its partner above it in each
            low = rng.sample([c for c in range(39) if c % 13 < 6], n)
            high = [13 * suit(c) + rng.randint(8, 12) for c in low]
            if len(set(high)) < n:
                continue
            rest = [c for c in deck if c not in low and c not in high]
            hands = [[] for _ in range(4)]
            hands[x], hands[x ^ 2] = sorted(low), sorted(high)
            for i, s in enumerate(t for t in range(4) if t not in (x, x ^ 2)):
                hands[s] = sorted(rest[i * n : (i + 1) * n])
        hands_t = tuple(tuple(h) for h in hands)
        verdict = nil_bound(hands_t, (x,))
        if verdict is None:
            continue
        leader = rng.randrange(4)
        broken = rng.random() < 0.5
        pos = Position([list(h) for h in hands_t], leader, spades_broken=broken)
        want = Reference(4).safe(hands_t, leader, (), broken, False, frozenset([x]))
        assert nil_safe(pos, x) == want, (str(pos), x)
        assert want == verdict, (str(pos), x)
        fired[verdict] += 1


def test_nil_bound_mixing_cover_and_low_suits_equals_brute_force():
    """The safe bound that mixes the two, suit by suit (docs in ``_nil_bound_nb``): a nil
    seat not on lead, low in one side suit (below every other card of it) and covered by
    its partner in another, spades included (as many cards, all higher; in a side suit
    the partner may cover only those above the nil seat's lowest cards). Brute force
    must find it safe; with the nil seat on lead (where the bound does not fire), and
    with spades covered under ``must_trump`` (where it does not either), the solver must
    still agree with brute force."""
    rng = random.Random(11)
    checked = 0
    while checked < 60:
        n = rng.randint(2, 4)
        x = rng.randrange(4)
        low_suit = rng.randrange(3)
        cover_suit = rng.choice([s for s in range(4) if s != low_suit])
        forced = cover_suit == 3 and rng.random() < 0.3
        k_low = rng.randint(1, n - 1)
        k_cover = n - k_low
        # in the covered suit, the nil seat's lowest cards may be below every other
        # card (then the partner covers the others only)
        k_under = rng.randint(0, k_cover - 1) if cover_suit != 3 else 0
        nil = [13 * low_suit + r for r in range(k_low)]
        nil += [13 * cover_suit + r for r in range(k_under)]
        nil += [13 * cover_suit + r for r in rng.sample(range(k_under, 7), k_cover - k_under)]
        top = max(c for c in nil if suit(c) == cover_suit)
        above = [c for c in range(13 * cover_suit, 13 * cover_suit + 13) if c > top]
        k_mate = rng.randint(k_cover - k_under, min(n, len(above)))
        mate = rng.sample(above, k_mate)
        rest = [c for c in range(52) if c not in nil and c not in mate]
        rest = [c for c in rest if not (suit(c) == low_suit and c < 13 * low_suit + k_low)]
        rng.shuffle(rest)
        mate += rest[: n - k_mate]
        rest = rest[n - k_mate :]
        hands = [[] for _ in range(4)]
        hands[x], hands[x ^ 2] = sorted(nil), sorted(mate)
        for i, seat in enumerate((x ^ 1, x ^ 3)):
            hands[seat] = sorted(rest[i * n : (i + 1) * n])
        hands_t = tuple(tuple(h) for h in hands)
        leader = rng.randrange(4)
        broken = rng.random() < 0.5
        rules = Rules(must_trump=forced)
        pos = Position([list(h) for h in hands_t], leader, spades_broken=broken, rules=rules)
        ref = Reference(4, must_trump=forced)
        want = ref.safe(hands_t, leader, (), broken, False, frozenset([x]))
        assert nil_safe(pos, x) == want, (str(pos), x, forced)
        if leader != x and not forced:
            assert want, (str(pos), x)
        checked += 1
    # on lead the low cards are not safe: N must lead its club (spades unbroken) and no
    # one else holds a club, though its spade is covered
    pos = Position(["2C 2S", "KD QD", "AS AD", "KH QH"], "N")
    assert not nil_safe(pos, "N")


def test_nil_bound_with_the_partner_covering_card_by_card_equals_brute_force():
    """The safe bound's cover needs the partner's j-th highest card of a suit above the
    nil seat's j-th highest (not every card above every one): positions built with such
    an interleaved cover (the nil seat not on lead: brute force must find them safe),
    and with the cover broken at one card (the partner's card below the nil seat's),
    where the solver must still equal brute force."""
    rng = random.Random(23)
    counts = {"matched": 0, "broken": 0, "broken lost": 0}
    while counts["matched"] < 50 or counts["broken"] < 50:
        n = rng.randint(2, 4)
        x = rng.randrange(4)
        suits = rng.sample(range(4), rng.randint(1, 2))
        nil = sorted(rng.sample([c for c in range(52) if suit(c) in suits and c % 13 < 11], n))
        taken = set(nil)
        mate = []
        broken_at = rng.randrange(n) if rng.random() < 0.5 else -1
        for j, a in enumerate(sorted(nil, reverse=True)):
            top = 13 * suit(a) + 12
            if j == broken_at:  # one card of the partner's below the nil seat's
                pool = [c for c in range(13 * suit(a), a) if c not in taken]
            else:  # above it, interleaved with the nil seat's higher cards when it can be
                pool = [c for c in range(a + 1, top + 1) if c not in taken]
            if not pool:
                break
            b = rng.choice(pool)
            mate.append(b)
            taken.add(b)
        if len(mate) < n:
            continue
        rest = [c for c in range(52) if c not in taken]
        rng.shuffle(rest)
        hands = [[] for _ in range(4)]
        hands[x], hands[x ^ 2] = sorted(nil), sorted(mate)
        for i, seat in enumerate((x ^ 1, x ^ 3)):
            hands[seat] = sorted(rest[i * n : (i + 1) * n])
        hands_t = tuple(tuple(h) for h in hands)
        leader = rng.choice([s for s in range(4) if s != x])
        broken = rng.random() < 0.5
        forced = rng.random() < 0.2
        rules = Rules(must_trump=forced)
        pos = Position([list(h) for h in hands_t], leader, spades_broken=broken, rules=rules)
        want = Reference(4, must_trump=forced).safe(
            hands_t, leader, (), broken, False, frozenset([x])
        )
        assert nil_safe(pos, x) == want, (str(pos), x, forced)
        if broken_at < 0:
            if not (forced and any(suit(c) == 3 for c in nil)):
                assert want, (str(pos), x)
            counts["matched"] += 1
        else:
            counts["broken"] += 1
            counts["broken lost"] += not want
    assert counts["broken lost"] >= 10, counts


def ruff_cover(hands, x, leader):
    """The safe bound's statement with the partner's ruffs (``_nil_bound_nb``), for a
    nil seat ``x`` without spades: in each side suit its cards below every other card
    (none when it leads) are safe, the others (its top cards) are covered by the
    partner card by card or, when the partner is void in the suit, by one of the
    partner's spades each, or both: the partner's cards of a suit it is short in cover
    the highest top cards, its spades the rest. (covered, ruffed top cards, the
    partner's spades, whether a suit mixes the two); covered False when the
    partner's cards of a suit are not all above the nil seat's matching ones."""
    nil, mate = hands[x], hands[x ^ 2]
    live = [c for h in hands for c in h]
    ruffed, mixed = 0, False
    for s in range(3):
        mine = sorted((c for c in nil if suit(c) == s), reverse=True)
        others = [c for c in live if suit(c) == s and c not in nil]
        top = mine if leader == x else [c for c in mine if others and c > min(others)]
        theirs = sorted((c for c in mate if suit(c) == s), reverse=True)
        if any(b < a for a, b in zip(top, theirs, strict=False)):
            return False, ruffed, 0, mixed
        ruffed += max(0, len(top) - len(theirs))
        mixed = mixed or 0 < len(theirs) < len(top)
    return True, ruffed, sum(1 for c in mate if suit(c) == 3), mixed


def test_nil_bound_with_the_partner_ruffing_equals_brute_force():
    """The safe bound's cover by ruffs: a nil seat without spades whose top cards in a
    side suit its partner is void in are matched by as many of the partner's spades
    (docstring of ``_nil_bound_nb``; the nil seat on lead or not), or those of a suit
    it is short in beyond its cards there, which cover the highest. Where the statement
    holds, brute force must find the nil safe and the search settle it at the root
    (one node); where the partner is one spade short, the solver must still equal brute
    force, and some of those nils are lost (dropping the count of spades fails here)."""
    from spades_sim._nb import dd

    rng = random.Random(31)
    counts = {"fires": 0, "short": 0, "short lost": 0, "mixed": 0}
    ref = Reference(4)
    stats = np.zeros(dd.STATS, dtype=np.int64)
    while counts["fires"] < 60 or counts["short"] < 60:
        n = rng.randint(2, 4)
        x = rng.randrange(4)
        void = rng.sample(range(3), rng.randint(1, 2))
        nil = rng.sample([c for c in range(39) if c % 13 < 9], n)
        # the partner void in those suits, or short there
        sides = [
            c for c in range(39) if c not in nil and (suit(c) not in void or rng.random() < 0.15)
        ]
        k = rng.randint(0, n)  # the partner's spades
        mate = rng.sample(range(39, 52), k) + rng.sample(sides, n - k)
        rest = [c for c in range(52) if c not in nil and c not in mate]
        rng.shuffle(rest)
        if rng.random() < 0.5:  # spades with the defence: overruffs, spade leads
            rest.sort(key=lambda c: (suit(c) != 3) + 1.5 * rng.random())
        hands = [()] * 4
        hands[x], hands[x ^ 2] = tuple(sorted(nil)), tuple(sorted(mate))
        hands[x ^ 1], hands[x ^ 3] = tuple(sorted(rest[:n])), tuple(sorted(rest[n : 2 * n]))
        leader = rng.randrange(4)
        covered, ruffed, spades, mixed = ruff_cover(hands, x, leader)
        if not covered or not ruffed or ruffed > spades + 1:
            continue
        kind = "fires" if ruffed <= spades else "short"
        if counts[kind] >= 60:
            continue
        broken = rng.random() < 0.5
        want = ref.safe(tuple(hands), leader, (), broken, False, frozenset([x]))
        pos = Position([list(h) for h in hands], leader, spades_broken=broken)
        assert nil_safe(pos, x) == want, (str(pos), x)
        counts[kind] += 1
        if kind == "fires":
            assert want, (str(pos), x)
            counts["mixed"] += mixed
            keys, data = dd.new_table(10)
            masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.uint64)
            before = stats[dd.S_NODES]
            none = np.int64(-1)
            assert dd.nil_safe_nb(
                masks, np.int64(4), np.int64(leader), np.int64(0), none, none, none,
                np.uint64(0), broken, False, np.int64(1 << x), np.int64(0), keys, data, stats,
            )  # fmt: skip
            assert stats[dd.S_NODES] - before == 1, (str(pos), x)
        else:
            counts["short lost"] += not want
    assert counts["short lost"] >= 4 and counts["mixed"] >= 5, counts
    # a partner short in a suit and without a spade to ruff the rest: S's 9H covers one
    # of N's hearts, W's AH takes that trick and W's 4H finds N's other heart alone
    short = ["7H 5H 2C", "2H 3H KC", "9H QD JD", "AH 4H TD"]
    pos = Position(short, "E", spades_broken=True)
    ids = tuple(tuple(sorted(c for c in range(52) if name(c) in h.split())) for h in short)
    assert not ref.safe(ids, 1, (), True, False, frozenset([0]))
    assert not nil_safe(pos, "N")


def test_a_defenders_cards_split_by_the_other_defenders_are_two_moves():
    """Equal-card merging stops at every live card of another hand, the other defender's
    included: W's 4C and JC have only E's 5C between them, yet the 4C is the one lead
    that sets N's nil (brute force). Merging the two as one move (the higher) would call
    the nil safe; brute force on random endings found such pairs of unequal value in
    about one in seventy (docs/solver.md)."""
    hands = ["6D TH 8S", "5C 2D QH", "2C 8D TD", "4C JC KS"]
    pos = Position(hands, "W", spades_broken=True)
    ids = tuple(tuple(sorted(c for c in range(52) if name(c) in h.split())) for h in hands)
    assert Reference(4).card_safe(ids, 3, (), True, False, frozenset([0])) == ["KS", "JC"]
    assert not nil_safe(pos, "N")
    assert nil_cards(pos, "N") == ["KS", "JC"]


def test_a_nil_seats_beaten_cards_are_dominated_by_the_higher_one():
    """The search does not try a nil seat's lower card after a higher one failed when the
    trick's winner beats both (``dd.nil_beaten_nb``): playing the higher and keeping the
    lower must never be worse. Brute force on random tricks where the nil seat follows
    with two such cards (following under the winner, discarding, spade-heavy deals with
    ruffs and the trump rules): whenever the lower keeps the nil, the higher must too.
    Counting a card above the winner, or a spade under a side suit's winner, as beaten
    fails it."""
    from spades_sim._nb import dd

    rng = random.Random(17)
    checked = 0
    while checked < 150:
        n = rng.randint(2, 4)
        deck = list(range(52))
        rng.shuffle(deck)
        if rng.random() < 0.5:  # spade-heavy: ruffs and overruffs
            deck.sort(key=lambda c: (suit(c) != 3) + 1.5 * rng.random())
        hands = [tuple(sorted(deck[i * n : (i + 1) * n])) for i in range(4)]
        must_trump = rng.random() < 0.25
        over = must_trump and rng.random() < 0.5
        broken = rng.random() < 0.5
        ref = Reference(4, must_trump=must_trump, over=over)
        x = rng.randrange(4)
        seat = (x - rng.randint(1, 3)) % 4
        trick: tuple = ()
        while seat != x:
            legal = may_play(hands[seat], trick, broken, False, False, False, must_trump, over)
            card = rng.choice(legal)
            hands = tuple(
                tuple(c for c in h if c != card) if s == seat else h for s, h in enumerate(hands)
            )
            trick = (*trick, (seat, card))
            broken = broken or suit(card) == 3
            seat = (seat + 1) % 4
        win = next(c for s, c in trick if s == trick_winner(trick))
        legal = may_play(hands[x], trick, broken, False, False, False, must_trump, over)
        safe = {}
        for card, rest, nxt, now, brk, fst in ref.moves(hands, x, trick, broken, False):
            lost = not now and nxt == x
            safe[card] = not lost and ref.safe(rest, nxt, now, brk, fst, frozenset([x]))
        for high in legal:
            beaten = int(dd.nil_beaten_nb(high, win))
            for low in legal:
                if low < high and (beaten >> low) & 1 and (beaten >> high) & 1:
                    assert safe[high] or not safe[low], (hands, trick, x, name(high), name(low))
                    checked += 1


def _entry_positions(keys, data, slot, rng, cap):
    """The positions a nil entry of the table answers, from its key alone (all of them
    when at most ``cap``, else ``cap`` drawn at random): (hands, leader, spades may be
    led, nil seats, verdict). The key fixes each hand's suit lengths and the owner of
    every card under its mask (in relative-rank layout: the live cards from the lowest,
    clubs first); the other cards of a suit, below the masked ones, go to the hands in
    every way that keeps the lengths. Any ranks keep the order, so each suit's live
    cards are taken from its top."""
    import itertools

    shape, flags, m = int(keys[0, slot]), int(keys[1, slot]), int(keys[2, slot])
    owners = [int(keys[3 + h, slot]) for h in range(4)]
    counts = [[(shape >> (16 * h + 4 * s)) & 15 for s in range(4)] for h in range(4)]
    nils = frozenset(p for p in range(4) if (((flags >> 3) & 0x1FF) - 1) >> p & 1)
    fixed: list[list[int]] = [[] for _ in range(4)]
    small: list[list[int]] = [[] for _ in range(4)]
    bit = 0
    for s in range(4):
        n = sum(counts[h][s] for h in range(4))
        for k in range(n):
            card = 13 * s + 13 - n + k
            if (m >> bit) & 1:
                fixed[next(h for h in range(4) if (owners[h] >> bit) & 1)].append(card)
            else:
                small[s].append(card)
            bit += 1
    ways = []
    for s in range(4):
        seats = [
            h for h in range(4) for _ in range(counts[h][s] - sum(suit(c) == s for c in fixed[h]))
        ]
        ways.append(sorted(set(itertools.permutations(seats))))
    total = 1
    for w in ways:
        total *= len(w)
    combos = (
        itertools.product(*ways)
        if total <= cap
        else (tuple(rng.choice(w) for w in ways) for _ in range(cap))
    )
    for combo in combos:
        hands = [list(h) for h in fixed]
        for s in range(4):
            for card, h in zip(small[s], combo[s], strict=True):
                hands[h].append(card)
        yield (
            tuple(tuple(sorted(h)) for h in hands),
            flags & 3,
            bool(flags >> 2 & 1),
            nils,
            (int(data[slot]) & 0xFF) == 1,
        )


def test_every_nil_entry_is_true_of_every_position_it_answers():
    """A nil entry of the table answers every position with its key: the same suit
    lengths, leader and spade lead, and the same owner of every card from the lowest one
    its proof rests on up (``rel``). Each entry of small nil searches, read back from a
    fresh table, must be the brute force's verdict on the positions its key matches
    with the cards below the mask dealt otherwise, not only on the one it was stored
    from. Planted, the trick's winner left out of ``rel`` in the nil search fails it;
    on 30 other random endings the solver's verdicts all survived that plant while 14
    of the entries it stored were false (docs/solver.md)."""
    from spades_sim._nb import dd

    rng = random.Random(23)
    ref = Reference(4)
    stats = np.zeros(dd.STATS, dtype=np.int64)
    answered_elsewhere = 0
    for _ in range(14):
        n = rng.randint(3, 4)
        deck = list(range(52))
        rng.shuffle(deck)
        if rng.random() < 0.4:  # spade-heavy: ruffs and overruffs
            deck.sort(key=lambda c: (suit(c) != 3) + rng.random())
        hands = [sorted(deck[i * n : (i + 1) * n]) for i in range(4)]
        leader, x, broken = rng.randrange(4), rng.randrange(4), rng.random() < 0.5
        nils = [x] if rng.random() < 0.8 else [x, x ^ 2]
        keys, data = dd.new_table(12)
        masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.uint64)
        none = np.int64(-1)
        dd.nil_safe_nb(
            masks, np.int64(4), np.int64(leader), np.int64(0), none, none, none, np.uint64(0),
            broken, False, np.int64(sum(1 << p for p in nils)), np.int64(0), keys, data, stats,
        )  # fmt: skip
        for slot in np.nonzero(data)[0]:
            answered = list(_entry_positions(keys, data, slot, rng, 12))
            if len(answered) < 2:
                continue  # the entry fixes every card: it answers its own position only
            for pos, lead, spades, entry_nils, safe in answered:
                key = (pos, lead, (), spades, False, entry_nils)
                assert ref.safe(*key) == safe, (hands, leader, nils, broken, key)
                answered_elsewhere += 1
    assert answered_elsewhere >= 300, answered_elsewhere


def sure_spades(hands, side):
    """A side's sure tricks with its spades, from the statement (docs/solver.md): a hand
    of the side whose ``j`` highest spades have ``k`` opponents' spades above the lowest
    of them takes ``j - k`` tricks; and (``tops``) the most top spades of one hand."""
    opp = [c for p, h in enumerate(hands) if p % 2 != side for c in h if suit(c) == 3]
    hall = tops = 0
    for p, h in enumerate(hands):
        if p % 2 != side:
            continue
        mine = sorted((c for c in h if suit(c) == 3), key=rank, reverse=True)
        for j, x in enumerate(mine, start=1):
            above = sum(1 for o in opp if rank(o) > rank(x))
            hall = max(hall, j - above)
            if above == 0:
                tops = max(tops, j)
    return hall, tops


def guarded_second(hands, leader):
    """1 when the side not on lead holds the second-highest spade with another spade,
    the highest held by the hand just before it, from the statement."""
    spades = sorted((c for h in hands for c in h if suit(c) == 3), key=rank, reverse=True)
    if len(spades) < 3:
        return 0
    hh = next(p for p, h in enumerate(hands) if spades[1] in h)
    guarded = sum(1 for c in hands[hh] if suit(c) == 3) >= 2
    return int(hh % 2 != leader % 2 and guarded and spades[0] in hands[(hh - 1) % len(hands)])


def partner_ruff(hands, leader):
    """The leader's spades and a ruff by its partner when the opponents hold no spade
    (four players), from the statement; 0 when it does not apply."""
    if len(hands) != 4 or any(suit(c) == 3 for p in (1, 3) for c in hands[leader ^ p]):
        return 0
    mate = {suit(c) for c in hands[leader ^ 2]}
    if 3 not in mate or not any(suit(c) not in mate for c in hands[leader]):
        return 0
    return 1 + sum(1 for c in hands[leader] if suit(c) == 3)


def ruff_trick(hands, leader):
    """A trick by a ruff of the partner (four players), from the statement: the leader
    holds a side suit the partner lacks, the partner a spade, and each opponent holds
    that suit or no spade above the partner's highest; 1, else 0."""
    if len(hands) != 4:
        return 0
    mate = hands[leader ^ 2]
    spades = [rank(c) for c in mate if suit(c) == 3]
    if not spades:
        return 0
    for s in {suit(c) for c in hands[leader]} - {suit(c) for c in mate} - {3}:
        if all(
            any(suit(c) == s for c in hands[o])
            or all(rank(c) < max(spades) for c in hands[o] if suit(c) == 3)
            for o in (leader ^ 1, leader ^ 3)
        ):
            return 1
    return 0


def test_trick_bounds_never_exceed_brute_force():
    """The sure tricks the trick search counts at a trick start (``dd.trick_bounds_nb``:
    quick tricks, sure spades with opponents' spades above them, a guarded second spade
    behind the highest, the leader's spades and a ruff by its partner when the opponents
    have none, a ruff by the partner that no opponent can beat) never exceed the tricks
    each side takes under perfect play, on random endings of two and four players
    (spade-heavy, jokers, the trump rules); and
    they count at least what the statements give, which fire here many times. Counting
    one trick more for a hand's spades, a second spade without its guard, the partner's
    ruff where an opponent holds a spade, or the partner's one ruff where a void
    opponent holds a spade above the partner's, fails it. The bounds left out where they
    cannot reach the tricks that settle the search (``need0``, ``need1``) are never left
    out where they would have: counting only the leader's cards among the side's top
    cards that cap the quick tricks, or a side's spades as one fewer, fails it."""
    import numpy as np

    from spades_sim._nb import dd
    from spades_sim.solve.solver import play_rules

    DEUCES["on"] = False
    rng = random.Random(23)
    fired = {"under": 0, "guard": 0, "ruff": 0, "skip": 0, "ruff1": 0}
    cases = 0
    while (
        cases < 300
        or min(fired["under"], fired["guard"]) < 25
        or min(fired["ruff"], fired["skip"], fired["ruff1"]) < 8
    ):
        cases += 1
        players = rng.choice((2, 4, 4))
        n = rng.randint(2, 4 if players == 4 else 5)
        jokers = rng.random() < 0.3
        deck = cards_of(deck_mask(jokers, False, players))
        rng.shuffle(deck)
        if rng.random() < 0.6:  # spade-heavy: several spades a hand, ruffs
            deck.sort(key=lambda c: (suit(c) != 3) + 1.5 * rng.random())
        leader = rng.randrange(players)
        if players == 4 and rng.random() < 0.35:  # the opponents without a spade
            theirs = [c for c in deck if suit(c) != 3][: 2 * n]
            ours = [c for c in deck if c not in theirs]
            deck = []
            for p in range(4):
                src = theirs if p % 2 != leader % 2 else ours
                deck += src[(p // 2) * n : (p // 2 + 1) * n]
        hands = tuple(tuple(sorted(deck[i * n : (i + 1) * n])) for i in range(players))
        any_time = rng.random() < 0.2
        broken = rng.random() < 0.5
        must_trump = rng.random() < 0.25
        over = must_trump and rng.random() < 0.5
        rules = Rules(
            players=players, jokers=jokers, spades_lead="any_time" if any_time else "after_broken",
            must_trump=must_trump, must_overtrump=over,
        )  # fmt: skip
        masks = np.zeros(4, dtype=np.uint64)
        masks[:players] = [sum(1 << c for c in h) for h in hands]
        lead_spades = np.int64(1 if broken or any_time else 0)
        bits = play_rules(rules)
        none = np.int64(0)
        lo0, _, lo1, _ = dd.trick_bounds_nb(
            masks, np.int64(players), np.int64(leader), lead_spades, bits, none, none
        )
        # a bound is left out only where it cannot reach the side's need: a bound that
        # reaches it with every bound worked out reaches it with the skips
        for need in range(1, n + 1):
            got = dd.trick_bounds_nb(
                masks, np.int64(players), np.int64(leader), lead_spades, bits,
                np.int64(need), np.int64(need),
            )  # fmt: skip
            for full, part in ((lo0, got[0]), (lo1, got[2])):
                assert part >= need or full < need, (hands, leader, need, part, full)
                fired["skip"] += part < full
        ref = Reference(players, any_time, False, must_trump, over)
        exact0 = ref.tricks(hands, leader, (), broken, False)
        case = (hands, leader, broken, any_time, must_trump, over)
        assert lo0 <= exact0 and lo1 <= n - exact0, (case, lo0, lo1, exact0)
        for side, lo in ((0, lo0), (1, lo1)):
            hall, tops = sure_spades(hands, side)
            guard = guarded_second(hands, leader) if side != leader % 2 else 0
            ruff = partner_ruff(hands, leader) if side == leader % 2 else 0
            ruff1 = ruff_trick(hands, leader) if side == leader % 2 else 0
            assert lo >= max(hall, guard, ruff, ruff1), (case, side)
            fired["under"] += hall > tops
            fired["guard"] += guard > hall
            fired["ruff"] += ruff > hall
            fired["ruff1"] += ruff1 > max(hall, ruff)
    assert cases < 1500


def test_second_hand_sure_wins_hold_whatever_is_played():
    """``dd.second_hand_wins_nb`` (the side second to play can take the trick whatever the
    third hand plays: a ruff the third hand cannot beat, or a card above the lead and the
    third hand's cards of the suit) against every way the trick can be finished
    (following suit, the trump rules), on random tricks after a lead, spade-heavy ones.
    Leaving out the third hand's ruff, or a card of the third hand above the side's,
    fails it."""
    import numpy as np

    from spades_sim._nb import dd

    DEUCES["on"] = False
    rng = random.Random(29)

    def side_wins(hands, trick, seat, side, broken, must_trump, over):
        """Whether ``side`` can take the trick whatever the other side plays."""
        if len(trick) == 4:
            return trick_winner(trick) % 2 == side
        results = []
        for card in may_play(hands[seat], trick, broken, False, False, False, must_trump, over):
            rest = tuple(
                tuple(c for c in h if c != card) if s == seat else h for s, h in enumerate(hands)
            )
            now = (*trick, (seat, card))
            results.append(side_wins(rest, now, (seat + 1) % 4, side, broken, must_trump, over))
        return any(results) if seat % 2 == side else all(results)

    fired = {"ruff": 0, "top": 0}
    while min(fired.values()) < 40:
        n = rng.randint(1, 5)
        deck = list(range(52))
        rng.shuffle(deck)
        if rng.random() < 0.5:
            deck.sort(key=lambda c: (suit(c) != 3) + 1.5 * rng.random())
        hands = tuple(tuple(sorted(deck[i * n : (i + 1) * n])) for i in range(4))
        leader = rng.randrange(4)
        broken = rng.random() < 0.5
        must_trump = rng.random() < 0.25
        over = must_trump and rng.random() < 0.5
        lead = rng.choice(may_play(hands[leader], (), broken, False, False, False))
        hands = tuple(
            tuple(c for c in h if c != lead) if s == leader else h for s, h in enumerate(hands)
        )
        seat = (leader + 1) % 4
        masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.uint64)
        wins, rel = dd.second_hand_wins_nb(
            masks, np.int64(seat), np.int64(suit(lead)), np.int64(lead)
        )
        if not wins:
            continue
        brk = broken or suit(lead) == 3
        trick = ((leader, lead),)
        assert side_wins(hands, trick, seat, seat % 2, brk, must_trump, over), (
            hands, leader, lead, must_trump, over,
        )  # fmt: skip
        fired["ruff" if rel == 0 else "top"] += 1


# --- invariants ------------------------------------------------------------------------


def _after(pos, card):
    """The position after ``card``, or None when it is the last card of the hand."""
    if pos.tricks_left == 1 and len(pos.trick) == pos.players - 1:
        return None
    return pos.play(card)


def test_invariants_on_random_positions():
    rng = random.Random(3)
    checked = 0
    for _ in range(150):
        _, pos, _ = random_case(rng)
        cards = dd_cards(pos)
        assert dd_tricks(pos) == max(cards.values())
        for card, value in cards.items():
            after = _after(pos, card)
            if after is None:
                continue
            # the two sides' tricks add up to the tricks left
            ours = dd_tricks(after)
            same_side = after.to_play % 2 == pos.to_play % 2
            mine = ours if same_side else after.tricks_left - ours
            won = 1 if not after.trick and same_side else 0  # the card ended the trick
            assert won + mine == value
            checked += 1
        # a safe nil stays safe after a safe card; against an opponent every card is safe
        seat = rng.randrange(pos.players)
        if nil_safe(pos, seat):
            safe = nil_cards(pos, seat)
            assert safe
            if pos.to_play % 2 != seat % 2:
                assert set(safe) == set(cards)
            for card in safe:
                after = _after(pos, card)
                assert after is None or nil_safe(after, seat)
        else:
            assert pos.to_play % 2 != seat % 2 or nil_cards(pos, seat) == []
    assert checked > 300


def test_a_solved_deal_and_its_cards():
    # N holds the top spades and keeps the lead with them; E and W can only discard
    hands = ["AKQ...", "...AKQ", "JT9...", "...JT9"]
    pos = Position(hands, "N", spades_broken=True)
    assert dd_tricks(pos) == 3
    assert dd_cards(pos) == {"AS": 3, "KS": 3, "QS": 3}
    assert nil_safe(pos, "S") and not nil_safe(pos, "N")
    assert nil_safe(pos, ("E", "W")) and not nil_safe(pos, ("N", "S"))
    assert nil_cards(pos, "N") == []
    # unbroken, N must lead... only spades: leading one from an all-spade hand is allowed
    assert dd_tricks(Position(hands, "N")) == 3
    # E on lead with unbroken spades cashes its clubs, and N-S ruff: 0 tricks for E-W
    assert dd_tricks(Position(hands, "E")) == 0


def test_jokers_and_two_players():
    rules = Rules(players=2, jokers=True)
    pos = Position(["BJ 2C", "LJ AC"], "P1", spades_broken=True, rules=rules)
    # the LJ falls to the BJ, and the AC takes P0's 2C whenever clubs are led
    assert dd_tricks(pos) == 1
    assert dd_cards(pos) == {"LJ": 1, "AC": 1}
    assert not nil_safe(pos, "P1") and not nil_safe(pos, "P0")
    assert Position(["BJ 2C", "LJ AC"], "P1", rules=rules).legal_cards() == [12]


def test_first_trick_rules():
    hands = ["2C AS", "3C KS", "4C QS", "5C JS"]
    pos = Position(hands, "N", first_trick=True, rules=Rules(first_lead="two_of_clubs"))
    assert list(dd_cards(pos)) == ["2C"]
    any_but = Position(hands, "N", first_trick=True)
    assert list(dd_cards(any_but)) == ["2C"]  # no spade lead on the first trick
    with pytest.raises(SpadesError, match="must lead the 2C"):
        Position(hands, "E", first_trick=True, rules=Rules(first_lead="two_of_clubs"))


def test_position_after_a_record():
    hands = ["AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432"]
    plays = [r + s for r in "AKQJT98765432" for s in "DCSH"]
    record = HandRecord(hands, "N", plays)
    # E leads (left of dealer N); spades are not led before broken: E leads diamonds
    pos = Position.after(record, plays=0)
    assert pos.to_play == 1 and pos.first_trick
    with pytest.raises(SpadesError, match="play 1 of the record"):
        Position.after(record, plays=1)  # AD is W's card... E does not hold it
    ok = HandRecord(hands, "W", [r + s for r in "AKQJT98765432" for s in "SHDC"])
    # N holds only spades, so it may lead one even on the first trick
    pos = Position.after(ok, plays=3)
    assert pos.to_play == 3 and pos.trick == (51, 38, 25)
    assert dd_tricks(pos) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hands": ["AS", "KS", "QS"], "to_play": "N"}, "4 players need 4 hands"),
        ({"hands": ["AS", "AS", "QS", "JS"], "to_play": "N"}, "held by both seat N and seat E"),
        ({"hands": ["AS", "KS", "QS", "XX"], "to_play": "N"}, "seat W: unknown card"),
        ({"hands": ["AS", "KS", "QS", "JS"], "to_play": "Q"}, "to_play: unknown seat"),
        (
            {"hands": ["AS", "KS QS", "JS", "TS"], "to_play": "N"},
            "seat E holds 2 cards, expected 1",
        ),
        (
            {"hands": ["2C", "KS 3C", "QS 4C", "JS 5C"], "to_play": "E", "trick": ["AS"]},
            "led AS before",
        ),
        ({"hands": ["AS", "KS", "QS", "JS"], "to_play": "E", "trick": ["AS"]}, "still in the hand"),
        (
            {
                "hands": ["", "2H", "QS", "JS 3C"],
                "to_play": "E",
                "trick": ["2C"],
                "spades_broken": True,
            },
            "seat W holds 2 cards",
        ),
        (
            {
                "hands": ["3C", "", "QS", "JS"],
                "to_play": "S",
                "trick": ["2C", "KS"],
                "spades_broken": True,
            },
            "seat N holds 1 cards, expected 0",
        ),
        (
            {
                "hands": ["", "3C", "QS", "JS"],
                "to_play": "E",
                "trick": ["2C", "KS", "AS", "TS"],
                "spades_broken": True,
            },
            "trick: holds 4 cards",
        ),
        ({"hands": ["", "", "", ""], "to_play": "N"}, "holds no card"),
        ({"hands": ["BJ", "KS", "QS", "JS"], "to_play": "N"}, "not in the standard pack"),
        (
            {
                "hands": ["AS", "KS", "QS", "JS"],
                "to_play": "N",
                "first_trick": True,
                "spades_broken": True,
            },
            "cannot be broken before the first trick",
        ),
    ],
)
def test_inconsistent_positions_are_refused(kwargs, message):
    with pytest.raises(SpadesError, match=message):
        Position(**kwargs)


def test_revoke_in_the_trick_is_refused():
    with pytest.raises(SpadesError, match="played 3H on a C lead while still holding C"):
        Position(["5H", "4C", "QS 2S", "JS TS"], "S", ["2C", "3H"], spades_broken=True)


def test_nil_seats_must_be_partners():
    pos = Position(["AS", "KS", "QS", "JS"], "N", spades_broken=True)
    with pytest.raises(SpadesError, match="must be partners"):
        nil_safe(pos, ("N", "E"))
    with pytest.raises(SpadesError, match="expected a Position"):
        dd_tricks("AS KS")  # type: ignore[arg-type]


# --- the command line and the batch --------------------------------------------------

EASY = ["AKQJ.T98.765.432", "T98.765.432.AKQJ", "765.432.AKQJ.T98", "432.AKQJ.T98.765"]


def test_solve_command_prints_tricks_cards_and_nil():
    from click.testing import CliRunner

    from spades_sim.cli import cli

    args = ["solve", *EASY, "--broken", "--leader", "N", "--cards", "--nil", "E"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "N leads (spades broken): N-S 8, E-W 5"
    assert lines[1].startswith("cards of N (tricks for N-S): AS 8  KS 8")
    assert lines[2] == "nil E: not safe"


def test_solve_command_in_cutthroat_solves_the_nil_only():
    from click.testing import CliRunner

    from spades_sim.cli import cli

    args = ["solve", *EASY, "--broken", "--leader", "N", "--rules", "cutthroat-4"]
    result = CliRunner().invoke(cli, [*args, "--nil", "E"])
    assert result.exit_code == 0, result.output
    pos = Position(EASY, "N", spades_broken=True, rules=Rules.preset("cutthroat-4"))
    alone = nil_safe(pos, "E")
    want = f"nil E: {'safe' if alone else 'not safe'}"
    assert result.output.splitlines() == ["N leads (spades broken)", want]
    result = CliRunner().invoke(cli, args)  # no nil named: nothing cutthroat can solve
    assert result.exit_code != 0
    assert result.output.splitlines() == [
        "error: --nil: in cutthroat (partnerships=false) only a nil is solved; name its seat"
    ]


def test_solve_command_errors_are_one_line():
    from click.testing import CliRunner

    from spades_sim.cli import cli

    result = CliRunner().invoke(cli, ["solve", *EASY[:3], "AKQ..."])
    assert result.exit_code == 2  # a deal that cannot be is a command that cannot be taken
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")
    result = CliRunner().invoke(cli, ["solve", "runs/none"])  # a run, solved into itself
    assert result.exit_code == 1 and "runs/none is not a spades_sim run" in result.output


def test_dd_table_refuses_bad_input():
    import numpy as np

    from spades_sim.run import dd_table

    with pytest.raises(SpadesError, match="dealers: give the dealer"):
        dd_table(np.zeros((1, 4), dtype=np.uint64))
    with pytest.raises(SpadesError, match="deal 0: card 2C is missing"):
        dd_table(np.zeros((1, 4), dtype=np.uint64), [0])


def test_trump_rules_in_positions():
    """Under must_trump a void seat holding a spade must play one; under must_overtrump
    a spade must beat the trick's spade when it can; a trick that broke a rule is refused."""
    trump = Rules(must_trump=True)
    over = Rules(must_trump=True, must_overtrump=True)
    # N led the QH; E, void in hearts, holds the KS
    hands = ["AH", "2C KS", "KH 2H", "3S 4D"]
    assert list(dd_cards(Position(hands, "E", ["QH"]))) == ["KS", "2C"]
    assert list(dd_cards(Position(hands, "E", ["QH"], rules=trump))) == ["KS"]
    # N led the QD and E ruffed with the 9S: S must beat it with the KS, not the 2S
    hands = ["AH", "5C", "KS 2S", "3H 4H"]
    assert list(dd_cards(Position(hands, "S", ["QD", "9S"], rules=trump))) == ["KS", "2S"]
    assert list(dd_cards(Position(hands, "S", ["QD", "9S"], rules=over))) == ["KS"]
    # unable to beat it, S still trumps
    hands = ["AH", "5C", "3H 2S", "4H 5H"]
    assert list(dd_cards(Position(hands, "S", ["QD", "9S"], rules=over))) == ["2S"]
    with pytest.raises(SpadesError, match="must_trump"):
        Position(["AH", "3S", "KH 2H", "3D 4D"], "S", ["QH", "4C"], rules=trump)
    with pytest.raises(SpadesError, match="must_overtrump"):
        # E followed N's 9S lead with the 2S, holding the KS
        Position(["AH", "KS", "KH 2H", "3D 4D"], "S", ["9S", "2S"], True, rules=over)


def test_play_rules_bits_follow_the_rules_by_name() -> None:
    from spades_sim.solve.solver import play_rules

    cases = [
        (Rules(), 0),
        (Rules(spades_lead="any_time"), 1),
        (Rules(first_lead="two_of_clubs"), 2),
        (Rules(must_trump=True), 4),
        (Rules(must_trump=True, must_overtrump=True, spades_lead="any_time"), 13),
    ]
    for rules, bits in cases:
        assert int(play_rules(rules)) == bits, rules


def test_nil_table_hands_its_deals_out_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``nil_table`` gives each free thread the next deal, so two slow nils (deals 0 and 2,
    which fixed stripes would give one thread) are solved on two threads while the other
    deals wait for neither. The kernel is a stand-in with the real one's calling
    convention: a nil is "safe" when its seat holds no spade; a spade-free W is slow."""
    import threading
    import time

    from spades_sim._nb import dd as dd_module
    from spades_sim.solve import batch
    from spades_sim.threads import kernel_threads

    spades = np.uint64(0x1FFF << 39)
    slow_on: dict[int, int] = {}

    def stand_in(first, end, n_stripes, hands, leaders, nil_masks, players,  # type: ignore[no-untyped-def]
                 play_rules, keys, data, safe, stats) -> None:  # fmt: skip
        for k in range(first, end):
            for d in range(k, hands.shape[0], n_stripes):
                if not hands[d, 3] & spades:
                    time.sleep(0.5)
                    slow_on[int(hands[d, 0])] = threading.get_ident()
                safe[d] = 1 if not hands[d, 3] & spades else 0

    monkeypatch.setattr(batch, "ensure_compiled", lambda *args: None)
    monkeypatch.setattr("spades_sim.threads.ensure_compiled", lambda *args: None)
    monkeypatch.setattr(dd_module, "nil_table_nb", stand_in)
    suits = [0x1FFF << (13 * s) for s in range(4)]  # W holds the spades
    swapped = [suits[0], suits[1], suits[3], suits[2]]  # W holds the hearts: slow
    deals = np.array([swapped, suits, swapped, suits, suits, suits], dtype=np.uint64)
    deals[2, [0, 2]] = deals[2, [2, 0]]  # tell the two slow deals apart by N's hand
    with kernel_threads(2):
        safe = batch.nil_table(deals, [0] * 6, 3, rules=Rules())
    assert safe.tolist() == [True, False, True, False, False, False]
    assert len(slow_on) == 2 and len(set(slow_on.values())) == 2, slow_on
