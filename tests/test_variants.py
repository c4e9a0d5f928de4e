"""The table variants beyond the rule sheets, end to end: each variant preset simulates
hands and games from the command line, counts in aggregate mode exactly what its rows
say and gives the same rows whatever the thread count. Its simulated hands and games
replay through the reference engine with every other preset's, in ``tests/test_engine.py``
(a small sample in the fast tier, a large one with ``-m slow``).

The hand-worked examples of each variant, through both engines, are in
``tests/test_presets.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from test_aggregate import assert_same_analyses
from test_engine import (
    WILD_BIDDING,
    check_games_against_reference,
    check_hands_against_reference,
)

from spades_sim import Rules, nb, nil_odds, reference, simulate_games, simulate_hands
from spades_sim._nb.bidding import legal_bid_nb
from spades_sim.cards import SPADE_MASK, SPADES, card_suit, parse_hand
from spades_sim.cli import cli
from spades_sim.dataset import load, load_games
from spades_sim.errors import Misdeal
from spades_sim.run import PolicyError
from spades_sim.simulate import record_hands
from spades_sim.solve import Position, dd_cards, dd_tricks

BUILTIN_BIDDERS = ("count", "pagat", "partner-aware", WILD_BIDDING)

VARIANTS = (
    "ten-for-200", "mirror", "whiz", "suicide", "minimum-bids", "nil-passing", "must-trump",
    "must-overtrump", "jokers-deuces", "cutthroat-4", "cutthroat",
)  # fmt: skip
"""The presets of the table variants (their rules: docs/rules.md)."""


def _ok(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("preset", VARIANTS)
def test_cli_hands_and_games(tmp_path: Path, preset: str) -> None:
    common = ("--rules", preset, "--seed", "3", "--quiet", "--out")
    hands = json.loads(_ok("simulate", "--hands", "300", *common, tmp_path / "h"))
    assert hands["hands"] == 300
    assert len(load(tmp_path / "h", columns=["bid"])) == 300 * Rules.preset(preset).players
    games = json.loads(_ok("simulate", "--games", "5", *common, tmp_path / "g"))
    assert games["games"] == 5 and len(load_games(tmp_path / "g")) == 5


@pytest.mark.parametrize("preset", VARIANTS)
def test_aggregate_counts_what_the_rows_say(preset: str) -> None:
    rules = Rules.preset(preset)
    kwargs = {"seed": 8, "rules": rules, "bidding": "count", "play": "random"}
    rows = simulate_hands(1500, **kwargs)  # type: ignore[arg-type]
    agg = simulate_hands(1500, aggregate=("spades", "side_contract"), **kwargs)  # type: ignore[arg-type]
    for keys in ([], ["spades"], ["side_contract"], ["bid"], ["nil", "blind_nil"]):
        assert_same_analyses(rows, agg, keys)


@pytest.mark.parametrize("preset", VARIANTS)
def test_same_rows_whatever_the_threads(preset: str) -> None:
    rules = Rules.preset(preset, max_hands=30)
    kwargs = {"seed": 5, "rules": rules, "bidding": WILD_BIDDING}
    one = simulate_hands(3000, threads=1, chunk_size=3000, play="random", **kwargs)  # type: ignore[arg-type]
    two = simulate_hands(3000, threads=2, chunk_size=700, play="random", **kwargs)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(one, two)
    games_one = simulate_games(20, threads=1, chunk_size=20, **kwargs)  # type: ignore[arg-type]
    games_two = simulate_games(20, threads=2, chunk_size=3, **kwargs)  # type: ignore[arg-type]
    for a, b in zip(games_one, games_two, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_nil_passing_exchanges_after_seen_nils_only() -> None:
    rules = Rules.preset("nil-passing")
    chunk = record_hands(400, seed=9, rules=rules, bidding=WILD_BIDDING, play="random")
    held = chunk.hands["hand"].reshape(-1, 4)
    dealt = chunk.plays["dealt"].astype(held.dtype)
    bids = chunk.hands["bid"].reshape(-1, 4)
    kinds = chunk.hands["nil"].reshape(-1, 4).astype(int)
    blind = chunk.hands["blind_nil"].reshape(-1, 4).astype(bool)
    for side in (0, 1):
        a, b = side, side + 2
        seen = ((kinds[:, a] == 1) & (bids[:, b] > 0)) | ((kinds[:, b] == 1) & (bids[:, a] > 0))
        seen &= ~(blind[:, a] | blind[:, b])
        changed = (held[:, a] != dealt[:, a]) | (held[:, b] != dealt[:, b])
        assert (changed == seen).all() and seen.any()
        assert (np.bitwise_count(held[:, a] ^ dealt[:, a])[seen] == 4).all()  # 2 out, 2 in


# --- Bid rules: every bidder bids what the rule allows ---------------------------------


@nb.bidder
def always_seven(ctx):  # type: ignore[no-untyped-def]
    return 7


@nb.bidder
def lowest_allowed(ctx):  # type: ignore[no-untyped-def]
    # the range the engine tells a bidder: nil when allowed, else the least number
    if ctx.nil_allowed:
        return 0
    return ctx.min_bid


def _spades(frame: pd.DataFrame) -> pd.Series:
    return frame["spades"].astype(int)


@pytest.mark.parametrize("bidding", BUILTIN_BIDDERS)
def test_mirror_builtin_bidders_bid_their_spades(bidding: str) -> None:
    rules = Rules.preset("mirror")
    # lock-step (random play) and scalar (recorded play) kernels alike
    lanes = simulate_hands(700, seed=2, rules=rules, bidding=bidding, play="random")
    assert (lanes.bid.astype(int) == _spades(lanes)).all()
    assert (lanes.nil == (lanes.spades == 0)).all() and not lanes.blind_nil.any()
    scalar = record_hands(300, seed=2, rules=rules, bidding=bidding, play="random")
    assert (scalar.hands["bid"] == scalar.hands["spades"]).all()


@pytest.mark.parametrize("bidding", BUILTIN_BIDDERS)
def test_whiz_builtin_bidders_bid_nil_or_their_spades(bidding: str) -> None:
    rules = Rules.preset("whiz")
    lanes = simulate_hands(700, seed=2, rules=rules, bidding=bidding, play="random")
    bid = lanes.bid.astype(int)
    assert ((bid == _spades(lanes)) | lanes.nil).all() and (lanes.nil == (bid == 0)).all()
    assert (lanes.nil[lanes.spades == 0]).all()  # no spades: nil is the only bid
    scalar = record_hands(300, seed=2, rules=rules, bidding=bidding, play="random")
    h = scalar.hands
    assert ((h["bid"] == h["spades"]) | (h["bid"] == 0)).all()
    if bidding == WILD_BIDDING:  # a bidder that goes nil some of the time keeps its nils
        assert (lanes.nil & (lanes.spades > 0)).any()


def _suicide_pairs_ok(bids: np.ndarray) -> bool:
    """Per deal (rows of four seats' bids): one nil and one 4 or more in each side."""
    for a, b in ((bids[:, 0], bids[:, 2]), (bids[:, 1], bids[:, 3])):
        if not (((a == 0) & (b >= 4)) | ((b == 0) & (a >= 4))).all():
            return False
    return True


def _first_partner_nils(frame: pd.DataFrame) -> np.ndarray:
    """Per deal and side: whether the side's first bidder (from the dealer's left) nils."""
    bids = frame.bid.to_numpy(int).reshape(-1, 4)
    dealer = frame.dealer.to_numpy(int).reshape(-1, 4)[:, 0]
    first = (dealer + 1) % 4  # the first bidder; its side's first is it, the other's next
    out = []
    for side in (0, 1):
        seat = np.where(first % 2 == side, first, (first + 1) % 4)
        out.append(bids[np.arange(len(bids)), seat] == 0)
    return np.stack(out, axis=1)


@pytest.mark.parametrize("bidding", BUILTIN_BIDDERS)
def test_suicide_builtin_bidders_one_nil_each_side(bidding: str) -> None:
    rules = Rules.preset("suicide")
    lanes = simulate_hands(700, seed=2, rules=rules, bidding=bidding, play="random")
    assert _suicide_pairs_ok(lanes.bid.to_numpy(int).reshape(-1, 4))
    scalar = record_hands(300, seed=2, rules=rules, bidding=bidding, play="random")
    assert _suicide_pairs_ok(scalar.hands["bid"].astype(int).reshape(-1, 4))
    if bidding == WILD_BIDDING:  # the first partner's policy chooses: both ways happen
        first_nils = _first_partner_nils(lanes)
        assert first_nils.any() and not first_nils.all()


def _sides_reach(bids: np.ndarray, least: int, nil_exempt: bool) -> bool:
    """Per deal: each side's bids add up to ``least`` (or, exempt, hold a nil)."""
    for a, b in ((bids[:, 0], bids[:, 2]), (bids[:, 1], bids[:, 3])):
        exempt = nil_exempt & ((a == 0) | (b == 0))
        if not ((a + b >= least) | exempt).all():
            return False
    return True


@pytest.mark.parametrize("bidding", BUILTIN_BIDDERS)
def test_minimum_bids_builtin_bidders_reach_them(bidding: str) -> None:
    for rules, exempt in (
        (Rules.preset("minimum-bids", min_number_bid=2), False),
        (Rules(min_side_bid=5, min_side_bid_shortfall="nil_exempt"), True),
    ):
        lanes = simulate_hands(700, seed=2, rules=rules, bidding=bidding, play="random")
        bids = lanes.bid.to_numpy(int).reshape(-1, 4)
        assert _sides_reach(bids, rules.min_side_bid, exempt)
        assert not ((bids > 0) & (bids < rules.min_number_bid)).any()
        scalar = record_hands(300, seed=2, rules=rules, bidding=bidding, play="random")
        assert _sides_reach(
            scalar.hands["bid"].astype(int).reshape(-1, 4), rules.min_side_bid, exempt
        )
        if bidding == WILD_BIDDING and exempt:  # blind nils go through: they are nils
            assert lanes.blind_nil.any()


@pytest.mark.parametrize("preset", ["mirror", "whiz", "suicide", "minimum-bids"])
def test_monte_carlo_bids_what_the_rule_allows(preset: str) -> None:
    rules = Rules.preset(preset)
    df = simulate_hands(8, seed=3, rules=rules, bidding="monte-carlo:samples=4", play="random")
    if preset == "suicide":
        assert _suicide_pairs_ok(df.bid.to_numpy(int).reshape(-1, 4))
    elif preset == "minimum-bids":
        assert _sides_reach(df.bid.to_numpy(int).reshape(-1, 4), 4, False)
    else:
        assert ((df.bid.astype(int) == _spades(df)) | (df.bid == 0) & (preset == "whiz")).all()


@pytest.mark.slow  # compiles a kernel for the two user bidders (one worker for the four)
@pytest.mark.xdist_group("variants_user_bidders")
def test_mirror_user_bidders_get_the_allowed_bid() -> None:
    rules = Rules.preset("mirror")
    # A bid the rule does not allow is replaced by the allowed one; the context says
    # which: nil only without spades, else min_bid = max_bid = the spades.
    bidding = {"ns": always_seven, "ew": lowest_allowed}
    df = simulate_hands(400, seed=4, rules=rules, bidding=bidding, play="random")
    assert (df.bid.astype(int) == _spades(df)).all()
    errors = simulate_hands(40, seed=4, rules=Rules(), bidding=bidding, play="random")
    assert (errors[errors.side == 0].bid == 7).all() and (errors[errors.side == 1].bid == 0).all()


@pytest.mark.slow  # compiles a kernel for the two user bidders (one worker for the four)
@pytest.mark.xdist_group("variants_user_bidders")
def test_whiz_user_bidders_get_the_allowed_bid() -> None:
    rules = Rules.preset("whiz")
    bidding = {"ns": always_seven, "ew": lowest_allowed}
    df = simulate_hands(400, seed=4, rules=rules, bidding=bidding, play="random")
    ns, ew = df[df.side == 0], df[df.side == 1]
    assert (ns.bid.astype(int) == _spades(ns)).all()  # a number becomes the spades held
    assert (ew.bid == 0).all()  # nil is always allowed under whiz


@pytest.mark.slow  # compiles a kernel for the two user bidders (one worker for the four)
@pytest.mark.xdist_group("variants_user_bidders")
def test_suicide_user_bidders_get_the_allowed_bid() -> None:
    rules = Rules.preset("suicide")
    # always_seven: its side's first bidder bids 7, so the second must nil. The other side
    # bids the least it is allowed: nil first, then the partner's least number, 4.
    bidding = {"ns": always_seven, "ew": lowest_allowed}
    df = simulate_hands(400, seed=4, rules=rules, bidding=bidding, play="random")
    bids = df.bid.to_numpy(int).reshape(-1, 4)
    assert _suicide_pairs_ok(bids)
    first_nils = _first_partner_nils(df)
    assert not first_nils[:, 0].any() and set(bids[:, [0, 2]].ravel()) == {0, 7}
    assert first_nils[:, 1].all() and set(bids[:, [1, 3]].ravel()) == {0, 4}


@pytest.mark.slow  # compiles a kernel for the two user bidders (one worker for the four)
@pytest.mark.xdist_group("variants_user_bidders")
def test_minimum_bids_user_bidders_get_the_allowed_bid() -> None:
    rules = Rules.preset("minimum-bids")
    # always_seven: 7 and 7, nothing to raise. The other side bids the least allowed: its
    # first bidder nil, the last then the 4 the side needs.
    bidding = {"ns": always_seven, "ew": lowest_allowed}
    df = simulate_hands(400, seed=4, rules=rules, bidding=bidding, play="random")
    bids = df.bid.to_numpy(int).reshape(-1, 4)
    assert (bids[:, [0, 2]] == 7).all()
    first_nils = _first_partner_nils(df)
    assert first_nils[:, 1].all() and set(bids[:, [1, 3]].ravel()) == {0, 4}


def test_minimum_bids_nil_odds_needs_the_seat_to_bid_first() -> None:
    rules = Rules.preset("minimum-bids", min_number_bid=2)
    hand = "Q73.J52.T84.9632"
    with pytest.raises(ValueError, match=r"^dealer: under min_side_bid the second partner"):
        nil_odds(hand, n=100, rules=rules)
    with pytest.raises(ValueError, match=r"^number_bids: under min_number_bid a number bid "):
        nil_odds(hand, n=100, rules=rules, dealer="E", number_bids=[1, 2])
    odds = nil_odds(hand, n=200, seed=1, rules=rules, dealer="E")
    assert min(odds.number_scores) >= 2


def test_suicide_nil_odds_needs_the_seat_to_decide() -> None:
    rules = Rules.preset("suicide")
    hand = "Q73.J52.T84.9632"
    with pytest.raises(ValueError, match=r"^dealer: under bid_rule 'suicide' the second "):
        nil_odds(hand, n=100, rules=rules)
    with pytest.raises(ValueError, match=r"^dealer: under bid_rule 'suicide'"):
        nil_odds(hand, n=100, rules=rules, dealer="W")  # N bids before S
    with pytest.raises(ValueError, match=r"^number_bids: under bid_rule 'suicide' a number "):
        nil_odds(hand, n=100, rules=rules, dealer="E", number_bids=[3, 4])
    odds = nil_odds(hand, n=200, seed=1, rules=rules, dealer="E")  # S bids first of N-S
    assert min(odds.number_scores) >= 4 and 0 <= odds.probability <= 1


def test_whiz_nil_odds_weighs_nil_against_the_spades() -> None:
    rules = Rules.preset("whiz")
    hand = "Q73.J52.T84.9632"  # three spades: nil or 3
    odds = nil_odds(hand, n=200, seed=1, rules=rules)
    assert list(odds.number_scores) == [3] and odds.best_number_bid == 3
    with pytest.raises(ValueError, match=r"^number_bids: under bid_rule 'whiz' the only "):
        nil_odds(hand, n=200, rules=rules, number_bids=[2, 3])


def test_mirror_nil_odds_refuses() -> None:
    with pytest.raises(ValueError, match=r"^rules: under bid_rule 'mirror' every bid is the"):
        nil_odds("Q73.J52.T84.9632", n=100, rules=Rules.preset("mirror"))


# --- Trump rules: every built-in and user-written player plays what the rule allows ---


def _replay_all(rules: Rules, n: int, seed: int, play: object) -> int:
    """Record ``n`` four-player hands, replay each through the reference engine (which
    checks every card against the rules); how often a player who could not follow
    played a non-spade while holding a spade."""
    chunk = record_hands(n, seed=seed, rules=rules, bidding=WILD_BIDDING, play=play)  # type: ignore[arg-type]
    h = chunk.hands
    discards = 0
    for i in range(n):
        rows = slice(i * 4, (i + 1) * 4)
        blind = [s for s in range(4) if h["blind_nil"][rows][s]]
        plays = [int(c) for c in chunk.plays["plays"][i]]
        held = [int(x) for x in h["hand"][rows]]
        dealer = int(h["dealer"][rows][0])
        bids = [int(b) for b in h["bid"][rows]]
        result = reference.replay_hand(held, dealer, bids, plays, rules, blind_nil=blind)
        assert result.tricks == tuple(int(t) for t in h["tricks"][rows])
        leader = (dealer + 1) % 4
        for t in range(13):
            led = card_suit(plays[4 * t])
            for j in range(1, 4):
                seat, card = (leader + j) % 4, plays[4 * t + j]
                void = not held[seat] & reference.SUIT_MASKS[led]
                discards += void and bool(held[seat] & SPADE_MASK) and card_suit(card) != SPADES
            for j in range(4):
                held[(leader + j) % 4] &= ~(1 << plays[4 * t + j])
            leader = result.trick_winners[t]
    return discards


@pytest.mark.parametrize("play", ["heuristic", "lookahead:samples=2", "random"])
@pytest.mark.parametrize("preset", ["must-trump", "must-overtrump"])
def test_trump_rules_builtin_players_play_legally(preset: str, play: str) -> None:
    rules = Rules.preset(preset, jokers=play == "heuristic")
    n = 20 if play.startswith("lookahead") else 200
    assert _replay_all(rules, n, 6, play) == 0
    if play == "random":  # the same deals in the standard game: void players do discard
        assert _replay_all(Rules(jokers=rules.jokers), n, 6, play) > 100


@nb.player
def lowest_legal(ctx):  # type: ignore[no-untyped-def]
    return nb.lowest_card_nb(ctx.legal)


@nb.player
def discards_when_void(ctx):  # type: ignore[no-untyped-def]
    # a discard from the side suits whenever it cannot follow, whatever the rules
    if ctx.n_in_trick > 0 and not ctx.hand & nb.SUIT_MASKS[ctx.led_suit]:
        side = ctx.hand & nb.NON_SPADE_MASK
        if side:
            return nb.lowest_card_nb(side)
    return nb.lowest_card_nb(ctx.legal)


@pytest.mark.slow  # compiles kernels for the user players
def test_trump_rules_user_players_get_the_legal_cards() -> None:
    rules = Rules.preset("must-overtrump")
    plays = {"ns": lowest_legal, "ew": lowest_legal}
    _replay_all(rules, 200, 9, plays)
    # a player that discards when void stops a must-trump run (a card outside ctx.legal)
    # and plays on in the standard game
    plays = {"ns": discards_when_void, "ew": lowest_legal}
    simulate_hands(100, seed=9, rules=Rules(), bidding="count", play=plays)
    with pytest.raises(PolicyError, match="returned an illegal bid or card"):
        simulate_hands(100, seed=9, rules=Rules.preset("must-trump"), bidding="count", play=plays)


def test_jokers_deuces_nil_odds_and_the_solver_see_the_2d_as_a_trump() -> None:
    rules = Rules.preset("jokers-deuces")
    # the same low hand with the 2D (the fourth best trump) or with the 3D instead
    with_2d = nil_odds("7.J54.T842.96543", rules=rules, seed=2, n=4000)
    with_3d = nil_odds("7.J54.T843.96543", rules=rules, seed=2, n=4000)
    assert with_2d.hand == "7.J54.T842.96543"
    assert with_3d.probability > 0.95 and with_2d.probability < with_3d.probability - 0.2
    # N holds the 2D and AS, all below E's LJ and W's BJ: N-S take nothing, whatever N leads
    pos = Position(["2D AS", "LJ 3S", "2S KS", "BJ 4S"], "N", rules=rules, spades_broken=True)
    assert str(pos).startswith("N A..2.  E LJ3...")
    assert dd_tricks(pos) == 0 and dd_cards(pos) == {"2D": 0, "AS": 0}
    # a diamond lead: the 2D trumps it, so S (void in diamonds, holding the 2D) wins
    pos = Position(["AD", "KD", "2D", "QD"], "N", rules=rules, spades_broken=True)
    assert dd_tricks(pos) == 1
    pos = Position(["", "", "2D", "QD"], "S", ["AD", "KD"], True, rules=rules)
    assert dd_cards(pos) == {"2D": 1}


def test_suicide_first_partner_number_goes_to_the_nearer_of_nil_and_four() -> None:
    rules = Rules.preset("suicide").lower()
    hand = np.uint64(parse_hand("AKQ.AKQ.AKQ.AKQJ"))

    def allowed(bid: int, partner_bid: int) -> int:
        return int(legal_bid_nb(rules, np.int64(bid), hand, np.int64(partner_bid)))

    # first of the two to bid: 1 and 2 are nearer nil (a tie goes to nil), 3 nearer 4
    assert [allowed(b, -1) for b in range(8)] == [0, 0, 0, 4, 4, 5, 6, 7]
    # after the partner's number the bid is nil; after its nil, 4 or more
    assert [allowed(b, 5) for b in (0, 2, 7)] == [0, 0, 0]
    assert [allowed(b, 0) for b in (0, 2, 7)] == [4, 4, 7]


def test_cutthroat_games_count_and_analyse_as_their_rows() -> None:
    # four lone sides in the side and game tables: each seat's bags, penalties and wins
    from spades_sim.analysis import bag_accumulation

    rules = Rules.preset("cutthroat-4", target=250, bag_limit=5)
    pair = simulate_games(60, seed=3, rules=rules)
    agg = simulate_games(60, seed=3, rules=rules, aggregate=("tricks",))
    hands, games = pair
    assert set(hands["side"]) == {0, 1, 2, 3} and (hands["side"] == hands["seat"]).all()
    assert set(games["winner"]) <= {-1, 0, 1, 2, 3} and len(set(games["winner"]) - {-1}) > 1
    # the games table's final scores are the sum of each seat's own hands
    finals = hands.groupby(["game", "seat"]).score_change.sum().unstack()
    for seat, column in enumerate(("score_ns", "score_ew", "score_2", "score_3")):
        assert (finals[seat].to_numpy() == games[column].to_numpy()).all()
    for keys in ([], ["tricks"], ["side", "outcome"]):
        assert_same_analyses(pair, agg, keys)
    for keys in ([], ["side"], ["outcome"]):
        expected = bag_accumulation(pair, keys, per="game")
        pd.testing.assert_frame_equal(bag_accumulation(agg, keys, per="game"), expected)


@pytest.mark.parametrize("preset", ["cutthroat-4", "cutthroat"])
def test_cutthroat_refuses_what_plays_partnerships_only(tmp_path: Path, preset: str) -> None:
    # four lone players or three: pimc, the solver's tricks and duplicate need partnerships
    rules = Rules.preset(preset)
    with pytest.raises(ValueError, match=r"^pimc: is not played in cutthroat"):
        simulate_hands(10, seed=1, rules=rules, play="pimc")
    with pytest.raises(ValueError, match=r"^partnerships: the double-dummy solver plays"):
        simulate_hands(10, seed=1, rules=rules, dd=True)
    from spades_sim.analysis import duplicate

    with pytest.raises(ValueError, match=r"^rules: duplicate compares two partnerships"):
        duplicate("heuristic", "random", 10, seed=1, rules=rules)
    result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--rules", preset,
                                      "--dd", "--quiet", "--out", str(tmp_path / "x")])  # fmt: skip
    assert result.exit_code != 0 and "partnerships: the double-dummy solver" in result.output
    result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--rules", preset,
                                      "--ns-play", "pimc", "--quiet", "--out",
                                      str(tmp_path / "y")])  # fmt: skip
    assert result.exit_code != 0 and "pimc: is not played in cutthroat" in result.output


