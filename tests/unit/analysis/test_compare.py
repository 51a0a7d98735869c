"""Verdicts of gate.analysis.compare on synthetic samples with known truth."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.analysis.compare import (
    AnalysisSettings,
    Comparison,
    Sample,
    compare_many,
    compare_one,
    samples_needed,
)
from gate.model import Verdict

FAST = AnalysisSettings(resamples=2000, seed=3)


def structured(values: np.ndarray, per_trial: int = 3, runs: int = 3) -> Sample:
    n = values.size
    trial = np.arange(n) // per_trial
    return Sample(values=values, unit_id=trial, suite_run=trial % runs)


def one(
    base: np.ndarray, head: np.ndarray, hib: bool = False, s: AnalysisSettings = FAST, **kw: object
) -> Comparison:
    return compare_one("b", Sample(base, **kw), Sample(head), hib, s, np.random.default_rng(0))  # type: ignore[arg-type]


def noise(n: int, sd: float, seed: int) -> np.ndarray:
    return 1.0 + np.random.default_rng(seed).normal(0, sd, size=n)


def test_clear_slowdown_is_a_regression_and_speedup_an_improvement() -> None:
    base = noise(45, 0.005, 1)
    slow = one(base, noise(45, 0.005, 2) * 1.10)
    assert slow.verdict is Verdict.REGRESSION
    assert slow.change_pct == pytest.approx(10, abs=0.5)
    assert slow.change_ci is not None and slow.change_ci[0] > 8
    assert "disjoint" in slow.reason
    fast = one(base, noise(45, 0.005, 2) / 1.10)
    assert fast.verdict is Verdict.IMPROVEMENT


def test_higher_is_better_flips_the_direction() -> None:
    base, head = noise(45, 0.005, 1), noise(45, 0.005, 2) * 1.10
    assert one(base, head, hib=True).verdict is Verdict.IMPROVEMENT
    assert one(base, head / 1.21, hib=True).verdict is Verdict.REGRESSION


def test_same_distribution_with_low_noise_is_unchanged() -> None:
    c = one(noise(45, 0.005, 1), noise(45, 0.005, 2))
    assert c.verdict is Verdict.UNCHANGED
    assert c.change_ci is not None and -3 < c.change_ci[0] < c.change_ci[1] < 3


def test_small_real_change_below_threshold_is_unchanged_not_a_regression() -> None:
    c = one(noise(75, 0.002, 1), noise(75, 0.002, 2) * 1.01)
    assert c.significant
    assert c.verdict is Verdict.UNCHANGED
    assert "real" in c.reason


def test_large_change_with_overlapping_cis_is_inconclusive_with_a_sample_size() -> None:
    # the median: at 6 values of 30 % noise the 10th percentile's CIs need more than one run may
    # collect, which changes the advice (test_compare_too_noisy.py)
    c = one(noise(6, 0.3, 1), noise(6, 0.3, 2) * 1.08, s=replace(FAST, statistic="median"))
    assert c.verdict is Verdict.INCONCLUSIVE
    assert c.samples_needed is not None and c.samples_needed > 6
    assert f"about {c.samples_needed} values per version" in c.reason
    assert "[full]" in c.reason  # names the option to change


def test_a_change_beyond_the_threshold_with_overlapping_cis_is_not_called_large() -> None:
    # -3.2% is just past a 3% threshold: the reason names the threshold, not a size judgement
    c = one(noise(30, 0.3, 1), noise(30, 0.3, 2) * 0.968)
    assert c.verdict is Verdict.INCONCLUSIVE and c.change_pct is not None and abs(c.change_pct) >= 3
    assert "is large" not in c.reason
    assert f"the change ({c.change_pct:+.1f}%) is beyond ±3% but the 99% CIs overlap" in c.reason


def test_too_few_samples_is_inconclusive() -> None:
    c = one(np.array([1.0, 1.1]), np.array([2.0, 2.1, 2.2]))
    assert c.verdict is Verdict.INCONCLUSIVE
    assert "at least 3" in c.reason


def test_failed_trials_make_the_verdict_failed_even_with_a_clear_change() -> None:
    base = Sample(noise(45, 0.005, 1))
    head = Sample(noise(45, 0.005, 2) * 1.2, n_failed=1, failures=("timeout: killed after 60 s",))
    c = compare_one("b", base, head, False, FAST, np.random.default_rng(0))
    assert c.verdict is Verdict.FAILED
    assert "timeout" in c.reason and "head: 1" in c.reason
    assert c.change_pct == pytest.approx(20, abs=1)  # still reported for information


def test_no_values_in_one_version_is_failed() -> None:
    c = compare_many([("b", Sample(noise(10, 0.01, 1)), Sample(np.array([]), n_failed=3), False)], FAST)[0]
    assert c.verdict is Verdict.FAILED and c.head.estimate is None and "head" in c.reason


def test_identical_values_give_zero_width_cis() -> None:
    same = one(np.full(10, 2.0), np.full(10, 2.0))
    assert same.verdict is Verdict.UNCHANGED and same.change_ci == (0.0, 0.0)
    moved = one(np.full(10, 2.0), np.full(10, 2.2))
    assert moved.verdict is Verdict.REGRESSION


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(1e-6, 1e6), shift=st.sampled_from([0.9, 1.0, 1.02, 1.1]), seed=st.integers(0, 1000))
def test_verdict_and_change_do_not_depend_on_the_unit(scale: float, shift: float, seed: int) -> None:
    base, head = noise(30, 0.01, seed), noise(30, 0.01, seed + 1) * shift
    a = one(base, head)
    b = one(base * scale, head * scale)
    assert a.verdict is b.verdict
    assert a.change_pct == pytest.approx(b.change_pct, rel=1e-6)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.sampled_from([0.85, 0.97, 1.0, 1.05, 1.2]))
def test_swapping_base_and_head_mirrors_the_verdict(seed: int, shift: float) -> None:
    base, head = noise(30, 0.01, seed), noise(30, 0.01, seed + 1) * shift
    mirror = {
        Verdict.REGRESSION: Verdict.IMPROVEMENT,
        Verdict.IMPROVEMENT: Verdict.REGRESSION,
    }
    a, b = one(base, head), one(head, base)
    if a.verdict in mirror and abs(a.change_pct or 0) > 3.5:  # ratio asymmetry near the threshold
        assert b.verdict is mirror[a.verdict]


def test_batched_path_agrees_with_the_single_path() -> None:
    items = []
    for i in range(30):
        shift = (0.9, 1.0, 1.1)[i % 3]
        items.append((f"b{i}", Sample(noise(45, 0.005, i)), Sample(noise(45, 0.005, 100 + i) * shift), False))
    batched = compare_many(items, FAST)
    single = [
        compare_one(n, b, h, hib, FAST, np.random.default_rng(i)) for i, (n, b, h, hib) in enumerate(items)
    ]
    assert [c.verdict for c in batched] == [c.verdict for c in single]
    assert [c.benchmark for c in batched] == [n for n, *_ in items]


@pytest.mark.parametrize("boot", ["flat", "two-level"])
@pytest.mark.parametrize("pairing", ["independent", "suite-run"])
def test_every_scheme_finds_a_clear_change_and_clears_no_change(boot: str, pairing: str) -> None:
    s = AnalysisSettings(resamples=1000, bootstrap=boot, pairing=pairing)  # type: ignore[arg-type]
    base, head = structured(noise(45, 0.005, 1)), structured(noise(45, 0.005, 2))
    slow = structured(noise(45, 0.005, 2) * 1.1)
    assert compare_one("b", base, slow, False, s, np.random.default_rng(0)).verdict is Verdict.REGRESSION
    assert compare_one("b", base, head, False, s, np.random.default_rng(0)).verdict is Verdict.UNCHANGED


def test_two_level_is_wider_than_flat_when_trials_differ() -> None:
    # Trials (processes) with their own level: values inside a trial agree, trials disagree.
    rng = np.random.default_rng(8)
    levels = np.repeat(rng.normal(1.0, 0.03, size=15), 5) + rng.normal(0, 0.001, size=75)
    base, head = structured(levels, per_trial=5), structured(levels[::-1].copy(), per_trial=5)
    flat = compare_one(
        "b", base, head, False, AnalysisSettings(resamples=2000, bootstrap="flat"), np.random.default_rng(0)
    )
    two = compare_one(
        "b",
        base,
        head,
        False,
        AnalysisSettings(resamples=2000, bootstrap="two-level"),
        np.random.default_rng(0),
    )
    assert flat.base.ci is not None and two.base.ci is not None
    assert two.base.ci[1] - two.base.ci[0] > 1.5 * (flat.base.ci[1] - flat.base.ci[0])


def test_pairing_without_shared_suite_runs_falls_back_with_a_warning() -> None:
    s = AnalysisSettings(resamples=500, pairing="suite-run")
    base = Sample(noise(30, 0.01, 1), suite_run=np.repeat([1, 2, 3], 10))
    head = Sample(noise(30, 0.01, 2), suite_run=np.repeat([4, 5, 6], 10))
    c = compare_one("b", base, head, False, s, np.random.default_rng(0))
    assert [w["code"] for w in c.warnings] == ["pairing_unavailable"]
    assert "--pairing independent" in c.warnings[0]["action"]


def test_bca_interval_setting_runs_and_agrees_on_clear_cases() -> None:
    s = AnalysisSettings(resamples=2000, method="bca")
    assert one(noise(45, 0.005, 1), noise(45, 0.005, 2) * 1.1, s=s).verdict is Verdict.REGRESSION


def test_samples_needed_scales_with_the_square_of_the_noise() -> None:
    a = samples_needed(10, 10, 0.02, 0.02, 3.0)
    b = samples_needed(10, 10, 0.04, 0.04, 3.0)
    assert b == pytest.approx(4 * a, rel=0.01)
    assert samples_needed(10, 10, math.inf, 0.1, 3.0) == 10


def test_settings_reject_nonsense() -> None:
    for bad in ({"confidence": 1.5}, {"threshold_pct": 0}, {"resamples": 5}, {"statistic": "mode"}):
        with pytest.raises(ValueError):
            AnalysisSettings(**bad)  # type: ignore[arg-type]


# ---- small samples: the rank-test guard (n = 3 would give false alarms) ------------------------


def test_three_values_per_version_cannot_make_a_verdict_however_far_apart() -> None:
    """With 3 values the percentile-bootstrap "99 %" CI is about their range; disjoint ranges
    happen by chance 10 % of the time. The exact rank test's smallest p at 3/3 is 0.1."""
    c = one(np.array([1.00, 1.01, 1.02]), np.array([1.20, 1.21, 1.22]))
    assert c.verdict is Verdict.INCONCLUSIVE
    assert "rank test" in c.reason and "p = 0.1" in c.reason and "fewer than 5" in c.reason
    assert c.samples_needed == 5
    five = one(np.array([1.00, 1.01, 1.02, 1.01, 1.00]), np.array([1.20, 1.21, 1.22, 1.2, 1.21]))
    assert five.verdict is Verdict.REGRESSION  # 2 / C(10, 5) = 0.0079 <= 0.01


