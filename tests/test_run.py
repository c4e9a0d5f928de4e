"""Runs at scale (spades_sim.run): determinism, crash safety and resume, games invariants.

- Same seed with 1 or 2 threads and any chunk size gives the same rows (part boundaries
  differ, so the loaded frames are compared, not the files).
- A run killed with SIGKILL part-way leaves only complete parts readable, and resuming it
  gives the dataset of an uninterrupted run.
- Games mode: every game ends by the rules (checked against the reference engine's
  ``game_result`` after every hand), scores and bags carry from hand to hand, and the
  per-hand rows reconcile with the per-game rows. A few hundred games per preset here,
  thousands in the slow tier.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import spades_sim
from spades_sim.dataset import file_metadata, load, load_games, read_manifest
from spades_sim.reference import game_result
from spades_sim.rules import Rules
from spades_sim.run import Progress, RunSummary, Tally, plan, run_dataset, spec_from_meta
from spades_sim.schema import REASONS
from spades_sim.simulate import RunSpec, simulate_hands

ROOT = Path(spades_sim.__path__[0]).parent  # the checkout the tests import
PRESETS = tuple(Rules.PRESETS)


def child_env() -> dict[str, str]:
    """Environment for a child Python that must import this checkout of spades_sim."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def frames(out: Path) -> dict[str, pd.DataFrame]:
    tables = {"hands": load(out)}
    if (out / "_games").is_dir():
        tables["games"] = load_games(out)
    if (out / "_plays").is_dir():
        tables["plays"] = load(out, table="plays")
    return tables


def assert_same_rows(a: Path, b: Path) -> None:
    fa, fb = frames(a), frames(b)
    assert fa.keys() == fb.keys()
    for name in fa:
        pd.testing.assert_frame_equal(fa[name], fb[name], obj=name)


# --------------------------------------------------------------------------------------
# Determinism
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode, total", [("hands", 3000), ("games", 40)])
def test_threads_and_chunk_size_do_not_change_the_rows(
    tmp_path: Path, mode: str, total: int
) -> None:
    spec = RunSpec.build(seed=11, mode=mode, record_play=True, bidding=("count", "random"))
    runs = {
        "t1_default": dict(threads=1),
        "t2_small": dict(threads=2, chunk_size=7 if mode == "games" else 700),
        "t2_odd": dict(threads=2, chunk_size=13 if mode == "games" else 1999),
    }
    for name, kwargs in runs.items():
        summary = run_dataset(spec, total, tmp_path / name, **kwargs)  # type: ignore[arg-type]
        assert summary.complete
    for name in list(runs)[1:]:
        assert_same_rows(tmp_path / "t1_default", tmp_path / name)
    parts = read_manifest(tmp_path / "t2_small")["parts"]
    key = "game" if mode == "games" else "deal"
    assert [p[f"{key}_start"] for p in parts.values()] == [s for _, s, _ in plan(
        spec, total, runs["t2_small"]["chunk_size"]
    )]  # fmt: skip


def test_summary_statistics_match_the_dataset(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=3, bidding="random:nil_rate=0.2,blind_nil_rate=0.05")
    seen: list[Progress] = []
    s = run_dataset(spec, 2500, tmp_path / "r", chunk_size=1000, progress=seen.append)
    df = load(tmp_path / "r")
    assert (s.hands, s.rows, s.parts, s.new_hands) == (2500, 10000, 3, 2500)
    nil = df.nil | df.blind_nil
    assert s.nil_rate == pytest.approx(nil.mean())
    assert s.nil_success_rate == pytest.approx(df.nil_made[nil].astype(bool).mean())
    assert s.made_rate == pytest.approx(df.made.dropna().astype(bool).mean())
    side_rows = df[df.seat < 2]
    assert s.bags_per_hand == pytest.approx(side_rows.bags_change.mean())
    assert [p.done for p in seen] == [0, 1000, 2000, 2500]
    assert s.hands_per_second > 0 and json.loads(s.to_json())["hands"] == 2500
    text = s.format()
    assert "2,500 hands" in text and "random:nil_rate=0.2" in text


def test_resume_reports_on_the_whole_dataset(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=4)
    out = tmp_path / "r"
    first = run_dataset(spec, 1000, out, chunk_size=300)
    again = run_dataset(spec, 1000, out, resume=True)  # takes the stored chunk size
    assert again.parts_skipped == 4 and again.new_hands == 0
    for field in ("hands", "rows", "nil_rate", "made_rate", "bags_per_hand"):
        assert getattr(again, field) == getattr(first, field)
    with pytest.raises(ValueError, match="chunk_size"):
        run_dataset(spec, 1000, out, chunk_size=500, resume=True)
    with pytest.raises(ValueError, match="'total'"):
        run_dataset(spec, 2000, out, resume=True)
    with pytest.raises(ValueError, match="'seed'"):
        run_dataset(RunSpec.build(seed=5), 1000, out, resume=True)
    with pytest.raises(FileExistsError, match="--resume"):
        run_dataset(spec, 1000, out)