def test_cutthroat_solves_a_nil_alone_against_three() -> None:
    rules = Rules.preset("cutthroat-4")
    # a nil is solved in cutthroat (the seat alone against three), its tricks are not
    odds = nil_odds("5.T52.8643.97532", rules=rules, n=4, seed=1, defense="dd")
    assert odds.dd_n == 4 and 0 <= odds.dd_safe <= 4
    from spades_sim.solve.batch import nil_table

    rng = np.random.default_rng(3)
    deals = np.array(
        [[sum(1 << int(c) for c in p[13 * s : 13 * s + 13]) for s in range(4)]
         for p in (rng.permutation(52) for _ in range(6))],
        dtype=np.uint64,
    )  # fmt: skip
    leaders = np.arange(6) % 4
    for seat in range(4):
        alone = nil_table(deals, leaders, seat, rules=rules)
        partnered = nil_table(deals, leaders, seat, rules=Rules())
        assert not (alone & ~partnered).any()  # no partner to cover it: never safer


def test_cutthroat_nil_odds_scores_the_seat_alone() -> None:
    # a seat's nil is its own score: no partner's contract beside it
    rules = Rules.preset("cutthroat-4")
    odds = nil_odds("5.T52.8643.97532", rules=rules, n=400, seed=2)
    assert 0.0 < odds.probability < 1.0 and odds.n == 400
    with pytest.raises(ValueError, match=r"^partner: cutthroat \(partnerships=false\) has no"):
        nil_odds("5.T52.8643.97532", rules=rules, n=10, partner="AKQ.AKQ.AKQ.AKQJ")


