"""Where an analysis reads its rows: a frame, a ``(hands, games)`` pair or a run directory.

Contract
--------
Every analysis of this package takes ``data`` as one of

- a per-seat ``pandas.DataFrame`` as :func:`~spades_sim.simulate_hands` returns (hands
  mode: a ``deal`` column) or as the first element of
  :func:`~spades_sim.simulate_games` returns (games mode: ``game`` and ``hand_no``);
- the ``(hands, games)`` tuple :func:`~spades_sim.simulate_games` returns;
- a run directory (``str`` or ``os.PathLike``) written by ``spades-sim simulate`` or
  :func:`~spades_sim.run.run_dataset`;
- an :class:`~spades_sim.run.aggregate.Aggregate` (``simulate_hands(..., aggregate=...)``)
  or an aggregate run directory (``spades-sim simulate --aggregate``): counts instead of
  rows, which give the same tables for the keys it was counted by;
- a ``list`` of those, analysed together (the ``rules`` and ``policy`` keys then tell
  the runs apart).

A :class:`Source` yields **batches**, ``(hands, games)`` frames of plain NumPy columns:
one batch for a frame, and for a run directory one batch per part file its manifest
lists, read with pyarrow with only the columns asked for (a run still being written, or
interrupted, is read as far as its manifest goes). Memory therefore stays flat
however large the run (a part is at most about a million hands rows, or a bounded number
of games). A part holds whole games and the games table's part ``k`` holds the games of
the hands table's part ``k``, so a per-game derivation never straddles two batches.
Nullable booleans (``made``, ``nil_made``) arrive as plain booleans, False where null:
analyses read them only on rows where they are defined. A frame and the directory it
was written to thus give equal batches.

Group keys. An analysis groups by columns of its unit of observation:

- a **seat** row (:data:`SEAT_KEYS`): every per-seat column except the row identifiers
  (``deal``, ``game``, ``hand``: one group per row) and the outcomes with nulls
  (``made``, ``nil_made``: measures, not keys);
- a **side** row (:data:`SIDE_KEYS`, the rows of seats 0 and 1, which carry their side's
  figures): the columns that describe the side rather than one of its players;
- and, from the run meta (:data:`SOURCE_KEYS`): ``policy``, each side's
  ``bidding/play`` policy label (``count/heuristic``), and ``rules``, the run's rules as
  the closest preset plus the fields that differ (``mercy target=300``).

The meta is the manifest's ``meta`` for a run directory and ``df.attrs["spades_sim"]``
for a frame (:func:`~spades_sim.simulate_hands` sets it); a frame without it cannot be
grouped by ``policy`` or ``rules``.

>>> from spades_sim import simulate_hands
>>> (source,) = sources(simulate_hands(10, seed=1, play="random"))
>>> source.mode, source.policy_labels()
('hands', {0: 'count/random', 1: 'count/random'})
>>> hands, games = next(source.batches(["seat", "nil_made"]))
>>> len(hands), str(hands.nil_made.dtype), games is None
(40, 'bool', True)
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from spades_sim.dataset import read_manifest
from spades_sim.run.aggregate import Aggregate, load_aggregate
from spades_sim.schema import HAND_COLUMNS
from spades_sim.text import policy_text, rules_text

Data = pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame] | str | os.PathLike[str] | Aggregate
"""One run's rows: a per-seat frame, a ``(hands, games)`` pair or a run directory (or its
counts: an aggregate)."""

Batch = tuple[pd.DataFrame, pd.DataFrame | None]
"""The hands rows of a batch and, in games mode when asked for, its games rows."""

META_ATTR = "spades_sim"
"""The ``DataFrame.attrs`` key holding a frame's run meta (as a manifest's ``meta``)."""

ROW_IDS = ("deal", "game", "hand")
NULLABLE_OUTCOMES = ("made", "nil_made")
SOURCE_KEYS = ("policy", "rules")

SEAT_KEYS: tuple[str, ...] = tuple(
    c.name for c in HAND_COLUMNS if c.name not in ROW_IDS + NULLABLE_OUTCOMES
)
"""Columns a per-seat analysis may group by."""

SIDE_KEYS: tuple[str, ...] = (
    "side",
    "dealer",
    "hand_no",
    "side_contract",
    "side_tricks",
    "score_change",
    "bags_change",
    "bag_penalty",
    "boston",
    "score_before",
    "score_after",
    "bags_before",
    "bags_after",
)
"""Columns a per-side analysis may group by (the side's own figures)."""


class UnknownKey(ValueError):
    """A group key the analysis or the data does not have (the message names it)."""


def key_list(by: str | Sequence[str] | None) -> list[str]:
    """``by`` as a list of distinct column names, in the order given.

    >>> key_list(None), key_list("spades"), key_list(["side", "policy", "side"])
    ([], ['spades'], ['side', 'policy'])
    """
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)
    for name in names:
        if not isinstance(name, str) or not name:
            raise UnknownKey(f"by: column names must be non-empty strings, got {name!r}")
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Source:
    """One run's rows, in memory (``frames``) or in a run directory (``parts``)."""

    label: str
    mode: str
    """``"hands"`` or ``"games"``."""
    meta: Mapping[str, Any] | None
    hands_columns: frozenset[str]
    has_games: bool
    frames: Batch | None = None
    parts: tuple[tuple[Path, Path | None], ...] = ()
    aggregate: Aggregate | None = None
    """The run's counts when it is an aggregate (no rows: :meth:`batches` refuses)."""

    def batches(
        self, hands_columns: Sequence[str], games_columns: Sequence[str] = ()
    ) -> Iterator[Batch]:
        """The rows in batches, only the columns asked for (games rows when asked)."""
        if self.aggregate is not None:
            raise ValueError(f"{self.label}: an aggregate run has counts, not rows")
        hands_columns = list(dict.fromkeys(hands_columns))
        games_columns = list(dict.fromkeys(games_columns))
        missing = sorted(set(hands_columns) - self.hands_columns)
        if missing:
            raise ValueError(f"{self.label}: no column {missing[0]!r} in its rows")
        if games_columns and not self.has_games:
            raise ValueError(
                f"{self.label}: this needs the games table; pass a games run directory or "
                "the (hands, games) pair simulate_games returns"
            )
        if self.frames is not None:
            hands, games = self.frames
            yield (
                _plain(hands, hands_columns),
                _plain(games, games_columns) if games_columns and games is not None else None,
            )
            return
        for hands_file, games_file in self.parts:
            games_frame = None
            if games_columns:
                assert games_file is not None
                games_frame = _read(games_file, games_columns)
            yield _read(hands_file, hands_columns), games_frame

    def policy_labels(self) -> dict[int, str]:
        """Side -> ``bidding/play`` policy label, from the run meta.

        >>> from spades_sim.simulate import RunSpec
        >>> meta = RunSpec.build(seed=0, bidding=("count:bias=1", "pagat"), play="random").meta()
        >>> Source("x", "hands", meta, frozenset(), False).policy_labels()
        {0: 'count:bias=1/random', 1: 'pagat/random'}
        """
        policies = self._meta_for("policy").get("policies", {})
        try:
            return {
                side: policy_text(policies["bidding"][key], "bid")
                + "/"
                + policy_text(policies["play"][key], "play")
                for side, key in enumerate(("ns", "ew"))
            }
        except (KeyError, TypeError):
            raise UnknownKey(f"by 'policy': the meta of {self.label} names no policies") from None

    def rules_label(self) -> str:
        """The run's rules as the closest preset plus the fields that differ."""
        rules = self._meta_for("rules").get("rules")
        if not isinstance(rules, Mapping):
            raise UnknownKey(f"by 'rules': the meta of {self.label} holds no rules")
        return rules_text(rules)

    def _meta_for(self, key: str) -> Mapping[str, Any]:
        if self.meta is None:
            raise UnknownKey(
                f"by {key!r}: {self.label} carries no run meta; use a run directory or a "
                f"frame from simulate_hands/simulate_games (df.attrs[{META_ATTR!r}])"
            )
        return self.meta


