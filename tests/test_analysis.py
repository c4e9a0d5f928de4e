"""The analyses: every table reconciles with a direct count, frames and run directories
give identical tables, intervals hold their estimates, bag timing matches a hand-built
game, duplicate games count 2n games, and ``spades-sim analyze`` prints and fails well.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from spades_sim import Rules, simulate_games, simulate_hands
from spades_sim.analysis import (
    analyze,
    bag_accumulation,
    bid_accuracy,
    duplicate,
    nil_success,
    proportion_ci,
)
from spades_sim.analysis.reduce import TIDY, combine, reduce_units
from spades_sim.analysis.source import UnknownKey, sources
from spades_sim.cli import cli
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec

HANDS = 3000
GAMES = 120
HAND_ARGS = {"seed": 11, "bidding": "count", "play": "heuristic"}
GAME_ARGS = {"seed": 5, "rules": Rules.preset("mercy", target=300), "play": "heuristic"}


@pytest.fixture(scope="module")
def hands() -> pd.DataFrame:
    return simulate_hands(HANDS, **HAND_ARGS)


@pytest.fixture(scope="module")
def hands_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same rows as ``hands``, in a run directory of five parts."""
    out = tmp_path_factory.mktemp("analysis") / "hands"
    run_dataset(RunSpec.build(**HAND_ARGS), HANDS, out, chunk_size=700)
    return out


@pytest.fixture(scope="module")
def games() -> tuple[pd.DataFrame, pd.DataFrame]:
    return simulate_games(GAMES, **GAME_ARGS)


@pytest.fixture(scope="module")
def games_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("analysis") / "games"
    spec = RunSpec.build(mode="games", **GAME_ARGS)
    run_dataset(spec, GAMES, out, chunk_size=25)
    return out


def row(table: pd.DataFrame, measure: str, **keys: object) -> pd.Series:
    """The one row of ``measure`` with these key values."""
    mask = table.measure == measure
    for k, v in keys.items():
        mask &= table[k] == v
    assert mask.sum() == 1, (measure, keys, table[mask])
    return table[mask].iloc[0]


# --------------------------------------------------------------------------------------
# Tables reconcile with a direct count
# --------------------------------------------------------------------------------------


def test_tables_have_the_contracted_columns(hands: pd.DataFrame) -> None:
    t = nil_success(hands, by=["spades", "seat"])
    assert list(t.columns) == ["measure", "spades", "seat", *TIDY[1:]]
    assert t.n.dtype == np.int64
    first = t[t.measure == "nil_rate"][["spades", "seat"]]
    assert first.equals(first.sort_values(["spades", "seat"]))  # sorted by the keys


def test_nil_success_counts_equal_a_direct_count(hands: pd.DataFrame) -> None:
    t = nil_success(hands, by="spades")
    nil = hands[hands.nil | hands.blind_nil]
    bids = nil.groupby("spades").size()
    made = nil.groupby("spades").nil_made.sum()
    seats = hands.groupby("spades").size()
    success = t[t.measure == "success_rate"].set_index("spades")
    rate = t[t.measure == "nil_rate"].set_index("spades")
    assert success.n.to_dict() == bids.to_dict()
    assert success.total.astype(int).to_dict() == made.astype(int).to_dict()
    assert rate.n.to_dict() == seats.to_dict()
    assert rate.total.astype(int).to_dict() == bids.reindex(seats.index, fill_value=0).to_dict()
    assert rate.estimate.to_numpy() == pytest.approx((rate.total / rate.n).to_numpy())
    whole = nil_success(hands)
    assert row(whole, "success_rate").n == len(nil) and row(whole, "nil_rate").n == len(hands)
    # the interval is stats.proportion_ci's Wilson interval
    wilson = proportion_ci(int(nil.nil_made.sum()), len(nil))
    assert row(whole, "success_rate")[["ci_low", "ci_high"]].tolist() == [wilson.low, wilson.high]


