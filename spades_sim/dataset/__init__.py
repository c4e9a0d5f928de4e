"""Parquet run datasets: atomic part files, a run manifest, resume, and readers.

A run writes a directory ``DIR``::

    DIR/part-00000.parquet ...       the hands table (one row per seat per hand)
    DIR/_manifest.json               the run manifest (meta, the parts, complete or not)
    DIR/_games/part-00000.parquet    the games table (games mode; one row per game)
    DIR/_plays/part-00000.parquet    play records (optional)
    DIR/_dd/part-00000.parquet       the double-dummy table, solved after the rows (optional)
    DIR/.part-00000.parquet.tmp      a part being written: never read as data

Each part file is written to a temporary dot-name, closed, fsynced and renamed into
place; then the manifest is rewritten the same way to list the part. A crash at any
moment, SIGKILL included, leaves complete part files only, and a manifest listing only
parts whose files are all complete. Each Parquet file also carries the run meta and its
part meta in its key-value metadata (:func:`file_metadata`), so a single file explains
itself. ``DIR`` is a local path or a URI pyarrow's filesystems resolve (``s3://...``).

The modules, each with its own contract:

=============  ==========================================================================
``layout``     the names in a run directory and the manifest's format (no I/O)
``store``      where a run lives: a local directory or a pyarrow filesystem (``open_store``)
``format``     :class:`PartFormat` (the validated encoding options) and columns -> Arrow
``parts``      one part's files: :func:`write_part_files` (used by Dask workers too)
``rundir``     :class:`RunDirectory`: opening (new, overwrite, resume) and the manifest;
               :func:`record_stage` (a stage solved after the rows, in the manifest)
``writer``     :class:`DatasetWriter`: parts written now or by background threads
``readers``    :func:`load`, :func:`load_games`, :func:`open_dataset`, :func:`read_manifest`,
               :func:`part_files`, :func:`file_metadata`
=============  ==========================================================================

>>> import tempfile, numpy as np
>>> run = tempfile.mkdtemp() + "/run"
>>> with DatasetWriter(run, meta={"seed": 1}) as w:
...     _ = w.write_part(0, {"deal": np.arange(3, dtype=np.int64)})
...     w.finish()
>>> load(run)["deal"].tolist(), read_manifest(run)["complete"]
([0, 1, 2], True)
"""

from spades_sim.dataset.format import COMPRESSIONS, INTEGER_ENCODINGS, PartFormat
from spades_sim.dataset.layout import FORMAT, FORMAT_VERSION, MANIFEST_NAME, MAX_PART, METADATA_KEY
from spades_sim.dataset.parts import write_part_files
from spades_sim.dataset.readers import (
    file_metadata,
    load,
    load_games,
    open_dataset,
    part_files,
    read_manifest,
)
from spades_sim.dataset.rundir import RunDirectory, record_stage
from spades_sim.dataset.store import is_uri
from spades_sim.dataset.writer import DatasetWriter

__all__ = [
    "COMPRESSIONS",
    "FORMAT",
    "FORMAT_VERSION",
    "INTEGER_ENCODINGS",
    "MANIFEST_NAME",
    "MAX_PART",
    "METADATA_KEY",
    "DatasetWriter",
    "PartFormat",
    "RunDirectory",
    "file_metadata",
    "is_uri",
    "load",
    "load_games",
    "open_dataset",
    "part_files",
    "read_manifest",
    "record_stage",
    "write_part_files",
]
