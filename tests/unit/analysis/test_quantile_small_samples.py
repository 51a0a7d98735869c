"""A low quantile of few values: the rank test must show the size of the change, not only its
direction (gate/analysis/compare.py; docs/statistics.md "Small samples")."""

from __future__ import annotations

import numpy as np

from gate.analysis.compare import AnalysisSettings, Sample, compare_one
from gate.model import Verdict, small_sample_limit
from gate.stats.rank import shifted_rank_test_agrees

SETTINGS = AnalysisSettings(resamples=4000, tail_statistic="")


def _compare(base: list[float], head: list[float], statistic: str):  # type: ignore[no-untyped-def]
    s = AnalysisSettings(resamples=4000, tail_statistic="", statistic=statistic)
    return compare_one(
        "b", Sample(np.array(base)), Sample(np.array(head)), False, s, np.random.default_rng(0)
    )


# The shape of toml's BenchmarkUnmarshal/SimpleDocument/struct in the audit's minimal configuration
# (1 suite run × 5 processes): head really is ~1.5 % slower, but one low base value makes the
# 10th percentile of 5 values — mostly the minimum — say +4 %, with disjoint bootstrap CIs and all
# head values above all base values.
BASE = [1000.0, 1002.0, 998.0, 970.0, 1001.0]
HEAD = [1015.0, 1017.0, 1014.0, 1020.0, 1600.0]


def test_a_low_quantile_of_five_values_does_not_call_a_change_the_rank_test_cannot_size() -> None:
    c = _compare(BASE, HEAD, "p10")
    assert c.change_pct is not None and c.change_pct >= 3.0 and c.significant
    assert c.verdict is Verdict.INCONCLUSIVE
    assert "does not show a change of at least 3%" in c.reason and "51 or more" in c.reason
    assert c.samples_needed == 10
    # a change well beyond the threshold is still called at five values, either way
    assert _compare(BASE, [x * 1.10 for x in BASE], "p10").verdict is Verdict.REGRESSION
    assert _compare(BASE, [x * 0.90 for x in BASE], "p10").verdict is Verdict.IMPROVEMENT
    # the median keeps its own rule: +1.5 % is under 3 %, +10 % a regression
    assert _compare(BASE, HEAD, "median").verdict is not Verdict.REGRESSION
    assert _compare(BASE, [x * 1.10 for x in BASE], "median").verdict is Verdict.REGRESSION


def test_the_limit_is_where_a_distribution_free_ci_of_the_quantile_exists() -> None:
    assert small_sample_limit(0.99) == 8 and small_sample_limit(0.95) == 6  # the median, as before
    assert small_sample_limit(0.99, 0.1) == 51  # 0.9^51 ≤ 0.005 < 0.9^50
    assert small_sample_limit(0.95, 0.1) == 36
    assert small_sample_limit(0.99, 0.9) == 51  # symmetric


def test_the_shifted_test_is_one_sided_in_the_direction_of_the_change() -> None:
    b = Sample(np.array([1.0, 1.01, 1.02, 1.0, 1.01]))
    far = Sample(np.array([1.2, 1.21, 1.22, 1.2, 1.21]))
    ok, p = shifted_rank_test_agrees(b.values, far.values, 20.0, 3.0, 0.99)
    assert ok and p == 1 / 252  # complete separation from base × 1.03: 1 / C(10, 5)
    near = Sample(np.array([1.02, 1.03, 1.04, 1.02, 1.03]))  # +2 %: not beyond 3 %
    ok, _ = shifted_rank_test_agrees(b.values, near.values, 2.0, 3.0, 0.99)
    assert not ok
    down = Sample(np.array([0.8, 0.81, 0.82, 0.8, 0.81]))
    ok, _ = shifted_rank_test_agrees(b.values, down.values, -20.0, 3.0, 0.99)
    assert ok
