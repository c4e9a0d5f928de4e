"""Several analyses of one run in one scan, and their tables as text, CSV or JSON.

Contract
--------
:func:`analyze` runs the analyses named by ``what`` (``nil``, ``bags``, ``bids`` or
``all``) over ``data`` in a single pass over each run (every part file is read once,
with the union of the columns the analyses need) and returns the tables by name:

========================  =============================================================
``nil``                   :func:`.nil_rates.nil_success`
``bags``                  :func:`.bags.bag_accumulation` (``per="hand"``)
``bags_per_game``         :func:`.bags.bag_accumulation` (``per="game"``; games runs)
``bids``                  :func:`.bids.bid_accuracy` (``view="summary"``)
``bids_distribution``     :func:`.bids.bid_accuracy` (``view="distribution"``)
``bids_calibration``      :func:`.bids.bid_accuracy` (``view="calibration"``)
========================  =============================================================

A table whose unit cannot take the keys ``by`` (``spades`` is a seat's, not a side's) is
left out and the reason kept in :attr:`Analysis.skipped`; if no table can take them,
:class:`~spades_sim.analysis.source.UnknownKey` is raised.

>>> from spades_sim import simulate_hands
>>> a = analyze(simulate_hands(500, seed=1, play="heuristic"), what="all", by=["spades"])
>>> list(a.tables), list(a.skipped)
(['nil', 'bids_calibration'], ['bags', 'bids', 'bids_distribution'])
>>> print(to_text(a).splitlines()[0])
nil: nil bids (unit: a seat in a hand)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from spades_sim.analysis import bags, bids, nil_rates
from spades_sim.analysis.reduce import TIDY, Plan, check_keys, run_many
from spades_sim.analysis.source import Data, UnknownKey, key_list, sources

WHAT = ("nil", "bags", "bids", "all")

TITLES = {
    "nil": "nil bids",
    "bags": "bags per side per hand",
    "bags_per_game": "bags per side per game",
    "bids": "bid accuracy: side tricks minus contract",
    "bids_distribution": "bid accuracy: distribution of side tricks minus contract",
    "bids_calibration": "bid calibration: tricks taken by bid",
}

_PLANS: dict[str, tuple[str, Plan]] = {
    "nil": ("nil", nil_rates.PLAN),
    "bags": ("bags", bags.HAND_PLAN),
    "bags_per_game": ("bags", bags.GAME_PLAN),
    "bids": ("bids", bids.SUMMARY_PLAN),
    "bids_distribution": ("bids", bids.DISTRIBUTION_PLAN),
    "bids_calibration": ("bids", bids.CALIBRATION_PLAN),
}


@dataclass
class Analysis:
    """The tables :func:`analyze` made, by name, and the ones it left out, with why."""

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def analyze(
    data: Data | list[Data],
    what: str = "all",
    by: str | Sequence[str] | None = None,
    *,
    level: float = 0.95,
) -> Analysis:
    """The tables of the analyses ``what`` names, in one scan of each run.

    >>> from spades_sim import simulate_games
    >>> list(analyze(simulate_games(5, seed=1, play="heuristic"), what="bags").tables)
    ['bags', 'bags_per_game']
    """
    if what not in WHAT:
        raise ValueError(f"what: must be one of {', '.join(WHAT)}, got {what!r}")
    keys = key_list(by)
    srcs = sources(data)
    result = Analysis()
    requests: list[tuple[str, Plan]] = []
    first_error: UnknownKey | None = None
    for name, (group, plan) in _PLANS.items():
        if what not in ("all", group):
            continue
        if plan.needs_games and not all(s.has_games for s in srcs):
            continue  # per-game tables exist for games runs only
        try:
            for source in srcs:
                check_keys(plan, keys, source)
        except UnknownKey as exc:
            first_error = first_error or exc
            result.skipped[name] = str(exc)
            continue
        requests.append((name, plan))
    if not requests:
        assert first_error is not None
        raise first_error
    tables = run_many(data, [(plan, keys) for _, plan in requests], level)
    for (name, _), table in zip(requests, tables, strict=True):
        result.tables[name] = table
    return result


def _measures(name: str) -> dict[str, str]:
    return dict(_PLANS[name][1].measures)


def _number(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if 0 < abs(x) < 0.0005:  # a bound of a rare event: keep two significant digits
        return f"{x:.1e}"
    return f"{x:.4f}" if abs(x) < 100 else f"{x:.1f}"


def format_table(table: pd.DataFrame) -> str:
    """A tidy table as aligned text: keys, measure, n, estimate and the 95% interval.

    >>> t = pd.DataFrame({"measure": ["bags"], "side": [0], "n": [1200], "total": [2100.0],
    ...                   "estimate": [1.75], "ci_low": [1.68], "ci_high": [1.82]})
    >>> print(format_table(t))
    measure  side      n  estimate  95% CI
    bags        0  1,200    1.7500  [1.6800, 1.8200]
    """
    keys = [str(c) for c in table.columns if c not in TIDY]
    header = ["measure", *keys, "n", "estimate", "95% CI"]
    rows = [
        [
            str(r["measure"]),
            *(str(r[k]) for k in keys),
            f"{int(r['n']):,}",
            _number(r["estimate"]),
            f"[{_number(r['ci_low'])}, {_number(r['ci_high'])}]",
        ]
        for r in table.to_dict("records")
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    left = {0, len(header) - 1}  # text columns flush left, numbers flush right

    def line(cells: list[str]) -> str:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


def to_text(analysis: Analysis) -> str:
    """Every table with its title and what its measures mean, then what was left out.

    >>> t = pd.DataFrame({"measure": ["bags"], "n": [10], "total": [17.0], "estimate": [1.7],
    ...                   "ci_low": [1.2], "ci_high": [2.2]})
    >>> print(to_text(Analysis({"bags": t}, {"bids": "no contract"})))
    bags: bags per side per hand (unit: a side in a hand)
      bags: bags a side took in a hand
      penalty: share of side-hands in which the bag penalty struck
      points_lost: points a side lost to the bag penalty in a hand
    measure   n  estimate  95% CI
    bags     10    1.7000  [1.2000, 2.2000]
    <BLANKLINE>
    bids: left out: no contract
    """
    blocks = []
    for name, table in analysis.tables.items():
        unit = _PLANS[name][1].unit
        lines = [f"{name}: {TITLES[name]} (unit: {unit})"]
        lines += [f"  {m}: {doc}" for m, doc in _measures(name).items()]
        lines.append(format_table(table) if len(table) else "(no rows)")
        blocks.append("\n".join(lines))
    for name, why in analysis.skipped.items():
        blocks.append(f"{name}: left out: {why}")
    return "\n\n".join(blocks)


def to_csv(analysis: Analysis) -> str:
    """All tables as one CSV, a leading ``table`` column naming each row's table.

    >>> t = pd.DataFrame({"measure": ["bags"], "n": [10], "total": [17.0], "estimate": [1.7],
    ...                   "ci_low": [1.2], "ci_high": [2.2]})
    >>> print(to_csv(Analysis({"bags": t})), end="")
    table,measure,n,total,estimate,ci_low,ci_high
    bags,bags,10,17.0,1.7,1.2,2.2
    """
    frames = [t.assign(table=name) for name, t in analysis.tables.items()]
    whole = pd.concat(frames, ignore_index=True)
    columns = ["table", *(c for c in whole.columns if c != "table")]
    return str(whole[columns].to_csv(index=False))


def to_json(analysis: Analysis) -> str:
    """``{"tables": {name: [row, ...]}, "skipped": {name: reason}}`` as JSON; an
    infinite interval bound (a group of one) is null.

    >>> t = pd.DataFrame({"measure": ["bags"], "n": [1], "total": [2.0], "estimate": [2.0],
    ...                   "ci_low": [-math.inf], "ci_high": [math.inf]})
    >>> json.loads(to_json(Analysis({"bags": t})))["tables"]["bags"][0]
    {'measure': 'bags', 'n': 1, 'total': 2.0, 'estimate': 2.0, 'ci_low': None, 'ci_high': None}
    """
    tables = {
        name: [{k: _json_value(v) for k, v in row.items()} for row in table.to_dict("records")]
        for name, table in analysis.tables.items()
    }
    return json.dumps({"tables": tables, "skipped": analysis.skipped})


def _json_value(value: object) -> object:
    """A JSON-ready scalar: NumPy scalars as Python ones, an infinite bound (one
    observation) as null."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


__all__ = ["WHAT", "Analysis", "analyze", "format_table", "to_csv", "to_json", "to_text"]
