"""The double-dummy columns of a run: its deals solved beside its rows, joined per seat.

Contract
--------
**Which hands.** The solver takes each deal's ``hand`` column: the cards every seat held
when play began, after any blind nil or nil exchange (two players: after the draw), with
the opening leader the rules give for those hands (the dealer's left, or the holder of
the two of clubs once the exchange is done) to lead, spades unbroken, first-trick rules
in force. That is the position the kernels' play started from, so the double-dummy
figures and the played ones describe the same cards.
(:func:`~spades_sim.run.dd_solve.dd_table` solves exactly that from a run directory or
a hands frame.)

**The columns** (:data:`~spades_sim.schema.DD_COLUMNS`), per seat-row: ``dd_side_tricks``,
the tricks of the seat's side from that position under double-dummy play, and
``dd_nil_safe``, whether a nil of that seat alone survives double-dummy defence (a
partner's nil is not assumed). :func:`seat_columns` joins them from the per-deal table on
``deal`` and the seat.

**A run directory** is solved as a second stage, after its rows: :func:`solve_run` solves
every deal of a finished hands run into ``RUN/_dd/part-NNNNN.parquet`` (``dd_table``'s
parts, ``part_size`` deals each, written under a temporary name and renamed) and records
the stage in the manifest under ``"dd"``: ``{"dir": "_dd", "part_size": 256, "deals": N,
"parts": P, "complete": false}`` before the first part, ``"complete": true`` once every
part is there. A call on a run solved in part solves only the parts missing, with the
stored part size; ``spades-sim simulate --dd`` (:func:`~spades_sim.run.run_dataset` with
``dd=True``), ``--dd --resume`` and ``spades-sim solve RUN`` all come here, so they give
the same parts. Overwriting the run deletes ``_dd/``; resuming it keeps it (the stored
meta is the new one, so the deals are the same). The solver is exact, so the columns do
not depend on the thread count, the part size or the transposition table's size.

**Reading.** :func:`dd_state` says whether a manifest records a solved run,
:func:`load_dd` reads its per-deal table; the join itself (:func:`seat_columns`, with
:func:`dd_state`, :func:`dd_parts` and the names) lives in :mod:`spades_sim.dataset.dd_stage`,
below the solver, and is re-exported here: :func:`spades_sim.dataset.load` gives the
columns with a solved run's rows, and :mod:`spades_sim.analysis.source` joins them onto
the rows of every batch, so an analysis reads them like any other column.
:func:`with_dd` adds them to a frame of :func:`~spades_sim.simulate_hands` (its deals
solved in memory). Aggregate mode counts inside kernels that never call the solver: it
has no double-dummy columns, and ``dd`` with ``aggregate`` is refused.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from spades_sim.dataset import read_manifest, record_stage
from spades_sim.dataset.dd_stage import (
    DD_DIR,
    DD_NAMES,
    dd_parts,
    dd_state,
    missing_dd,
    seat_columns,
)
from spades_sim.dataset.layout import part_name
from spades_sim.dataset.store import open_store
from spades_sim.errors import SpadesError
from spades_sim.rules import Rules
from spades_sim.run.chunks import run_chunk
from spades_sim.run.dd_solve import DEFAULT_PART_SIZE, dd_table, partial_name
from spades_sim.solve.position import HandRecord

__all__ = [
    "DD_DIR",
    "DD_NAMES",
    "DdSolve",
    "dd_parts",
    "dd_state",
    "load_dd",
    "missing_dd",
    "record_of",
    "seat_columns",
    "solve_run",
    "with_dd",
]


def with_dd(frame: pd.DataFrame, rules: Rules, *, progress: bool = False) -> pd.DataFrame:
    """``frame`` (a hands frame of :func:`~spades_sim.simulate_hands`) with the
    double-dummy columns added, its deals solved in memory (the run meta kept)."""
    table = dd_table(frame, rules=rules, progress=progress)
    players = rules.players
    got = seat_columns(table, frame["deal"].to_numpy(), frame["seat"].to_numpy(), players)
    out = frame.assign(**got)
    out.attrs = dict(frame.attrs)
    return out


def load_dd(run: str | os.PathLike[str]) -> pd.DataFrame:
    """The per-deal double-dummy table of a solved run directory (the columns of
    :func:`~spades_sim.run.dd_solve.dd_table`); ``SpadesError`` (saying how to solve it)
    if the run was never solved, or only in part."""
    manifest = read_manifest(run)
    store = open_store(run)
    if dd_state(manifest) != "solved":
        raise SpadesError(missing_dd(store.describe()))
    frames = [store.read_part(rel).to_pandas() for rel in dd_parts(manifest)]
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class DdSolve:
    """What :func:`solve_run` did: the deals of the run, those this call solved (the
    rest were read back from parts already there) and its wall time."""

    deals: int
    solved: int
    seconds: float
    table: pd.DataFrame

    @property
    def seconds_per_deal(self) -> float:
        """Wall time per deal this call solved (NaN when it solved none)."""
        return self.seconds / self.solved if self.solved else float("nan")


def _check_solvable(manifest: Mapping[str, Any], where: str) -> int:
    """The deals of a run the solver can take, or one ``SpadesError`` saying why not."""
    meta = manifest.get("meta") or {}
    if "aggregate" in meta:
        raise SpadesError(
            f"{where} is an aggregate run: it holds counts, not deals, so there is nothing "
            "to solve (aggregate mode never calls the solver; make a run of rows with --dd)"
        )
    if meta.get("mode") != "hands":
        raise SpadesError(f"{where} is a games run: double-dummy columns are for runs of hands")
    if manifest.get("complete") is not True:
        raise SpadesError(
            f"{where} is unfinished: resume it (spades-sim simulate ... --resume) before solving"
        )
    total = meta.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        raise SpadesError(f"{where}: its manifest does not say how many deals the run holds")
    return total


def solve_run(
    run: str | os.PathLike[str],
    *,
    part_size: int = DEFAULT_PART_SIZE,
    progress: bool = False,
    fsync: bool = True,
) -> DdSolve:
    """Solve every deal of the finished hands run ``run`` into ``run/_dd/`` and record it
    in the manifest (module docstring); parts already there are read back, not solved
    again, and a run solved before keeps its stored ``part_size``. Raises
    ``SpadesError`` (one line) for a run that is not a finished local run of hands."""
    started = time.perf_counter()
    store = open_store(run)
    where = store.describe()
    if store.local_path is None:
        raise SpadesError(
            f"{where}: double-dummy parts are written beside the rows on a local filesystem; "
            "copy the run here to solve it"
        )
    manifest = read_manifest(run)
    deals = _check_solvable(manifest, where)
    record = manifest.get("dd")
    if isinstance(record, Mapping) and isinstance(record.get("part_size"), int):
        part_size = int(record["part_size"])  # the parts there were cut this way
    elif isinstance(part_size, bool) or not isinstance(part_size, int) or part_size < 1:
        raise SpadesError(f"part_size: must be a positive int, got {part_size!r}")
    out = Path(store.local_path) / DD_DIR
    parts = -(-deals // part_size)
    there = {k for k in range(parts) if (out / part_name(k)).exists()} if out.is_dir() else set()
    if dd_state(manifest) is None:
        there = set()  # parts no manifest records are strays of another run: solved again
        if out.is_dir():
            for k in range(parts):
                (out / part_name(k)).unlink(missing_ok=True)
                partial_name(out / part_name(k)).unlink(missing_ok=True)
    solved = sum(min(part_size, deals - k * part_size) for k in range(parts) if k not in there)
    # the deals an interrupted call kept in a part's partial file are not solved again
    solved -= sum(
        pq.read_metadata(partial_name(out / part_name(k))).num_rows
        for k in range(parts)
        if k not in there and partial_name(out / part_name(k)).exists()
    )
    entry = {"dir": DD_DIR, "part_size": part_size, "deals": deals, "parts": parts}
    if dd_state(manifest) != "solved":
        record_stage(run, "dd", {**entry, "complete": False}, fsync)
    table = dd_table(run, out=out, part_size=part_size, progress=progress)
    if dd_state(manifest) != "solved":
        record_stage(run, "dd", {**entry, "complete": True}, fsync)
    return DdSolve(deals, solved, time.perf_counter() - started, table)


def record_of(spec: Any, index: int) -> tuple[HandRecord, tuple[int, ...]]:
    """Deal ``index`` of ``spec`` (a hands-mode ``RunSpec``) as played, and its nil seats."""
    spec = dataclasses.replace(spec, record_play=True)
    chunk = run_chunk(spec, 0, index, 1)
    assert chunk.plays is not None
    players = spec.rules.players
    hands = [int(v) for v in chunk.hands["hand"][:players]]
    dealer = int(chunk.hands["dealer"][0])
    nils = tuple(s for s in range(players) if int(chunk.hands["nil"][s]))
    plays = [int(v) for v in chunk.plays["plays"][0]]
    return HandRecord(tuple(hands), dealer, tuple(plays), spec.rules), nils
