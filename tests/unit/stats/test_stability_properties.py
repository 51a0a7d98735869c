"""Properties of the stability metrics (hypothesis): scale invariance, ordering, batching."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gate.stats.stability import BootstrapPlan, metric_batch

PLAN = BootstrapPlan.from_seed(7, max_n=40, resamples=400)

samples = st.integers(3, 40).flatmap(
    lambda n: arrays(np.float64, n, elements=st.floats(1.0, 1e6, allow_nan=False, allow_infinity=False))
)
scales = st.sampled_from([0.5, 2.0, 1024.0, 1e-3])  # powers of two and decimals


@settings(max_examples=60, deadline=None)
@given(x=samples, scale=scales)
def test_metrics_are_scale_free(x: np.ndarray, scale: float) -> None:
    for metric in ("cv", "rmad", "rciw1", "rciw2", "rciw3"):
        a = metric_batch(x[None, :], metric, PLAN)[0]
        b = metric_batch(x[None, :] * scale, metric, PLAN)[0]
        if np.isfinite(a):
            assert np.isclose(a, b, rtol=1e-6, atol=1e-12), metric
        else:
            assert not np.isfinite(b), metric


@settings(max_examples=60, deadline=None)
@given(x=samples)
def test_metrics_are_non_negative_and_zero_only_for_constant_samples(x: np.ndarray) -> None:
    constant = bool(np.all(x == x[0]))
    for metric in ("cv", "rciw1", "rciw3"):
        v = metric_batch(x[None, :], metric, PLAN)[0]
        assert v >= 0, metric
        if constant:
            # Rounding of the mean can leave ~1e-16 (the authors' prototype reports 2.6e-16 for a
            # constant Go benchmark, and we reproduce their values exactly), never anything that
            # could approach a stability threshold.
            assert v <= 1e-12, metric
    if not constant:
        assert metric_batch(x[None, :], "cv", PLAN)[0] > 0


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 5), n=st.integers(3, 40), seed=st.integers(0, 2**32 - 1))
def test_a_row_gives_the_same_value_alone_or_in_a_batch(rows: int, n: int, seed: int) -> None:
    x = np.random.default_rng(seed).lognormal(3.0, 0.2, size=(rows, n))
    for metric in ("cv", "rmad", "rciw1", "rciw2", "rciw3"):
        batched = metric_batch(x, metric, PLAN)
        alone = np.array([metric_batch(x[r : r + 1], metric, PLAN)[0] for r in range(rows)])
        assert np.array_equal(batched, alone), metric


@pytest.mark.parametrize(
    "values",
    [
        [2.0, 2.0, 2.0, 2.0, 413419.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],  # one huge outlier
        [1.5, 27696.0, 27697.0, 1.0, 27698.0],  # two clusters far apart
    ],
)
def test_rciw2_stays_scale_free_far_from_the_mean(values: list[float]) -> None:
    # Found by hypothesis: resamples that leave out the outlier (or one cluster) lie far from the
    # sample mean, so a one-pass sum of squares around it lost ~5 digits (RCIW2 moved 2-5e-6
    # relative between units).
    x = np.array(values)
    a = metric_batch(x[None, :], "rciw2", PLAN)[0]
    b = metric_batch(x[None, :] * 0.001, "rciw2", PLAN)[0]
    assert np.isclose(a, b, rtol=1e-9)
