"""The bid table (``spades_sim.advise``): nils no play can keep, the nil row against
``nil_odds``, completions that fit the earlier bids, the table, the bag penalty and the
earlier bids against the reference engine, end-game positions with a clear answer,
reproducibility across threads, and bad input in one line.

The independent references: Hall's condition on the spades (a nil whose spades cannot
each be covered by a distinct higher spade held elsewhere can never be made), the
pure-Python engine (``reference.replay_hand``, which rescores every hand from the cards
played, with the bags carried in), the seated bidder asked directly at the table each
earlier seat saw, and ``nil_odds`` on the same completions.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from spades_sim import BidAdvice, advise, nil_odds, reference
from spades_sim._nb.enums import N_INFO, InfoSlot, ParamRow
from spades_sim._nb.policies import plain_bid_nb
from spades_sim.cards import SPADE_MASK
from spades_sim.cli import cli
from spades_sim.odds import Conditions, deal_completions
from spades_sim.odds.advice import (
    COLUMNS,
    advice_completions,
    game_winner,
    given_bids_code,
    parse_bid,
)
from spades_sim.odds.nil import play_completions
from spades_sim.rules import Rules
from spades_sim.run.spec import RunSpec

FAIR = "Q73.J52.T84.9632"  # a fair nil: three low spades, no ace or king
STRONG = "AKQ4.KQ2.A32.K32"


def _row(advice: BidAdvice, bid: str) -> pd.Series:
    return advice.table.set_index("bid").loc[bid]


NEVER = {
    "A32.J52.T84.9632": "A",  # the ace of spades wins whatever trick it falls in
    "KQ.J752.T84.9632": "KQ",  # the ace covers one of K and Q only
    "KJT.J52.T84.9632": "KJT",  # three of T-K without the A: A and Q cover two
    "JT98.J52.T84.963": "JT98",  # four above the 7: Q, K and A cover three
}


def _hall_fails(spades: str) -> bool:
    """Whether some set of these spades has fewer higher spades held elsewhere than it has
    members (Hall's condition for covering each by a distinct higher spade), by brute force
    over every subset."""
    from itertools import combinations

    ranks = "23456789TJQKA"
    mine = [ranks.index(c) for c in spades]
    others = [r for r in range(13) if r not in mine]
    return any(
        sum(1 for o in others if o > min(group)) < len(group)
        for k in range(1, len(mine) + 1)
        for group in combinations(mine, k)
    )


def test_the_never_makeable_hands_fail_hall_and_a_fair_one_does_not() -> None:
    assert all(_hall_fails(spades) for spades in NEVER.values())
    assert not _hall_fails("Q73") and not _hall_fails("J5432")


@pytest.mark.parametrize("hand", list(NEVER))
def test_nils_no_play_can_keep_show_made_exactly_zero(hand: str) -> None:
    advice = advise(hand, "S", dealer="E", n=300, seed=3)
    for bid in ("nil", "blind nil"):
        row = _row(advice, bid)
        assert row["made"] == 0.0 and row["made_low"] == 0.0, (hand, bid)
        assert 0.0 < row["made_high"] < 0.02, (hand, bid)  # Wilson's upper bound at n=300
    assert advice.table["made"].max() > 0  # some number bid is made


def test_the_nil_row_is_nil_odds_on_the_same_completions() -> None:
    # S bids first with E dealing: nothing bid before, so the completions are nil_odds's
    advice = advise(FAIR, "S", dealer="E", n=1_000, seed=11)
    odds = nil_odds(FAIR, seat="S", dealer="E", n=1_000, seed=11, number_bids=[1, 2, 3, 4])
    nil = _row(advice, "nil")
    assert nil["made"] == odds.probability
    assert (nil["made_low"], nil["made_high"]) == (odds.ci_low, odds.ci_high)
    assert nil["points"] == pytest.approx(odds.nil_score.value, abs=1e-9)
    for bid, score in odds.number_scores.items():
        assert _row(advice, str(bid))["points"] == pytest.approx(score.value, abs=1e-9), bid
    assert advice.fatal_cards["nil"] == odds.fatal_cards and len(odds.fatal_cards) > 3
    blind = nil_odds(FAIR, seat="S", dealer="E", n=1_000, seed=11, blind=True, number_bids=[2])
    assert _row(advice, "blind nil")["made"] == blind.probability
    assert advice.fatal_cards["blind nil"] == blind.fatal_cards
    assert json.loads(advice.to_json())["fatal_cards"]["nil"] == odds.fatal_cards


def test_completions_fit_the_earlier_bids_as_the_seated_bidder_makes_them() -> None:
    rules = Rules()
    bids = {"W": 4, "N": "nil", "E": 3}  # S dealing: W, N and E bid before S
    deals, misfit = advice_completions(FAIR, "S", dealer="S", bids=bids, n=400, seed=5)
    params = RunSpec.build(seed=5, rules=rules, bidding="count").params()
    lowered = rules.lower()
    said = {3: (4, 0), 0: (0, 1), 1: (3, 0)}

    def fits(deal: np.ndarray) -> bool:
        """Whether each earlier seat's bidder, asked at the table it saw, bids its bid."""
        info = np.zeros(N_INFO, dtype=np.int64)
        info[InfoSlot.history :] = -1
        info[InfoSlot.players], info[InfoSlot.sides], info[InfoSlot.dealer] = 4, 2, 2
        info[InfoSlot.first_to_act] = 3
        info[InfoSlot.bids : InfoSlot.bids + 4] = -1
        for s in (3, 0, 1):  # in bidding order, each seeing the bids before it
            row = params[ParamRow.bid + (s & 1)]
            bid = plain_bid_nb(deal[s], s, info, lowered, row, np.uint64(0))
            if (bid, int(bid == 0)) != said[s]:
                return False
            info[InfoSlot.bids + s], info[InfoSlot.nil + s] = said[s]
        return True

    fitted = misfit == 0
    assert fitted.mean() > 0.95, f"only {fitted.mean():.1%} of the completions fit"
    assert all(fits(deals[i]) for i in np.flatnonzero(fitted))
    assert (deals[:, 2] == Conditions.build(FAIR, seat="S").hand).all()
    # random completions, not read against the bids, seldom fit them
    blind = deal_completions(FAIR, 400, seed=5, seat="S")
    assert np.mean([fits(d) for d in blind]) < 0.05


def test_rare_ranges_and_bids_they_contradict_stay_within_the_draws_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # N bid 1 but holds 6 spades or more: the count bidder seldom bids 1 so, and every
    # draw the fit tries must first meet the range; the fit's tries are cut to keep the
    # draws near the cap (unbounded, this was 17 times the cap; with 9 spades, hours)
    from spades_sim.odds import advice as advice_module
    from spades_sim.odds import sampling

    cap, draws = 100_000, []
    fitted_sample = sampling.Sampler.fitted_sample

    def counted(self: sampling.Sampler, start: int, count: int) -> tuple:
        out = fitted_sample(self, start, count)
        draws.append(out[1])
        return out

    monkeypatch.setattr(sampling.Sampler, "fitted_sample", counted)
    monkeypatch.setattr(advice_module, "MAX_TRIES", cap)
    bids, ranges = {"N": 1, "E": 3}, {"N": {"spades": "6.."}}
    deals, misfit = advice_completions(
        FAIR, "S", dealer="W", bids=bids, require=ranges, n=20, seed=1
    )
    assert sum(draws) <= 2 * cap, sum(draws)
    assert all((int(d) & SPADE_MASK).bit_count() >= 6 for d in deals[:, 0])
    assert (misfit > 0).any()  # fitted roughly, and said so


def test_earlier_bids_and_bags_carried_in_are_played_and_scored_as_the_reference_engine() -> None:
    rules = Rules()
    spec = RunSpec.build(seed=4, rules=rules, bidding="count", play="heuristic")
    deals, _ = advice_completions(STRONG, "N", dealer="E", bids={"S": 2, "W": "nil"}, n=40, seed=4)
    # S (seat 2) bid 2 and W (seat 3) nil before N: their codes ride above N's bid
    given = given_bids_code({2: parse_bid(2, "S", 13), 3: parse_bid("nil", "W", 13)})
    bids = np.array([0, 3 | given, 5 | given], dtype=np.int64)
    kinds = np.array([1, 0, 0], dtype=np.int64)
    before = np.array([430, 380, 0, 0, 9, 8, 0, 0], dtype=np.int64)
    played = play_completions(
        spec, 0, deals, 0, bids, kinds, 1, record=True, before=before, sides=True
    )
    assert played.held is not None and played.moves is not None and played.sides is not None
    for i in range(deals.shape[0]):
        for k in range(3):
            moves = [int(x) for x in played.moves[i, k]]
            bid_list, nil_kinds, plays = moves[:4], moves[4:8], moves[8:]
            assert bid_list[2] == 2 and bid_list[3] == 0 and nil_kinds[3] == 1
            assert bid_list[0] == int(bids[k] & 0xFF) and nil_kinds[0] == kinds[k]
            held = [int(x) for x in played.held[i, k]]
            result = reference.replay_hand(
                held, 1, bid_list, plays, rules, scores_before=(430, 380), bags_before=(9, 8)
            )
            for side in range(2):
                assert played.sides[i, k, side, 0] == result.score_change[side], (i, k, side)
                assert played.sides[i, k, side, 2] == result.bags_after[side], (i, k, side)


def test_the_table_has_every_allowed_bid_and_consistent_columns() -> None:
    advice = advise(STRONG, "N", dealer="W", n=300, seed=2)
    table = advice.table
    assert tuple(table.columns) == COLUMNS
    assert table["bid"].tolist() == ["blind nil", "nil", *map(str, range(1, 14))]
    assert (table["n"] == 300).all()
    for m in ("made", "points", "bags", "gain"):
        assert (table[f"{m}_low"] <= table[m]).all() and (table[m] <= table[f"{m}_high"]).all()
    best = _row(advice, advice.best)
    seen = table[table["bid"] != "blind nil"]
    assert advice.by == "win" and best["gain"] == 0 and best["win"] == seen["win"].max()
    assert ((table["win"] >= 0) & (table["win"] <= 1)).all()
    # the paired gain is the difference of the means
    assert np.allclose(table["gain"], table["win"] - best["win"])
    # a minimum bid and no blind nil: the rows follow the rules (points only: rules met
    # for the first time build no win table with win=False)
    ruled = advise(
        STRONG, "N", dealer="W", n=50, rules=Rules(min_number_bid=3, blind_nil=False), win=False
    )
    assert ruled.table["bid"].tolist() == ["nil", *map(str, range(3, 14))]
    assert ruled.by == "points" and ruled.table["win"].isna().all()
    text = str(advice)
    assert "blind nil" in text and f"Bid {advice.best}" in text


def test_nine_bags_under_a_ten_bag_penalty_make_underbidding_cost_a_hundred() -> None:
    calm = advise(STRONG, "N", dealer="W", n=600, seed=7)
    loaded = advise(STRONG, "N", dealer="W", n=600, seed=7, bags=(9, 0))
    # underbid by three: a bag is near certain, and at 9 bags it costs the penalty
    low = str(int(calm.best) - 3)
    assert _row(loaded, low)["points"] < _row(calm, low)["points"] - 60
    # so the best bid at 9 bags is at least the best at 0 bags, and underbidding loses
    # game chances
    assert int(loaded.best) >= int(calm.best)
    assert _row(loaded, low)["gain_high"] < 0


def test_needing_sixty_points_before_the_opponents_reach_the_target_bids_for_them() -> None:
    # E-W on 490 reach 500 with any made contract; N-S on 440 must make 60 to stay level:
    # with partner's 2 in, N bids at least 4 (a safe 2 cannot reach the target)
    kwargs = {"dealer": "E", "bids": {"S": 2, "W": 3}, "n": 800, "seed": 3}
    advice = advise(STRONG, "N", scores=(440, 490), **kwargs)
    assert int(advice.best) >= 4, advice
    assert _row(advice, "2")["gain_high"] < 0
    assert _row(advice, "2")["win"] < _row(advice, advice.best)["win"] - 0.1
    # at 0-0 the same hand has no such need: the table says so by points and win alike
    calm = advise(STRONG, "N", scores=(0, 0), **kwargs)
    assert _row(calm, "2")["win"] > _row(advice, "2")["win"]


def test_far_behind_near_the_end_the_nil_gambles_win_more_games_than_a_number() -> None:
    # N-S on 300 against 470: only a blind nil (+200) can bring them to the target this
    # hand; a nil keeps them in reach, a number all but loses
    advice = advise(FAIR, "S", dealer="E", scores=(300, 470), n=800, seed=4)
    table = advice.table.set_index("bid")
    numbers = table.drop(["nil", "blind nil"])
    assert advice.best == "nil"
    assert table.loc["nil", "win"] > numbers["win"].max()
    assert table.loc["blind nil", "gain_low"] > 0  # bid before looking, better still
    assert numbers["gain_high"].max() < 0


def test_same_seed_same_table_on_any_thread_count() -> None:
    kwargs = {"dealer": "S", "bids": {"W": 3, "N": 4, "E": "nil"}, "n": 500, "seed": 9}
    one = advise(FAIR, "S", threads=1, scores=(120, 200), bags=(0, 0), **kwargs)
    two = advise(FAIR, "S", threads=2, scores=(120, 200), bags=(0, 0), **kwargs)
    assert one.table.equals(two.table) and one.best == two.best


def test_the_table_and_its_completions_do_not_depend_on_the_chunking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from spades_sim.odds import sampling

    kwargs: dict = {"dealer": "W", "bids": {"N": 4, "E": "nil"}, "n": 40, "seed": 5}
    whole = advise(FAIR, "S", **kwargs)
    deals, misfit = advice_completions(FAIR, "S", **kwargs)
    monkeypatch.setattr(sampling, "CHUNK", 7)  # 40 completions in six chunks, the last short
    assert advise(FAIR, "S", **kwargs).table.equals(whole.table)
    chunked, chunked_misfit = advice_completions(FAIR, "S", **kwargs)
    assert np.array_equal(chunked, deals) and np.array_equal(chunked_misfit, misfit)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["Q73.J52.T84.963"], "hand: a hand holds 13 cards, got 12"),
        (["Q73.J52.T84.96322"], "appears twice"),
        (["Q73.J52.T84.9632A"], "hand: a hand holds 13 cards, got 14"),
        ([FAIR, "--bids", "N=4,E=3,W=2"], "bids: W bids after S"),
        ([FAIR, "--bids", "N=4"], "bids: E bids before S"),
        ([FAIR, "--bids", "N=1,E=3", "--set", "min_number_bid=2"], "bids: N bid 1"),
        ([FAIR, "--bids", "N=blind,E=3", "--set", "blind_nil=false"], "bids: N bid blind nil"),
        ([FAIR, "--bids", "N=4,E=3", "--score", "500-380"], "scores: N-S has 500"),
        ([FAIR, "--bids", "N=4,E=3", "--bags", "10-2"], "bags: N-S carries 10 bags"),
        ([FAIR, "--bids", "N=4,E=3", "-n", "0"], "n:"),
        ([FAIR, "--bids", "N=4,E=3", "-n", "99999999999"], "n: 99,999,999,999 completions"),
        ([FAIR, "--bids", "N=4,E=3,N=2"], "'--bids': N is given twice"),
        ([FAIR, "--bids", "N=four,E=3"], "bids: N bid 'four'"),
        ([FAIR, "--bids", "N=4,E=3", "--score", "a-b"], "--score"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    base = ["advise", *args[:1], "--seat", "S", "--dealer", "W", *args[1:]]
    result = CliRunner().invoke(cli, base)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert message in lines[0], lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("preset", "bags", "says"),
    [
        ("standard", (10, 2), "N-S carries 10 bags; with a bag penalty the bags carried in"),
        ("standard", (0, -1), "E-W has -1 bags, a negative count"),
        ("two-player", (3, 12), "P1 carries 12 bags"),
        ("cutthroat-4", (0, 0, 10, 0), "bags: S carries 10 bags"),
    ],
)
def test_bags_carried_in_are_checked_once_in_one_wording(
    preset: str, bags: tuple[int, ...], says: str
) -> None:
    # advise and the reference engine take bags the same way: the same check, the same
    # line, the side named as the tables name it; only the argument's name differs
    rules = Rules.preset(preset)
    scores = (0,) * rules.sides
    bids, tricks = (1,) * rules.players, (0,) * (rules.players - 1) + (rules.tricks,)
    with pytest.raises(ValueError) as engine:
        reference.score_hand(bids, tricks, rules, scores_before=scores, bags_before=bags)
    with pytest.raises(ValueError) as table:
        advise(FAIR, 0, dealer=1, rules=rules, scores=scores, bags=bags, n=10)
    assert says in str(table.value)
    assert str(engine.value) == "bags_before" + str(table.value).removeprefix("bags")


