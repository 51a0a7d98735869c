"""Stability metrics (µOpTime §2): definitions, bootstrap plans, batched == single."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gate.stats.stability import (
    RCIW3_UOPTIME,
    BootstrapPlan,
    bootstrap_ci,
    cv,
    metric_batch,
    rciw,
    rmad,
)


@pytest.fixture
def sample() -> np.ndarray:
    return np.random.default_rng(7).lognormal(mean=3.0, sigma=0.05, size=40)


def test_cv_is_population_sd_over_mean(sample: np.ndarray) -> None:
    assert cv(sample) == pytest.approx(np.std(sample, ddof=0) / np.mean(sample), rel=1e-9)
    assert cv([2.0, 2.0, 2.0]) == 0.0


def test_rmad_has_no_consistency_factor(sample: np.ndarray) -> None:
    expected = stats.median_abs_deviation(sample, scale=1.0) / np.median(sample)
    assert rmad(sample) == pytest.approx(expected, rel=1e-9)
    # hand-checked: median 3, |x-3| = 2,1,0,1,6 -> median 1 -> 1/3
    assert rmad([1.0, 2.0, 3.0, 4.0, 9.0]) == pytest.approx(1.0 / 3.0)


def test_empty_and_single_samples_are_nan() -> None:
    assert np.isnan(cv([]))
    assert np.isnan(rmad([]))
    assert np.isnan(rciw([1.0], "rciw1"))


def test_plan_indices_are_uniform_and_in_range() -> None:
    plan = BootstrapPlan.from_seed(1, max_n=10, resamples=20_000)
    idx = plan.indices(7)
    assert idx.shape == (20_000, 7)
    assert idx.min() == 0 and idx.max() == 6
    counts = np.bincount(idx.ravel(), minlength=7) / idx.size
    assert np.allclose(counts, 1 / 7, atol=0.01)
    with pytest.raises(ValueError):
        plan.indices(11)


def test_rciw1_equals_brute_force_percentile_bootstrap(sample: np.ndarray) -> None:
    plan = BootstrapPlan.from_seed(3, max_n=sample.size, resamples=5000)
    idx = plan.indices(sample.size)
    means = sample[idx].mean(axis=1)
    lo, hi = np.percentile(means, [0.5, 99.5])
    got = metric_batch(sample[None, :], "rciw1", plan)[0]
    assert got == pytest.approx((hi - lo) / sample.mean(), rel=1e-9)


@pytest.mark.parametrize("n", [3, 4, 15, 16])
def test_median_rank_trick_equals_median_of_resamples(n: int) -> None:
    x = np.random.default_rng(n).normal(100, 3, size=n)
    plan = BootstrapPlan.from_seed(5, max_n=n, resamples=2000)
    xs = np.sort(x)
    brute = np.median(xs[plan.indices(n)], axis=1)
    lo, hi = plan.median_ranks(n)
    assert np.allclose(0.5 * (xs[lo] + xs[hi]), brute, rtol=0, atol=1e-12)
    bl, bh = np.percentile(brute, [0.5, 99.5])
    ci = bootstrap_ci(x, "median", plan=plan)
    assert ci == pytest.approx((bl, bh), rel=1e-9)
    assert metric_batch(x[None, :], "rciw3", plan)[0] == pytest.approx((bh - bl) / np.median(x), rel=1e-9)


def test_rciw3_differs_from_the_prototype_variant() -> None:
    # skewed sample: the mean's CI and the median's CI have different widths
    x = np.random.default_rng(2).lognormal(0, 1.0, size=30)
    plan = BootstrapPlan.from_seed(0, max_n=30, resamples=4000)
    own = metric_batch(x[None, :], "rciw3", plan)[0]
    proto = metric_batch(x[None, :], RCIW3_UOPTIME, plan)[0]
    mean_ci = bootstrap_ci(x, "mean", plan=plan)
    assert proto == pytest.approx((mean_ci[1] - mean_ci[0]) / np.median(x), rel=1e-9)
    assert own != pytest.approx(proto, rel=0.05)


def test_rciw1_matches_normal_theory_for_large_samples() -> None:
    x = np.random.default_rng(11).normal(1000.0, 10.0, size=400)
    expected = 2 * stats.norm.ppf(0.995) * x.std(ddof=0) / np.sqrt(x.size) / x.mean()
    got = rciw(x, "rciw1", rng=np.random.default_rng(1))
    assert got == pytest.approx(expected, rel=0.08)
    got_t = rciw(x, "rciw2", rng=np.random.default_rng(1))
    assert got_t == pytest.approx(expected, rel=0.10)


def test_bootstrap_t_interval_contains_the_mean_and_is_unbounded_for_three_values() -> None:
    x = np.random.default_rng(4).normal(50.0, 1.0, size=25)
    lo, hi = bootstrap_ci(x, "mean", "t", rng=np.random.default_rng(2))
    assert lo < x.mean() < hi
    # n = 3: 1 resample in 9 repeats one value (no standard error) -> t = ±inf -> not stable
    assert rciw([10.0, 10.1, 10.2], "rciw2", rng=np.random.default_rng(0)) == np.inf


def test_rciw_is_reproducible_with_a_seeded_generator(sample: np.ndarray) -> None:
    a = rciw(sample, "rciw3", rng=np.random.default_rng(9))
    b = rciw(sample, "rciw3", rng=np.random.default_rng(9))
    assert a == b
    with pytest.raises(ValueError, match="unknown RCIW kind"):
        rciw(sample, "rciw4")


@pytest.mark.parametrize("metric", ["cv", "rmad", "rciw1", "rciw2", "rciw3"])
def test_batched_rows_equal_single_rows_bit_for_bit(metric: str) -> None:
    rows = np.random.default_rng(8).normal(20.0, 0.5, size=(6, 12))
    plan = BootstrapPlan.from_seed(2, max_n=12, resamples=3000)
    batched = metric_batch(rows, metric, plan)
    singles = np.array([metric_batch(r[None, :], metric, plan)[0] for r in rows])
    assert np.array_equal(batched, singles)


@pytest.mark.parametrize("r", [2, 3, 10, 199, 10_000])
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.99])
def test_percentile_bounds_equal_numpy_quantiles(r: int, confidence: float) -> None:
    from gate.stats.bootstrap import percentile_bounds

    dist = np.random.default_rng(r).normal(size=(3, r))
    lo, hi = percentile_bounds(dist, confidence)
    alpha = (1 - confidence) / 2
    want = np.quantile(dist, [alpha, 1 - alpha], axis=-1)
    assert np.allclose(lo, want[0], rtol=0, atol=1e-12)
    assert np.allclose(hi, want[1], rtol=0, atol=1e-12)


def test_percentile_bounds_with_infinite_tails_are_unbounded() -> None:
    from gate.stats.bootstrap import percentile_bounds

    dist = np.concatenate([np.full(100, -np.inf), np.zeros(9800), np.full(100, np.inf)])[None, :]
    lo, hi = percentile_bounds(dist, 0.99)
    assert lo[0] == -np.inf and hi[0] == np.inf


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_unbounded_t_shortcut_agrees_with_the_full_computation(n: int) -> None:
    from gate.stats.stability import _row_mean, _t_interval_unbounded, bootstrap_t_mean_ci_batch

    rows = np.random.default_rng(n).normal(10.0, 0.1, size=(20, n))
    rows[0, :] = np.r_[np.full(n - 1, 10.0), 11.0]  # one value above the mean, n-1 below
    plan = BootstrapPlan.from_seed(0, max_n=n, resamples=10_000)
    flagged = _t_interval_unbounded(rows, _row_mean(rows), plan, 0.99)
    lo, hi = bootstrap_t_mean_ci_batch(rows, plan, 0.99)
    full_unbounded = ~np.isfinite(hi - lo)
    assert not (flagged & ~full_unbounded).any()  # the shortcut never claims more than the truth
    if n <= 4:
        assert flagged.all()


def test_large_plans_draw_per_size_streams_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    import gate.stats.stability as stability

    monkeypatch.setattr(stability, "_UNIFORMS_LIMIT", 10)  # force the streamed mode
    monkeypatch.setattr(stability, "_CHUNK", 300)
    plan = BootstrapPlan.from_seed(4, max_n=50, resamples=1000)
    assert plan.uniforms is None
    x = np.random.default_rng(1).normal(100.0, 2.0, size=37)
    idx = plan.indices(37)
    assert idx.shape == (1000, 37) and np.array_equal(idx, plan.indices(37))  # same stream per n
    lo, hi = np.percentile(x[idx].mean(axis=1), [0.5, 99.5])
    assert bootstrap_ci(x, "mean", plan=plan) == pytest.approx((lo, hi), rel=1e-9)
    xs = np.sort(x)
    mlo, mhi = np.percentile(np.median(xs[idx], axis=1), [0.5, 99.5])
    assert bootstrap_ci(x, "median", plan=plan) == pytest.approx((mlo, mhi), rel=1e-9)
    sd = x[idx].std(axis=1, ddof=1)
    t = (x[idx].mean(axis=1) - x.mean()) / (sd / np.sqrt(37))
    tlo, thi = np.percentile(t, [0.5, 99.5])
    se = x.std(ddof=1) / np.sqrt(37)
    want = (x.mean() - thi * se, x.mean() - tlo * se)
    assert bootstrap_ci(x, "mean", "t", plan=plan) == pytest.approx(want, rel=1e-9)


def test_identical_values_have_a_zero_width_interval_for_every_kind() -> None:
    x = np.full(5, 0.1)  # 0.1 * 5 / 5 rounds: the mean is not exactly 0.1
    for kind in ("rciw1", "rciw2", "rciw3"):
        assert rciw(x, kind, rng=np.random.default_rng(0)) == 0.0, kind
    assert bootstrap_ci(x, "mean", "t", rng=np.random.default_rng(0)) == (0.1, 0.1)
