"""What an analysis computes, step by step, as plain values the page's templates show.

Contract
--------
:func:`analysis_steps` turns an :class:`~spades_sim.web.query.Analysis` into the
:class:`~spades_sim.web.jobs.Step` list a job runs: the bid table
(:func:`spades_sim.advise`: every legal bid's made chance, points, bags, win and gain,
given the bids before, the score and the bags) with the nil odds against the bots read
off its nil row and its completions (the made chance, the points against the best
number bid, the cards that took failed nils' first trick: one sampling, so the nil view
and the table's nil row are the same numbers); on request the nil against perfect
defence (the first :data:`DD_COMPLETIONS` of the table's completions solved double
dummy); and the trick distribution (the seat's side's double-dummy tricks over the first
:data:`TRICK_COMPLETIONS` of them). Each step is called through a ``compute`` function
(the app's runs them in its worker process). Every step uses seed 0, so an analysis (and
its permalink) gives the same numbers every time, on any thread count, and the first
``k`` completions of a step are the table's first ``k``. Each step returns a dict of
plain values; nothing here renders.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np

from spades_sim.analysis.stats import proportion_ci
from spades_sim.cards import SEAT_NAMES, SIDE_NAMES
from spades_sim.odds.advice import NIL, BidAdvice, advice_completions, advise
from spades_sim.solve import Position, dd_tricks
from spades_sim.solve.batch import nil_table
from spades_sim.web.jobs import Step
from spades_sim.web.query import Analysis

__all__ = [
    "DD_COMPLETIONS",
    "TRICK_COMPLETIONS",
    "Compute",
    "analysis_steps",
    "bid_table",
    "local",
    "perfect_view",
    "trick_view",
]

DD_COMPLETIONS = 50
"""Completions solved for the nil against perfect defence (about 0.1 to 1 s each)."""
TRICK_COMPLETIONS = 40
"""Completions solved double dummy for the trick distribution (tens of ms each)."""
SEED = 0


def _asked(a: Analysis) -> dict[str, Any]:
    """The analysis as :func:`spades_sim.advise` and ``advice_completions`` take it (seed
    0: the first ``n`` completions of any call are the first ``n`` of a larger one's)."""
    return {
        "hand": a.hand_text,
        "seat": SEAT_NAMES[a.seat],
        "dealer": SEAT_NAMES[a.dealer],
        "bids": a.bids_by_seat() or None,
        "scores": a.scores,
        "bags": a.bags,
        "rules": a.rules,
        "seed": SEED,
    }


def _advise(a: Analysis, n: int, threads: int | None) -> BidAdvice:
    """The bid table of the analysis on ``n`` completions."""
    return advise(**_asked(a), n=n, threads=threads)


def _completions(a: Analysis, n: int, threads: int | None) -> np.ndarray:
    """The first ``n`` completions of the analysis' bid table (they read the bids before
    the seat), (n, 4) hand masks by seat."""
    deals, _ = advice_completions(**_asked(a), n=n, threads=threads)
    return deals


def _interval(value: Any, low: Any, high: Any) -> dict[str, float] | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return {"value": float(value), "low": float(low), "high": float(high)}


def _column(record: Mapping[Any, Any], col: str) -> dict[str, float] | None:
    return _interval(record[col], record[f"{col}_low"], record[f"{col}_high"])


def _nil_of(advice: BidAdvice) -> dict[str, Any] | None:
    """The nil view of a bid table: its nil row (made, the side's points), the number bid
    best in points with its points, and the cards that took failed nils' first trick;
    None when the seat may not bid nil."""
    records = {str(r["bid"]): r for r in advice.table.to_dict("records")}
    if NIL not in records:
        return None
    numbers = [r for bid, r in records.items() if bid.isdigit()]
    best = max(numbers, key=lambda r: r["points"]) if numbers else None
    return {
        "n": advice.n,
        "made": _column(records[NIL], "made"),
        "nil_score": _column(records[NIL], "points"),
        "best_number_bid": int(best["bid"]) if best else None,
        "number_score": _column(best, "points") if best else None,
        "fatal": [{"card": c, "share": s} for c, s in list(advice.fatal_cards[NIL].items())[:8]],
    }


def bid_table(a: Analysis, threads: int | None = None) -> dict[str, Any]:
    """The bid table of :func:`spades_sim.advise` as rows of plain values, the best bid,
    what it is best by (win or points), the line on why, and (``nil``) the nil view of the
    same completions (:func:`_nil_of`)."""
    advice = _advise(a, a.n, threads)
    rows = []
    for record in advice.table.to_dict("records"):
        row: dict[str, Any] = {"bid": str(record["bid"]), "n": int(record["n"])}
        for col in ("made", "points", "bags", "win", "gain"):
            row[col] = _column(record, col)
        rows.append(row)
    return {
        "rows": rows,
        "best": str(advice.best),
        "by": advice.by,
        "why": advice.why(),
        "side": SIDE_NAMES[a.seat % 2],
        "relaxed": float(advice.relaxed),
        "nil": _nil_of(advice),
    }


def perfect_view(a: Analysis, threads: int | None = None) -> dict[str, Any]:
    """The nil against perfect defence: the first :data:`DD_COMPLETIONS` completions of the
    bid table solved double dummy from their opening position (whether the nil can be kept
    whatever the others do), beside how often the bots made it on those same deals."""
    n = min(DD_COMPLETIONS, a.n)
    deals = _completions(a, n, threads)
    leaders = [Position.start([int(h) for h in deal], a.dealer, a.rules).leader for deal in deals]
    safe = nil_table(deals, leaders, a.seat, rules=a.rules)
    safe_share = proportion_ci(int(safe.sum()), n)
    made = _nil_of(_advise(a, n, threads))
    return {
        "n": n,
        "safe": {"value": safe_share.value, "low": safe_share.low, "high": safe_share.high},
        "made": None if made is None else made["made"],
    }


def trick_view(a: Analysis, threads: int | None = None) -> dict[str, Any]:
    """How many tricks the seat's side takes with perfect play (double dummy) over the
    first :data:`TRICK_COMPLETIONS` completions of the bid table: counts per trick
    number."""
    deals = _completions(a, TRICK_COMPLETIONS, threads)
    leader = (a.dealer + 1) % 4
    counts = np.zeros(14, dtype=np.int64)
    for deal in deals:
        tricks = dd_tricks(Position.start([int(h) for h in deal], a.dealer, a.rules))
        side = tricks if leader % 2 == a.seat % 2 else 13 - tricks
        counts[side] += 1
    total = int(counts.sum())
    mean = float((counts * np.arange(14)).sum() / total)
    return {
        "counts": [int(c) for c in counts],
        "n": total,
        "mean": mean,
        "side": SIDE_NAMES[a.seat % 2],
    }


Compute = Callable[..., Any]
"""How a step's function is called: ``compute(fn, *args)`` returns ``fn(*args)``, here or
in the worker process (:mod:`spades_sim.web.app`)."""


def local(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in this process: the :data:`Compute` of a caller without a worker."""
    return fn(*args)


def analysis_steps(a: Analysis, compute: Compute = local, threads: int | None = None) -> list[Step]:
    """The steps of one analysis, in the order the page shows their results, each calling
    its function through ``compute``."""
    label = "bid table and nil odds"
    steps = [Step("table", label, partial(compute, bid_table, a, threads))]
    if a.dd:
        label = "nil against perfect defence"
        steps.append(Step("dd", label, partial(compute, perfect_view, a, threads)))
    steps.append(Step("tricks", "trick distribution", partial(compute, trick_view, a, threads)))
    return steps
