"""Through the real ``analyze``: a benchmark whose head trials met interference does not fail the
gate as "far noisier in head", one that the change made noisy in every trial does, and the
analysis.json carries each value's trial and suite run so that ``publish`` re-derives the same
count (gate/decision.py ``noisy_in_head``; docs/statistics.md "How the gate decides")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gate.cli import main
from gate.errors import InputError
from gate.files import analysis_json
from tests.fakes.trial_logs import csv_log, csv_row

QUIET = [1.0, 1.002, 0.998, 1.001, 0.999, 1.0]


def _analyze(tmp_path: Path, head_levels: list[float], head_noise: float) -> dict:
    """2 suite runs × 3 trial slots, base then head in each, 5 values per trial (process)."""
    rng = np.random.default_rng(3)
    rows, trial = [], 0
    levels = {"v1": (QUIET, 0.005), "v2": (head_levels, head_noise)}
    for slot in range(6):
        for version, (level, noise) in levels.items():
            trial += 1
            for m in range(5):
                value = float(level[slot] * np.exp(rng.normal(0.0, noise)))
                rows.append(csv_row(trial, "parse", version, slot // 3 + 1, 1, slot % 3 + 1, m + 1, value))
    out = tmp_path / "analysis.json"
    argv = ["analyze", str(csv_log(tmp_path, rows)), "--base", "v1", "--head", "v2", "--json", str(out)]
    assert main([*argv, "--resamples", "500"]) == 0
    return json.loads(out.read_text())


def test_interference_on_some_head_trials_does_not_fail_the_gate(tmp_path: Path) -> None:
    # A/A: head's trials 2, 3 and 5 were slowed as a whole by 12-30 %
    doc = _analyze(tmp_path, [1.0, 1.12, 1.3, 1.001, 1.21, 1.0], 0.005)
    (parse,) = doc["benchmarks"]
    assert parse["verdict"] == "inconclusive"
    assert "noisy_head" not in [w["code"] for w in parse["warnings"]]
    assert doc["summary"]["noisy_in_head"] == 0 and doc["summary"]["decision"] == "inconclusive"
    head = parse["samples"]["head"]
    assert len(set(head["trial"])) == 6 and sorted(set(head["suite_run"])) == [0, 1]
    assert analysis_json.parse(json.dumps(doc))["summary"]["noisy_in_head"] == 0
    # a file of a gate before the test over trials (no trial labels in its samples) keeps the
    # decision that gate made: every value an independent draw, so "far noisier"
    for role in ("base", "head"):
        for key in ("trial", "suite_run"):
            del parse["samples"][role][key]
    doc["summary"]["noisy_in_head"] = 1
    assert analysis_json.parse(json.dumps(doc))["summary"]["noisy_in_head"] == 1


def test_a_head_noisy_in_every_trial_fails_the_gate(tmp_path: Path) -> None:
    doc = _analyze(tmp_path, QUIET, 0.05)
    (parse,) = doc["benchmarks"]
    assert parse["verdict"] == "inconclusive"
    (noisy,) = [w for w in parse["warnings"] if w["code"] == "noisy_head"]
    assert "reassigning whole trials (6/6 per version)" in noisy["message"]
    assert doc["summary"]["noisy_in_head"] == 1 and doc["summary"]["decision"] == "fail"
    assert analysis_json.parse(json.dumps(doc))["summary"]["noisy_in_head"] == 1
    # a summary that does not match the benchmarks' trials is refused, not published as a pass
    doc["summary"]["noisy_in_head"] = 0
    with pytest.raises(InputError, match="noisy_in_head is 0 but 1"):
        analysis_json.parse(json.dumps(doc))
    # labels that do not fit the values are refused by name
    parse["samples"]["head"]["trial"] = parse["samples"]["head"]["trial"][:-1]
    with pytest.raises(InputError, match=r"samples\.head\.trial is not a list"):
        analysis_json.parse(json.dumps(doc))
