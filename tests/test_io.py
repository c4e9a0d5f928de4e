"""The Parquet dataset layer: atomic parts, manifest, resume, crash safety and readers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from spades_sim.dataset import (
    DatasetWriter,
    PartFormat,
    file_metadata,
    load,
    load_games,
    read_manifest,
)
from spades_sim.dataset import store as sio
from spades_sim.dataset.rundir import RunWarning
from spades_sim.dataset.store import CorruptPart
from spades_sim.errors import SpadesError

ROOT = Path(__file__).resolve().parents[1]

META: dict[str, Any] = {
    "schema_version": 1,
    "package_version": "0.0.test",
    "seed": 42,
    "rules": {"preset": "standard", "target": 500, "bag_penalty": 100},
    "policies": {"ns": {"bidding": "basic", "params": [1.0, 0.5]}, "ew": {"bidding": "basic"}},
}
NULLABLE = frozenset({"made", "nil_made"})
FMT = PartFormat(nullable_bool=NULLABLE)
HANDS_PER_PART = 500


def make_hands(part: int, n_hands: int = HANDS_PER_PART) -> dict[str, np.ndarray]:
    """A synthetic, deterministic chunk of per-seat rows (four rows per hand)."""
    rng = np.random.default_rng(1000 + part)
    n = 4 * n_hands
    deal = np.repeat(np.arange(part * n_hands, (part + 1) * n_hands, dtype=np.int64), 4)
    seat = np.tile(np.arange(4, dtype=np.int8), n_hands)
    nil = rng.random(n) < 0.1
    contract = rng.integers(3, 11, n).astype(np.int8)
    side_tricks = rng.integers(0, 14, n).astype(np.int8)
    made = np.where(rng.random(n) < 0.05, -1, side_tricks >= contract).astype(np.int8)
    return {
        "deal": deal,
        "seat": seat,
        "side": (seat % 2).astype(np.int8),
        "dealer": (deal % 4).astype(np.int8),
        "hand": rng.integers(0, 2**52, n, dtype=np.uint64),
        "bid": np.where(nil, 0, rng.integers(1, 7, n)).astype(np.int8),
        "nil": nil,
        "blind_nil": nil & (rng.random(n) < 0.2),
        "tricks": rng.integers(0, 7, n).astype(np.int8),
        "side_contract": contract,
        "side_tricks": side_tricks,
        "made": made,
        "nil_made": np.where(nil, rng.random(n) < 0.6, -1).astype(np.int8),
        "score_change": rng.integers(-200, 200, n).astype(np.int16),
        "bags_change": rng.integers(0, 5, n).astype(np.int8),
    }


def make_games(part: int, n_games: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5000 + part)
    return {
        "game": np.arange(part * n_games, (part + 1) * n_games, dtype=np.int64),
        "winner": rng.integers(0, 2, n_games).astype(np.int8),
        "reason": rng.integers(0, 3, n_games).astype(np.int8),
        "hands_played": rng.integers(5, 30, n_games).astype(np.int16),
        "final_score_ns": rng.integers(-300, 700, n_games).astype(np.int16),
        "final_score_ew": rng.integers(-300, 700, n_games).astype(np.int16),
    }


def part_kwargs(part: int, games: bool = True) -> dict[str, Any]:
    return {
        "hands": make_hands(part),
        "games": make_games(part) if games else None,
        "part_meta": {
            "deal_start": part * HANDS_PER_PART,
            "deal_stop": (part + 1) * HANDS_PER_PART,
        },
    }


def expected_frame(parts: list[int]) -> pd.DataFrame:
    frames = []
    for part in sorted(parts):
        cols: dict[str, Any] = dict(make_hands(part))
        for name in NULLABLE:
            cols[name] = pd.arrays.BooleanArray(cols[name] == 1, cols[name] < 0)
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def write_run(path: Path, parts: list[int], **kwargs: Any) -> None:
    with DatasetWriter(path, meta=META, fmt=replace(FMT, **kwargs)) as w:
        for part in parts:
            w.write_part_async(part, **part_kwargs(part))
        w.finish()


def assert_same_run(a: Path, b: Path) -> None:
    pd.testing.assert_frame_equal(load(a), load(b))
    pd.testing.assert_frame_equal(load_games(a), load_games(b))
    ma, mb = read_manifest(a), read_manifest(b)
    assert ma == mb
    assert ma["complete"] is True


def test_round_trip_keeps_values_and_dtypes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [2, 0, 1], row_group_size=700)  # any order; several row groups per part
    got = load(run)
    want = expected_frame([0, 1, 2])
    pd.testing.assert_frame_equal(got, want)
    assert got["hand"].dtype == np.uint64 and got["seat"].dtype == np.int8
    assert got["score_change"].dtype == np.int16 and got["nil"].dtype == np.bool_
    assert got["made"].dtype == "boolean" and got["made"].isna().any()
    assert pq.ParquetFile(run / "part-00000.parquet").metadata.num_row_groups == 3
    manifest = read_manifest(run)
    assert manifest["complete"] is True and manifest["schema_version"] == 1
    assert list(manifest["parts"]) == ["00000", "00001", "00002"]
    entry = manifest["parts"]["00001"]
    assert entry["rows"] == 4 * HANDS_PER_PART and entry["games_rows"] == 7
    assert entry["file"] == "part-00001.parquet"
    assert entry["games_file"] == "_games/part-00001.parquet"
    assert (entry["deal_start"], entry["deal_stop"]) == (HANDS_PER_PART, 2 * HANDS_PER_PART)
    games = load_games(run)
    assert len(games) == 21 and games["hands_played"].dtype == np.int16


def test_load_columns_and_filters(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0, 1], row_group_size=500)
    want = expected_frame([0, 1])
    got = load(run, columns=["deal", "made"], filters=[("deal", ">=", 700), ("seat", "==", 2)])
    sel = want[(want.deal >= 700) & (want.seat == 2)][["deal", "made"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, sel)
    expr = pads.field("nil_made").is_valid()
    got = load(run, columns=["nil_made"], filters=expr)
    pd.testing.assert_frame_equal(got, want[["nil_made"]].dropna().reset_index(drop=True))
    assert load(run, columns=["made"]).shape == (len(want), 1)  # only a nullable column


def test_load_names_an_unknown_column_in_one_line(tmp_path: Path) -> None:
    """A column that is not in the table, asked for or filtered on (a list of tuples or
    an expression), is one line naming it; a double-dummy column filtered on in a run
    never solved says how to solve it."""
    run = tmp_path / "run"
    write_run(run, [0])
    asks: list[dict[str, Any]] = [
        {"columns": ["deal", "nosuch"]},
        {"filters": [("nosuch", ">", 5)]},
        {"filters": [[("deal", ">", 5)], [("nosuch", "==", 1)]]},
        {"filters": pads.field("nosuch") > 5},
        {"columns": ["nosuch"], "table": "games"},
    ]
    for ask in asks:
        with pytest.raises(SpadesError) as err:
            load(run, **ask)
        message = str(err.value)
        assert "'nosuch'" in message and "\n" not in message, message
        assert "__fragment_index" not in message and "int64" not in message, message
    with pytest.raises(SpadesError, match=r"dd_side_tricks.*no double-dummy columns") as err:
        load(run, filters=[("dd_side_tricks", ">", 5)])
    assert "\n" not in str(err.value)
    # known columns still read
    assert load(run, columns=["deal"], filters=[("seat", "==", 1)])["deal"].size == HANDS_PER_PART


def test_plain_readers_see_only_hands_rows(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0, 1, 2])
    want = expected_frame([0, 1, 2])
    # Leftovers of a crash: complete-looking Parquet bytes under the temporary names.
    pq.write_table(
        pa.table({"deal": np.arange(99, dtype=np.int64)}), run / ".part-00003.parquet.tmp"
    )
    pq.write_table(pa.table({"x": np.arange(5)}), run / "_games" / ".part-00003.parquet.tmp")
    n, total = len(want), int(want["score_change"].sum())

    frame = pd.read_parquet(run)
    assert len(frame) == n and int(frame["score_change"].sum()) == total
    dataset = pads.dataset(run)
    assert sorted(Path(f).name for f in dataset.files) == [
        f"part-0000{i}.parquet" for i in range(3)
    ]
    assert dataset.count_rows() == n
    assert pa.compute.sum(dataset.to_table(columns=["score_change"])[0]).as_py() == total
    con = duckdb.connect()
    rows = con.execute(
        f"SELECT count(*), sum(score_change) FROM read_parquet('{run.as_posix()}/*.parquet')"
    ).fetchall()
    assert rows == [(n, total)]
    pd.testing.assert_frame_equal(load(run), want)  # the library's own reader too


def test_refuses_existing_directory_without_flag(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0])
    with pytest.raises(FileExistsError, match=r"--resume.*--overwrite"):
        DatasetWriter(run, meta=META)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not a spades_sim run"):
        DatasetWriter(other, meta=META)
    with pytest.raises(ValueError, match="exclude"):
        DatasetWriter(tmp_path / "new", meta=META, overwrite=True, resume=True)


def test_overwrite_replaces_only_run_files(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0, 1, 2])
    (run / "notes.txt").write_text("keep me")
    other_meta = {**META, "seed": 7}
    with DatasetWriter(run, meta=other_meta, fmt=FMT, overwrite=True) as w:
        assert w.done_parts == set()
        w.write_part(0, make_hands(0))
        w.finish()
    assert (run / "notes.txt").read_text() == "keep me"
    assert not (run / "_games").exists()
    assert sorted(p.name for p in run.iterdir()) == [
        "_manifest.json",
        "notes.txt",
        "part-00000.parquet",
    ]
    assert read_manifest(run)["meta"]["seed"] == 7
    pd.testing.assert_frame_equal(load(run), expected_frame([0]))


def test_overwrite_and_resume_refuse_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "precious.csv").write_text("1,2,3\n")
    (folder / "part-00000.parquet").write_bytes(b"not ours")
    for flag in ("overwrite", "resume"):
        with pytest.raises(ValueError, match=r"not a spades_sim run.*precious\.csv"):
            DatasetWriter(folder, meta=META, overwrite=flag == "overwrite", resume=flag == "resume")
    assert (folder / "precious.csv").exists() and (folder / "part-00000.parquet").exists()
    bogus = tmp_path / "bogus"
    bogus.mkdir()
    (bogus / "_manifest.json").write_text('{"format": "something-else"}')
    with pytest.raises(ValueError, match="not a spades_sim run"):
        DatasetWriter(bogus, meta=META, overwrite=True)


def test_resume_skips_done_parts_and_matches_one_go(tmp_path: Path) -> None:
    one_go, resumed = tmp_path / "one_go", tmp_path / "resumed"
    write_run(one_go, [0, 1, 2, 3])
    with DatasetWriter(resumed, meta=META, fmt=FMT) as w:
        w.write_part(1, **part_kwargs(1))
        w.write_part_async(0, **part_kwargs(0))
    assert read_manifest(resumed)["complete"] is False
    with DatasetWriter(resumed, meta=META, fmt=FMT, resume=True) as w:
        assert w.done_parts == {0, 1}
        with pytest.raises(ValueError, match="part 1 is already written"):
            w.write_part(1, **part_kwargs(1))
        for part in range(4):
            if part not in w.done_parts:
                w.write_part_async(part, **part_kwargs(part))
        w.finish()
    assert_same_run(one_go, resumed)


def test_resume_with_different_meta_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0])
    changed = json.loads(json.dumps(META))
    changed["rules"]["bag_penalty"] = 50
    with pytest.raises(ValueError, match=r"different 'rules\.bag_penalty' \(stored 100, now 50\)"):
        DatasetWriter(run, meta=changed, resume=True)
    with pytest.raises(ValueError, match=r"different 'extra'"):
        DatasetWriter(run, meta={**META, "extra": 1}, resume=True)
    params = json.loads(json.dumps(META))
    params["policies"]["ns"]["params"][1] = 0.25
    with pytest.raises(ValueError, match=r"policies\.ns\.params\[1\]"):
        DatasetWriter(run, meta=params, resume=True)
    assert read_manifest(run)["parts"].keys() == {"00000"}  # untouched


def test_resume_on_missing_or_empty_directory_starts_fresh(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for run in (tmp_path / "missing", empty):
        with DatasetWriter(run, meta=META, resume=True) as w:
            assert w.done_parts == set()
            w.write_part(0, make_hands(0))
            w.finish()
        assert read_manifest(run)["parts"].keys() == {"00000"}


def test_a_run_that_fails_before_its_first_part_leaves_nothing(tmp_path: Path) -> None:
    """A fresh run whose body fails before a part is recorded is undone, so the same
    command can be run again as it was; an interrupt, a recorded part, an overwrite or a
    resume keep the manifest (a resume continues them)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for run in (tmp_path / "missing", empty):
        with pytest.raises(RuntimeError, match="bad policy"), DatasetWriter(run, meta=META) as w:
            raise RuntimeError("bad policy")
        assert not run.exists() if run.name == "missing" else list(run.iterdir()) == []
        with DatasetWriter(run, meta=META) as w:  # no --resume needed
            w.write_part(0, make_hands(0))
            w.finish()
        assert read_manifest(run)["parts"].keys() == {"00000"}

    kept = tmp_path / "kept"
    with pytest.raises(KeyboardInterrupt), DatasetWriter(kept, meta=META):
        raise KeyboardInterrupt
    assert read_manifest(kept)["parts"] == {}
    part = tmp_path / "part"
    with pytest.raises(RuntimeError), DatasetWriter(part, meta=META) as w:
        w.write_part(0, make_hands(0))
        raise RuntimeError("later failure")
    assert read_manifest(part)["parts"].keys() == {"00000"}
    for flag in ("overwrite", "resume"):
        write_run(tmp_path / flag, [0])
        with pytest.raises(RuntimeError), DatasetWriter(tmp_path / flag, meta=META, **{flag: True}):
            raise RuntimeError("failure")
        assert (tmp_path / flag / "_manifest.json").exists()
    assert read_manifest(tmp_path / "resume")["parts"].keys() == {"00000"}


