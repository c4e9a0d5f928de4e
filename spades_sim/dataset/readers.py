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
numpy dtypes and nullable booleans pandas ``"boolean"``. Of a run solved double-dummy
(its manifest records the ``dd`` stage complete), :func:`load` of the hands table also
gives ``dd_side_tricks`` and ``dd_nil_safe``, joined from ``_dd/`` on ``deal`` and
``seat`` (:mod:`.dd`), after the stored columns, and takes them in ``columns``; asking
a run not solved for them (or filtering on them) is one ``SpadesError`` saying how to
solve it; a column asked for or filtered on that the table does not have is one
``SpadesError`` naming it. Readers of the
Parquet files themselves see only the stored columns (``_dd/`` starts with ``_``): the
join they need is on the schema page (``docs/schema.md``). The readers check the page
checksums the writer stores: a part file that cannot be read as written (bytes zeroed,
truncated) is one ``CorruptPart`` error (a ``ValueError``) naming the file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from spades_sim.dataset.dd_stage import DD_NAMES, dd_parts, dd_state, missing_dd, seat_columns
from spades_sim.dataset.layout import (
    MANIFEST_NAME,
    METADATA_KEY,
    TABLE_DIRS,
    parse_manifest,
    table_rel,
)
from spades_sim.dataset.store import Store, open_store, part_names
from spades_sim.errors import SpadesError

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
    pandas ``"boolean"``. A run with no part yet gives an empty frame. The hands of a run
    solved double-dummy come with ``dd_side_tricks`` and ``dd_nil_safe`` (module
    docstring); ``filters`` apply to the stored columns only.

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
    _check_names(store, table, wanted, filters)
    joined = _dd_wanted(store, table, wanted) if table == "hands" else None
    if joined is not None and wanted is not None:
        # the join's keys are read too, and dropped below unless asked for
        wanted = [c for c in wanted if c not in DD_NAMES]
        wanted += [c for c in ("deal", "seat") if c not in wanted]
    try:
        data = open_dataset(path, table).to_table(columns=wanted, filter=expression)
    except (pa.ArrowException, OSError) as exc:
        # a field an expression names that the table lacks: pyarrow's message is the
        # whole schema on many lines, so name the field alone
        unknown = _NO_FIELD.search(str(exc)) if isinstance(exc, pa.ArrowInvalid) else None
        if unknown is not None:
            raise SpadesError(_unknown_text(store, table, "filters", [unknown[1]])) from None
        # pyarrow's dataset errors do not always say which file: find it, and say so
        for rel in part_names(store, table):
            store.read_part(rel, wanted)
        raise
    frame = _to_pandas(data)
    if joined is None:
        return frame
    frame = _join_dd(store, frame, joined)
    return frame[list(columns)] if columns is not None else frame


_NO_FIELD = re.compile(r"No match for FieldRef\.Name\(([^)]*)\)")


def _unknown_text(store: Store, table: str, what: str, names: Sequence[str]) -> str:
    """The one line for ``names`` that are no column of ``table`` (``what``: the
    argument that named them)."""
    listed = ", ".join(repr(n) for n in names)
    noun = "column" if len(names) == 1 else "columns"
    return f"{what}: no {noun} {listed} in the {table} table of {store.describe()}"


def _check_names(
    store: Store,
    table: str,
    columns: list[str] | None,
    filters: pads.Expression | Sequence[Any] | None,
) -> None:
    """Refuse, in one line naming them, ``columns`` and ``(column, op, value)`` filters
    that are not columns of the table (the double-dummy columns of the hands table are
    :func:`_dd_wanted`'s: joined, never stored), before pyarrow lists the whole schema."""
    stored = set(store.schema(part_names(store, table)[0]).names)
    joinable = set(DD_NAMES) if table == "hands" else set()
    unknown = [c for c in columns or () if c not in stored and c not in joinable]
    if unknown:
        raise SpadesError(_unknown_text(store, table, "columns", unknown))
    if filters is None or isinstance(filters, pads.Expression):
        return  # an expression's fields are named when pyarrow meets them (load)
    named = list(dict.fromkeys(str(f[0]) for f in _flat_filters(filters)))
    unknown = [c for c in named if c not in stored and c not in joinable]
    if unknown:
        raise SpadesError(_unknown_text(store, table, "filters", unknown))
    joined = [c for c in named if c in joinable and c not in stored]
    if joined and dd_state(_manifest(store)) != "solved":
        raise SpadesError(f"filters: {', '.join(joined)}: {missing_dd(store.describe())}")
    if joined:
        raise SpadesError(
            f"filters: {', '.join(sorted(joined))} is joined after the read, not stored in "
            "the parts: filter the frame load returns instead"
        )


def _manifest(store: Store) -> dict[str, Any]:
    """The run's manifest, or an empty one where there is none (parts written alone)."""
    if store.kind(MANIFEST_NAME) != "file":
        return {}
    return parse_manifest(store.read_text(MANIFEST_NAME), store.describe(MANIFEST_NAME))


def _dd_wanted(store: Store, table: str, columns: list[str] | None) -> list[str] | None:
    """The double-dummy columns :func:`load` joins (None: no join): all of them for
    ``columns=None`` on a solved run, else those asked for that the parts do not store."""
    first = part_names(store, table)[0]
    stored = set(store.schema(first).names)
    asked = list(DD_NAMES) if columns is None else [c for c in columns if c in DD_NAMES]
    asked = [c for c in asked if c not in stored]
    if not asked:
        return None
    if dd_state(_manifest(store)) != "solved":
        if columns is None:
            return None  # nothing solved (or not yet all of it): the stored columns alone
        raise SpadesError(missing_dd(store.describe()))
    return asked


def _flat_filters(filters: Sequence[Any]) -> list[Sequence[Any]]:
    """The ``(column, op, value)`` tuples of a filter list, flat (pyarrow's DNF nests
    them one level: a list of lists is an OR of ANDs)."""
    out: list[Sequence[Any]] = []
    for item in filters:
        if isinstance(item, (list, tuple)) and item and isinstance(item[0], (list, tuple)):
            out.extend(item)
        elif isinstance(item, (list, tuple)) and item:
            out.append(item)
    return out


def _join_dd(store: Store, frame: pd.DataFrame, joined: list[str]) -> pd.DataFrame:
    """``frame`` (hands rows with ``deal`` and ``seat``) with the run's double-dummy
    columns ``joined`` added from its ``_dd/`` parts."""
    manifest = parse_manifest(store.read_text(MANIFEST_NAME), store.describe(MANIFEST_NAME))
    parts = [store.read_part(rel).to_pandas() for rel in dd_parts(manifest)]
    dd_table = pd.concat(parts, ignore_index=True)
    rules = (manifest.get("meta") or {}).get("rules")
    players = int(rules.get("players", 4)) if isinstance(rules, dict) else 4
    got = seat_columns(dd_table, frame["deal"].to_numpy(), frame["seat"].to_numpy(), players)
    return frame.assign(**{c: got[c] for c in joined})


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
