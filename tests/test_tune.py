"""``spades-sim tune`` and ``spades_sim.tune``: the search finds a planted best parameter,
a study resumes where it stopped, the best is re-measured on fresh deals, and every
mistake is one line with exit status 2 that leaves every file as it was.

The planted best: ``count``'s ``bias`` shifts every bid by whole tricks, so against plain
``count`` (bias 0) the paired margin is exactly 0 at bias 0 (the same bids on the same
deals) and clearly negative elsewhere (-3: about -25 points a hand, +2: about -100, on
2,000 deals). A search started at bias 2 must end at 0. Both sides play ``heuristic``
with ``count`` bids: the lock-step kernels, a fraction of a second a trial.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("optuna")

from spades_sim import tune
from spades_sim.analysis.tune import STUDY_NAME, TuneSpec, parse_range
from spades_sim.cli import cli


def test_the_search_finds_the_planted_best_bias_and_resumes(tmp_path: Path) -> None:
    study = tmp_path / "bias.db"
    seen: list[tuple[int, float]] = []
    first = tune(
        "count:bias=2",
        {"bias": (-3, 2)},
        against="count",
        deals=300,
        trials=8,
        study=study,
        plot=False,
        on_trial=lambda number, margin: seen.append((number, margin)),
    )
    assert first.best_params == {"bias": 0.0}
    assert first.best[0].params["bias"] == 0.0 and first.best[0].name == "count"
    # the same bids on the same deals: exactly level, on the search's deals and fresh ones
    assert (first.search.value, first.search.low, first.search.high) == (0.0, 0.0, 0.0)
    assert first.fresh.value == 0.0 and first.fresh.n == 300
    trials = first.trials
    assert first.ran == 8 and len(trials) == 8 and (trials.state == "COMPLETE").all()
    assert trials.loc[0, "bias"] == 2 and trials.loc[0, "margin"] < -50  # the start, first
    assert [n for n, _ in seen] == list(range(8))
    assert "the policy as given (count:bias=2) there: -" in str(first)
    # every bias other than 0 loses on these deals, and one value one margin
    by_bias = trials.groupby("bias")["margin"].agg(["min", "max"])
    assert (by_bias["min"] == by_bias["max"]).all()
    assert (by_bias.drop(index=0.0)["max"] < 0).all()
    # the same call with more trials goes on from the study: only the new ones run
    again = tune(
        "count:bias=2", {"bias": (-3, 2)}, against="count", deals=300, trials=10,
        study=study, plot=False,
    )  # fmt: skip
    assert again.ran == 2 and len(again.trials) == 10
    assert again.trials.iloc[:8].equals(trials)
    assert again.best_params == {"bias": 0.0}
    # Optuna's own tools read the study
    import optuna

    loaded = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{study}")
    assert len(loaded.trials) == 10 and loaded.best_params == {"bias": 0}


def test_the_fresh_deals_are_other_deals(tmp_path: Path) -> None:
    # a real difference (bias -1 against 0): its margin on the search's deals and on the
    # fresh ones differ, because the deals do; with fresh_seed the re-measure is that seed's
    kwargs = {"against": "count", "deals": 200, "trials": 1, "plot": False}
    r = tune("count:bias=-1", {"bias": (-1, 0)}, study=tmp_path / "a.db", **kwargs)
    assert r.best_params == {"bias": -1.0}
    assert r.search.value != r.fresh.value and r.fresh.high < 0
    s = tune(
        "count:bias=-1", {"bias": (-1, 0)}, study=tmp_path / "b.db", seed=1, fresh_seed=0,
        **kwargs,
    )  # fmt: skip
    assert s.fresh.value == r.search.value  # seed 0: the first search's own deals
    assert s.search.value == r.fresh.value  # and the other way round
    with pytest.raises(ValueError, match="fresh_seed: 1 is the search's own seed"):
        tune("count", {"bias": (-1, 0)}, study=tmp_path / "c.db", seed=1, fresh_seed=1, **kwargs)
    assert not (tmp_path / "c.db").exists()


def test_a_side_is_tuned_as_a_bidding_and_play_pair() -> None:
    spec = TuneSpec.build(
        "count/heuristic",
        ["bias=-1..1", "round_up=0.0..1.0", "play.set_push=2.0..6.0", "bag_avoid=0.0..1.0"],
        deals=10,
        trials=2,
    )
    assert spec.tuned == "side"
    assert [r.name for r in spec.space] == [
        "bid.bias", "bid.round_up", "play.set_push", "play.bag_avoid"
    ]  # fmt: skip
    # whole-number bounds try whole numbers; a count (set_push) and a switch (bag_avoid)
    # are whole however their bounds are written, a switch tried as categories
    assert [(r.integer, r.categorical) for r in spec.space] == [
        (True, False), (False, False), (True, False), (True, True)
    ]  # fmt: skip
    assert [r.text() for r in spec.space] == [
        "bid.bias=-1..1", "bid.round_up=0.0..1.0", "play.set_push=2..6", "play.bag_avoid=0|1"
    ]  # fmt: skip
    bid, play = spec.policies({"bid.bias": 1.0, "play.set_push": 3.0})
    assert bid.params["bias"] == 1.0 and play.params["set_push"] == 3.0
    assert spec.baseline[0].params["bias"] == 0.0  # the baseline: the side as given
    # a play policy tuned alone: every seat bids with `bidding`
    single = TuneSpec.build(
        "heuristic", {"set_push": (2, 6)}, bidding="pagat", deals=10, trials=2, against="random"
    )
    assert single.tuned == "play" and single.start[0].name == "pagat"
    assert single.baseline == (single.start[0], single.baseline[1])
    assert single.baseline[1].name == "random"
    assert parse_range("x=.5..1e1") == ("x", 0.5, 10.0, False)


def test_games_are_tuned_too(tmp_path: Path) -> None:
    r = tune(
        "heuristic", {"bag_avoid": (0, 1)}, deals=4, trials=2, mode="games",
        study=tmp_path / "g.db", plot=tmp_path / "g.png",
    )  # fmt: skip
    assert r.fresh_wins is not None and r.fresh_wins.n == 8
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    assert "win rate on the fresh games" in str(r)


def test_the_command_prints_the_best_and_draws_the_trials(tmp_path: Path) -> None:
    study = tmp_path / "bias.db"
    args = ["tune", "count:bias=2", "--param", "bias=-3..2", "--against", "count"]
    args += ["--deals", "200", "--trials", "6", "--study", str(study)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "best of 6 trials (6 run now): bias=0"
    assert "re-measured on 200 fresh deals (seed 1): 0.000 [0.000, 0.000] (n=200)" in lines[4]
    assert study.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    result = CliRunner().invoke(cli, [*args[:-4], "--trials", "7", "--study", str(study)])
    assert result.exit_code == 0 and "(1 run now)" in result.output, result.output


def _mistakes(tmp_path: Path) -> dict[tuple[str, ...], str]:
    study = ["--deals", "10", "--study", str(tmp_path / "new.db")]
    return {
        ("count", "--param", "foo=1..2", *study): "--param foo: count has no parameter 'foo'",
        ("count", "--param", "bias=3..1", *study): "the range is empty",
        ("count", "--param", "bias=-9..3", *study): "outside -5..5, the range of bias in",
        ("count", "--param", "bias=abc", *study): "expected NAME=LO..HI",
        ("count", "--param", "bias=0..1", "--param", "bias=0..2", *study): "given twice",
        (
            "nosuch",
            "--param",
            "bias=0..1",
            *study,
        ): "unknown policy 'nosuch' (bidding: advise, count",
        ("random", "--param", "nil_rate=0.0..1.0", *study): "say which",
        ("count/heuristc", "--param", "bias=0..1", *study): (
            "neither one policy nor a side BID/PLAY: unknown play policy 'heuristc'"
        ),
        ("count", "--param", "bias=0..1", "--against", "heuristic", *study): "--against",
        ("count/heuristic", "--param", "bias=0..1", "--against", "count", *study): "BID/PLAY",
        ("count", "--param", "bias=0..1", "--study", "x.db"): "give --deals N",
        ("count", "--param", "bias=0..1", "--deals", "5", "--games", "5", "--study", "x.db"): (
            "not both"
        ),
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", str(tmp_path / "notes.txt")): (
            "not a study file (not SQLite)"
        ),
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", str(tmp_path / "other.db")): (
            "an SQLite file but not an Optuna study file"
        ),
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", str(tmp_path)): (
            "is a directory"
        ),
        ("pagat", "--param", "bias=-3..2", "--deals", "200", "--study", str(tmp_path / "b.db")): (
            'a study of count (bias=-3..2), not of this tuning (policy.bid.name: "count" there, '
            '"pagat" now)'
        ),
        ("count", "--param", "bias=-3..2", "--deals", "100", "--study", str(tmp_path / "b.db")): (
            "(--deals 200 there, --deals 100 now)"
        ),
        # a resume names the difference the user made, in the command's words
        ("count", "--param", "bias=-3..2", "--games", "50", "--study", str(tmp_path / "b.db")): (
            "(--deals 200 there, --games 50 now)"
        ),
        (
            *("count", "--param", "bias=-3..2", "--param", "round_up=0.0..1.0"),
            *("--deals", "200", "--study", str(tmp_path / "b.db")),
        ): "(--param: bias=-3..2 there, bias=-3..2 round_up=0.0..1.0 now)",
        # ranges compared exactly: a decimal range is another distribution than whole
        # numbers, and a malformed range is not guessed at
        (
            "count",
            "--param",
            "bias=-3.0..2.0",
            "--deals",
            "200",
            "--study",
            str(tmp_path / "b.db"),
        ): ("(--param: bias=-3..2 there, bias=-3.0..2.0 now)"),
        ("count", "--param", "bias=-3...3", *study): "expected NAME=LO..HI",
        ("count", "--param", "bias=-3.0...3", *study): "expected NAME=LO..HI",
        ("count", "--param", "bias=0..1", *study, "--plot", str(tmp_path / "notes.txt")): (
            "--plot " + str(tmp_path / "notes.txt") + ": the plot is a PNG image; give a name "
            "ending in .png"
        ),
        ("count", "--param", "bias=0..1", *study, "--plot", str(tmp_path / "notes.png")): (
            "exists and is not a PNG image; not replaced"
        ),
        ("count", "--param", "bias=0..1", *study, "--plot", str(tmp_path / "out.jpg")): (
            "give a name ending in .png"
        ),
        # the plot never replaces the study: by default (the study's name with .png) or
        # given the same path
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", str(tmp_path / "s.png")): (
            "is the study file"
        ),
        ("count", "--param", "bias=0..1", *study, "--plot", str(tmp_path / "new.db")): (
            "is the study file"
        ),
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", ""): (
            "--study: the file name is empty"
        ),
        ("count", "--param", "bias=0..1", *study, "--plot", ""): "--plot: the file name is empty",
        ("count", "--param", "bias=0..1", "--deals", "5", "--study", str(tmp_path / "optuna.db")): (
            "an Optuna storage holding another tool's studies ('theirs'), not tune's"
        ),
        # more deals than memory holds: refused before the study file is made
        ("count", "--param", "bias=0..1", "--deals", "99999999999999", *study[2:]): (
            "--deals 99999999999999: more than this machine can hold"
        ),
        ("count", "--param", "bias=0..1", "--games", "99999999999999", *study[2:]): (
            "--games 99999999999999: more than this machine can hold"
        ),
        ("count", "--param", "bias=0..1", *study, "--fresh", "99999999999999"): (
            "--fresh 99999999999999: more than this machine can hold"
        ),
        # the first trial is the policy as given: it must be one the search can try
        ("count:bias=4", "--param", "bias=-3..3", *study): (
            "--param bias: the policy as given has bias=4, outside the range searched, -3..3"
        ),
        ("count:bias=0.5", "--param", "bias=-3..3", *study): (
            "has bias=0.5, not a whole number, and -3..3 tries whole numbers"
        ),
        # a switch takes 0 or 1: a decimal range over it is refused, never searched
        ("heuristic", "--param", "bag_avoid=0.5..1.0", *study): (
            "bag_avoid is a switch: 0 or 1; give whole bounds (bag_avoid=0..1)"
        ),
        ("heuristic:nil_read=0.0001", "--param", "bag_avoid=0..1", *study): (
            "nil_read=0.0001 is a switch: 0 or 1"
        ),
    }


def test_mistakes_are_one_line_exit_2_and_touch_no_file(tmp_path: Path) -> None:
    runner = CliRunner()
    made = runner.invoke(
        cli,
        [
            *("tune", "count", "--param", "bias=-3..2", "--deals", "200", "--trials", "2"),
            *("--study", str(tmp_path / "b.db"), "--no-plot"),
        ],
    )
    assert made.exit_code == 0, made.output
    (tmp_path / "notes.txt").write_text("not a study\n")
    (tmp_path / "notes.png").write_text("not a plot\n")
    with sqlite3.connect(tmp_path / "other.db") as db:
        db.execute("CREATE TABLE mine (x)")
    import optuna

    optuna.create_study(study_name="theirs", storage=f"sqlite:///{tmp_path / 'optuna.db'}")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for args, message in _mistakes(tmp_path).items():
        result = runner.invoke(cli, ["tune", *args])
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and result.output.count("\n") == 1, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_without_optuna_one_line_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna -> ImportError
    result = CliRunner().invoke(
        cli, ["tune", "count", "--param", "bias=0..1", "--deals", "5", "--study", "x.db"]
    )
    assert result.exit_code == 2
    assert result.output == (
        "error: tune needs optuna, which is not installed: pip install 'spades_sim[tune]'\n"
    )
    with pytest.raises(ValueError, match=r"spades_sim\[tune\]"):
        tune("count", {"bias": (0, 1)}, deals=5, trials=1, study=tmp_path / "y.db")
    assert not list(tmp_path.iterdir())


PLAYER = """
from spades_sim import nb


