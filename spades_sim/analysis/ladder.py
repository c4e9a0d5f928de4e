"""The strength ladder: every play policy against every other in duplicate.

Contract
--------
:func:`ladder` plays each pair of ``rungs`` (play policies, weakest first as given) in a
duplicate match (:func:`~spades_sim.analysis.compare.duplicate`: the same ``deals``
deals twice, sides swapped, every seat bidding with ``bidding``) and returns one tidy
table: per pair (``a`` the later rung, ``b`` the earlier) the rows ``margin`` (A's
points per hand, paired, normal 95% interval), ``nils_made`` (the nils of A's side
made: how A covers and plays its own) and ``nils_set`` (B's nils that failed against
A: how A defends), with ``n``, ``estimate``, ``ci_low``, ``ci_high``. The table's
``attrs`` say how it was made (rungs, deals, seed, bidding, rules), and
:func:`write_ladder` / :func:`read_ladder` keep them in the Parquet file's metadata, so
that a report can say what it shows and refuse a file that is not a ladder.

Every pair uses the same seed, so every pair plays the same deals: the pairs' margins
are comparable with one another. :func:`ranking` orders the rungs by their mean margin
over all the others, and names the neighbours whose own match was too close to call.

>>> table = ladder(["random", "heuristic"], 40, seed=5)
>>> table[["a", "b", "measure"]].head(1).to_dict("records")
[{'a': 'heuristic', 'b': 'random', 'measure': 'margin'}]
>>> ranking(table)[0]
['heuristic', 'random']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from spades_sim.analysis.compare import Duplicate, duplicate
from spades_sim.analysis.stats import Estimate
from spades_sim.policies import Kind, parse_policy
from spades_sim.rules import Rules
from spades_sim.run.spec import PolicyArg
from spades_sim.text import rules_text

COLUMNS = ["a", "b", "measure", "n", "estimate", "ci_low", "ci_high"]
"""The ladder table's columns."""
MEASURES = ("margin", "nils_made", "nils_set")
"""The rows of each pair, in order."""
METADATA_KEY = b"spades_sim.ladder"
"""The Parquet metadata key that marks a ladder file and holds how it was made."""


class NotALadder(ValueError):
    """A file given as a ladder is not one this package wrote."""


def _text(policy: PolicyArg, kind: Kind) -> str:
    """The name a table gives a policy: the text given, else the policy's own text (a
    policy that does not parse fails here, before any deal is played)."""
    parsed = parse_policy(policy, kind)
    return policy.strip() if isinstance(policy, str) else parsed.to_text()


def ladder(
    rungs: Sequence[PolicyArg],
    deals: int,
    *,
    seed: int,
    bidding: PolicyArg = "count",
    rules: Rules | None = None,
    threads: int | None = None,
    level: float = 0.95,
    on_pair: Callable[[str, str, Duplicate], None] | None = None,
) -> pd.DataFrame:
    """Every pair of the play policies ``rungs`` in duplicate over ``deals`` deals.

    ``on_pair``, if given, is called as ``on_pair(a, b, result)`` after each pair (a
    progress line). Rungs must be at least two and distinct.
    """
    if len(rungs) < 2:
        raise ValueError(f"rungs: a ladder needs two play policies or more, got {len(rungs)}")
    names = [_text(r, "play") for r in rungs]
    bid_name = _text(bidding, "bid")
    # the same policy spelled two ways (a default written out) is one rung, not two
    policies = [parse_policy(r, "play") for r in rungs]
    for i in range(1, len(rungs)):
        for j in range(i):
            if names[i] == names[j]:
                raise ValueError(f"rungs: {names[i]!r} is given twice")
            if policies[i] == policies[j]:
                raise ValueError(
                    f"rungs: {names[j]!r} and {names[i]!r} are the same policy (the same "
                    "parameters): a match against itself measures nothing"
                )
    rows = []
    for i in range(1, len(rungs)):
        for j in range(i):
            result = duplicate(
                rungs[i],
                rungs[j],
                deals,
                seed=seed,
                bidding=bidding,
                rules=rules,
                threads=threads,
                level=level,
            )
            for measure in MEASURES:
                e = getattr(result, measure)
                if e is None:  # no nil on that side in any deal
                    rows.append((names[i], names[j], measure, 0, float("nan"), *[float("nan")] * 2))
                else:
                    rows.append((names[i], names[j], measure, e.n, e.value, e.low, e.high))
            if on_pair is not None:
                on_pair(names[i], names[j], result)
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["n"] = table["n"].astype("int64")
    table.attrs.update(
        {
            "rungs": names,
            "deals": int(deals),
            "seed": int(seed),
            "bidding": bid_name,
            "rules": rules_text((rules or Rules()).to_dict()),
            "level": float(level),
        }
    )
    return table


