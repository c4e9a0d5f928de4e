"""Parquet run datasets: atomic part files, a run manifest, resume, and readers.

Contract
--------
A run writes a directory ``DIR``::

    DIR/part-00000.parquet ...       the hands table (one row per seat per hand)
    DIR/_manifest.json               the run manifest
    DIR/_games/part-00000.parquet    the games table (games mode; one row per game)
    DIR/_plays/part-00000.parquet    play records (optional)
    DIR/.part-00000.parquet.tmp      a part being written: never read as data

The hands rows read as they are with ``pandas.read_parquet(DIR)``,
``pyarrow.dataset.dataset(DIR)`` and DuckDB's ``read_parquet('DIR/*.parquet')``: readers
built on pyarrow skip names starting with ``.`` or ``_`` (files and directories), and
DuckDB's ``*.parquet`` glob matches neither the ``.tmp`` files nor anything in a
subdirectory. (DuckDB's ``read_parquet('DIR')`` and ``'DIR/**/*.parquet'`` do recurse into
``_games`` and ``_plays``: use ``'DIR/*.parquet'``.)

Atomicity. Each part file is written to a temporary dot-name, closed, fsynced and renamed
(``os.replace``) into place; then the manifest is rewritten the same way to list the part.
A crash at any moment, SIGKILL included, leaves complete part files only, and a manifest
listing only parts whose files (hands, games, plays) are all complete. Resuming deletes
temporary files and part files the manifest does not list.

Manifest (``_manifest.json``)::

    {"format": "spades_sim-run", "format_version": 1, "schema_version": meta["schema_version"],
     "meta": {...run meta...},
     "parts": {"00000": {"rows": n, "games_rows": m, "deal_start": a, "deal_stop": b,
                         "file": "part-00000.parquet", "games_file": "_games/part-00000.parquet"},
               ...},
     "complete": false}

Each Parquet file also carries the key ``spades_sim`` in its key-value metadata: JSON
``{"format": "spades_sim-part", "format_version": 1, "table": "hands", "part": 0,
"meta": {...run meta...}, "part_meta": {...}}``, so a single file explains itself
(:func:`file_metadata`).

Columns. A table of one part is a mapping ``name -> numpy array`` of equal length. 1-D
arrays of bool, signed/unsigned integer or float dtype become Arrow columns without a copy
(bools are bit-packed); a 2-D ``(rows, k)`` array becomes a fixed-size list of ``k``
values per row. A *nullable boolean* is passed as an integer array with ``1`` true, ``0``
false and ``-1`` null, its name listed in the writer's ``nullable_bool``; it is stored as
an Arrow boolean with nulls and read back as pandas ``"boolean"``. All other columns are
stored as non-nullable (Parquet ``REQUIRED``) fields, and that flag is how the readers
tell a nullable boolean from a plain one.

Opening (:class:`DatasetWriter`). A missing or empty directory starts a run. A non-empty
one is refused with ``FileExistsError`` unless ``overwrite=True`` (delete only what a run
writes; refused with ``ValueError`` if there is no manifest but other files) or
``resume=True`` (the stored meta must equal the new one, else ``ValueError`` naming the
first differing key; parts whose files are missing or short are dropped, temporary and
unlisted files deleted, and ``done_parts`` says what to skip).

Locations. ``DIR`` is a local path, or a URI for which ``pyarrow.fs.FileSystem.from_uri``
resolves a filesystem (``file:///abs/dir``, ``s3://bucket/dir``, ``gs://...``,
``hdfs://...``); the writer and the readers below take either. On a URI a part is still
written under a temporary name and then moved into place: on a local or network
filesystem a rename, on an object store a copy (the object appears whole) and a delete.
``fsync`` applies to local paths only.

Parts written elsewhere. :func:`write_part_files` writes one part's files (temporary name,
then rename) and returns its manifest entry without touching the manifest; a process that
owns the :class:`DatasetWriter` then records the part with
:meth:`DatasetWriter.record_part`. This is how Dask workers write parts while the client
alone keeps the manifest (:mod:`spades_sim.distributed`). A part written twice (a retried
task) is written the same way twice: each attempt has its own temporary name, and the
rename replaces a file with an identical one.

Background writing. :meth:`DatasetWriter.write_part_async` validates in the caller's
thread, queues the part and returns a ``concurrent.futures.Future``; ``writer_threads``
threads (pyarrow releases the GIL while encoding) write parts in parallel, and at most
``max_pending`` parts wait in the queue: one more call blocks until a slot frees, so
memory stays bounded. The arrays are not copied: leave them alone until the future is
done. A failure in a writer thread fails its future, makes later calls raise at once and
is re-raised by ``wait()``, ``close()``, ``finish()`` and leaving the ``with`` block.

Encoding. By default (``use_dictionary=None``) no column is dictionary-encoded: integer
columns are stored with DELTA_BINARY_PACKED (``integer_encoding``), except 64-bit unsigned
ones (bit masks such as the hands, incompressible by deltas) which stay PLAIN; floats use
BYTE_STREAM_SPLIT; booleans and fixed-size lists the writer's defaults; then zstd.
Measured on the 25-column hands table (1,048,576 rows, zstd level 1, CPU time per hand on
the 2-core development machine): dictionary pages on the small integers 0.82 us at 41.8
bytes per hand, delta 0.62 us at 49.4 bytes, byte-stream-split 0.53 us at 42.0 bytes.
Parquet widens 8- and 16-bit values to 32 bits, and hashing them for a dictionary costs
more than the bytes it saves. Byte-stream-split is the fastest but integer support is
recent (Parquet format 2.11, 2024): pyarrow reads it from version 16 and DuckDB only from
mid-2026, so it is opt-in (``integer_encoding="BYTE_STREAM_SPLIT"``); delta encoding has
been read by every Parquet reader for years. ``write_statistics`` (True, or the columns
to keep min/max for) trades row-group pruning for speed: statistics of unsorted 8-bit
columns over a million rows prune nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST_NAME",
    "METADATA_KEY",
    "DatasetWriter",
    "PartFormat",
    "file_metadata",
    "is_uri",
    "load",
    "load_games",
    "open_dataset",
    "part_files",
    "read_manifest",
    "write_part_files",
]

FORMAT: Final = "spades_sim-run"
FORMAT_VERSION: Final = 1
PART_FORMAT: Final = "spades_sim-part"
MANIFEST_NAME: Final = "_manifest.json"
METADATA_KEY: Final = "spades_sim"
MAX_PART: Final = 99_999
"""Part indices have five digits so that file names sort in part order."""

INTEGER_ENCODINGS: Final = ("DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT", "PLAIN")
"""Encodings ``DatasetWriter(integer_encoding=...)`` accepts for integer columns."""

TABLE_DIRS: Final[dict[str, str]] = {"hands": "", "games": "_games", "plays": "_plays"}
"""Where each table's part files live, relative to the run directory."""

