"""The ICPE'23 heuristic on the 5 JMH benchmarks of ../shared/data/icpe_jmh.

index.csv carries *steady-state* labels, not run-similarity labels (no public ground truth
exists for the heuristic), so these tests check the heuristic's own properties on real data;
eval/report_icpe_similarity.py prints its verdicts next to the labels for the README.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from gate.stats.similarity import THETA, majority_dissimilar, run_heuristic
from tests.conftest import REPO_ROOT, require_shared_data


def _forks(name: str) -> list[np.ndarray]:
    data = json.loads(require_shared_data("icpe_jmh", name).read_text())
    return [np.asarray(f, dtype=float) for f in data]


def _index() -> pd.DataFrame:
    return pd.read_csv(require_shared_data("icpe_jmh", "index.csv"))


@pytest.mark.parametrize("name", [f"icpe_0{i}.json" for i in range(1, 6)])
def test_heuristic_properties_on_real_forks(name: str) -> None:
    forks = _forks(name)
    assert len(forks) == 10 and all(f.size == 3000 for f in forks)
    res = run_heuristic(forks)
    assert res.pairwise.shape == (10, 10, 5)
    assert np.all((res.pairwise >= 0) & (res.pairwise <= 1))
    np.testing.assert_array_equal(res.pairwise, res.pairwise.transpose(1, 0, 2))
    # Algorithm 1: 45 pairs averaged, then the majority of 5 above θ.
    assert res.dissimilar == majority_dissimilar(res.mean_measures, THETA)
    # Per-fork flags follow the pairwise votes: dissimilar from a strict majority of the other 9.
    np.testing.assert_array_equal(res.run_flags, res.pair_dissimilar.sum(axis=1) >= 5)
    # The unit of the values must not matter (seconds → nanoseconds).
    scaled = run_heuristic([f * 1e9 for f in forks])
    np.testing.assert_array_equal(scaled.pair_dissimilar, res.pair_dissimilar)


def test_steady_state_benchmark_has_no_odd_fork() -> None:
    # Expectation, not ground truth: 10 forks that all settle at iteration 33-34 into one
    # steady state should not contain a fork that is unlike most of the others.
    index = _index()
    steady = index.loc[index["steady_state_run_label"] == "steady state", "file"]
    assert len(steady) == 1
    res = run_heuristic(_forks(steady.iloc[0]))
    assert not res.run_flags.any()
    assert not res.dissimilar


def test_report_script_prints_all_five_next_to_labels() -> None:
    require_shared_data("icpe_jmh")
    out = subprocess.run(
        [sys.executable, "-m", "eval.report_icpe_similarity"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line for line in out.splitlines() if line.startswith("| icpe_")]
    index = _index()
    assert len(rows) == len(index) == 5
    for row, (_, meta) in zip(rows, index.iterrows(), strict=True):
        assert row.startswith(f"| {meta['file']} |")
        assert f"| {meta['steady_state_run_label']} |" in row
        assert ("| similar |" in row) or ("| dissimilar |" in row)
