"""The exact two-sided Mann-Whitney rank test of two small samples, the guard of a verdict
made on few values (gate/analysis/compare.py ``rank_test_agrees``)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

FloatArray = NDArray[np.float64]

EXACT_PERMUTATIONS = 20_000  # with ties, the exact permutation test up to this many arrangements


def rank_test_p(base: FloatArray, head: FloatArray) -> float:
    """Two-sided Mann-Whitney U p-value, exact for the small samples the guard sees: the exact
    null distribution without ties, the full permutation distribution with ties (quantised
    timings: scipy's "auto" would switch to the normal approximation, which is liberal there)."""
    with np.errstate(all="ignore"):
        if np.unique(np.concatenate([base, head])).size == base.size + head.size:
            p = float(sps.mannwhitneyu(base, head, alternative="two-sided", method="exact").pvalue)
        elif (count := math.comb(base.size + head.size, base.size)) <= EXACT_PERMUTATIONS:
            method = sps.PermutationMethod(n_resamples=count)  # ≤ count: every arrangement, exact
            p = float(sps.mannwhitneyu(base, head, alternative="two-sided", method=method).pvalue)
        else:
            p = float(sps.mannwhitneyu(base, head, alternative="two-sided", method="asymptotic").pvalue)
    return p if math.isfinite(p) else 1.0