# File names. pyarrow's dataset discovery ignores files and directories whose names start
# with "." or "_" ("selector_ignore_prefixes ... By default this is ['.', '_']",
# https://arrow.apache.org/docs/python/generated/pyarrow.dataset.FileSystemFactoryOptions.html,
# and pyarrow.dataset.dataset(ignore_prefixes=...)); pandas.read_parquet(DIR) goes through
# it. DuckDB documents globbing only (https://duckdb.org/docs/stable/data/multiple_files/
# overview); verified by experiment with duckdb 2.0.1: "DIR/*.parquet" does match dot- and
# underscore-names ending in .parquet, so temporary files must not end in ".parquet", and it
# does not descend into _games/ or _plays/ (read_parquet('DIR') and 'DIR/**' do).
_PART_RE: Final = re.compile(r"part-(\d{5})\.parquet")
_TMP_RE: Final = re.compile(r"\.part-(\d{5})\.parquet(?:\.[0-9a-z]+)?\.tmp")
_MANIFEST_TMP: Final = "._manifest.json.tmp"
_RESERVED_PART_KEYS: Final = frozenset(
    {"rows", "file"} | {f"{t}_{k}" for t in ("games", "plays") for k in ("rows", "file")}
)

Columns = Mapping[str, npt.NDArray[Any]]
"""One table of one part: equal-length numpy columns (or a structured array)."""


def _part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def _tmp_name(index: int, attempt: str = "") -> str:
    """The temporary name of a part file; ``attempt`` tells concurrent writers apart."""
    return f".part-{index:05d}.parquet{'.' + attempt if attempt else ''}.tmp"


# --------------------------------------------------------------------------------------
# Small file-system helpers
# --------------------------------------------------------------------------------------


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":  # directories cannot be opened for fsync elsewhere
        return
    _fsync_file(path)