@pytest.mark.parametrize(
    ("option", "value"),
    [("writer_threads", 0), ("writer_threads", 1.5), ("max_pending", 0), ("max_pending", "2")],
)
def test_the_writer_refuses_a_bad_thread_or_queue_size(
    tmp_path: Path, option: str, value: Any
) -> None:
    # One line naming the option, before anything is opened: no run directory is left.
    run = tmp_path / "run"
    with pytest.raises(ValueError, match=f"^{option}: .* must be a whole number >= 1"):
        DatasetWriter(run, meta=META, fmt=FMT, **{option: value})
    assert not run.exists()


def test_background_write_error_surfaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(table: pa.Table, path: Path, **options: Any) -> None:
        path.write_bytes(b"half a file")
        raise OSError("No space left on device")

    monkeypatch.setattr(sio, "_write_parquet", disk_full)
    run = tmp_path / "run"
    writer = DatasetWriter(run, meta=META, fmt=FMT)
    future = writer.write_part_async(0, **part_kwargs(0))
    assert isinstance(future.exception(timeout=10), OSError)
    with pytest.raises(OSError, match="No space left"):
        writer.write_part_async(1, **part_kwargs(1))  # fails fast after a failure
    with pytest.raises(OSError, match="No space left") as info:
        writer.close()
    assert "while writing part 0" in "".join(getattr(info.value, "__notes__", []))
    files = sorted(p.name for p in run.rglob("*") if p.is_file())
    assert files == ["_manifest.json"]  # no temporary file, no part
    assert read_manifest(run)["parts"] == {}

    run2 = tmp_path / "run2"
    with (  # the context manager re-raises it too
        pytest.raises(OSError, match="No space left"),
        DatasetWriter(run2, meta=META, fmt=FMT) as w,
    ):
        w.write_part_async(0, **part_kwargs(0))