@nb.bidder
def side_and_table(ctx):  # type: ignore[no-untyped-def]
    # 1 + the side; 6 more when the context shows four scores and no partner's bid; with
    # three scores (three players, no partner) 2 + the seat + 5
    lone = ctx.partner_bid == -1
    if ctx.scores.shape[0] == 3:
        return 2 + ctx.seat + (5 if lone else 0)
    return 1 + ctx.side + (6 if lone and ctx.scores.shape[0] == 4 else 0)


@pytest.mark.slow  # compiles a kernel for the user bidder (one for the three tables)
def test_cutthroat_user_bidders_see_their_own_side() -> None:
    # every table plays at random: the bids are the bidder's whatever the play, and one
    # play for all three keeps them to one generated module (the play is part of its key)
    play = "random"
    rules = Rules.preset("cutthroat-4")
    df = simulate_hands(200, seed=4, rules=rules, bidding=side_and_table, play=play)
    assert (df.bid.astype(int) == 7 + df.seat.astype(int)).all()
    # partnerships: two sides, two scores; the partner has bid for seats 2 and 3
    df = simulate_hands(200, seed=4, bidding=side_and_table, play=play)
    assert (df.bid.astype(int) == 1 + df.seat.astype(int) % 2).all()
    # three players: three lone sides, three scores, 17 tricks
    rules = Rules.preset("cutthroat")
    df = simulate_hands(300, seed=4, rules=rules, bidding=side_and_table, play=play)
    assert (df.bid.astype(int) == 7 + df.seat.astype(int)).all()
    assert (df.groupby("deal").tricks.sum() == 17).all()


