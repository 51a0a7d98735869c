"""Few trials with several values each: a verdict must survive reassigning whole trials to the versions
(gate/stats/rank.py ``trial_guard``; docs/statistics.md "Few trials")."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kruskal

from gate.analysis.compare import AnalysisSettings, Sample, compare_many, compare_one
from gate.model import Verdict
from gate.stats.order import kruskal_smallest_p
from gate.stats.rank import process_level_unseen, trial_permutation_p

SETTINGS = AnalysisSettings(resamples=4000, tail_statistic="")

# An A/A pair from eval/eval_small_clusters.py (6 trials × 3 values per version, 40 % of the trials
# slowed as a whole by 5–50 %, as on a loaded machine): every base process was hit, two of head's.
# The values of a trial move together, so 18 values are 6 independent units; resampled flat (the
# Kruskal-Wallis test of `auto` cannot reject at 0.001 with 6 trials of 3 values: even fully
# separated trials give p = 0.0054) the 10th percentile's CIs were far apart and the old rule
# called −17 % an improvement. Reassigning whole trials to the versions, 28 of the 924
# arrangements give a fall of the 10th percentile at least as large (one-sided p = 0.030 > 0.005).
BASE = [[1.174, 1.196, 1.187], [1.249, 1.257, 1.238], [1.434, 1.424, 1.397],
        [1.263, 1.3, 1.267], [1.458, 1.449, 1.46], [1.224, 1.257, 1.243]]  # fmt: skip
HEAD = [[1.49, 1.492, 1.477], [0.996, 1.008, 0.994], [1.444, 1.471, 1.478],
        [0.986, 0.985, 0.989], [0.998, 0.991, 0.982], [0.99, 1.006, 1.017]]  # fmt: skip


def _sample(trials: list[list[float]], labelled: bool = True) -> Sample:
    values = np.array(trials, dtype=np.float64)
    ids = np.repeat(np.arange(values.shape[0]), values.shape[1])
    return Sample(values.ravel(), unit_id=ids if labelled else None)


def test_a_few_slowed_processes_are_not_an_improvement() -> None:
    c = compare_one("b", _sample(BASE), _sample(HEAD), False, SETTINGS, np.random.default_rng(0))
    assert c.bootstrap == "flat" and c.significant and c.change_pct is not None and c.change_pct < -15.0
    assert c.verdict is Verdict.INCONCLUSIVE, c.reason
    assert "only 6/6 trials" in c.reason and "reassigning whole trials" in c.reason
    assert c.samples_needed == 36
    # the batched path (compare_many) decides the same
    (m,) = compare_many([("b", _sample(BASE), _sample(HEAD), False)], SETTINGS)
    assert m.verdict is Verdict.INCONCLUSIVE


def test_a_real_change_of_every_trial_is_still_called() -> None:
    quiet = [HEAD[1], HEAD[3], HEAD[4], HEAD[5], [1.0, 1.012, 1.004], [0.99, 1.0, 0.995]]  # none slowed
    rng = np.random.default_rng(0)
    for factor, verdict in ((1.10, Verdict.REGRESSION), (0.90, Verdict.IMPROVEMENT)):
        head = _sample([[v * factor for v in trial] for trial in quiet])
        assert compare_one("b", _sample(quiet), head, False, SETTINGS, rng).verdict is verdict


def test_without_trial_labels_or_with_one_value_per_trial_the_values_are_the_units() -> None:
    # no trial structure to respect: the guard does not apply (the values-level rules decide)
    rng = np.random.default_rng(0)
    c = compare_one("b", _sample(BASE, labelled=False), _sample(HEAD, labelled=False), False, SETTINGS, rng)
    assert "trials" not in c.reason
    # one value per trial: the trials are the values (the test over them, kind `single`, agrees here;
    # tests/unit/analysis/test_single_value_trials.py)
    singles = Sample(np.array([1.0, 1.01, 0.99, 1.02, 1.0, 0.98]), unit_id=np.arange(6))
    slower = Sample(singles.values * 1.2, unit_id=np.arange(6))
    assert compare_one("b", singles, slower, False, SETTINGS, rng).verdict is Verdict.REGRESSION


def test_four_trials_per_version_cannot_call_a_change_at_99_percent() -> None:
    # the exact rank test of 4 against 4 trials has smallest two-sided p 2/C(8,4) = 0.029
    base, head = _sample(BASE[:4]), _sample([[v * 1.5 for v in trial] for trial in BASE[:4]])
    c = compare_one("b", base, head, False, SETTINGS, np.random.default_rng(0))
    assert c.verdict is Verdict.INCONCLUSIVE and "4/4 trials" in c.reason


def test_trials_of_enough_values_for_auto_to_see_them_are_not_blind() -> None:
    # 6 trials of 5 values: Kruskal-Wallis across them can reach p < 0.001, so `auto` decides how
    # to resample; the verdict then meets the test over few trials (below), not the blind one
    assert not process_level_unseen(np.full(6, 5), 0.001) and process_level_unseen(np.full(6, 3), 0.001)
    assert process_level_unseen(np.full(9, 3), 0.001) and not process_level_unseen(np.full(10, 3), 0.001)
    c = compare_one("b", _five(BASE), _five(HEAD), False, SETTINGS, np.random.default_rng(0))
    assert "too few to tell whether they differ" not in c.reason


# Few trials of 5 values (docs/statistics.md "Few trials"): `auto` sees that the trials differ and
# resamples them, but a bootstrap over 4–8 trials over-rejects (eval/eval_small_clusters.py
# --per-trial 5: up to 8.2 % A/A false verdicts at 4 trials with 60 % of them slowed).


def _five(trials: list[list[float]], runs: list[int] | None = None, seed: int = 0) -> Sample:
    """Each trial's level (its first value) measured 5 times with 0.3 % noise; ``runs``: its suite run."""
    rng = np.random.default_rng(seed)
    levels = np.array([t[0] for t in trials])
    values = np.repeat(levels, 5) * (1.0 + rng.normal(0.0, 0.003, levels.size * 5))
    return Sample(
        values,
        unit_id=np.repeat(np.arange(levels.size), 5),
        suite_run=None if runs is None else np.repeat(runs, 5),
    )


