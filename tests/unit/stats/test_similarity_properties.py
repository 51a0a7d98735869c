"""Properties of the ICPE'23 measures and of the order statistics on arbitrary inputs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gate.stats.order import ci_case, eta_squared, kruskal_eta2
from gate.stats.similarity import dissimilarity, pairwise_dissimilarity

runs = arrays(
    np.float64,
    st.integers(2, 60),
    elements=st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=60, deadline=None)
@given(runs, runs)
def test_measures_bounded_and_symmetric(x: np.ndarray, y: np.ndarray) -> None:
    m = dissimilarity(x, y)
    assert np.all((m >= 0.0) & (m <= 1.0))
    back = dissimilarity(y, x)
    # M1, M3, M4, M5 are symmetric; M2 concatenates X then Y, which DEFLATE may price differently.
    np.testing.assert_allclose(m[[0, 2, 3, 4]], back[[0, 2, 3, 4]], atol=1e-9)
    np.testing.assert_allclose(dissimilarity(x, x)[[0, 2, 3, 4]], 0.0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(runs, min_size=2, max_size=5))
def test_pairwise_matrix_is_symmetric_with_zero_diagonal(rs: list[np.ndarray]) -> None:
    pw = pairwise_dissimilarity(rs)
    np.testing.assert_array_equal(pw, pw.transpose(1, 0, 2))
    assert np.all(pw[np.arange(len(rs)), np.arange(len(rs))] == 0.0)
    assert np.all((pw >= 0.0) & (pw <= 1.0))


@settings(max_examples=60, deadline=None)
@given(runs, runs)
def test_eta2_in_unit_interval_and_consistent(a: np.ndarray, b: np.ndarray) -> None:
    res = kruskal_eta2(a, b)
    if math.isnan(res.h):
        assert np.all(np.concatenate([a, b]) == a[0])
    else:
        assert 0.0 <= res.eta2 <= 1.0
        assert res.eta2 == eta_squared(res.h, 2, a.size + b.size)


triples = st.tuples(st.floats(-10, 10), st.floats(0, 5), st.floats(0, 5)).map(
    lambda t: (t[0], t[0] - t[1], t[0] + t[2])
)


@given(triples, triples)
def test_ci_case_is_symmetric_and_one_means_disjoint(
    f: tuple[float, float, float], r: tuple[float, float, float]
) -> None:
    case = ci_case(f, r)
    assert case == ci_case(r, f)
    assert (case == 1) == (f[1] > r[2] or f[2] < r[1])
