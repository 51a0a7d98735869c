"""Nights decided by different statistics are not compared with each other: the 10th percentile
of right-skewed timings sits well below their median with no change in performance, so a history
whose [suite] statistic changed from median to p10 must not show a change point there
(gate/history/series.py; docs/history.md "Series")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gate.cli import main
from tests.fakes.nightly import write_night

NIGHTS = 16
CHANGED_AT = 9  # nights 1-8 decided by the median, 9-16 by p10


def _history(root: Path) -> Path:
    store = root / "store"
    rng = np.random.default_rng(11)
    for k in range(1, NIGHTS + 1):
        # measurement noise of 5 %: the 10th percentile lies about 6 % below the median
        trials = write_night(root / f"night-{k}", k, {"steady": {}}, rng, suite_runs=2, noise=0.05)
        meta_path = trials.parent / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta["statistic"] = "median" if k < CHANGED_AT else "p10"  # [suite] statistic of that night
        meta_path.write_text(json.dumps(meta))
        assert main(["history", "add", str(trials), "--store", str(store)]) == 0
    return store


def test_a_change_of_statistic_is_no_change_point(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    store = _history(tmp_path)
    out = tmp_path / "changes.json"
    assert main(["history", "changes", "--store", str(store), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["change_points"] == [] and doc["pending"] == []
    # one series per statistic, both long enough to be tested, and the change named once
    assert doc["short_series"] == [] and doc["n_series"] == 2
    (warning,) = [w for w in doc["warnings"] if "statistic changed" in w]
    assert "statistic changed: median → p10 at " in warning and "steady" in warning

    page = tmp_path / "index.html"
    capsys.readouterr()
    assert main(["history", "report", "--store", str(store), "--out", str(page)]) == 0
    html = page.read_text()
    assert "statistic changed: median → p10" in html
    assert "steady [nightly-runner] (median)" in html and "steady [nightly-runner] (p10)" in html
