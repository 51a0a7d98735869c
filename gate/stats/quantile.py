"""The statistics a benchmark can be summarised by, and the Harrell–Davis quantile estimator.

A statistic is named by a string, the form every file and setting stores:

* ``"median"`` — the sample median (``numpy.median``), the gate's summary since the first release;
  an analysis that says ``median`` keeps meaning exactly this.
* ``"mean"`` — the arithmetic mean.
* ``"pNN"`` (``p1`` … ``p99``) — the NN-th percentile by the Harrell–Davis estimator.

Why a lower quantile: interference (other processes, interrupts, frequency drops) only ever adds
time to a measurement, so timings are a floor plus positive delays (Chen & Revels, "Robust
benchmarking in noisy environments", HPEC 2016). The median moves with how many values were hit;
a low quantile such as the 10th percentile sits near the floor, which is what the code costs
(../shared/notes/noise.md; docs/statistics.md has the evaluation that chose the default).

Why Harrell–Davis (Harrell & Davis, "A new distribution-free quantile estimator", Biometrika 69,
1982): it is a weighted sum of *all* order statistics with Beta weights, ``w_i = I_{i/n}(a, b) −
I_{(i−1)/n}(a, b)`` with ``a = q(n+1)``, ``b = (1−q)(n+1)`` (``I`` the regularised incomplete
beta function). A single order statistic (numpy's default quantile) jumps between neighbouring
values; at small n and for low quantiles that is most of its variance, and the bootstrap of a
single order statistic is discrete (few distinct replicates), which makes percentile CIs coarse.
The weighted sum is smooth and has a far lower variance there; BenchmarkDotNet / perfolizer
(Akinshin, "Pro .NET Benchmarking", 2019) use it for the same reason.

Bootstrap replicates are computed from the sorted resample, so the weights apply to sorted
resample positions; the weights of one ``(n, q)`` are cached, and positions whose weight is below
:data:`WEIGHT_EPSILON` at both ends are left out (their total weight is below 2·``WEIGHT_EPSILON``,
and the kept weights are rescaled to sum to 1, so the estimate moves by less than that fraction of
the sample's range), which is what makes the
vectorised replicates affordable.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from gate.statistic import STATISTIC_FORMS, describe, is_statistic, parse_statistic, quantile_of

__all__ = ["STATISTIC_FORMS", "describe", "is_statistic", "parse_statistic", "quantile_of"]

FloatArray = NDArray[np.float64]

WEIGHT_EPSILON = 1e-12


@functools.lru_cache(maxsize=512)
def _weights(n: int, q: float) -> tuple[int, FloatArray]:
    """``(start, w)``: the Harrell–Davis weights of sorted positions ``start … start+len(w)−1``
    of a sample of ``n`` values (positions outside carry less than WEIGHT_EPSILON each end)."""
    from scipy import special  # here: the config reader parses names without loading scipy

    if n < 1:
        raise ValueError("a quantile needs at least one value")
    a, b = q * (n + 1), (1.0 - q) * (n + 1)
    cdf = special.betainc(a, b, np.arange(n + 1, dtype=np.float64) / n)
    w = np.diff(cdf)
    keep = np.flatnonzero((cdf[1:] > WEIGHT_EPSILON) & (cdf[:-1] < 1.0 - WEIGHT_EPSILON))
    start, stop = int(keep[0]), int(keep[-1]) + 1
    out = np.ascontiguousarray(w[start:stop])
    out /= out.sum()  # the weights sum to 1, so a constant sample's estimate is that constant
    out.setflags(write=False)
    return start, out


def hd_weights(n: int, q: float) -> tuple[int, FloatArray]:
    """Public form of the cached weights: ``(start, weights)`` over sorted positions."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile level must be in (0, 1), got {q!r}")
    return _weights(int(n), float(q))


def harrell_davis(values: np.ndarray, q: float) -> FloatArray | float:
    """The Harrell–Davis estimate of the ``q`` quantile along the last axis of ``values``
    (a float for 1-D input). Every value must be finite."""
    x = np.sort(np.asarray(values, dtype=np.float64), axis=-1)
    n = x.shape[-1]
    start, w = hd_weights(n, q)
    est = x[..., start : start + w.size] @ w
    return float(est) if x.ndim == 1 else np.asarray(est, dtype=np.float64)


def sorted_positions_estimate(xs: FloatArray, positions: np.ndarray, q: float) -> FloatArray:
    """Harrell–Davis estimates of bootstrap resamples given as *sorted* positions into the sorted
    sample(s) ``xs``: ``positions`` (R, n) sorted along rows; ``xs`` (n',) or (G, n').
    Returns (R,) or (G, R)."""
    n = positions.shape[-1]
    start, w = hd_weights(n, q)
    cols = positions[:, start : start + w.size]
    if xs.ndim == 1:
        return np.asarray(xs[cols] @ w, dtype=np.float64)
    return np.asarray(xs[:, cols] @ w, dtype=np.float64)


def resample_weight_matrix(positions: np.ndarray, size: int, q: float) -> FloatArray:
    """(R, size) matrix W with ``W[r, j]`` = the Harrell–Davis weight resample r gives to position j
    of the sorted sample, from ``positions`` (R, n) sorted along rows; then the estimates of many
    sorted samples ``xs`` (G, size) are one matrix product ``xs @ W.T`` (BLAS), instead of a
    gather of (G, R, width) values."""
    r, n = positions.shape
    start, w = hd_weights(n, q)
    cols = positions[:, start : start + w.size]
    flat = (cols + (np.arange(r, dtype=np.int64) * size)[:, None]).ravel()
    weights = np.broadcast_to(w, cols.shape).ravel()
    return np.asarray(np.bincount(flat, weights=weights, minlength=r * size), dtype=np.float64).reshape(
        r, size
    )


def weighted_harrell_davis(xs: FloatArray, cum: FloatArray, totals: FloatArray, q: float) -> FloatArray:
    """Harrell–Davis estimates of resamples given as counts: ``xs`` the sorted values (n,),
    ``cum`` (B, n) the cumulative counts of each sorted value per resample, ``totals`` (B,).
    The sorted value j occupies ranks cum_{j−1}+1 … cum_j of the resample, so its weight is
    ``I_{cum_j/T}(a, b) − I_{cum_{j−1}/T}(a, b)`` (the same Beta weights, summed over its copies)."""
    from scipy import special

    a = (q * (totals + 1.0))[:, None]
    b = ((1.0 - q) * (totals + 1.0))[:, None]
    cdf = special.betainc(a, b, np.clip(cum / totals[:, None], 0.0, 1.0))
    w = np.diff(cdf, axis=1, prepend=0.0)
    return np.asarray(w @ xs, dtype=np.float64)
