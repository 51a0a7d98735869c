"""`ordertrap-gate calibrate` as a real process on trial logs in the gate's own format."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.files import calibration_json
from gate.model import CALIBRATION_SCHEMA, TRIAL_COLUMNS
from tests.conftest import REPO_ROOT

NOISE = {"quiet": 0.001, "wild": 0.2, "gappy": 0.002, "broken": 0.001}


def write_log(path: Path, versions: tuple[str, ...] = ("main", "HEAD")) -> Path:
    rng = np.random.default_rng(42)
    rows = []
    trial = 0
    for version in versions:
        shift = 1.0 if version == versions[0] else 1.10  # head is 10 % slower
        for s in (1, 2, 3):
            for name, noise in NOISE.items():
                for i in (1, 2, 3, 4):
                    trial += 1
                    if name == "gappy" and (s, i) == (3, 1):
                        rows.append(
                            {
                                "trial": trial,
                                "benchmark": name,
                                "version": version,
                                "instance": "ci-1",
                                "suite_run": s,
                                "order_type": "random",
                                "position": 1,
                                "iteration": i,
                                "measurement": 1,
                                "value": "",
                                "unit": "s",
                                "higher_is_better": "false",
                                "status": "timeout",
                                "reason": "killed after 60 s: raise [suite].timeout",
                                "started_at": "2026-11-26T00:00:00Z",
                                "elapsed_s": 60.0,
                                "config": "full",
                            }
                        )
                        continue
                    for m in (1, 2, 3):
                        value = 10.0 * shift * (1 + rng.normal(0, noise))
                        if name == "wild":
                            value = abs(value) + 0.1
                        if name == "broken":  # no usable value at all (a single bad one is a gap)
                            value = -1.0
                        rows.append(
                            {
                                "trial": trial,
                                "benchmark": name,
                                "version": version,
                                "instance": "ci-1",
                                "suite_run": s,
                                "order_type": "random",
                                "position": 1,
                                "iteration": i,
                                "measurement": m,
                                "value": value,
                                "unit": "s",
                                "higher_is_better": "false",
                                "status": "ok",
                                "reason": "",
                                "started_at": "2026-11-26T00:00:00Z",
                                "elapsed_s": 0.6,
                                "config": "full",
                            }
                        )
    pd.DataFrame(rows, columns=list(TRIAL_COLUMNS)).to_csv(path, index=False)
    return path


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gate", "calibrate", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_log(tmp_path / "trials.csv")


def test_calibration_file_follows_the_contract(log: Path, tmp_path: Path) -> None:
    out = tmp_path / ".ordertrap" / "calibration.json"
    proc = gate(str(log), "--metric", "cv", "--version", "main", "--out", str(out), "--discard-warmup", "1")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == CALIBRATION_SCHEMA
    assert {
        "tool_version",
        "created_at",
        "source",
        "metric",
        "threshold",
        "levels",
        "discard_warmup",
        "full",
        "benchmarks",
        "summary",
        "audit",
    } <= set(doc)
    assert doc["source"] == {"trials": [str(log)], "version": "main", "instance": "ci-1"}
    assert doc["levels"] == ["suite_run", "iteration", "measurement"]
    assert doc["discard_warmup"] == {"level": "measurement", "count": 1}
    assert doc["full"] == {"suite_run": 3, "iteration": 4, "measurement": 2}  # 3 measurements - 1 warm-up
    assert set(doc["benchmarks"]) == {"quiet", "wild", "gappy"}
    assert "zero or negative" in doc["skipped"]["broken"]
    quiet = doc["benchmarks"]["quiet"]
    assert {"config", "instability", "cost", "stable", "never_stable", "advice"} <= set(quiet)
    assert quiet["stable"] and quiet["advice"] is None
    # the smallest configuration a PR's verdict can decide with at 99 % (docs/calibration.md): 5
    # values and, where a trial holds several, 5 trials per version — not µOpTime's 3 values,
    # nor the 6 values of 3 trials of 2 (1 × 3 × 2), which no change could pass
    assert doc["settings"]["floor"] == {"values": 5, "trials": 5, "confidence": 0.99, "max_rounds": 0}
    assert doc["settings"]["min_values"] == 5
    config = quiet["config"]
    assert math.prod(config.values()) == 6  # (2, 3, 1) or (3, 2, 1): 6 trials of one value
    assert config["measurement"] == 1 and config["suite_run"] * config["iteration"] == 6
    assert quiet["cost"] == pytest.approx(6 * 0.2)  # 6 measurements × (0.6 s / 3 rows per trial)
    # stability alone would have taken 3 values: the file says why it did not
    assert math.prod(quiet["below_floor"]["config"].values()) == 3
    assert "fewer than 5" in quiet["below_floor"]["reason"]
    wild = doc["benchmarks"]["wild"]
    assert wild["never_stable"] and wild["config"] == doc["full"] and "repetitions" in wild["advice"]
    summary = doc["summary"]
    assert summary["cost_unit"] == "s" and summary["n_benchmarks"] == 3 and summary["n_never_stable"] == 1
    assert 0 < summary["saved_pct"] < 100
    assert any(w["code"] == "failed-trials" for w in doc["warnings"])
    assert all({"code", "message", "action"} == set(w) for w in doc["warnings"])
    # the run engine's reader accepts it
    cal = calibration_json.read(out)
    assert cal.config_for("quiet") == quiet["config"]
    assert cal.config_for("new-benchmark") is None
    assert cal.discard_warmup == {"level": "measurement", "count": 1}
    assert "never stable" in proc.stdout and "not calibrated: broken" in proc.stdout


def test_the_floor_for_pull_requests_with_follow_up_rounds(log: Path, tmp_path: Path) -> None:
    """Every look of a PR with 3 rounds decides at 99.75 %: 6 values and 6 trials per version."""
    out = tmp_path / "rounds.json"
    proc = gate(
        str(log), "--version", "main", "--out", str(out), "--pr-max-rounds", "3", "--resamples", "1000"
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["settings"]["floor"] == {"values": 6, "trials": 6, "confidence": 0.9975, "max_rounds": 3}
    config = doc["benchmarks"]["quiet"]["config"]
    assert config["suite_run"] * config["iteration"] >= 6 and math.prod(config.values()) >= 6


def test_several_versions_without_a_choice_name_the_flag(log: Path, tmp_path: Path) -> None:
    proc = gate(str(log), "--out", str(tmp_path / "c.json"))
    assert proc.returncode == 2
    assert "2 versions" in proc.stderr and "--version" in proc.stderr
    assert not (tmp_path / "c.json").exists()


def test_audit_replays_the_version_pair(log: Path, tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    proc = gate(str(log), "--metric", "rmad", "--audit", "--out", str(out), "--resamples", "2000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == "main"  # calibrated on the first version
    (pair,) = doc["audit"]["pairs"]
    assert (pair["base"], pair["head"]) == ("main", "HEAD")
    assert pair["full_changes"] >= 2  # quiet and gappy are 10 % slower
    assert pair["tp"] + pair["fp"] + pair["fn"] + pair["tn"] == pair["n"] == 3
    assert "agreement" in proc.stdout


def test_the_audit_is_not_inconclusive_by_construction(log: Path, tmp_path: Path) -> None:
    """gappy is stable with 3 values (µOpTime's choice) and its 10 % slowdown is clear; the chosen
    configuration must be one the gate's verdict can decide with (not 3 trials of 2 values, the
    cheapest with 5 values), so the audit's minimal verdict is the full configuration's
    regression, not an `inconclusive` that no data could change."""
    out = tmp_path / "c.json"
    proc = gate(str(log), "--audit", "--out", str(out), "--resamples", "2000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    (pair,) = doc["audit"]["pairs"]
    assert pair["verdicts"]["gappy"] == {"full": "regression", "minimal": "regression"}
    assert pair["verdicts"]["quiet"] == {"full": "regression", "minimal": "regression"}
    assert (
        "decidable floor: 2 benchmark(s)" in proc.stdout and "  gappy: stable at 1×3×1, but " in proc.stdout
    )


def test_missing_levels_give_the_flag_to_use(tmp_path: Path) -> None:
    tidy = tmp_path / "tidy.csv"
    pd.DataFrame({"benchmark": ["a"] * 3, "run": [1, 2, 3], "ns": [1.0, 1.1, 1.2]}).to_csv(tidy, index=False)
    proc = gate(str(tidy), "--out", str(tmp_path / "c.json"))
    assert proc.returncode == 2
    assert "--levels" in proc.stderr and "--value" in proc.stderr


def test_one_measurement_per_benchmark_is_refused_with_a_fix(tmp_path: Path) -> None:
    tidy = tmp_path / "tidy.csv"
    pd.DataFrame({"benchmark": ["a", "b"], "run": [1, 1], "ns": [1.0, 2.0]}).to_csv(tidy, index=False)
    proc = gate(str(tidy), "--levels", "run", "--value", "ns", "--out", str(tmp_path / "c.json"))
    assert proc.returncode == 2
    assert "only 1 measurement" in proc.stderr and "fix:" in proc.stderr


def test_audit_takes_base_and_head_from_meta_json(log: Path, tmp_path: Path) -> None:
    (log.parent / "meta.json").write_text(json.dumps({"schema_version": 2, "base": "HEAD", "head": "main"}))
    out = tmp_path / "c.json"
    proc = gate(str(log), "--audit", "--out", str(out), "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == "HEAD"
    assert [(p["base"], p["head"]) for p in doc["audit"]["pairs"]] == [("HEAD", "main")]


def test_audit_calibrates_on_the_first_version_whatever_version_is_written(log: Path, tmp_path: Path) -> None:
    # The nightly workflow writes the head's calibration (--version head) and audits base -> head:
    # the audit must still reuse configurations chosen on base (µOpTime RQ4, forward replay).
    (log.parent / "meta.json").write_text(json.dumps({"schema_version": 2, "base": "HEAD", "head": "main"}))
    out = tmp_path / "c.json"
    proc = gate(str(log), "--audit", "--version", "main", "--out", str(out), "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == "main"
    assert doc["audit"]["calibrated_on"] == "HEAD"


def test_a_benchmark_whose_every_trial_failed_is_listed_and_printed(log: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(log, dtype=str, keep_default_na=False)
    frame = frame[frame["version"] == "main"]
    dead = frame["benchmark"] == "quiet"
    frame = frame[~dead | (frame["measurement"] == "1")].copy()  # a failed trial is one row
    dead = frame["benchmark"] == "quiet"
    frame.loc[dead, ["value", "status", "reason"]] = ["", "error", "boom"]
    path = tmp_path / "h.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "h.json"
    proc = gate(str(path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert "quiet" not in doc["benchmarks"]
    assert "all 12 trials failed" in doc["skipped"]["quiet"] and "error: boom" in doc["skipped"]["quiet"]
    assert doc["summary"]["n_skipped"] == 2  # quiet and broken
    assert "not calibrated: quiet: all 12 trials failed" in proc.stdout


def test_two_logs_of_one_run_name_the_real_fix(log: Path, tmp_path: Path) -> None:
    second = tmp_path / "L2.csv"
    second.write_text(log.read_text().replace("2026-", "2027-"))
    proc = gate(str(log), str(second), "--version", "main", "--out", str(tmp_path / "c.json"))
    assert proc.returncode == 2
    assert "L2.csv" in proc.stderr and "one log" in proc.stderr
    assert "select one version and instance" not in proc.stderr


def test_a_cut_off_last_line_is_reported_with_its_line(log: Path, tmp_path: Path) -> None:
    text = log.read_text()
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 12])
    lines = text.count("\n")
    proc = gate(str(cut), "--version", "HEAD", "--out", "-")
    assert proc.returncode == 0, proc.stderr
    assert f"line {lines}" in proc.stderr and "cut off" in proc.stderr
    assert "calibrated configuration" not in proc.stderr
