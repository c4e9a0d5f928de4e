"""Where an analysis reads its rows: a frame, a ``(hands, games)`` pair or a run directory.

Contract
--------
Every analysis of this package takes ``data`` as one of

- a per-seat ``pandas.DataFrame`` as :func:`~spades_sim.simulate_hands` returns (hands
  mode: a ``deal`` column) or as the first element of
  :func:`~spades_sim.simulate_games` returns (games mode: ``game`` and ``hand_no``);
- the ``(hands, games)`` tuple :func:`~spades_sim.simulate_games` returns;
- a run directory (``str`` or ``os.PathLike``; a local path or a URI such as
  ``file:///abs/run``, as the writer takes) written by ``spades-sim simulate`` or
  :func:`~spades_sim.run.run_dataset`;
- an :class:`~spades_sim.run.aggregate_frames.Aggregate` (``simulate_hands(..., aggregate=...)``)
  or an aggregate run directory (``spades-sim simulate --aggregate``): counts instead of
  rows, which give the same tables for the keys it was counted by;
- a ``list`` of those, analysed together (the ``rules`` and ``policy`` keys then tell
  the runs apart).

A :class:`Source` yields **batches**, ``(hands, games)`` frames of plain NumPy columns:
one batch for a frame, and for a run directory one batch per part file its manifest
lists, read with pyarrow with only the columns asked for and every page checksum checked
(a file that cannot be read as written is one ``CorruptPart`` error naming it). A run
still being written, or interrupted, is read as far as its manifest goes, and its
:class:`Source` says so (``complete``, ``done`` of ``total``): the analyses refuse it
unless asked for a partial answer. Memory therefore stays flat
however large the run (a part is at most about a million hands rows, or a bounded number
of games). A part holds whole games and the games table's part ``k`` holds the games of
the hands table's part ``k``, so a per-game derivation never straddles two batches.
A run directory solved double-dummy (``--dd``, ``spades-sim solve RUN``: its manifest
records the stage complete) also has the columns ``dd_side_tricks`` and ``dd_nil_safe``,
joined onto each batch's rows on ``deal`` and ``seat`` from its ``_dd/`` table
(:mod:`spades_sim.run.double_dummy`); a frame has them when ``simulate_hands(..., dd=True)``
made it. Asking data without them for them is one :class:`NoDoubleDummy` error saying how
to get them.
Nullable booleans (``made``, ``nil_made``) arrive as plain booleans, False where null:
analyses read them only on rows where they are defined. A frame and the directory it
was written to thus give equal batches.

Group keys. An analysis groups by columns of its unit of observation:

- a **seat** row (:data:`SEAT_KEYS`): every per-seat column except the row identifiers
  (``deal``, ``game``, ``hand``: one group per row) and the outcomes with nulls
  (``made``, ``nil_made``: measures, not keys); with the double-dummy columns, both of
  them (``dd_nil_safe``: nil success where the nil was safe or not);
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

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from spades_sim.dataset import read_manifest
from spades_sim.dataset.dd_stage import DD_NAMES, dd_parts, dd_state, missing_dd, seat_columns
from spades_sim.dataset.store import Store, open_store
from spades_sim.run.aggregate_frames import Aggregate, load_aggregate
from spades_sim.schema import HAND_COLUMNS
from spades_sim.text import policy_text, rules_text

Batch = tuple[pd.DataFrame, pd.DataFrame | None]
"""The hands rows of a batch and, in games mode when asked for, its games rows."""

META_ATTR = "spades_sim"
"""The ``DataFrame.attrs`` key holding a frame's run meta (as a manifest's ``meta``)."""

ROW_IDS = ("deal", "game", "hand")
NULLABLE_OUTCOMES = ("made", "nil_made")
SOURCE_KEYS = ("policy", "rules")

SEAT_KEYS: tuple[str, ...] = (
    *(c.name for c in HAND_COLUMNS if c.name not in ROW_IDS + NULLABLE_OUTCOMES),
    *DD_NAMES,
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
    "dd_side_tricks",
)
"""Columns a per-side analysis may group by (the side's own figures)."""


class UnknownKey(ValueError):
    """A group key the analysis or the data does not have (the message names it)."""


class NoDoubleDummy(UnknownKey):
    """Data without the double-dummy columns asked for them (the message says how to get
    them: ``--dd`` or ``spades-sim solve RUN``)."""


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
    parts: tuple[tuple[str, str | None], ...] = ()
    """A run directory's part files (hands, games), relative to it, in part order."""
    aggregate: Aggregate | None = None
    """The run's counts when it is an aggregate (no rows: :meth:`batches` refuses)."""
    store: Store | None = None
    """Where a run directory's files are read from."""
    complete: bool = True
    """False for a run directory whose manifest is not marked complete (killed, running)."""
    done: int = 0
    total: int | None = None
    """Deals (games) a run directory's parts hold, and how many its run was to have."""
    on_batch: Callable[[int], Any] | None = None
    """Called with 1 after each part file is read (a progress bar's ``update``)."""
    dd_parts: tuple[str, ...] = ()
    """A solved run directory's double-dummy part files, relative to it (joined by
    :meth:`batches` when their columns are asked for)."""

    @property
    def players(self) -> int:
        """Players of the run (4 unless its meta's rules say otherwise)."""
        rules = (self.meta or {}).get("rules")
        players = rules.get("players", 4) if isinstance(rules, Mapping) else 4
        return int(players)

    def batches(
        self, hands_columns: Sequence[str], games_columns: Sequence[str] = ()
    ) -> Iterator[Batch]:
        """The rows in batches, only the columns asked for (games rows when asked)."""
        if self.aggregate is not None:
            raise ValueError(f"{self.label}: an aggregate run has counts, not rows")
        hands_columns = list(dict.fromkeys(hands_columns))
        games_columns = list(dict.fromkeys(games_columns))
        missing = sorted(set(hands_columns) - self.hands_columns)
        if set(missing) & set(DD_NAMES):
            raise NoDoubleDummy(missing_dd(self.label))
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
        assert self.store is not None
        joined = [c for c in hands_columns if c in DD_NAMES]
        stored = [c for c in hands_columns if c not in DD_NAMES]
        if joined:  # the join's keys are read too, and dropped unless asked for
            stored += [c for c in ("deal", "seat") if c not in stored]
            table = pd.concat([_read_all(self.store, f) for f in self.dd_parts])
        for hands_file, games_file in self.parts:
            games_frame = None
            if games_columns:
                assert games_file is not None
                games_frame = _read(self.store, games_file, games_columns)
            hands = _read(self.store, hands_file, stored)
            if joined:
                deal, seat = hands["deal"].to_numpy(), hands["seat"].to_numpy()
                got = seat_columns(table, deal, seat, self.players)
                hands = hands.assign(**{c: got[c] for c in joined})[hands_columns]
            yield hands, games_frame
            if self.on_batch is not None:
                self.on_batch(1)

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


Data = (
    pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame] | str | os.PathLike[str] | Aggregate | Source
)
"""One run's rows: a per-seat frame, a ``(hands, games)`` pair or a run directory (or its
counts: an aggregate; or a :class:`Source` made by :func:`sources`)."""


