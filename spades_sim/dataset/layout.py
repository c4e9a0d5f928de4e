"""The names a run directory holds and the manifest's format: no I/O here.

Contract
--------
A run directory ``DIR`` holds::

    DIR/part-00000.parquet ...       the hands table (one row per seat per hand)
    DIR/_manifest.json               the run manifest
    DIR/_games/part-00000.parquet    the games table (games mode; one row per game)
    DIR/_plays/part-00000.parquet    play records (optional)
    DIR/_dd/part-00000.parquet       a stage solved after the rows (optional; STAGE_DIRS)
    DIR/.part-00000.parquet.tmp      a part being written: never read as data

Part indices have five digits (``0 .. MAX_PART``) so that file names sort in part order.
The manifest (``_manifest.json``) is::

    {"format": "spades_sim-run", "format_version": 1, "schema_version": meta["schema_version"],
     "meta": {...run meta...},
     "parts": {"00000": {"rows": n, "games_rows": m, "deal_start": a, "deal_stop": b,
                         "file": "part-00000.parquet", "games_file": "_games/part-00000.parquet",
                         "checksum": "crc32:...", "games_checksum": "crc32:..."},
               ...},
     "complete": false}

A stage computed from a finished run's rows (the double-dummy table,
:mod:`spades_sim.run.double_dummy`) writes its own parts in its directory of
:data:`STAGE_DIRS` and records itself under its name in the manifest (``"dd": {...}``,
written by :func:`~.rundir.record_stage`); overwriting the run deletes its files, a
resume keeps them (the same meta means the same deals).

``checksum`` is the CRC-32 of the file's bytes (:func:`~.store.file_checksum`), checked
when a run is resumed; manifests written before it have none and are checked by row
counts alone. The manifest is written one line per key and per part
(:func:`manifest_text`) and read back with :func:`parse_manifest`, which refuses
anything that is not a manifest of a format this version reads. Each Parquet file also
carries the key ``spades_sim`` (:data:`METADATA_KEY`) in its key-value metadata:
``{"format": "spades_sim-part", "format_version": 1, "table": "hands", "part": 0,
"meta": {...}, "part_meta": {...}}``.

The JSON helpers (:func:`json_normal`, :func:`first_difference`) are how a resume compares
the stored meta with the new one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

import numpy.typing as npt

FORMAT: Final = "spades_sim-run"
FORMAT_VERSION: Final = 1
PART_FORMAT: Final = "spades_sim-part"
MANIFEST_NAME: Final = "_manifest.json"
METADATA_KEY: Final = "spades_sim"
MAX_PART: Final = 99_999
"""Part indices have five digits so that file names sort in part order."""

TABLE_DIRS: Final[dict[str, str]] = {"hands": "", "games": "_games", "plays": "_plays"}
"""Where each table's part files live, relative to the run directory."""

STAGE_DIRS: Final[dict[str, str]] = {"dd": "_dd"}
"""Where each stage computed after the rows keeps its part files (stage name -> directory),
relative to the run directory; the manifest key of a stage is its name."""

# File names. pyarrow's dataset discovery ignores files and directories whose names start
# with "." or "_" ("selector_ignore_prefixes ... By default this is ['.', '_']",
# https://arrow.apache.org/docs/python/generated/pyarrow.dataset.FileSystemFactoryOptions.html,
# and pyarrow.dataset.dataset(ignore_prefixes=...)); pandas.read_parquet(DIR) goes through
# it. DuckDB documents globbing only (https://duckdb.org/docs/stable/data/multiple_files/
# overview); verified by experiment with duckdb 2.0.1: "DIR/*.parquet" does match dot- and
# underscore-names ending in .parquet, so temporary files must not end in ".parquet", and it
# does not descend into _games/ or _plays/ (read_parquet('DIR') and 'DIR/**' do).
PART_RE: Final = re.compile(r"part-(\d{5})\.parquet")
TMP_RE: Final = re.compile(r"\.part-(\d{5})\.parquet(?:\.[0-9a-z]+)?\.tmp")
MANIFEST_TMP: Final = "._manifest.json.tmp"
RESERVED_PART_KEYS: Final = frozenset(
    {"rows", "file", "checksum"}
    | {f"{t}_{k}" for t in ("games", "plays") for k in ("rows", "file", "checksum")}
)

Columns = Mapping[str, npt.NDArray[Any]]
"""One table of one part: equal-length numpy columns (or a structured array)."""


def part_name(index: int) -> str:
    """The file name of part ``index`` (in every table's directory).

    >>> part_name(7)
    'part-00007.parquet'
    """
    return f"part-{index:05d}.parquet"


def tmp_name(index: int, attempt: str = "") -> str:
    """The temporary name of a part file; ``attempt`` tells concurrent writers apart."""
    return f".part-{index:05d}.parquet{'.' + attempt if attempt else ''}.tmp"


def new_manifest(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest of a run with no part yet.

    >>> new_manifest({"seed": 1, "schema_version": 3})["schema_version"]
    3
    """
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": meta.get("schema_version"),
        "meta": dict(meta),
        "parts": {},
        "complete": False,
    }


def manifest_text(manifest: Mapping[str, Any]) -> str:
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


def parse_manifest(text: str, where: str) -> dict[str, Any]:
    """The manifest in ``text`` (read from ``where``); ValueError if it is none this reads."""
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


def is_run_entry(name: str, is_dir: bool) -> bool:
    """True for a name a run writes (part, temporary, manifest, table directory)."""
    if is_dir:
        return name in ("_games", "_plays", *STAGE_DIRS.values())
    return (
        name in (MANIFEST_NAME, MANIFEST_TMP)
        or PART_RE.fullmatch(name) is not None
        or TMP_RE.fullmatch(name) is not None
    )


def table_rel(table: str) -> str:
    """The directory of a table's part files, relative to the run directory."""
    if table not in TABLE_DIRS:
        raise ValueError(f"unknown table {table!r}; expected one of {', '.join(TABLE_DIRS)}")
    return TABLE_DIRS[table]


def in_table(table_rel: str, name: str) -> str:
    """``name`` inside a table's directory, relative to the run directory."""
    return f"{table_rel}/{name}" if table_rel else name


def json_normal(obj: Any, what: str) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists); ValueError if it cannot."""
    try:
        return json.loads(json.dumps(obj, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be JSON-serialisable: {exc}") from None


def first_difference(old: Any, new: Any, where: str = "") -> str | None:
    """Dotted key path of the first difference between two JSON values, or None."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*new, *(k for k in old if k not in new)]:
            path = f"{where}.{key}" if where else str(key)
            if key not in old or key not in new:
                return path
            found = first_difference(old[key], new[key], path)
            if found is not None:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if type(old) is not type(new) or old != new:
        return where or "meta"
    return None


def lookup(obj: Any, path: str) -> Any:
    """The value at a :func:`first_difference` path, or ``"<missing>"``."""
    for token in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        try:
            obj = obj[int(token[1:-1])] if token.startswith("[") else obj[token]
        except (KeyError, IndexError, TypeError):
            return "<missing>"
    return obj


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
