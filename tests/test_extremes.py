"""Nothing wrong, silently: every rule field at its extremes, and no column that wraps.

Each numeric field of :class:`Rules` is built at its least and greatest accepted value
and refused one step beyond, with an error naming the field. The kernels are then run
under the most extreme scoring the rules accept (10,000-point nils, Boston bonus and bag
penalty with a bag limit of 1) and checked against the reference engine hand by hand: a
score change beyond int16 (it reaches tens of thousands here) must come out right. A
long game without bag penalty carries bags past 32,767 and must reconcile exactly.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_engine import check_games_against_reference, check_hands_against_reference

from spades_sim.rules import Rules
from spades_sim.simulate import simulate_games, simulate_hands

# (least, greatest) accepted for every whole-number field
RANGES = {
    "blind_nil_min_deficit": (0, 100_000),
    "blind_nil_exchange": (0, 13),
    "boston_bonus": (0, 10_000),
    "nil_value": (0, 10_000),
    "blind_nil_value": (0, 10_000),
    "bag_limit": (1, 1_000),
    "bag_penalty": (0, 10_000),
    "target": (1, 100_000),
    "max_hands": (1, 10_000),
    "big_bid_multiplier": (1, 10),
    "min_side_bid": (0, 13),
    "min_number_bid": (1, 13),
    "nil_exchange": (0, 3),
}
# what a field needs beside it to be on at all
NEEDS = {"big_bid_multiplier": {"big_bid_threshold": 10}, "min_side_bid": {"blind_nil": False}}
HARSH = Rules(
    bag_limit=1,
    bag_penalty=10_000,
    nil_value=10_000,
    blind_nil_value=10_000,
    boston_bonus=10_000,
)
WILD = "random:nil_rate=0.2,blind_nil_rate=0.1,max_bid=4"


def test_every_whole_number_field_is_covered() -> None:
    whole = {f.name for f in dataclasses.fields(Rules) if f.type == "int"}
    assert whole - {"players"} == set(RANGES)


@pytest.mark.parametrize(("name", "bounds"), sorted(RANGES.items()))
def test_fields_accept_their_extremes_and_refuse_beyond(name: str, bounds: tuple) -> None:
    least, greatest = bounds
    extra = NEEDS.get(name, {})
    for value in (least, greatest):
        rules = Rules(**{name: value, **extra})
        assert getattr(rules, name) == value
        assert rules.lower().dtype == np.int64
    for value in (least - 1, greatest + 1):
        with pytest.raises(ValueError, match=f"^{name}: "):
            Rules(**{name: value})


def test_loss_threshold_extremes() -> None:
    assert Rules(loss_threshold=-100_000).loss_threshold == -100_000
    assert Rules(target=500, loss_threshold=499).loss_threshold == 499
    for value in (-100_001, 500):
        with pytest.raises(ValueError, match=r"^loss_threshold: "):
            Rules(target=500, loss_threshold=value)


def test_big_bid_threshold_extremes() -> None:
    assert Rules(big_bid_threshold=1).big_bid_threshold == 1
    assert Rules(big_bid_threshold=26).big_bid_threshold == 26
    for value in (0, 27):
        with pytest.raises(ValueError, match=r"^big_bid_threshold: "):
            Rules(big_bid_threshold=value)


def test_harshest_scoring_matches_the_reference_without_wrapping() -> None:
    check_hands_against_reference(HARSH, 300, seed=31, bidding=WILD)
    check_games_against_reference(dataclasses.replace(HARSH, max_hands=30), 5, 32, WILD)
    df = simulate_hands(2_000, seed=33, rules=HARSH, bidding=WILD, play="random")
    assert df.score_change.dtype == np.int32 and df.bag_penalty.dtype == np.int32
    assert df.score_change.abs().max() > np.iinfo(np.int16).max  # the extreme is exercised
    assert df.bag_penalty.max() > np.iinfo(np.int16).max


def test_bags_of_a_long_game_without_penalty_do_not_wrap() -> None:
    # every seat bids nil, worth nothing: each trick is a bag and a point, so the bags
    # grow as fast as the score and pass 32,767 long before the target
    rules = Rules(bag_penalty=0, nil_value=0, target=100_000, max_hands=10_000)
    hands, games = simulate_games(
        1, seed=34, rules=rules, bidding="random:nil_rate=1,blind_nil_rate=0", play="random"
    )
    side0 = hands[hands.seat == 0]
    bags = side0.bags_change.astype(np.int64).cumsum().to_numpy()
    assert bags[-1] > np.iinfo(np.int16).max  # past what an int16 column could hold
    assert np.array_equal(side0.bags_after.to_numpy(np.int64), bags)
    assert int(games.bags_ns.iloc[0]) == bags[-1]
    scores = side0.score_change.astype(np.int64).cumsum().to_numpy()
    assert np.array_equal(side0.score_after.to_numpy(np.int64), scores)
    assert int(games.hands.iloc[0]) == len(side0) <= rules.max_hands
