"""What an analysis computes, step by step, as plain values the page's templates show.

Contract
--------
:func:`analysis_steps` turns an :class:`~spades_sim.web.query.Analysis` into the
:class:`~spades_sim.web.jobs.Step` list a job runs: the bid table
(:func:`spades_sim.advise`: every legal bid's made chance, points, bags, win and gain,
given the bids before, the score and the bags), the nil odds against the bots
(:func:`spades_sim.nil_odds`, with the cards that took failed nils' first trick), on
request the nil against perfect defence (the first :data:`DD_COMPLETIONS` completions
solved double dummy), and the trick distribution (the seat's side's double-dummy tricks
over :data:`TRICK_COMPLETIONS` completions), each called through a ``compute`` function
(the app's runs them in its worker process). Every step uses seed 0, so an analysis (and
its permalink) gives the same numbers every time, on any thread count. Each step returns
a dict of plain values; nothing here renders.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from spades_sim import advise
from spades_sim.analysis.stats import Estimate
from spades_sim.cards import SEAT_NAMES, SIDE_NAMES
from spades_sim.odds import deal_completions, nil_odds
from spades_sim.solve import Position, dd_tricks
from spades_sim.web.jobs import Step
from spades_sim.web.query import Analysis

__all__ = [
    "DD_COMPLETIONS",
    "TRICK_COMPLETIONS",
    "Compute",
    "analysis_steps",
    "bid_table",
    "local",
    "nil_view",
    "trick_view",
]

DD_COMPLETIONS = 50
"""Completions solved for the nil against perfect defence (about 0.1 to 1 s each)."""
TRICK_COMPLETIONS = 40
"""Completions solved double dummy for the trick distribution (tens of ms each)."""
SEED = 0


def _est(e: Estimate | None) -> dict[str, float] | None:
    return None if e is None else {"value": e.value, "low": e.low, "high": e.high}


def bid_table(a: Analysis, threads: int | None = None) -> dict[str, Any]:
    """The bid table of :func:`spades_sim.advise` as rows of plain values, the best bid,
    what it is best by (win or points) and the line on why."""
    advice = advise(
        a.hand_text,
        SEAT_NAMES[a.seat],
        dealer=SEAT_NAMES[a.dealer],
        bids=a.bids_by_seat() or None,
        scores=a.scores,
        bags=a.bags,
        rules=a.rules,
        n=a.n,
        seed=SEED,
        threads=threads,
    )
    table = advice.table
    rows = []
    for record in table.to_dict("records"):
        row: dict[str, Any] = {"bid": str(record["bid"]), "n": int(record["n"])}
        for col in ("made", "points", "bags", "win", "gain"):
            if col in record:
                value = record[col]
                row[col] = (
                    None
                    if value is None or (isinstance(value, float) and math.isnan(value))
                    else {
                        "value": float(value),
                        "low": float(record[f"{col}_low"]),
                        "high": float(record[f"{col}_high"]),
                    }
                )
        rows.append(row)
    return {
        "rows": rows,
        "best": str(advice.best),
        "by": advice.by,
        "why": advice.why(),
        "side": SIDE_NAMES[a.seat % 2],
        "relaxed": float(advice.relaxed),
    }


def nil_view(a: Analysis, perfect: bool = False, threads: int | None = None) -> dict[str, Any]:
    """:func:`spades_sim.nil_odds` of the hand at its seat with its dealer; with
    ``perfect``, also the first :data:`DD_COMPLETIONS` completions solved double dummy."""
    odds = nil_odds(
        a.hand_text,
        seat=a.seat,
        dealer=a.dealer,
        rules=a.rules,
        n=a.n,
        seed=SEED,
        threads=threads,
        defense="double-dummy" if perfect else "policies",
        dd_completions=min(DD_COMPLETIONS, a.n),
    )
    out: dict[str, Any] = {
        "n": odds.n,
        "made": {"value": odds.probability, "low": odds.ci_low, "high": odds.ci_high},
        "nil_score": _est(odds.nil_score),
        "best_number_bid": odds.best_number_bid,
        "number_score": _est(odds.number_score),
        "nil_gain": _est(odds.nil_gain),
        "fatal": [{"card": c, "share": s} for c, s in list(odds.fatal_cards.items())[:8]],
        "text": str(odds),
    }
    if perfect and odds.dd_probability is not None:
        out["dd"] = {
            "n": odds.dd_n,
            "safe": {
                "value": odds.dd_probability,
                "low": odds.dd_ci_low,
                "high": odds.dd_ci_high,
            },
            "pairs": dict(odds.dd_pairs),
        }
    return out


def trick_view(a: Analysis, threads: int | None = None) -> dict[str, Any]:
    """How many tricks the seat's side takes with perfect play (double dummy) over
    :data:`TRICK_COMPLETIONS` completions of the deal: counts per trick number."""
    deals = deal_completions(
        a.hand_text, TRICK_COMPLETIONS, seed=SEED, seat=a.seat, rules=a.rules, threads=threads
    )
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
    steps = [
        Step("table", "bid table", partial(compute, bid_table, a, threads)),
        Step("nil", "nil odds against the bots", partial(compute, nil_view, a, False, threads)),
    ]
    if a.dd:
        label = "nil against perfect defence"
        steps.append(Step("dd", label, partial(compute, nil_view, a, True, threads)))
    steps.append(Step("tricks", "trick distribution", partial(compute, trick_view, a, threads)))
    return steps