def test_files_explain_themselves(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=8, rules=Rules.preset("mercy"), mode="games", play="random")
    run_dataset(spec, 12, tmp_path / "g", chunk_size=5)
    manifest = read_manifest(tmp_path / "g")
    meta = manifest["meta"]
    assert meta["chunk_size"] == 5 and meta["total"] == 12 and meta["seed"] == 8
    assert meta["rules"]["loss_threshold"] == -200 and "package_version" in meta
    assert manifest["schema_version"] == meta["schema_version"]
    info = file_metadata(tmp_path / "g" / "_games" / "part-00002.parquet")
    assert info["part_meta"]["game_start"] == 10 and info["part_meta"]["game_stop"] == 12
    assert info["meta"] == meta
    assert spec_from_meta(meta) == spec
    hands_file = pq.ParquetFile(tmp_path / "g" / "part-00000.parquet")
    assert hands_file.metadata.row_group(0).column(0).compression == "ZSTD"


def test_run_parts_are_encoded_as_documented_and_read_back_as_simulated(tmp_path: Path) -> None:
    """The run's format (spades_sim.dataset.format, "Encoding"): no dictionary, the seat
    plain, the hand masks plain, other integers delta-encoded, zstd; ``pd.read_parquet``
    of the run directory and ``load`` give the rows ``simulate_hands`` gives."""
    spec = RunSpec.build(seed=4)
    run_dataset(spec, 600, tmp_path / "r", chunk_size=250)
    meta = pq.ParquetFile(tmp_path / "r" / "part-00000.parquet").metadata
    group = meta.row_group(0)
    columns = {meta.schema.column(i).name: group.column(i) for i in range(meta.num_columns)}
    assert {c.compression for c in columns.values()} == {"ZSTD"}
    assert not any(c.has_dictionary_page for c in columns.values())
    assert "PLAIN" in columns["seat"].encodings and "PLAIN" in columns["hand"].encodings
    for name in ("deal", "side", "spades", "points", "score_change"):
        assert "DELTA_BINARY_PACKED" in columns[name].encodings, name
    assert [n for n, c in columns.items() if c.is_stats_set] == ["deal"]
    want = simulate_hands(600, seed=4)
    got = load(tmp_path / "r")
    pd.testing.assert_frame_equal(got, want)
    plain = pd.read_parquet(tmp_path / "r")  # pandas' own reading: nullable bools as objects
    nullable = ["made", "nil_made"]
    pd.testing.assert_frame_equal(plain.drop(columns=nullable), want.drop(columns=nullable))
    for name in nullable:
        pd.testing.assert_series_equal(plain[name].astype("boolean"), want[name])


def test_plan_refuses_too_many_parts() -> None:
    with pytest.raises(ValueError, match="at least 11"):
        plan(RunSpec.build(seed=0), 1_000_001, chunk_size=1)
    with pytest.raises(ValueError, match="whole number"):
        plan(RunSpec.build(seed=0), -1)


# --------------------------------------------------------------------------------------
# Crash safety
# --------------------------------------------------------------------------------------

CHILD = """
import sys
from spades_sim.run import run_dataset
from spades_sim.simulate import RunSpec, simulate_hands
run_dataset(RunSpec.build(seed=21, record_play=True), {total}, {out!r}, chunk_size={chunk})
"""


