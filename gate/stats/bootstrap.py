"""Vectorised bootstrap confidence intervals of the mean, the median and Harrell–Davis quantiles
(``pNN``, gate/stats/quantile.py; pure numpy/scipy).

Three ways to resample one sample of a benchmark × version:

* **flat** — every value is an independent draw (µOpTime §2: percentile intervals, 99 %,
  10,000 resamples). Vectorised across many groups at once: the resample indices are drawn once
  per sample size and reused for every group of that size. For the median we sort each group
  once; because sorting is monotone, the k-th smallest value of a resample is the value at the
  k-th smallest *index* of the resample into the sorted group, so the order statistics of the
  index matrix are computed once and every group costs one gather (no per-group partition).
* **two-level** — resample the outer units (trials, or suite runs) with replacement, then the
  values inside every chosen unit (the hierarchical bootstrap for RMIT data, where the values
  of one trial share the process and are correlated).
* **paired** — the outer units (suite runs) are drawn once per replicate and shared by base and
  head, so conditions common to both versions in one suite run cancel in their ratio.

Intervals: percentile, or BCa (bias-corrected and accelerated; Flater, NIST TN 1855 §3.6, after
Efron & Tibshirani ch. 14) with jackknife acceleration. ``adaptive_resamples`` grows the number
of resamples until the Monte-Carlo error of the endpoints is small (NIST TN 1855 §3.6 uses an
adaptive replication count for the same purpose).

Everything takes a seeded :class:`numpy.random.Generator`; nothing reads a clock or global state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special

from gate.stats.quantile import (
    STATISTIC_FORMS,
    harrell_davis,
    is_statistic,
    quantile_of,
    resample_weight_matrix,
    sorted_positions_estimate,
    weighted_harrell_davis,
)

# A statistic's canonical name: "median", "mean" or "pNN" (gate/stats/quantile.py).
Statistic = str
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

# The fixed names; any "pNN" is accepted too (is_statistic).
STATISTICS: tuple[str, ...] = ("median", "mean")
# Bound on the number of float elements held at once by the vectorised paths (≈ 160 MB float64).
_CHUNK_ELEMENTS = 20_000_000


def _unknown(statistic: str) -> ValueError:
    return ValueError(f"statistic must be {STATISTIC_FORMS}, got {statistic!r}")


def point_estimate(x: np.ndarray, statistic: Statistic) -> float:
    if statistic == "median":
        return float(np.median(x))
    if statistic == "mean":
        return float(np.mean(x))
    if is_statistic(statistic) and (q := quantile_of(statistic)) is not None:
        return float(harrell_davis(np.asarray(x, dtype=np.float64).ravel(), q))
    raise _unknown(statistic)


def point_estimates(values: np.ndarray, statistic: Statistic) -> FloatArray:
    """:func:`point_estimate` of every row of ``values`` (G, n)."""
    if statistic == "median":
        return np.asarray(np.median(values, axis=1), dtype=np.float64)
    if statistic == "mean":
        return np.asarray(np.mean(values, axis=1), dtype=np.float64)
    if is_statistic(statistic) and (q := quantile_of(statistic)) is not None:
        return np.asarray(harrell_davis(values, q), dtype=np.float64)
    raise _unknown(statistic)


def percentile_bounds(dist: np.ndarray, confidence: float) -> tuple[FloatArray, FloatArray]:
    """Percentile-interval bounds per row with linear interpolation between order statistics
    (numpy's default, as the prototype's ``np.percentile``), via one partial sort per row.
    Rows containing ±inf give ±inf bounds without runtime warnings.

    The one percentile-interval routine of the gate (µOpTime §2): the analysis and the calibration
    both use it. Hand-written rather than ``np.quantile`` because a bootstrap-t distribution may hold
    infinities, which ``np.quantile`` interpolates (inf − inf) into NaN with a warning; it agrees
    with ``np.quantile`` to 1e-17 otherwise, at the same speed."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    alpha = (1.0 - confidence) / 2.0
    r = dist.shape[-1]
    bounds = []
    for q in (alpha, 1.0 - alpha):
        h = (r - 1) * q
        below = math.floor(h)
        frac = h - below
        above = min(below + 1, r - 1)
        bounds.append((below, above, frac))
    # Partition at the inner order statistic of each tail only; its outer neighbour is the max
    # (lower tail) or min (upper tail) of the few values beyond it: two selection passes, not four.
    lower_kth = bounds[0][1]
    upper_kth = bounds[1][0]
    lower_part, upper_part = _tail_partitions(dist, lower_kth, upper_kth, single_kth=SINGLE_KTH)

    def order_stat(k: int) -> FloatArray:
        if k == lower_kth:
            return lower_part[..., k]
        if k == upper_kth:
            return upper_part[..., k]
        if k == lower_kth - 1:
            return lower_part[..., :lower_kth].max(axis=-1)
        if k == upper_kth + 1:
            return upper_part[..., upper_kth + 1 :].min(axis=-1)
        return np.partition(dist, k, axis=-1)[..., k]  # pragma: no cover - not reachable for r >= 2

    out = []
    with np.errstate(invalid="ignore"):
        for below, above, frac in bounds:
            a = order_stat(below)
            b = order_stat(above)
            out.append(np.where(a == b, a, a + frac * (b - a)))
    lo, hi = out
    # inf − inf in the interpolation yields NaN: the bound is unbounded.
    lo = np.where(np.isnan(lo), -np.inf, lo)
    hi = np.where(np.isnan(hi), np.inf, hi)
    return lo, hi


