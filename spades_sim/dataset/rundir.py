"""A run directory opened for writing: new, overwritten or resumed, and its manifest.

Contract
--------
:class:`RunDirectory` opens ``DIR`` (a local path or a URI, :mod:`.store`) for one run
and alone keeps its manifest. A missing or empty directory starts a run. A non-empty one
is refused with ``FileExistsError`` unless ``overwrite=True`` (delete only what a run
writes; refused with ``ValueError`` if there is no manifest but other files) or
``resume=True`` (the stored meta must equal the new one, else ``ValueError`` naming the
first differing key; parts whose files are missing or short are dropped, temporary and
unlisted files deleted, and :attr:`RunDirectory.done_parts` says what to skip). A
resumed part is kept only if each of its files has the CRC-32 its entry records (so a
part with bytes zeroed or a truncated one is computed again); a resume therefore reads
every kept file once.

Atomicity. The manifest is rewritten whole (temporary name, then rename) each time a
part is recorded, and only after the part's files are in place; the in-memory copy
changes only once the new manifest is on disk, so an interrupt at any moment leaves the
two agreeing or the disk one part behind, never ahead. A crash at any moment, SIGKILL
included, leaves complete part files only and a manifest listing only parts whose files
(hands, games, plays) are all complete. Opening it again with ``resume`` (or
:meth:`RunDirectory.remove_stray_files`) deletes temporary files and the part files the
manifest does not list. A run started in a missing or empty directory that fails before
its first part is recorded is undone whole (:meth:`RunDirectory.abandon_if_unused`, called
by the writer on a failure that is not an interrupt). Thread-safe.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from spades_sim.dataset.layout import (
    MANIFEST_NAME,
    MANIFEST_TMP,
    PART_RE,
    STAGE_DIRS,
    TABLE_DIRS,
    TMP_RE,
    first_difference,
    in_table,
    is_run_entry,
    json_normal,
    lookup,
    manifest_text,
    new_manifest,
    parse_manifest,
    part_name,
    short,
    table_rel,
)
from spades_sim.dataset.parts import check_index
from spades_sim.dataset.store import is_uri, open_store

__all__ = ["RunDirectory", "RunWarning", "record_stage"]


class RunWarning(UserWarning):
    """Something about a run directory the user should hear of (a damaged part redone)."""


class RunDirectory:
    """The run directory ``path`` opened for the run ``meta``; the keeper of its manifest.

    ``meta`` must be JSON-serialisable (it is stored as it reads back from JSON);
    ``overwrite`` and ``resume`` as in the module docstring; ``fsync`` flushes the
    manifest to disk before each rename.

    >>> import tempfile
    >>> run = RunDirectory(tempfile.mkdtemp() + "/run", {"seed": 2})
    >>> run.done_parts, run.manifest["complete"]
    (set(), False)
    >>> RunDirectory(run.path, {"seed": 3}, resume=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot resume ...: its run was made with a different 'seed' (stored 2, ...
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        meta: Mapping[str, Any],
        *,
        overwrite: bool = False,
        resume: bool = False,
        fsync: bool = True,
    ) -> None:
        if overwrite and resume:
            raise ValueError("overwrite and resume exclude each other: pick one")
        if not isinstance(meta, Mapping):
            raise ValueError(f"meta must be a mapping, got {type(meta).__name__}")
        self.path: str | Path = str(path) if is_uri(path) else Path(path)
        self.meta: dict[str, Any] = json_normal(dict(meta), "meta")
        self.store = open_store(path)
        self.fsync = fsync
        self._lock = threading.Lock()
        self._manifest = self._open(overwrite=overwrite, resume=resume)

    def _open(self, *, overwrite: bool, resume: bool) -> dict[str, Any]:
        store = self.store
        root = store.describe()
        kind = store.kind()
        if kind == "file":
            raise FileExistsError(f"{root} exists and is not a directory")
        store.makedirs()
        entries = store.entries()
        # a run this call starts from nothing is undone whole if it fails before its
        # first part (abandon_if_unused): nothing was there to keep
        self._fresh = not entries
        self._created = kind is None
        foreign = [name for name, is_dir in entries if not is_run_entry(name, is_dir)]
        stored: dict[str, Any] | None = None
        bad_manifest: str | None = None  # why the manifest there is not one this reads
        if (MANIFEST_NAME, False) in entries:
            try:
                stored = parse_manifest(
                    store.read_text(MANIFEST_NAME), store.describe(MANIFEST_NAME)
                )
            except ValueError as exc:
                bad_manifest = " ".join(str(exc).split())
                foreign.insert(0, MANIFEST_NAME)
        if entries and not (overwrite or resume):
            if stored is not None or not foreign:
                raise FileExistsError(
                    f"{root} already holds a spades_sim run; pass --resume to continue it "
                    "or --overwrite to replace it"
                )
            raise FileExistsError(f"{root} is not empty and is not a spades_sim run")
        if bad_manifest is not None:
            raise ValueError(
                f"refusing to {'overwrite' if overwrite else 'resume'} {root}: {bad_manifest}"
            )
        if stored is None and foreign:
            raise ValueError(
                f"refusing to {'overwrite' if overwrite else 'resume'} {root}: it is not a "
                f"spades_sim run (no {MANIFEST_NAME}) and holds other files, e.g. {foreign[0]!r}"
            )
        if stored is None or overwrite:
            # The new, empty manifest replaces the old one first: from then on, whatever a
            # crash leaves behind, the manifest lists no part that is not complete.
            manifest = new_manifest(self.meta)
            self._write_manifest(manifest)
            self._remove_run_files(keep=set())
            self._remove_stage_files()  # computed from the rows replaced
            return manifest

        different = first_difference(stored.get("meta"), self.meta)
        if different is not None:
            raise ValueError(
                f"cannot resume {root}: its run was made with a different {different!r} "
                f"(stored {short(lookup(stored.get('meta'), different))}, "
                f"now {short(lookup(self.meta, different))}); pass --overwrite to replace it"
            )
        parts = {k: v for k, v in stored.get("parts", {}).items() if self._part_intact(k, v)}
        dropped = sorted(set(stored.get("parts", {})) - set(parts))
        if dropped:  # said, not done silently: these parts are computed again
            names = ", ".join(part_name(int(k)) if k.isdigit() else k for k in dropped[:5])
            more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
            warnings.warn(
                f"{root}: {len(dropped)} listed part(s) are missing, short or fail their "
                f"checksum ({names}{more}); computing them again",
                RunWarning,
                stacklevel=2,
            )
        stored["parts"] = parts
        self._write_manifest(stored)
        self._remove_run_files(keep={int(k) for k in parts})
        return stored

    def _part_intact(self, key: str, entry: Any, verify: bool = True) -> bool:
        """Whether a manifest entry's files exist with the row counts it records and
        (``verify``, when the entry has them) the checksums."""
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
                rows = self.store.parquet_metadata(name).num_rows
            except (OSError, pa.ArrowException):
                return False
            if rows != entry.get(prefix + "rows"):
                return False
            checksum = entry.get(prefix + "checksum")
            if verify and checksum is not None:
                try:
                    if self.store.checksum(name) != checksum:
                        return False
                except OSError:
                    return False
        return True

    def _remove_run_files(self, keep: set[int]) -> None:
        """Delete temporary files and the part files not in ``keep``; leave other files alone."""
        store = self.store
        for table in TABLE_DIRS:
            folder = table_rel(table)
            if store.kind(folder) != "dir":
                continue
            for name, _ in store.entries(folder):
                part = PART_RE.fullmatch(name)
                if (part and int(part.group(1)) not in keep) or TMP_RE.fullmatch(name):
                    store.remove(in_table(folder, name))
            if folder and not store.entries(folder):
                store.rmdir(folder)
        store.remove(MANIFEST_TMP)

    def _remove_stage_files(self) -> None:
        """Delete the part and temporary files of every stage (:data:`STAGE_DIRS`)."""
        store = self.store
        for folder in STAGE_DIRS.values():
            if store.kind(folder) != "dir":
                continue
            for name, _ in store.entries(folder):
                if PART_RE.fullmatch(name) or TMP_RE.fullmatch(name):
                    store.remove(in_table(folder, name))
            if not store.entries(folder):
                store.rmdir(folder)

    def remove_stray_files(self) -> None:
        """Delete temporary files and part files the manifest does not list.

        A worker that died while writing leaves a temporary file behind, an abandoned
        one a part nobody recorded; the Dask backend calls this before it marks a run
        complete and when it stops early. (Readers never take temporary files for data,
        and opening the run again with ``resume`` deletes them as well.)
        """
        keep = self.done_parts
        with contextlib.suppress(OSError, ValueError, KeyError, AttributeError):
            # a part on disk is kept too: an interrupt may have come between writing the
            # manifest and taking it in memory (see "Atomicity")
            stored = parse_manifest(self.store.read_text(MANIFEST_NAME), self.store.describe())
            keep |= {int(k) for k in stored["parts"] if re.fullmatch(r"\d{5}", k)}
        self._remove_run_files(keep=keep)

    def abandon_if_unused(self) -> bool:
        """Undo a run that started in a missing or empty directory and failed before
        recording a part: its manifest, temporary files and empty folders go, and the
        directory too if this run made it, so that the same command can simply be run
        again. A resumed or overwritten run, or one with a part recorded, is left as it
        is (a resume continues it). Returns whether the run was undone."""
        with self._lock:
            if not self._fresh or self._manifest["parts"]:
                return False
        self._remove_run_files(keep=set())
        self._remove_stage_files()
        store = self.store
        store.remove(MANIFEST_NAME)
        for name, is_dir in store.entries():
            if is_dir and is_run_entry(name, is_dir) and not store.entries(name):
                store.rmdir(name)
        if self._created and not store.entries():
            with contextlib.suppress(OSError):
                store.rmdir("")
        return True

    @property
    def done_parts(self) -> set[int]:
        """Indices of the parts recorded in the manifest (resumed ones and those written)."""
        with self._lock:
            return {int(k) for k in self._manifest["parts"]}

    def is_listed(self, index: int) -> bool:
        """Whether part ``index`` is recorded in the manifest."""
        with self._lock:
            return f"{index:05d}" in self._manifest["parts"]

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the manifest as last written."""
        with self._lock:
            return json.loads(json.dumps(self._manifest))

    def _write_manifest(self, manifest: Mapping[str, Any]) -> None:
        self.store.write_text_atomic(MANIFEST_NAME, manifest_text(manifest), self.fsync)

    def record(self, index: int, entry: Mapping[str, Any]) -> None:
        """List part ``index`` (whose files are in place) with its manifest ``entry``."""
        with self._lock:
            parts = {**self._manifest["parts"], f"{index:05d}": dict(entry)}
            manifest = {**self._manifest, "parts": parts, "complete": False}
            self._write_manifest(manifest)
            self._manifest = manifest  # only once it is on disk (see "Atomicity")

    def check_entry(self, part_index: int, entry: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """Check a part another process wrote: its index and JSON entry, if its files hold
        the rows the entry gives; ``ValueError`` if they do not."""
        index = check_index(part_index)
        normal = json_normal(dict(entry), "entry")
        # the writer took the checksums from these very files: reading every part again
        # here would cost the client a second pass over the cluster's output
        intact = self._part_intact(f"{index:05d}", normal, verify=False)
        if normal.get("file") != part_name(index) or not intact:
            raise ValueError(
                f"part {index} of {self.store.describe()}: its files are missing or do not "
                f"hold the rows its entry gives ({short(normal, 120)})"
            )
        return index, normal

    def mark_complete(self) -> None:
        """Mark the run complete in the manifest."""
        with self._lock:
            manifest = {**self._manifest, "complete": True}
            self._write_manifest(manifest)
            self._manifest = manifest


RESERVED_MANIFEST_KEYS = frozenset({"format", "format_version", "schema_version", "meta", "parts"})


def record_stage(
    location: str | os.PathLike[str], stage: str, entry: Mapping[str, Any], fsync: bool = True
) -> dict[str, Any]:
    """Record ``entry`` as stage ``stage`` (a key of :data:`STAGE_DIRS`) in the manifest of
    the run ``location``, atomically (temporary name, then rename); returns the manifest.

    A stage runs after the run's rows are written, with no writer open on the run.

    >>> import tempfile
    >>> run = tempfile.mkdtemp()
    >>> RunDirectory(run, {"seed": 1}).mark_complete()
    >>> record_stage(run, "dd", {"complete": False})["dd"]
    {'complete': False}
    """
    if stage not in STAGE_DIRS or stage in RESERVED_MANIFEST_KEYS:
        raise ValueError(f"stage: expected one of {', '.join(STAGE_DIRS)}, got {stage!r}")
    store = open_store(location)
    if store.kind(MANIFEST_NAME) != "file":
        raise FileNotFoundError(f"{store.describe(MANIFEST_NAME)} not found: not a spades_sim run")
    manifest = parse_manifest(store.read_text(MANIFEST_NAME), store.describe(MANIFEST_NAME))
    manifest[stage] = json_normal(dict(entry), stage)
    store.write_text_atomic(MANIFEST_NAME, manifest_text(manifest), fsync)
    return manifest