def test_cli_prints_the_table_the_best_bid_and_why_and_json() -> None:
    args = ["advise", FAIR, "--seat", "S", "--dealer", "W", "--bids", "N=4,E=3"]
    args += ["--score", "420-380", "--bags", "9-0", "-n", "300"]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "score 420-380, bags 9-0 (N-S first)" in text.output
    assert "Bid " in text.output.splitlines()[-1]
    as_json = CliRunner().invoke(cli, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    direct = advise(
        FAIR, "S", dealer="W", bids={"N": 4, "E": 3}, scores=(420, 380), bags=(9, 0), n=300
    )
    assert data["best"] == direct.best and data["bids"] == {"N": 4, "E": 3}
    assert [row["bid"] for row in data["table"]] == direct.table["bid"].tolist()
    assert data["by"] == "win" and 0 <= data["table"][0]["win"] <= 1
    points = CliRunner().invoke(cli, [*args, "--no-win", "--json"])
    assert points.exit_code == 0, points.output
    assert json.loads(points.output)["by"] == "points"


def test_game_winner_is_the_reference_engines_game_result() -> None:
    grid = [-250, -200, -120, 0, 300, 460, 499, 500, 510, 560]
    for preset in ("standard", "mercy", "cutthroat-4"):
        rules = Rules.preset(preset)
        rng = np.random.default_rng(1)
        scores = rng.choice(grid, size=(400, rules.sides))
        got = game_winner(scores, rules)
        for row, winner in zip(scores, got, strict=True):
            expected, _ = reference.game_result(tuple(int(x) for x in row), 1, rules)
            assert winner == (-1 if expected is None else expected), (preset, row)
