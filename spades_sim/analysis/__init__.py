"""Analyses of simulated hands: interval estimates and strategy comparisons.

``stats`` gives closed-form intervals (a mean, a proportion); ``compare`` plays duplicate
matches between policies and measures bid accuracy and nil success.

>>> from spades_sim.analysis import mean_ci
>>> mean_ci([2.0, 4.0]).value
3.0
"""

from spades_sim.analysis.compare import (
    Duplicate,
    bid_accuracy,
    duplicate,
    nil_success,
    side_margins,
)
from spades_sim.analysis.stats import Estimate, mean_ci, proportion_ci, proportion_of

__all__ = [
    "Duplicate",
    "Estimate",
    "bid_accuracy",
    "duplicate",
    "mean_ci",
    "nil_success",
    "proportion_ci",
    "proportion_of",
    "side_margins",
]
