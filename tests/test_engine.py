"""The kernels against the reference engine on random deals, plus invariants and
reproducibility.

Deals are simulated by the kernels with the play recorded, then replayed through the
independent pure-Python engine (``spades_sim.reference``), which checks every play for
legality and recomputes trick winners, tricks, scores, bags and nil outcomes; blind nil
exchanges are checked against the dealt hands; whole games are replayed hand by hand with
scores and bags carried. The fast tier uses a few hundred deals per preset; the slow tier
(``-m slow``) 100,000 hands and 2,000 games of the standard game, 40,000 hands and 800
games of each other preset.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from spades_sim import reference
from spades_sim._nb import lockstep_entries
from spades_sim._nb.enums import LANES
from spades_sim.cards import deck_mask
from spades_sim.custom.kernels import SAMPLING
from spades_sim.hand import score_hand
from spades_sim.policies import describe
from spades_sim.rules import Rules
from spades_sim.run import chunks as run_rows
from spades_sim.run.select import Kernel, Produces, select_kernel
from spades_sim.run.spec import RunSpec
from spades_sim.simulate import record_hands, simulate_games, simulate_hands
from spades_sim.threads import kernel_name

PRESETS = tuple(Rules.PRESETS)
# Random bids with nils and blind nils, so every scoring path is exercised.
WILD_BIDDING = "random:nil_rate=0.15,blind_nil_rate=0.08,max_bid=5"


def _hand_records(chunk, rules: Rules):
    """Per hand: (held hands, dealt hands, dealer, bids, blind seats, plays, row slice)."""
    players = rules.players
    h = chunk.hands
    n = len(h["hand"]) // players
    held = h["hand"].reshape(n, players)
    bids = h["bid"].reshape(n, players)
    blind = h["blind_nil"].reshape(n, players)
    dealer = h["dealer"].reshape(n, players)[:, 0]
    for i in range(n):
        yield (
            [int(x) for x in held[i]],
            [int(x) for x in chunk.plays["dealt"][i]],
            int(dealer[i]),
            [int(x) for x in bids[i]],
            [s for s in range(players) if blind[i, s]],
            [int(x) for x in chunk.plays["plays"][i]],
            slice(i * players, (i + 1) * players),
        )


def _assert_rows_match(result, chunk, rows: slice, rules: Rules, where: str) -> None:
    h = chunk.hands
    players = rules.players
    seats = range(players)
    assert tuple(h["tricks"][rows]) == result.tricks, where
    for seat in seats:
        side = rules.side_of(seat)
        row = rows.start + seat
        assert h["side"][row] == side, where
        assert h["score_change"][row] == result.score_change[side], where
        assert h["bags_change"][row] == result.bags_change[side], where
        assert h["bag_penalty"][row] == result.bag_penalties[side], where
        assert h["side_contract"][row] == result.contracts[side], where
        assert h["side_tricks"][row] == result.side_tricks[side], where
        made = h["made"][row]
        assert (None if made < 0 else bool(made)) == result.made[side], where
        nil_made = h["nil_made"][row]
        assert (None if nil_made < 0 else bool(nil_made)) == result.nil_made[seat], where
        assert bool(h["boston"][row]) == result.boston[side], where


def check_hands_against_reference(rules: Rules, n: int, seed: int, bidding: str) -> int:
    chunk = record_hands(n, seed=seed, rules=rules, bidding=bidding, play="random")
    blind_seen = 0
    for deal, record in enumerate(_hand_records(chunk, rules)):
        held, dealt, dealer, bids, blind, plays, rows = record
        where = f"{rules} seed {seed} deal {deal}"
        reference.check_blind_nil_exchange(dealt, held, bids, blind, rules)
        result = reference.replay_hand(held, dealer, bids, plays, rules, blind_nil=blind)
        assert tuple(int(w) for w in chunk.plays["trick_winners"][deal]) == result.trick_winners
        _assert_rows_match(result, chunk, rows, rules, where)
        blind_seen += bool(blind)
    return blind_seen


@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_matches_reference_on_random_hands(preset: str) -> None:
    rules = Rules.preset(preset)
    blind = check_hands_against_reference(rules, 300, seed=11, bidding=WILD_BIDDING)
    assert blind > 0 or not rules.blind_nil  # blind nil paths were exercised
    check_hands_against_reference(rules, 100, seed=12, bidding="count")


def test_exchanges_when_both_partners_or_players_bid_blind_nil() -> None:
    # Frequent blind nils: both players (two-player) or both partners declare often,
    # which the exchange rules treat specially (no exchange; no drawing the other
    # declarer's discards).
    bidding = "random:nil_rate=0.2,blind_nil_rate=0.6,max_bid=5"
    for preset in ("two-player", "blind-nil-exchange"):
        assert check_hands_against_reference(Rules.preset(preset), 400, 13, bidding) > 200


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_matches_reference_on_many_hands(preset: str) -> None:
    # 100,000 hands of the standard game, 15,000 of each other preset (a variant's rules
    # touch fewer code paths, and every preset has more in the fast tier; the reference
    # replays about 4,000 hands a second)
    rules = Rules.preset(preset)
    scale = 1.0 if preset == "standard" else 0.15
    check_hands_against_reference(rules, int(70_000 * scale), seed=101, bidding=WILD_BIDDING)
    check_hands_against_reference(rules, int(30_000 * scale), seed=102, bidding="count")


def check_games_against_reference(rules: Rules, n: int, seed: int, bidding: str) -> None:
    chunk = record_hands(n, seed=seed, rules=rules, bidding=bidding, mode="games")
    players = rules.players
    h, games = chunk.hands, chunk.games
    assert games is not None
    game_of_hand = chunk.plays["game"]
    start = 0
    for g in range(n):
        n_hands = int(games["hands"][g])
        records = []
        for k in range(start, start + n_hands):
            assert game_of_hand[k] == g and chunk.plays["hand_no"][k] == k - start
            rows = slice(k * players, (k + 1) * players)
            records.append(
                {
                    "hands": [int(x) for x in h["hand"][rows]],
                    "dealt": [int(x) for x in chunk.plays["dealt"][k]],
                    "dealer": int(h["dealer"][rows.start]),
                    "bids": [int(x) for x in h["bid"][rows]],
                    "blind_nil": [s for s in range(players) if h["blind_nil"][rows][s]],
                    "plays": [int(x) for x in chunk.plays["plays"][k]],
                }
            )
        replay = reference.replay_game(records, rules)
        where = f"{rules} seed {seed} game {g}"
        for k, result in zip(range(start, start + n_hands), replay.results, strict=True):
            rows = slice(k * players, (k + 1) * players)
            _assert_rows_match(result, chunk, rows, rules, where)
            for seat in range(players):
                side = rules.side_of(seat)
                assert h["score_after"][rows.start + seat] == result.scores_after[side]
                assert h["bags_after"][rows.start + seat] == result.bags_after[side]
        winner = -1 if replay.winner is None else replay.winner
        reason = {"target": 1, "loss_threshold": 2, "unfinished": 3}[replay.reason]
        assert (games["winner"][g], games["reason"][g]) == (winner, reason), where
        # sides 2 and 3 (cutthroat) in the *_2/*_3 columns, 0 when there are two sides
        for stat, got in (
            ("score", replay.scores),
            ("bags", replay.bags),
            ("bag_penalty", replay.bag_penalties),
        ):
            names = (f"{stat}_ns", f"{stat}_ew", f"{stat}_2", f"{stat}_3")
            row = tuple(int(games[name][g]) for name in names)
            assert row == (*got, 0, 0)[:4], where
        start += n_hands
    assert start * players == len(h["hand"])


@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_matches_reference_on_games(preset: str) -> None:
    rules = Rules.preset(preset, max_hands=40)
    check_games_against_reference(rules, 12, seed=5, bidding="count")
    check_games_against_reference(rules, 6, seed=6, bidding=WILD_BIDDING)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_matches_reference_on_many_games(preset: str) -> None:
    # 2,000 games of the standard game, 300 of each other preset
    rules = Rules.preset(preset)
    scale = 1.0 if preset == "standard" else 0.15
    check_games_against_reference(rules, int(1500 * scale), seed=55, bidding="count")
    check_games_against_reference(rules, int(500 * scale), seed=56, bidding=WILD_BIDDING)


@pytest.mark.parametrize("preset", PRESETS)
def test_score_hand_matches_reference_on_random_inputs(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = np.random.default_rng(3)
    players = rules.players
    for _ in range(400):
        tricks = rng.multinomial(rules.tricks, np.full(players, 1 / players)).tolist()
        bids = rng.integers(0, 8, players).tolist()
        if rules.bid_rule != "free" and rng.random() < 0.5:  # bids the hands could make
            bids = rng.multinomial(rules.tricks, np.full(players, 1 / players)).tolist()
        scores = rng.integers(-400, 600, rules.sides).tolist()
        limit = rules.bag_limit if rules.bag_penalty else 40
        bags = rng.integers(0, limit, rules.sides).tolist()
        blind = [
            s for s in range(players) if bids[s] == 0 and rules.blind_nil and rng.random() < 0.5
        ]
        args = dict(rules=rules, blind_nil=blind, scores_before=scores, bags_before=bags)
        try:
            expected = reference.score_hand(bids, tricks, **args)
        except ValueError as error:  # bids the bid rule refuses: the same error
            with pytest.raises(type(error)) as refused:
                score_hand(bids, tricks, **args)
            assert str(refused.value) == str(error)
            continue
        assert score_hand(bids, tricks, **args) == expected


# --- invariants over many simulated hands ---------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_invariants_over_simulated_hands(preset: str) -> None:
    rules = Rules.preset(preset)
    players = rules.players
    n = 3000
    chunk = record_hands(n, seed=21, rules=rules, bidding=WILD_BIDDING)
    h = chunk.hands
    held = h["hand"].reshape(n, players)
    plays = chunk.plays["plays"].astype(np.int64)
    # every card played once: the plays of a deal are distinct and are the held cards
    played_masks = np.bitwise_or.reduce(
        np.left_shift(np.uint64(1), plays.astype(np.uint64)), axis=1
    )
    held_union = np.bitwise_or.reduce(held, axis=1)
    assert (played_masks == held_union).all()
    tricks = rules.tricks  # 13, or 17 or 18 with three players
    assert all(len(set(row)) == tricks * players for row in plays[:200].tolist())
    assert (np.bitwise_count(held) == tricks).all()
    deck = np.uint64(deck_mask(rules.jokers, rules.deuces_high, players))
    if players != 2:  # four and three players hold the whole pack
        assert (held_union == deck).all()
    else:
        assert (held[:, 0] & held[:, 1] == 0).all()
        assert ((held_union & ~deck) == 0).all()
    # every trick, bids in range, nil flags consistent, contracts and made flags add up
    assert (h["tricks"].reshape(n, players).sum(axis=1) == tricks).all()
    assert ((h["bid"] >= 0) & (h["bid"] <= tricks)).all()
    assert ((h["nil"] | h["blind_nil"]) == (h["bid"] == 0)).all()
    made = h["made"]
    contract = h["side_contract"]
    assert ((made == -1) == (contract == 0)).all()
    assert ((made == 1) == ((contract > 0) & (h["side_tricks"] >= contract))).all()
    # follow suit and spades broken, checked play by play on a sample
    for deal in range(300):
        _check_play_rules(held[deal], plays[deal], rules)


def _check_play_rules(held: np.ndarray, plays: np.ndarray, rules: Rules) -> None:
    players = rules.players
    hands = [int(x) for x in held]
    owner = {c: s for s, m in enumerate(hands) for c in range(56) if m >> c & 1}
    broken = False
    for t in range(rules.tricks):
        trick = [int(c) for c in plays[t * players : (t + 1) * players]]
        led = min(trick[0] // 13, 3)
        if led == 3 and not broken and rules.spades_lead == "after_broken":
            leader = owner[trick[0]]
            assert t > 0 or rules.first_lead == "any_but_spades"
            assert all(min(c // 13, 3) == 3 for c in range(56) if hands[leader] >> c & 1)
        for card in trick[1:]:
            seat = owner[card]
            if min(card // 13, 3) != led:
                assert not any(min(c // 13, 3) == led for c in range(56) if hands[seat] >> c & 1), (
                    "revoke"
                )
        for card in trick:
            hands[owner[card]] &= ~(1 << card)
            broken |= card >= 39


# --- reproducibility ------------------------------------------------------------------


def test_same_seed_same_frame_whatever_threads_and_chunks() -> None:
    kwargs = dict(seed=77, bidding=WILD_BIDDING, play="random")
    base = simulate_hands(5000, threads=1, chunk_size=5000, **kwargs)
    for threads, chunk_size in ((2, 5000), (1, 777), (2, 64), (2, None)):
        other = simulate_hands(5000, threads=threads, chunk_size=chunk_size, **kwargs)
        pd.testing.assert_frame_equal(base, other)
    assert not base.equals(simulate_hands(5000, seed=78, threads=2))


def test_same_seed_same_games_whatever_threads_and_chunks() -> None:
    rules = Rules(max_hands=60)
    hands1, games1 = simulate_games(40, seed=9, rules=rules, threads=1, chunk_size=40)
    hands2, games2 = simulate_games(40, seed=9, rules=rules, threads=2, chunk_size=7)
    pd.testing.assert_frame_equal(hands1, hands2)
    pd.testing.assert_frame_equal(games1, games2)


def test_any_deal_regenerates_on_its_own() -> None:
    run = record_hands(500, seed=31)
    one = record_hands(1, seed=31, start=377)
    for name, values in one.hands.items():
        assert (values == run.hands[name][377 * 4 : 378 * 4]).all(), name
    assert (one.plays["plays"][0] == run.plays["plays"][377]).all()


@pytest.mark.parametrize("play", ["random", "heuristic"])
@pytest.mark.parametrize("preset", PRESETS)
def test_lockstep_play_equals_scalar_play(preset: str, play: str) -> None:
    # simulate_hands with random (or heuristic) play on both sides takes the lock-step
    # kernel; recording the play takes the scalar one. Both must pick the same cards.
    rules = Rules.preset(preset)
    n = 1000  # not a multiple of the 64-deal batch, so a partial batch is covered
    frame = simulate_hands(n, seed=41, rules=rules, bidding=WILD_BIDDING, play=play)
    scalar = record_hands(n, seed=41, rules=rules, bidding=WILD_BIDDING, play=play)
    for name, values in scalar.hands.items():
        column = frame[name]
        got = column.to_numpy(dtype="int8", na_value=-1) if column.dtype == "boolean" else column
        assert (np.asarray(got) == values).all(), name


@pytest.mark.parametrize(
    "bidding",
    [s.name for s in describe("bid") if s.name not in (*SAMPLING["bid"], "random")],
)
def test_lockstep_bidding_equals_scalar_bidding(bidding: str) -> None:
    # The lock-step kernels bid in lock-step (lockstep_bidding.py, four players); the
    # scalar kernel through policies.builtin_bid_nb. Same bids, for every
    # registered bidder (random: test_lockstep_play_equals_scalar_play).
    frame = simulate_hands(700, seed=43, bidding=bidding, play="heuristic")
    scalar = record_hands(700, seed=43, bidding=bidding, play="heuristic")
    for name in ("bid", "nil", "blind_nil", "tricks", "score_change"):
        got = frame[name].to_numpy(dtype="int16", na_value=-1)
        assert (got == scalar.hands[name].astype("int16")).all(), name


@pytest.mark.parametrize(
    "bidding",
    [
        ("count", "pagat"),
        ("partner-aware", WILD_BIDDING),
        (WILD_BIDDING, "count:bias=0.5,nil_threshold=4"),
        ("pagat:queen_value=0.5,trump_length=3", "partner-aware:opp_nil_bonus=1,score_margin=0"),
    ],
)
@pytest.mark.parametrize("preset", ["standard", "blind-nil-exchange", "jokers", "no-bags"])
def test_lockstep_bidding_of_two_different_sides_equals_scalar(
    bidding: tuple[str, str], preset: str
) -> None:
    # The lock-step bidder evaluates every bidder in every lane and keeps each side's own
    # answer: mixed sides, custom parameters, blind nil (random bids it) with the exchange,
    # jokers, no bags must all give the one-deal-at-a-time bids and the same play after.
    rules = Rules.preset(preset)
    frame = simulate_hands(900, seed=44, rules=rules, bidding=bidding, play="random")
    scalar = record_hands(900, seed=44, rules=rules, bidding=bidding, play="random")
    for name in ("hand", "bid", "nil", "blind_nil", "tricks", "score_change", "policy_error"):
        if name not in scalar.hands:
            continue
        got = frame[name].to_numpy(dtype="int64", na_value=-1)
        assert (got == scalar.hands[name].astype("int64")).all(), name


@pytest.mark.parametrize("bidding", ["count", "pagat"])
def test_lockstep_heuristic_off_its_defaults_equals_scalar_play(bidding: str) -> None:
    # Off the registry defaults the four-player lock-step kernels play the general copy
    # of the heuristic's loops (at them, the copy with the defaults as constants:
    # test_lockstep_play_equals_scalar_play); both pick the scalar path's cards.
    play = ("heuristic:nil_read=1", "heuristic:set_push=0,nil_long=1")
    frame = simulate_hands(700, seed=45, bidding=bidding, play=play)
    scalar = record_hands(700, seed=45, bidding=bidding, play=play)
    for name in ("bid", "nil", "blind_nil", "tricks", "score_change"):
        got = frame[name].to_numpy(dtype="int16", na_value=-1)
        assert (got == scalar.hands[name].astype("int16")).all(), name


def test_a_lockstep_heuristic_run_gets_the_one_copy_of_the_play_it_needs() -> None:
    # Each lock-step heuristic kernel compiles one copy of the play loops: the one with
    # the defaults as constants when four players play both sides at the defaults (a
    # new user's first run), else the general one; choosing per call in the kernel
    # compiled both, a third more of a first run's wait.
    def entry(produces: Produces = "rows", **kwargs: Any) -> str:
        return kernel_name(select_kernel(RunSpec.build(seed=0, **kwargs), produces).entry)

    assert entry() == "hands_heuristic_defaults_lockstep_count_nb"
    assert entry("counts") == "aggregate_hands_heuristic_defaults_count_nb"
    assert entry(bidding="pagat") == "hands_heuristic_defaults_lockstep_nb"
    assert entry("counts", bidding="pagat") == "aggregate_hands_heuristic_defaults_nb"
    assert entry(play="heuristic:nil_read=1") == "hands_heuristic_lockstep_count_nb"
    changed = ("heuristic", "heuristic:set_push=0")  # one side off the defaults is enough
    assert entry(play=changed, bidding="pagat") == "hands_heuristic_lockstep_nb"
    assert entry("counts", play=changed) == "aggregate_hands_heuristic_count_nb"
    assert entry(rules=Rules.preset("two-player")) == "hands_heuristic_lockstep_two_nb"


def test_the_heuristic_defaults_kernel_refuses_other_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The defaults' copy has the defaults as constants: given other parameters by a
    # wrong choice it would play other cards than asked, so it refuses to play at all.
    entry = lockstep_entries.hands_heuristic_defaults_lockstep_count_nb
    defaults = Kernel(entry, LANES, lockstep=True)
    monkeypatch.setattr(run_rows, "select_kernel", lambda spec, produces: defaults)
    assert run_rows.kernel_outputs(RunSpec.build(seed=3), 0, 100)["status"].sum() == 0
    for play in (("heuristic", "heuristic:nil_read=1"), ("heuristic:set_push=0", "heuristic")):
        with pytest.raises(ValueError, match="four players at the defaults only"):
            run_rows.kernel_outputs(RunSpec.build(seed=3, play=play), 0, 100)


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": 1, "threads": 0}, "threads"),
        ({"seed": 1, "chunk_size": 0}, "chunk_size"),
        ({"seed": 1, "bidding": "nosuch"}, "unknown bid policy 'nosuch'"),
        ({"seed": 1, "bidding": "count:nosuch=1"}, "no parameter 'nosuch'"),
        ({"seed": 1, "bidding": "count:bias=x"}, "must be a number"),
        ({"seed": 1, "bidding": "count:bias=99"}, "outside"),
        ({"seed": 1, "play": ("random",)}, "two entries"),
        ({"seed": 1, "rules": "standard"}, "rules"),
    ],
)
def test_simulate_refuses_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate_hands(10, **kwargs)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Rules.preset("nosuch"), "unknown rules preset 'nosuch'"),
        (lambda: Rules().replace(nosuch=1), "unknown rules field 'nosuch'"),
        (lambda: Rules(players=3), "players"),
        (lambda: Rules(target="500"), "target"),
        (lambda: Rules(jokers=1), "jokers"),
        (lambda: Rules(loss_threshold=600), "loss_threshold"),
        (lambda: Rules(blind_nil=False, blind_nil_exchange=3), "blind_nil_exchange"),
        (
            lambda: Rules(nil_tricks_count_for_partner=True, nil_tricks_count_as_bags=True),
            "nil_tricks_count_for_partner",
        ),
        (lambda: Rules().with_text({"jokers": "maybe"}), "jokers"),
        (lambda: Rules().with_text({"target": "lots"}), "target"),
    ],
)
def test_rules_refuse_bad_values(build, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
