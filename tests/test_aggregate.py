"""Aggregate mode: counts instead of rows, and the same analyses from them.

The contract under test: every analysis of ``analyze`` gives exactly (``assert_frame_equal``,
no tolerance) the table from an aggregate that it gives from the rows of the same run,
for every subset of the keys the aggregate was counted by (plus ``side``, ``bid``,
``nil``, ``blind_nil``, ``blind``, ``policy``, ``rules``), in hands mode (lock-step and
scalar kernels, four and two players) and games mode; the counts do not depend on the
threads or the chunk size; a run directory in aggregate mode resumes to the counts of
an uninterrupted run; a bad ``by`` is one clear error.
"""

from __future__ import annotations

import itertools
import signal
import tracemalloc
from pathlib import Path

import numba
import pandas as pd
import pytest
from click.testing import CliRunner

from spades_sim import Rules, simulate_games, simulate_hands
from spades_sim.analysis import analyze, bag_accumulation, bid_accuracy, nil_success
from spades_sim.analysis.source import UnknownKey
from spades_sim.cli import cli
from spades_sim.dataset import read_manifest
from spades_sim.run import Progress, RunInterrupted, run_dataset
from spades_sim.run.aggregate_frames import Aggregate, load_aggregate
from spades_sim.run.counting import MAX_CELLS, AggregateKeyError, layout
from spades_sim.run.dataset import run_aggregate
from spades_sim.simulate import RunSpec, simulate_aggregate

EXTRA = (["side"], ["bid"], ["nil", "blind_nil"], ["blind"], ["policy"], ["rules"], ["side", "bid"])


def subsets(by: tuple[str, ...]) -> list[list[str]]:
    """Every subset of ``by`` (in order), then the keys every aggregate has."""
    out = [list(c) for r in range(len(by) + 1) for c in itertools.combinations(by, r)]
    return out + [list(e) for e in EXTRA] + [[by[0], "policy", "blind"]]


def assert_same_analyses(rows: object, agg: object, by: list[str]) -> None:
    """``analyze`` of the rows and of the aggregate: the same tables and the same skips."""
    try:
        expected = analyze(rows, "all", by)  # type: ignore[arg-type]
    except UnknownKey as exc:
        with pytest.raises(UnknownKey) as info:
            analyze(agg, "all", by)  # type: ignore[arg-type]
        assert str(info.value) == str(exc)
        return
    got = analyze(agg, "all", by)  # type: ignore[arg-type]
    assert list(got.tables) == list(expected.tables), by
    assert got.skipped == expected.skipped, by
    for name, table in expected.tables.items():
        pd.testing.assert_frame_equal(got.tables[name], table, check_exact=True, obj=f"{name} {by}")


@pytest.mark.parametrize(
    ("play", "by"),
    [
        ("random", ("spades", "dealer", "side_contract")),  # lock-step random
        ("heuristic", ("high_spades", "seat", "boston")),  # lock-step heuristic
        # the scalar kernel: a kernel set of its own to compile, so in the slow tier
        pytest.param(("random", "heuristic"), ("points", "bags_change"), marks=pytest.mark.slow),
    ],
)
def test_hands_analyses_equal_rows(play: object, by: tuple[str, ...]) -> None:
    kwargs = {"seed": 11, "play": play, "bidding": ("count", "pagat")}
    rows = simulate_hands(3000, **kwargs)  # type: ignore[arg-type]
    agg = simulate_hands(3000, aggregate=by, **kwargs)  # type: ignore[arg-type]
    assert isinstance(agg, Aggregate) and agg.hands == 3000
    for keys in subsets(by):
        assert_same_analyses(rows, agg, keys)


def test_two_players_and_no_keys() -> None:
    rules = Rules.preset("two-player")
    rows = simulate_hands(2000, seed=5, rules=rules, play="random")
    agg = simulate_hands(2000, seed=5, rules=rules, play="random", aggregate=True)
    assert agg.by == () and int(agg.seats["count"].sum()) == len(rows)
    for keys in ([], ["side"], ["bid"], ["policy", "blind"]):
        assert_same_analyses(rows, agg, keys)


