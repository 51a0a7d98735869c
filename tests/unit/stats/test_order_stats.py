"""gate.stats.order: Kruskal-Wallis η², Δ%, exact median CI and the CI-overlap case."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from gate.stats.order import (
    CI_DISJOINT,
    CI_INCONCLUSIVE,
    CI_MEDIAN_INSIDE,
    ci_case,
    delta_pct,
    eta_squared,
    kruskal_eta2,
    kruskal_p,
    median_ci,
)


def test_eta_squared_formula_and_clipping() -> None:
    assert eta_squared(11.0, 2, 102) == pytest.approx((11.0 - 2 + 1) / (102 - 2))
    assert eta_squared(0.2, 2, 50) == 0.0  # H < k − 1 would be negative
    assert eta_squared(1e6, 2, 10) == 1.0
    assert math.isnan(eta_squared(3.0, 2, 2))  # N ≤ k
    assert math.isnan(eta_squared(math.nan, 2, 50))


def test_kruskal_matches_scipy_and_eta2() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(10, 1, 40), rng.normal(10.8, 1, 35)
    res = kruskal_eta2(a, b)
    h, p = stats.kruskal(a, b)
    assert (res.h, res.p, res.k, res.n) == (pytest.approx(h), pytest.approx(p), 2, 75)
    assert res.eta2 == pytest.approx((h - 1) / 73)


def test_kruskal_undefined_cases_do_not_raise() -> None:
    same = kruskal_eta2([2.0, 2.0, 2.0], [2.0, 2.0])
    assert math.isnan(same.h) and math.isnan(same.p)
    one_group = kruskal_eta2([1.0, 2.0], [])
    assert one_group.k == 1 and math.isnan(one_group.p)


def test_delta_pct_sign_and_value() -> None:
    assert delta_pct([10.0, 10.0], [9.0, 9.0]) == pytest.approx(10.0)
    assert delta_pct([10.0], [11.0]) == pytest.approx(-10.0)
    assert math.isnan(delta_pct([0.0], [1.0]))
    assert math.isnan(delta_pct([], [1.0]))


def test_median_ci_is_the_quantile_test_interval() -> None:
    x = np.random.default_rng(1).lognormal(0, 0.3, 57)
    med, low, high = median_ci(x, 0.99)
    ci = stats.quantile_test(x, p=0.5).confidence_interval(0.99)
    assert med == np.median(x)
    assert (low, high) == (ci.low, ci.high)
    assert low <= med <= high
    # The bounds are order statistics (the interval is distribution-free).
    assert low in x and high in x


def test_median_ci_too_small_sample_is_nan() -> None:
    med, low, high = median_ci([1.0, 2.0, 3.0], 0.99)
    assert med == 2.0 and math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize(
    ("fixed", "random", "case"),
    [
        ((5.0, 4.0, 6.0), (8.0, 7.0, 9.0), CI_DISJOINT),
        ((5.0, 4.0, 6.0), (8.0, 6.5, 9.0), CI_DISJOINT),
        ((5.0, 4.0, 6.0), (6.0, 5.5, 7.0), CI_MEDIAN_INSIDE),  # random median on the bound: inclusive
        ((5.0, 4.0, 6.0), (6.5, 4.5, 7.0), CI_MEDIAN_INSIDE),  # only the fixed median is inside
        ((5.0, 4.0, 6.0), (6.5, 5.5, 7.0), CI_INCONCLUSIVE),  # overlap, neither median inside
        ((5.0, 4.0, 6.0), (6.5, 6.0, 7.0), CI_INCONCLUSIVE),  # touching bounds are not disjoint
    ],
)
def test_ci_case(fixed: tuple[float, float, float], random: tuple[float, float, float], case: int) -> None:
    assert ci_case(fixed, random) == case
    assert ci_case(random, fixed) == case  # symmetric


def test_ci_case_undefined_with_nan_bounds() -> None:
    assert ci_case((5.0, math.nan, math.nan), (5.0, 4.0, 6.0)) is None


@given(
    st.lists(st.integers(min_value=1, max_value=6), min_size=2, max_size=8),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.booleans(),
)
def test_kruskal_p_from_labels_is_scipys_kruskal(sizes: list[int], seed: int, quantised: bool) -> None:
    rng = np.random.default_rng(seed)
    values = rng.lognormal(0.0, 0.1, size=sum(sizes))
    if quantised:
        values = np.round(values, 1)  # ties, as with timings of a coarse clock
    codes = np.repeat(np.arange(len(sizes)), sizes)
    groups = [values[codes == g] for g in range(len(sizes))]
    if np.all(values == values[0]):
        assert math.isnan(kruskal_p(values, codes))
        return
    assert kruskal_p(values, codes) == pytest.approx(stats.kruskal(*groups).pvalue, rel=1e-9, abs=1e-15)
