"""Double-dummy results of many deals on all cores, kept as Parquet parts: :func:`dd_table`.

Contract
--------
``dd_table(deals, ...)`` takes the deals as an array of hand masks (``deals x players``,
with ``dealers``), a per-seat frame with ``deal``, ``seat``, ``hand`` and ``dealer``
columns (the hands table of a run), or a run directory (its hands table and its rules),
and gives one row per deal: ``deal``, ``dealer``, ``leader`` (the opening leader), each
side's tricks from the opening position under double-dummy play (``tricks_ns``,
``tricks_ew``; two players ``tricks_p0``, ``tricks_p1``) and, for every seat, whether a
nil of that seat alone is safe (``nil_N`` ... or ``nil_P0``, ``nil_P1``).

The deals are cut into parts of ``part_size``; the deals of a part are shared out on
the thread pool one at a time (``spades_sim.solve.batch.solve_deals``), each thread with its
own fixed-size transposition table (allocated once per call, ``2**table_bits`` slots).
With ``out``, each part is written as ``out/part-NNNNN.parquet`` (under a temporary name,
then renamed), recording in its Parquet metadata (``SOURCE_KEY``) a digest of the deals it
was solved from and of the rules, and the run's path; a part already there is read back
instead of solved, and a part of other deals, other rules or another run is refused in
one line. Ctrl-C stops the deals in flight within a second (the kernels poll an abort
flag): the deals of the current part solved so far are written to
``part-NNNNN.partial.parquet``, and the next call solves only the rest of that part, so
an interrupted call loses at most the deals in flight (:func:`stored_deals` counts what a
directory holds solved). A run directory is
solved only once its rows are complete (an unfinished run is refused: resume it first).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

from spades_sim.dataset import load, read_manifest
from spades_sim.dataset.dd_stage import table_columns
from spades_sim.errors import SpadesError
from spades_sim.rules import Rules
from spades_sim.run.spec import spec_from_meta
from spades_sim.solve.batch import check_deals, new_tables, opening_leaders, solve_deals
from spades_sim.solve.solver import DEFAULT_TABLE_BITS, MAX_TABLE_BITS, play_rules
from spades_sim.threads import current_threads

__all__ = [
    "SOURCE_KEY",
    "dd_table",
    "partial_name",
    "stored_deals",
    "table_columns",
]

DEFAULT_PART_SIZE = 256
"""Deals a part holds (a few seconds of work on two cores)."""


def _from_frame(frame: pd.DataFrame, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    missing = [c for c in ("deal", "seat", "hand", "dealer") if c not in frame.columns]
    if missing:
        raise SpadesError(f"deals: the frame lacks column(s) {', '.join(missing)}")
    rows = frame.sort_values(["deal", "seat"])
    ids = rows["deal"].to_numpy()
    deal_ids = ids[::players]
    if len(rows) % players or not np.all(ids.reshape(-1, players) == deal_ids[:, None]):
        raise SpadesError(f"deals: every deal needs one row per seat ({players} players)")
    hands = rows["hand"].to_numpy(dtype=np.uint64).reshape(-1, players)
    dealers = rows["dealer"].to_numpy(dtype=np.int64)[::players]
    return hands, dealers, deal_ids.astype(np.int64)


SOURCE_KEY = b"spades_sim.dd_source"
"""The Parquet metadata key of a part's provenance: what it was solved from."""


def _source(
    rules: Rules, hands: np.ndarray, dealers: np.ndarray, ids: np.ndarray, run: str | None
) -> dict[str, Any]:
    """What a part was solved from: a digest of its deals (ids, dealers, hands) and of the
    rules, so a part of another run, other rules or another cut is told from this one's,
    and the run's path for the message that refuses it."""
    digest = hashlib.sha256()
    digest.update(json.dumps(rules.to_dict(), sort_keys=True).encode())
    for array in (ids.astype(np.int64), dealers.astype(np.int64), hands.astype(np.uint64)):
        digest.update(np.ascontiguousarray(array).tobytes())
    return {"digest": digest.hexdigest(), "run": run}


def _read_part(path: Path, source: dict[str, Any], columns: list[str]) -> pd.DataFrame:
    """A part (or a part's partial file) written by an earlier call, if it was solved from
    the same deals under the same rules (``source``); a part of anything else is refused
    in one line."""
    table = pq.read_table(path)
    stored = (table.schema.metadata or {}).get(SOURCE_KEY)
    frame = table.to_pandas()
    if list(frame.columns) != columns:
        raise SpadesError(f"{path} is not a part of a double-dummy table: remove it")
    if stored is None:
        # written before parts recorded their source: its deal ids are all there is
        return frame
    theirs = json.loads(stored)
    if theirs.get("digest") != source["digest"]:
        origin = f" (of {theirs['run']})" if theirs.get("run") else ""
        raise SpadesError(
            f"{path} holds the table of other deals or other rules{origin}: give another "
            "out directory, or remove it"
        )
    return frame


