"""The double-dummy stage of a run as its readers see it: is it solved, which parts, and
its per-deal table joined onto the rows per seat.

Contract
--------
A run solved double-dummy (:mod:`spades_sim.run.double_dummy` writes the stage) keeps one
row per deal in ``RUN/_dd/part-NNNNN.parquet`` with the columns of
:func:`table_columns`: ``deal``, ``dealer``, ``leader``, each side's tricks under
double-dummy play (``tricks_ns``, ``tricks_ew``; two players ``tricks_p0``,
``tricks_p1``) and each seat's nil verdict (``nil_N`` ... or ``nil_P0`` ...). Its
manifest records the stage under ``"dd"`` (``"complete": true`` once every part is
there: :func:`dd_state`, :func:`dd_parts`).

:func:`seat_columns` turns that table into the two per-seat columns of
:data:`~spades_sim.schema.DD_COLUMNS` (``dd_side_tricks``: the tricks of the seat's side;
``dd_nil_safe``: the seat's own nil verdict) for rows given by ``deal`` and ``seat``; a
deal the table lacks is one ``SpadesError``. :func:`~spades_sim.dataset.load` and the
analyses' sources both join through it, so every reader gives the same columns.

This module reads nothing itself and imports nothing that solves: the readers can join a
stage without loading the solver's kernels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import pandas as pd

from spades_sim.cards import seat_name
from spades_sim.dataset.layout import STAGE_DIRS, in_table, part_name
from spades_sim.errors import SpadesError
from spades_sim.schema import DD_COLUMNS

__all__ = [
    "DD_DIR",
    "DD_NAMES",
    "dd_parts",
    "dd_state",
    "missing_dd",
    "seat_columns",
    "table_columns",
]

DD_DIR: Final = STAGE_DIRS["dd"]
"""The directory of a run's double-dummy parts, relative to the run directory."""

DD_NAMES: tuple[str, ...] = tuple(c.name for c in DD_COLUMNS)
"""The per-seat double-dummy column names."""


def table_columns(players: int) -> list[str]:
    """The columns of the per-deal double-dummy table (``dd_table``'s frame).

    >>> table_columns(2)
    ['deal', 'dealer', 'leader', 'tricks_p0', 'tricks_p1', 'nil_P0', 'nil_P1']
    """
    sides = ["tricks_ns", "tricks_ew"] if players == 4 else ["tricks_p0", "tricks_p1"]
    return [
        "deal",
        "dealer",
        "leader",
        *sides,
        *(f"nil_{seat_name(s, players)}" for s in range(players)),
    ]


def missing_dd(label: str) -> str:
    """The one-line error for data without the double-dummy columns: how to get them.

    >>> print(missing_dd("runs/x"))  # doctest: +NORMALIZE_WHITESPACE
    runs/x has no double-dummy columns (dd_side_tricks, dd_nil_safe): make the run with
    --dd (run_dataset(..., dd=True), simulate_hands(..., dd=True)) or solve it with
    spades-sim solve RUN
    """
    return (
        f"{label} has no double-dummy columns ({', '.join(DD_NAMES)}): make the run with "
        "--dd (run_dataset(..., dd=True), simulate_hands(..., dd=True)) or solve it with "
        "spades-sim solve RUN"
    )


def dd_state(manifest: Mapping[str, Any]) -> str | None:
    """``"solved"`` when the manifest records every deal solved, ``"partial"`` when the
    stage was started and not finished, ``None`` when it never was.

    >>> dd_state({"dd": {"complete": True}}), dd_state({"dd": {}}), dd_state({})
    ('solved', 'partial', None)
    """
    record = manifest.get("dd")
    if not isinstance(record, Mapping):
        return None
    return "solved" if record.get("complete") is True else "partial"


def dd_parts(manifest: Mapping[str, Any]) -> list[str]:
    """The double-dummy part files a solved run's manifest records, relative to the run.

    >>> dd_parts({"dd": {"parts": 2}})
    ['_dd/part-00000.parquet', '_dd/part-00001.parquet']
    """
    record = manifest.get("dd") or {}
    count = record.get("parts", 0)
    return [in_table(DD_DIR, part_name(k)) for k in range(int(count))]


def seat_columns(
    table: pd.DataFrame, deal: np.ndarray, seat: np.ndarray, players: int
) -> dict[str, np.ndarray]:
    """``dd_side_tricks`` and ``dd_nil_safe`` of the rows ``(deal, seat)``, from the
    per-deal ``table`` (a deal it lacks is one ``SpadesError``).

    >>> table = pd.DataFrame({"deal": [0, 1], "dealer": [0, 1], "leader": [1, 2],
    ...                       "tricks_ns": [6, 8], "tricks_ew": [7, 5],
    ...                       "nil_N": [False, True], "nil_E": [True, False],
    ...                       "nil_S": [False, False], "nil_W": [False, False]})
    >>> got = seat_columns(table, np.array([1, 1, 0]), np.array([0, 1, 1]), 4)
    >>> got["dd_side_tricks"].tolist(), got["dd_nil_safe"].tolist()
    ([8, 5, 7], [True, False, True])
    """
    columns = table_columns(players)
    ids = table["deal"].to_numpy(dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    deals = np.asarray(deal, dtype=np.int64)
    seats = np.asarray(seat, dtype=np.int64)
    at = np.searchsorted(ids, deals, sorter=order)
    found = at < len(ids)
    found[found] = ids[order[at[found]]] == deals[found]
    if not found.all():
        raise SpadesError(f"deal {int(deals[~found][0])} has no row in the double-dummy table")
    rows = order[at]
    tricks = np.stack([table[c].to_numpy(dtype=np.int8) for c in columns[3:5]], axis=1)
    nils = np.stack([table[c].to_numpy(dtype=bool) for c in columns[5:]], axis=1)
    sides = seats % 2 if players == 4 else seats
    return {
        "dd_side_tricks": tricks[rows, sides],
        "dd_nil_safe": nils[rows, seats],
    }