def test_games_analyses_equal_rows() -> None:
    rules = Rules(target=250, bag_limit=5, blind_nil_min_deficit=50)
    by = ("hand_no", "tricks", "boston")
    pair = simulate_games(150, seed=3, rules=rules)
    agg = simulate_games(150, seed=3, rules=rules, aggregate=by)
    assert agg.games is not None and agg.n_games == 150
    assert int(agg.seats["count"][agg.seats["nil_kind"] == 2].sum()) > 0  # blind nils counted
    for keys in [*subsets(by), ["outcome"], ["side", "outcome"]]:
        assert_same_analyses(pair, agg, keys)
    for keys in ([], ["side"], ["outcome", "policy"]):
        expected = bag_accumulation(pair, keys, per="game")
        pd.testing.assert_frame_equal(bag_accumulation(agg, keys, per="game"), expected)
    games = pair[1]
    won = agg.games[agg.games["outcome"] == "won"]
    assert int(won["count"].sum()) == int((games.winner >= 0).sum())
    assert int(agg.games["hands"].sum()) == 2 * int(games.hands.sum())


def test_counts_do_not_depend_on_threads_or_chunks() -> None:
    if numba.config.NUMBA_NUM_THREADS < 2:  # type: ignore[attr-defined]
        pytest.skip("needs two cores")
    for spec, n in (
        (RunSpec.build(seed=4, play="random"), 70_000),
        (RunSpec.build(seed=4, mode="games"), 700),
    ):
        one = simulate_aggregate(spec, n, "spades,seat", threads=1)
        assert simulate_aggregate(spec, n, "spades,seat", threads=2) == one
        assert simulate_aggregate(spec, n, "spades,seat", threads=2, chunk_size=9_999) == one
        assert simulate_aggregate(spec, n, "spades,seat", threads=1, chunk_size=n // 3) == one


def test_memory_stays_small() -> None:
    # Python-side allocations of a 200,000-hand aggregate: the tables only, no rows
    # (rows would be 200,000 x 4 x ~40 bytes = 32 MB).
    spec = RunSpec.build(seed=1, play="random")
    simulate_aggregate(spec, 1000, "spades")
    tracemalloc.start()
    simulate_aggregate(spec, 200_000, "spades", chunk_size=50_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 << 20


def test_bad_keys_are_clear() -> None:
    with pytest.raises(AggregateKeyError, match="'deal' is not a key aggregate mode counts by"):
        layout("deal", Rules())
    with pytest.raises(AggregateKeyError, match="'hand_no' is a key of games mode only"):
        layout("hand_no", Rules())
    with pytest.raises(AggregateKeyError, match=f"at most {MAX_CELLS:,}: count by fewer keys"):
        layout("points,spades,aces,kings,queens", Rules())
    agg = simulate_hands(200, seed=1, play="random", aggregate="spades")
    with pytest.raises(UnknownKey, match="'aces' is not a key of the data, an aggregate counted"):
        nil_success(agg, "aces")
    with pytest.raises(ValueError, match="needs a games run"):
        bag_accumulation(agg, per="game")


def test_run_directory_resume_and_analyses(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=8, play="random", bidding="pagat")
    calls = {"n": 0}

    def progress(p: Progress) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # after two parts are queued
            raise KeyboardInterrupt

    out = tmp_path / "agg"
    with pytest.raises(RunInterrupted) as info:
        run_aggregate(spec, 5000, out, by="spades", chunk_size=1000, progress=progress)
    assert info.value.summary.parts == 2 and info.value.signal_number == signal.SIGINT
    with pytest.raises(ValueError, match="cannot resume"):
        run_aggregate(spec, 5000, out, by="aces", resume=True)
    done = run_dataset(spec, 5000, out, aggregate=["spades"], resume=True)
    assert done.parts_skipped == 2 and done.hands == 5000 and done.complete
    whole = run_aggregate(spec, 5000, tmp_path / "whole", by="spades", chunk_size=2500)
    assert (
        load_aggregate(out)
        == load_aggregate(tmp_path / "whole")
        == simulate_aggregate(spec, 5000, "spades")
    )
    assert whole.nil_rate == done.nil_rate and whole.made_rate == done.made_rate
    rows = run_dataset(spec, 5000, tmp_path / "rows", chunk_size=2000)
    for name in ("nil_rate", "nil_success_rate", "made_rate", "bags_per_hand", "rows"):
        assert getattr(done, name) == getattr(rows, name), name
    for keys in ([], ["spades"], ["spades", "policy"], ["bid"], ["rules", "blind"]):
        assert_same_analyses(tmp_path / "rows", out, keys)
    table = pd.read_parquet(out)  # the long table, readable as it is
    assert set(table.unit.unique()) == {0, 1} and "count" in table.columns
    assert read_manifest(out)["meta"]["aggregate"] == {"by": ["spades"]}
    with pytest.raises(ValueError, match="counts, not rows"):
        from spades_sim.analysis.source import sources

        next(sources(out)[0].batches(["seat"]))


def test_games_run_directory(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=2, mode="games")
    summary = run_aggregate(spec, 60, tmp_path / "g", by="hand_no", chunk_size=25)
    rows = run_dataset(spec, 60, tmp_path / "r", chunk_size=25)
    assert (summary.wins_ns, summary.wins_ew, summary.unfinished) == (
        rows.wins_ns,
        rows.wins_ew,
        rows.unfinished,
    )
    for keys in ([], ["hand_no"], ["side", "outcome"]):
        assert_same_analyses(tmp_path / "r", tmp_path / "g", keys)
    expected = bid_accuracy(tmp_path / "r", "hand_no", view="distribution")
    pd.testing.assert_frame_equal(
        bid_accuracy(tmp_path / "g", "hand_no", view="distribution"), expected
    )


def test_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    common = ["--hands", "600", "--seed", "3", "--play", "random", "-q"]
    agg = runner.invoke(
        cli, ["simulate", *common, "--aggregate", "--by", "spades", "--out", str(tmp_path / "a")]
    )
    assert agg.exit_code == 0, agg.output
    rows = runner.invoke(cli, ["simulate", *common, "--out", str(tmp_path / "r")])
    assert rows.exit_code == 0, rows.output
    outputs = [
        runner.invoke(cli, ["analyze", str(tmp_path / d), "--by", "spades", "--format", "csv"])
        for d in ("a", "r")
    ]
    assert outputs[0].exit_code == 0 and outputs[0].output == outputs[1].output
    bad = runner.invoke(cli, ["simulate", *common, "--aggregate", "--by", "deal", "--out", "x"])
    assert bad.exit_code == 2
    assert bad.output.strip().splitlines() == [
        "error: Invalid value for '--by': 'deal' is not a key aggregate mode counts by; its "
        "keys: spades, high_spades, aces, kings, queens, shortest_suit, voids, points, seat, "
        "tricks, bid, nil, blind_nil, side, dealer, hand_no, side_contract, side_tricks, "
        "bags_change, boston"
    ]
    lonely = runner.invoke(cli, ["simulate", *common, "--by", "spades", "--out", "x"])
    assert lonely.exit_code == 2 and "add --aggregate" in lonely.output
    missing = runner.invoke(cli, ["analyze", str(tmp_path / "a"), "--by", "aces"])
    assert missing.exit_code == 2 and len(missing.output.strip().splitlines()) == 1
    pytest.importorskip("matplotlib")
    report = runner.invoke(cli, ["report", str(tmp_path / "a"), "--out", str(tmp_path / "r.html")])
    assert report.exit_code == 1
    assert report.output.strip().endswith(
        "an aggregate run has counts, not rows; the report needs rows"
    )


@pytest.mark.slow
# the always-3 bidder's generated module, which tests/test_user_policies.py compiles too
@pytest.mark.xdist_group("user_policies")
def test_user_written_policy() -> None:
    # imported here: a bidder of that file, so that one module serves both files' runs
    from test_user_policies import always_three

    rows = simulate_hands(400, seed=2, bidding=always_three, play="random")
    agg = simulate_hands(400, seed=2, bidding=always_three, play="random", aggregate="seat")
    for keys in ([], ["seat"], ["bid"]):
        assert_same_analyses(rows, agg, keys)