def _write(path: Path, frame: pd.DataFrame, source: dict[str, Any]) -> None:
    """``frame`` as one Parquet file recording its ``source``, written whole or not at all
    (a temporary name, then a rename)."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = {**(table.schema.metadata or {}), SOURCE_KEY: json.dumps(source).encode()}
    temporary = path.with_name(f".{path.name}.tmp")
    pq.write_table(table.replace_schema_metadata(metadata), temporary)
    os.replace(temporary, path)


_OURS = re.compile(r"\.?part-\d{5}(\.partial)?\.parquet(\.tmp)?")


def _table_dir(out: str | os.PathLike[str] | None) -> Path | None:
    """The directory for the table's parts, made if need be: a new or empty directory,
    or one holding only parts of a table (an earlier call's, checked part by part); one
    with anything else in it is refused, so no file of the user's is mixed in or read."""
    if out is None:
        return None
    if not str(out).strip():
        raise SpadesError("out: the path is empty; name the directory for the table")
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise SpadesError(f"out: {out_dir} is a file, not a directory")
    if out_dir.is_dir():
        others = sorted(p.name for p in out_dir.iterdir() if not _OURS.fullmatch(p.name))
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            raise SpadesError(
                f"out: {out_dir} holds files that are not parts of a double-dummy table "
                f"({shown}): give a new or empty directory"
            )
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


_STORED = re.compile(r"part-\d{5}(\.partial)?\.parquet")


def stored_deals(out: str | os.PathLike[str]) -> int:
    """The deals the table directory ``out`` holds solved: the rows of its parts, and of
    the partial files of parts not yet written (0 when there is no such directory). What
    a call into ``out`` will read back instead of solving, if they are its deals."""
    out_dir = Path(out)
    if not out_dir.is_dir():
        return 0
    names = {p.name for p in out_dir.iterdir() if _STORED.fullmatch(p.name)}
    # a partial file beside its written part (a stop between the two) is not read again
    partial = {n for n in names if n.endswith(".partial.parquet")}
    kept = (names - partial) | {n for n in partial if n.replace(".partial", "") not in names}
    return sum(pq.read_metadata(out_dir / n).num_rows for n in kept)


def partial_name(part: Path) -> Path:
    """Where the deals of ``part`` solved before an interrupt wait for the resume."""
    return part.with_name(f"{part.stem}.partial{part.suffix}")


def _part_frame(
    columns: list[str],
    ids: np.ndarray,
    dealers: np.ndarray,
    leaders: np.ndarray,
    tricks: np.ndarray,
    nil: np.ndarray,
    rows: np.ndarray,
) -> pd.DataFrame:
    """The rows ``rows`` of one part (each array the part's own) as the table's frame."""
    got = {
        "deal": ids[rows],
        "dealer": dealers[rows].astype(np.int8),
        "leader": leaders[rows].astype(np.int8),
        columns[3]: tricks[rows, 0].astype(np.int8),
        columns[4]: tricks[rows, 1].astype(np.int8),
    }
    for s, name in enumerate(columns[5:]):
        got[name] = nil[rows, s].astype(bool)
    return pd.DataFrame(got, columns=columns)


def dd_table(
    deals: Any,
    dealers: Sequence[int] | np.ndarray | None = None,
    *,
    rules: Rules | None = None,
    out: str | os.PathLike[str] | None = None,
    part_size: int = DEFAULT_PART_SIZE,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: bool = False,
) -> pd.DataFrame:
    """Each deal's double-dummy tricks per side from the opening lead and the nil verdict
    of every seat, one row per deal (module docstring)."""
    deal_ids: np.ndarray | None = None
    run: str | None = None
    if isinstance(deals, (str, os.PathLike)):
        manifest = read_manifest(deals)
        spec = spec_from_meta(manifest["meta"])
        if rules is not None and rules != spec.rules:
            raise SpadesError("rules: a run's rules come from its manifest; give none")
        if spec.mode != "hands":
            raise SpadesError(f"{deals} is a games run: dd_table solves runs of hands")
        if manifest.get("complete") is not True:
            raise SpadesError(
                f"{deals} is unfinished: resume it (spades-sim simulate ... --resume) "
                "before solving"
            )
        rules = spec.rules
        run = str(deals)
        deals = load(deals, columns=["deal", "seat", "hand", "dealer"])
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise SpadesError(f"rules: expected a Rules, got {type(rules).__name__}")
    players = rules.players
    if isinstance(deals, pd.DataFrame):
        if dealers is not None:
            raise SpadesError("dealers: a frame of deals holds its own dealer column")
        hands, dealer_arr, deal_ids = _from_frame(deals, players)
    else:
        hands = np.asarray(deals, dtype=np.uint64)
        if hands.ndim != 2 or hands.shape[1] != players:
            raise SpadesError(f"deals: expected an array of deals x {players} hand masks")
        if dealers is None:
            raise SpadesError("dealers: give the dealer of each deal")
        dealer_arr = np.asarray(dealers, dtype=np.int64)
        if dealer_arr.shape != (hands.shape[0],) or np.any(
            (dealer_arr < 0) | (dealer_arr >= players)
        ):
            raise SpadesError(f"dealers: expected one seat 0..{players - 1} per deal")
    check_deals(hands, rules)
    if isinstance(part_size, bool) or not isinstance(part_size, int) or part_size < 1:
        raise SpadesError(f"part_size: must be a positive int, got {part_size!r}")
    if (
        isinstance(table_bits, bool)
        or not isinstance(table_bits, int)
        or not (10 <= table_bits <= MAX_TABLE_BITS)
    ):
        raise SpadesError(f"table_bits: must be 10..{MAX_TABLE_BITS}, got {table_bits!r}")
    n = hands.shape[0]
    ids = np.arange(n, dtype=np.int64) if deal_ids is None else deal_ids
    leaders = opening_leaders(hands, dealer_arr, rules)
    full = np.zeros((n, 4), dtype=np.uint64)
    full[:, :players] = hands
    out_dir = _table_dir(out)
    threads = max(1, current_threads())
    tables: tuple[np.ndarray, np.ndarray] | None = None
    rule_bits = play_rules(rules)
    columns = table_columns(players)
    frames = []
    bar = tqdm(total=n, unit="deal", desc="solving") if progress else None
    try:
        for k, start in enumerate(range(0, n, part_size)):
            end = min(n, start + part_size)
            part = slice(start, end)
            source = _source(rules, full[part], dealer_arr[part], ids[part], run)
            path = out_dir / f"part-{k:05d}.parquet" if out_dir is not None else None
            if path is not None and path.exists():
                frame = _read_part(path, source, columns)
                if not np.array_equal(frame["deal"].to_numpy(), ids[part]):
                    raise SpadesError(
                        f"{path} holds other deals than this call's part {path.stem}: it was "
                        "written for other deals or another part_size; give another out, or "
                        "remove it"
                    )
                frames.append(frame)
                if bar is not None:
                    bar.update(end - start)
                continue
            tricks = np.zeros((end - start, 2), dtype=np.int64)
            nil = np.zeros((end - start, 4), dtype=np.int64)
            done = np.zeros(end - start, dtype=bool)
            partial = partial_name(path) if path is not None else None
            if partial is not None and partial.exists():
                kept = _read_part(partial, source, columns)
                at = np.searchsorted(ids[part], kept["deal"].to_numpy())
                tricks[at, 0] = kept[columns[3]].to_numpy()
                tricks[at, 1] = kept[columns[4]].to_numpy()
                for s in range(players):
                    nil[at, s] = kept[columns[5 + s]].to_numpy()
                done[at] = True
                if bar is not None:
                    bar.update(int(done.sum()))
            if tables is None:
                tables = new_tables(threads, table_bits)

            pieces = (columns, ids[part], dealer_arr[part], leaders[part], tricks, nil)
            try:
                solve_deals(
                    np.flatnonzero(~done), full[part], leaders[part], players, rule_bits,
                    tables, tricks, nil, done, bar,
                )  # fmt: skip
            except KeyboardInterrupt:
                if partial is not None and done.any():
                    _write(partial, _part_frame(*pieces, np.flatnonzero(done)), source)
                raise
            frame = _part_frame(*pieces, np.arange(end - start))
            if path is not None:
                _write(path, frame, source)
                if partial is not None:
                    partial.unlink(missing_ok=True)
            frames.append(frame)
    finally:
        if bar is not None:
            bar.close()
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in columns})
    return pd.concat(frames, ignore_index=True)
