"""Sufficient statistics: the one reduction every analysis goes through.

Contract
--------
An analysis is a :class:`Plan` run in three steps:

1. **derive**, per batch of rows (:mod:`.source`): frames of *units* (a seat in a hand, a
   side in a hand, a side in a game, two consecutive bag penalties...) holding the group
   key columns and one column per *measure*: the unit's value, or NaN when the unit is
   not in that measure's population (a seat that bid a number has no nil to make).
2. **reduce** (:func:`reduce_units`): per group of keys and for every measure ``m``,
   ``m.n`` (units with a value), ``m.sum`` (their sum) and ``m.sumsq`` (the sum of their
   squares), as float64. These statistics add: a run's table is the sum of its parts'
   tables (:func:`combine`) in any order. Every measure takes whole-number values
   (counts, tricks, bags, points), and float64 adds whole numbers below 2**53 exactly,
   so a frame, the run directory it was written to and any split into parts give
   bit-identical tables. An *aggregate* (count tables reduced inside the kernel,
   :mod:`spades_sim.run.counting`) skips steps 1 and 2: a plan's ``from_aggregate``
   produces this table from its counts (:mod:`.aggregated`), the key columns (the plan's
   ``internal`` keys included) plus ``m.n``, ``m.sum``, ``m.sumsq``, and the plan's
   ``finalize`` takes it from there.
3. **finalize**: estimates and 95% intervals from the statistics alone: a proportion
   (a 0/1 measure) ``sum / n`` with Wilson's interval (:func:`.stats.proportion_ci`), a
   mean ``sum / n`` with the normal interval from ``n``, ``sum`` and ``sumsq``
   (:func:`.stats.mean_ci_of_moments`).

Keys that are constant over a run (``rules``) or a function of the side (``policy``)
are attached to a source's reduced table, not to each row. Keys a plan computes in its
finalize step from an internal key (``blind``, from the kind of nil) are ``late`` keys.

Every analysis returns a **tidy frame**, one row per measure and group, with the columns
:data:`TIDY` around the group keys: ``measure``, the keys, ``n``, ``total`` (the sum of
the values: the successes of a proportion), ``estimate``, ``ci_low``, ``ci_high``. Rows
are sorted by measure (in the plan's order), then by the keys.

>>> units = pd.DataFrame({"side": [0, 0, 1], "bags": [1.0, 3.0, 2.0]})
>>> stats = combine([reduce_units(units, ["side"]), reduce_units(units, ["side"])], ["side"])
>>> stats.to_dict("records")[0]
{'side': 0, 'bags.n': 4.0, 'bags.sum': 8.0, 'bags.sumsq': 20.0}
>>> print(finalize(stats, ["side"], {"bags": "mean"}).to_string(index=False))
measure  side  n  total  estimate   ci_low  ci_high
   bags     0  4    8.0       2.0 0.868414 3.131586
   bags     1  2    4.0       2.0 2.000000 2.000000
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from spades_sim.analysis.source import (
    SOURCE_KEYS,
    Data,
    NoDoubleDummy,
    Source,
    UnknownKey,
    key_list,
    sources,
)
from spades_sim.analysis.stats import Estimate, mean_ci_of_moments, proportion_ci
from spades_sim.run.double_dummy import DD_NAMES, missing_dd

if TYPE_CHECKING:
    from spades_sim.run.aggregate_frames import Aggregate

STATS = ("n", "sum", "sumsq")
"""The sufficient statistics kept per measure and group (columns ``measure.stat``)."""

TIDY = ("measure", "n", "total", "estimate", "ci_low", "ci_high")
"""The columns of every analysis table besides the group keys (which follow ``measure``)."""

Kind = Literal["proportion", "mean"]


@dataclass(frozen=True)
class Plan:
    """One analysis: what it reads, how it derives units, how it finalizes.

    ``derive(hands, games, keys)`` gets a batch and the row keys it must provide (a
    subset of ``keys``) and returns frames of units with those keys, the ``internal``
    keys and measure columns. ``finalize(stats, by, level)`` turns the combined
    statistics (keys: ``by`` without ``late`` keys, then ``internal``) into the tidy table.
    """

    name: str
    keys: tuple[str, ...]
    """Keys derive can provide (raw columns or derived ones), besides :data:`SOURCE_KEYS`."""
    hands_columns: tuple[str, ...]
    derive: Callable[[pd.DataFrame, pd.DataFrame | None, list[str]], list[pd.DataFrame]]
    finalize: Callable[[pd.DataFrame, list[str], float], pd.DataFrame]
    games_columns: tuple[str, ...] = ()
    internal: tuple[str, ...] = ()
    late: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    """Keys derive computes itself (not columns to read)."""
    needs_games: bool = False
    unit: str = "a seat in a hand"
    """What one unit is, for messages and titles."""
    measures: Mapping[str, str] = field(default_factory=dict)
    """Measure name -> what it means (for the command line and the docs)."""
    from_aggregate: Callable[[Aggregate, list[str]], pd.DataFrame] | None = None
    """The statistics from an aggregate's count tables instead of rows
    (:mod:`.aggregated`): ``(aggregate, row keys) -> `` the table the reduction of the same
    run's rows gives, stat keys included. None: the plan needs rows."""


