"""Analyses of simulated hands and games: tables with ``n`` and 95% intervals.

Every analysis takes a per-seat frame (as ``simulate_hands`` returns), the ``(hands,
games)`` pair ``simulate_games`` returns, a run directory (scanned part by part, so a run
larger than memory is fine) or a list of them, and returns a tidy frame: ``measure``,
the group keys, ``n``, ``total``, ``estimate``, ``ci_low``, ``ci_high``. Frames and run
directories give identical tables: each analysis reduces its rows to sufficient
statistics that add across parts (:mod:`.reduce`), then estimates from those.

- :func:`nil_success`: nil and blind nil success rates, and how often seats bid nil;
- :func:`bag_accumulation`: bags and the bag penalty per hand, or per game;
- :func:`bid_accuracy`: side tricks against contracts, and tricks by bid;
- :func:`realism`: the figures to hold against real tables (nil and blind nil rates,
  nil success clean and with a high spade, bags per hand, hands per game);
- :func:`analyze`: several of them in one pass (the ``spades-sim analyze`` command);
- :func:`duplicate`: two policies on the same deals with the sides swapped, hands or games;
- :func:`ladder`: every pair of several play policies in duplicate, ranked
  (:func:`write_ladder` / :func:`read_ladder` keep it as Parquet for the report);
- :func:`tune`: a policy's parameters searched for the best duplicate margin against a
  baseline (Optuna, the ``tune`` extra), the best re-measured on fresh deals;
- :func:`estimate_of`: one row of a table as an :class:`Estimate`;
- ``stats``: the intervals (a mean, a proportion).

>>> from spades_sim.analysis import mean_ci
>>> mean_ci([2.0, 4.0]).value
3.0
"""

from spades_sim.analysis.bags import bag_accumulation
from spades_sim.analysis.bids import bid_accuracy
from spades_sim.analysis.compare import (
    Duplicate,
    duplicate,
    hand_margins,
    side_margins,
    side_rows,
)
from spades_sim.analysis.ladder import ladder, read_ladder, write_ladder
from spades_sim.analysis.nil_rates import nil_success
from spades_sim.analysis.realism import realism
from spades_sim.analysis.reduce import estimate_of
from spades_sim.analysis.stats import (
    Estimate,
    mean_ci,
    mean_ci_of_moments,
    proportion_ci,
    proportion_of,
)
from spades_sim.analysis.tables import Analysis, analyze
from spades_sim.analysis.tune import TuneResult, tune

__all__ = [
    "Analysis",
    "Duplicate",
    "Estimate",
    "TuneResult",
    "analyze",
    "bag_accumulation",
    "bid_accuracy",
    "duplicate",
    "estimate_of",
    "hand_margins",
    "ladder",
    "mean_ci",
    "mean_ci_of_moments",
    "nil_success",
    "proportion_ci",
    "proportion_of",
    "read_ladder",
    "realism",
    "side_margins",
    "side_rows",
    "tune",
    "write_ladder",
]
