"""Aggregate runs on disk: the count tables of a run, one small Parquet part per chunk.

Contract
--------
:func:`run_aggregate` (reached as ``run_dataset(..., aggregate=...)`` and ``spades-sim
simulate --aggregate``) plays a run as :func:`~spades_sim.run.run_dataset` does, part by
part, with the same atomic part files, manifest, resume and interrupt handling
(:class:`~spades_sim.run.RunCall`, :class:`~spades_sim.dataset.DatasetWriter`), but each part
is the long table of its chunk's counts (:meth:`~spades_sim.aggregate.Aggregate.columns`,
a few hundred rows whatever the chunk size) instead of its rows. The manifest's meta
holds ``aggregate: {"by": [...]}`` besides the usual meta, so a resume with other keys is
refused like one with another seed. A resumed run's parts and an uninterrupted run's
hold the same counts, and their sum does not depend on the chunk size. The
:class:`~spades_sim.run.RunSummary` is tallied from the counts (``rows``: the per-seat
rows counted).

:func:`load_aggregate` reads an aggregate run back as one
:class:`~spades_sim.aggregate.Aggregate` (the parts the manifest lists, summed); every
analysis takes the directory itself. ``pandas.read_parquet(DIR)`` reads the long table.

>>> import tempfile
>>> from spades_sim.simulate import RunSpec
>>> spec = RunSpec.build(seed=1, play="random")
>>> with tempfile.TemporaryDirectory() as tmp:
...     summary = run_aggregate(spec, 300, tmp + "/agg", by="seat", chunk_size=100)
...     agg = load_aggregate(tmp + "/agg")
>>> summary.parts, summary.hands, agg.hands, agg.by
(3, 300, 300, ('seat',))
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import pyarrow.parquet as pq

from spades_sim.aggregate import aggregate_chunk, default_aggregate_chunk, layout, to_aggregate
from spades_sim.aggregate_table import Aggregate
from spades_sim.dataset import read_manifest
from spades_sim.kernels import watch_compiles
from spades_sim.run import (
    Progress,
    RunCall,
    RunSummary,
    Tally,
    _stored_chunk_size,
    interrupt_signal,
    sigterm_interrupts,
)
from spades_sim.simulate import RunSpec, numba_threads

__all__ = ["load_aggregate", "run_aggregate", "tally"]


def tally(agg: Aggregate, players: int) -> Tally:
    """The run summary's counts from an aggregate (as ``Tally.of_chunk`` from rows).

    A side's figures repeat on each of its seats' rows: ``players // 2`` rows per side.
    """
    seats, sides = agg.seats, agg.sides
    per_side = players // 2
    count = sides["count"].to_numpy()
    contract = sides["contract"].to_numpy()
    made = contract & (sides["difference"].to_numpy() >= 0)
    out = Tally(
        hands=int(count.sum()) // 2,
        rows=int(seats["count"].sum()),
        bids=int(seats["count"].sum()),
        nil_bids=int(seats["count"][seats["nil_kind"] > 0].sum()),
        nil_made=int(seats["nils_made"].sum()),
        contracts=int(count[contract].sum()) * per_side,
        made=int(count[made].sum()) * per_side,
        bags=int(sides["bags"].sum()) * per_side,
    )
    if agg.games is not None:
        games = agg.games
        side = games["side"].to_numpy()
        outcome = games["outcome"].to_numpy()
        n = games["count"].to_numpy()
        out.games = int(n.sum()) // 2
        out.wins_ns = int(n[(side == 0) & (outcome == "won")].sum())
        out.wins_ew = int(n[(side == 1) & (outcome == "won")].sum())
        out.unfinished = int(n[(side == 0) & (outcome == "unfinished")].sum())
    return out


def run_aggregate(
    spec: RunSpec,
    total: int,
    out: str | os.PathLike[str],
    *,
    by: str | Sequence[str] | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | Callable[[Progress], None] = False,
    fsync: bool = True,
) -> RunSummary:
    """Count ``total`` hands (or games) of ``spec`` by ``by`` into the run directory ``out``.

    Arguments as :func:`~spades_sim.run.run_dataset`; ``chunk_size`` defaults to about
    four million hands per part (:func:`~spades_sim.aggregate.default_aggregate_chunk`).
    Raises :class:`~spades_sim.aggregate.AggregateKeyError` (a ``ValueError``) for a bad
    ``by``, before anything is written.
    """
    lay = layout(by, spec.rules, spec.mode)
    if resume and chunk_size is None:
        chunk_size = _stored_chunk_size(out)
    size = default_aggregate_chunk(spec) if chunk_size is None else chunk_size
    with numba_threads(threads), watch_compiles() as compiles:  # threads checked first
        call = RunCall(
            spec,
            total,
            out,
            chunk_size=size,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            extra_meta={"aggregate": {"by": list(lay.by)}},
            max_pending=1,
            fsync=fsync,
        )
        writer = call.writer
        item = "game" if spec.mode == "games" else "deal"
        interrupted: int | None = None
        try:
            with sigterm_interrupts(), writer:
                call.report()
                try:
                    for index, start, count in call.todo:
                        agg = to_aggregate(spec, lay, aggregate_chunk(spec, lay, start, count))
                        counts = tally(agg, spec.rules.players)
                        part_meta = {
                            f"{item}_start": start,
                            f"{item}_stop": start + count,
                            "stats": asdict(counts),
                        }
                        writer.write_part_async(index, agg.columns(), part_meta=part_meta)
                        call.part_done(count, counts)
                except KeyboardInterrupt as exc:
                    interrupted = interrupt_signal(exc)
                if interrupted is None:
                    writer.finish()
        finally:
            call.close_bar()
    return call.result(interrupted, compiles)


def is_aggregate_run(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a run directory written in aggregate mode."""
    try:
        return "aggregate" in (read_manifest(path).get("meta") or {})
    except (OSError, ValueError):
        return False


def load_aggregate(path: str | os.PathLike[str]) -> Aggregate:
    """The counts of the aggregate run at ``path``: its listed parts, summed.

    Raises ``ValueError`` if ``path`` is a run of rows or has no complete part yet.
    """
    root = Path(path)
    manifest = read_manifest(root)
    meta = manifest.get("meta") or {}
    if "aggregate" not in meta:
        raise ValueError(f"{root}: a run of rows, not an aggregate run")
    entries = [manifest["parts"][k] for k in sorted(manifest.get("parts", {}))]
    if not entries:
        raise ValueError(f"{root}: the run has no complete part yet")
    by = [str(k) for k in meta["aggregate"].get("by", [])]
    mode = str(meta.get("mode", "hands"))
    total: Aggregate | None = None
    for entry in entries:  # part by part: memory is two parts' tables, not the run's
        file = root / entry["file"]
        if not file.is_file():
            raise FileNotFoundError(f"{file}: listed in the manifest but missing")
        part = Aggregate.from_table(pq.read_table(file).to_pandas(), by, mode, meta)
        total = part if total is None else total + part
    assert total is not None
    return total