class Unfinished(ValueError):
    """A run directory whose run is not finished, read without ``partial=True``."""


class Overlapping(ValueError):
    """Runs given together that hold the same deals (they would be counted twice)."""


def sources(
    data: Data | list[Data], *, partial: bool = False, overlapping: bool = False
) -> list[Source]:
    """``data`` (one run, or a list of runs) as :class:`Source` objects.

    A run directory whose manifest is not marked complete (a killed or running run) is
    refused with :class:`Unfinished`, saying how much of it is there, unless ``partial``.
    Runs given together that hold the same deals (one directory twice, or two runs of
    the same seed, mode and rules: every deal is drawn from the seed) are refused with
    :class:`Overlapping` unless ``overlapping`` (a duplicate pair read on purpose): pooled,
    they would count each deal twice and give intervals too narrow. A :class:`Source` is
    taken as it is (it was checked when it was made), so the result of
    ``sources(run, partial=True)`` can be passed to any analysis.

    >>> sources("/no/such/run")
    Traceback (most recent call last):
    ...
    FileNotFoundError: /no/such/run: no such run directory
    >>> from spades_sim import simulate_hands
    >>> df = simulate_hands(10, seed=1)
    >>> sources([df, df])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spades_sim.analysis.source.Overlapping: run 0 and run 1 are runs of the same seed (1)...
    """
    if isinstance(data, list):
        if not data:
            raise ValueError("data: an empty list of runs")
        found = [_source(d, f"run {i}", partial) for i, d in enumerate(data)]
        if not overlapping:
            built = [s for s, d in zip(found, data, strict=True) if not isinstance(d, Source)]
            _refuse_overlaps(built)
        return found
    return [_source(data, "the data", partial)]