# --- Three-player cutthroat -------------------------------------------------------------

THREE_PLAYER = {
    "cutthroat": {},
    "jokers": {"jokers": True},
    "jokers, 2C leads": {"jokers": True, "first_lead": "two_of_clubs"},
    "must-overtrump, boston": {"must_trump": True, "must_overtrump": True, "boston_bonus": 200},
    "ten-for-200, spades any time": {"big_bid_threshold": 10, "spades_lead": "any_time"},
    "whiz": {"bid_rule": "whiz", "blind_nil": False},
    "mirror": {"bid_rule": "mirror", "blind_nil": False},
}
"""Three-player rule sets the kernels are held to the reference on (the preset itself is
in every preset's tests of ``tests/test_engine.py`` too)."""


@pytest.mark.parametrize("variant", list(THREE_PLAYER))
def test_three_players_kernel_matches_reference(variant: str) -> None:
    rules = Rules.preset("cutthroat", **THREE_PLAYER[variant])
    blind = check_hands_against_reference(rules, 200, seed=41, bidding=WILD_BIDDING)
    assert blind > 0 or not rules.blind_nil
    check_hands_against_reference(rules, 60, seed=42, bidding="partner-aware")
    check_games_against_reference(rules.replace(max_hands=25), 4, seed=43, bidding="count")


