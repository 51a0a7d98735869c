"""Vectorised bootstrap (gate.stats.bootstrap): exactness of the fast paths, BCa, adaptivity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from gate.stats import bootstrap as bs

finite = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    x=arrays(
        np.float64, st.integers(1, 40), elements=st.sampled_from([1.0, 2.0, 2.0, 3.5, 7.0, 100.0]) | finite
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_flat_median_trick_equals_brute_force_with_the_same_indices(x: np.ndarray, seed: int) -> None:
    # The fast path never materialises a resample; brute force does, with the same index draw
    # into the sorted group (a uniform resample of positions, so the same bootstrap distribution).
    y = np.random.default_rng(seed).permutation(x)
    fast = bs.flat_replicates_many(np.vstack([x, y]), "median", 300, np.random.default_rng(seed))
    idx = bs._flat_index_plan(x.size, 300, np.random.default_rng(seed))
    brute = np.median(np.sort(x)[idx], axis=1)
    np.testing.assert_allclose(fast[0], brute, rtol=1e-12)
    np.testing.assert_allclose(fast[1], brute, rtol=1e-12)  # order of the input does not matter


@settings(max_examples=30, deadline=None)
@given(x=arrays(np.float64, st.integers(1, 30), elements=finite), seed=st.integers(0, 2**32 - 1))
def test_flat_mean_equals_brute_force_with_the_same_indices(x: np.ndarray, seed: int) -> None:
    fast = bs.flat_replicates_many(x[None, :], "mean", 200, np.random.default_rng(seed))[0]
    idx = bs._flat_index_plan(x.size, 200, np.random.default_rng(seed))
    np.testing.assert_allclose(fast, x[idx].mean(axis=1), rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    x=arrays(np.float64, st.integers(1, 25), elements=st.sampled_from([1.0, 2.0, 3.0, 5.0]) | finite),
    seed=st.integers(0, 2**32 - 1),
)
def test_weighted_median_and_mean_equal_the_expanded_multiset(x: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, size=(20, x.size)).astype(np.float64)
    w[:, 0] += 1  # no empty resample
    med = bs.weighted_statistic(x, w, "median")
    mean = bs.weighted_statistic(x, w, "mean")
    for b in range(w.shape[0]):
        expanded = np.repeat(x, w[b].astype(int))
        assert med[b] == pytest.approx(np.median(expanded), rel=1e-12)
        assert mean[b] == pytest.approx(np.mean(expanded), rel=1e-9)


def test_two_level_weights_only_touch_chosen_trials_and_keep_their_sizes() -> None:
    trials = np.repeat(np.arange(6), [5, 5, 3, 5, 4, 5])
    n = trials.size
    rng = np.random.default_rng(7)
    w = bs.hierarchical_weights(n, outer=trials, resamples=500, rng=rng)
    sizes = np.bincount(trials)
    for b in range(w.shape[0]):
        # Each chosen trial contributes exactly its own size in draws (inner draw with replacement).
        per_trial = np.bincount(trials, weights=w[b], minlength=6)
        assert np.all(per_trial % sizes == 0)
        assert per_trial.sum() == pytest.approx(sum(per_trial // sizes * sizes))
        assert (per_trial // sizes).sum() == 6  # 6 trials drawn with replacement


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=2, max_size=6),
    equal=st.booleans(),
    ties=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_two_level_replicates_equal_the_weights_of_the_same_draws(
    sizes: list[int], equal: bool, ties: bool, seed: int
) -> None:
    # The vectorised two-level path draws the same units and values as hierarchical_weights, so
    # its replicates are the statistic of exactly those multisets (units of equal and unequal
    # sizes take different code paths; ties must not change which values are the median's).
    sizes = [sizes[0]] * len(sizes) if equal else sizes
    trials = np.repeat(np.arange(len(sizes))[::-1] * 3, sizes)  # labels neither 0-based nor sorted
    data_rng = np.random.default_rng(seed)
    x = (
        data_rng.integers(1, 4, trials.size).astype(np.float64)
        if ties
        else data_rng.lognormal(0, 0.2, trials.size)
    )
    for statistic in ("median", "mean"):
        w = bs.hierarchical_weights(trials.size, outer=trials, resamples=60, rng=np.random.default_rng(seed))
        want = bs.weighted_statistic(x, w, statistic)
        got = bs.two_level_replicates(
            x, outer=trials, statistic=statistic, resamples=60, rng=np.random.default_rng(seed)
        )
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_paired_draw_is_shared_between_versions() -> None:
    runs_b = np.repeat([1, 2, 3], 10)
    runs_h = np.repeat([1, 2, 3], 8)
    rng = np.random.default_rng(3)
    draw = rng.integers(0, 3, size=(200, 3))
    order = np.array([1, 2, 3])
    wb = bs.hierarchical_weights(30, outer=runs_b, resamples=200, rng=rng, outer_draw=draw, outer_order=order)
    wh = bs.three_level_weights(
        24, outer=runs_h, middle=np.repeat(np.arange(12), 2), outer_draw=draw, outer_order=order, rng=rng
    )
    for u, run in enumerate(order):
        times = (draw == u).sum(axis=1)
        np.testing.assert_array_equal(wb[:, runs_b == run].sum(axis=1), times * 10)
        np.testing.assert_array_equal(wh[:, runs_h == run].sum(axis=1), times * 8)


def test_percentile_interval_matches_scipy_bootstrap() -> None:
    rng = np.random.default_rng(11)
    groups = [rng.lognormal(0, 0.3, size=n) for n in (20, 20, 75, 31)]
    got = bs.bootstrap_ci_many(groups, statistic="median", confidence=0.95, resamples=20_000, rng=rng)
    for i, x in enumerate(groups):
        ref = stats.bootstrap(
            (x,), np.median, confidence_level=0.95, n_resamples=20_000, method="percentile", random_state=1
        ).confidence_interval
        width = ref.high - ref.low
        assert got.low[i] == pytest.approx(ref.low, abs=0.08 * width)
        assert got.high[i] == pytest.approx(ref.high, abs=0.08 * width)
        assert got.estimate[i] == np.median(x)


def test_bca_matches_scipy_on_a_skewed_sample_and_shifts_away_from_percentile() -> None:
    rng = np.random.default_rng(5)
    x = rng.exponential(1.0, size=40)
    reps = bs.flat_replicates_many(x[None, :], "mean", 40_000, rng)[0]
    est = float(x.mean())
    lo, hi = bs.bca_bounds(x, reps, est, 0.95, "mean")
    ref = stats.bootstrap(
        (x,), np.mean, confidence_level=0.95, n_resamples=40_000, method="BCa", random_state=2
    ).confidence_interval
    width = ref.high - ref.low
    assert lo == pytest.approx(ref.low, abs=0.03 * width)
    assert hi == pytest.approx(ref.high, abs=0.03 * width)
    _, p_hi = bs.percentile_bounds(reps, 0.95)
    assert hi > p_hi  # right-skewed mean: BCa moves the interval up


def test_bca_falls_back_to_percentile_on_constant_data() -> None:
    x = np.full(10, 3.0)
    reps = bs.flat_replicates_many(x[None, :], "median", 500, np.random.default_rng(0))[0]
    assert bs.bca_bounds(x, reps, 3.0, 0.99, "median") == (3.0, 3.0)


def test_percentile_median_ci_covers_the_true_median_about_as_often_as_promised() -> None:
    rng = np.random.default_rng(2024)
    true_median = 1.0  # lognormal(0, s) has median exp(0) = 1
    groups = [rng.lognormal(0.0, 0.5, size=60) for _ in range(400)]
    ci = bs.bootstrap_ci_many(groups, statistic="median", confidence=0.9, resamples=2000, rng=rng)
    coverage = np.mean((ci.low <= true_median) & (true_median <= ci.high))
    # Binomial sd at 400 trials ≈ 1.5 %; percentile intervals of a median run a little wide at n=60.
    assert 0.85 <= coverage <= 0.97


def test_same_seed_same_intervals_and_empty_groups_are_nan() -> None:
    groups = [np.arange(1.0, 11.0), np.array([]), np.array([2.0, 4.0, 8.0])]
    a = bs.bootstrap_ci_many(groups, resamples=1000, rng=np.random.default_rng(9))
    b = bs.bootstrap_ci_many(groups, resamples=1000, rng=np.random.default_rng(9))
    np.testing.assert_array_equal(a.low, b.low)
    assert np.isnan(a.estimate[1]) and np.isnan(a.low[1])
    assert a.low[0] <= a.estimate[0] <= a.high[0]


def test_adaptive_resampling_stops_once_endpoints_are_precise() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(100, 1, size=50)
    reps, err = bs.adaptive_resamples(x, statistic="mean", confidence=0.99, rng=rng, tolerance=1e-3)
    assert err <= 1e-3
    assert reps.size >= 2000
    noisy = rng.lognormal(0, 2, size=15)
    reps2, err2 = bs.adaptive_resamples(
        noisy, statistic="mean", confidence=0.99, rng=rng, tolerance=1e-6, maximum=16_000
    )
    assert reps2.size == 16_000 and err2 > 1e-6  # gave up at the cap, and says so


def test_rejects_unknown_statistic_and_bad_confidence() -> None:
    with pytest.raises(ValueError, match="statistic"):
        bs.flat_replicates_many(np.ones((1, 3)), "mode", 10, np.random.default_rng(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        bs.percentile_bounds(np.ones(10), 1.5)