@nb.player(params={"skill": 0.0})
def skilful(ctx):
    # skill 1: the heuristic's card; skill 0: a random legal card
    if ctx.params.skill >= 0.5:
        return nb.heuristic_play_nb(ctx)
    return nb.random_play_nb(ctx)
"""


@pytest.mark.slow
def test_a_user_written_players_planted_skill_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A play parameter with a known best: 1 plays the heuristic, 0 at random (compiles
    a user-written policy's kernels: about a minute cold)."""
    (tmp_path / "skilful.py").write_text(PLAYER)
    monkeypatch.chdir(tmp_path)
    r = tune(
        "skilful.py:skilful", {"skill": (0, 1)}, against="random", deals=200, trials=3,
        study=tmp_path / "skill.db", plot=False,
    )  # fmt: skip
    assert r.spec.tuned == "play" and r.best_params == {"skill": 1.0}
    assert r.fresh.low > 0


def test_an_interrupted_tuning_keeps_its_trials_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[int] = []
    measure = TuneSpec.measure

    def stop_at_third(self: TuneSpec, *args: object, **kwargs: object) -> object:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(1)
        return measure(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(TuneSpec, "measure", stop_at_third)
    args = ["tune", "count:bias=2", "--param", "bias=-3.0..2.0", "--against", "count"]
    args += ["--deals", "100", "--trials", "4", "--study", str(tmp_path / "s.db"), "--no-plot"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 130, result.output
    assert result.output.strip() == (
        f"interrupted: the finished trials are kept in {tmp_path / 's.db'}; run the same "
        "command to go on"
    )
    monkeypatch.setattr(TuneSpec, "measure", measure)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("best of 4 trials (2 run now)")


def test_a_plot_path_linked_to_the_study_is_refused(tmp_path: Path) -> None:
    # the paths compared resolved, symlinks included: a plot through a link is the study
    (tmp_path / "link.png").symlink_to(tmp_path / "s.db")
    args = ["tune", "count", "--param", "bias=0..1", "--deals", "5", "--study"]
    result = CliRunner().invoke(
        cli, [*args, str(tmp_path / "s.db"), "--plot", str(tmp_path / "link.png")]
    )
    assert result.exit_code == 2 and "is the study file" in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png"]
    assert not (tmp_path / "s.db").exists()


def test_every_trial_plays_the_first_trials_deals(tmp_path: Path) -> None:
    """The trials are paired: each one's margin is the duplicate of its values on the
    study's own deals (seed ``seed``), measured here independently of the search."""
    from spades_sim.analysis import duplicate

    r = tune(
        "count:bias=2", {"bias": (-3, 2)}, against="count", deals=60, trials=5, seed=7,
        study=tmp_path / "s.db", plot=False,
    )  # fmt: skip
    done = r.trials[r.trials.state == "COMPLETE"]
    assert len(done) == 5 and done["bias"].nunique() >= 3
    for _, trial in done.iterrows():
        alone = duplicate(f"count:bias={trial.bias:g}", "count", 60, seed=7, kind="bid")
        assert (trial.margin, trial.ci_low, trial.ci_high) == (
            alone.margin.value, alone.margin.low, alone.margin.high
        ), trial  # fmt: skip


def test_switches_are_searched_as_their_values(tmp_path: Path) -> None:
    # a switch over a decimal range: 0.549 is "on" like 1, so "off" was never tried
    r = tune(
        "heuristic", ["bag_avoid=0.0..1.0"], deals=30, trials=4, study=tmp_path / "s.db",
        plot=False,
    )  # fmt: skip
    assert set(r.trials["bag_avoid"]) <= {0.0, 1.0}
    assert r.trials.loc[0, "bag_avoid"] == 1.0  # the policy as given first


def test_ranges_are_compared_exactly_on_resume(tmp_path: Path) -> None:
    kwargs = {"deals": 20, "trials": 1, "plot": False}
    cases = [
        (
            "count:blind_nil_deficit=200000",
            "blind_nil_deficit",
            (100000.4, 1000000.4),
            (100000.0, 1000000.0),
        ),
        ("count", "nil_threshold", (2.0000001, 3), (2.0000004, 3.0)),
    ]
    for k, (policy, name, made, again) in enumerate(cases):
        study = tmp_path / f"{k}.db"
        tune(policy, {name: made}, study=study, **kwargs)
        before = study.read_bytes()
        with pytest.raises(ValueError, match=r"not of this tuning \(--param: "):
            tune(policy, {name: again}, study=study, **kwargs)
        assert study.read_bytes() == before


def test_seeds_are_the_ones_simulate_takes(tmp_path: Path) -> None:
    args = ["tune", "count", "--param", "bias=-1..1", "--deals", "20", "--trials", "2"]
    for seed, fresh in ((2**32, 2**32 + 1), (2**63 - 1, 0)):
        study = str(tmp_path / f"{seed}.db")
        result = CliRunner().invoke(
            cli, [*args, "--study", study, "--no-plot", "--seed", str(seed)]
        )
        assert result.exit_code == 0, result.output
        assert f"fresh deals (seed {fresh})" in result.output


def test_a_signal_inside_the_studys_commit_stops_the_search_between_trials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM arriving while Optuna writes a finished trial to the study: the write
    completes, the search stops after that trial (exit 143), no trial is left RUNNING,
    and the same command goes on."""
    import optuna
    from optuna.storages import RDBStorage
    from optuna.trial import TrialState

    write = RDBStorage.set_trial_state_values
    told: list[int] = []

    def signalled_write(
        self: RDBStorage, trial_id: int, state: TrialState, values: object = None
    ) -> bool:
        if state == TrialState.COMPLETE:
            told.append(trial_id)
            if len(told) == 2:
                os.kill(os.getpid(), signal.SIGTERM)  # handled here, inside the write
        return write(self, trial_id, state, values)  # type: ignore[arg-type]

    monkeypatch.setattr(RDBStorage, "set_trial_state_values", signalled_write)
    study = tmp_path / "s.db"
    args = ["tune", "count:bias=2", "--param", "bias=-3..2", "--against", "count"]
    args += ["--deals", "50", "--trials", "5", "--study", str(study), "--no-plot"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 143, result.output
    assert result.output.startswith("interrupted: the finished trials are kept in"), result.output
    states = [
        t.state
        for t in optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{study}").trials
    ]
    assert states == [TrialState.COMPLETE, TrialState.COMPLETE]
    monkeypatch.setattr(RDBStorage, "set_trial_state_values", write)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0 and result.output.startswith("best of 5 trials (3 run now)"), (
        result.output
    )


def test_a_trial_left_running_by_a_kill_is_failed_on_resume(tmp_path: Path) -> None:
    import optuna

    study = tmp_path / "s.db"
    kwargs = {"against": "count", "deals": 30, "study": study, "plot": False}
    tune("count:bias=1", {"bias": (-2, 2)}, trials=2, **kwargs)
    killed = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{study}")
    killed.ask()  # a trial begun and never told: what a kill mid-trial leaves
    assert [t.state.name for t in killed.trials] == ["COMPLETE", "COMPLETE", "RUNNING"]
    r = tune("count:bias=1", {"bias": (-2, 2)}, trials=3, **kwargs)
    assert list(r.trials.state) == ["COMPLETE", "COMPLETE", "FAIL", "COMPLETE"]
    assert r.ran == 1


def test_ctrl_c_during_a_measurement_stops_it_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial's measurement (minutes for a sampling player) is not waited for: Ctrl-C
    there stops it, the trial is recorded failed, and the finished ones are kept."""
    import optuna

    measure = TuneSpec.measure
    calls: list[int] = []

    def interrupted_third(self: TuneSpec, *args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # handled here, inside the measurement
        return measure(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(TuneSpec, "measure", interrupted_third)
    study = tmp_path / "s.db"
    args = ["tune", "count:bias=2", "--param", "bias=-3..2", "--against", "count"]
    args += ["--deals", "50", "--trials", "5", "--study", str(study), "--no-plot"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 130, result.output
    trials = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{study}").trials
    states = [t.state.name for t in trials]
    assert states[-1] == "FAIL" and set(states[:-1]) == {"COMPLETE"}, states