def test_rank_floor_and_the_separation_shortcut_match_the_exact_test() -> None:
    from gate.model import rank_floor
    from gate.stats.rank import rank_test_agrees, rank_test_p

    assert (rank_floor(0.95), rank_floor(0.99), rank_floor(0.999)) == (4, 5, 7)
    rng = np.random.default_rng(5)
    for nb, nh in [(3, 3), (3, 20), (5, 5), (4, 7), (8, 8)]:
        b, h = rng.normal(1, 0.01, nb), rng.normal(2, 0.01, nh)  # completely separated
        agrees, p = rank_test_agrees(b, h, 0.99)
        assert p == pytest.approx(rank_test_p(b, h), rel=1e-9)
        assert agrees == (p <= 0.01)


def test_no_false_alarms_between_identical_distributions_at_three_values() -> None:
    """A/A at CV 5 % with 3 values per version: ~9 % regression/improvement verdicts before the
    guard (eval/eval_small_samples.py), none with it."""
    rng = np.random.default_rng(11)
    items = [
        (f"b{i}", Sample(rng.normal(1, 0.05, 3)), Sample(rng.normal(1, 0.05, 3)), False) for i in range(400)
    ]
    verdicts = [c.verdict for c in compare_many(items, AnalysisSettings(resamples=1000, seed=2))]
    assert not any(v in (Verdict.REGRESSION, Verdict.IMPROVEMENT) for v in verdicts)
    assert verdicts.count(Verdict.INCONCLUSIVE) > 300