def test_background_writes_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = threading.Event(), threading.Event()
    real = sio._write_parquet

    def slow(table: pa.Table, path: Path, **options: Any) -> None:
        started.set()
        assert release.wait(10)
        real(table, path, **options)

    monkeypatch.setattr(sio, "_write_parquet", slow)
    run = tmp_path / "run"
    with DatasetWriter(run, meta=META, fmt=FMT, max_pending=1) as w:
        w.write_part_async(0, make_hands(0))  # taken by the writer thread
        assert started.wait(10)
        w.write_part_async(1, make_hands(1))  # queued: the one pending slot
        third = threading.Thread(target=w.write_part_async, args=(2, make_hands(2)))
        third.start()
        third.join(0.3)
        assert third.is_alive()  # back-pressure: the caller waits for a free slot
        release.set()
        third.join(10)
        assert not third.is_alive()
        w.finish()
    pd.testing.assert_frame_equal(load(run), expected_frame([0, 1, 2]))


def test_file_metadata_round_trips(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0, 3])
    info = file_metadata(run / "part-00003.parquet")
    assert info["format"] == "spades_sim-part" and info["table"] == "hands"
    assert info["meta"] == json.loads(json.dumps(META)) and info["part"] == 3
    assert info["part_meta"] == {"deal_start": 1500, "deal_stop": 2000}
    games = file_metadata(run / "_games" / "part-00003.parquet")
    assert games["table"] == "games" and games["part_meta"] == info["part_meta"]
    schema = pq.read_schema(run / "part-00000.parquet")
    assert schema.field("made").nullable and not schema.field("nil").nullable
    with pytest.raises(ValueError, match="not a spades_sim part"):
        pq.write_table(pa.table({"x": [1]}), tmp_path / "plain.parquet")
        file_metadata(tmp_path / "plain.parquet")