# --------------------------------------------------------------------------------------
# Step 2: the reduction
# --------------------------------------------------------------------------------------


def reduce_units(units: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per group of ``keys``: ``m.n``, ``m.sum`` and ``m.sumsq`` of every other column.

    NaN values are outside the measure's population: not counted, not summed. Each sum
    is one ``np.bincount`` over a group number per unit (:func:`group_codes`): several
    times faster than a pandas group-by on the million units of a part.

    >>> units = pd.DataFrame({"k": [2, 1, 1], "x": [5.0, 2.0, np.nan]})
    >>> reduce_units(units, ["k"]).values.tolist()
    [[1.0, 1.0, 2.0, 4.0], [2.0, 1.0, 5.0, 25.0]]
    """
    keys = list(keys)
    measures = [str(c) for c in units.columns if c not in keys]
    codes, size, used, groups = group_codes(units, keys)
    columns: dict[str, np.ndarray] = {}
    for m in measures:
        raw = units[m].to_numpy()
        values = raw.astype(np.float64, copy=False)
        valid = None if raw.dtype.kind in "biu" else ~np.isnan(values)
        if valid is not None and valid.all():
            valid = None
        if valid is not None:
            values = np.where(valid, values, 0.0)
        squares = values if raw.dtype.kind == "b" else values * values  # 0/1: x² = x
        if keys:
            count = np.bincount(codes, weights=valid, minlength=size)[used]
            total = np.bincount(codes, weights=values, minlength=size)[used]
            sumsq = np.bincount(codes, weights=squares, minlength=size)[used]
        elif len(units):
            count = np.array([len(values) if valid is None else np.count_nonzero(valid)])
            total, sumsq = np.array([values.sum()]), np.array([squares.sum()])
        else:
            count = total = sumsq = np.zeros(0)
        columns[f"{m}.n"] = count.astype(np.float64)
        columns[f"{m}.sum"] = total
        columns[f"{m}.sumsq"] = sumsq
    return pd.concat([groups, pd.DataFrame(columns, index=groups.index)], axis=1)


_DIRECT_BINS = 1 << 20  # integer keys spanning at most this many combinations: no hashing


def group_codes(
    units: pd.DataFrame, keys: Sequence[str]
) -> tuple[np.ndarray, int, np.ndarray, pd.DataFrame]:
    """A group number per unit, the number of numbers, the numbers in use (in order) and
    the key values of those groups (one row each, in that order).

    Integer and boolean keys of small range are numbered arithmetically (value minus the
    least value, mixed radix over the keys), so groups come sorted by their keys; other
    keys (labels) are hashed, groups in order of first appearance.

    >>> codes, size, used, groups = group_codes(pd.DataFrame({"a": [7, 5, 7]}), ["a"])
    >>> codes.tolist(), size, used.tolist(), groups.a.tolist()
    ([2, 0, 2], 3, [0, 2], [5, 7])
    """
    n = len(units)
    if not keys:
        return (
            np.zeros(n, dtype=np.int64),
            1,
            np.zeros(min(n, 1), dtype=np.int64),
            (pd.DataFrame(index=pd.RangeIndex(min(n, 1)))),
        )
    arrays = [units[k].to_numpy() for k in keys]
    if n and all(a.dtype.kind in "biu" for a in arrays):
        lows = [int(a.min()) for a in arrays]
        widths = [int(a.max()) - lo + 1 for a, lo in zip(arrays, lows, strict=True)]
        if int(np.prod(np.array(widths, dtype=np.float64))) <= _DIRECT_BINS:
            codes = np.zeros(n, dtype=np.int64)
            for a, lo, width in zip(arrays, lows, widths, strict=True):
                codes = codes * width + (a.astype(np.int64) - lo)
            size = int(np.prod(widths))
            used = np.flatnonzero(np.bincount(codes, minlength=size))
            values: dict[str, np.ndarray] = {}
            rest = used
            for k, a, lo, width in reversed(list(zip(keys, arrays, lows, widths, strict=True))):
                values[k] = (rest % width + lo).astype(a.dtype)
                rest = rest // width
            return codes, size, used, pd.DataFrame({k: values[k] for k in keys})
    codes = np.zeros(n, dtype=np.int64)
    for a in arrays:
        column_codes, uniques = pd.factorize(a, sort=False)
        # renumbered after each key, so the product stays below n * len(uniques)
        codes, _ = pd.factorize(codes * len(uniques) + column_codes, sort=False)
        codes = codes.astype(np.int64, copy=False)
    # factorize numbers groups in order of first appearance: a group starts where the
    # running maximum of the codes rises
    highest = np.maximum.accumulate(codes) if n else codes
    first = np.flatnonzero(np.r_[True, highest[1:] > highest[:-1]]) if n else codes
    groups = units[list(keys)].iloc[first].reset_index(drop=True)
    return codes, len(first), np.arange(len(first)), groups


def unit_frame(
    rows: pd.DataFrame, keys: Sequence[str], mask: np.ndarray | None = None
) -> pd.DataFrame:
    """The key columns of the rows ``mask`` selects (all when None), as a new frame to
    which a derive step adds its measures. Only the keys are copied, not the batch.

    >>> rows = pd.DataFrame({"side": [0, 1, 0], "bags": [1, 2, 3]})
    >>> unit_frame(rows, ["side"], np.array([True, False, True])).side.tolist()
    [0, 0]
    """
    data = {k: rows[k].to_numpy() if mask is None else rows[k].to_numpy()[mask] for k in keys}
    frame = pd.DataFrame(data, copy=False)
    if not keys:
        frame = pd.DataFrame(index=pd.RangeIndex(len(rows) if mask is None else int(mask.sum())))
    return frame


def stat_columns(stats: pd.DataFrame) -> list[str]:
    """The statistics columns of a reduced table (``measure.n`` / ``.sum`` / ``.sumsq``)."""
    return [str(c) for c in stats.columns if str(c).rpartition(".")[2] in STATS and "." in str(c)]


def combine(tables: Iterable[pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """Add reduced tables group by group (a measure missing from a table counts zero).

    Key columns not in ``keys`` are summed over (dropped).

    >>> a = pd.DataFrame({"k": [0], "x.n": [2.0], "x.sum": [3.0], "x.sumsq": [5.0]})
    >>> combine([a, a], []).to_dict("records")
    [{'x.n': 4.0, 'x.sum': 6.0, 'x.sumsq': 10.0}]
    """
    keys = list(keys)
    frame = pd.concat(list(tables), ignore_index=True)
    values = stat_columns(frame)
    if not keys:
        return frame[values].sum().to_frame().T.reset_index(drop=True)
    return frame.groupby(keys, sort=False, observed=True)[values].sum().reset_index()


def group_sum(stats: pd.DataFrame, keys: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    """``stats[columns]`` summed per group of ``keys`` (all rows when there are none).

    >>> stats = pd.DataFrame({"k": [0, 0, 1], "x.n": [1.0, 2.0, 4.0]})
    >>> group_sum(stats, ["k"], ["x.n"]).values.tolist()
    [[0.0, 3.0], [1.0, 4.0]]
    >>> group_sum(stats, [], ["x.n"]).values.tolist()
    [[7.0]]
    """
    keys = list(keys)
    if not keys:
        return stats[list(columns)].sum().to_frame().T
    return stats.groupby(keys, sort=False, observed=True)[list(columns)].sum().reset_index()


# --------------------------------------------------------------------------------------
# Step 3: estimates and intervals
# --------------------------------------------------------------------------------------


def proportion_rows(
    groups: pd.DataFrame,
    keys: Sequence[str],
    successes: np.ndarray | pd.Series,
    n: np.ndarray | pd.Series,
    measure: str,
    level: float = 0.95,
) -> pd.DataFrame:
    """Tidy rows of a proportion per group (groups with ``n == 0`` are left out).

    >>> groups = pd.DataFrame({"side": [0, 1]})
    >>> proportion_rows(groups, ["side"], [8, 0], [10, 0], "made").values.tolist()[0][:5]
    ['made', 0, 10, 8.0, 0.8]
    """
    s = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    keep = m > 0
    pairs = zip(s[keep], m[keep], strict=True)
    estimates = [proportion_ci(round(a), round(b), level) for a, b in pairs]
    return _tidy(groups, keys, keep, measure, m, s, estimates)


def mean_rows(
    groups: pd.DataFrame,
    keys: Sequence[str],
    n: np.ndarray | pd.Series,
    total: np.ndarray | pd.Series,
    sumsq: np.ndarray | pd.Series,
    measure: str,
    level: float = 0.95,
) -> pd.DataFrame:
    """Tidy rows of a mean per group (groups with ``n == 0`` are left out).

    >>> rows = mean_rows(pd.DataFrame(index=[0]), [], [4], [8.0], [20.0], "bags")
    >>> rows[["measure", "n", "estimate"]].values.tolist()
    [['bags', 4, 2.0]]
    """
    m = np.asarray(n, dtype=np.float64)
    t = np.asarray(total, dtype=np.float64)
    q = np.asarray(sumsq, dtype=np.float64)
    keep = m > 0
    triples = zip(m[keep], t[keep], q[keep], strict=True)
    estimates = [mean_ci_of_moments(round(a), b, c, level) for a, b, c in triples]
    return _tidy(groups, keys, keep, measure, m, t, estimates)


def _tidy(
    groups: pd.DataFrame,
    keys: Sequence[str],
    keep: np.ndarray,
    measure: str,
    n: np.ndarray,
    total: np.ndarray,
    estimates: list[Estimate],
) -> pd.DataFrame:
    out = groups.loc[keep, list(keys)].reset_index(drop=True)
    out.insert(0, "measure", measure)
    out["n"] = n[keep].astype(np.int64)
    out["total"] = total[keep]
    out["estimate"] = [e.value for e in estimates]
    out["ci_low"] = [e.low for e in estimates]
    out["ci_high"] = [e.high for e in estimates]
    return out.sort_values(list(keys), kind="stable").reset_index(drop=True) if keys else out


def stack(tables: Sequence[pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """The tidy rows of several measures as one table, columns in the contract's order.

    >>> list(stack([], ["side"]).columns)
    ['measure', 'side', 'n', 'total', 'estimate', 'ci_low', 'ci_high']
    """
    columns = ["measure", *keys, *TIDY[1:]]
    nonempty = [t for t in tables if len(t)]
    if not nonempty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    return pd.concat(nonempty, ignore_index=True)[columns]


def finalize(
    stats: pd.DataFrame, keys: Sequence[str], kinds: Mapping[str, Kind], level: float = 0.95
) -> pd.DataFrame:
    """The tidy table of plain measures: each a proportion or a mean, per group.

    >>> stats = pd.DataFrame({"x.n": [4.0], "x.sum": [3.0], "x.sumsq": [3.0]})
    >>> finalize(stats, [], {"x": "proportion"})[["measure", "n", "estimate"]].values.tolist()
    [['x', 4, 0.75]]
    """
    rows = []
    for measure, kind in kinds.items():
        if f"{measure}.n" not in stats.columns:
            continue
        n, total = stats[f"{measure}.n"], stats[f"{measure}.sum"]
        if kind == "proportion":
            rows.append(proportion_rows(stats, keys, total, n, measure, level))
        else:
            sumsq = stats[f"{measure}.sumsq"]
            rows.append(mean_rows(stats, keys, n, total, sumsq, measure, level))
    return stack(rows, keys)


def estimate_of(table: pd.DataFrame, measure: str, **keys: object) -> Estimate:
    """The :class:`~spades_sim.analysis.stats.Estimate` of one row of a tidy table: the
    row of ``measure`` whose group keys equal ``keys`` (ValueError unless exactly one).

    >>> t = pd.DataFrame({"measure": ["bags", "bags"], "side": [0, 1], "n": [10, 10],
    ...                   "total": [15.0, 17.0], "estimate": [1.5, 1.7],
    ...                   "ci_low": [1.1, 1.3], "ci_high": [1.9, 2.1]})
    >>> str(estimate_of(t, "bags", side=1))
    '1.700 [1.300, 2.100] (n=10)'
    """
    mask = np.array(table["measure"] == measure, dtype=bool)
    for key, value in keys.items():
        if key not in table.columns:
            raise ValueError(f"estimate_of: the table has no key {key!r}")
        mask &= np.array(table[key] == value, dtype=bool)
    if int(mask.sum()) != 1:
        where = "".join(f", {k}={v!r}" for k, v in keys.items())
        raise ValueError(f"estimate_of: {int(mask.sum())} rows of {measure!r}{where}, not one")
    r = table[mask].iloc[0]
    return Estimate(float(r["estimate"]), float(r["ci_low"]), float(r["ci_high"]), int(r["n"]))


# --------------------------------------------------------------------------------------
# Running plans over sources
# --------------------------------------------------------------------------------------


def check_keys(plan: Plan, by: Sequence[str], source: Source) -> None:
    """Raise :class:`UnknownKey` unless ``plan`` can group ``source`` by ``by``
    (``ValueError`` if the plan needs a games table the source lacks).

    >>> from spades_sim import simulate_hands
    >>> from spades_sim.analysis.nil_rates import PLAN
    >>> (source,) = sources(simulate_hands(2, seed=1, play="random"))
    >>> check_keys(PLAN, ["hand_no"], source)
    Traceback (most recent call last):
    ...
    spades_sim.analysis.source.UnknownKey: by: 'hand_no' is not a column of the data (a hands run)
    """
    allowed = (*plan.keys, *SOURCE_KEYS)
    for key in by:
        if key not in allowed:
            raise UnknownKey(
                f"by: {key!r} is not a key of {plan.name}, whose unit is {plan.unit}; "
                f"its keys: {', '.join(allowed)}"
            )
        if key in plan.measures:  # grouping by the value measured left the table empty
            raise UnknownKey(f"by: {key!r} is what {plan.name} measures, not a key of it")
        if key in DD_NAMES and key not in source.hands_columns:
            raise NoDoubleDummy(_no_dd(source))
        raw = key in plan.keys and key not in plan.derived and key not in plan.late
        if raw and source.aggregate is not None and key not in source.hands_columns:
            counted = ",".join(source.aggregate.by) or "no key"
            raise UnknownKey(
                f"by: {key!r} is not a key of {source.label}, an aggregate counted by "
                f"{counted}; aggregate again with it among --by"
            )
        if raw and key not in source.hands_columns:
            raise UnknownKey(f"by: {key!r} is not a column of {source.label} (a {source.mode} run)")
    if any(c in DD_NAMES and c not in source.hands_columns for c in plan.hands_columns):
        raise NoDoubleDummy(f"{plan.name}: " + _no_dd(source))
    if source.aggregate is not None and plan.from_aggregate is None:
        raise ValueError(f"{plan.name}: needs the rows of a run; {source.label} is an aggregate")
    if plan.needs_games and not source.has_games:
        raise ValueError(
            f"{plan.name}: needs a games run with its games table (a games run directory, or "
            f"the (hands, games) pair simulate_games returns); {source.label} is "
            + ("a hands run" if source.mode == "hands" else "a games run without it")
        )
    if "policy" in by:
        source.policy_labels()
    if "rules" in by:
        source.rules_label()


def _no_dd(source: Source) -> str:
    """Why ``source`` has no double-dummy columns, and how to get them, in one line."""
    if source.aggregate is not None:
        return (
            f"{source.label} is an aggregate, counted in kernels that never call the solver: "
            "it has no double-dummy columns; make a run of rows with --dd"
        )
    return missing_dd(source.label)


def _row_keys(plan: Plan, by: Sequence[str]) -> list[str]:
    keys = [k for k in by if k not in SOURCE_KEYS and k not in plan.late]
    if "policy" in by and "side" not in keys:
        keys.append("side")
    return [k for k in keys if k not in plan.internal]


def _final_keys(plan: Plan, by: Sequence[str]) -> list[str]:
    outer = [k for k in by if k not in plan.late and k not in plan.internal]
    return [*outer, *plan.internal]


def statistics_many(
    data: Data | list[Data], requests: Sequence[tuple[Plan, Sequence[str]]]
) -> list[pd.DataFrame]:
    """The combined statistics of several plans, each with its ``by``, in one scan per run.

    Each table's keys are ``by`` (without late keys) followed by the plan's internal keys.

    >>> from spades_sim import simulate_hands
    >>> from spades_sim.analysis.nil_rates import PLAN
    >>> (stats,) = statistics_many(simulate_hands(100, seed=1, play="random"), [(PLAN, [])])
    >>> stats[["nil_kind", "seats.n"]].sort_values("nil_kind").values.tolist()
    [[0.0, 376.0], [1.0, 24.0]]
    """
    srcs = sources(data)
    wanted = [(plan, key_list(by)) for plan, by in requests]
    for source in srcs:
        for plan, by in wanted:
            check_keys(plan, by, source)
    per_plan: list[list[pd.DataFrame]] = [[] for _ in wanted]
    for source in srcs:
        hands_columns: list[str] = ["seat", "side"]
        games_columns: list[str] = []
        row_keys = []
        for plan, by in wanted:
            keys = _row_keys(plan, by)
            row_keys.append(keys)
            raw = [k for k in keys if k not in plan.derived]
            hands_columns += [*plan.hands_columns, *raw]
            games_columns += plan.games_columns
        running: list[pd.DataFrame | None] = [None] * len(wanted)
        if source.aggregate is not None:  # counts, no rows: the same statistics
            for i, (plan, _) in enumerate(wanted):
                assert plan.from_aggregate is not None  # check_keys said so
                running[i] = plan.from_aggregate(source.aggregate, row_keys[i])
        batches = source.batches(hands_columns, games_columns) if source.aggregate is None else ()
        for hands, games in batches:
            for i, (plan, _) in enumerate(wanted):
                stat_keys = [*row_keys[i], *plan.internal]
                units = plan.derive(hands, games, row_keys[i])
                tables = [reduce_units(u, stat_keys) for u in units]
                if running[i] is not None:
                    tables.insert(0, running[i])  # type: ignore[arg-type]
                if tables:
                    running[i] = combine(tables, stat_keys)
        for i, (plan, by) in enumerate(wanted):
            table = running[i]
            if table is None:
                continue
            if "policy" in by:
                table["policy"] = table["side"].map(source.policy_labels())
            if "rules" in by:
                table["rules"] = source.rules_label()
            per_plan[i].append(combine([table], _final_keys(plan, by)))
    out = []
    for (plan, by), tables in zip(wanted, per_plan, strict=True):
        keys = _final_keys(plan, by)
        if tables:
            out.append(combine(tables, keys))
        else:
            out.append(pd.DataFrame({k: [] for k in keys}))
    return out


def run_many(
    data: Data | list[Data],
    requests: Sequence[tuple[Plan, Sequence[str]]],
    level: float = 0.95,
) -> list[pd.DataFrame]:
    """The tidy tables of several plans, in one scan of each run.

    >>> from spades_sim import simulate_hands
    >>> from spades_sim.analysis import bids
    >>> df = simulate_hands(100, seed=1, play="random")
    >>> tables = run_many(df, [(bids.SUMMARY_PLAN, []), (bids.CALIBRATION_PLAN, ["seat"])])
    >>> [t.measure.iloc[0] for t in tables]
    ['difference', 'tricks']
    """
    tables = statistics_many(data, requests)
    return [
        plan.finalize(stats, key_list(by), level)
        for (plan, by), stats in zip(requests, tables, strict=True)
    ]


def run_plan(
    data: Data | list[Data], plan: Plan, by: str | Sequence[str] | None, level: float = 0.95
) -> pd.DataFrame:
    """The tidy table of one plan.

    >>> from spades_sim import simulate_hands
    >>> from spades_sim.analysis.nil_rates import PLAN
    >>> run_plan(simulate_hands(100, seed=1, play="random"), PLAN, "side").side.tolist()
    [0, 1, 0, 1]
    """
    return run_many(data, [(plan, key_list(by))], level)[0]


__all__ = [
    "STATS",
    "TIDY",
    "Plan",
    "combine",
    "estimate_of",
    "finalize",
    "group_sum",
    "mean_rows",
    "proportion_rows",
    "reduce_units",
    "run_many",
    "run_plan",
    "stack",
    "statistics_many",
    "unit_frame",
]