def estimate(table: pd.DataFrame, a: str, b: str, measure: str = "margin") -> Estimate | None:
    """One pair's figure from A's side (None when there is none). A pair is stored from
    its later rung's side; asked the other way round, a margin is negated, and A's nils
    made are the complement of the stored side's nils set (and the reverse).

    >>> t = pd.DataFrame([("x", "y", "margin", 10, 2.0, 1.0, 3.0),
    ...                   ("x", "y", "nils_set", 8, 0.75, 0.41, 0.93)], columns=COLUMNS)
    >>> estimate(t, "y", "x")
    Estimate(value=-2.0, low=-3.0, high=-1.0, n=10, level=0.95)
    >>> estimate(t, "y", "x", "nils_made").value
    0.25
    """
    turned = {"margin": "margin", "nils_made": "nils_set", "nils_set": "nils_made"}[measure]
    for first, second, stored in ((a, b, measure), (b, a, turned)):
        row = table[(table.a == first) & (table.b == second) & (table.measure == stored)]
        if len(row) == 0:
            continue
        r = row.iloc[0]
        if r.n == 0:
            return None
        value, low, high = float(r.estimate), float(r.ci_low), float(r.ci_high)
        n, level = int(r.n), float(table.attrs.get("level", 0.95))
        if first == a:
            return Estimate(value, low, high, n, level)
        if measure == "margin":
            return Estimate(-value, -high, -low, n, level)
        return Estimate(1.0 - value, 1.0 - high, 1.0 - low, n, level)
    return None


def rungs_of(table: pd.DataFrame) -> list[str]:
    """The rungs, in the order the ladder was given them."""
    if "rungs" in table.attrs:
        return list(table.attrs["rungs"])
    order: list[str] = []
    for name in [*table.b, *table.a]:
        if name not in order:
            order.append(name)
    return order


def ranking(table: pd.DataFrame) -> tuple[list[str], list[tuple[str, str]]]:
    """The rungs strongest first, by mean margin against all the others, and the pairs
    whose own match was too close to call (its interval holds zero).

    >>> t = pd.DataFrame([("b", "a", "margin", 10, 5.0, 1.0, 9.0),
    ...                   ("c", "a", "margin", 10, 6.0, 2.0, 10.0),
    ...                   ("c", "b", "margin", 10, 1.0, -3.0, 5.0)], columns=COLUMNS)
    >>> ranking(t)
    (['c', 'b', 'a'], [('c', 'b')])
    """
    names = rungs_of(table)
    mean: dict[str, float] = {}
    for name in names:
        against = [estimate(table, name, other) for other in names if other != name]
        values = [m.value for m in against if m is not None]
        mean[name] = sum(values) / len(values) if values else 0.0
    order = sorted(names, key=lambda x: -mean[x])
    ties = []
    rows = table[table.measure == "margin"]
    for a, b, n, low, high in zip(rows.a, rows.b, rows.n, rows.ci_low, rows.ci_high, strict=True):
        if int(n) and float(low) <= 0.0 <= float(high):
            ties.append((str(a), str(b)))
    return order, ties


def ranked_pairs(order: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of the rungs ``order`` (strongest first, as :func:`ranking` gives them),
    the higher-ranked first in each, in reading order.

    >>> ranked_pairs(["c", "b", "a"])
    [('c', 'b'), ('c', 'a'), ('b', 'a')]
    """
    return [(upper, lower) for i, upper in enumerate(order) for lower in order[i + 1 :]]


def write_ladder(table: pd.DataFrame, out: str | os.PathLike[str], force: bool = False) -> Path:
    """Write ``table`` (from :func:`ladder`) as one Parquet file, how it was made in its
    metadata. An existing ``out`` is replaced only if it is a ladder (or with ``force``);
    the file is written under a temporary name and renamed, so a failure leaves the old
    one whole."""
    path = Path(out)
    check_ladder_out(path, force)
    arrow = pa.Table.from_pandas(table[COLUMNS], preserve_index=False)
    meta = dict(arrow.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(table.attrs).encode()
    arrow = arrow.replace_schema_metadata(meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        pq.write_table(arrow, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _is_ladder(path: Path) -> bool:
    try:
        meta = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException):
        return False
    return METADATA_KEY in meta


def check_ladder_out(out: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse an output that exists and is not a ladder file (unless ``force``)."""
    path = Path(out)
    if path.is_dir():
        raise NotALadder(f"{path} is a directory; give a file name for the ladder")
    if path.exists() and not force and not _is_ladder(path):
        raise FileExistsError(
            f"{path} exists and is not a spades_sim ladder: give another file (or --force)"
        )


def read_ladder(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A ladder :func:`write_ladder` wrote, its ``attrs`` restored; a file that is not
    one raises :class:`NotALadder` (one line saying why)."""
    p = Path(path)
    if not p.is_file():
        raise NotALadder(f"{p}: no such file (a ladder is the file `spades-sim ladder` writes)")
    if not _is_ladder(p):
        raise NotALadder(f"{p} is not a ladder spades_sim wrote (`spades-sim ladder` writes one)")
    arrow = pq.read_table(p)
    table = arrow.to_pandas()
    if list(table.columns) != COLUMNS:
        raise NotALadder(f"{p}: columns {list(table.columns)}, expected {COLUMNS}")
    table.attrs.update(json.loads(arrow.schema.metadata[METADATA_KEY]))
    return table


__all__ = [
    "COLUMNS",
    "MEASURES",
    "NotALadder",
    "check_ladder_out",
    "estimate",
    "ladder",
    "ranked_pairs",
    "ranking",
    "read_ladder",
    "rungs_of",
    "write_ladder",
]
