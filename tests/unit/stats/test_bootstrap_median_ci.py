"""The exact order-statistic CI of the median (gate.stats.median_ci)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gate.stats.median_ci import median_ci


def _rank(sorted_x: np.ndarray, value: float) -> int:
    """1-based rank of ``value`` among the sorted sample (it must be one of them)."""
    hits = np.flatnonzero(sorted_x == value)
    assert hits.size, f"{value} is not an order statistic"
    return int(hits[0]) + 1


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=8, max_value=300), confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_bounds_are_order_statistics_with_binomial_tails_at_most_alpha_over_2(
    n: int, confidence: float
) -> None:
    # Distinct values so each bound has one rank; the tails of Bin(n, 1/2) decide the ranks.
    x = np.random.default_rng(n).permutation(np.arange(1.0, n + 1.0))
    median, low, high = median_ci(x, confidence)
    assert median == float(np.median(x))
    alpha_half = (1 - confidence) / 2
    if math.isnan(low):
        # Too small: even the extreme order statistics miss the coverage.
        assert stats.binom.cdf(0, n, 0.5) > alpha_half
        return
    sorted_x = np.sort(x)
    lo_rank, hi_rank = _rank(sorted_x, low), _rank(sorted_x, high)
    assert lo_rank + hi_rank == n + 1  # symmetric ranks
    # P(median < X_(l)) = P(Bin(n, 1/2) <= l - 1) must be <= alpha/2, and l is the largest such rank.
    assert stats.binom.cdf(lo_rank - 1, n, 0.5) <= alpha_half + 1e-12
    assert stats.binom.cdf(lo_rank, n, 0.5) > alpha_half
    assert low <= median <= high


def test_too_small_sample_gives_nan_bounds_not_a_guess() -> None:
    median, low, high = median_ci(np.array([3.0, 1.0, 2.0]), 0.99)
    assert median == 2.0
    assert math.isnan(low) and math.isnan(high)


def test_single_and_empty_samples() -> None:
    assert median_ci(np.array([5.0]), 0.95)[0] == 5.0
    assert all(math.isnan(v) for v in median_ci(np.array([]), 0.95))
    assert all(math.isnan(v) for v in median_ci(np.array([np.nan, np.inf]), 0.95))


def test_non_finite_values_are_ignored() -> None:
    x = np.arange(1.0, 51.0)
    with_junk = np.concatenate([x, [np.nan, np.inf, -np.inf]])
    assert median_ci(with_junk, 0.99) == median_ci(x, 0.99)


def test_rejects_confidence_outside_unit_interval() -> None:
    with pytest.raises(ValueError, match="confidence"):
        median_ci(np.arange(10.0), 99.0)
