"""One piece of advice per benchmark, from a real analysis to the reports: a
benchmark that ran a calibrated minimal configuration is never told to raise
[full].iterations (which does not change what it runs), one whose values drift with their
position in the run is told about the drift, not about more values, and a next step shared by
several benchmarks on one comment line reads right for all of them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.analysis.remedies import FULL_REMEDY, calibrated_remedy
from gate.render import render
from gate.render.terminal import benchmark_table
from tests.fakes import analyses
from tests.fakes.trial_logs import csv_log, csv_row


@pytest.fixture(scope="module")
def calibrated_noisy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Five calibrated benchmarks over 8 suite runs in random order: ``drifty`` gets 3 % slower
    with each position in its suite run (noisy and inconclusive through the drift), ``noisy``
    varies ~15 % at random (inconclusive), the rest are stable."""
    rng = np.random.default_rng(5)
    names = ["drifty", "noisy", "a", "b", "c"]
    rows, t = [], 0
    for run in range(1, 9):
        cells = [(n, v, it) for n in names for v in ("base", "head") for it in (1, 2)]
        for position, k in enumerate(rng.permutation(len(cells)), start=1):
            name, version, it = cells[k]
            t += 1
            value = 1.0 + rng.normal(0, 0.005)
            if name == "drifty":
                value *= 1 + 0.03 * position
            elif name == "noisy":
                value *= float(np.exp(rng.normal(0, 0.15)))
            rows.append(csv_row(t, name, version, run, position, it, 1, value))
    config = {"suite_run": 8, "iteration": 2, "measurement": 1, "source": "calibration"}
    meta = {
        "schema_version": 2,
        "base": "base",
        "head": "head",
        "benchmark_configs": {n: config for n in names},
    }
    tmp = tmp_path_factory.mktemp("calibrated_noisy")
    return build_analysis(
        load_trials([csv_log(tmp, rows, meta)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=2000, seed=1),
    )


def _entry(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in doc["benchmarks"] if b["benchmark"] == name)


def test_the_data_shows_what_the_advice_is_about(calibrated_noisy: dict[str, Any]) -> None:
    drifty, noisy = _entry(calibrated_noisy, "drifty"), _entry(calibrated_noisy, "noisy")
    assert drifty["verdict"] == noisy["verdict"] == "inconclusive"
    assert {w["code"] for w in drifty["warnings"]} >= {"unstable", "position_drift"}
    assert "unstable" in {w["code"] for w in noisy["warnings"]}
    assert "position_drift" not in {w["code"] for w in noisy["warnings"]}


def test_a_calibrated_benchmark_is_never_told_to_raise_full_iterations(
    calibrated_noisy: dict[str, Any],
) -> None:
    """[full] does not change what a calibrated minimal configuration runs: neither its reason nor
    its noise warning may send the user there (the noise warning said "more values
    ([full].iterations) narrow the CI")."""
    for name in ("drifty", "noisy"):
        entry = _entry(calibrated_noisy, name)
        texts = [entry["reason"]] + [w["action"] for w in entry["warnings"]]
        assert not any("[full].iterations" in t or "[full].suite_runs" in t for t in texts), texts
    for fmt in ("comment", "summary", "html"):
        text = render(calibrated_noisy, fmt)  # type: ignore[arg-type]
        assert "iterations" not in text.replace("warm-up iterations", ""), fmt


def test_a_drifting_benchmark_is_advised_about_the_drift(calibrated_noisy: dict[str, Any]) -> None:
    """Its next step is the drift's own action, and its noise warning points at the drift first
    instead of offering more values (which keep the drift)."""
    drifty = _entry(calibrated_noisy, "drifty")
    drift_action = next(w["action"] for w in drifty["warnings"] if w["code"] == "position_drift")
    noise_action = next(w["action"] for w in drifty["warnings"] if w["code"] == "unstable")
    assert "position-drift warning" in noise_action and "more values narrow" not in noise_action
    noisy_action = next(
        w["action"] for w in _entry(calibrated_noisy, "noisy")["warnings"] if w["code"] == "unstable"
    )
    assert "position-drift" not in noisy_action  # no drift named for it: the plain noise advice
    comment = render(calibrated_noisy, "comment")
    line = next(x for x in comment.splitlines() if x.startswith("- 🟡 `drifty`"))
    assert "which more values do not remove" in line and drift_action.split(":")[0] in line
    assert "would resolve" not in line


def _inconclusive(name: str, reason_fix: str, **kw: Any) -> dict[str, Any]:
    return analyses.benchmark(
        name,
        "inconclusive",
        change_pct=2.0,
        reason=f"the 99% CI of the change [-1.0%, +5.0%] is too wide to rule out a 3% change — {reason_fix}",
        **kw,
    )


DRIFT = {
    "code": "position_drift",
    "message": "it drifts with its position in the run",
    "action": "add a cool-down or reset between trials",
}
SINGULAR = ("this benchmark", "it ran", "its values", "resolve it")


def test_a_step_shared_by_several_benchmarks_reads_right_for_all_of_them() -> None:
    """The comment names every benchmark with the same next step on one line: the step must not
    speak of one benchmark ("run this benchmark without --calibration", "its values depend on
    when it ran", "would resolve it") there, and still does on a line of its own."""
    cal = analyses.calibration_config(1, 2, 1)
    followup = {
        "rounds": 1,
        "extra_values": {"base": 5, "head": 5},
        "unresolved": {"reason": "budget_spent", "detail": "", "values_needed": 90, "needs_s": 1500.0},
    }
    adaptive = {
        "budget_s": 900.0,
        "used_s": 880.0,
        "planned_s": 180.0,
        "followup_s": 700.0,
        "full_s": 2460.0,
        "rounds": 1,
        "max_rounds": 3,
        "rule": {"name": "bonferroni-looks", "confidence": 0.99, "looks": 2, "confidence_per_look": 0.995},
        "stop_reason": "budget_spent",
    }
    other_drift = {**DRIFT, "action": "check the runner for thermal throttling"}
    doc = analyses.analysis(
        [
            _inconclusive("cal_1", calibrated_remedy(None), config=cal),
            _inconclusive("cal_2", calibrated_remedy(None), config=cal),
            _inconclusive("drift_1", FULL_REMEDY, samples_needed=30, warnings=[DRIFT]),
            _inconclusive("drift_2", FULL_REMEDY, samples_needed=30, warnings=[DRIFT]),
            _inconclusive("budget_1", FULL_REMEDY, samples_needed=90, followup=followup),
            _inconclusive("budget_2", FULL_REMEDY, samples_needed=90, followup=followup),
            _inconclusive("alone", FULL_REMEDY, samples_needed=30, warnings=[other_drift]),
        ],
        adaptive=adaptive,
    )
    doc["summary"]["decision"] = "inconclusive"
    comment = render(doc, "comment")
    lines = [x for x in comment.splitlines() if x.startswith("- 🟡 ")]
    for pair in ("cal", "drift", "budget"):
        line = next(x for x in lines if f"`{pair}_1`, `{pair}_2`" in x)
        step = line.split(" → ", 1)[1]
        assert not any(s in step for s in SINGULAR), line
    assert "their values depend on when they ran" in next(x for x in lines if "`drift_1`" in x)
    assert "would resolve them" in next(x for x in lines if "`budget_1`" in x)
    alone = next(x for x in lines if "`alone`" in x)
    assert "`drift_1`" not in alone and "its values depend on when it ran" in alone


NOISY_HEAD = {
    "code": "noisy_head",
    "message": "x: head's values are 3.0× as spread as base's: this fails the gate like a regression",
    "action": "find what in this change makes the benchmark vary; if the noise is intended, a maintainer "
    "adds the accept label",
}


def test_a_benchmark_failing_the_gate_for_head_noise_is_not_told_more_values_resolve_it() -> None:
    """An inconclusive benchmark far noisier in head fails the gate (gate/decision.py): its line
    says so and what to do, not "about 30 values per version would resolve it" (which a
    benchmark without that noise beside it still gets)."""
    doc = analyses.analysis(
        [
            _inconclusive("spread", FULL_REMEDY, samples_needed=30, warnings=[NOISY_HEAD]),
            _inconclusive("short", FULL_REMEDY, samples_needed=30, seed=1),
        ]
    )
    doc["summary"]["decision"] = "fail"
    for fmt in ("comment", "summary"):
        text = render(doc, fmt)  # type: ignore[arg-type]
        line = next(x for x in text.splitlines() if x.startswith("- 🟡 ") and "`spread`" in x)
        assert "`short`" not in line
        assert "fails the gate: find what in this change makes the benchmark vary" in line, line
        assert "would resolve" not in line, line
        short = next(x for x in text.splitlines() if x.startswith("- 🟡 ") and "`short`" in x)
        assert "about 30 values per version would resolve it" in short, short


def test_the_cli_table_gives_the_step_the_reports_give() -> None:
    """``analyze``'s table said "about 25 min more would resolve it: --budget 40m" for a benchmark
    the comment told to fix its drift (more values keep it)."""
    doc = analyses.followup_rounds()
    query = next(b for b in doc["benchmarks"] if b["benchmark"] == "query")
    query["warnings"].append(DRIFT)
    table = benchmark_table(doc)
    line = next(x for x in table.splitlines() if x.startswith("  query: "))
    assert "the budget ran out" in line and "which more values do not remove: add a cool-down" in line, line
    assert "--budget" not in line and "would resolve" not in line, line
    flaky = next(x for x in table.splitlines() if x.startswith("  flaky_io: "))
    assert flaky.endswith(
        "about 90 min more would resolve it (about 4,000 values per version): --budget 1h45m"
    )
