"""The kernels' helpers against their plain-Python twins (``naive.py``), on many random
inputs: the bit helpers of ``_nb/bitboard.py``, the random streams of ``_nb/rng.py``,
and the legal cards and trick winners of ``_nb/play.py``.

The helpers are called directly: ``@njit`` functions from Python, the LLVM intrinsics
(``popcount_nb``, ``lowest_card_nb``), which only compile inside a kernel, through the
tiny ``@njit`` wrappers below.
"""

from __future__ import annotations

import naive
import numpy as np
import pytest
from numba import njit

from spades_sim._nb import bitboard as bb
from spades_sim._nb import play, rng
from spades_sim._nb.enums import RuleField
from spades_sim.rules import Rules

SEED = 20261201
N = 1500


@njit(cache=True)
def _popcount(x):  # type: ignore[no-untyped-def]
    return bb.popcount_nb(x)


@njit(cache=True)
def _lowest(x):  # type: ignore[no-untyped-def]
    return bb.lowest_card_nb(x)


def masks(n: int = N, seed: int = SEED) -> list[int]:
    """Random 64-bit masks: uniform words, sparse and dense hands of the 54 card ids, and
    the edges (one bit, every bit, the decks)."""
    r = np.random.default_rng(seed)
    out = [int(x) for x in r.integers(0, 2**64, size=n // 3, dtype=np.uint64)]
    for _ in range(n - len(out)):
        k = int(r.integers(1, 27))
        out.append(sum(1 << int(c) for c in r.choice(54, size=k, replace=False)))
    out += [1, 1 << 63, naive.M64, naive.deck_mask(False), naive.deck_mask(True)]
    out += [1 << c for c in range(64)]
    return out


def hands(n: int = N, seed: int = SEED) -> list[int]:
    """Random non-empty sets of real cards (ids 0..53)."""
    return [m & ((1 << 54) - 1) for m in masks(n, seed) if m & ((1 << 54) - 1)]


# --- Bit helpers ------------------------------------------------------------------------


def test_popcount_lowest_highest_and_lane_variants() -> None:
    for m in masks():
        x = np.uint64(m)
        assert _popcount(x) == naive.popcount(m), hex(m)
        assert _lowest(x) == naive.lowest_card(m), hex(m)
        assert bb.highest_card_nb(x) == naive.highest_card(m), hex(m)
        assert bb.lane_lo_nb(x) == naive.lane_lo(m), hex(m)
        assert bb.lane_hi_nb(x) == naive.lane_hi(m), hex(m)
    assert bb.lane_lo_nb(np.uint64(0)) == bb.lane_hi_nb(np.uint64(0)) == -1


def test_select_bit_is_the_kth_set_bit() -> None:
    r = np.random.default_rng(SEED + 1)
    for m in masks():
        for k in {0, naive.popcount(m) - 1, int(r.integers(naive.popcount(m)))}:
            assert bb.select_bit_nb(np.uint64(m), np.int64(k)) == naive.select_bit(m, k), (m, k)


def test_card_ids_suits_ranks_and_masks() -> None:
    for card in range(56):
        assert bb.bit_nb(np.int64(card)) == 1 << card
        assert bb.suit_of_nb(np.int64(card)) == naive.suit_of(card), card
        assert bb.rank_of_nb(np.int64(card)) == naive.rank_of(card), card
        assert bb.above_nb(np.int64(card)) == naive.above(card), card
        assert bb.lane_above_nb(np.int64(card)) == naive.above(card), card
        assert bb.below_mask_nb(np.int64(card)) == naive.below(card), card
    assert bb.lane_above_nb(np.int64(-1)) == naive.M64
    for suit in range(4):
        assert bb.suit_mask_nb(np.int64(suit)) == naive.suit_mask(suit)
        assert bb.lane_suit_mask_nb(np.int64(suit)) == naive.suit_mask(suit)
    for bits in range(16):
        assert bb.lane_void_mask_nb(np.int64(bits)) == naive.void_mask(bits), bits
        assert int(bb.SUIT_MASKS_BY_BITS[bits]) == naive.void_mask(bits), bits
    for jokers in (0, 1, 2):
        assert bb.deck_mask_nb(np.int64(jokers)) == naive.deck_mask(jokers)
        assert naive.popcount(naive.deck_mask(jokers)) == 52


def test_ranks_within_suits() -> None:
    for m in hands():
        x = np.uint64(m)
        for suit in range(4):
            assert bb.holding_nb(x, np.int64(suit)) == naive.holding(m, suit), (hex(m), suit)
        assert bb.fold_nb(x) == naive.fold(m), hex(m)
        assert bb.low_rank_card_nb(x) == naive.low_rank_card(m), hex(m)
        assert bb.high_rank_card_nb(x) == naive.high_rank_card(m), hex(m)
        assert bb.lane_low_rank_nb(x) == naive.low_rank_card(m), hex(m)
        assert bb.lane_high_rank_nb(x) == naive.high_rank_card(m), hex(m)


# --- Random streams ---------------------------------------------------------------------


def test_splitmix_streams_and_draws() -> None:
    r = np.random.default_rng(SEED + 2)
    words = [int(x) for x in r.integers(0, 2**64, size=N, dtype=np.uint64)] + [0, naive.M64]
    for z in words:
        assert rng.mix64_nb(np.uint64(z)) == naive.mix64(z), z
    for _ in range(N):
        seed = int(r.integers(0, 2**63))
        kind = int(r.integers(1, 3))
        a, b = (int(x) for x in r.integers(0, 2**40, size=2))
        key = rng.stream_key_nb(np.int64(seed), np.int64(kind), np.int64(a), np.int64(b))
        assert key == naive.stream_key(seed, kind, a, b), (seed, kind, a, b)
        counter = int(r.integers(0, 2**31))
        bits = rng.draw_nb(np.uint64(key), np.int64(counter))  # keys are uint64 in kernels
        assert bits == naive.draw(int(key), counter)
        n = int(r.integers(1, 54))
        low = int(bits) & 0xFFFFFFFF
        assert rng.below_nb(np.uint64(low), np.int64(n)) == naive.below_n(low, n)
        assert 0 <= naive.below_n(low, n) < n
        assert rng.unit_nb(np.uint64(bits)) == naive.unit(int(bits))


# --- Play: legal cards and the winner of each trick -------------------------------------


def _winning_card(m: int, led: int, r: np.random.Generator) -> int:
    """A card not in ``m`` that could be winning a trick led in ``led`` (-1 when leading):
    one of the suit led, or a spade."""
    if led < 0:
        return -1
    suits = (led, naive.SPADES)
    pool = [c for c in range(56) if not m >> c & 1 and naive.suit_of(c) in suits]
    return int(r.choice(pool)) if pool else -1


def test_legal_cards() -> None:
    r = np.random.default_rng(SEED + 3)
    for m in hands():
        for _ in range(3):
            led = int(r.integers(-1, 4))
            broken, two_clubs, any_time = (bool(v) for v in r.integers(0, 2, size=3))
            trick_no = int(r.choice([0, 0, 1, 5, 12]))
            # the trump rules: off, must_trump, or both (must_overtrump needs must_trump)
            trump_rule = int(r.integers(0, 3))
            must_trump, must_over = trump_rule >= 1, trump_rule == 2
            win = _winning_card(m, led, r)
            got = play.legal_cards_nb(
                np.uint64(m), np.int64(led), broken, np.int64(trick_no), two_clubs, any_time,
                must_trump, must_over, np.int64(win),
            )  # fmt: skip
            want = naive.legal_cards(
                m, led, broken, trick_no, two_clubs, any_time, must_trump, must_over, win
            )
            assert got == want, (hex(m), led, broken, trick_no, two_clubs, any_time, win)


def _random_hand_played(rules: Rules, r: np.random.Generator) -> tuple[list[int], int, list[int]]:
    """A random deal and a random legal play of it (chosen with the twin's legal cards):
    the hands, the leader, the cards in play order."""
    deck = naive.cards(naive.deck_mask(int(rules.lower()[RuleField.jokers])))
    order = r.permutation(deck)
    held = [sum(1 << int(c) for c in order[13 * s : 13 * s + 13]) for s in range(4)]
    start = list(held)
    leader = int(r.integers(4))
    lowered = rules.lower()
    two_clubs = bool(lowered[RuleField.first_lead_two_clubs])
    any_time = bool(lowered[RuleField.spades_any_time])
    trump_rules = (bool(lowered[RuleField.must_trump]), bool(lowered[RuleField.must_overtrump]))
    broken, plays, seat = False, [], leader
    for trick_no in range(13):
        led = -1
        trick: list[tuple[int, int]] = []
        for _ in range(4):
            win = dict(trick)[naive.trick_winner(trick)] if trick else -1
            legal = naive.legal_cards(
                held[seat], led, broken, trick_no, two_clubs, any_time, *trump_rules, win
            )
            card = int(r.choice(naive.cards(legal)))
            held[seat] &= ~(1 << card)
            led = naive.suit_of(card) if led < 0 else led
            broken |= naive.suit_of(card) == naive.SPADES
            trick.append((seat, card))
            plays.append(card)
            seat = (seat + 1) % 4
        seat = naive.trick_winner(trick)
    return start, leader, plays


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard"),
        Rules.preset("jokers"),
        Rules(first_lead="two_of_clubs", spades_lead="any_time"),
        Rules(must_trump=True, must_overtrump=True, jokers=True),
        Rules(must_trump=True, must_overtrump=True, jokers=True, deuces_high=True),
    ],
    ids=["standard", "jokers", "two-of-clubs-any-time", "must-overtrump-jokers", "deuces-high"],
)
def test_trick_winners_of_random_legal_hands(rules: Rules) -> None:
    lowered = rules.lower()
    r = np.random.default_rng(SEED + 4)
    for _ in range(150):
        start, leader, plays = _random_hand_played(rules, r)
        seat, want = leader, []
        for t in range(13):
            trick = [((seat + j) % 4, plays[4 * t + j]) for j in range(4)]
            seat = naive.trick_winner(trick)
            want.append(seat)
        winners = np.zeros(13, dtype=np.int8)
        tricks = np.zeros(4, dtype=np.int64)
        code, n, _ = play.replay_tricks_nb(
            lowered,
            np.array(start, dtype=np.uint64),
            np.int64(leader),
            np.array(plays, dtype=np.int64),
            winners,
            tricks,
        )
        assert code == 0 and n == 52  # every play the twin called legal is legal
        assert winners.tolist() == want
        assert tricks.tolist() == [want.count(s) for s in range(4)]