def test_the_rank_guard_leaves_paired_and_mean_verdicts_alone_once_samples_are_large() -> None:
    """From 8 values on, no unpaired rank test over pooled values overrides the suite-run pairing
    (runs ±10 % apart, head 5 % slower in each) or the mean (a slow tail)."""
    runs = np.repeat([1, 2, 3], 5)
    offset = np.repeat([0.90, 1.00, 1.10], 5)
    jitter = np.tile(1 + 0.002 * (np.arange(5) - 2), 3)
    base = Sample(offset * jitter, suite_run=runs)
    head = Sample(offset * 1.05 * jitter, suite_run=runs)
    paired = AnalysisSettings(resamples=2000, seed=3, pairing="suite-run")
    assert compare_one("b", base, head, False, paired, np.random.default_rng(0)).verdict is Verdict.REGRESSION
    i = np.arange(75)
    tail_base = 0.98 + 0.04 * ((i * 37) % 75) / 74
    tail_head = (0.98 + 0.04 * ((i * 41) % 75) / 74) * np.where(i % 8 == 0, 3.0, 1.0)
    mean = AnalysisSettings(resamples=2000, seed=3, statistic="mean")
    c = compare_one("b", Sample(tail_base), Sample(tail_head), False, mean, np.random.default_rng(0))
    assert c.verdict is Verdict.REGRESSION


def test_ties_get_the_exact_permutation_p_not_the_normal_approximation() -> None:
    """Quantised timings: 19,19,20,19 vs 20,20,21,21 has exact p 0.086 (normal approx 0.047)."""
    from gate.stats.rank import rank_test_p

    b, h = np.array([19.0, 19, 20, 19]), np.array([20.0, 20, 21, 21])
    assert rank_test_p(b, h) == pytest.approx(0.0857, abs=1e-3)
    c = one(b, h, s=AnalysisSettings(resamples=2000, seed=3, confidence=0.95, statistic="mean"))
    assert c.verdict is Verdict.INCONCLUSIVE
