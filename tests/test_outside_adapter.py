"""The outside rung's adapter (benchmarks/openspiel_adapter.py) feeds a seat only what it
may know, without pyspiel.

Mid-hand states come from hands played at random by the reference engine, the truth
(every seat's cards now) kept beside them. For each: the sampled world gives the deciding
seat exactly its own cards and every other seat exactly its card count, no card played and
no card of a suit it showed out of (voids read here from the plays, independently of the
adapter); the world is the same when the other seats' true cards are changed but the
seat's view is not; and the OpenSpiel action sequence reads back into the world's dealt
hands, the bids and the plays.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from spades_sim.cards import card_suit
from spades_sim.reference import play_out
from spades_sim.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
RULES = Rules.preset("openspiel")


def load_adapter() -> ModuleType:
    path = ROOT / "benchmarks" / "openspiel_adapter.py"
    spec = importlib.util.spec_from_file_location("openspiel_adapter", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


adapter = load_adapter()


def bits(cards) -> int:
    return sum(1 << c for c in cards)


def random_decisions(rng: random.Random, hands_played: int) -> list[tuple]:
    """(truth now, dealer, bids, plays so far, seat to act) at random decisions of hands
    played at random under the openspiel rules."""
    found = []
    for _ in range(hands_played):
        deck = list(range(52))
        rng.shuffle(deck)
        dealt = [bits(deck[13 * s : 13 * s + 13]) for s in range(4)]
        dealer = rng.randrange(4)
        bids = tuple(rng.choice((0, 1, 2, 3, 4, 5)) for _ in range(4))
        now = list(dealt)
        plays: list[tuple[int, int]] = []
        stops = set(rng.sample(range(52), 6))

        def choose(seat, hand, legal, trick, now=now, plays=plays, stops=stops, d=dealer, b=bids):
            if len(plays) in stops:
                found.append((list(now), d, b, list(plays), seat))
            card = rng.choice([c for c in range(52) if legal >> c & 1])
            plays.append((seat, card))
            now[seat] &= ~(1 << card)
            return card

        play_out(dealt, dealer, bids, RULES, choose)
    return found


def shown_voids(plays: list[tuple[int, int]]) -> list[int]:
    """Bit u of seat s: s did not follow suit u when it was led (read from the plays)."""
    voids = [0] * 4
    for start in range(0, len(plays), 4):
        trick = plays[start : start + 4]
        led = card_suit(trick[0][1])
        for seat, card in trick[1:]:
            if card_suit(card) != led:
                voids[seat] |= 1 << led
    return voids


def other_truth(rng: random.Random, now: list[int], seat: int, plays) -> list[int]:
    """Another deal of the hidden cards, with the same counts and the shown voids kept
    (hands shuffled among seats that showed out of no suit, rejection otherwise)."""
    voids = shown_voids(plays)
    hidden = [c for s in range(4) if s != seat for c in range(52) if now[s] >> c & 1]
    others = [s for s in range(4) if s != seat]
    for _ in range(2000):
        rng.shuffle(hidden)
        truth, k = list(now), 0
        for s in others:
            n = bin(now[s]).count("1")
            truth[s] = bits(hidden[k : k + n])
            k += n
        if all(
            not (truth[s] >> c & 1 and voids[s] >> card_suit(c) & 1)
            for s in others
            for c in range(52)
        ):
            return truth
    return list(now)  # no other deal found quickly: the check below still holds


@pytest.mark.parametrize("seed", [1, 2])
def test_sampled_worlds_hold_only_what_the_seat_may_know(seed: int) -> None:
    rng = random.Random(seed)
    decisions = random_decisions(rng, 25)
    voids_seen = changed = 0
    for now, dealer, bids, plays, seat in decisions:
        view = adapter.seat_view(seat, now, dealer, bids, plays)
        played = bits(card for _, card in plays)
        voids = shown_voids(plays)
        voids_seen += sum(bin(v).count("1") for v in voids)
        key = rng.getrandbits(64)
        for w in range(3):
            world = adapter.sample_world(view, RULES, key, w)
            assert world[seat] == now[seat], "the deciding seat's own cards"
            union = 0
            for s in range(4):
                if s == seat:
                    continue
                assert bin(world[s]).count("1") == bin(now[s]).count("1"), "card count"
                assert world[s] & played == 0, "a card already played"
                assert world[s] & union == 0, "a card dealt twice"
                for c in range(52):
                    if world[s] >> c & 1:
                        assert not voids[s] >> card_suit(c) & 1, "a suit the seat showed out of"
                union |= world[s]
            assert union == bits(range(52)) & ~played & ~now[seat], "every unseen card"

            # the other seats' true cards changed, the seat's view the same: the same world
            truth = other_truth(rng, now, seat, plays)
            changed += truth != now
            twin = adapter.seat_view(seat, truth, dealer, bids, plays)
            assert twin == view
            assert adapter.sample_world(twin, RULES, key, w) == world

            # the OpenSpiel sequence reads back into the world, the bids and the plays
            actions = adapter.openspiel_actions(view, world)
            assert sorted(actions[:52]) == list(range(52))
            assert all(52 <= a <= 65 for a in actions[52:56])
            dealt, read_bids, read_plays = adapter.decode_actions(actions, view.first_seat, RULES)
            for s in range(4):
                assert dealt[s] == world[s] | bits(c for p, c in plays if p == s)
            assert read_bids == tuple(bids)
            assert read_plays == tuple(plays)
    assert len(decisions) == 150
    assert voids_seen > 100  # the states do test voids
    assert changed > 300  # and most checks of (c) ran on a different truth


def test_table_info_reads_the_public_plays() -> None:
    rng = random.Random(5)
    for now, dealer, bids, plays, seat in random_decisions(rng, 10):
        view = adapter.seat_view(seat, now, dealer, bids, plays)
        table = adapter.public_table(view, RULES)
        assert list(table.voids) == shown_voids(plays)
        assert table.trick_no == len(plays) // 4
        assert sum(table.tricks_won) == table.trick_no
        assert (table.leader + len(table.trick)) % 4 == seat
        assert table.played == bits(c for _, c in plays)


def test_card_names_and_the_vote() -> None:
    # pyspiel names action 0 "C2", 12 "CA", 13 "D2", 51 "SA" (the rung's worker checks
    # the whole list against pyspiel); our card ids name the same cards
    assert [adapter.openspiel_name(a) for a in (0, 12, 13, 51)] == ["C2", "CA", "D2", "SA"]
    for card in range(52):
        assert adapter.card_of_openspiel(adapter.openspiel_card(card)) == card
    assert adapter.vote([7, 3, 7, 3, 9]) == 3  # a tie goes to the lowest action
    assert adapter.vote([9, 3, 9]) == 9
