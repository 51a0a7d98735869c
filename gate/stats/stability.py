"""Stability metrics of a benchmark sample (µOpTime, Japke et al. TOSEM 2025, §2).

* ``cv``    — coefficient of variation: population standard deviation (ddof 0) / mean.
* ``rmad``  — relative median absolute deviation: median(|x − median|) / median, *without*
  the 1.4826 normal-consistency factor (as the µOpTime prototype computes it).
* ``rciw1`` — relative width of the percentile-bootstrap CI of the mean (width / mean).
* ``rciw2`` — relative width of the studentised (bootstrap-t) CI of the mean (width / mean).
* ``rciw3`` — relative width of the percentile-bootstrap CI of the **median** (width / median).
  The prototype divides the width of the *mean's* CI by the median instead (a defect, see
  ../shared/data/README.md "uoptime_go"); :data:`RCIW3_UOPTIME` reproduces that variant for
  comparison only.

Everything is pure numpy. Bootstrap resamples come from a :class:`BootstrapPlan`: uniforms drawn
once from one seeded stream, turned into indices for each sample size on demand. A configuration's
metric therefore depends only on its values and the plan — not on which other configurations were
evaluated before it — so the early-stopping search and an exhaustive search give bit-identical
results (common random numbers across configurations).

The batched functions (``*_batch``) take a 2-D array, one sample per row (all rows of the same
size), and compute every row independently with the same reductions as the single-sample
functions, which call them with one row.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gate.stats.bootstrap import percentile_bounds

METRICS: tuple[str, ...] = ("cv", "rmad", "rciw1", "rciw2", "rciw3")
BOOTSTRAP_METRICS: frozenset[str] = frozenset({"rciw1", "rciw2", "rciw3"})
# The prototype's "RCIW3": width of the mean's percentile CI / median. Comparison only.
RCIW3_UOPTIME = "rciw3_uoptime"

DEFAULT_CONFIDENCE = 0.99  # µOpTime §2: 99 % CIs with 10,000 bootstrap samples
DEFAULT_RESAMPLES = 10_000

FloatArray = NDArray[np.float64]


# Memory bounds of a plan: uniforms for resamples × max_n up to this many values are drawn up front
# (128 MiB); larger plans draw each sample size's indices from their own stream, in chunks of
# resamples. Cached per-size arrays stop growing beyond _CACHE_BYTES (they are then recomputed).
_UNIFORMS_LIMIT = 1 << 24
_CHUNK = 1000
_CACHE_BYTES = 256 << 20


@dataclass
class BootstrapPlan:
    """Pre-drawn bootstrap randomness shared by every configuration of a search.

    Small plans hold ``uniforms`` of shape (resamples, max_n); a sample of size n uses the first
    n columns: index = floor(u · n). Large plans derive size n's indices from the stream
    ``default_rng([entropy, n])``. Either way a sample's resamples depend only on the seed and n.
    Weights (and, for the median, order statistics of the indices) are cached per n.
    """

    resamples: int
    max_n: int
    uniforms: FloatArray | None = None
    entropy: int = 0
    _weights: dict[int, FloatArray] = field(default_factory=dict, repr=False)
    _degenerate: dict[int, NDArray[np.intp]] = field(default_factory=dict, repr=False)
    _median_ranks: dict[int, tuple[NDArray[np.intp], NDArray[np.intp]]] = field(
        default_factory=dict, repr=False
    )
    _cached_bytes: int = field(default=0, repr=False)

    @classmethod
    def from_seed(cls, seed: int, max_n: int, resamples: int = DEFAULT_RESAMPLES) -> BootstrapPlan:
        return cls.from_rng(np.random.default_rng(seed), max_n, resamples)

    @classmethod
    def from_rng(
        cls, rng: np.random.Generator, max_n: int, resamples: int = DEFAULT_RESAMPLES
    ) -> BootstrapPlan:
        if resamples < 2:
            raise ValueError("resamples must be at least 2")
        max_n = max(int(max_n), 1)
        if resamples * max_n <= _UNIFORMS_LIMIT:
            return cls(resamples, max_n, uniforms=rng.random((resamples, max_n)))
        return cls(resamples, max_n, entropy=int(rng.integers(2**63)))

    def index_chunks(self, n: int) -> Iterator[NDArray[np.intp]]:
        """Resample indices into a sample of size n, in row blocks that together have
        ``resamples`` rows (one block for small plans)."""
        if n > self.max_n:
            raise ValueError(f"sample of {n} values exceeds the plan's max_n={self.max_n}")
        if self.uniforms is not None:
            yield np.minimum((self.uniforms[:, :n] * n).astype(np.intp), n - 1)
            return
        rng = np.random.default_rng([self.entropy, n])
        for start in range(0, self.resamples, _CHUNK):
            yield rng.integers(0, n, size=(min(_CHUNK, self.resamples - start), n))

    def indices(self, n: int) -> NDArray[np.intp]:
        """(resamples, n) resample indices into a sample of size n (not cached)."""
        return np.concatenate(list(self.index_chunks(n)))

    def _cache(self, store: dict[int, Any], n: int, value: Any, nbytes: int) -> None:
        if self._cached_bytes + nbytes <= _CACHE_BYTES:
            store[n] = value
            self._cached_bytes += nbytes

    def weight_chunks(self, n: int) -> Iterator[FloatArray]:
        """Multiplicities (how often each value appears in each resample), in row blocks."""
        cached = self._weights.get(n)
        if cached is not None:
            yield cached
            return
        blocks = []
        for idx in self.index_chunks(n):
            rows = np.arange(idx.shape[0])[:, None] * n
            counts = np.bincount((idx + rows).ravel(), minlength=idx.shape[0] * n)
            w = counts.reshape(idx.shape[0], n).astype(np.float64)
            blocks.append(w)
            yield w
        if len(blocks) == 1:
            self._cache(self._weights, n, blocks[0], blocks[0].nbytes)

    def weights(self, n: int) -> FloatArray:
        """(resamples, n) multiplicities."""
        return np.concatenate(list(self.weight_chunks(n)))

    def degenerate(self, n: int) -> NDArray[np.intp]:
        """For every resample that repeats a single index, that index (others are left out)."""
        d = self._degenerate.get(n)
        if d is None:
            parts = []
            for w in self.weight_chunks(n):
                rows = np.flatnonzero(w.max(axis=1) == n)
                parts.append(np.argmax(w[rows], axis=1))
            d = np.concatenate(parts)
            self._cache(self._degenerate, n, d, d.nbytes)
        return d

    def median_ranks(self, n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Ranks (into the *sorted* sample) of the two middle order statistics of every resample.

        Sorting is monotone, so the median of a resample of the sorted sample is
        (xs[lo] + xs[hi]) / 2 where lo/hi are the middle order statistics of the resample's
        indices: O(resamples) per configuration instead of a partition of resamples × n values.
        """
        ranks = self._median_ranks.get(n)
        if ranks is None:
            los, his = [], []
            for idx in self.index_chunks(n):
                srt = np.sort(idx, axis=1)
                los.append(srt[:, (n - 1) // 2])
                his.append(srt[:, n // 2])
            ranks = (np.concatenate(los), np.concatenate(his))
            self._cache(self._median_ranks, n, ranks, ranks[0].nbytes * 2)
        return ranks


# ---- row-wise reductions ------------------------------------------------------------------------
# numpy picks its summation order from the array's shape (pairwise along a contiguous axis,
# sequential across rows otherwise), so a row's sum could differ in the last bit depending on how
# many rows are batched with it. Reducing each row on its own fixes the order: a row's result is
# the same whether it is computed alone or in a batch (the search relies on that).


def _row_sum(x: FloatArray) -> FloatArray:
    return np.array([np.add.reduce(row) for row in x], dtype=np.float64)


def _row_mean(x: FloatArray) -> FloatArray:
    return cast(FloatArray, _row_sum(x) / x.shape[-1])


def _resample_moments(
    x: FloatArray, plan: BootstrapPlan, with_sd: bool
) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    """Per row: the sample mean, and for every resample the mean's deviation from it (and the
    resample's standard deviation, ddof 1), shapes (rows,), (rows, resamples), (rows, resamples).

    A resample is a row of multiplicity counts W (resamples × n), so its mean is W·x / n: one
    matrix-vector product per row instead of materialising rows × resamples × n values. Each row
    is a separate product (same shapes, same summation order) so batching cannot change it.
    Deviations are taken from the sample mean; resamples where that still cancels are recomputed
    exactly, and a resample of identical values gets a standard deviation of exactly 0.
    """
    n = x.shape[-1]
    centres = _row_mean(x)
    shifts = np.empty((x.shape[0], plan.resamples))
    sds = np.empty_like(shifts) if with_sd else None
    for r in range(x.shape[0]):
        y = x[r] - centres[r]
        y2 = y * y
        start = 0
        for weights in plan.weight_chunks(n):
            stop = start + weights.shape[0]
            # einsum, not BLAS: single-threaded and deterministic (multi-threaded OpenBLAS gemv
            # collapses on a loaded 2-core runner and may change summation order with thread count)
            m = np.einsum("ij,j->i", weights, y)
            m /= n
            shifts[r, start:stop] = m
            if sds is not None:
                sq = np.einsum("ij,j->i", weights, y2)
                ss = sq - n * m * m
                # One pass is exact in arithmetic but cancels when a resample lies far from the
                # sample mean (an outlier or a second cluster left out: hypothesis found samples
                # that lost 5 digits). Where more than 6 digits cancelled — which includes every
                # resample of identical values — recompute exactly in two passes.
                lossy = ss <= sq * 1e-6
                if lossy.any():
                    ss[lossy] = _exact_sum_of_squares(weights[lossy], y, m[lossy])
                ss /= n - 1
                sds[r, start:stop] = np.sqrt(ss, out=ss)
            start = stop
    return centres, shifts, sds


def _exact_sum_of_squares(weights: FloatArray, y: FloatArray, means: FloatArray) -> FloatArray:
    """Σ w·(y − mean)² per resample row, two-pass; exactly 0 for a resample of identical values."""
    dev = y[None, :] - means[:, None]
    ss = np.einsum("ij,ij->i", weights, dev * dev)
    present = weights > 0
    constant = np.where(present, y, -np.inf).max(axis=1) == np.where(present, y, np.inf).min(axis=1)
    ss[constant] = 0.0
    return ss


# ---- deterministic metrics ---------------------------------------------------------------------


def cv_batch(x: FloatArray) -> FloatArray:
    """CV per row: population standard deviation (ddof 0) / mean (µOpTime §2)."""
    mean = _row_mean(x)
    return cast(FloatArray, np.sqrt(_row_mean(cast(FloatArray, (x - mean[..., None]) ** 2))) / mean)


def rmad_batch(x: FloatArray) -> FloatArray:
    """RMAD per row: median(|x − median|) / median, no 1.4826 factor (µOpTime prototype)."""
    med = np.median(x, axis=-1)
    return np.median(np.abs(x - med[..., None]), axis=-1) / med


def cv(x: ArrayLike) -> float:
    """Coefficient of variation (ddof 0). NaN for an empty sample."""
    arr = _as_sample(x)
    if arr.size == 0:
        return float("nan")
    return float(cv_batch(arr[None, :])[0])


def rmad(x: ArrayLike) -> float:
    """Relative median absolute deviation (no 1.4826 factor). NaN for an empty sample."""
    arr = _as_sample(x)
    if arr.size == 0:
        return float("nan")
    return float(rmad_batch(arr[None, :])[0])


# ---- bootstrap ---------------------------------------------------------------------------------


def bootstrap_mean_ci_batch(
    x: FloatArray, plan: BootstrapPlan, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap CI of the mean per row (RCIW1's interval)."""
    centres, shifts, _ = _resample_moments(x, plan, with_sd=False)
    means = shifts + centres[:, None]  # (rows, resamples)
    return percentile_bounds(means, confidence)


def bootstrap_median_ci_batch(
    x: FloatArray, plan: BootstrapPlan, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap CI of the median per row (RCIW3's interval)."""
    n = x.shape[-1]
    lo_rank, hi_rank = plan.median_ranks(n)
    xs = np.sort(x, axis=-1)
    medians = 0.5 * (xs[:, lo_rank] + xs[:, hi_rank])
    return percentile_bounds(medians, confidence)


def bootstrap_t_mean_ci_batch(
    x: FloatArray, plan: BootstrapPlan, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[FloatArray, FloatArray]:
    """Studentised (bootstrap-t) CI of the mean per row (RCIW2's interval), standard error from
    the sample standard deviation (ddof 1), as µOpTime §2 describes.

    A resample whose values are all equal has no standard error; its t is ±inf (0 when its mean
    equals the sample mean). The prototype instead floors the deviation at 1e-6 in the data's
    unit, which makes the result depend on the unit; with ±inf a sample too small to have
    enough non-degenerate resamples gets an unbounded interval, i.e. is not stable.
    """
    n = x.shape[-1]
    mean, diff, bs_sd = _resample_moments(x, plan, with_sd=True)
    assert bs_sd is not None
    se = np.sqrt(_row_sum(cast(FloatArray, (x - mean[:, None]) ** 2)) / (n - 1)) / np.sqrt(n)
    bs_sd /= np.sqrt(n)  # the resamples' standard errors
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / bs_sd
    no_se = bs_sd == 0
    if no_se.any():
        t[no_se] = np.where(diff[no_se] > 0, np.inf, np.where(diff[no_se] < 0, -np.inf, 0.0))
    t_lo, t_hi = percentile_bounds(t, confidence)
    with np.errstate(invalid="ignore"):
        lo = mean - t_hi * se
        hi = mean - t_lo * se
    lo = np.where(np.isnan(lo), -np.inf, lo)
    hi = np.where(np.isnan(hi), np.inf, hi)
    # a sample of identical values (quantised timings) has the degenerate interval [x, x]; without
    # this, the rounding of its mean would make every resample's t ±inf
    constant = _constant_rows(x)
    if constant.any():
        lo = np.where(constant, x[:, 0], lo)
        hi = np.where(constant, x[:, 0], hi)
    return lo, hi


def _constant_rows(x: FloatArray) -> NDArray[np.bool_]:
    return np.asarray((x == x[:, :1]).all(axis=1))


def _t_interval_unbounded(
    x: FloatArray, centre: FloatArray, plan: BootstrapPlan, confidence: float
) -> NDArray[np.bool_]:
    """Rows whose bootstrap-t interval is certainly unbounded, decided without resampling.

    A resample repeating one value x_j has no standard error, so its t is +inf (x_j above the
    mean) or -inf (below). When there are more of one sign than the interval's tail holds, that
    quantile of t is infinite and so is the RCIW — the full computation gives the same. This is
    the case for every sample of 3 or 4 values with 10,000 resamples (1/9 and 1/64 of them repeat
    one index), so the search skips the resampling there.
    """
    n = x.shape[-1]
    r = plan.resamples
    alpha = (1.0 - confidence) / 2.0
    lower_k = min(math.floor((r - 1) * alpha) + 1, r - 1)  # the lower bound needs ranks ≤ this
    upper_k = math.floor((r - 1) * (1.0 - alpha))  # the upper bound needs ranks ≥ this
    js = plan.degenerate(n)
    if js.size == 0:
        return np.zeros(x.shape[0], dtype=bool)
    above = (x[:, js] > centre[:, None]).sum(axis=1)
    below = (x[:, js] < centre[:, None]).sum(axis=1)
    return ((above >= r - upper_k) | (below >= lower_k + 1)) & ~_constant_rows(x)


def rciw_batch(
    x: FloatArray, kind: str, plan: BootstrapPlan, confidence: float = DEFAULT_CONFIDENCE
) -> FloatArray:
    """Relative CI width per row for ``kind`` in rciw1 / rciw2 / rciw3 (or RCIW3_UOPTIME)."""
    if kind == "rciw1":
        lo, hi = bootstrap_mean_ci_batch(x, plan, confidence)
        centre = _row_mean(x)
    elif kind == "rciw2":
        centre = _row_mean(x)
        unbounded = _t_interval_unbounded(x, centre, plan, confidence)
        lo = np.full(x.shape[0], -np.inf)
        hi = np.full(x.shape[0], np.inf)
        if not unbounded.all():
            keep = ~unbounded
            lo[keep], hi[keep] = bootstrap_t_mean_ci_batch(x[keep], plan, confidence)
    elif kind == "rciw3":
        lo, hi = bootstrap_median_ci_batch(x, plan, confidence)
        centre = np.median(x, axis=-1)
    elif kind == RCIW3_UOPTIME:
        lo, hi = bootstrap_mean_ci_batch(x, plan, confidence)
        centre = np.median(x, axis=-1)
    else:
        raise ValueError(f"unknown RCIW kind {kind!r}; use rciw1, rciw2 or rciw3")
    with np.errstate(invalid="ignore"):
        width = np.abs(hi - lo)
    width = np.where(np.isnan(width), np.inf, width)
    return cast(FloatArray, width / centre)


def metric_batch(
    x: FloatArray, metric: str, plan: BootstrapPlan | None = None, confidence: float = DEFAULT_CONFIDENCE
) -> FloatArray:
    """Any stability metric per row; bootstrap metrics need a plan."""
    if metric == "cv":
        return cv_batch(x)
    if metric == "rmad":
        return rmad_batch(x)
    if plan is None:
        raise ValueError(f"metric {metric!r} needs a BootstrapPlan")
    return rciw_batch(x, metric, plan, confidence)


def rciw(
    x: ArrayLike,
    kind: str = "rciw1",
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
) -> float:
    """Relative confidence-interval width of one sample (µOpTime §2).

    ``kind``: ``rciw1`` (mean, percentile), ``rciw2`` (mean, bootstrap-t), ``rciw3`` (median,
    percentile). ``rng`` defaults to ``numpy.random.default_rng(0)`` so results are reproducible.
    NaN for fewer than 2 values.
    """
    arr = _as_sample(x)
    if arr.size < 2:
        return float("nan")
    plan = BootstrapPlan.from_rng(rng if rng is not None else np.random.default_rng(0), arr.size, resamples)
    return float(rciw_batch(arr[None, :], kind, plan, confidence)[0])


def bootstrap_ci(
    x: ArrayLike,
    statistic: str = "mean",
    method: str = "percentile",
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    plan: BootstrapPlan | None = None,
) -> tuple[float, float]:
    """Bootstrap CI of the mean (percentile or ``t``) or the median (percentile) of one sample."""
    arr = _as_sample(x)
    if arr.size < 2:
        return (float("nan"), float("nan"))
    if plan is None:
        plan = BootstrapPlan.from_rng(
            rng if rng is not None else np.random.default_rng(0), arr.size, resamples
        )
    row = arr[None, :]
    if statistic == "mean" and method == "percentile":
        lo, hi = bootstrap_mean_ci_batch(row, plan, confidence)
    elif statistic == "mean" and method == "t":
        lo, hi = bootstrap_t_mean_ci_batch(row, plan, confidence)
    elif statistic == "median" and method == "percentile":
        lo, hi = bootstrap_median_ci_batch(row, plan, confidence)
    else:
        raise ValueError(f"unsupported bootstrap CI: {statistic} with {method}")
    return (float(lo[0]), float(hi[0]))


def _as_sample(x: ArrayLike) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        arr = arr.ravel()
    return arr