def test_nil_by_blind_splits_nils_from_blind_nils(games: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    hands_rows = games[0]
    assert hands_rows.blind_nil.sum() > 0  # games reach the deficit that allows blind nil
    t = nil_success(games, by=["blind", "side"])
    for blind, column in ((False, "nil"), (True, "blind_nil")):
        for side in (0, 1):
            rows = hands_rows[hands_rows[column] & (hands_rows.side == side)]
            r = row(t, "success_rate", blind=blind, side=side)
            assert (r.n, int(r.total)) == (len(rows), int(rows.nil_made.sum()))
            rate = row(t, "nil_rate", blind=blind, side=side)
            assert (rate.n, int(rate.total)) == ((hands_rows.side == side).sum(), len(rows))


def test_bag_totals_equal_sums(hands: pd.DataFrame) -> None:
    t = bag_accumulation(hands, by="side")
    for side in (0, 1):
        seat_rows = hands[hands.seat == side]
        r = row(t, "bags", side=side)
        assert (r.n, r.total) == (HANDS, seat_rows.bags_change.sum())
        assert r.estimate == pytest.approx(seat_rows.bags_change.mean())
        assert row(t, "penalty", side=side).total == (seat_rows.bag_penalty > 0).sum()
    whole = bag_accumulation(hands)
    assert row(whole, "bags").total == hands[hands.seat < 2].bags_change.sum()


def test_bid_accuracy_reconciles(hands: pd.DataFrame) -> None:
    sides = hands[(hands.seat < 2) & (hands.side_contract > 0)]
    difference = sides.side_tricks.astype(int) - sides.side_contract.astype(int)
    summary = bid_accuracy(hands)
    assert row(summary, "difference").estimate == pytest.approx(difference.mean())
    assert row(summary, "abs_difference").estimate == pytest.approx(difference.abs().mean())
    shares = [row(summary, m).total for m in ("exact", "over", "set")]
    assert shares == [(difference == 0).sum(), (difference > 0).sum(), (difference < 0).sum()]
    assert sum(shares) == len(sides) == row(summary, "exact").n

    dist = bid_accuracy(hands, view="distribution")
    assert dist.total.sum() == len(sides) and (dist.n == len(sides)).all()
    assert dict(zip(dist.difference, dist.total.astype(int), strict=True)) == (
        difference.value_counts().to_dict()
    )
    by_level = bid_accuracy(hands, by="side_contract", view="distribution")
    counts = by_level.groupby("side_contract").total.sum()
    assert counts.to_dict() == sides.groupby("side_contract").size().to_dict()

    calibration = bid_accuracy(hands, view="calibration")
    number = hands[~(hands.nil | hands.blind_nil)]
    expected = number.groupby("bid").tricks.mean()
    got = calibration.set_index("bid").estimate
    assert got.index.tolist() == expected.index.tolist()
    assert got.to_numpy() == pytest.approx(expected.to_numpy())
    assert calibration.n.sum() == len(number)


def test_games_view_reconciles_with_the_games_table(
    games: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    hands_rows, games_rows = games
    t = bag_accumulation(games, by="side", per="game")
    for side, name in ((0, "ns"), (1, "ew")):
        assert row(t, "points_lost", side=side).total == games_rows[f"bag_penalty_{name}"].sum()
        assert row(t, "bags", side=side).n == GAMES
        side_rows = hands_rows[hands_rows.seat == side]
        assert row(t, "bags", side=side).total == side_rows.bags_change.sum()
        assert row(t, "penalties", side=side).total == (side_rows.bag_penalty > 0).sum()
        losses = ((games_rows.winner >= 0) & (games_rows.winner != side)).sum()
        assert row(t, "decided_by_bags", side=side).n == losses
    whole = bag_accumulation(games, per="game")
    assert row(whole, "decided_by_bags").n == (games_rows.winner >= 0).sum()


# --------------------------------------------------------------------------------------
# Frames, run directories and parts give the same numbers
# --------------------------------------------------------------------------------------

HAND_CASES = [
    (nil_success, {}),
    (nil_success, {"by": ["spades", "high_spades", "seat"]}),
    (nil_success, {"by": ["policy", "blind", "points"]}),
    (bag_accumulation, {"by": ["side", "policy"]}),
    (bag_accumulation, {"by": "side_contract"}),
    (bid_accuracy, {"by": ["policy", "side_contract"]}),
    (bid_accuracy, {"view": "distribution", "by": "side"}),
    (bid_accuracy, {"view": "calibration", "by": ["seat", "rules"]}),
]


@pytest.mark.parametrize(("analysis", "kwargs"), HAND_CASES)
def test_frames_and_run_directories_give_identical_tables(
    hands: pd.DataFrame, hands_run: Path, analysis, kwargs: dict
) -> None:
    from_frame = analysis(hands, **kwargs)
    from_run = analysis(hands_run, **kwargs)
    assert len(from_frame) > 0
    pd.testing.assert_frame_equal(from_frame, from_run, check_exact=True)
    assert analysis(str(hands_run), **kwargs).equals(from_run)


@pytest.mark.parametrize("by", [None, ["side", "outcome"], ["policy", "rules"]])
def test_games_frames_and_directories_agree(
    games: tuple[pd.DataFrame, pd.DataFrame], games_run: Path, by: list[str] | None
) -> None:
    for per in ("hand", "game"):
        if per == "hand" and by and "outcome" in by:
            continue
        a = bag_accumulation(games, by=by, per=per)
        b = bag_accumulation(games_run, by=by, per=per)
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    pd.testing.assert_frame_equal(nil_success(games[0]), nil_success(games_run), check_exact=True)


def test_a_run_directory_is_read_part_by_part(hands_run: Path) -> None:
    (source,) = sources(hands_run)
    batches = list(source.batches(["seat", "nil_made"]))
    assert len(batches) == 5  # 3000 hands in parts of 700
    assert all(list(h.columns) == ["seat", "nil_made"] and g is None for h, g in batches)
    assert all(h.nil_made.dtype == bool for h, _ in batches)  # nulls read as False
    assert sum(len(h) for h, _ in batches) == 4 * HANDS


def test_one_scan_gives_the_tables_of_each_analysis(hands_run: Path) -> None:
    result = analyze(hands_run, what="all", by=["policy"])
    assert list(result.tables) == [
        "nil",
        "bags",
        "bids",
        "bids_distribution",
        "bids_calibration",
    ]
    pd.testing.assert_frame_equal(result.tables["nil"], nil_success(hands_run, by="policy"))
    pd.testing.assert_frame_equal(
        result.tables["bids_calibration"],
        bid_accuracy(hands_run, by="policy", view="calibration"),
    )


def test_statistics_add_across_any_split() -> None:
    rng = np.random.default_rng(3)
    units = pd.DataFrame(
        {"k": rng.integers(0, 4, 1000).astype(np.int8), "x": rng.integers(-5, 9, 1000) * 1.0}
    )
    units.loc[rng.random(1000) < 0.2, "x"] = np.nan
    whole = reduce_units(units, ["k"]).sort_values("k").reset_index(drop=True)
    parts = [reduce_units(units.iloc[a:b], ["k"]) for a, b in ((0, 17), (17, 500), (500, 1000))]
    split = combine(parts[::-1], ["k"]).sort_values("k").reset_index(drop=True)
    pd.testing.assert_frame_equal(whole, split, check_exact=True)
    direct = units.groupby("k").x.agg(["count", "sum"])
    assert whole["x.n"].tolist() == direct["count"].tolist()
    assert whole["x.sum"].tolist() == direct["sum"].tolist()


def test_a_list_of_runs_keeps_them_apart_by_rules(hands: pd.DataFrame) -> None:
    other = simulate_hands(500, seed=2, rules=Rules(nil_value=50), play="heuristic")
    t = nil_success([hands, other], by="rules")
    assert set(t.rules) == {"standard", "standard nil_value=50"}
    assert row(t, "nil_rate", rules="standard").n == len(hands)
    assert row(t, "nil_rate", rules="standard nil_value=50").n == len(other)
    pooled = nil_success([hands, other])
    assert row(pooled, "nil_rate").n == len(hands) + len(other)


def test_policy_labels_follow_the_sides() -> None:
    df = simulate_hands(400, seed=4, bidding=("count", "count:bias=1"), play="random")
    t = bid_accuracy(df, by="policy")
    assert sorted(set(t.policy)) == ["count/random", "count:bias=1/random"]
    biased = row(t, "difference", policy="count:bias=1/random")
    plain = row(t, "difference", policy="count/random")
    assert biased.n == (df[df.seat == 1].side_contract > 0).sum()
    assert biased.estimate < plain.estimate  # bidding one more trick leaves fewer over
    bare = df.copy()
    bare.attrs.clear()
    with pytest.raises(UnknownKey, match="no run meta"):
        nil_success(bare, by="policy")


# --------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------


def test_intervals_contain_their_estimates(
    hands: pd.DataFrame, games: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    tables = [
        nil_success(hands, by=["spades", "seat"]),
        bag_accumulation(hands, by="side"),
        bag_accumulation(games, per="game", by="outcome"),
        bid_accuracy(hands, by="side_contract"),
        bid_accuracy(hands, view="distribution"),
        bid_accuracy(hands, view="calibration"),
    ]
    for t in tables:
        assert (t.ci_low <= t.estimate).all() and (t.estimate <= t.ci_high).all()
        assert (t.n > 0).all()
        assert (t.estimate == t.total / t.n).all()
        proportions = t[t.measure.isin(["nil_rate", "success_rate", "penalty", "exact", "share"])]
        assert ((proportions.ci_low >= 0) & (proportions.ci_high <= 1)).all()
        wide = t[t.n >= 30]
        assert (wide.ci_high - wide.ci_low < np.inf).all()


# --------------------------------------------------------------------------------------
# Bag timing on a hand-built game
# --------------------------------------------------------------------------------------


def tiny_games() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Three games whose bag history is known by heart.

    game 0 (6 hands, E-W won 510-420): N-S penalised in hands 1 and 4 (hand_no from 0),
      E-W in hand 5. With the 300 bag points given back N-S leads 620-610: bags decided it.
    game 1 (3 hands, N-S won 500-300): no penalty; not decided by bags.
    game 2 (2 hands, unfinished): E-W penalised in hand 0.
    """
    bags = {
        0: ([3, 9, 0, 2, 8, 1], [1, 1, 2, 2, 3, 4]),
        1: ([1, 2, 0], [0, 0, 1]),
        2: ([0, 1], [5, 0]),
    }
    penalty = {(0, 0): {1: 100, 4: 100}, (0, 1): {5: 100}, (2, 1): {0: 100}}
    # the final scores (the games table's) as the first hand's change, then nothing
    finals = {(0, 0): 420, (0, 1): 510, (1, 0): 500, (1, 1): 300, (2, 0): 40, (2, 1): -60}
    rows = []
    for game, per_side in bags.items():
        for hand_no in range(len(per_side[0])):
            for seat in range(4):
                side = seat % 2
                rows.append(
                    {
                        "game": game,
                        "hand_no": hand_no,
                        "seat": seat,
                        "side": side,
                        "bags_change": per_side[side][hand_no],
                        "bag_penalty": penalty.get((game, side), {}).get(hand_no, 0),
                        "score_change": finals[(game, side)] if hand_no == 0 else 0,
                    }
                )
    hands = pd.DataFrame(rows).astype({"seat": "int8", "side": "int8"})
    games = pd.DataFrame(
        {
            "game": [0, 1, 2],
            "winner": [1, 0, -1],
            "score_ns": [420, 500, 40],
            "score_ew": [510, 300, -60],
            "bag_penalty_ns": [200, 0, 0],
            "bag_penalty_ew": [100, 0, 100],
        }
    )
    return hands, games


def test_bag_timing_on_a_hand_built_game() -> None:
    t = bag_accumulation(tiny_games(), per="game")
    expect = {  # measure: (n, total)
        "bags": (6, 23 + 13 + 3 + 1 + 1 + 5),
        "penalized": (6, 3),
        "penalties": (6, 4),
        "points_lost": (6, 400),
        "first_penalty_hand": (3, 2 + 6 + 1),
        "hands_between_penalties": (1, 3),
        "decided_by_bags": (2, 1),
    }
    got = {r.measure: (r.n, r.total) for r in t.itertuples()}
    assert got == expect
    by_side = bag_accumulation(tiny_games(), per="game", by="side")
    assert row(by_side, "first_penalty_hand", side=0).estimate == 2
    assert row(by_side, "first_penalty_hand", side=1).estimate == (6 + 1) / 2
    assert (
        row(by_side, "decided_by_bags", side=0).n,
        row(by_side, "decided_by_bags", side=0).total,
    ) == (1, 1)
    assert (
        row(by_side, "decided_by_bags", side=1).n,
        row(by_side, "decided_by_bags", side=1).total,
    ) == (1, 0)
    by_outcome = bag_accumulation(tiny_games(), per="game", by="outcome")
    assert row(by_outcome, "first_penalty_hand", outcome="lost").estimate == 2
    assert row(by_outcome, "first_penalty_hand", outcome="won").estimate == 6
    assert row(by_outcome, "first_penalty_hand", outcome="unfinished").estimate == 1
    assert set(by_outcome[by_outcome.measure == "bags"].outcome) == {"won", "lost", "unfinished"}


def test_a_game_missing_from_the_games_table_is_refused() -> None:
    hands, games = tiny_games()
    with pytest.raises(ValueError, match="game 2 has hands but no row"):
        bag_accumulation((hands, games[games.game < 2]), per="game")


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


def test_bad_arguments_name_the_culprit(hands: pd.DataFrame, hands_run: Path) -> None:
    with pytest.raises(UnknownKey, match="'trumps' is not a key of nil_success"):
        nil_success(hands, by="trumps")
    with pytest.raises(UnknownKey, match="'spades' is not a key of bag_accumulation"):
        bag_accumulation(hands_run, by="spades")
    with pytest.raises(UnknownKey, match="'hand_no' is not a column"):
        bid_accuracy(hands_run, by="hand_no")
    with pytest.raises(ValueError, match="needs a games run"):
        bag_accumulation(hands, per="game")
    with pytest.raises(ValueError, match="per: must be"):
        bag_accumulation(hands, per="deal")
    with pytest.raises(ValueError, match="view: must be"):
        bid_accuracy(hands, view="histogram")
    with pytest.raises(FileNotFoundError, match="no such run directory"):
        nil_success(hands_run / "missing")
    with pytest.raises(ValueError, match="not a per-seat hands frame"):
        nil_success(pd.DataFrame({"x": [1]}))


# --------------------------------------------------------------------------------------
# Duplicate games
# --------------------------------------------------------------------------------------


def test_duplicate_games_play_2n_games_on_the_same_deals() -> None:
    n = 30
    r = duplicate("heuristic", "random", n, seed=6, mode="games", rules=Rules(target=200))
    assert r.wins is not None and r.unfinished is not None
    assert r.wins.n == r.unfinished.n == 2 * n
    assert 0 <= r.wins.low <= r.wins.value <= r.wins.high <= 1
    assert r.wins.value > 0.5  # the heuristic beats random play
    assert r.margin.n == len(r.paired) and r.margin.value > 0
    assert "A won" in str(r)
    frame = r.to_frame()
    assert frame.set_index("measure").n["win_rate"] == 2 * n
    same = duplicate("heuristic", "heuristic", 10, seed=6, mode="games", rules=Rules(target=200))
    assert np.all(same.paired == 0)  # identical play on identical deals, sides swapped


def test_duplicate_of_two_sides_is_the_one_kind_comparison_when_they_share_a_policy() -> None:
    # kind="side": a (bidding, play) pair against another; with the bidders alike it is
    # the play comparison, with the players alike the bidding one, deal for deal
    sides = duplicate(("count", "heuristic"), ("count", "random"), 64, seed=2, kind="side")
    plays = duplicate("heuristic", "random", 64, seed=2, kind="play", bidding="count")
    assert np.array_equal(sides.paired, plays.paired) and sides.a == "count/heuristic"
    sides = duplicate(("count:bias=1", "random"), ("count", "random"), 64, seed=2, kind="side")
    bids = duplicate("count:bias=1", "count", 64, seed=2, kind="bid", play="random")
    assert np.array_equal(sides.paired, bids.paired)
    with pytest.raises(ValueError, match="a \\(bidding, play\\) pair"):
        duplicate("count", ("count", "random"), 4, seed=2, kind="side")


# --------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_analyze_text_csv_and_json(hands_run: Path) -> None:
    code, out, _ = invoke("analyze", hands_run)
    assert code == 0
    assert out.startswith("nil: nil bids (unit: a seat in a hand)")
    assert f"nil_rate      {4 * HANDS:,}" in out
    for name in ("bags:", "bids:", "bids_distribution:", "bids_calibration:"):
        assert f"\n{name}" in out
    code, out, _ = invoke(
        "analyze", hands_run, "--what", "nil", "--by", "spades", "--format", "csv"
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    expected = nil_success(hands_run, by="spades")
    assert list(table.columns) == ["table", *expected.columns]
    assert table.n.tolist() == expected.n.tolist()
    assert table.estimate.to_numpy() == pytest.approx(expected.estimate.to_numpy())
    code, out, _ = invoke("analyze", hands_run, "--what", "bids", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data["tables"]) == ["bids", "bids_distribution", "bids_calibration"]
    assert data["tables"]["bids"][0]["measure"] == "difference"


def test_analyze_games_run_adds_the_per_game_table(games_run: Path) -> None:
    code, out, _ = invoke("analyze", games_run, "--what", "bags", "--by", "side,outcome")
    assert code == 0
    assert "bags_per_game: bags per side per game (unit: a side in a game)" in out
    assert "decided_by_bags" in out
    assert "bags: left out: by: 'outcome' is not a key" in out  # not a key per hand


def test_analyze_several_runs_together(hands_run: Path, games_run: Path) -> None:
    args = ("--what=nil", "--by=rules", "--format=csv")
    code, out, _ = invoke("analyze", hands_run, games_run, *args)
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    expected = nil_success([hands_run, games_run], by="rules")
    assert sorted(set(table.rules)) == ["mercy target=300", "standard"]
    assert table.n.tolist() == expected.n.tolist()
    seats = table[table.measure == "nil_rate"].set_index("rules").n
    assert seats["standard"] == 4 * HANDS


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--by", "trumps"], 2, "Invalid value for '--by': 'trumps' is not a key"),
        (["--what", "bags", "--by", "spades"], 2, "'spades' is not a key of bag_accumulation"),
        (["--by", "hand_no"], 2, "'hand_no' is not a column"),
        (["--what", "cards"], 2, "Invalid value for '--what'"),
        (["--format", "xml"], 2, "Invalid value for '--format'"),
    ],
)
def test_analyze_errors_are_one_line(
    hands_run: Path, args: list[str], code: int, needle: str
) -> None:
    exit_code, out, err = invoke("analyze", hands_run, *args)
    assert exit_code == code and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err


def test_analyze_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    for target, needle in (
        (tmp_path / "nope", "no such run directory"),
        (tmp_path, "is not a spades_sim run"),
    ):
        exit_code, out, err = invoke("analyze", target)
        lines = err.strip().splitlines()
        assert exit_code == 1 and out == "" and len(lines) == 1, err
        assert lines[0].startswith("error: ") and needle in lines[0]


# --------------------------------------------------------------------------------------
# Bigger checks
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_estimates_agree_across_independent_seeds_and_chunkings(tmp_path: Path) -> None:
    """Two independent seeds: the intervals of every ungrouped measure overlap; and a run
    cut into parts at the default size equals its frame."""
    spec = RunSpec.build(seed=21, bidding="count", play="heuristic")
    run_dataset(spec, 1_000_000, tmp_path / "a")  # four parts of the default size
    other = simulate_hands(1_000_000, seed=22, bidding="count", play="heuristic")
    for analysis in (nil_success, bag_accumulation, bid_accuracy):
        a, b = analysis(tmp_path / "a"), analysis(other)
        assert (a.measure == b.measure).all()
        assert ((a.ci_low <= b.ci_high) & (b.ci_low <= a.ci_high)).all(), (a, b)
    frame = simulate_hands(1_000_000, seed=21, bidding="count", play="heuristic")
    pd.testing.assert_frame_equal(
        nil_success(frame, by=["spades", "voids"]),
        nil_success(tmp_path / "a", by=["spades", "voids"]),
        check_exact=True,
    )


def test_realism_equals_plain_pandas():
    """Every realism figure against a direct pandas computation on a small games run."""
    from spades_sim.analysis import realism
    from spades_sim.analysis.realism import HIGH_SPADES

    hands, games = simulate_games(30, seed=5)
    t = realism((hands, games)).set_index("measure")
    nil, blind = hands[hands.nil], hands[hands.blind_nil]
    high = (hands.hand.astype("uint64") & np.uint64(HIGH_SPADES)) != 0
    sides = hands.groupby(["game", "hand_no", "side"]).nil.any()
    expect = {
        "nil_per_seat": (len(hands), hands.nil.mean()),
        "nil_per_side": (len(sides), sides.mean()),
        "blind_nil_per_seat": (len(hands), hands.blind_nil.mean()),
        "nil_made": (len(nil), nil.nil_made.astype(float).mean()),
        "nil_made_clean": (
            (hands.nil & ~high).sum(),
            nil[~high[hands.nil]].nil_made.astype(float).mean(),
        ),
        "bags_per_hand": (len(sides), hands[hands.seat < 2].bags_change.mean()),
        "hands_per_game": (len(games), games.hands.mean()),
    }
    if len(blind):
        expect["blind_nil_made"] = (len(blind), blind.nil_made.astype(float).mean())
    for measure, (n, value) in expect.items():
        assert t.n[measure] == n, measure
        assert t.estimate[measure] == pytest.approx(value), measure
        assert t.ci_low[measure] <= t.estimate[measure] <= t.ci_high[measure]
    assert "hands_per_game" not in realism(hands).measure.tolist()  # rows alone: no games
    with pytest.raises(ValueError, match="rules"):
        realism(hands, by="side")


def test_realism_by_highest_spade_and_against_double_dummy_equals_plain_python():
    """The nils made by the highest spade held, and the leak and loss against a
    double-dummy verdict (made up here: the analysis is arithmetic on the column), each
    against a plain loop over the nil seats."""
    from spades_sim.analysis import realism

    hands = simulate_hands(3000, seed=5)
    rng = np.random.default_rng(1)
    hands = hands.assign(dd_nil_safe=rng.random(len(hands)) < 0.5)
    t = realism(hands).set_index("measure")
    groups: dict[str, list[bool]] = {}
    for hand, nil, made, safe in zip(
        hands.hand, hands.nil, hands.nil_made, hands.dd_nil_safe, strict=True
    ):
        if not nil:
            continue
        spades = [card - 39 for card in range(39, 56) if int(hand) >> card & 1]
        top = max(spades, default=-1)  # 8 is the ten, 9 the jack, above: queen and up
        step = "low" if top < 8 else "ten" if top == 8 else "jack" if top == 9 else "queen_up"
        groups.setdefault(f"nil_made_top_{step}", []).append(bool(made))
        groups.setdefault("nil_safe_lost" if safe else "nil_unsafe_made", []).append(
            not made if safe else bool(made)
        )
    assert set(groups) <= set(t.index)
    for measure, outcomes in groups.items():
        assert t.n[measure] == len(outcomes), measure
        assert t.estimate[measure] == pytest.approx(np.mean(outcomes)), measure
    assert "nil_unsafe_made" not in realism(hands.drop(columns="dd_nil_safe")).measure.tolist()


# --------------------------------------------------------------------------------------
# The strength ladder
# --------------------------------------------------------------------------------------


def test_the_ladder_is_every_pair_in_duplicate_and_keeps_its_file(tmp_path: Path) -> None:
    from spades_sim.analysis import duplicate, ladder, read_ladder, write_ladder
    from spades_sim.analysis.ladder import NotALadder, estimate, ranking

    rungs = ["random", "heuristic", "lookahead"]
    table = ladder(rungs, 60, seed=9, threads=1)
    assert list(zip(table.a, table.b, strict=True))[::3] == [
        ("heuristic", "random"), ("lookahead", "random"), ("lookahead", "heuristic"),
    ]  # fmt: skip
    # each pair's rows are the duplicate match of the two, on the same seed
    for a, b in (("heuristic", "random"), ("lookahead", "heuristic")):
        direct = duplicate(a, b, 60, seed=9, threads=1)
        for measure in ("margin", "nils_made", "nils_set"):
            got, want = estimate(table, a, b, measure), getattr(direct, measure)
            assert got is not None and want is not None
            assert (got.value, got.low, got.high, got.n) == pytest.approx(
                (want.value, want.low, want.high, want.n)
            )
        # asked the other way round: the margin negated, nils made and set swapped
        back = estimate(table, b, a)
        assert back is not None and back.value == pytest.approx(-direct.margin.value)
        assert back.low == pytest.approx(-direct.margin.high)
        made_back = estimate(table, b, a, "nils_made")
        assert direct.nils_set is not None and made_back is not None
        assert made_back.value == pytest.approx(1 - direct.nils_set.value)
        assert made_back.n == direct.nils_set.n
    order, ties = ranking(table)
    assert order[-1] == "random" and sorted(order) == sorted(rungs)
    assert all(frozenset(t) <= set(rungs) for t in ties)
    assert table.attrs["rungs"] == rungs and table.attrs["deals"] == 60

    path = write_ladder(table, tmp_path / "ladder.parquet")
    again = read_ladder(path)
    pd.testing.assert_frame_equal(again, table)
    assert again.attrs == table.attrs
    write_ladder(table, path)  # a ladder is replaced by a ladder
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    with pytest.raises(FileExistsError, match="is not a spades_sim ladder"):
        write_ladder(table, other)
    assert other.read_text() == "mine"
    with pytest.raises(NotALadder, match="is not a ladder"):
        read_ladder(other)
    with pytest.raises(ValueError, match="two play policies or more"):
        ladder(["random"], 10, seed=1)
    with pytest.raises(ValueError, match="given twice"):
        ladder(["random", "random"], 10, seed=1)
    with pytest.raises(ValueError, match="unknown play policy"):
        ladder(["random", "nonesuch"], 10, seed=1)


def test_the_ladder_command_prints_the_ranking_and_refuses_mistakes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "ladder.parquet"
    result = runner.invoke(
        cli, ["ladder", "random", "heuristic", "--deals", "30", "--seed", "2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "Ranking: heuristic" in result.output and f"wrote {out}" in result.output
    keep = tmp_path / "keep.parquet"
    keep.write_text("not a ladder")
    cases = [
        (["random"], "give two play policies or more"),
        (["random", "nonesuch"], "unknown play policy 'nonesuch'"),
        (["random", "heuristic", "--out", str(keep)], "is not a spades_sim ladder"),
        (["random", "heuristic", "--rules", "cutthroat"], "two partnerships"),
        (["random", "heuristic", "--bidding", "nope"], "unknown bid policy 'nope'"),
    ]
    for args, message in cases:
        if "--out" not in args:
            args = [*args, "--out", str(tmp_path / "x.parquet")]
        got = runner.invoke(cli, ["ladder", *args, "--deals", "5"])
        assert got.exit_code != 0 and message in got.output, (args, got.output)
        assert got.output.count("error: ") == 1 and "Traceback" not in got.output
    assert keep.read_text() == "not a ladder"
    assert not (tmp_path / "x.parquet").exists()
