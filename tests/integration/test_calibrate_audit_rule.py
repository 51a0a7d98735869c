"""`calibrate --audit` decides as `analyze` does, and says which version it calibrated on."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.model import TRIAL_COLUMNS
from tests.conftest import REPO_ROOT
from tests.integration.test_calibrate_cli import gate, write_log


def _row(trial: int, name: str, version: str, s: int, i: int, value: float) -> dict[str, object]:
    return {
        "trial": trial, "benchmark": name, "version": version, "instance": "ci-1", "suite_run": s,
        "order_type": "random", "position": 1, "iteration": i, "measurement": 1, "value": value,
        "unit": "ns", "higher_is_better": "false", "status": "ok", "reason": "",
        "started_at": "2026-11-26T00:00:00Z", "elapsed_s": 0.1, "config": "full", "round": 0,
    }  # fmt: skip


def outlier_log(path: Path) -> Path:
    """'tail': head has the same median as base but 6 of 15 values are slow outliers, so its mean
    is ~12 % higher with a disjoint mean CI; 'slower': 10 % slower throughout."""
    rng = np.random.default_rng(7)
    rows = []
    trial = 0
    for version in ("main", "HEAD"):
        for name in ("tail", "slower"):
            values = rng.normal(100.0, 0.1, 15)
            if version == "HEAD" and name == "tail":
                values[[1, 4, 6, 9, 11, 14]] = 130.0
            if version == "HEAD" and name == "slower":
                values *= 1.10
            for k, v in enumerate(values):
                trial += 1
                rows.append(_row(trial, name, version, k // 5 + 1, k % 5 + 1, float(v)))
    pd.DataFrame(rows, columns=list(TRIAL_COLUMNS)).to_csv(path, index=False)
    (path.parent / "meta.json").write_text(json.dumps({"schema_version": 2, "base": "main", "head": "HEAD"}))
    return path


def analyze_verdicts(log: Path, tmp_path: Path) -> dict[str, str]:
    out = tmp_path / "analysis.json"
    proc = subprocess.run(
        [sys.executable, "-m", "gate", "analyze", str(log), "--json", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return {b["benchmark"]: b["verdict"] for b in json.loads(out.read_text())["benchmarks"]}


@pytest.mark.slow
def test_the_audit_reaches_analyzes_verdicts_on_the_same_log(tmp_path: Path) -> None:
    log = outlier_log(tmp_path / "trials.csv")
    expected = analyze_verdicts(log, tmp_path)
    assert expected["slower"] == "regression" and expected["tail"] != "regression"
    out = tmp_path / "c.json"
    proc = gate(str(log), "--metric", "cv", "--audit", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (pair,) = json.loads(out.read_text())["audit"]["pairs"]
    # a mean-based rule calls 'tail' a regression; the gate's median rule does not
    assert pair["full_changes"] == sum(v == "regression" for v in expected.values()) == 1
    assert {n: v["full"] for n, v in pair["verdicts"].items()} == expected
    assert "analyze's verdict rule" in proc.stdout


def test_the_audit_says_when_it_calibrated_on_another_version_than_version(tmp_path: Path) -> None:
    log = write_log(tmp_path / "trials.csv")
    out = tmp_path / "c.json"
    proc = gate(str(log), "--audit", "--version", "HEAD", "--out", str(out), "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == "HEAD" and doc["audit"]["calibrated_on"] == "main"
    (w,) = [w for w in doc["warnings"] if w["code"] == "audit-calibrated-elsewhere"]
    assert "--version HEAD" in w["message"] and "leave out --version (or pass --version main)" in w["action"]
    assert "LATER" not in w["action"]  # the fix needs no later log (a nightly has none)
    assert "the audit calibrated on main" in proc.stdout


def nightly_calibrate_args() -> list[str]:
    """The arguments of the nightly workflow's `calibrate` (examples/workflows/perf-nightly.yml),
    after the trial log."""
    text = (REPO_ROOT / "examples" / "workflows" / "perf-nightly.yml").read_text()
    command = re.search(
        r'ordertrap-gate" calibrate "\$TRIALS/trials.csv" (.*?)\n(?!\s+--)', text + "\n", re.S
    )
    assert command is not None
    return [a for a in shlex.split(command.group(1).replace("\\\n", " ")) if a != "\\"]


def test_the_nightlys_calibration_holds_the_configurations_its_audit_checked(tmp_path: Path) -> None:
    """The nightly measures the previous commit (base) and the current one (head) and audits
    base → head; its calibrate command must give a file whose audit describes the configurations
    it holds, with no warning whose fix the nightly cannot follow."""
    args = nightly_calibrate_args()
    assert "--audit" in args and "--version" not in args
    log = write_log(tmp_path / "trials.csv")
    out = tmp_path / "calibration.json"
    args = [a if a != "calibration/calibration.json" else str(out) for a in args]
    proc = gate(str(log), *args, "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == doc["audit"]["calibrated_on"] == "main"
    assert not [w for w in doc["warnings"] if w["code"] == "audit-calibrated-elsewhere"]


def process_level_log(path: Path) -> Path:
    """'phases': a null pair whose values are close to their process's own level, where head's
    processes happened to land in the slow phase more often than base's (6 trials × 5 values per
    version): flat resampling calls it a regression, resampling by trial does not."""
    rng = np.random.default_rng(1)
    levels = {"main": [1.0, 1.02, 1.3, 0.99, 1.01, 0.98], "HEAD": [1.3, 1.28, 1.0, 1.31, 1.29, 1.32]}
    rows = []
    trial = 0
    for version, speeds in levels.items():
        for k, speed in enumerate(speeds):
            trial += 1
            for m in range(1, 6):
                row = _row(
                    trial,
                    "phases",
                    version,
                    k // 3 + 1,
                    k % 3 + 1,
                    100.0 * speed * (1 + rng.normal(0, 0.002)),
                )
                rows.append({**row, "measurement": m})
    pd.DataFrame(rows, columns=list(TRIAL_COLUMNS)).to_csv(path, index=False)
    (path.parent / "meta.json").write_text(json.dumps({"schema_version": 2, "base": "main", "head": "HEAD"}))
    return path


@pytest.mark.slow
def test_the_audit_resamples_by_trial_where_analyze_does(tmp_path: Path) -> None:
    # analyze's default (`--bootstrap auto`) resamples a benchmark by trial where its trials
    # differ; the audit must see the same trials to reach the same verdict.
    log = process_level_log(tmp_path / "trials.csv")
    expected = analyze_verdicts(log, tmp_path)
    doc = json.loads((tmp_path / "analysis.json").read_text())
    assert doc["benchmarks"][0]["bootstrap"]["scheme"] == "two-level"
    assert expected == {"phases": "inconclusive"}
    out = tmp_path / "c.json"
    proc = gate(str(log), "--metric", "cv", "--audit", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (pair,) = json.loads(out.read_text())["audit"]["pairs"]
    assert {n: v["full"] for n, v in pair["verdicts"].items()} == expected