def test_three_players_rows_games_and_threads() -> None:
    rules = Rules.preset("cutthroat", jokers=True, max_hands=40)
    kwargs = {"seed": 6, "rules": rules, "bidding": WILD_BIDDING}
    one = simulate_hands(900, threads=1, chunk_size=900, play="heuristic", **kwargs)  # type: ignore[arg-type]
    two = simulate_hands(900, threads=2, chunk_size=130, play="heuristic", **kwargs)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(one, two)
    # three rows a hand, each seat its own side; every trick of 18 taken by someone
    assert len(one) == 900 * 3 and (one.side == one.seat).all() and set(one.seat) == {0, 1, 2}
    assert (one.groupby("deal").tricks.sum() == 18).all()
    assert ((one.bid >= 0) & (one.bid <= 18)).all()
    hands, games = simulate_games(12, threads=2, chunk_size=5, **kwargs)  # type: ignore[arg-type]
    hands1, games1 = simulate_games(12, threads=1, chunk_size=12, **kwargs)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(hands, hands1)
    pd.testing.assert_frame_equal(games, games1)
    assert set(games.winner) <= {-1, 0, 1, 2} and (games.score_3 == 0).all()
    finals = hands.groupby(["game", "seat"]).score_change.sum().unstack()
    for seat, column in enumerate(("score_ns", "score_ew", "score_2")):
        assert (finals[seat].to_numpy() == games[column].to_numpy()).all()