def sources(data: Data | list[Data]) -> list[Source]:
    """``data`` (one run, or a list of runs) as :class:`Source` objects.

    >>> sources("/no/such/run")
    Traceback (most recent call last):
    ...
    FileNotFoundError: /no/such/run: no such run directory
    """
    if isinstance(data, list):
        if not data:
            raise ValueError("data: an empty list of runs")
        return [_source(d, f"run {i}") for i, d in enumerate(data)]
    return [_source(data, "the data")]


def _source(data: Data, label: str) -> Source:
    if isinstance(data, pd.DataFrame):
        return _frame_source(data, None, label)
    if isinstance(data, Aggregate):
        return _aggregate_source(data, label)
    if isinstance(data, tuple):
        if len(data) == 2 and all(isinstance(d, pd.DataFrame) for d in data):
            return _frame_source(data[0], data[1], label)
        raise ValueError("data: a tuple must be the (hands, games) frames simulate_games returns")
    if isinstance(data, (str, os.PathLike)):
        return _directory_source(Path(data))
    raise ValueError(
        f"data: expected a DataFrame, a (hands, games) pair, a run directory or an aggregate, "
        f"got {type(data).__name__}"
    )


def _frame_source(hands: pd.DataFrame, games: pd.DataFrame | None, label: str) -> Source:
    columns = frozenset(str(c) for c in hands.columns)
    if "seat" not in columns or not ({"deal", "game"} & columns):
        raise ValueError(
            f"{label}: not a per-seat hands frame (needs 'seat' and 'deal' or 'game' columns)"
        )
    mode = "games" if "game" in columns else "hands"
    if games is not None:
        if mode != "games":
            raise ValueError(f"{label}: a games table was given with the rows of a hands run")
        if "winner" not in games.columns:
            raise ValueError(f"{label}: the second frame is not a games table (no 'winner')")
    meta = hands.attrs.get(META_ATTR) or (games.attrs.get(META_ATTR) if games is not None else None)
    return Source(label, mode, meta, columns, games is not None, frames=(hands, games))


