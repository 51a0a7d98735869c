"""The exact Mann-Whitney rank test of two small samples, the guards of a verdict made on few
values (gate/analysis/compare.py ``rank_test_agrees`` and the small-sample size test)."""

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
