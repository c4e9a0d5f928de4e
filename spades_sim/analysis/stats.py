"""Interval estimates in closed form: a mean with its normal interval, a proportion with
its Wilson score interval.

Both return an :class:`Estimate` (value, interval, sample size). The mean's interval is
the large-sample normal one, ``mean ± z · s / √n`` with ``s`` the sample standard
deviation (NIST/SEMATECH *e-Handbook of Statistical Methods*, §7.2.2.1, "Confidence
limits for the mean"); use it for the thousands of hands a simulation gives, not for a
handful. The proportion's interval is Wilson's score interval (E. B. Wilson, "Probable
inference, the law of succession, and statistical inference", *JASA* 22, 209–212, 1927;
recommended over the Wald interval by Agresti & Coull, *The American Statistician* 52,
119–126, 1998): it stays inside [0, 1] and behaves near 0 and 1 and for small counts.

>>> mean_ci([1.0, 2.0, 3.0, 4.0]).value
2.5
>>> str(proportion_ci(8, 10))
'0.800 [0.490, 0.943] (n=10)'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval ``[low, high]`` at ``level``.

    >>> Estimate(0.5, 0.4, 0.6, 100).contains(0.45)
    True
    """

    value: float
    low: float
    high: float
    n: int
    level: float = 0.95

    @property
    def half_width(self) -> float:
        """Half the interval's width (the "±" figure)."""
        return (self.high - self.low) / 2

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies in the interval."""
        return self.low <= x <= self.high

    def __str__(self) -> str:
        digits = 3 if max(abs(self.low), abs(self.high)) < 10 else 1
        value, low, high = (
            unsigned_zero(f"{x:.{digits}f}") for x in (self.value, self.low, self.high)
        )
        return f"{value} [{low}, {high}] (n={self.n})"


def unsigned_zero(text: str) -> str:
    """A formatted number that rounds to zero without its minus sign: a tie printed as
    ``-0`` reads as a loss.

    >>> unsigned_zero(f"{-0.0:.3g}"), unsigned_zero(f"{-0.0004:.3f}"), unsigned_zero("-0.5")
    ('0', '0.000', '-0.5')
    """
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) else text


def z_value(level: float = 0.95) -> float:
    """The two-sided standard normal quantile for ``level`` (1.96 for 0.95).

    >>> round(z_value(0.95), 2)
    1.96
    """
    if not 0 < level < 1:
        raise ValueError(f"level: must be between 0 and 1, got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def mean_ci(values: Iterable[float] | np.ndarray, level: float = 0.95) -> Estimate:
    """The mean of ``values`` with its normal-approximation interval ``mean ± z s/√n``.

    >>> e = mean_ci(np.arange(101.0))
    >>> e.value, round(e.low, 2), round(e.high, 2)
    (50.0, 44.29, 55.71)
    """
    x = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        raise ValueError("mean_ci: no values")
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1, level)
    half = z_value(level) * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, level)


def mean_ci_of_moments(n: int, total: float, sumsq: float, level: float = 0.95) -> Estimate:
    """:func:`mean_ci` from the sufficient statistics of a sample: its size ``n``, the sum
    of its values ``total`` and the sum of their squares ``sumsq`` (which add across the
    parts of a run). The sample variance is ``(sumsq - total²/n) / (n - 1)``; with
    whole-number values below 2**53 in float64 the sums are exact, so the same sample gives
    the same interval however it was split.

    >>> x = np.arange(101.0)
    >>> e = mean_ci_of_moments(101, x.sum(), (x * x).sum())
    >>> e.value, round(e.low, 2), round(e.high, 2)
    (50.0, 44.29, 55.71)
    """
    n = int(n)
    if n <= 0:
        raise ValueError("mean_ci_of_moments: n must be at least 1")
    mean = float(total) / n
    if n == 1:
        return Estimate(mean, -math.inf, math.inf, 1, level)
    variance = max(0.0, (float(sumsq) - float(total) * float(total) / n) / (n - 1))
    half = z_value(level) * math.sqrt(variance / n)
    return Estimate(mean, mean - half, mean + half, n, level)


def proportion_ci(successes: int, n: int, level: float = 0.95) -> Estimate:
    """The proportion ``successes / n`` with Wilson's score interval:
    ``(p + z²/2n ± z √(p(1-p)/n + z²/4n²)) / (1 + z²/n)``.

    >>> e = proportion_ci(0, 20)
    >>> e.value, e.low, round(e.high, 3)
    (0.0, 0.0, 0.161)
    """
    if n <= 0:
        raise ValueError("proportion_ci: n must be at least 1")
    if not 0 <= successes <= n:
        raise ValueError(f"proportion_ci: successes must be 0..{n}, got {successes}")
    z = z_value(level)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Estimate(p, low, high, n, level)


def proportion_of(flags: Iterable[bool] | np.ndarray, level: float = 0.95) -> Estimate:
    """:func:`proportion_ci` of a boolean sample; missing values (None, NaN, pandas NA)
    are dropped.

    >>> str(proportion_of([True, False, True, None, True]))
    '0.750 [0.301, 0.954] (n=4)'
    """
    values = pd.Series(list(flags) if not isinstance(flags, np.ndarray) else flags).dropna()
    return proportion_ci(int(values.astype(bool).sum()), int(values.size), level)


__all__ = [
    "Estimate",
    "mean_ci",
    "mean_ci_of_moments",
    "proportion_ci",
    "proportion_of",
    "unsigned_zero",
    "z_value",
]