def test_six_slowed_processes_resampled_by_trial_are_not_an_improvement() -> None:
    # BASE / HEAD above with 5 values per trial: every base process was slowed, two of head's
    base, head = _five(BASE, seed=1), _five(HEAD, seed=2)
    c = compare_one("b", base, head, False, SETTINGS, np.random.default_rng(0))
    assert c.bootstrap == "two-level" and c.significant and c.change_pct is not None and c.change_pct < -15.0
    assert c.verdict is Verdict.INCONCLUSIVE, c.reason
    assert "only 6/6 trials" in c.reason and "too few for a bootstrap over trials" in c.reason
    (m,) = compare_many([("b", base, head, False)], SETTINGS)
    assert m.verdict is Verdict.INCONCLUSIVE


def test_four_trials_of_five_values_cannot_call_a_change_at_99_percent() -> None:
    # the trials agree (flat bootstrap), but 4 + 4 trials have C(8, 4) = 70 arrangements: the
    # smallest one-sided p is 1/70 > 0.01
    quiet = [[1.0], [1.01], [0.99], [1.0]]
    base, head = _five(quiet, seed=3), _five([[t[0] * 1.5] for t in quiet], seed=4)
    c = compare_one("b", base, head, False, SETTINGS, np.random.default_rng(0))
    assert c.bootstrap == "flat" and c.significant
    assert c.verdict is Verdict.INCONCLUSIVE and "only 4/4 trials" in c.reason


