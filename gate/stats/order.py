"""Order-effect statistics (OrderSage, ATC'23 — ``../shared/papers/000_*.txt``). Pure numpy/scipy.

* Kruskal-Wallis of fixed- vs random-order samples (§3, Algorithm 1, line 12).
* Effect size η² = (H − k + 1)/(N − k), clipped to [0, 1] (§5.1.1; the rank-based η² of
  Tomczak & Tomczak, which the data README fixes as the definition).
* Δ% = (mean_fixed − mean_random)/mean_fixed · 100 (§5.1).
* The exact distribution-free confidence interval of the median and the CI-overlap case
  (§3, Algorithm 2), with the case-2 rule of ``../shared/data/README.md``: *at least one*
  median inside the other sample's interval, bounds inclusive (Algorithm 2 as printed asks
  for both medians, strictly inside; the README's rule is the contract).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

# The exact order-statistic CI of the median lives in one place (shared with the base/head
# comparison); re-exported here because Algorithm 2's "RankBasedCI" is this interval.
from gate.stats.median_ci import median_ci

__all__ = [
    "KruskalResult",
    "ci_case",
    "delta_pct",
    "eta_squared",
    "kruskal_eta2",
    "kruskal_p",
    "kruskal_smallest_p",
    "median_ci",
]

CI_DISJOINT = 1  # inference does change (Algorithm 2, case 1)
CI_MEDIAN_INSIDE = 2  # inference likely does not change
CI_INCONCLUSIVE = 3  # inference may or may not change


@dataclass(frozen=True)
class KruskalResult:
    h: float  # NaN when undefined (every value identical)
    p: float  # NaN when undefined
    eta2: float  # NaN when undefined
    k: int
    n: int


def eta_squared(h: float, k: int, n: int) -> float:
    """Rank-based η² = (H − k + 1)/(N − k) clipped to [0, 1]; NaN when N ≤ k or H is NaN."""
    if n <= k or math.isnan(h):
        return math.nan
    return min(1.0, max(0.0, (h - k + 1) / (n - k)))


def kruskal_eta2(*groups: ArrayLike) -> KruskalResult:
    """Kruskal-Wallis H test across ``groups`` with its η² effect size.

    Returns NaN statistics (never raises, never warns) when fewer than two groups are
    non-empty or when every value is identical (H is 0/0 then).
    """
    arrays = [np.asarray(g, dtype=float).ravel() for g in groups]
    arrays = [a for a in arrays if a.size > 0]
    k = len(arrays)
    n = int(sum(a.size for a in arrays))
    if k < 2:
        return KruskalResult(math.nan, math.nan, math.nan, k, n)
    pooled = np.concatenate(arrays)
    if np.all(pooled == pooled[0]):
        return KruskalResult(math.nan, math.nan, math.nan, k, n)
    h, p = stats.kruskal(*arrays)
    h = float(h)
    return KruskalResult(h, float(p), eta_squared(h, k, n), k, n)


def kruskal_p(values: ArrayLike, codes: ArrayLike) -> float:
    """Kruskal-Wallis p-value across the groups ``codes`` (0 … k−1, every one present) of
    ``values``: the same H, tie correction and χ²(k − 1) tail as ``scipy.stats.kruskal``, about
    20× faster because the groups come as labels, not as k arrays (it runs once per benchmark and
    version under ``analyze --bootstrap auto``). NaN when every value is identical."""
    x = np.asarray(values, dtype=np.float64).ravel()
    g = np.asarray(codes, dtype=np.int64).ravel()
    n = x.size
    k = int(g.max()) + 1 if n else 0
    if k < 2:
        return math.nan
    ranks = stats.rankdata(x)
    sizes = np.bincount(g, minlength=k).astype(np.float64)
    sums = np.bincount(g, weights=ranks, minlength=k)
    h = 12.0 / (n * (n + 1.0)) * float(np.sum(sums**2 / sizes)) - 3.0 * (n + 1.0)
    _, ties = np.unique(x, return_counts=True)
    correction = 1.0 - float(np.sum(ties.astype(np.float64) ** 3 - ties)) / (n**3 - n)
    if correction <= 0.0:
        return math.nan
    return float(special.chdtrc(k - 1, h / correction))


def kruskal_smallest_p(sizes: ArrayLike) -> float:
    """The smallest p-value :func:`kruskal_p` can give for groups of these ``sizes`` (no ties): the
    groups' ranks in separate blocks. H is largest when the groups' mean ranks lie farthest from
    the middle, so the blocks are tried with the groups ordered by size both ways and the larger H
    is kept (exact for equal sizes). Above a level the test cannot reject at that level at all,
    whatever the data: with 3 values per trial that is every design with fewer than 10 trials at
    0.001 (6 trials of 3 values: 0.0054)."""
    n_i = np.sort(np.asarray(sizes, dtype=np.float64).ravel())
    k, n = n_i.size, float(n_i.sum())
    if k < 2 or n <= k:
        return 1.0
    best = 0.0
    for order in (n_i, n_i[::-1]):
        ends = np.cumsum(order)
        mean_rank = ends - (order - 1.0) / 2.0  # block [ends - order + 1, ends]
        best = max(best, 12.0 / (n * (n + 1.0)) * float(np.sum(order * mean_rank**2)) - 3.0 * (n + 1.0))
    return float(special.chdtrc(k - 1, best))


def delta_pct(fixed: ArrayLike, random: ArrayLike) -> float:
    """Δ% = (mean_fixed − mean_random)/mean_fixed · 100 (OrderSage §5.1); NaN if undefined."""
    f = np.asarray(fixed, dtype=float)
    r = np.asarray(random, dtype=float)
    if f.size == 0 or r.size == 0:
        return math.nan
    mf = float(np.mean(f))
    if mf == 0.0:
        return math.nan
    return (mf - float(np.mean(r))) / mf * 100.0


def ci_case(
    fixed: tuple[float, float, float],
    random: tuple[float, float, float],
) -> int | None:
    """CI-overlap case of two ``(median, low, high)`` triples (Algorithm 2, README rule).

    1 = the intervals are disjoint; 2 = at least one median lies inside the other sample's
    interval (bounds inclusive); 3 = otherwise. None when a bound is NaN.
    """
    f_med, f_low, f_high = fixed
    r_med, r_low, r_high = random
    if any(math.isnan(v) for v in (*fixed, *random)):
        return None
    if f_low > r_high or f_high < r_low:
        return CI_DISJOINT
    if (f_low <= r_med <= f_high) or (r_low <= f_med <= r_high):
        return CI_MEDIAN_INSIDE
    return CI_INCONCLUSIVE
