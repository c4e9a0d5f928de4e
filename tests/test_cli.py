"""The ``spades-sim`` command line end to end: runs, config, show, and every error message.

Every user mistake must end in exactly one line ``error: ...`` on stderr, a non-zero exit
and no traceback; ``show`` must print exactly the deal, bids and tricks a
``--record-play`` run stored.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow.dataset as pads
import pytest
from click.testing import CliRunner, Result

import spades_sim
from spades_sim.cards import format_card, format_hand
from spades_sim.cli import cli
from spades_sim.dataset import load, load_games, read_manifest

ROOT = Path(spades_sim.__path__[0]).parent  # the checkout the tests import
SCRIPT = Path(sys.executable).with_name("spades-sim")
SEATS = "NESW"


def child_env() -> dict[str, str]:
    """Environment for a child process that must import this checkout of spades_sim."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def ok(*args: str | Path) -> Result:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


# --------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------


def test_simulate_in_a_real_process_reads_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "first"
    cmd = [SCRIPT if SCRIPT.exists() else "spades-sim", "simulate", "--hands", "5000",
           "--seed", "1", "--chunk-size", "2000", "--out", out]  # fmt: skip
    proc = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, env=child_env(), timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # not a terminal: no progress bar
    lines = proc.stdout.splitlines()
    assert len(lines) == 1  # one parseable line
    summary = json.loads(lines[0])
    assert summary["hands"] == 5000 and summary["parts"] == 3 and summary["complete"]
    assert summary["hands_per_second"] > 0 and 0 < summary["made_rate"] < 1

    rows = 4 * 5000
    df = pd.read_parquet(out)
    assert len(df) == rows and df.deal.is_monotonic_increasing
    assert pads.dataset(out).count_rows() == rows
    con = duckdb.connect()
    got = con.sql(f"select count(*), count(distinct deal) from read_parquet('{out}/*.parquet')")
    assert got.fetchall() == [(rows, 5000)]
    pd.testing.assert_frame_equal(load(out), df.astype({"made": "boolean", "nil_made": "boolean"}))


def test_summary_text_and_per_side_policies(tmp_path: Path) -> None:
    args = ["--ns-bidding", "count:bias=1", "--ew-play", "random", "--summary", "text"]
    result = ok("simulate", "--hands", "300", "--seed", "2", "--out", tmp_path / "r", *args)
    text = result.stdout
    assert "300 hands" in text and "count:bias=1 (N-S) vs count (E-W)" in text
    assert "contracts" in text and "bags" in text
    policies = read_manifest(tmp_path / "r")["meta"]["policies"]
    assert policies["bidding"]["ns"]["params"]["bias"] == 1.0
    assert policies["bidding"]["ew"]["params"]["bias"] == 0.0


def test_games_mode_with_rules(tmp_path: Path) -> None:
    out = tmp_path / "g"
    result = ok("simulate", "--games", "20", "--rules", "mercy", "--set", "target=300",
                "--seed", "4", "--out", out, "--quiet")  # fmt: skip
    summary = json.loads(result.stdout)
    assert summary["games"] == 20 and summary["mode"] == "games"
    meta = read_manifest(out)["meta"]
    assert meta["rules"]["target"] == 300 and meta["rules"]["loss_threshold"] == -200
    assert len(load_games(out)) == 20
    assert load(out, columns=["game"]).game.nunique() == 20


def test_config_file_and_flags_override_it(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        f"""
hands = 400
rules = "no-bags"
seed = 7
chunk-size = 150
out = "{tmp_path / "from_config"}"
bidding = "count:bias=0.5"
set = {{ target = 250, jokers = true }}
"""
    )
    ok("simulate", "--config", config)
    meta = read_manifest(tmp_path / "from_config")["meta"]
    assert (meta["total"], meta["seed"], meta["chunk_size"]) == (400, 7, 150)
    assert meta["rules"]["target"] == 250 and meta["rules"]["jokers"] is True
    assert meta["rules"]["bag_penalty"] == 0  # from the preset
    assert meta["policies"]["bidding"]["ns"]["params"]["bias"] == 0.5

    # flags win: --games replaces the config's hands, --set merges field by field
    ok("simulate", "--config", config, "--games", "3", "--seed", "8", "--set", "target=200",
       "--out", tmp_path / "flags")  # fmt: skip
    meta = read_manifest(tmp_path / "flags")["meta"]
    assert (meta["mode"], meta["total"], meta["seed"]) == ("games", 3, 8)
    assert meta["rules"]["target"] == 200 and meta["rules"]["jokers"] is True


