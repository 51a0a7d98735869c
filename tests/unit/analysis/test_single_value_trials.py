"""Trials of one value each, fewer than a low quantile's small-sample limit: a verdict of that
quantile must survive reassigning whole trials inside their suite runs (gate/stats/rank.py
``trial_guard``, kind ``single``; docs/statistics.md "Few trials")."""

from __future__ import annotations

import numpy as np

from gate.analysis.compare import AnalysisSettings, Sample, compare_many, compare_one
from gate.model import Verdict

SETTINGS = AnalysisSettings(resamples=10_000, tail_statistic="")

# The demo's unchanged benchmark `vocab` on a loaded machine (load 7–13), 3 suite runs × 5 trials of
# one value per version, one list per suite run (seconds). The five lowest values all fell to head
# by chance; the 10th percentile follows its lowest two or three values and the flat bootstrap
# never reaches below them, so the old rule called −48.7 % [−77.0, −7.3] an improvement. Reassigning
# the trials inside each suite run, 0.87 % of the arrangements give a fall at least as large
# (one-sided p = 0.0087 > 0.005).
BASE = [[0.619, 0.621, 0.934, 0.957, 1.212], [0.587, 0.614, 0.724, 0.981, 1.078],
        [0.612, 0.619, 0.7, 0.915, 1.335]]  # fmt: skip
HEAD = [[0.132, 0.437, 0.485, 0.69, 0.742], [0.397, 0.7, 0.717, 0.722, 0.747],
        [0.529, 0.584, 0.593, 0.705, 0.728]]  # fmt: skip


def _sample(runs: list[list[float]], first_trial: int) -> Sample:
    values = np.array(runs, dtype=np.float64)
    return Sample(
        values.ravel(),
        unit_id=np.arange(values.size) + first_trial,
        suite_run=np.repeat(np.arange(1, values.shape[0] + 1), values.shape[1]),
    )


def test_a_few_low_values_of_single_value_trials_are_not_an_improvement() -> None:
    base, head = _sample(BASE, 1), _sample(HEAD, 100)
    c = compare_one("vocab", base, head, False, SETTINGS, np.random.default_rng(0))
    assert c.statistic == "p10" and c.bootstrap == "flat" and c.significant
    assert c.change_pct is not None and c.change_pct < -40.0
    assert c.verdict is Verdict.INCONCLUSIVE, c.reason
    assert (
        "15/15 trials" in c.reason and "one value each" in c.reason and "reassigning whole trials" in c.reason
    )
    (m,) = compare_many([("vocab", base, head, False)], SETTINGS)  # the batched path decides the same
    assert m.verdict is Verdict.INCONCLUSIVE, m.reason


def test_a_clear_change_of_fifteen_single_value_trials_is_still_called() -> None:
    # the same noisy values, head shifted so that its lowest value of every suite run lies above
    # base's highest: every trial arrangement but the observed one moves the 10th percentile less
    quiet = [sorted(r) for r in BASE]
    for factor, verdict in ((2.5, Verdict.REGRESSION), (0.35, Verdict.IMPROVEMENT)):
        head = _sample([[v * factor for v in r] for r in quiet], 100)
        c = compare_one("vocab", _sample(quiet, 1), head, False, SETTINGS, np.random.default_rng(0))
        assert c.verdict is verdict, c.reason
    # a 10 % change of quiet single-value trials (1 % noise) is called too
    rng = np.random.default_rng(3)
    runs = [list(1.0 + rng.normal(0, 0.01, 5)) for _ in range(3)]
    slower = [[v * 1.10 for v in r] for r in runs]
    c = compare_one("b", _sample(runs, 1), _sample(slower, 100), False, SETTINGS, np.random.default_rng(0))
    assert c.verdict is Verdict.REGRESSION, c.reason


def test_the_median_of_single_value_trials_keeps_its_rule() -> None:
    # the guard follows a quantile's own small-sample limit (the median's is 8 values): 15 values
    # of the median are left to the bootstrap CIs
    settings = AnalysisSettings(statistic="median", resamples=10_000, tail_statistic="")
    rng = np.random.default_rng(3)
    runs = [list(1.0 + rng.normal(0, 0.01, 5)) for _ in range(3)]
    head = _sample([[v * 1.10 for v in r] for r in runs], 100)
    c = compare_one("b", _sample(runs, 1), head, False, settings, np.random.default_rng(0))
    assert c.verdict is Verdict.REGRESSION and "trials" not in c.reason