def wait_for_parts(out: Path, child: subprocess.Popen[bytes], n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and child.poll() is None:
        try:
            if len(json.loads((out / "_manifest.json").read_text())["parts"]) >= n:
                return
        except (OSError, ValueError):
            pass  # not there yet (the manifest is always replaced whole)
        time.sleep(0.002)


def test_sigkill_part_way_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    total, chunk = 100_000, 1000  # 100 parts, about 20 ms each: killed after a few
    out, one_go = tmp_path / "killed", tmp_path / "one_go"
    code = CHILD.format(total=total, out=str(out), chunk=chunk)
    child = subprocess.Popen([sys.executable, "-c", code], env=child_env())
    try:
        wait_for_parts(out, child, 3, timeout=60)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL, "the run finished before it was killed"

    manifest = read_manifest(out)
    listed = {int(k) for k in manifest["parts"]}
    assert 3 <= len(listed) < total // chunk and manifest["complete"] is False
    on_disk = sorted(p.name for p in out.glob("part-*.parquet"))
    readable = sorted(Path(f).name for f in pads.dataset(out).files)
    assert readable == on_disk  # a temporary file is never picked up as data
    for entry in manifest["parts"].values():  # every listed part is whole
        assert pq.read_metadata(out / entry["file"]).num_rows == entry["rows"]
        assert pq.read_metadata(out / entry["plays_file"]).num_rows == entry["plays_rows"]
    for name in on_disk:  # every part file on disk is whole, listed or not
        pq.read_table(out / name)

    spec = RunSpec.build(seed=21, record_play=True)
    resumed = run_dataset(spec, total, out, chunk_size=chunk, resume=True)
    assert resumed.parts_skipped == len(listed) and resumed.complete
    assert not list(out.glob(".*.tmp")) and not list((out / "_plays").glob(".*.tmp"))
    run_dataset(spec, total, one_go, chunk_size=chunk, fsync=False)
    assert_same_rows(one_go, out)
    a, b = read_manifest(one_go), read_manifest(out)
    assert a["parts"] == b["parts"] and a["meta"] == b["meta"] and b["complete"]


def test_interrupt_keeps_finished_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}

    def progress(p: Progress) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # after two chunks are queued
            raise KeyboardInterrupt

    spec = RunSpec.build(seed=2)
    from spades_sim.run import RunInterrupted

    with pytest.raises(RunInterrupted) as info:
        run_dataset(spec, 5000, tmp_path / "r", chunk_size=1000, progress=progress)
    summary = info.value.summary
    assert isinstance(summary, RunSummary) and not summary.complete
    assert summary.parts == 2 and summary.hands == 2000
    assert info.value.signal_number == signal.SIGINT
    assert read_manifest(tmp_path / "r")["complete"] is False
    done = run_dataset(spec, 5000, tmp_path / "r", resume=True)
    assert done.parts_skipped == 2 and done.hands == 5000 and done.complete
    run_dataset(spec, 5000, tmp_path / "one", chunk_size=1000)
    assert_same_rows(tmp_path / "one", tmp_path / "r")


# --------------------------------------------------------------------------------------
# Games mode
# --------------------------------------------------------------------------------------