def test_resume_and_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ("simulate", "--hands", "900", "--seed", "3", "--chunk-size", "200", "--out", out)
    first = json.loads(ok(*args).stdout)
    (out / "part-00004.parquet").unlink()  # as if the run had stopped before the last part
    again = json.loads(ok(*args, "--resume").stdout)
    assert again["parts_skipped"] == 4 and again["new_hands"] == 100
    assert again["nil_rate"] == first["nil_rate"]
    third = json.loads(ok(*args, "--overwrite").stdout)
    assert third["parts_skipped"] == 0 and third["new_hands"] == 900


def test_sigterm_keeps_parts_and_resume_finishes(tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ["simulate", "--hands", "200000", "--seed", "5", "--chunk-size", "1000", "--out", out]
    proc = subprocess.Popen(
        [str(SCRIPT), *map(str, args)],
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if len(json.loads((out / "_manifest.json").read_text())["parts"]) >= 2:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert stdout == "" and len(stderr.splitlines()) == 1 and "Traceback" not in stderr
    assert stderr.startswith("interrupted:") and "--resume" in stderr
    kept = len(read_manifest(out)["parts"])
    assert kept >= 2
    summary = json.loads(ok(*args, "--resume").stdout)
    assert summary["parts_skipped"] == kept and summary["hands"] == 200000


# --------------------------------------------------------------------------------------
# show
# --------------------------------------------------------------------------------------


def expected_lines(hands: pd.DataFrame, plays: pd.Series) -> list[str]:
    """The lines ``show`` must print for one stored hand (4 seat rows, its play record)."""
    hands = hands.sort_values("seat")
    held = [int(h) for h in hands.hand]
    dealt = [int(h) for h in plays.dealt]
    lines = [f"  {SEATS[s]}  {format_hand(dealt[s])}" for s in range(4)]
    bids = []
    for s, row in enumerate(hands.itertuples()):
        bids.append(
            f"{SEATS[s]} " + ("blind nil" if row.blind_nil else "nil" if row.nil else str(row.bid))
        )
    lines.append("bids: " + "  ".join(bids))
    owner = {c: s for s in range(4) for c in range(52) if held[s] >> c & 1}
    cards = [int(c) for c in plays.plays]
    winners = [int(w) for w in plays.trick_winners]
    for t in range(13):
        trick = cards[4 * t : 4 * t + 4]
        played = "  ".join(f"{SEATS[owner[c]]} {format_card(c)}" for c in trick)
        lines.append(f"  {t + 1:2d}  {played}  -> {SEATS[winners[t]]}")
    lines.append("tricks: " + "  ".join(f"{SEATS[s]} {t}" for s, t in enumerate(hands.tricks)))
    return lines


def assert_shows(text: str, hands: pd.DataFrame, plays: pd.Series) -> None:
    printed = text.splitlines()
    for line in expected_lines(hands, plays):
        assert line in printed, f"missing {line!r} in\n{text}"


def test_show_reproduces_a_record_play_run(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    opts = ["--rules", "blind-nil-exchange", "--bidding", "random:nil_rate=0.3,blind_nil_rate=0.2",
            "--ns-play", "random"]  # fmt: skip
    ok("simulate", "--hands", "60", "--seed", "12", "--record-play", "--out", out, *opts)
    hands = load(out)
    plays = load(out, table="plays").set_index("deal")
    # the deals worth looking at: one with a blind nil exchange, and a few others
    exchanged = [d for d in plays.index if list(plays.loc[d].dealt) != list(
        hands[hands.deal == d].sort_values("seat").hand.astype(np.uint64))]  # fmt: skip
    assert exchanged, "expected a deal with a blind nil exchange"
    for deal in [0, 17, 59, exchanged[0]]:
        rows = hands[hands.deal == deal]
        from_run = ok("show", "--run", out, "--deal", str(deal)).stdout
        assert_shows(from_run, rows, plays.loc[deal])
        from_seed = ok("show", "--seed", "12", "--deal", str(deal), *opts).stdout
        assert from_seed == from_run
    assert (
        "after the blind nil exchange"
        in ok("show", "--run", out, "--deal", str(exchanged[0])).stdout
    )


def test_show_a_hand_of_a_game(tmp_path: Path) -> None:
    out = tmp_path / "games"
    ok("simulate", "--games", "3", "--seed", "9", "--record-play", "--out", out)
    hands = load(out)
    plays = load(out, table="plays")
    for game, hand_no in [(0, 0), (2, 3)]:
        rows = hands[(hands.game == game) & (hands.hand_no == hand_no)]
        record = plays[(plays.game == game) & (plays.hand_no == hand_no)].iloc[0]
        text = ok("show", "--run", out, "--game", str(game), "--hand", str(hand_no)).stdout
        assert_shows(text, rows, record)
        side0 = rows[rows.seat == 0].iloc[0]
        assert f"total {side0.score_before} -> {side0.score_after}" in text


def test_rules_and_policies_listings() -> None:
    text = ok("rules").stdout
    for word in ("standard", "mercy", "loss_threshold=-200", "target", "500", "bag_penalty"):
        assert word in text
    text = ok("policies").stdout
    assert "count" in text and "bias=0" in text and "random" in text and "threshold" in text


# --------------------------------------------------------------------------------------
# Every user mistake: one line, non-zero exit, no traceback
# --------------------------------------------------------------------------------------

BAD_SIMULATE = {
    "not a number": (["--hands", "abc"], "'--hands'"),
    "zero hands": (["--hands", "0"], "'--hands'"),
    "neither hands nor games": ([], "--hands N or --games N"),
    "both hands and games": (["--hands", "5", "--games", "5"], "not both"),
    "missing out": (["--hands", "5", "NO_OUT"], "--out"),
    "unknown preset": (["--hands", "5", "--rules", "nope"], "unknown rules preset 'nope'"),
    "unknown field": (["--hands", "5", "--set", "colour=red"], "unknown rules field 'colour'"),
    "bad field value": (["--hands", "5", "--set", "target=lots"], "target: expected a whole"),
    "set without =": (["--hands", "5", "--set", "target"], "FIELD=VALUE"),
    "invalid rule": (["--hands", "5", "--set", "players=5"], "players: must be 4, 3 or 2"),
    "three players with partnerships": (
        ["--hands", "5", "--set", "players=3"],
        "partnerships: three players (cutthroat) need partnerships=false",
    ),
    "three players, deuces high": (
        [
            "--hands",
            "5",
            "--rules",
            "cutthroat",
            "--set",
            "jokers=true",
            "--set",
            "deuces_high=true",
        ],
        "deuces_high: is refused with three players",
    ),
    "rule clash": (
        ["--hands", "5", "--rules", "two-player", "--set", "first_lead=two_of_clubs"],
        "first_lead",
    ),
    "unknown bidding": (["--hands", "5", "--bidding", "psychic"], "unknown bid policy 'psychic'"),
    "unknown play": (["--hands", "5", "--ew-play", "psychic"], "'--ew-play'"),
    "unknown param": (["--hands", "5", "--bidding", "count:colour=1"], "no parameter 'colour'"),
    "param range": (["--hands", "5", "--bidding", "count:bias=99"], "outside"),
    "param text": (["--hands", "5", "--bidding", "count:bias"], "expected param=value"),
    "bad draw": (["--hands", "5", "--draw", "nope"], "'--draw'"),
    "negative seed": (["--hands", "5", "--seed", "-1"], "'--seed'"),
    "too many threads": (["--hands", "5", "--threads", "999"], "'--threads'"),
    "resume and overwrite": (["--hands", "5", "--resume", "--overwrite"], "not both"),
    "unknown option": (["--hands", "5", "--frobnicate"], "--frobnicate"),
    "missing config": (["--config", "NO_SUCH.toml"], "'--config'"),
}


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def assert_one_error_line(result: Result, needle: str) -> None:
    assert result.exit_code != 0
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and needle in lines[0], lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize("case", list(BAD_SIMULATE))
def test_simulate_mistakes_are_one_line(workdir: Path, case: str) -> None:
    args, needle = BAD_SIMULATE[case]
    out = [] if "NO_OUT" in args else ["--out", "out"]
    args = [a for a in args if a != "NO_OUT"]
    result = CliRunner().invoke(cli, ["simulate", *args, *out])
    assert_one_error_line(result, needle)
    assert not (workdir / "out").exists() or case == "too many threads"


def test_existing_run_and_resume_mistakes_are_one_line(workdir: Path) -> None:
    base = ["simulate", "--hands", "50", "--seed", "1", "--out", "r", "--chunk-size", "20"]
    ok(*base)
    assert_one_error_line(CliRunner().invoke(cli, base), "--resume")
    result = CliRunner().invoke(cli, [*base[:4], "2", *base[5:], "--resume"])
    assert_one_error_line(result, "different 'seed' (stored 1, now 2)")
    result = CliRunner().invoke(cli, [*base[:-1], "30", "--resume"])
    assert_one_error_line(result, "different 'chunk_size' (stored 20, now 30)")
    result = CliRunner().invoke(cli, [*base, "--resume", "--set", "target=300"])
    assert_one_error_line(result, "different 'rules.target'")
    (workdir / "afile").write_text("x")
    result = CliRunner().invoke(cli, [*base[:-3], "afile"])
    assert_one_error_line(result, "afile")
    (workdir / "notarun").mkdir()
    (workdir / "notarun" / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, [*base[:-3], "notarun", "--overwrite"])
    assert_one_error_line(result, "not a spades_sim run")
    assert (workdir / "notarun" / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("hands = [1, 2", "invalid TOML"),
        ("hands = 10\ncolour = 'red'", "unknown option 'colour'"),
        ("hands = 10\nset = 5", "'set' must be a table"),
        ("hands = 'many'", "'--hands'"),
        ("hands = 10\nrules = 'nope'", "unknown rules preset"),
    ],
)
def test_config_mistakes_are_one_line(workdir: Path, text: str, needle: str) -> None:
    (workdir / "run.toml").write_text(text + "\nout = 'out'\n")
    result = CliRunner().invoke(cli, ["simulate", "--config", "run.toml"])
    assert_one_error_line(result, needle)


def test_show_mistakes_are_one_line(workdir: Path) -> None:
    ok("simulate", "--games", "2", "--seed", "1", "--out", "g")
    ok("simulate", "--hands", "10", "--seed", "1", "--out", "h")
    cases = [
        (["--deal", "3"], "--seed"),
        (["--seed", "1"], "--deal I"),
        (["--seed", "1", "--deal", "1", "--game", "1"], "not both"),
        (["--run", "nowhere", "--deal", "1"], "nowhere"),
        (["--run", "g", "--deal", "1"], "games run"),
        (["--run", "h", "--game", "1"], "hands run"),
        (["--run", "h", "--deal", "10"], "holds 10 deals"),
        (["--run", "g", "--game", "1", "--hand", "999"], "--hand 0.."),
        (["--run", "h", "--deal", "1", "--rules", "mercy"], "--rules cannot be combined"),
        (["--seed", "1", "--deal", "1", "--play", "nope"], "unknown play policy"),
    ]
    for args, needle in cases:
        assert_one_error_line(CliRunner().invoke(cli, ["show", *args]), needle)


def test_unknown_command_is_one_line() -> None:
    assert_one_error_line(CliRunner().invoke(cli, ["simulat"]), "simulat")


def test_os_errors_on_the_output_are_one_line(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / "file").write_text("not a directory")
    result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--out", "file/run"])
    assert_one_error_line(result, "file/run")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(workdir / "locked"))

    monkeypatch.setattr("spades_sim.run.run_dataset", refuse)
    result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--out", "locked"])
    assert_one_error_line(result, "locked: Permission denied")
    assert result.exit_code == 1
