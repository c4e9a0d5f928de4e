"""The command line on bad and edge input to ``solve``, ``show --dd``, ``nil-odds`` and
``ladder``: each case a new user tried, each with what the command must do instead of
ignoring an option, answering from the wrong table or naming the wrong problem.

Exit status, as :mod:`spades_sim.cli.failures` states it: 2 for a command line that cannot
be taken (an option that does not apply, a deal or seat that cannot be), 1 for files the
command refuses. Every error is one ``error:`` line and nothing is printed before it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from spades_sim.analysis.stats import Estimate
from spades_sim.cards import cards_of, deck_mask, format_hand, mask_of
from spades_sim.cli import cli
from spades_sim.run import RunSpec, run_dataset

EASY = ["AKQJ.T98.765.432", "T98.765.432.AKQJ", "765.432.AKQJ.T98", "432.AKQJ.T98.765"]


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def refused(result: Result, code: int, *words: str) -> None:
    """One ``error:`` line with exit ``code``, holding each of ``words``."""
    assert result.exit_code == code, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    for word in words:
        assert word in result.output, result.output


def deal_of(players: int, seed: int = 3) -> list[str]:
    """The hands of a random deal of ``players`` (51 cards with three) in PBN."""
    deck = cards_of(deck_mask(players=players))
    order = np.random.default_rng(seed).permutation(len(deck))
    size = len(deck) // players
    return [
        format_hand(mask_of(deck[int(i)] for i in order[s * size : (s + 1) * size]))
        for s in range(players)
    ]


@pytest.fixture(scope="module")
def hands_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runs") / "a"
    run_dataset(RunSpec.build(seed=1), 3, path)
    return path


def test_solve_lists_no_policy_options_and_refuses_deal_options_with_a_run(
    hands_run: Path,
) -> None:
    for option in ("--play", "--bidding", "--draw"):
        refused(run("solve", *EASY, option, "random"), 2, "No such option")
    for extra in (
        ["--cards"], ["--nil", "N"], ["--leader", "E"], ["--broken"],
        ["--rules", "jokers"], ["--set", "target=300"], ["--dealer", "N"],
    ):  # fmt: skip
        flag = extra[0]
        refused(run("solve", hands_run, *extra), 2, f"{flag} is for a deal given as hands")


def test_dd_completions_without_dd_defense_is_refused() -> None:
    refused(run("nil-odds", "Q73.J52.T84.9632", "--dd-completions", "5"), 2, "--defense dd")


@pytest.fixture
def no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's answers replaced by fixed ones: these tests are about what the command
    takes and prints, and the solver's own tests check its answers."""
    import spades_sim.solve as solve_package

    monkeypatch.setattr(solve_package, "dd_tricks", lambda pos: 7 if pos.tricks_left == 13 else 9)
    monkeypatch.setattr(solve_package, "nil_safe", lambda pos, seats: True)


def test_the_default_dealer_fits_three_and_two_player_tables(no_search: None) -> None:
    three = run("solve", *deal_of(3), "--rules", "cutthroat", "--nil", "P1")
    assert three.exit_code == 0, three.output
    assert three.output.splitlines()[0] == "P0 leads (spades unbroken)"  # P2 dealt
    assert three.output.splitlines()[1].startswith("nil P1: ")
    # two players: 13 cards each after the draw, P0 leading (P1 dealt)
    two = run("solve", *deal_of(4)[:2], "--rules", "two-player")
    assert two.exit_code == 0, two.output
    assert two.output.startswith("P0 leads (spades unbroken): P0 ")


def test_numeric_seats_are_taken_as_advertised(no_search: None) -> None:
    named = run("solve", *EASY, "--dealer", "W", "--leader", "S", "--nil", "E")
    numbered = run("solve", *EASY, "--dealer", "3", "--leader", "2", "--nil", "1")
    assert named.exit_code == 0, named.output
    assert numbered.output == named.output
    refused(run("solve", *EASY, "--leader", "4"), 2, "out of range 0..3")
    hand = "Q73.J52.T84.9632"
    by_number = run("nil-odds", hand, "--seat", "2", "-n", "20")
    assert by_number.exit_code == 0, by_number.output
    # stdout alone: a cold cache announces its compiles on stderr the first time
    assert by_number.stdout == run("nil-odds", hand, "--seat", "S", "-n", "20").stdout


def test_what_the_command_saw_is_named(hands_run: Path) -> None:
    refused(run("solve", EASY[0]), 2, "is one hand")
    refused(run("solve", " ".join(EASY)), 2, "a whole deal given as one argument")
    refused(run("solve", hands_run, hands_run), 2, "got 2 arguments, 2 of them directories")
    refused(run("solve", "runs/none"), 1, "runs/none is not a spades_sim run")


def test_two_nil_seats_at_a_table_without_partners(no_search: None) -> None:
    refused(
        run("solve", *deal_of(3), "--rules", "cutthroat", "--nil", "P0", "--nil", "P1"),
        2, "every player plays alone", "name one nil seat",
    )  # fmt: skip
    refused(
        run("solve", *EASY, "--rules", "cutthroat-4", "--nil", "N", "--nil", "S"),
        2, "every player plays alone",
    )  # fmt: skip