def test_three_players_aggregate_counts_what_the_rows_say() -> None:
    rules = Rules.preset("cutthroat", jokers=True, target=250)
    kwargs = {"seed": 8, "rules": rules, "bidding": WILD_BIDDING, "play": "random"}
    rows = simulate_hands(800, **kwargs)  # type: ignore[arg-type]
    agg = simulate_hands(800, aggregate=("tricks", "side_contract"), **kwargs)  # type: ignore[arg-type]
    for keys in ([], ["tricks"], ["side_contract"], ["bid"], ["nil", "blind_nil"]):
        assert_same_analyses(rows, agg, keys)
    pair = simulate_games(20, seed=3, rules=rules)
    counted = simulate_games(20, seed=3, rules=rules, aggregate=("spades",))
    for keys in ([], ["spades"], ["side", "outcome"]):
        assert_same_analyses(pair, counted, keys)


@pytest.mark.parametrize("preset", ["cutthroat-4", "cutthroat"])
def test_cutthroat_sampling_policies_play_for_the_seat(preset: str) -> None:
    # lookahead and monte-carlo score a lone seat against the mean of the others: the
    # same at any thread count, bids within the hand's tricks, and lookahead's seats
    # (N-S's policy: seats 0 and 2) ahead of the heuristic's on the same deals, either way
    rules = Rules.preset(preset)
    kwargs = {"seed": 5, "rules": rules, "bidding": "monte-carlo:samples=4"}
    one = simulate_hands(40, threads=1, play="lookahead", **kwargs)  # type: ignore[arg-type]
    assert one.equals(simulate_hands(40, threads=2, play="lookahead", **kwargs))  # type: ignore[arg-type]
    assert (one.groupby("deal").tricks.sum() == rules.tricks).all()
    assert one.bid.between(0, rules.tricks).all() and (one.side == one.seat).all()
    gains = []
    for ns, ew in (("lookahead", "heuristic"), ("heuristic", "lookahead")):
        df = simulate_hands(400, seed=6, rules=rules, play={"ns": ns, "ew": ew})
        even = df.seat % 2 == 0
        mine = df[even if ns == "lookahead" else ~even].score_change.mean()
        theirs = df[~even if ns == "lookahead" else even].score_change.mean()
        gains.append(mine - theirs)
    assert sum(gains) > 0, gains


