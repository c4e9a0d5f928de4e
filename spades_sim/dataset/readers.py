"""Reading runs back: the manifest, the part files, pyarrow datasets and pandas frames.

Contract
--------
Every reader takes a run directory as a local path or a URI (:mod:`.store`) and reads
only complete part files (``part-NNNNN.parquet``), in part order; temporary files are
never data. The hands rows also read as they are with ``pandas.read_parquet(DIR)``,
``pyarrow.dataset.dataset(DIR)`` and DuckDB's ``read_parquet('DIR/*.parquet')``: readers
built on pyarrow skip names starting with ``.`` or ``_`` (files and directories), and
DuckDB's ``*.parquet`` glob matches neither the ``.tmp`` files nor anything in a
subdirectory. (DuckDB's ``read_parquet('DIR')`` and ``'DIR/**/*.parquet'`` do recurse into
``_games`` and ``_plays``: use ``'DIR/*.parquet'``.) :func:`load` gives integers their
numpy dtypes and nullable booleans pandas ``"boolean"``. The readers check the page
checksums the writer stores: a part file that cannot be read as written (bytes zeroed,
truncated) is one ``CorruptPart`` error (a ``ValueError``) naming the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from spades_sim.dataset.layout import (
    MANIFEST_NAME,
    METADATA_KEY,
    TABLE_DIRS,
    parse_manifest,
    table_rel,
)
from spades_sim.dataset.store import open_store, part_names

__all__ = ["file_metadata", "load", "load_games", "open_dataset", "part_files", "read_manifest"]


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the run directory ``path`` (or of the manifest file itself).

    >>> import tempfile
    >>> from spades_sim.dataset import DatasetWriter
    >>> run = tempfile.mkdtemp()
    >>> DatasetWriter(run, meta={"seed": 1}).finish()
    >>> m = read_manifest(run)
    >>> m["format"], m["meta"], m["parts"], m["complete"]
    ('spades_sim-run', {'seed': 1}, {}, True)
    """
    store = open_store(path)
    rel = MANIFEST_NAME if store.kind() == "dir" else ""
    if store.kind(rel) != "file":
        raise FileNotFoundError(
            f"{store.describe(rel)} not found: {store.describe()} is not a spades_sim run"
        )
    return parse_manifest(store.read_text(rel), store.describe(rel))


def part_files(path: str | os.PathLike[str], table: str = "hands") -> list[Path]:
    """The complete part files of one table of a run, in part order.

    A run on a remote filesystem (a URI other than ``file://``) has no local files:
    ``ValueError`` (read it with :func:`open_dataset` or :func:`load`).

    >>> part_files("/nonexistent-run")
    []
    """
    store = open_store(path)
    if store.local_path is None:
        raise ValueError(
            f"{store.describe()} is not on a local filesystem: read it with open_dataset or load"
        )
    return [store.local_path / rel for rel in part_names(store, table)]


def open_dataset(path: str | os.PathLike[str], table: str = "hands") -> pads.Dataset:
    """A ``pyarrow.dataset.Dataset`` over one table of a run, parts in order.

    For data larger than memory: scan it with column and filter pushdown, or query it
    from DuckDB. Raises ``FileNotFoundError`` when the run has no part of that table.

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import DatasetWriter
    >>> run = tempfile.mkdtemp()
    >>> DatasetWriter(run, meta={}).write_part(0, {"x": np.arange(3, dtype=np.int8)})["rows"]
    3
    >>> open_dataset(run).count_rows()
    3
    """
    store = open_store(path)
    if store.kind() != "dir":
        raise FileNotFoundError(f"{store.describe()} is not a directory")
    names = part_names(store, table)
    if not names:
        where = store.describe(table_rel(table))
        raise FileNotFoundError(f"{where} holds no {table} part files")
    return store.dataset(names)


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    """Arrow -> pandas with numpy dtypes, except nullable booleans -> pandas "boolean"."""
    nullable = [f.name for f in table.schema if pa.types.is_boolean(f.type) and f.nullable]
    frame = table.drop_columns(nullable).to_pandas()
    if frame.shape[1] == 0:
        frame = pd.DataFrame(index=pd.RangeIndex(table.num_rows))
    for name in nullable:
        col = table.column(name)
        values = pc.fill_null(col, False).to_numpy(zero_copy_only=False)
        mask = col.is_null().to_numpy(zero_copy_only=False)
        frame.insert(table.schema.get_field_index(name), name, pd.arrays.BooleanArray(values, mask))
    return frame


