"""The plan: a run of ``total`` items cut into deterministic chunks.

Contract
--------
Chunk ``k`` of a run covers items (deals in hands mode, games in games mode)
``[k * chunk_size, (k + 1) * chunk_size)``; a run written to disk makes chunk ``k`` its
part ``k``. Every item draws from its own random stream, so the rows never depend on the
chunk size: it decides how the work is cut (memory, part files), never what it computes.
:func:`plan` checks the counts (one ``ValueError`` naming the argument) and lists the
chunks; the default sizes bound a chunk's memory (:func:`default_chunk_size` for rows,
:func:`default_aggregate_chunk` for counts); :func:`stored_chunk_size` is the size a run
directory was written with, which a resume takes when none is given.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from spades_sim.dataset import MAX_PART, read_manifest
from spades_sim.run.spec import RunSpec
from spades_sim.validate import check_count

__all__ = [
    "DEFAULT_HAND_CHUNK",
    "MAX_GAME_ROWS",
    "Piece",
    "default_aggregate_chunk",
    "default_chunk_size",
    "plan",
    "stored_chunk_size",
]

DEFAULT_HAND_CHUNK = 1 << 18  # deals: ~1M per-seat rows, one Parquet row group
MAX_GAME_ROWS = 1 << 21  # games chunk sized so its row buffer stays under ~2M rows (memory)


class Piece(NamedTuple):
    """Chunk ``part`` of a run: items ``[start, start + items)``."""

    part: int
    start: int
    items: int


def default_chunk_size(spec: RunSpec) -> int:
    """Items per chunk of rows: ~1M per-seat rows for hands; a bounded row buffer for games.

    >>> default_chunk_size(RunSpec.build(seed=0))
    262144
    """
    if spec.mode == "hands":
        return DEFAULT_HAND_CHUNK
    return max(1, MAX_GAME_ROWS // (spec.rules.max_hands * spec.rules.players))


def default_aggregate_chunk(spec: RunSpec) -> int:
    """Items per chunk of an aggregate run: about four million hands (the tables are
    small whatever the chunk, so a part is a few hundred rows).

    >>> default_aggregate_chunk(RunSpec.build(seed=0))
    4194304
    """
    return 1 << 22 if spec.mode == "hands" else 1 << 18


def plan(
    spec: RunSpec,
    total: int,
    chunk_size: int | None = None,
    *,
    max_parts: int | None = MAX_PART + 1,
    names: tuple[str, str] = ("total", "chunk size"),
) -> list[Piece]:
    """The chunks of a run of ``total`` items as :class:`Piece` s ``(part, start,
    items)``; ``chunk_size`` None is :func:`default_chunk_size`. More than ``max_parts``
    chunks (a run directory's part numbers; None: no limit) is refused; ``names`` are
    the two arguments' names in the error messages (the caller's own).

    >>> [tuple(p) for p in plan(RunSpec.build(seed=0), 10, chunk_size=4)]
    [(0, 0, 4), (1, 4, 4), (2, 8, 2)]
    """
    what = "hands" if spec.mode == "hands" else "games"
    total = check_count(total, names[0], 0, f"the number of {what}")
    size = check_count(default_chunk_size(spec) if chunk_size is None else chunk_size, names[1], 1)
    n_parts = -(-total // size)
    if max_parts is not None and n_parts > max_parts:
        raise ValueError(
            f"chunk size: {total:,} {what} in chunks of {size:,} make {n_parts:,} part files; "
            f"at most {max_parts:,} are allowed, use a chunk size of at least "
            f"{-(-total // max_parts):,}"
        )
    return [
        Piece(k, start, min(size, total - start)) for k, start in enumerate(range(0, total, size))
    ]


def stored_chunk_size(out: str | os.PathLike[str]) -> int | None:
    """The chunk size the run directory ``out`` was written with, or None (no run there,
    or none recorded)."""
    try:
        size = read_manifest(out)["meta"].get("chunk_size")
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    return size if isinstance(size, int) and size >= 1 else None