def test_three_players_nil_odds_deal_seventeen_cards() -> None:
    rules = Rules.preset("cutthroat")
    low = nil_odds("32.65432.65432.76543", rules=rules, n=300, seed=2)
    high = nil_odds("AKQJ.AKQJ.AKQJT.AKQJ", rules=rules, n=300, seed=2)
    assert low.n == high.n == 300 and low.seat == "P0"
    assert low.probability > 0.2 and high.probability == 0.0
    perfect = nil_odds("32.65432.65432.76543", rules=rules, n=8, seed=2, defense="dd")
    assert perfect.dd_n == 8 and 0 <= perfect.dd_safe <= 8
    with pytest.raises(Misdeal, match=r"^hand: a hand holds 17 cards, got 13"):
        nil_odds("5.T53.8643.97543", rules=rules, n=10, seed=1)
    with pytest.raises(Misdeal, match=r"card 2C is not in this deck"):
        nil_odds("32.65432.65432.76542", rules=rules, n=10, seed=1)
    jokers = Rules.preset("cutthroat", jokers=True)  # 18 cards, the 2C back in the pack
    odds = nil_odds("32.65432.65432.765432", rules=jokers, n=100, seed=2)
    assert odds.n == 100 and 0.0 < odds.probability <= 1.0


@pytest.mark.parametrize("bidding", ["count", "pagat", "partner-aware"])
def test_three_players_builtin_bidders_bid_near_their_tricks(bidding: str) -> None:
    # the four-player counts taken to 17 cards against two opponents: contracts mostly
    # made, few bags, and no nil or blind nil at the default threshold
    rules = Rules.preset("cutthroat", target=300)
    df = simulate_hands(3000, seed=12, rules=rules, bidding=bidding)
    assert not df.nil.any() and not df.blind_nil.any()
    made = df.made.astype(float).mean()
    assert 0.65 < made < 0.92 and df.bags_change.mean() < 1.2
    assert df.bid.astype(int).max() <= 17
    hands, games = simulate_games(40, seed=1, rules=rules, bidding=bidding)
    assert not hands.blind_nil.any() and games.hands.mean() < 30
    # a higher threshold still lets them bid nil
    nils = simulate_hands(3000, seed=12, rules=rules, bidding=f"{bidding}:nil_threshold=5")
    assert nils.nil.any()
