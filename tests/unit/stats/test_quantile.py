"""Harrell–Davis quantiles (gate.stats.quantile) and their bootstrap replicates in every scheme."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from gate.stats import bootstrap as bs
from gate.stats.quantile import describe, harrell_davis, parse_statistic, quantile_of

finite = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


def reference_hd(x: np.ndarray, q: float) -> float:
    """Harrell & Davis (1982) eq. 1.2, every weight from scipy.stats.beta, nothing left out."""
    n = x.size
    a, b = q * (n + 1), (1 - q) * (n + 1)
    i = np.arange(1, n + 1)
    w = stats.beta.cdf(i / n, a, b) - stats.beta.cdf((i - 1) / n, a, b)
    return float(np.sort(x) @ w)


@settings(max_examples=60, deadline=None)
@given(
    x=arrays(np.float64, st.integers(1, 120), elements=finite), q=st.sampled_from([0.01, 0.1, 0.25, 0.5, 0.9])
)
def test_harrell_davis_equals_the_paper_formula(x: np.ndarray, q: float) -> None:
    # the weights left out carry < 1e-12 each end: the estimate moves by less than that × range
    assert harrell_davis(x, q) == pytest.approx(
        reference_hd(x, q), abs=1e-10 * (np.ptp(x) + 1e-12), rel=1e-12
    )


def test_harrell_davis_of_rows() -> None:
    x = np.random.default_rng(1).lognormal(size=(4, 17))
    np.testing.assert_allclose(harrell_davis(x, 0.1), [reference_hd(r, 0.1) for r in x], rtol=1e-11)


def test_harrell_davis_varies_less_than_one_order_statistic_at_small_n() -> None:
    # why HD (docs/statistics.md): at n = 15 the 10th percentile of right-skewed timings
    rng = np.random.default_rng(7)
    draws = 1.0 + rng.exponential(0.2, size=(4000, 15))
    hd = harrell_davis(draws, 0.1)
    order_stat = np.quantile(draws, 0.1, axis=1, method="inverted_cdf")
    assert np.var(hd) < 0.8 * np.var(order_stat)  # measured: 0.71


@pytest.mark.parametrize(
    ("text", "name", "q"),
    [
        ("median", "median", None),
        ("Mean", "mean", None),
        ("p10", "p10", 0.1),
        ("P05", "p5", 0.05),
        ("p99", "p99", 0.99),
    ],
)
def test_statistic_names(text: str, name: str, q: float | None) -> None:
    assert parse_statistic(text) == name
    assert quantile_of(text) == q


@pytest.mark.parametrize("bad", ["p0", "p100", "p", "p1.5", "q10", "min", "", "p10 ms"])
def test_unknown_statistics_are_refused_with_the_forms(bad: str) -> None:
    with pytest.raises(ValueError, match="fix: use median, mean, or pNN"):
        parse_statistic(bad)


def test_describe() -> None:
    assert describe("p10") == "10th percentile (Harrell–Davis)"
    assert describe("p1") == "1st percentile (Harrell–Davis)"
    assert describe("p22") == "22nd percentile (Harrell–Davis)"
    assert describe("p12") == "12th percentile (Harrell–Davis)"
    assert describe("median") == "median"


@settings(max_examples=30, deadline=None)
@given(x=arrays(np.float64, st.integers(1, 40), elements=finite), seed=st.integers(0, 2**32 - 1))
def test_flat_quantile_replicates_equal_brute_force_with_the_same_indices(x: np.ndarray, seed: int) -> None:
    y = np.random.default_rng(seed).permutation(x)
    fast = bs.flat_replicates_many(np.vstack([x, y]), "p10", 200, np.random.default_rng(seed))
    idx = bs._flat_index_plan(x.size, 200, np.random.default_rng(seed))
    brute = np.array([reference_hd(np.sort(x)[row], 0.1) for row in idx])
    tol = 1e-10 * (np.ptp(x) + 1e-12)
    np.testing.assert_allclose(fast[0], brute, atol=tol, rtol=1e-12)
    np.testing.assert_allclose(fast[1], brute, atol=tol, rtol=1e-12)


@pytest.mark.parametrize("sizes", [[5] * 6, [5, 5, 3, 7, 2, 5]])
def test_two_level_quantile_replicates_equal_the_weighted_form(sizes: list[int]) -> None:
    # the fast two-level path and the count-matrix path draw the same resamples
    rng = np.random.default_rng(3)
    x = rng.lognormal(size=sum(sizes))
    labels = np.repeat(np.arange(len(sizes)), sizes)
    fast = bs.two_level_replicates(
        x, outer=labels, statistic="p10", resamples=300, rng=np.random.default_rng(9)
    )
    w = bs.hierarchical_weights(x.size, outer=labels, resamples=300, rng=np.random.default_rng(9))
    np.testing.assert_allclose(fast, bs.weighted_statistic(x, w, "p10"), rtol=1e-9)


def test_weighted_quantile_is_the_quantile_of_the_multiset() -> None:
    rng = np.random.default_rng(4)
    x = rng.lognormal(size=12)
    counts = rng.integers(0, 4, size=(50, 12)).astype(np.float64)
    counts[:, 0] += 1  # no empty resample
    got = bs.weighted_statistic(x, counts, "p25")
    want = [reference_hd(np.repeat(x, c.astype(int)), 0.25) for c in counts]
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_point_estimates_and_cis_of_quantiles() -> None:
    x = np.random.default_rng(5).lognormal(size=(3, 30))
    assert bs.point_estimate(x[0], "p10") == pytest.approx(reference_hd(x[0], 0.1), rel=1e-11)
    iv = bs.bootstrap_ci_many(list(x), statistic="p10", resamples=2000, rng=np.random.default_rng(1))
    np.testing.assert_allclose(iv.estimate, [reference_hd(r, 0.1) for r in x], rtol=1e-11)
    assert np.all(iv.low <= iv.estimate) and np.all(iv.estimate <= iv.high)
    with pytest.raises(ValueError, match="pNN"):
        bs.point_estimate(x[0], "p0")
