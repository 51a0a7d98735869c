"""The randomization test over few trials (gate/stats/rank.py ``trial_guard``, kind ``few``): where
a version has fewer than ``FEW_TRIALS`` trials of several values, reassigning whole trials to the
versions — inside each suite run, as RMIT randomises them — must confirm the change
(docs/statistics.md "Few trials")."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from gate.stats import bootstrap as bs
from gate.stats.rank import FEW_TRIALS, trial_guard, trial_permutation_p, trial_strata

P10 = partial(bs.point_estimates, statistic="p10")


def _five(levels: list[float], runs: list[int] | None = None, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(values, trial of each value, suite run of each value): each level measured 5 times with
    0.3 % noise."""
    rng = np.random.default_rng(seed)
    values = np.repeat(levels, 5) * (1.0 + rng.normal(0.0, 0.003, len(levels) * 5))
    trials = np.repeat(np.arange(len(levels)), 5)
    return values, trials, np.repeat(runs if runs is not None else np.zeros(len(levels), int), 5)


def _median_rows(x: np.ndarray) -> np.ndarray:
    return np.median(x, axis=1)


def test_from_ten_trials_per_version_the_bootstrap_decides_alone() -> None:
    assert FEW_TRIALS == 10
    for k, applies in ((9, True), (10, False)):
        base, bt, _ = _five([1.0 + 0.01 * i for i in range(k)])
        head, ht, _ = _five([1.1 + 0.01 * i for i in range(k)], seed=1)
        guard = trial_guard(base, bt, head, ht, P10, 10.0, 3.0, 0.99, 0.001)
        assert (guard is not None) is applies
        if guard is not None:  # 5 values per trial: the test across trials can see them
            assert guard.kind == "few" and guard.trials == "9/9" and guard.agrees


def test_a_change_across_suite_runs_is_judged_inside_each_suite_run() -> None:
    # table (a)'s design: 3 suite runs of 3 base + 2 head trials, the third 8 % slower for both
    # versions (a runner's state), head +6 % in every trial. Inside each suite run there are
    # C(5, 2)³ = 1,000 arrangements and the observed one is the most extreme: p = 1/1000.
    base, bt, br = _five(
        [1.0, 1.004, 0.997, 1.002, 0.999, 1.003, 1.08, 1.083, 1.078], [1, 1, 1, 2, 2, 2, 3, 3, 3], 5
    )
    levels = [1.001, 0.998, 1.0, 1.003, 1.081, 1.079]
    head, ht, hr = _five([v * 1.06 for v in levels], [1, 1, 2, 2, 3, 3], 6)
    inside = trial_guard(base, bt, head, ht, P10, 6.0, 3.0, 0.99, 0.001, br, hr)
    assert inside is not None and inside.kind == "few" and inside.agrees and inside.p == pytest.approx(0.001)
    # over all 15 trials the slow suite run's trials count against the change
    pooled = trial_guard(base, bt, head, ht, P10, 6.0, 3.0, 0.99, 0.001)
    assert pooled is not None and not pooled.agrees and pooled.p > 0.01
    # the 10th percentile ignores the slow suite run, so its 10 reshuffles tie with the observed
    # arrangement unless the mean log value breaks the tie: p = 10/1000 without it
    b_trials = [base[bt == u] for u in range(9)]
    h_trials = [head[ht == u] for u in range(6)]
    strata = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 1, 1, 2, 2])
    assert trial_permutation_p(b_trials, h_trials, P10, True, strata) == pytest.approx(0.01)
    assert trial_permutation_p(b_trials, h_trials, P10, True, strata, tie_break=True) == pytest.approx(0.001)
    # the test of few trials asks for the direction only (base not scaled by the threshold)
    again = trial_guard(base, bt, head, ht, P10, 6.0, 50.0, 0.99, 0.001, br, hr)
    assert again is not None and again.p == inside.p


def test_too_few_arrangements_inside_suite_runs_reassign_all_trials() -> None:
    # 5 + 5 trials in 2 suite runs (3 + 3 and 2 + 2): 20 × 6 = 120 arrangements, 1/120 > 0.005;
    # over all 10 trials C(10, 5) = 252 can reach it
    base, bt, br = _five([1.0, 1.01, 0.99, 1.0, 1.02], [0, 1, 0, 1, 0])
    head, ht, hr = _five([1.1, 1.11, 1.09, 1.1, 1.12], [0, 1, 0, 1, 0], seed=1)
    guard = trial_guard(base, bt, head, ht, P10, 10.0, 3.0, 0.99, 0.001, br, hr)
    assert guard is not None and guard.agrees and guard.p == pytest.approx(1 / 252)


def test_the_randomization_inside_suite_runs_is_exact() -> None:
    # 2 suite runs of 2 base + 1 head trials: 3 × 3 = 9 arrangements, the observed the most extreme
    base = [np.array([1.0, 1.01]), np.array([1.5, 1.51]), np.array([1.02, 1.0]), np.array([1.52, 1.5])]
    head = [np.array([1.2, 1.21]), np.array([1.7, 1.72])]
    strata = np.array([0, 1, 0, 1, 0, 1])  # base's trials, then head's
    assert trial_permutation_p(base, head, _median_rows, up=True, strata=strata) == pytest.approx(1 / 9)
    assert trial_permutation_p(base, head, _median_rows, up=False, strata=strata) == pytest.approx(1.0)
    # over all 6 trials (C(6, 2) = 15) the slow suite run's base trials beat head's first trial
    assert trial_permutation_p(base, head, _median_rows, up=True) > 1 / 9


def test_the_strata_of_a_design() -> None:
    # base's trials, then head's, each in sorted trial order, numbered from 0
    strata = trial_strata(
        (np.array([3, 3, 1, 1]), np.array([7, 7, 5, 5])), (np.array([0, 2]), np.array([5, 7]))
    )
    assert strata is not None and strata.tolist() == [0, 1, 0, 1]
    # a trial spanning suite runs, or a suite run without head: no stratified randomization
    ids, runs = np.array([0, 0, 1, 1]), np.array([1, 2, 2, 2])
    assert trial_strata((ids, runs), (ids, runs)) is None
    assert trial_strata((np.array([0, 1]), np.array([1, 2])), (np.array([0]), np.array([1]))) is None


def test_single_value_trials_are_tested_below_the_bound_the_caller_gives() -> None:
    # kind `single`: every trial one value, fewer trials per version than `single_below` (compare.py
    # passes the quantile's small-sample limit, 51 for p10); at or above it, or without a bound, None
    rng = np.random.default_rng(1)
    base = 1.0 + rng.normal(0.0, 0.01, 15)
    head, runs = base * 1.1, np.arange(15) // 5
    ids_b, ids_h = np.arange(15), np.arange(15) + 15
    guard = trial_guard(base, ids_b, head, ids_h, P10, 10.0, 3.0, 0.99, 0.001, runs, runs, 51)
    assert guard is not None and guard.kind == "single" and guard.agrees and guard.trials == "15/15"
    assert trial_guard(base, ids_b, head, ids_h, P10, 10.0, 3.0, 0.99, 0.001, runs, runs, 15) is None
    assert trial_guard(base, ids_b, head, ids_h, P10, 10.0, 3.0, 0.99, 0.001, runs, runs) is None
