"""Where a run lives: a local directory, or a directory on a pyarrow filesystem (a URI).

Contract
--------
:func:`open_store` gives the store of a run directory ``DIR``: a local path
(:class:`LocalStore`), or a URI for which ``pyarrow.fs.FileSystem.from_uri`` resolves a
filesystem (``file:///abs/dir``, ``s3://bucket/dir``, ``gs://...``, ``hdfs://...``;
:class:`ArrowStore`). Both have the same methods, each taking a name relative to the run
directory. A file written "atomically" is written under a temporary name and then moved
into place: on a local or network filesystem a rename, on an object store a copy (the
object appears whole) and a delete. ``fsync`` applies to local paths only.

Reading a part (:meth:`LocalStore.read_part`, :func:`named_errors`) verifies the Parquet
page checksums the writer stores and turns any failure to read one file (a truncated
file, zeroed bytes, a bad checksum) into one :class:`CorruptPart` naming that file.
:func:`file_checksum` is the checksum the manifest records for each part file.
"""

from __future__ import annotations

import contextlib
import os
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from spades_sim.dataset.layout import PART_RE, in_table, table_rel

__all__ = [
    "ArrowStore",
    "CorruptPart",
    "LocalStore",
    "Store",
    "file_checksum",
    "is_uri",
    "named_errors",
    "open_store",
    "part_names",
]


class CorruptPart(ValueError):
    """A part file that cannot be read as written: the message names the file."""


@contextlib.contextmanager
def named_errors(where: str) -> Iterator[None]:
    """Any failure to read the Parquet file ``where`` as one :class:`CorruptPart` naming it
    (pyarrow's own messages, "Parquet magic bytes not found in footer" and the like, name
    no file)."""
    try:
        yield
    except CorruptPart:
        raise
    except FileNotFoundError:
        raise CorruptPart(f"{where}: listed in the manifest but missing") from None
    except (pa.ArrowException, OSError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise CorruptPart(
            f"{where}: corrupt part file ({message}); resuming the run recomputes it"
        ) from None


CHECKSUM_BLOCK: Final = 1 << 22


def file_checksum(read: Callable[[int], bytes]) -> str:
    """``"crc32:XXXXXXXX"`` of the bytes ``read(size)`` yields until it yields none.

    >>> import io
    >>> file_checksum(io.BytesIO(b"spades").read)
    'crc32:d86472fd'
    """
    crc = 0
    while block := read(CHECKSUM_BLOCK):
        crc = zlib.crc32(block, crc)
    return f"crc32:{crc:08x}"


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


def _write_parquet(table: pa.Table, path: Path, **options: Any) -> None:
    """One Parquet file. ``write_table`` and ``ParquetWriter`` measured the same speed."""
    pq.write_table(table, str(path), **options)


VERIFIED_PARQUET: Final = pads.ParquetFileFormat(
    default_fragment_scan_options=pads.ParquetFragmentScanOptions(page_checksum_verification=True)
)
"""Parquet as the readers scan it: every page's checksum checked (the writer stores them)."""

_URI_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_uri(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` is a URI (``scheme://...``) rather than a local path.

    >>> is_uri("file:///tmp/run"), is_uri("s3://bucket/runs/a"), is_uri("runs/first")
    (True, True, False)
    """
    return isinstance(location, str) and _URI_RE.match(location) is not None


class LocalStore:
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

    def checksum(self, rel: str) -> str:
        """:func:`file_checksum` of one file."""
        with open(self._path(rel), "rb") as f:
            return file_checksum(f.read)

    def read_part(self, rel: str, columns: Sequence[str] | None = None) -> pa.Table:
        """One part file's columns, page checksums verified (:func:`named_errors`)."""
        with named_errors(self.describe(rel)):
            file = pq.ParquetFile(self._path(rel), page_checksum_verification=True)
            return file.read(columns=list(columns) if columns is not None else None)

    def schema(self, rel: str) -> pa.Schema:
        """The Arrow schema of one part file."""
        with named_errors(self.describe(rel)):
            return pq.read_schema(self._path(rel))

    def dataset(self, rels: Sequence[str]) -> pads.Dataset:
        return pads.dataset([str(self._path(r)) for r in rels], format=VERIFIED_PARQUET)


class ArrowStore:
    """A run directory given as a URI, on the ``pyarrow.fs`` filesystem it names.

    Same methods as :class:`LocalStore`. A move is a rename on a local or network
    filesystem and a copy then a delete on an object store, where the copied object
    appears whole; there is no fsync.
    """

    def __init__(self, uri: str) -> None:
        # pyarrow.fs only for URI stores: a local run never loads it
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
        # pyarrow.fs only for URI stores: a local run never loads it
        import pyarrow.fs as pafs

        found = self.fs.get_file_info(self._path(rel)).type
        if found == pafs.FileType.Directory:
            return "dir"
        return "file" if found == pafs.FileType.File else None

    def makedirs(self, rel: str = "") -> None:
        self.fs.create_dir(self._path(rel), recursive=True)

    def entries(self, rel: str = "") -> list[tuple[str, bool]]:
        # pyarrow.fs only for URI stores: a local run never loads it
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

    def checksum(self, rel: str) -> str:
        """:func:`file_checksum` of one file."""
        with self.fs.open_input_stream(self._path(rel)) as f:
            return file_checksum(f.read)

    def read_part(self, rel: str, columns: Sequence[str] | None = None) -> pa.Table:
        """One part file's columns, page checksums verified (:func:`named_errors`)."""
        with named_errors(self.describe(rel)), self.fs.open_input_file(self._path(rel)) as f:
            file = pq.ParquetFile(f, page_checksum_verification=True)
            return file.read(columns=list(columns) if columns is not None else None)

    def schema(self, rel: str) -> pa.Schema:
        """The Arrow schema of one part file."""
        with named_errors(self.describe(rel)):
            return pq.read_schema(self._path(rel), filesystem=self.fs)

    def dataset(self, rels: Sequence[str]) -> pads.Dataset:
        paths = [self._path(r) for r in rels]
        return pads.dataset(paths, format=VERIFIED_PARQUET, filesystem=self.fs)


Store = LocalStore | ArrowStore


def open_store(location: str | os.PathLike[str]) -> Store:
    """The store of a run directory given as a local path or a URI."""
    if is_uri(location):
        return ArrowStore(str(location))
    return LocalStore(Path(location))


def part_names(store: Store, table: str) -> list[str]:
    """The complete part files of one table, relative to the run directory, in part order."""
    folder = table_rel(table)
    if store.kind(folder) != "dir":
        return []
    return [
        in_table(folder, name)
        for name, is_dir in store.entries(folder)
        if not is_dir and PART_RE.fullmatch(name)
    ]