def test_simulated_crash_is_recovered_by_resume(tmp_path: Path) -> None:
    one_go, crashed = tmp_path / "one_go", tmp_path / "crashed"
    write_run(one_go, [0, 1, 2, 3])
    with DatasetWriter(crashed, meta=META, fmt=FMT) as w:
        for part in (0, 1, 2):
            w.write_part(part, **part_kwargs(part))
    # The crash: part 2's files were renamed but the manifest update never happened, part 3
    # was half written, and so was a manifest update.
    manifest = json.loads((crashed / "_manifest.json").read_text())
    del manifest["parts"]["00002"]
    (crashed / "_manifest.json").write_text(json.dumps(manifest))
    (crashed / ".part-00003.parquet.tmp").write_bytes(b"PAR1 truncated")
    (crashed / "_games" / ".part-00003.parquet.tmp").write_bytes(b"PAR1")
    (crashed / "._manifest.json.tmp").write_text('{"format": "spa')
    assert pads.dataset(crashed).count_rows() == 3 * 4 * HANDS_PER_PART  # tmp never read

    with DatasetWriter(crashed, meta=META, fmt=FMT, resume=True) as w:
        assert w.done_parts == {0, 1}
        leftovers = [p.name for p in crashed.rglob(".*")]
        assert leftovers == [], leftovers
        assert not (crashed / "part-00002.parquet").exists()  # unlisted: rewritten
        for part in (2, 3):
            w.write_part(part, **part_kwargs(part))
        w.finish()
    assert_same_run(one_go, crashed)