def _same_run_key(source: Source) -> tuple[str, ...] | None:
    """What fixes a run's rows: its seed, mode, rules and policies (None: unknown). Runs of
    one seed under other policies hold the same deals played otherwise: other rows, which
    an analysis tells apart by ``policy`` (as a study of play policies on the same deals
    does), so they are not refused."""
    meta = source.meta or {}
    if "seed" not in meta:
        return None
    policies = json.dumps(meta.get("policies"), sort_keys=True)
    return (str(meta.get("seed")), str(meta.get("mode")), repr(meta.get("rules")), policies)


def _refuse_overlaps(found: Sequence[Source]) -> None:
    places: dict[str, Source] = {}
    keys: dict[tuple[str, ...], Source] = {}
    for source in found:
        if source.store is not None:
            local = source.store.local_path
            place = os.path.realpath(local) if local is not None else source.label
            if place in places:
                again = places[place].label
                also = "" if again == source.label else f" (as {again} and as {source.label})"
                raise Overlapping(
                    f"{source.label} is given twice{also}: its deals would be counted twice"
                )
            places[place] = source
        key = _same_run_key(source)
        if key is None:
            continue
        if key in keys:
            seed = (source.meta or {}).get("seed")
            raise Overlapping(
                f"{keys[key].label} and {source.label} are runs of the same seed ({seed}), mode "
                "and rules: they hold the same deals, which together would be counted twice; "
                "analyse them one at a time, or make runs with different seeds"
            )
        keys[key] = source


def describe_extent(source: Source) -> str:
    """How much of a run directory's run is there, in words.

    >>> describe_extent(Source("runs/x", "hands", {}, frozenset(), False, parts=(("a", None),),
    ...                        complete=False, done=1000, total=4000))
    'runs/x is unfinished: 1,000 of 4,000 deals (25.0%) in 1 part'
    """
    unit = "games" if source.mode == "games" else "deals"
    parts = len(source.parts) or "its"
    plural = "" if parts == 1 else "s"
    state = "complete" if source.complete else "unfinished"
    if source.total:
        share = f"{source.done:,} of {source.total:,} {unit}"
        share += f" ({100 * source.done / source.total:.1f}%)"
    else:
        share = f"{source.done:,} {unit}"
    return f"{source.label} is {state}: {share} in {parts} part{plural}"


def _source(data: Data, label: str, partial: bool = False) -> Source:
    if isinstance(data, Source):
        return data
    if isinstance(data, pd.DataFrame):
        return _frame_source(data, None, label)
    if isinstance(data, Aggregate):
        return _aggregate_source(data, label)
    if isinstance(data, tuple):
        if len(data) == 2 and all(isinstance(d, pd.DataFrame) for d in data):
            return _frame_source(data[0], data[1], label)
        raise ValueError("data: a tuple must be the (hands, games) frames simulate_games returns")
    if isinstance(data, (str, os.PathLike)):
        source = _directory_source(data)
        if not source.complete and not partial:
            raise Unfinished(
                f"{describe_extent(source)}; resume it to finish it, or analyse what is there "
                "on purpose (spades-sim analyze --partial; sources(run, partial=True))"
            )
        return source
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


