"""How a part's columns become Parquet: the validated format options and the Arrow tables.

Contract
--------
:class:`PartFormat` is every option of how part files are written (nullable booleans,
plain columns, row group and page size, compression and level, dictionary, integer
encoding, statistics, fsync): a frozen dataclass checked when it is made, plain values so
it pickles (a Dask worker given a run's format writes a part exactly as the client's
writer would).
:meth:`PartFormat.write_options` turns it into the keyword arguments of
``pyarrow.parquet.write_table`` for one table.

Columns. A table of one part is a mapping ``name -> numpy array`` of equal length
(:func:`check_columns` validates it in the caller's thread). 1-D arrays of bool,
signed/unsigned integer or float dtype become Arrow columns without a copy (bools are
bit-packed); a 2-D ``(rows, k)`` array becomes a fixed-size list of ``k`` values per row. A
*nullable boolean* is passed as an integer array with ``1`` true, ``0`` false and ``-1``
null, its name listed in ``PartFormat.nullable_bool``; it is stored as an Arrow boolean
with nulls and read back as pandas ``"boolean"``. All other columns are stored as
non-nullable (Parquet ``REQUIRED``) fields, and that flag is how the readers tell a
nullable boolean from a plain one (:func:`to_arrow`).

Encoding. By default (``use_dictionary=None``) no column is dictionary-encoded: integer
columns are stored with DELTA_BINARY_PACKED (``integer_encoding``), except 64-bit unsigned
ones (bit masks such as the hands, incompressible by deltas) and the ``plain_columns``
(columns that repeat with a short period, such as the seat) which stay PLAIN; floats use
BYTE_STREAM_SPLIT; booleans and fixed-size lists the writer's defaults; then zstd. Data
pages hold up to ``page_rows`` rows (a million) and end at pyarrow's 1 MiB page size.

Measured on the 25-column hands table of ``run_dataset`` (262,144 deals of 4 rows, zstd
level 1; CPU time of ``to_arrow`` plus ``write_table`` per deal, medians of 5, on the
2-core AMD EPYC development machine; ``benchmarks/writer.py`` prints it column by
column). Before this layout: 0.66 us and 50.4 bytes a deal (byte-stream-split integers
0.51 us and 44.7 bytes); now 0.54 us and 50.3 bytes (byte-stream-split 0.44 us and 41.3
bytes). Where it went:

- pages: pyarrow's writer ends a page every 20,000 rows since late 2025, about 10 KB of
  a delta-coded 8-bit column, and the per-page work (zstd context, headers) was 15% of
  the writing; a page of a million rows (still at most 1 MiB) saves it, and pandas reads
  the part 20% faster too;
- nullable booleans: their bitmaps are packed by NumPy (0.2 ns a row, 3 with pyarrow's
  masked conversion);
- the seat, 0 1 2 3 repeated, costs 0.8 ns a row PLAIN (zstd matches it to nothing)
  against 4.2 delta-coded;
- the rest stays as it was, because nothing readable everywhere is better on both
  counts. The bytes: the hand masks are 23.4 of the 50.3 (PLAIN then zstd; 13 random bits
  of 52 do not shrink further without byte-stream-split), the thirteen 8-bit counts 21.4,
  the score 4.7. Dictionary pages on the counts and the score save 8.3 bytes a deal (42.0)
  but cost 33% more CPU (0.69 us: Parquet widens 8- and 16-bit values to 32 bits and
  hashing them costs more than delta coding; an Arrow dictionary array handed to the
  writer measured slower still); no zstd on the delta-coded counts saves 12% of the CPU
  for 8% more bytes (54.5); zstd level -1 leaves the masks uncompressed and level 3
  costs four times as much on them; larger write batches change nothing and data page
  version 2 is slower.

Byte-stream-split (``integer_encoding="BYTE_STREAM_SPLIT"``, the hand masks too: the
split lets zstd code each byte position on its own, 21.2 bytes a deal instead of 23.4)
is the fastest and smallest, but integer support is recent (Parquet format 2.11, 2024):
pyarrow reads it from version 16, DuckDB from mid-2026, parquet-java (Spark) from 1.14,
so it is opt-in; delta encoding has been read by every Parquet reader for years.
``write_statistics`` (True, or the columns to keep min/max for) trades row-group pruning
for speed: statistics of unsorted 8-bit columns over a million rows prune nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from spades_sim.dataset.layout import Columns

__all__ = [
    "COMPRESSIONS",
    "DEFAULT_FORMAT",
    "INTEGER_ENCODINGS",
    "PAGE_ROWS",
    "PartFormat",
    "check_columns",
    "to_arrow",
]

INTEGER_ENCODINGS: Final = ("DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT", "PLAIN")
"""Encodings ``PartFormat(integer_encoding=...)`` accepts for integer columns."""

COMPRESSIONS: Final = ("zstd", "snappy", "gzip", "brotli", "lz4", "none")
"""Codecs ``PartFormat(compression=...)`` accepts (pyarrow's Parquet codecs)."""

PAGE_ROWS: Final = 1 << 20
"""Default ``PartFormat.page_rows``: pages end at pyarrow's 1 MiB page size, not at a count."""

# Arrow's C++ writer has ended a data page every 20,000 rows since late 2025, and pyarrow
# lets it be changed (``max_rows_per_page``) from a release soon after; older versions have
# no row cap and no such option, so it is passed only where it exists.
_HAS_PAGE_ROWS: Final = "max_rows_per_page" in inspect.signature(pq.ParquetWriter).parameters


def _names(value: bool | Sequence[str] | None, what: str) -> bool | tuple[str, ...] | None:
    """A bool/None as it is, else the column names as a tuple of strings."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be True, False or a list of column names, got {value!r}")
    return tuple(value)


@dataclass(frozen=True)
class PartFormat:
    """How part files are encoded (see "Encoding" above); checked when it is made.

    ``nullable_bool`` names the integer columns (1/0/-1) stored as booleans with nulls;
    ``plain_columns`` the integer columns stored PLAIN whatever ``integer_encoding`` says
    (columns that repeat with a short period, such as the seat: zstd matches them away);
    ``row_group_size`` rows per row group; ``page_rows`` rows per data page at most
    (None: pyarrow's own cap; pages also end at its 1 MiB data page size);
    ``compression`` one of :data:`COMPRESSIONS`
    and ``compression_level`` (None: the codec's default, zstd level 1); ``use_dictionary``
    (None: no dictionary, integers in ``integer_encoding``; True, False or the columns to
    dictionary-encode); ``write_statistics`` (True, False or the columns that get min/max
    statistics); ``fsync`` (flush files and directories to disk before renaming; turn off
    only for throwaway output). Sequences are kept as tuples, so a format is hashable.

    >>> PartFormat(write_statistics=["deal"]).write_statistics
    ('deal',)
    >>> PartFormat(compression="zip")
    Traceback (most recent call last):
    ...
    ValueError: compression must be one of zstd, snappy, gzip, brotli, lz4, none, got 'zip'
    """

    nullable_bool: frozenset[str] = frozenset()
    plain_columns: frozenset[str] = frozenset()
    row_group_size: int = 1_000_000
    page_rows: int | None = PAGE_ROWS
    compression: str = "zstd"
    compression_level: int | None = None
    use_dictionary: bool | tuple[str, ...] | None = None
    write_statistics: bool | tuple[str, ...] = True
    integer_encoding: str = "DELTA_BINARY_PACKED"
    fsync: bool = True

    def __post_init__(self) -> None:
        for what in ("nullable_bool", "plain_columns"):
            given: Iterable[str] = getattr(self, what)
            names = () if isinstance(given, str) else tuple(given)
            if isinstance(given, str) or not all(isinstance(v, str) for v in names):
                raise ValueError(f"{what} must be a set of column names, got {given!r}")
            object.__setattr__(self, what, frozenset(names))
        object.__setattr__(self, "use_dictionary", _names(self.use_dictionary, "use_dictionary"))
        statistics = _names(self.write_statistics, "write_statistics")
        object.__setattr__(self, "write_statistics", statistics)
        if statistics is None:
            raise ValueError("write_statistics must be True, False or a list of column names")
        size = self.row_group_size
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"row_group_size must be at least 1, got {size}")
        rows = self.page_rows
        if rows is not None and (
            isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1
        ):
            raise ValueError(f"page_rows must be at least 1 or None, got {rows!r}")
        if not isinstance(self.compression, str) or self.compression.lower() not in COMPRESSIONS:
            raise ValueError(
                f"compression must be one of {', '.join(COMPRESSIONS)}, got {self.compression!r}"
            )
        level = self.compression_level
        if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
            raise ValueError(f"compression_level must be a whole number or None, got {level!r}")
        if self.integer_encoding not in INTEGER_ENCODINGS:
            raise ValueError(
                f"integer_encoding must be one of {', '.join(INTEGER_ENCODINGS)}, "
                f"got {self.integer_encoding!r}"
            )
        if not isinstance(self.fsync, bool):
            raise ValueError(f"fsync must be True or False, got {self.fsync!r}")

    def statistics(self, schema: pa.Schema) -> bool | list[str]:
        """``write_statistics`` as pyarrow takes it, for a table of this schema."""
        if isinstance(self.write_statistics, bool):
            return self.write_statistics
        return [name for name in self.write_statistics if name in schema.names] or False

    def encoding(self, schema: pa.Schema) -> dict[str, Any]:
        """The dictionary and column-encoding options for a table of this schema."""
        if self.use_dictionary is None:
            return _auto_encoding(schema, self.integer_encoding, self.plain_columns)
        dictionary = self.use_dictionary
        return {"use_dictionary": dictionary if isinstance(dictionary, bool) else list(dictionary)}

    def write_options(self, schema: pa.Schema) -> dict[str, Any]:
        """The keyword arguments of ``pyarrow.parquet.write_table`` for a table of ``schema``.

        >>> import pyarrow as pa
        >>> options = PartFormat().write_options(pa.schema([("deal", pa.int64())]))
        >>> options["compression"], options["column_encoding"]
        ('zstd', {'deal': 'DELTA_BINARY_PACKED'})
        """
        options = {
            "row_group_size": self.row_group_size,
            "compression": self.compression,
            "compression_level": self.compression_level,
            "write_statistics": self.statistics(schema),
            # a CRC per page, checked by every reader of this package: a part with bytes
            # zeroed or flipped is refused by name instead of read as data
            "write_page_checksum": True,
            **self.encoding(schema),
        }
        if self.page_rows is not None and _HAS_PAGE_ROWS:
            options["max_rows_per_page"] = int(self.page_rows)
        return options


DEFAULT_FORMAT: Final = PartFormat()
"""The format of a writer given none."""


def _auto_encoding(
    schema: pa.Schema, integer_encoding: str, plain_columns: frozenset[str]
) -> dict[str, Any]:
    """Writer options for ``use_dictionary=None`` (see "Encoding" in the module docstring)."""
    encodings: dict[str, str] = {}
    for f in schema:
        if pa.types.is_floating(f.type):
            encodings[f.name] = "BYTE_STREAM_SPLIT"
        elif pa.types.is_integer(f.type):
            if f.name in plain_columns:
                encodings[f.name] = "PLAIN"
            elif f.type == pa.uint64() and integer_encoding == "DELTA_BINARY_PACKED":
                encodings[f.name] = "PLAIN"  # bit masks: deltas of random bits do not shrink
            else:
                encodings[f.name] = integer_encoding
    return {"use_dictionary": False, "column_encoding": encodings}


def check_columns(
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


def _nullable_bool(values: npt.NDArray[Any]) -> pa.Array:
    """1/0/-1 as an Arrow boolean with nulls, its bitmaps packed by NumPy (``pa.array``
    with a mask took 3 ns a row, this 0.2).

    >>> _nullable_bool(np.array([1, 0, -1], dtype=np.int8)).to_pylist()
    [True, False, None]
    """
    valid = values >= 0
    nulls = len(values) - int(np.count_nonzero(valid))
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    data = pa.py_buffer(np.packbits(values == 1, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(values), [bitmap, data], null_count=nulls)


def to_arrow(
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
            arr = _nullable_bool(values)
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
