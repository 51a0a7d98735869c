"""The exact Mann-Whitney rank test of two small samples, the guards of a verdict made on few
values (:func:`rank_test_agrees`, :func:`shifted_rank_test_agrees`; gate/analysis/compare.py)."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

FloatArray = NDArray[np.float64]

EXACT_PERMUTATIONS = 20_000  # with ties, the exact permutation test up to this many arrangements


def rank_test_p(
    base: FloatArray, head: FloatArray, alternative: Literal["two-sided", "less", "greater"] = "two-sided"
) -> float:
    """Mann-Whitney U p-value (two-sided, or one-sided: ``"greater"`` = head above base), exact
    for the small samples the guard sees: the exact null distribution without ties, the full
    permutation distribution with ties (quantised timings: scipy's "auto" would switch to the
    normal approximation, which is liberal there)."""
    with np.errstate(all="ignore"):
        if np.unique(np.concatenate([base, head])).size == base.size + head.size:
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method="exact").pvalue)
        elif (count := math.comb(base.size + head.size, base.size)) <= EXACT_PERMUTATIONS:
            method = sps.PermutationMethod(n_resamples=count)  # ≤ count: every arrangement, exact
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method=method).pvalue)
        else:
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method="asymptotic").pvalue)
    return p if math.isfinite(p) else 1.0


def rank_test_agrees(b: FloatArray, h: FloatArray, confidence: float) -> tuple[bool, float]:
    """Whether the distribution-free rank test also calls the samples different at the verdict's
    level. The bootstrap CIs stay the rule (µOpTime §4.5; gate/analysis/compare.py); this guard only removes their
    small-sample failure — it costs one test per candidate change, not per benchmark."""
    if b.max() < h.min() or h.max() < b.min():
        # complete separation: U = 0, exact two-sided p = 2 / C(n_b + n_h, n_b) — no scipy call
        # (~0.5 ms each) for the usual shape of a real change
        p = min(1.0, 2.0 / math.comb(b.size + h.size, b.size))
    else:
        p = rank_test_p(b, h)
    return p <= 1.0 - confidence, p


def shifted_rank_test_agrees(
    base: FloatArray, h: FloatArray, change_pct: float, threshold_pct: float, confidence: float
) -> tuple[bool, float]:
    """Whether the exact rank test shows a change of at least the threshold in the direction of
    ``change_pct``: the one-sided Mann-Whitney test of head against base scaled by
    ``1 ± threshold_pct/100`` (H0: head is no more than the threshold away from base under a
    multiplicative shift; the test inverted for a Hodges–Lehmann shift CI, Hollander & Wolfe,
    "Nonparametric Statistical Methods", §4.3), at 1 − confidence. One-sided at the verdict's
    level because it only asks the size of a change whose direction the bootstrap CIs and the
    rank test have already established, and it is a guard added to that rule: it can only turn a
    regression or improvement into ``inconclusive``. Used for a low quantile below its
    small-sample limit, where the point change is carried by the few lowest values and can
    overshoot the true change."""
    up = change_pct > 0
    scaled = base * (1.0 + (threshold_pct if up else -threshold_pct) / 100.0)
    if (up and scaled.max() < h.min()) or (not up and h.max() < scaled.min()):
        p = 1.0 / math.comb(scaled.size + h.size, scaled.size)  # complete separation, exact
    else:
        p = rank_test_p(scaled, h, "greater" if up else "less")
    return p <= 1.0 - confidence, p