def test_a_real_change_of_few_trials_across_suite_runs_is_still_called() -> None:
    # table (a)'s design: 3 suite runs of 3 base + 2 head trials, the third suite run 8 % slower
    # for both versions (a runner's state). Reassigned inside each suite run (C(5, 2)³ = 1,000
    # arrangements) the change survives; over all 15 trials the slow suite run's trials would count
    # against it (tests/unit/stats/test_trial_randomization.py).
    levels = [1.0, 1.004, 0.997, 1.002, 0.999, 1.003, 1.08, 1.083, 1.078]
    runs = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    head_levels = [1.001, 0.998, 1.0, 1.003, 1.081, 1.079]
    base = _five([[v] for v in levels], runs, seed=5)
    head = _five([[v * 1.06] for v in head_levels], [1, 1, 2, 2, 3, 3], seed=6)
    c = compare_one("b", base, head, False, SETTINGS, np.random.default_rng(0))
    assert c.verdict is Verdict.REGRESSION, c.reason


def test_the_smallest_kruskal_wallis_p_of_a_design() -> None:
    assert kruskal_smallest_p([3] * 6) == pytest.approx(0.00537, rel=1e-3)  # fully separated trials
    assert kruskal_smallest_p([3] * 10) < 0.001 < kruskal_smallest_p([3] * 9)
    assert kruskal_smallest_p([5, 5]) == pytest.approx(0.00902, rel=1e-3)
    assert kruskal_smallest_p([4]) == 1.0 and kruskal_smallest_p([1, 1, 1]) == 1.0
    # equals scipy's p of the separated arrangement
    groups = [np.arange(0, 5), np.arange(5, 9), np.arange(9, 12)]
    assert kruskal_smallest_p([5, 4, 3]) <= kruskal(*groups).pvalue + 1e-12


def _median_rows(x: np.ndarray) -> np.ndarray:
    return np.median(x, axis=1)


def test_the_randomization_test_over_trials_is_exact() -> None:
    # every arrangement of 3 + 3 trials: the observed one is the most extreme of C(6, 3) = 20
    base = [np.array([1.0, 1.01]), np.array([1.02, 1.0]), np.array([0.99, 1.0])]
    head = [np.array([2.0, 2.1]), np.array([2.2, 2.0]), np.array([2.05, 2.0])]
    assert trial_permutation_p(base, head, _median_rows, up=True) == pytest.approx(1 / 20)
    assert trial_permutation_p(base, head, _median_rows, up=False) == pytest.approx(1.0)
    # unequal trial sizes take the same path: C(7, 3) = 35 arrangements
    assert trial_permutation_p([*base, np.array([1.0])], head, _median_rows, up=True) == pytest.approx(1 / 35)


def test_aa_false_verdicts_of_four_trials_of_five_values_on_a_loaded_machine() -> None:
    # eval/eval_small_clusters.py's A/A null, one cell: 4 trials × 5 values per version, 60 % of the
    # trials slowed as a whole by 5–50 %; `auto` resamples 90 % of them by trial. Without the test
    # over few trials 8.2 % of 1,000 such pairs got a verdict (docs/statistics.md "Few trials").
    from eval.eval_small_clusters import cell

    settings = AnalysisSettings(resamples=2000, seed=1, tail_statistic="")
    r = cell(4, 5, 0.01, 0.6, 0.0, 300, settings, seed=1)
    assert r["two_level"] > 80.0
    assert r["regression"] + r["improvement"] <= 1.0


def test_the_null_cells_count_what_the_test_over_trials_alone_confirms() -> None:
    # eval_small_clusters --guard-alone: the count the test over trials bounds by construction
    # (2/252 at 5 + 5 trials, docs/statistics.md "Few trials"); on a quiet machine it confirms
    # every +10 % slowdown, as the whole rule does, and in the null the rule calls no more than it
    from eval.eval_small_clusters import cell

    settings = AnalysisSettings(resamples=500, seed=1, tail_statistic="")
    quiet = cell(5, 5, 0.01, 0.0, 10.0, 20, settings, seed=1, guard_alone=True)
    assert quiet["guard"] == quiet["changed"] == 20
    loaded = cell(5, 5, 0.01, 0.6, 0.0, 100, settings, seed=1, guard_alone=True)
    assert loaded["changed"] <= loaded["guard"]
    assert cell(5, 5, 0.01, 0.0, 10.0, 5, settings, seed=1)["guard"] == -1  # not counted unless asked
