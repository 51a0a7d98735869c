"""``--bootstrap auto``: the trials are resampled (two-level) only where they differ."""

from __future__ import annotations

import numpy as np

from gate.analysis.compare import AnalysisSettings, Sample, choose_bootstrap, compare_many, compare_one
from gate.model import Verdict

AUTO = AnalysisSettings(resamples=2000, seed=3, bootstrap="auto")
FLAT = AnalysisSettings(resamples=2000, seed=3, bootstrap="flat")


def trials(levels: list[float], per_trial: int = 5, sd: float = 0.002, seed: int = 0) -> Sample:
    """One trial per level: ``per_trial`` values around it (a process's own speed)."""
    rng = np.random.default_rng(seed)
    values = np.repeat(levels, per_trial) * (1.0 + rng.normal(0, sd, size=len(levels) * per_trial))
    return Sample(values=values, unit_id=np.repeat(np.arange(len(levels)), per_trial))


def homogeneous(n_trials: int = 15, per_trial: int = 5, seed: int = 0) -> Sample:
    return trials([1.0] * n_trials, per_trial, sd=0.01, seed=seed)


# A null pair where head's processes happened to land in the slow phase more often than base's:
# six processes each, every value of a process close to its process's own level.
BASE_PHASES = trials([1.0, 1.02, 1.3, 0.99, 1.01, 0.98], seed=1)
HEAD_PHASES = trials([1.3, 1.28, 1.0, 1.31, 1.29, 1.32], seed=2)


def test_trials_that_differ_are_resampled_by_trial_and_the_chance_phase_is_no_regression() -> None:
    # the same values without their trials: 30 "independent" values per version
    unlabeled = Sample(BASE_PHASES.values), Sample(HEAD_PHASES.values)
    flat = compare_one("b", *unlabeled, False, FLAT, np.random.default_rng(0))
    auto = compare_one("b", BASE_PHASES, HEAD_PHASES, False, AUTO, np.random.default_rng(0))
    assert flat.verdict is Verdict.REGRESSION
    assert auto.verdict is Verdict.INCONCLUSIVE  # 6 processes per version
    assert (auto.bootstrap, flat.bootstrap) == ("two-level", "flat")
    assert "Kruskal-Wallis" in auto.bootstrap_reason and "base and head" in auto.bootstrap_reason


def test_homogeneous_trials_keep_the_flat_interval() -> None:
    base, head = homogeneous(seed=1), homogeneous(seed=2)
    flat = compare_one("b", base, head, False, FLAT, np.random.default_rng(0))
    auto = compare_one("b", base, head, False, AUTO, np.random.default_rng(0))
    assert auto.bootstrap == "flat" and "agree" in auto.bootstrap_reason
    assert (auto.base.ci, auto.head.ci, auto.change_ci) == (flat.base.ci, flat.head.ci, flat.change_ci)


def test_a_clear_slowdown_with_differing_trials_is_still_found() -> None:
    base = trials(
        [1.0, 1.02, 0.99, 1.01, 1.0, 0.98, 1.02, 1.0, 0.99, 1.01, 1.0, 0.99, 1.01, 1.02, 0.98], seed=4
    )
    head = Sample(base.values[::-1] * 1.2, base.unit_id)
    auto = compare_one("b", base, head, False, AUTO, np.random.default_rng(0))
    assert auto.bootstrap == "two-level"
    assert auto.verdict is Verdict.REGRESSION


def test_one_value_per_trial_or_no_trial_labels_is_flat() -> None:
    single = Sample(np.linspace(1.0, 1.1, 10), unit_id=np.arange(10))
    unlabeled = Sample(np.linspace(1.0, 1.1, 10))
    for s in (single, unlabeled):
        scheme, why = choose_bootstrap(s, s, AUTO)
        assert scheme == "flat" and "no trial has more than one value" in why
    assert choose_bootstrap(BASE_PHASES, HEAD_PHASES, AnalysisSettings(bootstrap="flat")) == ("flat", "")


def test_compare_many_records_the_scheme_of_each_benchmark() -> None:
    items = [
        ("phases", BASE_PHASES, HEAD_PHASES, False),
        ("quiet", homogeneous(seed=5), homogeneous(seed=6), False),
    ]
    many = compare_many(items, AUTO)
    assert [(c.benchmark, c.bootstrap) for c in many] == [("phases", "two-level"), ("quiet", "flat")]
    assert many[0].verdict is Verdict.INCONCLUSIVE
    alone = compare_one(
        "phases", BASE_PHASES, HEAD_PHASES, False, AUTO, np.random.default_rng([AUTO.seed, 0])
    )
    assert (many[0].base.ci, many[0].change_ci) == (alone.base.ci, alone.change_ci)


def test_an_explicit_two_level_without_trials_to_resample_is_recorded_as_flat() -> None:
    two_level = AnalysisSettings(resamples=2000, seed=3, bootstrap="two-level")
    unlabeled_b = Sample(np.linspace(1.0, 1.1, 30))
    unlabeled_h = Sample(np.linspace(1.0, 1.1, 30) * 1.01)
    one_trial_b = Sample(unlabeled_b.values, unit_id=np.zeros(30, dtype=np.int64))
    one_trial_h = Sample(unlabeled_h.values, unit_id=np.zeros(30, dtype=np.int64))
    flat = compare_one(
        "b",
        unlabeled_b,
        unlabeled_h,
        False,
        AnalysisSettings(resamples=2000, seed=3, bootstrap="flat"),
        np.random.default_rng(0),
    )
    for base, head, why in (
        (unlabeled_b, unlabeled_h, "no trial labels"),
        (one_trial_b, one_trial_h, "each version has a single trial"),
    ):
        alone = compare_one("b", base, head, False, two_level, np.random.default_rng(0))
        (many,) = compare_many([("b", base, head, False)], two_level)
        for c in (alone, many):
            assert c.bootstrap == "flat", why
            assert why in c.bootstrap_reason and "two-level was asked for" in c.bootstrap_reason
        assert (alone.base.ci, alone.change_ci) == (flat.base.ci, flat.change_ci)  # what was done: flat
    # with trials to resample, two-level is done and recorded as given
    c = compare_one("b", BASE_PHASES, HEAD_PHASES, False, two_level, np.random.default_rng(0))
    assert (c.bootstrap, c.bootstrap_reason) == ("two-level", "")


def test_auto_is_the_default_scheme() -> None:
    # A false regression from process-level noise is what makes people switch a gate off; the
    # default resamples by trial where the trials differ (docs/statistics.md "How the gate decides").
    default = compare_one(
        "b",
        BASE_PHASES,
        HEAD_PHASES,
        False,
        AnalysisSettings(resamples=2000, seed=3),
        np.random.default_rng(0),
    )
    assert default.bootstrap == "two-level" and default.verdict is Verdict.INCONCLUSIVE
