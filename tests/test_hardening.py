"""What a new user runs into, each one clear ``error:`` line (or warning) and nothing lost.

A report never replaces a file that is not a report; a damaged part is named by every
reader and recomputed by ``--resume``; runs holding the same deals are not analysed
together; an unfinished run is analysed only on purpose; ``file://`` run directories
read everywhere; and the exit status follows the rule of :mod:`spades_sim.cli.failures`
(2: the command cannot be taken; 1: its files or the machine refuse it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from spades_sim.analysis import duplicate, nil_success
from spades_sim.analysis.source import Overlapping, Unfinished, sources
from spades_sim.cli import cli
from spades_sim.odds import nil_odds


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_error(result: Result, needle: str, status: int) -> str:
    """The single ``error:`` line of a failed command, holding ``needle``, exit ``status``."""
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and needle in lines[0], lines[0]
    assert result.exit_code == status, (result.exit_code, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Small runs: ``a`` (seed 1, three parts), ``b`` (a copy of ``a``: same seed and
    rules), ``c`` (seed 2), ``d`` (seed 1, random play), ``g`` (games)."""
    root = tmp_path_factory.mktemp("runs")
    for name, args in {
        "a": ["--hands", "600", "--seed", "1", "--chunk-size", "200"],
        "b": ["--hands", "600", "--seed", "1", "--chunk-size", "300"],
        "c": ["--hands", "400", "--seed", "2"],
        "d": ["--hands", "400", "--seed", "1", "--play", "random"],
    }.items():
        result = invoke("simulate", *args, "--out", root / name, "--quiet")
        assert result.exit_code == 0, result.output
    return root


# --- Reports never replace other files ------------------------------------------------


