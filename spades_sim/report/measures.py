"""The tables a strategy report is built on, and how a section reads them.

Contract
--------
:func:`report_tables` runs every analysis a report needs over one run or several in a
single scan (each part file read once) and returns the tidy tables by name
(:func:`table_requests`). Results are tabled per *series*: the ``policy`` key of the
analyses (each side's ``bidding/play``), so a run whose sides play alike is one series,
one whose sides differ is two, and a duplicate pair is its two strategies over both
seatings; a run without meta (a bare frame) is one series, :data:`ALL_SEATS`
(:func:`series_keys`). The small readers below (:func:`one_of`, :func:`points_of`, ...)
take one measure of one series out of a table as :class:`~spades_sim.analysis.stats.Estimate`
values, for the section builders of :mod:`.sections` and :mod:`.games`. Points of a plot
resting on fewer than :data:`MIN_POINT` cases are left out of the plot (the tables keep
them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from spades_sim.analysis import bags, bids, nil_rates
from spades_sim.analysis.realism import DD_PLAN as REALISM_DD_PLAN
from spades_sim.analysis.realism import GAMES_PLAN as REALISM_GAMES_PLAN
from spades_sim.analysis.realism import PLAN as REALISM_PLAN
from spades_sim.analysis.reduce import Plan, run_many
from spades_sim.analysis.source import Data, sources
from spades_sim.analysis.stats import Estimate
from spades_sim.report import words as w
from spades_sim.report.document import Figure, Text
from spades_sim.report.figures import Panel, panels_png
from spades_sim.run.double_dummy import DD_NAMES

__all__ = [
    "ALL_SEATS",
    "FEATURES",
    "MIN_POINT",
    "MIN_SHAPE",
    "cell",
    "estimate_of",
    "figure_of",
    "labels_of",
    "n_of",
    "one_of",
    "points_of",
    "report_tables",
    "rows_of",
    "series_keys",
    "table_requests",
]


MIN_POINT = 20  # cases behind a plotted point
MIN_SHAPE = 100  # nil bids behind a shape named in words
FEATURES = {
    "spades": "spades held",
    "high_spades": "spades queen or higher",
    "shortest_suit": "length of the shortest suit",
}
ALL_SEATS = "all seats"


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def series_keys(data: Data | list[Data]) -> list[str]:
    """``["policy"]`` when every run names its policies, else ``[]`` (one series).

    >>> from spades_sim import simulate_hands
    >>> series_keys(simulate_hands(5, seed=1))
    ['policy']
    """
    srcs = sources(data)
    return ["policy"] if all((s.meta or {}).get("policies") for s in srcs) else []


def table_requests(
    keys: Sequence[str], games: bool, dd: bool = False
) -> dict[str, tuple[Plan, list[str]]]:
    """The analyses a report runs: name -> (plan, group keys); with ``dd`` (every run has
    the double-dummy columns) the bids and nils against the solver too."""
    k = list(keys)
    requests: dict[str, tuple[Plan, list[str]]] = {
        "nil": (nil_rates.PLAN, [*k, "blind"]),
        **{f"nil_{f}": (nil_rates.PLAN, [*k, "blind", f]) for f in FEATURES},
        "nil_shape": (nil_rates.PLAN, [*k, "blind", "spades", "high_spades", "shortest_suit"]),
        "bids": (bids.SUMMARY_PLAN, k),
        "bids_level": (bids.SUMMARY_PLAN, [*k, "side_contract"]),
        "bids_distribution": (bids.DISTRIBUTION_PLAN, k),
        "bids_calibration": (bids.CALIBRATION_PLAN, k),
        "bags": (bags.HAND_PLAN, k),
        "bags_contract": (bags.HAND_PLAN, [*k, "side_contract"]),
    }
    # the realism table mixes seats, sides and games: one over all runs, no series
    realism_plan = REALISM_GAMES_PLAN if games else REALISM_PLAN
    if dd:  # the defence's leak and the cover's loss against the solver's verdict
        realism_plan = replace(realism_plan, hands_columns=REALISM_DD_PLAN.hands_columns)
    requests["realism"] = (realism_plan, [])
    if games:
        requests["bags_game"] = (bags.GAME_PLAN, k)
        requests["bags_hand_no"] = (bags.HAND_PLAN, [*k, "hand_no"])
    if dd:
        requests["dd_bids"] = (bids.DD_SUMMARY_PLAN, k)
        requests["dd_bids_level"] = (bids.DD_SUMMARY_PLAN, [*k, "side_contract"])
        requests["dd_nil"] = (nil_rates.PLAN, [*k, "dd_nil_safe"])
    return requests


def report_tables(data: Data | list[Data], level: float = 0.95) -> dict[str, pd.DataFrame]:
    """Every table a report needs, in one scan of each run (see :func:`table_requests`).

    >>> from spades_sim import simulate_hands
    >>> t = report_tables(simulate_hands(300, seed=1))
    >>> sorted(t)[:3], t["nil"].policy.unique().tolist()
    (['bags', 'bags_contract', 'bids'], ['count/heuristic'])
    """
    srcs = sources(data)
    games = all(s.has_games for s in srcs)
    dd = all(set(DD_NAMES) <= s.hands_columns for s in srcs)
    requests = table_requests(series_keys(data), games, dd)
    tables = run_many(data, list(requests.values()), level)
    return dict(zip(requests, tables, strict=True))


def estimate_of(row: Any) -> Estimate:
    """A tidy table's row (a mapping or a Series) as an Estimate."""
    return Estimate(
        float(row["estimate"]), float(row["ci_low"]), float(row["ci_high"]), int(row["n"])
    )


def labels_of(table: pd.DataFrame) -> list[str]:
    return [str(x) for x in table["policy"].unique()] if "policy" in table else [ALL_SEATS]


def rows_of(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> pd.DataFrame:
    rows = table[table["measure"] == measure]
    if "policy" in rows and label != ALL_SEATS:
        rows = rows[rows["policy"] == label]
    for key, value in keys.items():
        rows = rows[rows[key] == value]
    return rows


def one_of(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> Estimate | None:
    rows = rows_of(table, measure, label, **keys)
    return estimate_of(rows.iloc[0]) if len(rows) == 1 else None


def points_of(
    table: pd.DataFrame, measure: str, label: str, x: str, min_n: int = 0, **keys: Any
) -> list[tuple[int, Estimate]]:
    rows = rows_of(table, measure, label, **keys).sort_values(x)
    return [(int(r[x]), estimate_of(r)) for r in rows.to_dict("records") if int(r["n"]) >= min_n]


def n_of(table: pd.DataFrame, measure: str, label: str, **keys: Any) -> int:
    e = one_of(table, measure, label, **keys)
    return e.n if e else 0


def figure_of(
    panels: Sequence[Panel], caption: str, alt: str = "", **options: Any
) -> Figure | Text:
    """The panels as a figure, or a note when too few cases left anything to draw."""
    if not any(len(series.x) for panel in panels for series in panel.series):
        return Text([f"Too few cases to draw this figure. {caption}"], note=True)
    return Figure(panels_png(panels, **options), caption, alt)


def cell(e: Estimate | None, percent: bool = True) -> str:
    if e is None:
        return "–"
    return w.bracketed(e, percent)