def check_games(hands: pd.DataFrame, games: pd.DataFrame, rules: Rules) -> None:
    """Every invariant of a games-mode dataset (see the module docstring)."""
    players = rules.players
    hands = hands.sort_values(["game", "hand_no", "seat"], kind="stable").reset_index(drop=True)
    assert len(hands) % players == 0
    # One row per seat per hand; partners agree on every side figure.
    side_cols = ["score_change", "bags_change", "bag_penalty", "score_before", "score_after",
                 "bags_before", "bags_after", "side_contract", "side_tricks"]  # fmt: skip
    by_seat = [hands[hands.seat == s].reset_index(drop=True) for s in range(players)]
    if players == 4 and rules.partnerships:
        for a, b in ((0, 2), (1, 3)):
            pd.testing.assert_frame_equal(by_seat[a][side_cols], by_seat[b][side_cols])
    # one row per side per hand: seats 0 and 1, or every seat in cutthroat (side = seat)
    side = {s: by_seat[s] for s in range(rules.sides)}
    for s, rows in side.items():
        ints = rows[["score_before", "score_change", "score_after"]].to_numpy(np.int64)
        assert (ints[:, 0] + ints[:, 1] == ints[:, 2]).all()
        # bags: the change, less bag_limit per penalty paid (when the penalty is on)
        paid = rows.bag_penalty.to_numpy(np.int64)
        n_paid = paid // rules.bag_penalty if rules.bag_penalty else np.zeros_like(paid)
        assert (paid == n_paid * rules.bag_penalty).all()
        expect_bags = rows.bags_before + rows.bags_change - rules.bag_limit * n_paid
        assert (rows.bags_after.to_numpy() == expect_bags.to_numpy()).all()
        if rules.bag_penalty:
            assert (rows.bags_after < rules.bag_limit).all() and (rows.bags_after >= 0).all()
        # carried from hand to hand within a game, from 0/0 at the start
        same_game = rows.game.to_numpy()[1:] == rows.game.to_numpy()[:-1]
        for before, after in (("score_before", "score_after"), ("bags_before", "bags_after")):
            b, a = rows[before].to_numpy(), rows[after].to_numpy()
            assert (b[1:][same_game] == a[:-1][same_game]).all(), f"side {s}: {after} carried"
            assert (b[np.r_[True, ~same_game]] == 0).all(), f"side {s}: {before} of hand 0"

    # Per game: hands numbered 0..n-1, dealer rotating, totals equal the game row.
    ns = side[0]
    grouped = ns.groupby("game", sort=True)
    per_game = pd.DataFrame({
        "hands": grouped.size(),
        "first_hand": grouped.hand_no.min(),
        "last_hand": grouped.hand_no.max(),
    })  # fmt: skip
    for s, suffix in zip(range(rules.sides), ("ns", "ew", "2", "3"), strict=False):
        by_game = side[s].groupby("game", sort=True)
        per_game[f"score_{suffix}"] = by_game.score_after.last()
        per_game[f"bags_{suffix}"] = by_game.bags_after.last()
        per_game[f"bag_penalty_{suffix}"] = by_game.bag_penalty.sum()
    games = games.set_index("game").sort_index()
    assert (per_game.index == games.index).all() and len(games) > 0
    assert (per_game.first_hand == 0).all() and (per_game.last_hand == per_game.hands - 1).all()
    for col in per_game.columns.drop(["first_hand", "last_hand"]):
        assert (per_game[col].to_numpy() == games[col].to_numpy()).all(), col
    first_dealer = games.first_dealer.reindex(ns.game).to_numpy()
    assert (ns.dealer.to_numpy() == (first_dealer + ns.hand_no.to_numpy()) % players).all()

    # The game ends exactly when the rules say: never before its last hand, and then with
    # the winner and reason the reference engine gives.
    scores = np.stack([side[s].score_after.to_numpy() for s in side], axis=1)
    last = np.r_[ns.game.to_numpy()[1:] != ns.game.to_numpy()[:-1], True]
    for i in range(len(ns)):
        winner, reason = game_result(
            tuple(int(x) for x in scores[i]), int(ns.hand_no.iat[i]) + 1, rules
        )
        if not last[i]:
            assert reason == "", f"game {ns.game.iat[i]} should have ended at {i}"
            continue
        row = games.loc[ns.game.iat[i]]
        assert REASONS[int(row.reason)] == reason, f"game {ns.game.iat[i]}"
        assert int(row.winner) == (-1 if winner is None else winner)
        if reason == "target":
            top = max(scores[i])
            assert top >= rules.target and scores[i, int(row.winner)] == top
        elif reason == "loss_threshold":
            assert rules.loss_threshold is not None
            assert min(scores[i]) <= rules.loss_threshold
        else:
            assert int(row.hands) == rules.max_hands


def run_games(tmp_path: Path, rules: Rules, n: int, seed: int, **kwargs: Any) -> None:
    spec = RunSpec.build(seed=seed, rules=rules, mode="games", **kwargs)
    out = tmp_path / "games"
    summary = run_dataset(spec, n, out, chunk_size=max(1, n // 3), overwrite=True)
    games = load_games(out)
    assert summary.games == n == len(games)
    wins = summary.wins_ns + summary.wins_ew + summary.wins_2 + summary.wins_3
    assert wins + summary.unfinished == n
    check_games(load(out), games, rules)


@pytest.mark.parametrize("preset", PRESETS)
def test_games_end_by_the_rules_and_reconcile(tmp_path: Path, preset: str) -> None:
    run_games(tmp_path, Rules.preset(preset), 200, seed=31)


def test_unfinished_games_are_marked(tmp_path: Path) -> None:
    rules = Rules(max_hands=3, target=2000)
    run_games(tmp_path, rules, 50, seed=5)
    games = load_games(tmp_path / "games")
    assert (games.reason == 3).all() and (games.winner == -1).all() and (games.hands == 3).all()


def test_per_side_policies_in_games(tmp_path: Path) -> None:
    run_games(
        tmp_path,
        Rules.preset("mercy"),
        100,
        seed=6,
        bidding={"ns": "count:bias=1", "ew": "random"},
    )


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_games_end_by_the_rules_and_reconcile_thousands(tmp_path: Path, preset: str) -> None:
    run_games(tmp_path, Rules.preset(preset), 3000, seed=1234)


@pytest.mark.slow
def test_bigger_runs_do_not_depend_on_threads_or_chunks(tmp_path: Path) -> None:
    spec = RunSpec.build(seed=99, play=("random", "random"))
    run_dataset(spec, 600_000, tmp_path / "a", threads=1)
    run_dataset(spec, 600_000, tmp_path / "b", threads=2, chunk_size=77_777)
    assert_same_rows(tmp_path / "a", tmp_path / "b")


def test_tally_adds_up() -> None:
    assert (Tally(hands=1, bags=2) + Tally(hands=3, bags=1)) == Tally(hands=4, bags=3)
    assert np.isnan(Tally().made_rate)