def test_report_refuses_to_replace_a_file_it_did_not_write(runs: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    readme = tmp_path / "README.md"
    readme.write_text("# my notes\n")
    line = one_error(invoke("report", runs / "a", "--out", readme), "not a spades_sim report", 1)
    assert "--force" in line
    assert readme.read_text() == "# my notes\n"  # untouched

    page = tmp_path / "a.html"
    assert invoke("report", runs / "a", "--out", page).exit_code == 0
    first = page.read_text()
    assert '<meta name="generator" content="spades_sim report">' in first
    assert invoke("report", runs / "c", "--out", page).exit_code == 0  # our own: replaced
    assert page.read_text() != first
    assert invoke("report", runs / "a", "--out", readme, "--force").exit_code == 0
    assert readme.read_text().startswith("<!DOCTYPE html>")


def test_compare_refuses_the_report_file_before_simulating(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    result = invoke(
        "compare", "count", "random", "--hands", "50", "--out", tmp_path / "cmp", "--report", notes
    )
    one_error(result, "not a spades_sim report", 1)
    assert notes.read_text() == "keep me"
    assert not (tmp_path / "cmp").exists()  # refused before either run was made


def test_compare_refuses_identical_policies_before_simulating(tmp_path: Path) -> None:
    result = invoke("compare", "count", "count:bias=0", "--hands", "50", "--out", tmp_path / "c")
    one_error(result, "same bidding policy as A", 2)
    assert not (tmp_path / "c").exists()


# --- Runs holding the same deals, unfinished runs ---------------------------------------


def test_analyze_refuses_runs_holding_the_same_deals(runs: Path) -> None:
    one_error(invoke("analyze", runs / "a", runs / "a"), "given twice", 1)
    one_error(invoke("analyze", runs / "a", runs / "b"), "same seed (1)", 1)
    assert invoke("analyze", runs / "a", runs / "c", "--what", "nil").exit_code == 0
    # the same deals under another play policy are other rows, told apart by policy
    table = nil_success([str(runs / "a"), str(runs / "d")], by="policy")
    assert set(table.policy) == {"count/heuristic", "count/random"}
    with pytest.raises(Overlapping, match="same seed"):
        nil_success([str(runs / "a"), str(runs / "b")])


def test_analyze_of_an_unfinished_run_needs_partial_and_says_how_much(
    runs: Path, tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "killed"
    shutil.copytree(runs / "a", run)
    manifest = json.loads((run / "_manifest.json").read_text())
    manifest["complete"] = False
    del manifest["parts"]["00002"]  # as a run killed after two of its three parts
    (run / "_manifest.json").write_text(json.dumps(manifest))
    (run / "part-00002.parquet").unlink()

    line = one_error(invoke("analyze", run), "is unfinished: 400 of 600 deals (66.7%)", 1)
    assert "--partial" in line
    with pytest.raises(Unfinished):
        nil_success(str(run))
    result = invoke("analyze", run, "--what", "nil", "--partial")
    assert result.exit_code == 0
    assert "warning: " in result.stderr and "400 of 600 deals" in result.stderr
    assert "1,600" in result.stdout  # the seats of the 400 deals there, not more
    partial = nil_success(sources(str(run), partial=True))
    assert int(partial.n.iloc[0]) == 1600


# --- file:// run directories ----------------------------------------------------------


def test_file_uris_read_everywhere(runs: Path, tmp_path: Path) -> None:
    uri = (runs / "a").as_uri()
    assert uri.startswith("file:///")
    by_path = invoke("analyze", runs / "a", "--what", "nil", "--format", "csv")
    by_uri = invoke("analyze", uri, "--what", "nil", "--format", "csv")
    assert by_uri.exit_code == 0, by_uri.output
    assert by_uri.stdout == by_path.stdout
    shown = invoke("show", "--run", uri, "--deal", "3")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == invoke("show", "--run", runs / "a", "--deal", "3").stdout
    assert nil_success(uri).equals(nil_success(str(runs / "a")))
    if pytest.importorskip("matplotlib"):
        result = invoke("report", uri, "--out", tmp_path / "r.html")
        assert result.exit_code == 0, result.output


# --- Messages and exit codes ----------------------------------------------------------


def test_an_invalid_manifest_is_said_once(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "_manifest.json").write_text("{")
    line = one_error(
        invoke("simulate", "--hands", "10", "--out", run, "--overwrite"), "_manifest.json", 1
    )
    assert "is not a spades_sim run manifest" in line
    assert "no _manifest.json" not in line  # not the contradiction it was
    assert (run / "_manifest.json").read_text() == "{"


@pytest.mark.parametrize("value", ["100.5", "1e6", "true"])
def test_config_numbers_must_be_whole_as_on_the_command_line(tmp_path: Path, value: str) -> None:
    config = tmp_path / "run.toml"
    config.write_text(f"hands = {value}\nout = '{tmp_path / 'out'}'\n")
    one_error(invoke("simulate", "--config", config), "'hands' in", 2)
    assert not (tmp_path / "out").exists()
    one_error(invoke("simulate", "--hands", "1e6", "--out", tmp_path / "o"), "'--hands'", 2)


def test_nil_odds_names_its_own_option() -> None:
    line = one_error(invoke("nil-odds", "Q73.J52.T84.9632", "-n", str(10**20)), "'-n'", 2)
    assert "max_tries" not in line
    with pytest.raises(ValueError, match=r"^n: .* more than max_tries"):
        nil_odds("Q73.J52.T84.9632", n=10**20)


def test_duplicate_of_no_deals_says_so() -> None:
    with pytest.raises(ValueError, match=r"^n: the number of deals must be a whole number >= 1"):
        duplicate("heuristic", "random", 0, seed=1)


@pytest.mark.parametrize(
    "args, status",
    [
        # the command cannot be taken: 2, in every command
        (["simulate", "--hands", "x", "--out", "o"], 2),
        (["simulate", "--hands", "5", "--bidding", "nope", "--out", "o"], 2),
        (["show", "--seed", "1", "--deal", "1", "--bidding", "nope"], 2),
        (["nil-odds", "Q73.J52.T84.9632", "--bidding", "nope"], 2),
        (["compare", "nope", "count", "--hands", "5", "--out", "o"], 2),
        (["nil-odds", "Q73.J52.T84"], 2),  # twelve cards: a bad argument
        (["nil-odds", "Q73.J52.T84.9632", "--given", "E=QS"], 2),  # a card held twice
        (["nil-odds", "Q73.J52.T84.9632", "--require", "N:spades=12.."], 2),
        (["analyze", "RUN", "--by", "colour"], 2),
        # the files refuse it: 1, in every command
        (["analyze", "nowhere"], 1),
        (["report", "nowhere", "--out", "r.html"], 1),
        (["show", "--run", "nowhere", "--deal", "1"], 1),
    ],
)
def test_the_same_kind_of_mistake_exits_the_same_everywhere(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], status: int
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [str(runs / "a") if a == "RUN" else a for a in args]
    result = invoke(*args)
    one_error(result, "", status)


# --- Progress bars on a terminal ------------------------------------------------------


def test_nil_odds_and_analyze_show_a_bar_on_a_terminal_only(
    runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    odds = nil_odds("Q73.J52.T84.9632", n=3000, seed=1, progress=True)
    assert "nil-odds" in capsys.readouterr().err  # tqdm's bar, on stderr
    assert nil_odds("Q73.J52.T84.9632", n=3000, seed=1) == odds  # the bar changes nothing
    assert capsys.readouterr().err == ""

    quiet = invoke("analyze", runs / "a", "--what", "nil")
    assert quiet.exit_code == 0 and quiet.stderr == ""  # not a terminal: no bar
    for module in ("spades_sim.cli.study", "spades_sim.cli.deals"):
        monkeypatch.setattr(f"{module}.stderr_is_terminal", lambda: True)
    shown = invoke("analyze", runs / "a", "--what", "nil")
    assert shown.exit_code == 0 and "analyze" in shown.stderr and "/3 [" in shown.stderr
    assert shown.stdout == quiet.stdout
    odds_run = invoke("nil-odds", "Q73.J52.T84.9632", "-n", "3000", "--seed", "1")
    assert odds_run.exit_code == 0 and "nil-odds" in odds_run.stderr
