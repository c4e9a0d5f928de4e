"""Nil odds of a given hand: the conditional deals against exact combinatorics, the
forced-bid play against the reference engine, and the statistics of the answer.

The completions must follow the exact conditional distribution: known cards stay put,
a missing card is equally likely with each other seat, the partner's spade count is
hypergeometric, and a ``require`` range truncates it (renormalised). Each completion's
play is replayed through the independent pure-Python engine (``reference``), which
checks every card and rescores the hand. The answers are reproducible across threads,
agree across seeds within their intervals, move the right way with a stronger partner,
and their Wilson intervals cover the true rate about 95% of the time.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from spades_sim import nil_odds, reference
from spades_sim.cards import (
    SPADE_MASK,
    cards_of,
    deck_mask,
    format_card,
    mask_of,
    parse_card,
    parse_hand,
)
from spades_sim.cli import cli
from spades_sim.errors import Misdeal
from spades_sim.odds import Conditions, deal_completions
from spades_sim.odds.nil import play_completions
from spades_sim.rules import Rules
from spades_sim.simulate import RunSpec

HAND = "Q73.J52.T84.9632"  # three spades, no ace or king: a fair nil
SOLID = "AKJ.AK.AKQ.AKQJT"  # a partner with everything
N_DEALS = 30_000


def _hypergeometric(successes: int, population: int, draws: int) -> np.ndarray:
    pmf = [
        math.comb(successes, k) * math.comb(population - successes, draws - k)
        for k in range(draws + 1)
    ]
    return np.array(pmf, dtype=np.float64) / math.comb(population, draws)


def _assert_distribution(counts: np.ndarray, probabilities: np.ndarray, what: str) -> None:
    """Every bin within 5 standard errors of its expectation (a per-bin z-test)."""
    n = counts.sum()
    expected = n * probabilities[: len(counts)]
    sd = np.sqrt(n * probabilities[: len(counts)] * (1 - probabilities[: len(counts)]))
    z = np.abs(counts - expected) / np.maximum(sd, 1e-9)
    assert (z < 5).all(), f"{what}: counts {counts.tolist()}, expected {expected.round(1).tolist()}"


def _spades(masks: np.ndarray) -> np.ndarray:
    return np.array([(int(m) & SPADE_MASK).bit_count() for m in masks])


# --- the conditional deals --------------------------------------------------------------


def test_completions_keep_the_known_cards_and_deal_the_rest() -> None:
    given = {"E": "AS KH", "W": "3D"}
    deals = deal_completions(HAND, 2_000, seed=3, partner="T9.Q.AKQ.AKQJT", given=given)
    deck = deck_mask()
    mine, mate = parse_hand(HAND), parse_hand("T9.Q.AKQ.AKQJT")
    for n_, e, s, w in deals.astype(object):
        assert (s, n_ & mate) == (mine, mate)
        assert e & parse_hand("AS KH") == parse_hand("AS KH") and w >> parse_card("3D") & 1
        assert n_ | e | s | w == deck and all(int(h).bit_count() == 13 for h in (n_, e, s, w))


def test_a_card_i_do_not_hold_is_with_each_other_seat_a_third_of_the_time() -> None:
    ace = parse_card("AS")
    deals = deal_completions(HAND, N_DEALS, seed=5)
    for seat in (0, 1, 3):
        share = float(((deals[:, seat] >> np.uint64(ace)) & np.uint64(1)).mean())
        assert abs(share - 1 / 3) < 5 * math.sqrt(2 / 9 / N_DEALS), (seat, share)


def test_partner_spade_count_is_hypergeometric() -> None:
    deals = deal_completions(HAND, N_DEALS, seed=7)
    counts = np.bincount(_spades(deals[:, 0]), minlength=11)  # 10 spades are unseen
    _assert_distribution(counts, _hypergeometric(10, 39, 13), "partner's spades")


def test_a_required_range_gives_the_truncated_distribution() -> None:
    deals = deal_completions(HAND, N_DEALS, seed=9, require={"N": {"spades": "4..6"}})
    spades = _spades(deals[:, 0])
    assert spades.min() >= 4 and spades.max() <= 6
    exact = _hypergeometric(10, 39, 13)
    truncated = np.zeros_like(exact)
    truncated[4:7] = exact[4:7] / exact[4:7].sum()
    _assert_distribution(np.bincount(spades, minlength=11), truncated, "truncated spades")
    # East, unconstrained, sees the spades North took: its law is the conditional one
    east = _spades(deals[:, 1])
    mixture = sum(truncated[k] * _hypergeometric(10 - k, 26, 13) for k in range(4, 7))
    _assert_distribution(np.bincount(east, minlength=11), mixture, "east's spades")


def test_required_features_hold_in_every_completion() -> None:
    require = {"E": {"high_spades": (1, 3), "voids": "1..", "points": "..12"}, "W": {"aces": 0}}
    deals = deal_completions(HAND, 500, seed=2, require=require)
    for e, w in zip(deals[:, 1].astype(object), deals[:, 3].astype(object), strict=True):
        suits = [(e >> (13 * s)) & 0x1FFF for s in range(4)]
        assert 1 <= (e & parse_hand("AS KS QS")).bit_count() <= 3
        assert any(s == 0 for s in suits)
        points = sum(
            (4, 3, 2, 1)[12 - card % 13] for card in range(52) if e >> card & 1 and card % 13 >= 9
        )
        assert points <= 12
        assert not w & parse_hand("AS AH AD AC")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"require": {"N": {"spades": "11.."}}}, "N spades 11.. is impossible"),
        ({"require": {"N": {"spades": "7.."}, "E": {"spades": "7.."}}}, "no completion out of"),
        ({"require": {"N": {"colour": 1}}}, "unknown feature 'colour'"),
        ({"require": {"S": {"spades": 1}}}, "S holds the given hand"),
        ({"require": {"N": {"spades": "5..2"}}}, "need 0 <= LO <= HI"),
        ({"partner": "QS"}, "partner: card QS is already held by S"),
        ({"given": {"E": "AS", "W": "AS"}}, "card AS is already held by E"),
        ({"given": {"E": "AKJT9.AKQT.AKQJ.A"}}, "E would hold 14 cards"),
        ({"given": {"X": "AS"}}, "given: unknown seat 'X'"),
        ({"seat": "Q"}, "seat: unknown seat 'Q'"),
    ],
)
def test_bad_conditions_are_one_clear_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("..", r"\.\.")):
        deal_completions(HAND, 10, **kwargs)


@pytest.mark.parametrize(
    ("hand", "kwargs", "error", "message"),
    [
        ("Q73.J52.T84.963", {}, Misdeal, "hand: a hand holds 13 cards, got 12"),
        ("QS 7S 3S JH 5H 2H TD 8D 4D 9C 6C 3C XS", {}, Misdeal, "hand: unknown card 'XS'"),
        (HAND, {"rules": Rules(jokers=True)}, Misdeal, "not in this deck"),
        (HAND, {"rules": Rules.preset("two-player"), "partner": SOLID}, ValueError, "no partner"),
        (HAND, {"blind": True, "rules": Rules.preset("openspiel")}, ValueError, "blind nil"),
        (HAND, {"blind": True, "rules": Rules(blind_nil_min_deficit=100)}, ValueError, "behind"),
        (HAND, {"number_bids": [0]}, ValueError, "number_bids: each must be 1..13"),
        (HAND, {"n": 0}, ValueError, "n: the number of completions"),
        (HAND, {"play": "nonsense"}, ValueError, "nonsense"),
    ],
)
def test_nil_odds_refuses_bad_input(hand: str, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        nil_odds(hand, **{"n": 10, **kwargs})


def test_the_pilot_measures_rare_conditions_and_the_answer_says_how_many_were_drawn() -> None:
    rare = {"N": {"spades": "7..", "high_spades": 2}}  # about 1 deal in 300
    odds = nil_odds(HAND, n=200, seed=4, require=rare, number_bids=())
    assert odds.tried > 20 * odds.n
    assert "drawn" in str(odds) and f"{odds.tried:,}" in str(odds)
    with pytest.raises(ValueError, match="would have to be drawn"):
        nil_odds(HAND, n=200, seed=4, require=rare, max_tries=10_000)


# --- the play, against the reference engine ---------------------------------------------


@pytest.mark.parametrize(
    ("preset", "blind", "play"),
    [
        ("standard", False, "heuristic"),
        ("standard", True, "random"),
        ("blind-nil-exchange", True, "heuristic"),
        ("jokers", False, "heuristic"),
        ("two-player", True, "heuristic"),
        ("two-player", False, "random"),
        ("openspiel", False, "heuristic"),
        ("must-trump", True, "random"),
        ("must-overtrump", False, "heuristic"),
    ],
)
def test_forced_bid_play_matches_the_reference_engine(preset: str, blind: bool, play: str) -> None:
    rules = Rules.preset(preset)
    hand = "Q73.J52.T84.9632" if not rules.jokers else "Q73.J5.T84.96432"
    seat = "S" if rules.players == 4 else 1
    conditions = Conditions.build(hand, seat=seat, rules=rules)
    hero = conditions.hero
    spec = RunSpec.build(seed=8, rules=rules, bidding="count", play=play)
    deals = deal_completions(hand, 60, seed=8, seat=seat, rules=rules)
    bids = np.array([0, 2, 4], dtype=np.int64)
    kinds = np.array([2 if blind else 1, 0, 0], dtype=np.int64)
    played = play_completions(spec, hero, deals, 0, bids, kinds, -1, record=True)
    lockstep = play_completions(spec, hero, deals, 0, bids, kinds, -1)
    assert played.held is not None and played.moves is not None
    players = rules.players
    for i in range(deals.shape[0]):
        for k in range(3):
            where = f"{preset} completion {i} scenario {k}"
            moves = [int(x) for x in played.moves[i, k]]
            held = [int(x) for x in played.held[i, k, :players]]
            bid_list, nil_kinds, plays = moves[:players], moves[4 : 4 + players], moves[8:]
            assert bid_list[hero] == bids[k] and nil_kinds[hero] == kinds[k], where
            blind_seats = [s for s in range(players) if nil_kinds[s] == 2]
            dealt = [int(x) for x in deals[i, :players]]
            reference.check_blind_nil_exchange(dealt, held, bid_list, blind_seats, rules)
            dealer = int(played.dealers[i])
            result = reference.replay_hand(
                held, dealer, bid_list, plays, rules, blind_nil=blind_seats
            )
            assert played.score[i, k] == result.score_change[hero & 1], where
            assert played.tricks[i, k] == result.tricks[hero], where
            made = result.nil_made[hero]
            assert played.nil_made[i, k] == (-1 if made is None else int(made)), where
            first = -1
            for t, winner in enumerate(result.trick_winners):
                if winner == hero:
                    trick = plays[t * players : (t + 1) * players]
                    first = next(c for c in trick if held[hero] >> c & 1)
                    break
            assert played.first_won[i, k] == first, where
    # the lock-step kernel plays the same cards
    for name in ("score", "tricks", "nil_made", "first_won"):
        assert np.array_equal(getattr(played, name), getattr(lockstep, name)), name


@pytest.mark.parametrize(
    ("preset", "bidding"),
    [
        ("standard", ("pagat", "partner-aware")),
        ("blind-nil-exchange", ("random:blind_nil_rate=0.3,nil_rate=0.2", "count")),
        ("jokers", ("partner-aware:opp_nil_bonus=1", "pagat:queen_value=0.5")),
    ],
)
def test_lockstep_bids_of_the_other_seats_equal_the_lane_by_lane_bids(
    preset: str, bidding: tuple[str, str]
) -> None:
    # With four players and lock-step play the other seats bid in lock-step
    # (odds.BIDS_LOCKSTEP); recording takes the scalar path, lane by lane. Every
    # scenario (nil, blind nil, numbers) must give the same bids, so the same outcomes.
    from spades_sim._nb import odds as odds_nb
    from spades_sim.run.select import select_kernel

    rules = Rules.preset(preset)
    hand = "Q73.J52.T84.9632" if not rules.jokers else "Q73.J5.T84.96432"
    hero = Conditions.build(hand, seat="W", rules=rules).hero
    spec = RunSpec.build(seed=5, rules=rules, bidding=bidding, play="heuristic")
    assert select_kernel(spec, "nil_odds").variant & odds_nb.BIDS_LOCKSTEP
    deals = deal_completions(hand, 150, seed=5, seat="W", rules=rules)
    bids = np.array([0, 0, 3, 7], dtype=np.int64)
    kinds = np.array([1, 2, 0, 0], dtype=np.int64)
    scalar = play_completions(spec, hero, deals, 0, bids, kinds, -1, record=True)
    lanes = play_completions(spec, hero, deals, 0, bids, kinds, -1)
    for name in ("score", "tricks", "nil_made", "first_won"):
        assert np.array_equal(getattr(scalar, name), getattr(lanes, name)), name


# --- the answer -------------------------------------------------------------------------


def test_same_seed_same_answer_whatever_the_threads() -> None:
    one = nil_odds(HAND, n=3_000, seed=11, threads=1, require={"E": {"spades": "3.."}})
    two = nil_odds(HAND, n=3_000, seed=11, threads=2, require={"E": {"spades": "3.."}})
    assert one.to_dict() == two.to_dict()


def test_the_answer_is_consistent() -> None:
    odds = nil_odds(HAND, n=20_000, seed=12)
    assert odds.ci_low < odds.probability < odds.ci_high
    assert odds.made == round(odds.probability * odds.n)
    assert odds.best_number_bid in odds.number_scores and len(odds.number_scores) >= 2
    assert odds.number_score == odds.number_scores[odds.best_number_bid]
    assert all(e.value <= odds.number_score.value for e in odds.number_scores.values())
    # the paired gain is the difference of the two means, with a narrower interval
    assert odds.nil_gain is not None
    assert odds.nil_gain.value == pytest.approx(odds.nil_score.value - odds.number_score.value)
    unpaired = math.hypot(odds.nil_score.half_width, odds.number_score.half_width)
    assert odds.nil_gain.half_width < unpaired * 1.5
    # every failed nil took a trick, so the shares of the fatal cards add up to one
    assert sum(odds.fatal_cards.values()) == pytest.approx(1.0)
    assert all(c in {format_card(x) for x in range(54)} for c in odds.fatal_cards)
    assert "QS" in list(odds.fatal_cards)[:2]  # the guarded queen is the usual culprit
    text = str(odds)
    assert "makes nil" in text and "bid nil" in text and "South" in text
    assert json.loads(odds.to_json())["n"] == 20_000


def test_two_seeds_agree_within_their_intervals() -> None:
    a = nil_odds(HAND, n=20_000, seed=21, number_bids=())
    b = nil_odds(HAND, n=20_000, seed=22, number_bids=())
    se = math.hypot((a.ci_high - a.ci_low) / 3.92, (b.ci_high - b.ci_low) / 3.92)
    assert abs(a.probability - b.probability) < 3.5 * se
    assert a.probability != b.probability  # different deals


def test_a_stronger_partner_makes_the_nil_likelier() -> None:
    weak = nil_odds(HAND, n=20_000, seed=3, require={"N": {"high_spades": 0}}, number_bids=())
    strong = nil_odds(HAND, n=20_000, seed=3, require={"N": {"high_spades": 2}}, number_bids=())
    assert strong.ci_low > weak.ci_high
    covered = nil_odds(HAND, n=20_000, seed=3, partner="AKJT.A.AKQ.AKQJT", number_bids=())
    assert covered.ci_low > weak.ci_high


def test_wilson_intervals_cover_the_true_rate_about_95_percent_of_the_time() -> None:
    truth = nil_odds(HAND, n=400_000, seed=100, number_bids=()).probability
    runs = [nil_odds(HAND, n=100, seed=s, number_bids=()) for s in range(300)]
    coverage = np.mean([r.ci_low <= truth <= r.ci_high for r in runs])
    assert 0.90 <= coverage <= 0.99, coverage


def test_blind_nil_and_two_players() -> None:
    exchange = nil_odds(HAND, n=3_000, seed=1, blind=True, rules=Rules.preset("blind-nil-exchange"))
    plain = nil_odds(HAND, n=3_000, seed=1, blind=True)
    assert exchange.blind and "blind nil" in str(exchange)
    # passing the three most dangerous cards to partner helps a blind nil
    assert exchange.probability > plain.probability
    duo = nil_odds(HAND, n=3_000, seed=1, rules=Rules.preset("two-player"), seat="P1")
    assert duo.seat == "P1" and 0 < duo.probability < 1


# --- the command line -------------------------------------------------------------------


def test_cli_nil_odds_prints_the_answer_and_json() -> None:
    runner = CliRunner()
    args = ["nil-odds", HAND, "-n", "2000", "--seed", "3", "--require", "N:spades=4..13"]
    text = runner.invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "makes nil" in text.output and "N spades 4.." in text.output
    as_json = runner.invoke(cli, [*args, "--json", "--given", "E=AS KH", "--play", "random"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["n"] == 2000 and data["play"] == "random" and "E holds AS KH" in data["conditions"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nil-odds", "QS 7S 3S"], "hand: a hand holds 13 cards, got 3"),
        (["nil-odds", HAND, "--require", "N:spades"], "expected SEAT:FEATURE=LO..HI"),
        (["nil-odds", HAND, "--require", "N:spades=12.."], "impossible"),
        (["nil-odds", HAND, "--given", "E"], "expected SEAT=CARDS"),
        (["nil-odds", HAND, "--given", "E=ZZ"], "unknown card"),
        (["nil-odds", HAND, "--seat", "X"], "unknown seat"),
        (["nil-odds", HAND, "--rules", "nope"], "nope"),
        (["nil-odds", HAND, "-n", "0"], "0"),
    ],
)
def test_cli_nil_odds_errors_are_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines


# --- against perfect defence ------------------------------------------------------------

DUCKS = "7.J52.T842.96432"  # one low spade, low cards: quick to solve, sometimes safe


@pytest.mark.slow  # compiles the solver's nil kernels
def test_double_dummy_defense_is_nil_safe_of_the_same_completions() -> None:
    from spades_sim.solve import Position, nil_safe

    n, solved = 24, 8
    odds = nil_odds(DUCKS, n=n, seed=4, dealer="N", defense="dd", dd_completions=solved)
    deals = deal_completions(DUCKS, n, seed=4)
    verdicts = [
        nil_safe(Position.start([int(h) for h in deals[i]], "N"), "S") for i in range(solved)
    ]
    assert odds.defense == "double-dummy" and odds.dd_n == solved
    assert odds.dd_safe == sum(verdicts)
    assert 0 < odds.dd_safe < solved, "the sample should hold safe and unsafe nils"
    pairs = odds.dd_pairs
    assert sum(pairs.values()) == solved
    assert pairs["safe_made"] + pairs["safe_failed"] == odds.dd_safe
    # the policies' outcome on those same completions, played on their own
    first = nil_odds(DUCKS, n=solved, seed=4, dealer="N")
    assert pairs["safe_made"] + pairs["unsafe_made"] == first.made
    # the policy answer itself is unchanged by the double-dummy one
    plain = nil_odds(DUCKS, n=n, seed=4, dealer="N")
    assert (plain.made, plain.nil_score) == (odds.made, odds.nil_score)
    assert odds.dd_ci_low is not None and odds.dd_ci_high is not None
    assert odds.dd_ci_low <= odds.dd_probability <= odds.dd_ci_high
    text = str(odds)
    assert "Against perfect defence" in text and f"first {solved} of these" in text
    assert json.loads(odds.to_json())["dd_pairs"] == dict(pairs)


@pytest.mark.slow  # compiles the solver's nil kernels
def test_double_dummy_defense_solves_the_hands_after_the_exchange() -> None:
    from spades_sim.odds.nil import _perfect_defense
    from spades_sim.solve import Position, nil_safe

    rules = Rules.preset("blind-nil-exchange")
    spec = RunSpec.build(seed=6, rules=rules, bidding="count", play="heuristic")
    deals = deal_completions(DUCKS, 6, seed=6, rules=rules)
    bids = np.array([0, 3], dtype=np.int64)
    kinds = np.array([2, 0], dtype=np.int64)
    played = play_completions(spec, 2, deals, 0, bids, kinds, -1, record=True)
    assert played.held is not None and played.moves is not None
    safe = _perfect_defense(spec, 2, deals, 0, bids, kinds, -1)
    for i in range(deals.shape[0]):
        held = [int(h) for h in played.held[i, 0]]
        assert held != [int(h) for h in deals[i]], "the exchange changed the hands"
        first = int(played.moves[i, 0, 8])
        leader = next(s for s in range(4) if held[s] >> first & 1)
        pos = Position(held, leader, first_trick=True, rules=rules)
        assert bool(safe[i]) == nil_safe(pos, "S"), f"completion {i}"


@pytest.mark.slow  # compiles the solver's nil kernels
def test_double_dummy_defense_is_the_same_on_any_thread_count_and_for_two_players() -> None:
    one = nil_odds(DUCKS, n=12, seed=9, defense="dd", dd_completions=6, threads=1)
    two = nil_odds(DUCKS, n=12, seed=9, defense="double-dummy", dd_completions=6, threads=2)
    assert one.to_dict() == two.to_dict()
    duel = nil_odds(DUCKS, n=6, seed=9, rules=Rules.preset("two-player"), defense="dd")
    assert duel.dd_n == 6 and sum(duel.dd_pairs.values()) == 6


def test_double_dummy_defense_refuses_bad_arguments_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^defense: must be one of policies, double-dummy"):
        nil_odds(DUCKS, n=10, defense="perfect")
    with pytest.raises(ValueError, match=r"^dd_completions: must be a positive int"):
        nil_odds(DUCKS, n=10, defense="dd", dd_completions=0)


@pytest.mark.slow  # compiles the solver's nil kernels
def test_nil_odds_command_prints_the_double_dummy_answer() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["nil-odds", DUCKS, "-n", "10", "--defense", "dd", "--dd-completions", "4"]
    )
    assert result.exit_code == 0, result.output
    assert "Against perfect defence" in result.output and "first 4 of these" in result.output
    bad = runner.invoke(cli, ["nil-odds", DUCKS, "-n", "10", "--defense", "perfect"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def _seat_hand(rules: Rules, seat: int) -> int:
    """A legal hand of ``seat``'s size from a fixed shuffle of the pack of ``rules``."""
    deck = cards_of(deck_mask(rules.jokers, rules.deuces_high, rules.players))
    order = np.random.default_rng(41 + seat).permutation(len(deck))
    return mask_of(deck[int(i)] for i in order[: rules.tricks])