def test_resume_drops_parts_whose_files_are_missing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0, 1])
    (run / "_games" / "part-00001.parquet").unlink()
    with (
        pytest.warns(RunWarning, match=r"1 listed part\(s\) .*part-00001"),
        DatasetWriter(run, meta=META, fmt=FMT, resume=True) as w,
    ):
        assert w.done_parts == {0}
        assert not (run / "part-00001.parquet").exists()


# --- Damaged part files: page checksums, the manifest's checksum, named errors ----------


def _zero_middle(path: Path) -> None:
    """Zero the middle third of a file: its size and footer stay, its pages do not."""
    data = bytearray(path.read_bytes())
    third = len(data) // 3
    data[third : 2 * third] = bytes(third)
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_parts_carry_page_checksums_and_a_manifest_checksum(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_run(run, [0])
    entry = read_manifest(run)["parts"]["00000"]
    for prefix in ("", "games_"):
        file = run / entry[prefix + "file"]
        assert entry[prefix + "checksum"] == sio.open_store(run).checksum(entry[prefix + "file"])
        # the page checksums are in the file: pyarrow can verify every page of it
        pq.ParquetFile(file, page_checksum_verification=True).read()


@pytest.mark.parametrize("damage", [_zero_middle, _truncate], ids=["zeroed", "truncated"])
def test_a_damaged_part_is_named_by_every_reader(tmp_path: Path, damage: Any) -> None:
    from spades_sim.analysis.source import sources

    run = tmp_path / "run"
    write_run(run, [0, 1])
    damage(run / "part-00001.parquet")
    bad = f"{run / 'part-00001.parquet'}: corrupt part file"
    with pytest.raises(CorruptPart, match=f"^{bad}"):
        load(run)
    (source,) = sources(str(run))
    with pytest.raises(CorruptPart, match=f"^{bad}"):
        list(source.batches(sorted(source.hands_columns)))


@pytest.mark.parametrize("damage", [_zero_middle, _truncate], ids=["zeroed", "truncated"])
def test_resume_recomputes_a_damaged_part(tmp_path: Path, damage: Any) -> None:
    one_go, damaged = tmp_path / "one_go", tmp_path / "damaged"
    write_run(one_go, [0, 1, 2])
    write_run(damaged, [0, 1, 2])
    damage(damaged / "part-00001.parquet")
    with (
        pytest.warns(RunWarning, match="fail their checksum"),
        DatasetWriter(damaged, meta=META, fmt=FMT, resume=True) as w,
    ):
        assert w.done_parts == {0, 2}  # the damaged part is not kept...
        w.write_part(1, **part_kwargs(1))  # ... and is written again
        w.finish()
    assert_same_run(one_go, damaged)


def test_bad_input_is_refused_in_the_callers_thread(tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "run", meta=META, fmt=FMT) as w:
        hands = make_hands(0)
        with pytest.raises(ValueError, match="'bid' has 3 rows"):
            w.write_part_async(0, {**hands, "bid": np.zeros(3, np.int8)})
        with pytest.raises(ValueError, match="'made' is a nullable boolean"):
            w.write_part_async(0, {**hands, "made": np.zeros(len(hands["deal"]), np.float32)})
        with pytest.raises(ValueError, match="dtype object"):
            w.write_part(0, {"x": np.array(["a"], dtype=object)})
        with pytest.raises(ValueError, match="part_index must be in"):
            w.write_part(100_000, hands)
        with pytest.raises(ValueError, match="reserved"):
            w.write_part(0, hands, part_meta={"rows": 3})
        with pytest.raises(ValueError, match="holds 2"):
            w.write_part(0, {**hands, "made": np.full(len(hands["deal"]), 2, np.int8)})
    with pytest.raises(ValueError, match="JSON"):
        DatasetWriter(tmp_path / "run2", meta={"f": object()})


def test_structured_arrays_and_fixed_size_columns(tmp_path: Path) -> None:
    run = tmp_path / "run"
    hands = np.zeros(6, dtype=[("deal", "i8"), ("seat", "i1"), ("made", "i1")])
    hands["deal"] = np.arange(6)
    hands["made"] = [1, 0, -1, 1, 0, -1]
    plays: dict[str, np.ndarray] = {
        "deal": np.arange(2, dtype=np.int64),
        "cards": np.arange(104, dtype=np.int8).reshape(2, 52),
    }
    with DatasetWriter(run, meta=META, fmt=PartFormat(nullable_bool={"made"})) as w:
        entry = w.write_part(0, hands, plays=plays)
    assert entry["plays_rows"] == 2 and entry["plays_file"] == "_plays/part-00000.parquet"
    got = load(run)
    assert got["deal"].tolist() == list(range(6)) and got["made"].isna().sum() == 2
    cards = load(run, table="plays")["cards"]
    assert np.array_equal(np.stack(cards.to_list()), plays["cards"])
    assert pads.dataset(run).count_rows() == 6  # _plays is skipped like _games


CHILD = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from test_io import FMT, META, part_kwargs
from spades_sim.dataset import DatasetWriter
with DatasetWriter({out!r}, meta=META, fmt=FMT) as w:
    for part in range({n}):
        w.write_part_async(part, **part_kwargs(part))
    w.finish()
"""


def test_sigkill_part_way_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    n_parts = 60
    out, one_go = tmp_path / "killed", tmp_path / "one_go"
    code = CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"), out=str(out), n=n_parts)
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and child.poll() is None:
            try:
                if len(json.loads((out / "_manifest.json").read_text())["parts"]) >= 3:
                    break
            except (OSError, ValueError):
                pass  # not created yet (the manifest itself is always replaced whole)
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL, "the child finished before it was killed"

    manifest = read_manifest(out)
    listed = {int(k) for k in manifest["parts"]}
    assert 3 <= len(listed) < n_parts and manifest["complete"] is False
    for key, entry in manifest["parts"].items():  # every listed part is whole and right
        table = pq.read_table(out / entry["file"])
        assert table.num_rows == entry["rows"]
        assert np.array_equal(table["deal"].to_numpy(), make_hands(int(key))["deal"])
        assert pq.read_table(out / entry["games_file"]).num_rows == entry["games_rows"]
    on_disk = sorted(p.name for p in out.glob("part-*.parquet"))
    assert sorted(Path(f).name for f in pads.dataset(out).files) == on_disk  # no tmp as data

    with DatasetWriter(out, meta=META, fmt=FMT, resume=True) as w:
        assert w.done_parts == listed
        for part in range(n_parts):
            if part not in w.done_parts:
                w.write_part_async(part, **part_kwargs(part))
        w.finish()
    write_run(one_go, list(range(n_parts)))
    assert_same_run(one_go, out)


def test_encodings_and_statistics(tmp_path: Path) -> None:
    """Integers go delta-encoded (masks and ``plain_columns`` plain) or split, no
    dictionary; statistics only where asked; every reader decodes them."""
    runs = {}
    for encoding in ("DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"):
        run = runs[encoding] = tmp_path / encoding
        with DatasetWriter(
            run,
            meta=META,
            fmt=PartFormat(
                nullable_bool=NULLABLE,
                plain_columns={"seat"},
                write_statistics=["deal", "nope"],
                integer_encoding=encoding,
            ),
        ) as w:
            w.write_part(0, **part_kwargs(0))
        meta = pq.ParquetFile(run / "part-00000.parquet").metadata
        group = meta.row_group(0)
        columns = {meta.schema.column(i).name: group.column(i) for i in range(meta.num_columns)}
        for name in ("deal", "score_change"):
            assert encoding in columns[name].encodings, name
        for name in ("deal", "seat", "score_change", "hand"):
            assert not any("DICT" in e for e in columns[name].encodings), name
        others = {"DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"}
        assert "PLAIN" in columns["seat"].encodings and not others & {*columns["seat"].encodings}
        if encoding == "DELTA_BINARY_PACKED":  # random bit masks: deltas do not shrink them
            assert "PLAIN" in columns["hand"].encodings
            assert not others & set(columns["hand"].encodings)
        else:  # split, zstd codes each byte position on its own (the top ones are all 0)
            assert "BYTE_STREAM_SPLIT" in columns["hand"].encodings
        assert columns["deal"].is_stats_set and columns["deal"].statistics.min == 0
        assert not columns["bid"].is_stats_set
        want = expected_frame([0])
        con = duckdb.connect()  # another reader decodes them too
        got = con.execute(
            f"SELECT sum(deal), sum(hand::DOUBLE), sum(score_change), count(made) "
            f"FROM read_parquet('{run.as_posix()}/*.parquet')"
        ).fetchall()[0]
        assert got[0] == want.deal.sum() and got[2] == want.score_change.astype(int).sum()
        assert got[1] == pytest.approx(want.hand.astype(float).sum())
        assert got[3] == want.made.notna().sum()
        pd.testing.assert_frame_equal(load(run), want)

    plain = tmp_path / "plain"  # explicit dictionary settings still apply
    with DatasetWriter(plain, meta=META, fmt=replace(FMT, use_dictionary=True)) as w:
        w.write_part(0, **part_kwargs(0))
    meta = pq.ParquetFile(plain / "part-00000.parquet").metadata
    assert any("DICT" in e for e in meta.row_group(0).column(1).encodings)
    pd.testing.assert_frame_equal(load(plain), load(tmp_path / "DELTA_BINARY_PACKED"))
    with pytest.raises(ValueError, match="integer_encoding"):
        DatasetWriter(tmp_path / "bad", meta=META, fmt=PartFormat(integer_encoding="RLE"))


def test_nullable_booleans_are_packed_as_arrow_would() -> None:
    """The NumPy-packed bitmaps equal ``pa.array(..., mask=...)``, at every length."""
    from spades_sim.dataset.format import to_arrow

    rng = np.random.default_rng(7)
    for n in (0, 1, 7, 8, 9, 63, 1000, 4097):
        for nulls in (0.0, 0.3, 1.0):
            values = np.where(rng.random(n) < nulls, -1, rng.integers(0, 2, n)).astype(np.int8)
            got = to_arrow("t", {"made": values}, frozenset({"made"}), {}).column("made")
            want = pa.array(values == 1, mask=values < 0)
            assert got.combine_chunks().equals(want), (n, nulls)
            assert got.null_count == int((values < 0).sum())
            got.combine_chunks().validate(full=True)


def test_page_rows_and_plain_columns_are_validated_and_applied(tmp_path: Path) -> None:
    """``page_rows`` reaches pyarrow where it has the option, and small pages are real
    pages (the file grows by their headers); bad values are refused."""
    from spades_sim.dataset.format import _HAS_PAGE_ROWS, PAGE_ROWS

    schema = pa.schema([("seat", pa.int8()), ("deal", pa.int64())])
    options = PartFormat(plain_columns=["seat"]).write_options(schema)
    assert options["column_encoding"] == {"seat": "PLAIN", "deal": "DELTA_BINARY_PACKED"}
    assert options.get("max_rows_per_page") == (PAGE_ROWS if _HAS_PAGE_ROWS else None)
    assert "max_rows_per_page" not in PartFormat(page_rows=None).write_options(schema)
    sizes = {}
    for rows in (PAGE_ROWS, 50):
        run = tmp_path / f"pages{rows}"
        with DatasetWriter(run, meta=META, fmt=replace(FMT, page_rows=rows)) as w:
            w.write_part(0, **part_kwargs(0))
        sizes[rows] = (run / "part-00000.parquet").stat().st_size
        pd.testing.assert_frame_equal(load(run), expected_frame([0]))
    if _HAS_PAGE_ROWS:
        assert sizes[50] > sizes[PAGE_ROWS]
    for bad in (0, -3, True, 1.5):
        with pytest.raises(ValueError, match="page_rows"):
            PartFormat(page_rows=bad)  # type: ignore[arg-type]
    for names in ("seat", [1]):
        with pytest.raises(ValueError, match="plain_columns"):
            PartFormat(plain_columns=names)  # type: ignore[arg-type]
    assert PartFormat(plain_columns=(c for c in ["seat"])).plain_columns == {"seat"}
