"""The solver against bridge's DDS (through endplay, from PyPI): with spades as trump and
spades already broken, Spades play is bridge play, so the tricks from each leader and each
card's value must be DDS's."""

from __future__ import annotations

import numpy as np
import pytest

from spades_sim.cards import format_hand
from spades_sim.solve import Position, dd_cards, dd_tricks

endplay = pytest.importorskip("endplay")
from endplay.dds import solve_board  # noqa: E402
from endplay.types import Deal, Denom, Player  # noqa: E402

_SUITS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}


def random_deals(n: int, seed: int, cards: int = 13) -> list[list[int]]:
    """``n`` random deals of ``cards`` cards a hand (fewer than 13: an ending, the cards
    out of play drawn at random too; DDS solves endings as it solves deals)."""
    rng = np.random.default_rng(seed)
    deals = []
    for _ in range(n):
        perm = rng.permutation(52)
        deals.append(
            [sum(1 << int(c) for c in perm[cards * s : cards * s + cards]) for s in range(4)]
        )
    return deals


def dds(hands: list[int], leader: int) -> dict[str, int]:
    """DDS's score of each card of ``leader`` (tricks of the leader's side)."""
    pbn = "N:" + " ".join(format_hand(h) for h in hands)
    deal = Deal(pbn, first=Player(leader), trump=Denom.spades)
    out = {}
    for card, tricks in solve_board(deal):
        out[card.rank.abbr + _SUITS[card.suit.name]] = tricks
    return out


def check(n: int, seed: int, cards: bool, size: int = 13) -> None:
    for d, hands in enumerate(random_deals(n, seed, size)):
        for leader in range(4):
            pos = Position(hands, leader, spades_broken=True)
            want = dds(hands, leader)
            assert dd_tricks(pos) == max(want.values()), (d, leader)
            if cards:
                assert dd_cards(pos) == want, (d, leader)


def test_dd_tricks_and_cards_equal_dds_on_endings():
    check(40, seed=11, cards=True, size=5)


@pytest.mark.slow
def test_dd_tricks_equal_dds_on_many_endings():
    check(1000, seed=12, cards=False, size=7)


@pytest.mark.slow
def test_dd_cards_equal_dds_on_hundreds_of_endings():
    check(200, seed=13, cards=True, size=7)


@pytest.mark.slow
def test_dd_cards_equal_dds_on_longer_endings():
    check(40, seed=15, cards=True, size=9)


@pytest.mark.slow
def test_dd_tricks_equal_dds_on_whole_deals():
    # 400 whole-deal solves, about 0.15 s each on one core (a minute): what the slow
    # tier's time allows at this speed (the benchmark checks every solve it times too)
    check(100, seed=14, cards=False)