# mirror is left out: every bid is the spades held, so nil_odds refuses those rules
@pytest.mark.parametrize(
    "preset", [p for p in Rules.PRESETS if Rules.preset(p).bid_rule.value != "mirror"]
)
def test_every_seat_of_every_preset_records_the_nil_the_reference_engine_scores(
    preset: str,
) -> None:
    """The nil made (and the score, the tricks) that nil_odds records for each seat of
    each table is the reference engine's verdict on the same plays: the seat's nil and
    its side's score, whichever member of whichever side the seat is."""
    rules = Rules.preset(preset)
    spec = RunSpec.build(seed=3, rules=rules, bidding="count", play="heuristic")
    for seat in range(rules.players):
        hand = _seat_hand(rules, seat)
        deals = deal_completions(hand, 12, seed=5, seat=seat, rules=rules)
        bids = np.array([0], dtype=np.int64)
        kinds = np.array([1], dtype=np.int64)
        # a dealer before the seat's partner, so suicide and minimum bids let it nil first
        dealer = (seat - 1) % rules.players
        played = play_completions(spec, seat, deals, 0, bids, kinds, dealer, record=True)
        assert played.held is not None and played.moves is not None
        players = rules.players
        for i in range(deals.shape[0]):
            where = f"{preset} seat {seat} completion {i}"
            moves = [int(x) for x in played.moves[i, 0]]
            held = [int(x) for x in played.held[i, 0, :players]]
            bid_list, nil_kinds, plays = moves[:players], moves[4 : 4 + players], moves[8:]
            blind_seats = [s for s in range(players) if nil_kinds[s] == 2]
            result = reference.replay_hand(
                held, int(played.dealers[i]), bid_list, plays, rules, blind_nil=blind_seats
            )
            made = result.nil_made[seat]
            assert made is not None, where
            assert played.nil_made[i, 0] == int(made), where
            assert played.score[i, 0] == result.score_change[rules.side_of(seat)], where
            assert played.tricks[i, 0] == result.tricks[seat], where


def test_nil_odds_of_the_third_cutthroat_seat_is_the_other_seats_answer() -> None:
    """The same hand and completions at every seat of three-player cutthroat: the nil is
    made at P2 as often as at P0 and P1, within the interval (it read 0% at P2)."""
    answers = [
        nil_odds("Q73.J5432.T8432.9643", seat=s, rules=Rules.preset("cutthroat"), n=200)
        for s in ("P0", "P1", "P2")
    ]
    assert answers[2].made > 0
    for odds in answers[:2]:
        assert odds.ci_low <= answers[2].probability <= odds.ci_high, [a.made for a in answers]