def _manifest_text(manifest: Mapping[str, Any]) -> str:
    """The manifest as JSON, one line per key and per part (it is rewritten after each part)."""
    lines = []
    for key, value in manifest.items():
        if key == "parts":
            parts = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(value.items())]
            value_text = "{\n" + ",\n".join(parts) + "\n }" if parts else "{}"
        else:
            value_text = json.dumps(value)
        lines.append(f" {json.dumps(key)}: {value_text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _write_text_atomic(path: Path, text: str, fsync: bool) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(tmp, path)
    if fsync:
        _fsync_dir(path.parent)


# --------------------------------------------------------------------------------------
# Where a run lives: a local directory, or a directory on a pyarrow filesystem (a URI)
# --------------------------------------------------------------------------------------

_URI_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_uri(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` is a URI (``scheme://...``) rather than a local path.

    >>> is_uri("file:///tmp/run"), is_uri("s3://bucket/runs/a"), is_uri("runs/first")
    (True, True, False)
    """
    return isinstance(location, str) and _URI_RE.match(location) is not None


class _LocalStore:
    """A run directory given as a local path: ``os`` calls, fsync and atomic rename.

    Every method takes a name relative to the run directory (``""`` for the directory
    itself, ``"_games/part-00000.parquet"`` for a file in a table directory).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.local_path: Path | None = root

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel else self.root

    def describe(self, rel: str = "") -> str:
        return str(self._path(rel))

    def kind(self, rel: str = "") -> str | None:
        """``"dir"``, ``"file"`` or None (missing)."""
        path = self._path(rel)
        return "dir" if path.is_dir() else "file" if path.exists() else None

    def makedirs(self, rel: str = "") -> None:
        self._path(rel).mkdir(parents=True, exist_ok=True)

    def entries(self, rel: str = "") -> list[tuple[str, bool]]:
        """``(name, is a directory)`` of each entry, sorted by name."""
        return sorted((e.name, e.is_dir()) for e in self._path(rel).iterdir())

    def read_text(self, rel: str) -> str:
        return self._path(rel).read_text(encoding="utf-8")

    def write_text_atomic(self, rel: str, text: str, fsync: bool) -> None:
        _write_text_atomic(self._path(rel), text, fsync)

    def write_parquet(self, table: pa.Table, rel: str, **options: Any) -> None:
        _write_parquet(table, self._path(rel), **options)

    def sync_file(self, rel: str) -> None:
        _fsync_file(self._path(rel))

    def sync_dir(self, rel: str) -> None:
        _fsync_dir(self._path(rel))

    def replace(self, src: str, dst: str) -> None:
        os.replace(self._path(src), self._path(dst))

    def remove(self, rel: str) -> None:
        self._path(rel).unlink(missing_ok=True)

    def rmdir(self, rel: str) -> None:
        self._path(rel).rmdir()

    def parquet_metadata(self, rel: str) -> pq.FileMetaData:
        return pq.read_metadata(self._path(rel))

    def dataset(self, rels: Sequence[str]) -> pads.Dataset:
        return pads.dataset([str(self._path(r)) for r in rels], format="parquet")


class _ArrowStore:
    """A run directory given as a URI, on the ``pyarrow.fs`` filesystem it names.

    Same methods as :class:`_LocalStore`. A move is a rename on a local or network
    filesystem and a copy then a delete on an object store, where the copied object
    appears whole; there is no fsync.
    """

    def __init__(self, uri: str) -> None:
        import pyarrow.fs as pafs

        try:
            fs, base = pafs.FileSystem.from_uri(uri)
        except (pa.ArrowException, ValueError, OSError) as exc:
            message = " ".join(str(exc).split())
            raise ValueError(f"{uri}: not a location pyarrow can open ({message})") from None
        self.fs: pafs.FileSystem = fs
        self.uri = uri.rstrip("/")
        self.base = base.rstrip("/")
        self.local_path: Path | None = (
            Path(self.base) if isinstance(fs, pafs.LocalFileSystem) else None
        )

    def _path(self, rel: str) -> str:
        return f"{self.base}/{rel}" if rel else self.base

    def describe(self, rel: str = "") -> str:
        return f"{self.uri}/{rel}" if rel else self.uri

    def kind(self, rel: str = "") -> str | None:
        import pyarrow.fs as pafs

        found = self.fs.get_file_info(self._path(rel)).type
        if found == pafs.FileType.Directory:
            return "dir"
        return "file" if found == pafs.FileType.File else None

    def makedirs(self, rel: str = "") -> None:
        self.fs.create_dir(self._path(rel), recursive=True)

    def entries(self, rel: str = "") -> list[tuple[str, bool]]:
        import pyarrow.fs as pafs

        infos = self.fs.get_file_info(pafs.FileSelector(self._path(rel), allow_not_found=True))
        return sorted((i.base_name, i.type == pafs.FileType.Directory) for i in infos)

    def read_text(self, rel: str) -> str:
        with self.fs.open_input_stream(self._path(rel)) as f:
            data: bytes = f.read()
        return data.decode("utf-8")

    def write_text_atomic(self, rel: str, text: str, fsync: bool) -> None:
        head, _, name = rel.rpartition("/")
        tmp = f"{head}/.{name}.tmp" if head else f".{name}.tmp"
        with self.fs.open_output_stream(self._path(tmp)) as f:
            f.write(text.encode("utf-8"))
        self.fs.move(self._path(tmp), self._path(rel))

    def write_parquet(self, table: pa.Table, rel: str, **options: Any) -> None:
        pq.write_table(table, self._path(rel), filesystem=self.fs, **options)

    def sync_file(self, rel: str) -> None:
        return None  # nothing to flush: pyarrow's output stream is closed, the data handed over

    def sync_dir(self, rel: str) -> None:
        return None

    def replace(self, src: str, dst: str) -> None:
        self.fs.move(self._path(src), self._path(dst))

    def remove(self, rel: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self._path(rel))

    def rmdir(self, rel: str) -> None:
        self.fs.delete_dir(self._path(rel))

    def parquet_metadata(self, rel: str) -> pq.FileMetaData:
        return pq.read_metadata(self._path(rel), filesystem=self.fs)

    def dataset(self, rels: Sequence[str]) -> pads.Dataset:
        paths = [self._path(r) for r in rels]
        return pads.dataset(paths, format="parquet", filesystem=self.fs)


_Store = _LocalStore | _ArrowStore


def _store(location: str | os.PathLike[str]) -> _Store:
    """The store of a run directory given as a local path or a URI."""
    if is_uri(location):
        return _ArrowStore(str(location))
    return _LocalStore(Path(location))


def _json_normal(obj: Any, what: str) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists); ValueError if it cannot."""
    try:
        return json.loads(json.dumps(obj, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be JSON-serialisable: {exc}") from None


def _first_difference(old: Any, new: Any, where: str = "") -> str | None:
    """Dotted key path of the first difference between two JSON values, or None."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*new, *(k for k in old if k not in new)]:
            path = f"{where}.{key}" if where else str(key)
            if key not in old or key not in new:
                return path
            found = _first_difference(old[key], new[key], path)
            if found is not None:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found = _first_difference(a, b, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if type(old) is not type(new) or old != new:
        return where or "meta"
    return None


def _lookup(obj: Any, path: str) -> Any:
    for token in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        try:
            obj = obj[int(token[1:-1])] if token.startswith("[") else obj[token]
        except (KeyError, IndexError, TypeError):
            return "<missing>"
    return obj


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------
# Columns -> Arrow
# --------------------------------------------------------------------------------------


def _check_columns(
    table: str, cols: Columns | npt.NDArray[Any], nullable_bool: frozenset[str]
) -> dict[str, npt.NDArray[Any]]:
    """Validate one table of a part (in the caller's thread); return contiguous columns."""
    if isinstance(cols, np.ndarray):
        if cols.dtype.names is None:
            raise ValueError(f"{table}: expected a mapping of columns or a structured array")
        cols = {name: np.ascontiguousarray(cols[name]) for name in cols.dtype.names}
    if not isinstance(cols, Mapping) or not cols:
        raise ValueError(f"{table}: expected a non-empty mapping of column name -> numpy array")
    out: dict[str, npt.NDArray[Any]] = {}
    first: tuple[str, int] | None = None
    for name, arr in cols.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{table}: column names must be non-empty strings, got {name!r}")
        if not isinstance(arr, np.ndarray):
            raise ValueError(f"{table} column {name!r} is a {type(arr).__name__}, not an ndarray")
        if arr.dtype.kind not in "biuf" or arr.ndim not in (1, 2):
            raise ValueError(
                f"{table} column {name!r} has dtype {arr.dtype} and {arr.ndim} dimension(s); "
                "expected a 1-D or 2-D bool, integer or float array"
            )
        if name in nullable_bool and (arr.dtype.kind != "i" or arr.ndim != 1):
            raise ValueError(
                f"{table} column {name!r} is a nullable boolean: pass a 1-D signed integer "
                f"array (1 true, 0 false, -1 null), not {arr.dtype}"
            )
        if first is None:
            first = (name, len(arr))
        elif len(arr) != first[1]:
            raise ValueError(
                f"{table} column {name!r} has {len(arr)} rows but {first[0]!r} has {first[1]}"
            )
        out[name] = np.ascontiguousarray(arr)
    return out


def _to_arrow(
    table: str,
    cols: Mapping[str, npt.NDArray[Any]],
    nullable_bool: frozenset[str],
    metadata: Mapping[str, str],
) -> pa.Table:
    """Build an Arrow table without per-row Python: numeric columns are zero-copy views."""
    arrays: list[pa.Array] = []
    fields: list[pa.Field] = []
    for name, values in cols.items():
        if name in nullable_bool:
            if values.size and int(values.max()) > 1:
                raise ValueError(
                    f"{table} column {name!r} is a nullable boolean but holds "
                    f"{int(values.max())}; expected 1, 0 or -1 (null)"
                )
            arr = pa.array(values == 1, mask=values < 0)
            fields.append(pa.field(name, pa.bool_(), nullable=True))
        elif values.ndim == 2:
            flat = pa.array(values.reshape(-1))
            arr = pa.FixedSizeListArray.from_arrays(flat, values.shape[1])
            fields.append(pa.field(name, arr.type, nullable=False))
        else:
            arr = pa.array(values)
            fields.append(pa.field(name, arr.type, nullable=False))
        arrays.append(arr)
    schema = pa.schema(fields, metadata=dict(metadata))
    return pa.Table.from_arrays(arrays, schema=schema)


def _auto_encoding(schema: pa.Schema, integer_encoding: str) -> dict[str, Any]:
    """Writer options for ``use_dictionary=None`` (see "Encoding" in the module docstring)."""
    encodings: dict[str, str] = {}
    for f in schema:
        if pa.types.is_floating(f.type):
            encodings[f.name] = "BYTE_STREAM_SPLIT"
        elif pa.types.is_integer(f.type):
            encodings[f.name] = "PLAIN" if f.type == pa.uint64() else integer_encoding
    return {"use_dictionary": False, "column_encoding": encodings}


# --------------------------------------------------------------------------------------
# Run-directory inspection
# --------------------------------------------------------------------------------------


def _is_run_entry(name: str, is_dir: bool) -> bool:
    """True for a name a run writes (part, temporary, manifest, table directory)."""
    if is_dir:
        return name in ("_games", "_plays")
    return (
        name in (MANIFEST_NAME, _MANIFEST_TMP)
        or _PART_RE.fullmatch(name) is not None
        or _TMP_RE.fullmatch(name) is not None
    )


def _table_rel(table: str) -> str:
    """The directory of a table's part files, relative to the run directory."""
    if table not in TABLE_DIRS:
        raise ValueError(f"unknown table {table!r}; expected one of {', '.join(TABLE_DIRS)}")
    return TABLE_DIRS[table]


def _in_table(table_rel: str, name: str) -> str:
    return f"{table_rel}/{name}" if table_rel else name


def _parse_manifest(text: str, where: str) -> dict[str, Any]:
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not a spades_sim run manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"{where} is not a spades_sim run manifest (no format {FORMAT!r})")
    if manifest.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(
            f"{where} has format version {manifest['format_version']}; this spades_sim reads "
            f"up to {FORMAT_VERSION}"
        )
    return manifest


def _part_names(store: _Store, table: str) -> list[str]:
    """The complete part files of one table, relative to the run directory, in part order."""
    folder = _table_rel(table)
    if store.kind(folder) != "dir":
        return []
    return [
        _in_table(folder, name)
        for name, is_dir in store.entries(folder)
        if not is_dir and _PART_RE.fullmatch(name)
    ]


# --------------------------------------------------------------------------------------
# Writing one part's files
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartFormat:
    """How part files are encoded: the writing options of :class:`DatasetWriter`.

    Plain values, so it pickles: a Dask worker given a run's ``PartFormat`` writes a part
    exactly as the client's writer would (:func:`write_part_files`). Fields as the
    writer's arguments of the same names.

    >>> PartFormat(write_statistics=("deal",)).compression
    'zstd'
    """

    nullable_bool: frozenset[str] = frozenset()
    row_group_size: int = 1_000_000
    compression: str = "zstd"
    compression_level: int | None = None
    use_dictionary: bool | tuple[str, ...] | None = None
    write_statistics: bool | tuple[str, ...] = True
    integer_encoding: str = "DELTA_BINARY_PACKED"
    fsync: bool = True

    def __post_init__(self) -> None:
        if self.row_group_size < 1:
            raise ValueError(f"row_group_size must be at least 1, got {self.row_group_size}")
        if self.integer_encoding not in INTEGER_ENCODINGS:
            raise ValueError(
                f"integer_encoding must be one of {', '.join(INTEGER_ENCODINGS)}, "
                f"got {self.integer_encoding!r}"
            )

    def statistics(self, schema: pa.Schema) -> bool | list[str]:
        """``write_statistics`` as pyarrow takes it, for a table of this schema."""
        if isinstance(self.write_statistics, bool):
            return self.write_statistics
        return [name for name in self.write_statistics if name in schema.names] or False

    def encoding(self, schema: pa.Schema) -> dict[str, Any]:
        """The dictionary and column-encoding options for a table of this schema."""
        if self.use_dictionary is None:
            return _auto_encoding(schema, self.integer_encoding)
        dictionary = self.use_dictionary
        return {"use_dictionary": dictionary if isinstance(dictionary, bool) else list(dictionary)}


def _part_index(part_index: int) -> int:
    if isinstance(part_index, bool) or not isinstance(part_index, (int, np.integer)):
        raise ValueError(f"part_index must be an int, got {part_index!r}")
    index = int(part_index)
    if not 0 <= index <= MAX_PART:
        raise ValueError(f"part_index must be in 0..{MAX_PART}, got {index}")
    return index


def _check_part(
    part_index: int,
    hands: Columns | npt.NDArray[Any],
    games: Columns | npt.NDArray[Any] | None,
    plays: Columns | npt.NDArray[Any] | None,
    part_meta: Mapping[str, Any] | None,
    nullable_bool: frozenset[str],
) -> tuple[int, dict[str, dict[str, npt.NDArray[Any]]], dict[str, Any]]:
    """Validate one part: its index, tables (contiguous columns) and JSON part meta."""
    index = _part_index(part_index)
    extra = _json_normal(dict(part_meta or {}), "part_meta")
    clash = sorted(_RESERVED_PART_KEYS & extra.keys())
    if clash:
        raise ValueError(f"part_meta key {clash[0]!r} is reserved for the manifest")
    tables = {"hands": _check_columns("hands", hands, nullable_bool)}
    if games is not None:
        tables["games"] = _check_columns("games", games, nullable_bool)
    if plays is not None:
        tables["plays"] = _check_columns("plays", plays, nullable_bool)
    return index, tables, extra


def _write_files(
    store: _Store,
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
    renames: list[tuple[str, str]] = []
    try:
        # Renamed in this order: a hands file in place means the part's other tables are.
        for table in ("plays", "games", "hands"):
            cols = tables.get(table)
            if cols is None:
                continue
            folder = _table_rel(table)
            if folder:
                store.makedirs(folder)
            tmp = _in_table(folder, _tmp_name(index, attempt))
            final = _in_table(folder, _part_name(index))
            renames.append((tmp, final))
            file_meta = {
                "format": PART_FORMAT,
                "format_version": FORMAT_VERSION,
                "table": table,
                "part": index,
                "meta": meta,
                "part_meta": part_meta,
            }
            arrow = _to_arrow(table, cols, fmt.nullable_bool, {METADATA_KEY: json.dumps(file_meta)})
            store.write_parquet(
                arrow,
                tmp,
                row_group_size=fmt.row_group_size,
                compression=fmt.compression,
                compression_level=fmt.compression_level,
                write_statistics=fmt.statistics(arrow.schema),
                **fmt.encoding(arrow.schema),
            )
            if fmt.fsync:
                store.sync_file(tmp)
            prefix = "" if table == "hands" else f"{table}_"
            rows[prefix + "rows"] = arrow.num_rows
            files[prefix + "file"] = final
        for tmp, final in renames:
            store.replace(tmp, final)
        if fmt.fsync:
            for folder in {final.rpartition("/")[0] for _, final in renames}:
                store.sync_dir(folder)
    except BaseException:
        for tmp, _ in renames:
            store.remove(tmp)
        raise
    return {**dict(reversed(rows.items())), **part_meta, **dict(reversed(files.items()))}


def write_part_files(
    location: str | os.PathLike[str],
    part_index: int,
    hands: Columns | npt.NDArray[Any],
    games: Columns | npt.NDArray[Any] | None = None,
    plays: Columns | npt.NDArray[Any] | None = None,
    *,
    meta: Mapping[str, Any],
    part_meta: Mapping[str, Any] | None = None,
    fmt: PartFormat = PartFormat(),
    attempt: str = "",
) -> dict[str, Any]:
    """Write part ``part_index`` of the run at ``location``; leave the manifest alone.

    The files are written as :meth:`DatasetWriter.write_part` writes them (temporary
    name, then rename) and the part's manifest entry is returned, for the process that
    owns the run's :class:`DatasetWriter` to pass to :meth:`DatasetWriter.record_part`.
    ``meta`` is the run meta (:attr:`DatasetWriter.meta`), ``fmt`` the writer's
    :attr:`DatasetWriter.format`. Writers of the same part that may run at the same time
    (a task retried while its first attempt still runs) pass distinct ``attempt`` labels
    (lowercase letters and digits) so their temporary files differ; either rename leaves
    the same complete file.

    >>> import tempfile, numpy as np
    >>> run = tempfile.mkdtemp()
    >>> w = DatasetWriter(run, meta={"seed": 3})
    >>> entry = write_part_files(run, 4, {"x": np.arange(3, dtype=np.int8)}, meta=w.meta)
    >>> entry
    {'rows': 3, 'file': 'part-00004.parquet'}
    >>> w.record_part(4, entry)
    >>> read_manifest(run)["parts"]["00004"]["rows"], load(run)["x"].tolist()
    (3, [0, 1, 2])
    """
    if attempt and not re.fullmatch(r"[0-9a-z]+", attempt):
        raise ValueError(f"attempt must be lowercase letters and digits, got {attempt!r}")
    index, tables, extra = _check_part(
        part_index, hands, games, plays, part_meta, fmt.nullable_bool
    )
    store = _store(location)
    if store.kind() != "dir":
        raise FileNotFoundError(f"{store.describe()} is not a directory: open the run first")
    return _write_files(store, index, tables, _json_normal(dict(meta), "meta"), extra, fmt, attempt)


# --------------------------------------------------------------------------------------
# The writer
# --------------------------------------------------------------------------------------


@dataclass
class _Job:
    index: int
    tables: dict[str, dict[str, npt.NDArray[Any]]]
    part_meta: dict[str, Any]
    future: Future[dict[str, Any]]


class DatasetWriter:
    """Write one run's part files and manifest, atomically, optionally in the background.

    ``path`` is the run directory (a local path or a URI, see "Locations"), created if
    missing. ``meta`` (JSON-serialisable: rules, policies, seed, package and schema
    version, ...) is stored in the manifest and in every file. An existing non-empty
    directory is refused (``FileExistsError``) unless ``overwrite`` (delete what a run
    writes; ``ValueError`` if the directory is not a run but holds other files) or
    ``resume`` (continue: the stored meta must equal ``meta``, else ``ValueError`` naming
    the first differing key; :attr:`done_parts` tells what to skip). ``nullable_bool``
    names the integer columns (1/0/-1) stored as booleans with nulls.

    Writing options: ``row_group_size`` rows per row group, ``compression`` and
    ``compression_level`` (zstd level 1 by default), ``use_dictionary`` (None: no
    dictionary, integers in ``integer_encoding``; see "Encoding" above), ``write_statistics``
    (True, False or the columns that get min/max statistics), ``fsync`` (flush files and
    directories to disk before renaming; turn off only for throwaway output). They are
    kept together as :attr:`format` (a :class:`PartFormat`). Background writes
    (:meth:`write_part_async`) run on ``writer_threads`` threads with at most
    ``max_pending`` parts queued behind them.

    >>> import tempfile, numpy as np
    >>> run = tempfile.mkdtemp() + "/run"
    >>> chunk = {"deal": np.arange(4, dtype=np.int64), "made": np.array([1, 0, -1, 1], "i1")}
    >>> with DatasetWriter(run, meta={"seed": 7}, nullable_bool={"made"}) as w:
    ...     _ = w.write_part_async(0, chunk, part_meta={"deal_start": 0, "deal_stop": 4})
    ...     w.finish()
    >>> load(run)["made"].tolist()
    [True, False, <NA>, True]
    >>> read_manifest(run)["parts"]["00000"]["rows"]
    4
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        meta: Mapping[str, Any],
        overwrite: bool = False,
        resume: bool = False,
        nullable_bool: Iterable[str] = (),
        row_group_size: int = 1_000_000,
        compression: str = "zstd",
        compression_level: int | None = None,
        use_dictionary: bool | Sequence[str] | None = None,
        write_statistics: bool | Sequence[str] = True,
        integer_encoding: str = "DELTA_BINARY_PACKED",
        max_pending: int = 1,
        writer_threads: int = 1,
        fsync: bool = True,
    ) -> None:
        if overwrite and resume:
            raise ValueError("overwrite and resume exclude each other: pick one")
        if not isinstance(meta, Mapping):
            raise ValueError(f"meta must be a mapping, got {type(meta).__name__}")
        if max_pending < 1:
            raise ValueError(f"max_pending must be at least 1, got {max_pending}")
        if writer_threads < 1:
            raise ValueError(f"writer_threads must be at least 1, got {writer_threads}")
        self.format = PartFormat(
            nullable_bool=frozenset(nullable_bool),
            row_group_size=row_group_size,
            compression=compression,
            compression_level=compression_level,
            use_dictionary=(
                use_dictionary
                if use_dictionary is None or isinstance(use_dictionary, bool)
                else tuple(use_dictionary)
            ),
            write_statistics=(
                write_statistics if isinstance(write_statistics, bool) else tuple(write_statistics)
            ),
            integer_encoding=integer_encoding,
            fsync=fsync,
        )
        self.path: str | Path = str(path) if is_uri(path) else Path(path)
        self.meta: dict[str, Any] = _json_normal(dict(meta), "meta")
        self._store = _store(path)

        self._lock = threading.Lock()
        self._pending: set[int] = set()
        self._error: BaseException | None = None
        self._closed = False
        self._manifest = self._open_directory(overwrite=overwrite, resume=resume)

        self._queue: queue.Queue[_Job | None] = queue.Queue(maxsize=max_pending)
        self._writer_threads = writer_threads
        self._threads: list[threading.Thread] = []  # started by the first background write

    # ----------------------------------------------------------------------- opening

    def _open_directory(self, *, overwrite: bool, resume: bool) -> dict[str, Any]:
        store = self._store
        root = store.describe()
        if store.kind() == "file":
            raise FileExistsError(f"{root} exists and is not a directory")
        store.makedirs()
        entries = store.entries()
        foreign = [name for name, is_dir in entries if not _is_run_entry(name, is_dir)]
        stored: dict[str, Any] | None = None
        if (MANIFEST_NAME, False) in entries:
            try:
                stored = _parse_manifest(
                    store.read_text(MANIFEST_NAME), store.describe(MANIFEST_NAME)
                )
            except ValueError:
                foreign.insert(0, MANIFEST_NAME)
        if entries and not (overwrite or resume):
            if stored is not None or not foreign:
                raise FileExistsError(
                    f"{root} already holds a spades_sim run; pass --resume to continue it "
                    "or --overwrite to replace it"
                )
            raise FileExistsError(f"{root} is not empty and is not a spades_sim run")
        if stored is None and foreign:
            raise ValueError(
                f"refusing to {'overwrite' if overwrite else 'resume'} {root}: it is not a "
                f"spades_sim run (no {MANIFEST_NAME}) and holds other files, e.g. {foreign[0]!r}"
            )
        if stored is None or overwrite:
            # The new, empty manifest replaces the old one first: from then on, whatever a
            # crash leaves behind, the manifest lists no part that is not complete.
            manifest = self._new_manifest()
            self._write_manifest(manifest)
            self._remove_run_files(keep=set())
            return manifest

        different = _first_difference(stored.get("meta"), self.meta)
        if different is not None:
            raise ValueError(
                f"cannot resume {root}: its run was made with a different {different!r} "
                f"(stored {_short(_lookup(stored.get('meta'), different))}, "
                f"now {_short(_lookup(self.meta, different))}); pass --overwrite to replace it"
            )
        parts = {k: v for k, v in stored.get("parts", {}).items() if self._part_intact(k, v)}
        stored["parts"] = parts
        self._write_manifest(stored)
        self._remove_run_files(keep={int(k) for k in parts})
        return stored

    def _new_manifest(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "schema_version": self.meta.get("schema_version"),
            "meta": self.meta,
            "parts": {},
            "complete": False,
        }

    def _part_intact(self, key: str, entry: Any) -> bool:
        """Whether a manifest entry's files exist with the row counts it records."""
        if not isinstance(entry, dict) or not re.fullmatch(r"\d{5}", key):
            return False
        for table in TABLE_DIRS:
            prefix = "" if table == "hands" else f"{table}_"
            name = entry.get(prefix + "file")
            if name is None:
                if table == "hands":
                    return False
                continue
            try:
                rows = self._store.parquet_metadata(name).num_rows
            except (OSError, pa.ArrowException):
                return False
            if rows != entry.get(prefix + "rows"):
                return False
        return True

    def _remove_run_files(self, keep: set[int]) -> None:
        """Delete temporary files and the part files not in ``keep``; leave other files alone."""
        store = self._store
        for table in TABLE_DIRS:
            folder = _table_rel(table)
            if store.kind(folder) != "dir":
                continue
            for name, _ in store.entries(folder):
                part = _PART_RE.fullmatch(name)
                if (part and int(part.group(1)) not in keep) or _TMP_RE.fullmatch(name):
                    store.remove(_in_table(folder, name))
            if folder and not store.entries(folder):
                store.rmdir(folder)
        store.remove(_MANIFEST_TMP)

    def remove_stray_files(self) -> None:
        """Delete temporary files and part files the manifest does not list.

        A worker that died while writing leaves a temporary file behind; the Dask backend
        calls this before it marks a run complete. (Readers never take those files for
        data, and opening the run again with ``resume`` deletes them as well.)
        """
        self._remove_run_files(keep=self.done_parts)

    # ----------------------------------------------------------------------- state

    @property
    def done_parts(self) -> set[int]:
        """Indices of the parts recorded in the manifest (resumed ones and those written)."""
        with self._lock:
            return {int(k) for k in self._manifest["parts"]}

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the manifest as last written."""
        with self._lock:
            return json.loads(json.dumps(self._manifest))

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        self._store.write_text_atomic(MANIFEST_NAME, _manifest_text(manifest), self.format.fsync)

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    # ----------------------------------------------------------------------- writing

    def _prepare(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None,
        plays: Columns | npt.NDArray[Any] | None,
        part_meta: Mapping[str, Any] | None,
    ) -> _Job:
        if self._closed:
            raise RuntimeError(f"the writer for {self.path} is closed")
        self._raise_if_failed()
        index, tables, extra = _check_part(
            part_index, hands, games, plays, part_meta, self.format.nullable_bool
        )
        with self._lock:
            key = f"{index:05d}"
            if key in self._manifest["parts"] or index in self._pending:
                raise ValueError(f"part {index} is already written or being written")
            self._pending.add(index)
        return _Job(index, tables, extra, Future())

    def write_part(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None = None,
        plays: Columns | npt.NDArray[Any] | None = None,
        part_meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Write part ``part_index`` now, in this thread; return its manifest entry.

        ``hands`` (and ``games``, ``plays`` when given) map column names to numpy arrays;
        ``part_meta`` (e.g. ``{"deal_start": a, "deal_stop": b}``) goes to the manifest
        entry and the files' metadata. Parts may come in any order.

        >>> import tempfile, numpy as np
        >>> with DatasetWriter(tempfile.mkdtemp(), meta={}) as w:
        ...     w.write_part(3, {"x": np.arange(5, dtype=np.int16)})["rows"]
        5
        """
        job = self._prepare(part_index, hands, games, plays, part_meta)
        try:
            return self._run(job)
        finally:
            with self._lock:
                self._pending.discard(job.index)

    def write_part_async(
        self,
        part_index: int,
        hands: Columns | npt.NDArray[Any],
        games: Columns | npt.NDArray[Any] | None = None,
        plays: Columns | npt.NDArray[Any] | None = None,
        part_meta: Mapping[str, Any] | None = None,
    ) -> Future[dict[str, Any]]:
        """Queue part ``part_index`` for a writer thread; return a future of its entry.

        Arguments as :meth:`write_part`; they are validated here, so a bad column raises
        at once. The arrays are written without a copy: do not modify them until the
        future is done. Blocks while ``max_pending`` parts are already queued
        (back-pressure); raises at once if an earlier background write failed. A failure
        is also re-raised by :meth:`wait`, :meth:`close` and :meth:`finish`.

        >>> import tempfile, numpy as np
        >>> with DatasetWriter(tempfile.mkdtemp(), meta={}) as w:
        ...     future = w.write_part_async(0, {"x": np.arange(5, dtype=np.int16)})
        ...     future.result()["file"]
        'part-00000.parquet'
        """
        job = self._prepare(part_index, hands, games, plays, part_meta)
        if not self._threads:
            self._threads = [
                threading.Thread(target=self._work, name=f"spades_sim-writer-{i}", daemon=True)
                for i in range(self._writer_threads)
            ]
            for t in self._threads:
                t.start()
        try:
            self._queue.put(job)
        except BaseException:
            with self._lock:
                self._pending.discard(job.index)
            raise
        return job.future

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                self._queue.task_done()
                return
            try:
                if self._error is not None:
                    raise RuntimeError(f"part {job.index} not written: an earlier write failed")
                job.future.set_result(self._run(job))
            except BaseException as exc:  # kept for the caller: never lost in this thread
                with self._lock:
                    if self._error is None:
                        exc.add_note(f"while writing part {job.index} of {self.path}")
                        self._error = exc
                job.future.set_exception(exc)
            finally:
                with self._lock:
                    self._pending.discard(job.index)
                self._queue.task_done()

    def _run(self, job: _Job) -> dict[str, Any]:
        """Write every table of a part, rename them into place, then record the part."""
        entry = _write_files(
            self._store, job.index, job.tables, self.meta, job.part_meta, self.format
        )
        self._record(job.index, entry)
        return dict(entry)

    def _record(self, index: int, entry: dict[str, Any]) -> None:
        with self._lock:
            self._manifest["parts"][f"{index:05d}"] = entry
            self._manifest["complete"] = False
            self._write_manifest(self._manifest)

    def record_part(self, part_index: int, entry: Mapping[str, Any]) -> None:
        """List in the manifest a part another process wrote with :func:`write_part_files`.

        ``entry`` is what :func:`write_part_files` returned. The part's files are checked
        first (present, with the row counts the entry gives): ``ValueError`` if they are
        not, or if the part is already listed. See :func:`write_part_files` for an example.
        """
        if self._closed:
            raise RuntimeError(f"the writer for {self.path} is closed")
        index = _part_index(part_index)
        normal = _json_normal(dict(entry), "entry")
        if normal.get("file") != _part_name(index) or not self._part_intact(f"{index:05d}", normal):
            raise ValueError(
                f"part {index} of {self._store.describe()}: its files are missing or do not "
                f"hold the rows its entry gives ({_short(normal, 120)})"
            )
        with self._lock:
            if f"{index:05d}" in self._manifest["parts"] or index in self._pending:
                raise ValueError(f"part {index} is already written or being written")
        self._record(index, normal)

    # ----------------------------------------------------------------------- closing

    def wait(self) -> None:
        """Block until every queued part is written; re-raise a background failure."""
        self._queue.join()
        self._raise_if_failed()

    def close(self) -> None:
        """Wait for pending writes, stop the writer threads, re-raise a background failure.

        The run stays marked incomplete (call :meth:`finish` for that). Calling it again
        is harmless.
        """
        if not self._closed:
            self._closed = True
            for _ in self._threads:
                self._queue.put(None)
            for t in self._threads:
                t.join()
        self._raise_if_failed()

    def finish(self) -> None:
        """Wait for pending writes, close the writer and mark the run complete."""
        self.close()
        with self._lock:
            self._manifest["complete"] = True
            self._write_manifest(self._manifest)

    def __enter__(self) -> DatasetWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.close()
            return
        try:  # the body failed: still let queued parts land, report both failures
            self.close()
        except BaseException as writer_exc:
            exc.add_note(f"the background writer also failed: {writer_exc!r}")


def _write_parquet(table: pa.Table, path: Path, **options: Any) -> None:
    """One Parquet file. ``write_table`` and ``ParquetWriter`` measured the same speed."""
    pq.write_table(table, str(path), **options)


# --------------------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------------------


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the run directory ``path`` (or of the manifest file itself).

    >>> import tempfile
    >>> run = tempfile.mkdtemp()
    >>> DatasetWriter(run, meta={"seed": 1}).finish()
    >>> m = read_manifest(run)
    >>> m["format"], m["meta"], m["parts"], m["complete"]
    ('spades_sim-run', {'seed': 1}, {}, True)
    """
    store = _store(path)
    rel = MANIFEST_NAME if store.kind() == "dir" else ""
    if store.kind(rel) != "file":
        raise FileNotFoundError(
            f"{store.describe(rel)} not found: {store.describe()} is not a spades_sim run"
        )
    return _parse_manifest(store.read_text(rel), store.describe(rel))


def part_files(path: str | os.PathLike[str], table: str = "hands") -> list[Path]:
    """The complete part files of one table of a run, in part order.

    A run on a remote filesystem (a URI other than ``file://``) has no local files:
    ``ValueError`` (read it with :func:`open_dataset` or :func:`load`).

    >>> part_files("/nonexistent-run")
    []
    """
    store = _store(path)
    if store.local_path is None:
        raise ValueError(
            f"{store.describe()} is not on a local filesystem: read it with open_dataset or load"
        )
    return [store.local_path / rel for rel in _part_names(store, table)]


def open_dataset(path: str | os.PathLike[str], table: str = "hands") -> pads.Dataset:
    """A ``pyarrow.dataset.Dataset`` over one table of a run, parts in order.

    For data larger than memory: scan it with column and filter pushdown, or query it
    from DuckDB. Raises ``FileNotFoundError`` when the run has no part of that table.

    >>> import tempfile, numpy as np
    >>> run = tempfile.mkdtemp()
    >>> DatasetWriter(run, meta={}).write_part(0, {"x": np.arange(3, dtype=np.int8)})["rows"]
    3
    >>> open_dataset(run).count_rows()
    3
    """
    store = _store(path)
    if store.kind() != "dir":
        raise FileNotFoundError(f"{store.describe()} is not a directory")
    names = _part_names(store, table)
    if not names:
        where = store.describe(_table_rel(table))
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
    >>> run = tempfile.mkdtemp()
    >>> with DatasetWriter(run, meta={}) as w:
    ...     _ = w.write_part(0, {"deal": np.arange(6, dtype=np.int64)})
    >>> load(run, filters=[("deal", ">=", 4)])["deal"].tolist()
    [4, 5]
    """
    store = _store(path)
    root = store.describe()
    if store.kind() != "dir":
        raise FileNotFoundError(f"{root} is not a directory")
    if table != "hands" and store.kind(_table_rel(table)) != "dir":
        raise FileNotFoundError(f"{root} has no {table} table ({TABLE_DIRS[table]}/)")
    if not _part_names(store, table):
        return pd.DataFrame()
    expression = (
        pq.filters_to_expression(filters)
        if filters is not None and not isinstance(filters, pads.Expression)
        else filters
    )
    data = open_dataset(path, table).to_table(
        columns=list(columns) if columns is not None else None, filter=expression
    )
    return _to_pandas(data)


def load_games(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
    filters: pads.Expression | Sequence[Any] | None = None,
) -> pd.DataFrame:
    """Read the per-game table of a games-mode run (``load(path, table="games")``).

    >>> import tempfile, numpy as np
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
    >>> run = tempfile.mkdtemp()
    >>> w = DatasetWriter(run, meta={"seed": 5})
    >>> _ = w.write_part(2, {"x": np.zeros(1, "i1")}, part_meta={"deal_start": 8})
    >>> info = file_metadata(run + "/part-00002.parquet")
    >>> info["meta"], info["part"], info["part_meta"]
    ({'seed': 5}, 2, {'deal_start': 8})
    """
    kv = _store(path).parquet_metadata("").metadata or {}
    raw = kv.get(METADATA_KEY.encode())
    if raw is None:
        raise ValueError(f"{path} carries no {METADATA_KEY!r} metadata: not a spades_sim part")
    decoded: dict[str, Any] = json.loads(raw)
    return decoded
