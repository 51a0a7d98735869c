"""The percentile interval's two ways of selecting order statistics give the same bounds, bit for
bit: one partition per tail (the default, numpy's fast single-kth selection) and one partition at
both tails' ranks (gate/stats/bootstrap.py, SINGLE_KTH). Selection copies values and never
computes them, so no tolerance is needed; ties, ±inf and NaN included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gate.stats import bootstrap

values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf]),  # ties and infinities, often
)
distributions = st.tuples(st.integers(1, 4), st.integers(2, 300)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=values)
)
confidences = st.sampled_from([0.5, 0.9, 0.95, 0.99, 0.995, 0.999, 1e-6])


def _bounds(dist: np.ndarray, confidence: float, single_kth: bool) -> tuple[np.ndarray, np.ndarray]:
    default = bootstrap.SINGLE_KTH
    bootstrap.SINGLE_KTH = single_kth
    try:
        return bootstrap.percentile_bounds(dist, confidence)
    finally:
        bootstrap.SINGLE_KTH = default


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


@settings(max_examples=300, deadline=None)
@given(dist=distributions, confidence=confidences)
def test_partition_per_tail_equals_one_partition_at_both_ranks(dist: np.ndarray, confidence: float) -> None:
    per_tail = _bounds(dist, confidence, single_kth=True)
    both = _bounds(dist, confidence, single_kth=False)
    assert _same(per_tail[0], both[0]) and _same(per_tail[1], both[1])


@pytest.mark.parametrize("seed", range(5))
def test_bootstrap_sized_rows_agree(seed: int) -> None:
    """10,000 replicates per row as the analysis and the calibration use, with a block of ±inf
    (bootstrap-t resamples without a standard error) in some rows."""
    rng = np.random.default_rng(seed)
    dist = rng.standard_normal((6, 10_000)) * rng.lognormal(0, 3, (6, 1))
    dist[1, :300] = np.inf
    dist[2, :80] = -np.inf
    dist[3] = np.round(dist[3], 1)  # many ties
    for confidence in (0.9, 0.95, 0.99):
        per_tail = _bounds(dist, confidence, single_kth=True)
        both = _bounds(dist, confidence, single_kth=False)
        assert _same(per_tail[0], both[0]) and _same(per_tail[1], both[1])
    assert bootstrap.SINGLE_KTH  # the fast path is the default