def _directory_source(location: str | os.PathLike[str]) -> Source:
    """A run directory (a local path or a URI, as the writer takes) as a source."""
    store = open_store(location)
    root = store.describe()
    kind = store.kind()
    if kind is None:
        raise FileNotFoundError(f"{root}: no such run directory")
    if kind != "dir":
        raise NotADirectoryError(f"{root}: not a run directory")
    manifest = read_manifest(location)
    meta = manifest.get("meta") or {}
    done, total = run_extent(manifest)
    if "aggregate" in meta:  # an aggregate run: its counts, summed over parts
        if store.local_path is None:
            raise ValueError(
                f"{root}: an aggregate run is read from a local directory (or file://): "
                "copy it here first"
            )
        return _aggregate_source(
            load_aggregate(store.local_path), root, manifest.get("complete") is True, done, total
        )
    entries = [manifest["parts"][k] for k in sorted(manifest.get("parts", {}))]
    if not entries:
        raise ValueError(f"{root}: the run has no complete part yet")
    parts = []
    for entry in entries:
        hands_file = str(entry["file"])
        games_file = str(entry["games_file"]) if "games_file" in entry else None
        for f in (hands_file, games_file):
            if f is not None and store.kind(f) != "file":
                raise FileNotFoundError(f"{store.describe(f)}: listed in the manifest but missing")
        parts.append((hands_file, games_file))
    columns = frozenset(store.schema(parts[0][0]).names)
    mode = str(meta.get("mode") or ("games" if "game" in columns else "hands"))
    has_games = all(g is not None for _, g in parts)
    solved = tuple(dd_parts(manifest)) if dd_state(manifest) == "solved" else ()
    for f in solved:
        if store.kind(f) != "file":
            raise FileNotFoundError(f"{store.describe(f)}: listed in the manifest but missing")
    if solved:
        columns |= frozenset(DD_NAMES)
    return Source(
        root,
        mode,
        meta,
        columns,
        has_games,
        parts=tuple(parts),
        store=store,
        complete=manifest.get("complete") is True,
        done=done,
        total=total,
        dd_parts=solved,
    )


def run_extent(manifest: Mapping[str, Any]) -> tuple[int, int | None]:
    """How much of a run its manifest lists: deals (games) in its parts, and of how many.

    >>> run_extent({"meta": {"total": 10}, "parts": {"00000": {"deal_start": 0, "deal_stop": 4}}})
    (4, 10)
    """
    meta = manifest.get("meta") or {}
    done = 0
    for entry in (manifest.get("parts") or {}).values():
        for unit in ("deal", "game"):
            start, stop = entry.get(f"{unit}_start"), entry.get(f"{unit}_stop")
            if isinstance(start, int) and isinstance(stop, int):
                done += stop - start
                break
    total = meta.get("total")
    return done, total if isinstance(total, int) and not isinstance(total, bool) else None


def _aggregate_source(
    agg: Aggregate, label: str, complete: bool = True, done: int = 0, total: int | None = None
) -> Source:
    """An aggregate as a source: the keys it can group by stand for its columns."""
    keys = frozenset({*agg.by, "side", "bid", "nil", "blind_nil"})
    return Source(
        label,
        agg.mode,
        agg.meta,
        keys,
        agg.games is not None,
        aggregate=agg,
        complete=complete,
        done=done,
        total=total,
    )


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


def _read_all(store: Store, rel: str) -> pd.DataFrame:
    """Every column of one small part file (a double-dummy table's), as NumPy arrays."""
    table = store.read_part(rel)
    return pd.DataFrame({name: table.column(name).to_numpy() for name in table.column_names})


def _read(store: Store, rel: str, columns: Sequence[str]) -> pd.DataFrame:
    """One part file's columns as NumPy arrays (as :func:`_plain` makes them); a file that
    cannot be read as written is one :class:`~spades_sim.dataset.store.CorruptPart`."""
    table = store.read_part(rel, columns)
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
    "NoDoubleDummy",
    "Overlapping",
    "Source",
    "Unfinished",
    "UnknownKey",
    "describe_extent",
    "key_list",
    "run_extent",
    "sources",
]
