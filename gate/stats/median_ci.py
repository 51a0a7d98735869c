"""Exact distribution-free confidence interval of the median.

The interval is the pair of order statistics that covers the population median with at least
the requested probability, from the binomial distribution of the number of values below it
(Conover, *Practical Nonparametric Statistics*, §3.2; the interval OrderSage's analysis and
``../shared/data/README.md`` fix: ``scipy.stats.quantile_test(x, p=0.5).confidence_interval``).
It makes no assumption on the shape of the distribution, so it suits long-tailed timings.

With too few values no pair of order statistics reaches the requested coverage (for example
n < 8 at 99 %): the bounds are then ``nan`` and callers must report that, not guess.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def min_values(confidence: float) -> int:
    """The fewest values for which :func:`median_ci` gives an interval at ``confidence``.

    The widest interval, (x_(1), x_(n)), misses the median only when every value falls on one
    side of it: probability 2 · 0.5^n. So n values suffice when its coverage 1 − 0.5^(n-1) exceeds
    ``confidence`` (strictly, as scipy's ``quantile_test`` requires): 8 at 99 %, 16 at
    1 − 0.05/1000."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    n = 1
    while 0.5 ** (n - 1) >= 1.0 - confidence:
        n += 1
    return n


def median_ci(x: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Return ``(median, low, high)`` of the finite values in ``x``.

    ``low``/``high`` are ``nan`` when the sample is too small for an interval with the requested
    coverage; all three are ``nan`` for an empty sample. ``confidence`` is in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    values = np.asarray(x, dtype=np.float64).ravel()
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    median = float(np.median(values))
    if values.size == 1:
        return (median, float("nan"), float("nan"))
    ci = stats.quantile_test(values, q=median, p=0.5).confidence_interval(confidence_level=confidence)
    return (median, float(ci.low), float(ci.high))