def _directory_source(root: Path) -> Source:
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such run directory")
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a run directory")
    manifest = read_manifest(root)
    meta = manifest.get("meta") or {}
    if "aggregate" in meta:  # an aggregate run: its counts, summed over parts
        return _aggregate_source(load_aggregate(root), str(root))
    entries = [manifest["parts"][k] for k in sorted(manifest.get("parts", {}))]
    if not entries:
        raise ValueError(f"{root}: the run has no complete part yet")
    parts = []
    for entry in entries:
        hands_file = root / entry["file"]
        games_file = root / entry["games_file"] if "games_file" in entry else None
        for f in (hands_file, games_file):
            if f is not None and not f.is_file():
                raise FileNotFoundError(f"{f}: listed in the manifest but missing")
        parts.append((hands_file, games_file))
    columns = frozenset(pq.read_schema(parts[0][0]).names)
    mode = str(meta.get("mode") or ("games" if "game" in columns else "hands"))
    has_games = all(g is not None for _, g in parts)
    return Source(str(root), mode, meta, columns, has_games, parts=tuple(parts))


def _aggregate_source(agg: Aggregate, label: str) -> Source:
    """An aggregate as a source: the keys it can group by stand for its columns."""
    keys = frozenset({*agg.by, "side", "bid", "nil", "blind_nil"})
    return Source(label, agg.mode, agg.meta, keys, agg.games is not None, aggregate=agg)


def _plain(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The columns as NumPy arrays; nullable booleans False where null."""
    data: dict[str, np.ndarray] = {}
    for name in columns:
        col = frame[name]
        if isinstance(col.dtype, pd.BooleanDtype):
            data[name] = col.fillna(False).to_numpy(dtype=bool)
        else:
            data[name] = col.to_numpy()
    return pd.DataFrame(data, copy=False)


def _read(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    """One part file's columns as NumPy arrays (as :func:`_plain` makes them)."""
    table = pq.ParquetFile(path).read(columns=list(columns))
    data: dict[str, np.ndarray] = {}
    for name in columns:
        col = table.column(name)
        if pa.types.is_boolean(col.type) and col.null_count:
            col = pc.fill_null(col, False)
        data[name] = col.to_numpy()
    return pd.DataFrame(data, copy=False)


__all__ = [
    "META_ATTR",
    "SEAT_KEYS",
    "SIDE_KEYS",
    "SOURCE_KEYS",
    "Batch",
    "Data",
    "Source",
    "UnknownKey",
    "key_list",
    "sources",
]