def load(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
    filters: pads.Expression | Sequence[Any] | None = None,
    table: str = "hands",
) -> pd.DataFrame:
    """Read one table of a run into pandas, rows in part order.

    ``columns`` selects columns; ``filters`` is a pyarrow expression or a list of
    ``(column, op, value)`` tuples (as ``pyarrow.parquet``), applied with row-group pruning
    from the files' statistics. Integers keep their numpy dtypes; nullable booleans become
    pandas ``"boolean"``. A run with no part yet gives an empty frame.

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import DatasetWriter
    >>> run = tempfile.mkdtemp()
    >>> with DatasetWriter(run, meta={}) as w:
    ...     _ = w.write_part(0, {"deal": np.arange(6, dtype=np.int64)})
    >>> load(run, filters=[("deal", ">=", 4)])["deal"].tolist()
    [4, 5]
    """
    store = open_store(path)
    root = store.describe()
    if store.kind() != "dir":
        raise FileNotFoundError(f"{root} is not a directory")
    if table != "hands" and store.kind(table_rel(table)) != "dir":
        raise FileNotFoundError(f"{root} has no {table} table ({TABLE_DIRS[table]}/)")
    if not part_names(store, table):
        return pd.DataFrame()
    expression = (
        pq.filters_to_expression(filters)
        if filters is not None and not isinstance(filters, pads.Expression)
        else filters
    )
    wanted = list(columns) if columns is not None else None
    try:
        data = open_dataset(path, table).to_table(columns=wanted, filter=expression)
    except (pa.ArrowException, OSError):
        # pyarrow's dataset errors do not always say which file: find it, and say so
        for rel in part_names(store, table):
            store.read_part(rel, wanted)
        raise
    return _to_pandas(data)


def load_games(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
    filters: pads.Expression | Sequence[Any] | None = None,
) -> pd.DataFrame:
    """Read the per-game table of a games-mode run (``load(path, table="games")``).

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import DatasetWriter
    >>> run = tempfile.mkdtemp()
    >>> games = {"game": np.arange(2, dtype=np.int64), "winner": np.array([0, 1], "i1")}
    >>> hands = {"game": np.zeros(8, dtype=np.int64)}
    >>> DatasetWriter(run, meta={}).write_part(0, hands, games=games)["games_rows"]
    2
    >>> load_games(run, columns=["winner"])["winner"].tolist()
    [0, 1]
    """
    return load(path, columns=columns, filters=filters, table="games")


def file_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The decoded ``spades_sim`` metadata of one part file.

    Keys: ``format``, ``format_version``, ``table``, ``part``, ``meta`` (the run meta) and
    ``part_meta`` (e.g. the deal range).

    >>> import tempfile, numpy as np
    >>> from spades_sim.dataset import DatasetWriter
    >>> run = tempfile.mkdtemp()
    >>> w = DatasetWriter(run, meta={"seed": 5})
    >>> _ = w.write_part(2, {"x": np.zeros(1, "i1")}, part_meta={"deal_start": 8})
    >>> info = file_metadata(run + "/part-00002.parquet")
    >>> info["meta"], info["part"], info["part_meta"]
    ({'seed': 5}, 2, {'deal_start': 8})
    """
    kv = open_store(path).parquet_metadata("").metadata or {}
    raw = kv.get(METADATA_KEY.encode())
    if raw is None:
        raise ValueError(f"{path} carries no {METADATA_KEY!r} metadata: not a spades_sim part")
    decoded: dict[str, Any] = json.loads(raw)
    return decoded
