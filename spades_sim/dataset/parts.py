"""One part's files: validated, written under temporary names, renamed into place.

Contract
--------
:func:`write_part_files` writes one part's tables (hands, and games and plays when
given) to temporary dot-names in the run directory, closes and (with ``fsync``) flushes
them, then renames them into place, hands last: a hands file in place means the part's
other tables are. It returns the part's manifest entry (``rows``, ``games_rows``, the
part meta, ``file``, ``games_file``, ..., and each file's ``checksum``) and never
touches the manifest: the process that owns the run's
:class:`~spades_sim.dataset.writer.DatasetWriter` records it
(:meth:`~spades_sim.dataset.writer.DatasetWriter.record_part`). This is how Dask workers
write parts while the client alone keeps the manifest (:mod:`spades_sim.run.cluster`),
and what the writer itself calls. A part written twice (a retried task) is written the
same way twice: each attempt has its own temporary name, and the rename replaces a file
with an identical one. A failure removes the attempt's temporary files."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from spades_sim.dataset.format import DEFAULT_FORMAT, PartFormat, check_columns, to_arrow
from spades_sim.dataset.layout import (
    FORMAT_VERSION,
    MAX_PART,
    METADATA_KEY,
    PART_FORMAT,
    RESERVED_PART_KEYS,
    Columns,
    in_table,
    json_normal,
    part_name,
    table_rel,
    tmp_name,
)
from spades_sim.dataset.store import Store, open_store

__all__ = ["check_index", "check_part", "write_files", "write_part_files"]


def check_index(part_index: int) -> int:
    """``part_index`` as an int in ``0 .. MAX_PART``; ValueError if it is not one."""
    if isinstance(part_index, bool) or not isinstance(part_index, (int, np.integer)):
        raise ValueError(f"part_index must be an int, got {part_index!r}")
    index = int(part_index)
    if not 0 <= index <= MAX_PART:
        raise ValueError(f"part_index must be in 0..{MAX_PART}, got {index}")
    return index


def check_part(
    part_index: int,
    hands: Columns | npt.NDArray[Any],
    games: Columns | npt.NDArray[Any] | None,
    plays: Columns | npt.NDArray[Any] | None,
    part_meta: Mapping[str, Any] | None,
    nullable_bool: frozenset[str],
) -> tuple[int, dict[str, dict[str, npt.NDArray[Any]]], dict[str, Any]]:
    """Validate one part: its index, tables (contiguous columns) and JSON part meta."""
    index = check_index(part_index)
    extra = json_normal(dict(part_meta or {}), "part_meta")
    clash = sorted(RESERVED_PART_KEYS & extra.keys())
    if clash:
        raise ValueError(f"part_meta key {clash[0]!r} is reserved for the manifest")
    tables = {"hands": check_columns("hands", hands, nullable_bool)}
    if games is not None:
        tables["games"] = check_columns("games", games, nullable_bool)
    if plays is not None:
        tables["plays"] = check_columns("plays", plays, nullable_bool)
    return index, tables, extra


def write_files(
    store: Store,
    index: int,
    tables: Mapping[str, Mapping[str, npt.NDArray[Any]]],
    meta: Mapping[str, Any],
    part_meta: Mapping[str, Any],
    fmt: PartFormat,
    attempt: str = "",
) -> dict[str, Any]:
    """Write every table of a part, rename them into place; return the manifest entry."""
    rows: dict[str, Any] = {}
    files: dict[str, str] = {}
    checksums: dict[str, str] = {}
    renames: list[tuple[str, str]] = []
    try:
        # Renamed in this order: a hands file in place means the part's other tables are.
        for table in ("plays", "games", "hands"):
            cols = tables.get(table)
            if cols is None:
                continue
            folder = table_rel(table)
            if folder:
                store.makedirs(folder)
            tmp = in_table(folder, tmp_name(index, attempt))
            final = in_table(folder, part_name(index))
            renames.append((tmp, final))
            file_meta = {
                "format": PART_FORMAT,
                "format_version": FORMAT_VERSION,
                "table": table,
                "part": index,
                "meta": meta,
                "part_meta": part_meta,
            }
            arrow = to_arrow(table, cols, fmt.nullable_bool, {METADATA_KEY: json.dumps(file_meta)})
            store.write_parquet(arrow, tmp, **fmt.write_options(arrow.schema))
            if fmt.fsync:
                store.sync_file(tmp)
            prefix = "" if table == "hands" else f"{table}_"
            rows[prefix + "rows"] = arrow.num_rows
            files[prefix + "file"] = final
            # of the bytes as written (the rename keeps them): a resume compares the file
            # on disk with it
            checksums[prefix + "checksum"] = store.checksum(tmp)
        for tmp, final in renames:
            store.replace(tmp, final)
        if fmt.fsync:
            for folder in {final.rpartition("/")[0] for _, final in renames}:
                store.sync_dir(folder)
    except BaseException:
        for tmp, _ in renames:
            store.remove(tmp)
        raise
    return {
        **dict(reversed(rows.items())),
        **part_meta,
        **dict(reversed(files.items())),
        **dict(reversed(checksums.items())),
    }


def write_part_files(
    location: str | os.PathLike[str],
    part_index: int,
    hands: Columns | npt.NDArray[Any],
    games: Columns | npt.NDArray[Any] | None = None,
    plays: Columns | npt.NDArray[Any] | None = None,
    *,
    meta: Mapping[str, Any],
    part_meta: Mapping[str, Any] | None = None,
    fmt: PartFormat = DEFAULT_FORMAT,
    attempt: str = "",
) -> dict[str, Any]:
    """Write part ``part_index`` of the run at ``location``; leave the manifest alone.

    The files are written as ``DatasetWriter.write_part`` writes them (temporary name,
    then rename) and the part's manifest entry is returned, for the process that owns the
    run's ``DatasetWriter`` to pass to ``DatasetWriter.record_part``. ``meta`` is the run
    meta (``DatasetWriter.meta``), ``fmt`` the writer's ``DatasetWriter.format``. Writers
    of the same part that may run at the same time (a task retried while its first
    attempt still runs) pass distinct ``attempt`` labels (lowercase letters and digits)
    so their temporary files differ; either rename leaves the same complete file.

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import DatasetWriter, load, read_manifest
    >>> run = tempfile.mkdtemp()
    >>> w = DatasetWriter(run, meta={"seed": 3})
    >>> entry = write_part_files(run, 4, {"x": np.arange(3, dtype=np.int8)}, meta=w.meta)
    >>> entry  # doctest: +ELLIPSIS
    {'rows': 3, 'file': 'part-00004.parquet', 'checksum': 'crc32:...'}
    >>> w.record_part(4, entry)
    >>> read_manifest(run)["parts"]["00004"]["rows"], load(run)["x"].tolist()
    (3, [0, 1, 2])
    """
    if attempt and not re.fullmatch(r"[0-9a-z]+", attempt):
        raise ValueError(f"attempt must be lowercase letters and digits, got {attempt!r}")
    index, tables, extra = check_part(part_index, hands, games, plays, part_meta, fmt.nullable_bool)
    store = open_store(location)
    if store.kind() != "dir":
        raise FileNotFoundError(f"{store.describe()} is not a directory: open the run first")
    return write_files(store, index, tables, json_normal(dict(meta), "meta"), extra, fmt, attempt)
