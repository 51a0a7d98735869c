"""The ``noisy_head`` rule (gate/stats/spread.py) tests head's extra spread over whole trials: a
few head processes slowed by interference are no proof that the change made the benchmark noisy,
a change that widens every head trial still is (docs/statistics.md "How the gate decides")."""

from __future__ import annotations

import numpy as np
import pytest

from gate.stats.spread import ARRANGEMENTS, NOISIER_ALPHA, head_noisier, value_level_noisier


def _trials(levels: list[float], noise: float, seed: int, per_trial: int = 5) -> tuple[np.ndarray, ...]:
    """(values, trial, suite run) of one version: each level a process measured ``per_trial`` times
    with log-normal ``noise``; the trials alternate between 2 suite runs, as RMIT's do."""
    rng = np.random.default_rng(seed)
    values = np.repeat(levels, per_trial) * np.exp(rng.normal(0.0, noise, len(levels) * per_trial))
    trial = np.repeat(np.arange(len(levels)), per_trial)
    return values, trial, trial % 2


QUIET = [1.0, 1.002, 0.998, 1.001, 0.999, 1.0]


def test_interference_on_a_few_whole_head_trials_is_not_noise_the_change_made() -> None:
    # A/A: three of head's six processes were slowed as a whole by 12-30 % (another process took
    # the CPU for their lifetime), every value inside them alike. Taken as 30 independent values
    # head's deviations are far larger (the old rule fired); but the three slowed trials are all in
    # suite run 2, and 1 in C(6, 3) = 20 reassignments there puts them all in head (the pooled
    # statistic's p = 0.05; combined with the within-trial one, which they leave alone, 35/400).
    base, bt, br = _trials(QUIET, 0.005, 1)
    head, ht, hr = _trials([1.0, 1.12, 0.999, 1.3, 1.001, 1.21], 0.005, 2)
    assert value_level_noisier(base, head)
    found = head_noisier(base, head, bt, ht, br, hr)
    assert found.ratio is not None and found.ratio > 10  # the size criterion alone would fire
    assert found.reachable and found.p == pytest.approx(35 / 400) and not found.noisier
    assert found.trials == "6/6"


def test_a_change_that_widens_every_head_trial_still_fires() -> None:
    # head's every process 5× as noisy: no reassignment of whole trials is as spread in head
    base, bt, br = _trials(QUIET, 0.005, 4)
    head, ht, hr = _trials(QUIET, 0.025, 3)
    found = head_noisier(base, head, bt, ht, br, hr)
    # inside the 2 suite runs: C(6, 3)² = 400 arrangements, the observed one the most extreme
    assert found.noisier and found.p is not None and found.p == pytest.approx(1 / 400)
    assert found.p <= NOISIER_ALPHA


def test_too_few_trials_to_reach_the_level_never_fire() -> None:
    # 4 + 4 trials: 70 arrangements (36 inside the suite runs), smallest p 1/70 > 1 %
    base, bt, br = _trials(QUIET[:4], 0.005, 4)
    head, ht, hr = _trials(QUIET[:4], 0.2, 3)
    found = head_noisier(base, head, bt, ht, br, hr)
    assert not found.reachable and not found.noisier and found.p is None
    # the same values as independent draws (no trial labels) are 20 + 20 units and do fire
    assert head_noisier(base, head).noisier


def test_many_trials_take_a_monte_carlo_sample_of_the_arrangements() -> None:
    # 12 + 12 trials of 3 values in 2 suite runs: C(12, 6)² arrangements, far more than
    # ARRANGEMENTS, so a seeded sample of them plus the observed one
    levels = [1.0 + 0.001 * i for i in range(12)]
    base, bt, br = _trials(levels, 0.005, 5, per_trial=3)
    head, ht, hr = _trials(levels, 0.03, 6, per_trial=3)
    found = head_noisier(base, head, bt, ht, br, hr)
    assert found.noisier and found.p == pytest.approx(1 / (ARRANGEMENTS + 1))
    assert head_noisier(base, head, bt, ht, br, hr).p == found.p  # the same log, the same p
    # A/A with 5 of head's 12 processes slowed by 10-30 %, 3 in one suite run and 2 in the other:
    # all five land in head in C(9, 3)/C(12, 6) · C(10, 4)/C(12, 6) ≈ 2 % of the arrangements (the
    # pooled statistic's p; combined with the within-trial one ≈ 4 %)
    slowed = np.repeat([1.1, 1.2, 1.1, 1.3, 1.15, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 3)
    aa = _trials(levels, 0.005, 7, per_trial=3)[0] * slowed
    assert value_level_noisier(base, aa)
    found = head_noisier(base, aa, bt, ht, br, hr)
    assert not found.noisier and found.p == pytest.approx(0.038, abs=0.003)


def test_a_trial_spanning_suite_runs_is_reassigned_over_all_trials() -> None:
    base, bt, br = _trials(QUIET, 0.005, 4)
    head, ht, hr = _trials(QUIET, 0.025, 3)
    hr = hr.copy()
    hr[0] = 1 - hr[0]  # head's first trial in both suite runs: no stratified design
    found = head_noisier(base, head, bt, ht, br, hr)
    assert found.noisier and found.p == pytest.approx(1 / 924)  # C(12, 6), all trials


def test_labels_that_do_not_match_the_values_are_refused() -> None:
    base, bt, _ = _trials(QUIET, 0.005, 4)
    with pytest.raises(ValueError, match="trial labels"):
        head_noisier(base, base, bt[:-1], bt)
