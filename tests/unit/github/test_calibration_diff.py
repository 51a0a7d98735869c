"""The nightly recalibration PR's body (``ordertrap-gate calibration-diff OLD NEW``): the exact
Markdown per scenario (golden files), and benchmark names that stay inert text."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gate.github import calibration_diff
from gate.github.calibration_diff import diff_markdown
from tests.conftest import GOLDEN_DIR, check_golden
from tests.fakes import analyses


def _changed(old: dict[str, Any], configs: dict[str, dict[str, int]]) -> dict[str, Any]:
    new = copy.deepcopy(old)
    for name, config in configs.items():
        new["benchmarks"].setdefault(name, copy.deepcopy(next(iter(old["benchmarks"].values()))))
        new["benchmarks"][name]["config"] = config
    new["summary"]["saved_pct"] = 64.25
    return new


def _audited(calibration: dict[str, Any]) -> dict[str, Any]:
    calibration = copy.deepcopy(calibration)
    calibration["audit"] = {
        "rule": {"threshold_pct": 3.0, "confidence": 0.99, "statistic": "mean"},
        "calibrated_on": "v1",
        "versions": ["v1", "v2"],
        "pairs": [
            {"base": "v1", "head": "v2", "n": 5, "full_changes": 2, "min_changes": 2, "tp": 2, "fp": 0,
             "fn": 0, "tn": 3, "fpr": 0.0, "fnr": 0.0, "agreement_pct": 100.0, "disagreements": []},
        ],
    }  # fmt: skip
    return calibration


def _audited_decided(calibration: dict[str, Any], decided: int) -> dict[str, Any]:
    """An audit of today's shape: agreement over the full configuration's decided verdicts, and
    the follow-up rounds the minimal configuration got."""
    calibration = _audited(calibration)
    pair = calibration["audit"]["pairs"][0]
    pair.update(
        decided=decided,
        minimal_decided=decided and 4,
        agreement_decided_pct=100.0 * 4 / decided if decided else None,
        rounds={"rounds": 2, "followed": 3, "budget_s": 900.0, "used_s": 610.0, "capped": 0,
                "stop": "all_resolved", "confidence_per_look": 0.9975},
    )  # fmt: skip
    if not decided:
        pair.update(full_changes=0, min_changes=0, tp=0)
    return calibration


def _hostile() -> tuple[dict[str, Any], dict[str, Any]]:
    names = [
        "@octocat please look",
        "fix #123 | col",
        "<script>alert(1)</script>",
        "[click](https://evil.example)",
        "``tick`` and *star* _under_",
        "line\nbreak",
    ]
    old = analyses.calibration_document(names)
    return old, _changed(old, {name: {"suite_run": 3, "iteration": 5, "measurement": 1} for name in names})


def _scenarios() -> dict[str, tuple[dict[str, Any] | None, dict[str, Any]]]:
    old = analyses.calibration_document()
    changed = _changed(
        old,
        {
            "parse": {"suite_run": 3, "iteration": 5, "measurement": 5},
            "added": {"suite_run": 2, "iteration": 1},
        },
    )
    del changed["benchmarks"]["render"]  # removed from the suite
    return {
        "first": (None, old),
        "unchanged": (old, copy.deepcopy(old)),
        "changed": (old, changed),
        "audited": (old, _audited(changed)),
        "audited_decided": (old, _audited_decided(changed, 5)),
        "audited_none_decided": (old, _audited_decided(changed, 0)),
        "hostile_names": _hostile(),
    }


SCENARIOS = _scenarios()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_golden_calibration_diff(scenario, update_golden):
    old, new = SCENARIOS[scenario]
    check_golden(GOLDEN_DIR / f"calibration_diff.{scenario}.md", diff_markdown(old, new), update_golden)


def test_long_diffs_are_cut_with_a_count_of_the_rest(monkeypatch):
    monkeypatch.setattr(calibration_diff, "MAX_ROWS", 2)
    old, new = SCENARIOS["changed"]
    text = diff_markdown(old, new)
    assert "| added |" in text and "| parse |" in text and "| render |" not in text
    assert "| … 1 more | | | |" in text


def test_an_audit_with_missing_numbers_shows_dashes():
    old, new = SCENARIOS["changed"]
    new = copy.deepcopy(new)
    new["audit"] = {"pairs": [{"base": "v1", "head": "v2", "n": True}, "not a pair"]}
    text = diff_markdown(old, new)
    assert "- v1 → v2: the same verdict for — of — benchmarks" in text
    assert "not a pair" not in text


def test_a_corrupt_old_calibration_is_named_not_called_the_first(tmp_path, capsys):
    from gate.cli import main

    (tmp_path / "new.json").write_text(json.dumps(analyses.calibration_document()))
    (tmp_path / "old.json").write_text('{"schema_version": 1, "benchmarks": ')
    assert main(["calibration-diff", str(tmp_path / "old.json"), str(tmp_path / "new.json")]) == 0
    out = capsys.readouterr().out
    assert "First calibration" not in out
    assert "The committed calibration could not be read" in out and "old.json" in out