def test_show_dd_refuses_before_printing_the_hand(tmp_path: Path) -> None:
    refused(run("show", "--seed", "1", "--game", "0", "--hand", "0", "--dd"), 2, "--dd")
    refused(
        run("show", "--seed", "1", "--deal", "0", "--dd", "--rules", "cutthroat"),
        2, "cutthroat",
    )  # fmt: skip


def test_solve_out_must_name_an_empty_or_own_directory(hands_run: Path, tmp_path: Path) -> None:
    refused(run("solve", hands_run, "--out", ""), 2, "is empty")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    refused(run("solve", hands_run, "--out", mine), 1, "notes.txt", "new or empty directory")
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_number_bids_follow_the_tables_tricks() -> None:
    hand = "Q73.J5432.T8432.9643"
    three = run("nil-odds", hand, "--rules", "cutthroat", "--seat", "P0",
                "--number-bid", "15", "-n", "20")  # fmt: skip
    assert three.exit_code == 0, three.output
    assert "bidding 15" in three.output
    refused(
        run("nil-odds", hand, "--rules", "cutthroat", "--number-bid", "18", "-n", "20"),
        2, "1..17",
    )  # fmt: skip
    refused(run("nil-odds", "Q73.J52.T84.9632", "--number-bid", "14", "-n", "20"), 2, "1..13")


def test_nil_odds_without_partners_names_the_option_and_no_seat_opposite() -> None:
    """Three-player cutthroat has no seat opposite and four-player cutthroat no partner:
    ``--partner`` is refused naming ``--given`` (not the library's ``given=``), and the
    answer says the seat scores, not a side."""
    from spades_sim import Rules
    from spades_sim.odds import nil_odds

    hand = "Q73.J5432.T8432.9643"
    three = ["--rules", "cutthroat", "--seat", "P2", "--partner", "AKJ.AK.AKQ.AKQJT9"]
    four = ["--rules", "cutthroat-4", "--partner", "AKJ.AK.AK.AKQJT9"]
    for args, mine in ((three, hand), (four, "Q73.J52.T84.9632")):
        result = run("nil-odds", mine, *args)
        refused(result, 2, "--partner", "--given SEAT=CARDS", "no partner")
        assert "given=" not in result.output and "opposite" not in result.output
    with pytest.raises(ValueError, match="partner: ") as err:
        nil_odds(hand, seat="P2", rules=Rules.preset("cutthroat"), partner="AKJ.AK.AKQ.AKQJT9")
    assert "opposite" not in str(err.value) and "given=" in str(err.value)
    alone = run("nil-odds", hand, "--rules", "cutthroat", "--seat", "P2", "-n", "20")
    assert alone.exit_code == 0, alone.output
    assert "P2 scores" in alone.output and "side" not in alone.output, alone.output
    pairs = run("nil-odds", "Q73.J52.T84.9632", "-n", "20")
    assert pairs.exit_code == 0 and "The side scores" in pairs.output, pairs.output


def test_ladder_compares_policies_not_their_spelling_and_prints_no_minus_zero(
    tmp_path: Path,
) -> None:
    out = tmp_path / "l.parquet"
    refused(
        run("ladder", "heuristic", "heuristic:bag_avoid=1", "--deals", "4", "--out", out),
        2, "the same policy",
    )  # fmt: skip
    assert not out.exists()
    assert str(Estimate(-0.0, -0.0, -0.0, 4)) == "0.000 [0.000, 0.000] (n=4)"
    assert str(Estimate(-0.0001, -0.5, 0.4, 4)) == "0.000 [-0.500, 0.400] (n=4)"


def test_a_leader_the_first_lead_rule_forbids_is_refused(no_search: None) -> None:
    holder = next(s for s, h in enumerate(EASY) if "2" in h.split(".")[3])
    other = "NESW"[(holder + 1) % 4]
    refused(
        run("solve", *EASY, "--set", "first_lead=two_of_clubs", "--leader", other),
        2, "first_lead two_of_clubs", "holder of the 2C",
    )  # fmt: skip


def test_one_rule_for_seat_names_per_table(no_search: None) -> None:
    hand = "Q73.J5432.T8432.9643"
    for args in (
        ["solve", *deal_of(3), "--rules", "cutthroat", "--nil", "N"],
        ["solve", *deal_of(3), "--rules", "cutthroat", "--nil", "P0", "--leader", "W"],
        ["nil-odds", hand, "--rules", "cutthroat", "--seat", "S", "-n", "5"],
    ):
        refused(run(*args), 2, "calls its seats P0, P1, P2")


def test_exit_codes_progress_and_an_unfinished_solving_stage(tmp_path: Path) -> None:
    refused(run("solve", *EASY[:3], "AKQ..."), 2)
    refused(run("solve", *EASY, "--nil", "X"), 2, "unknown seat")
    refused(run("nil-odds", "Q73.J52.T84.9632", "--seat", "X", "-n", "5"), 2, "unknown seat")
    # a run whose solving stage began and did not finish: a resume without --dd says so
    from spades_sim.dataset import record_stage

    path = tmp_path / "r"
    run_dataset(RunSpec.build(seed=1), 2, path)
    record_stage(path, "dd", {"dir": "_dd", "part_size": 256, "deals": 2, "parts": 1,
                              "complete": False}, False)  # fmt: skip
    summary = run_dataset(RunSpec.build(seed=1), 2, path, resume=True)
    assert summary.dd_complete is False
    assert "double-dummy stage unfinished" in summary.format()