# One np.partition per tail, each with a single kth: numpy (2.x on x86) selects a single kth with
# its vectorised quickselect but several kths with the generic introselect, which took 4× as long
# on 10,000 replicates (benchmarks/bench_calibrate.py --compare-partitions). Both give the same
# order statistics; the single-kth path is the default, the other is kept to compare against.
SINGLE_KTH = True


def _tail_partitions(
    dist: np.ndarray, lower_kth: int, upper_kth: int, *, single_kth: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Arrays partitioned at ``lower_kth`` and at ``upper_kth`` along the last axis (one array
    partitioned at both when ``single_kth`` is false)."""
    if not single_kth or lower_kth == upper_kth:
        both = np.partition(dist, sorted({lower_kth, upper_kth}), axis=-1)
        return both, both
    return np.partition(dist, lower_kth, axis=-1), np.partition(dist, upper_kth, axis=-1)


# ---------------------------------------------------------------------------------------------
# flat bootstrap, many groups at once


def _flat_index_plan(n: int, resamples: int, rng: np.random.Generator) -> IntArray:
    return rng.integers(0, n, size=(resamples, n), dtype=np.int64)


def _counts(idx: IntArray, n: int) -> NDArray[np.float64]:
    """How often each position occurs in each resample row: (B, n) index matrix → (B, n) counts."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def flat_replicates_many(
    values: np.ndarray, statistic: Statistic, resamples: int, rng: np.random.Generator
) -> FloatArray:
    """Bootstrap replicates of ``statistic`` for every row of ``values`` (G, n) → (G, resamples).

    One index matrix is drawn and shared by all rows (rows are separate benchmarks, so sharing
    the indices does not couple their intervals in any way that matters to a per-row CI).
    """
    values = np.asarray(values, dtype=np.float64)
    g, n = values.shape
    idx = _flat_index_plan(n, resamples, rng)
    out = np.empty((g, resamples), dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // max(1, resamples * 2))
    if statistic == "median":
        # Order statistics of the index rows = order statistics of the resample in a sorted group.
        lo_k, hi_k = (n - 1) // 2, n // 2
        idx.sort(axis=1)
        r_lo, r_hi = idx[:, lo_k], idx[:, hi_k]
        for start in range(0, g, step):
            xs = np.sort(values[start : start + step], axis=1)
            out[start : start + step] = 0.5 * (xs[:, r_lo] + xs[:, r_hi])
    elif statistic == "mean":
        counts = _counts(idx, n) / n
        for start in range(0, g, step):
            out[start : start + step] = values[start : start + step] @ counts.T
    elif is_statistic(statistic) and (q := quantile_of(statistic)) is not None:
        # Harrell–Davis: the same sorted-index trick; the weights of each resample's sorted
        # positions (gate/stats/quantile.py) become one (resamples, n) matrix, and every group's
        # replicates are one matrix product with it.
        idx.sort(axis=1)
        weights = resample_weight_matrix(idx, n, q)  # (resamples, n), shared by every group
        for start in range(0, g, step):
            out[start : start + step] = np.sort(values[start : start + step], axis=1) @ weights.T
    else:
        raise _unknown(statistic)
    return out


@dataclass(frozen=True)
class Intervals:
    """Estimates and interval bounds for many groups (``nan`` where a group had no values)."""

    estimate: FloatArray
    low: FloatArray
    high: FloatArray


def bootstrap_ci_many(
    groups: Sequence[np.ndarray],
    *,
    statistic: Statistic = "median",
    confidence: float = 0.99,
    resamples: int = 10_000,
    rng: np.random.Generator,
) -> Intervals:
    """Flat percentile CIs for many groups of any sizes; groups of equal size share one plan."""
    sizes = np.array([np.asarray(x).size for x in groups], dtype=np.int64)
    est = np.full(len(groups), np.nan)
    low = np.full(len(groups), np.nan)
    high = np.full(len(groups), np.nan)
    for n in np.unique(sizes):
        if n == 0:
            continue
        members = np.flatnonzero(sizes == n)
        block = np.vstack([np.asarray(groups[int(i)], dtype=np.float64).ravel() for i in members])
        step = max(1, _CHUNK_ELEMENTS // max(1, resamples * 2))
        for s in range(0, members.size, step):
            sub = block[s : s + step]
            reps = flat_replicates_many(sub, statistic, resamples, rng)
            lo, hi = percentile_bounds(reps, confidence)
            rows = members[s : s + step]
            est[rows] = point_estimates(sub, statistic)
            low[rows], high[rows] = lo, hi
    return Intervals(est, low, high)


# ---------------------------------------------------------------------------------------------
# hierarchical (two-level, paired) bootstrap via resampling weights


def _codes(labels: np.ndarray | None, n: int) -> IntArray:
    if labels is None:
        return np.arange(n, dtype=np.int64)
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.astype(np.int64).ravel()


def _draw_within(
    members: list[IntArray], chosen: IntArray, rng: np.random.Generator, n: int, inner: bool
) -> NDArray[np.float64]:
    """Counts (B, n) after drawing, for each replicate, the units ``chosen`` (B, k) and then the
    values inside each chosen unit (with replacement when ``inner``, else all of them)."""
    b, k = chosen.shape
    sizes = np.array([m.size for m in members], dtype=np.int64)
    m_max = int(sizes.max())
    table = np.full((len(members), m_max), -1, dtype=np.int64)
    for u, m in enumerate(members):
        table[u, : m.size] = m
    size_c = sizes[chosen]  # (B, k)
    if inner:
        j = (rng.random((b, k, m_max)) * size_c[..., None]).astype(np.int64)
    else:
        j = np.broadcast_to(np.arange(m_max), (b, k, m_max))
    valid = np.arange(m_max)[None, None, :] < size_c[..., None]
    pos = table[chosen[..., None], np.minimum(j, m_max - 1)]
    rows = np.broadcast_to(np.arange(b)[:, None, None], pos.shape)
    flat = (rows * n + pos)[valid]
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def hierarchical_weights(
    n: int,
    *,
    outer: np.ndarray | None,
    resamples: int,
    rng: np.random.Generator,
    outer_draw: IntArray | None = None,
    outer_order: np.ndarray | None = None,
) -> NDArray[np.float64]:
    """Resampling counts (resamples, n) of a two-level bootstrap.

    ``outer`` labels the unit (trial or suite run) of each value; ``None`` means flat. Units are
    drawn with replacement (or taken from ``outer_draw``, indices into ``outer_order`` — the
    shared draw of a paired comparison), then values within each chosen unit with replacement.
    """
    if outer is None:
        return _counts(_flat_index_plan(n, resamples, rng), n)
    labels = np.asarray(outer)
    order = np.unique(labels) if outer_order is None else np.asarray(outer_order)
    members = [np.flatnonzero(labels == u) for u in order]
    if outer_draw is None:
        chosen = rng.integers(0, len(order), size=(resamples, len(order)), dtype=np.int64)
    else:
        chosen = outer_draw
    return _draw_within(members, chosen, rng, n, inner=True)


def two_level_replicates(
    x: np.ndarray,
    *,
    outer: np.ndarray,
    statistic: Statistic,
    resamples: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Replicates (resamples,) of ``statistic`` under the two-level bootstrap, all at once.

    The same two stages as :func:`hierarchical_weights` with the same draws (the units, then
    ``floor(u × size)`` for each value inside a chosen unit), so the replicates equal
    ``weighted_statistic(x, hierarchical_weights(...))``; the hierarchical bootstrap for nested
    data (Davison & Hinkley 1997 §3.8, the scheme Kalibera & Jones, ISMM'13, size their levels
    for). Faster because no count matrix is built: the drawn values are gathered as their ranks
    in the sorted sample with one fancy-indexing op, and the median of a replicate is read from
    the order statistics of those ranks (sorting is monotone), as the flat path does."""
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(outer)
    n = x.size
    order = np.argsort(x, kind="stable")
    xs = np.append(x[order], 0.0)  # rank n: the padding of a short unit (weight 0 in a mean)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    units = np.unique(labels)
    members = [rank[np.flatnonzero(labels == u)] for u in units]
    k = len(members)
    sizes = np.array([m.size for m in members], dtype=np.int64)
    m_max = int(sizes.max())
    table = np.full((k, m_max + 1), n, dtype=np.int64)  # column m_max: always padding
    for row, m in enumerate(members):
        table[row, : m.size] = m
    chosen = rng.integers(0, k, size=(resamples, k), dtype=np.int64)
    size_c = sizes[chosen]  # (R, k)
    u = rng.random((resamples, k, m_max))
    u *= size_c[..., None]
    j = u.astype(np.int64)
    equal = bool((sizes == m_max).all())
    if not equal:
        j[np.arange(m_max)[None, None, :] >= size_c[..., None]] = m_max  # past the unit: padding
    j += (chosen * (m_max + 1))[..., None]  # flat index into the table
    pos = table.ravel().take(j).reshape(resamples, k * m_max)  # ranks of the drawn values
    totals = size_c.sum(axis=1)
    if statistic == "mean":
        return np.asarray(xs[pos].sum(axis=1) / totals, dtype=np.float64)
    if statistic != "median":
        if not is_statistic(statistic) or (q := quantile_of(statistic)) is None:
            raise _unknown(statistic)
        pos.sort(axis=1)  # padding (rank n) sorts last
        if equal:
            return sorted_positions_estimate(xs, pos, q)
        out = np.empty(resamples, dtype=np.float64)
        for total in np.unique(totals):  # the weights depend on the replicate's size
            rows_t = np.flatnonzero(totals == total)
            out[rows_t] = sorted_positions_estimate(xs, pos[rows_t, : int(total)], q)
        return out
    if equal:  # every replicate holds n values: two selections per row
        lo_k, hi_k = (n - 1) // 2, n // 2
        part = np.partition(pos, sorted({lo_k, hi_k}), axis=1)
        return 0.5 * (xs[part[:, lo_k]] + xs[part[:, hi_k]])
    pos.sort(axis=1)  # padding (rank n) sorts last; the median's ranks depend on the row's total
    rows = np.arange(resamples)
    return 0.5 * (xs[pos[rows, (totals - 1) // 2]] + xs[pos[rows, totals // 2]])


def three_level_weights(
    n: int,
    *,
    outer: np.ndarray,
    middle: np.ndarray,
    outer_draw: IntArray,
    outer_order: np.ndarray,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Paired two-level: the suite runs come from the shared ``outer_draw``; inside each chosen
    suite run the trials are resampled, then the values inside each chosen trial."""
    outer = np.asarray(outer)
    middle = np.asarray(middle)
    resamples = outer_draw.shape[0]
    total = np.zeros((resamples, n), dtype=np.float64)
    for u_index, u in enumerate(outer_order):
        in_u = np.flatnonzero(outer == u)
        times = (outer_draw == u_index).sum(axis=1)  # how often suite run u was drawn, per replicate
        if in_u.size == 0 or not times.any():
            continue
        sub_labels = middle[in_u]
        trials = np.unique(sub_labels)
        members = [np.flatnonzero(sub_labels == t) for t in trials]
        max_times = int(times.max())
        for rep in range(max_times):
            active = np.flatnonzero(times > rep)
            chosen = rng.integers(0, len(trials), size=(active.size, len(trials)), dtype=np.int64)
            w = _draw_within(members, chosen, rng, in_u.size, inner=True)
            total[np.ix_(active, in_u)] += w
    return total


def weighted_statistic(x: np.ndarray, weights: np.ndarray, statistic: Statistic) -> FloatArray:
    """Statistic of every weighted resample: ``weights`` (B, n) are counts of each value."""
    x = np.asarray(x, dtype=np.float64)
    totals = weights.sum(axis=1)
    if statistic == "mean":
        return np.asarray((weights @ x) / totals, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cum = np.cumsum(weights[:, order], axis=1)
    if statistic != "median":
        if not is_statistic(statistic) or (q := quantile_of(statistic)) is None:
            raise _unknown(statistic)
        return weighted_harrell_davis(xs, cum, totals, q)
    # Median of a multiset of size T: mean of the values of rank floor((T+1)/2) and floor(T/2)+1.
    r_lo = np.floor((totals + 1) / 2)
    r_hi = np.floor(totals / 2) + 1
    i_lo = (cum < r_lo[:, None]).sum(axis=1)
    i_hi = (cum < r_hi[:, None]).sum(axis=1)
    last = xs.size - 1
    return 0.5 * (xs[np.minimum(i_lo, last)] + xs[np.minimum(i_hi, last)])


# ---------------------------------------------------------------------------------------------
# BCa


def _jackknife(x: np.ndarray, statistic: Statistic, units: np.ndarray | None) -> FloatArray:
    x = np.asarray(x, dtype=np.float64)
    codes = _codes(units, x.size)
    out = []
    for u in np.unique(codes):
        keep = x[codes != u]
        out.append(point_estimate(keep, statistic) if keep.size else np.nan)
    return np.asarray(out, dtype=np.float64)


def bca_bounds(
    x: np.ndarray,
    replicates: np.ndarray,
    estimate: float,
    confidence: float,
    statistic: Statistic,
    units: np.ndarray | None = None,
) -> tuple[float, float]:
    """BCa interval (NIST TN 1855 §3.6; Efron & Tibshirani 1993 §14.3).

    z0 from the share of replicates below the estimate (ties count half), acceleration from the
    jackknife (leave one value, or one unit of ``units``, out). Falls back to the percentile
    interval when the correction is undefined (all replicates on one side, or no spread).
    """
    reps = np.asarray(replicates, dtype=np.float64)
    alpha = 1.0 - confidence
    below = (np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)) / reps.size
    jack = _jackknife(x, statistic, units)
    jack = jack[np.isfinite(jack)]
    d = jack.mean() - jack if jack.size else np.zeros(0)
    denom = 6.0 * float(np.sum(d**2)) ** 1.5
    if not 0.0 < below < 1.0 or denom == 0.0:
        lo, hi = percentile_bounds(reps, confidence)
        return float(lo), float(hi)
    z0 = float(special.ndtri(below))
    a = float(np.sum(d**3)) / denom
    z = special.ndtri(np.array([alpha / 2, 1 - alpha / 2]))
    adj = special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    lo, hi = np.quantile(reps, np.clip(adj, 0.0, 1.0))
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# adaptive number of resamples


def endpoint_mc_error(replicates: np.ndarray, confidence: float, batches: int = 10) -> float:
    """Monte-Carlo standard error of the percentile endpoints, relative to |median replicate|,
    estimated from ``batches`` independent sub-batches (batch means)."""
    reps = np.asarray(replicates, dtype=np.float64)
    usable = reps.size - reps.size % batches
    if usable < batches * 20:
        return float("inf")
    parts = reps[:usable].reshape(batches, -1)
    lo, hi = percentile_bounds(parts, confidence)
    scale = abs(float(np.median(reps))) or 1.0
    se = max(float(np.std(lo, ddof=1)), float(np.std(hi, ddof=1))) / np.sqrt(batches)
    return se / scale


def adaptive_resamples(
    x: np.ndarray,
    *,
    statistic: Statistic,
    confidence: float,
    rng: np.random.Generator,
    tolerance: float = 0.001,
    start: int = 2_000,
    maximum: int = 100_000,
) -> tuple[FloatArray, float]:
    """Flat replicates, doubling their number until the relative Monte-Carlo error of the
    endpoints is below ``tolerance`` or ``maximum`` is reached (NIST TN 1855 §3.6: replication
    counts chosen adaptively for a target simulation precision). Returns (replicates, error)."""
    values = np.asarray(x, dtype=np.float64)[None, :]
    reps = flat_replicates_many(values, statistic, start, rng)[0]
    err = endpoint_mc_error(reps, confidence)
    while err > tolerance and reps.size < maximum:
        more = flat_replicates_many(values, statistic, min(reps.size, maximum - reps.size), rng)[0]
        reps = np.concatenate([reps, more])
        err = endpoint_mc_error(reps, confidence)
    return reps, err
