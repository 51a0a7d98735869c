"""Pipeline pieces that join stages: warm-up positions a calibrated run executed, and suite-wide
carry-over reaching the analysis document."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.errors import InputError


def _log(tmp_path, rows, meta=None):
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    if meta is not None:
        (tmp_path / "meta.json").write_text(json.dumps(meta))
    return path


def _row(trial, bench, version, suite_run, position, iteration, measurement, value):
    return {
        "trial": trial, "benchmark": bench, "version": version, "instance": "h", "suite_run": suite_run,
        "order_type": "random", "position": position, "iteration": iteration, "measurement": measurement,
        "value": value, "unit": "s", "higher_is_better": False, "status": "ok", "reason": "",
        "started_at": "", "elapsed_s": value, "config": "calibration",
    }  # fmt: skip


def test_iteration_level_warmup_is_dropped_before_comparing(tmp_path):
    # Iteration 1 of every suite run is a slow warm-up in head only; calibration said to drop one
    # iteration, so the comparison must see two identical distributions.
    rng = np.random.default_rng(0)
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2, 3, 4, 5, 6):
                t += 1
                value = 1.0 + rng.normal(0, 0.002)
                if it == 1 and version == "head":
                    value *= 3.0
                rows.append(_row(t, "b", version, run, t, it, 1, value))
    meta = {
        "schema_version": 1,
        "base": "base",
        "head": "head",
        "benchmark_configs": {"b": {"suite_run": 3, "iteration": 5, "measurement": 1, "source": "calibration",
                                    "discard_warmup": 1, "warmup_level": "iteration"}},
    }  # fmt: skip
    settings = AnalysisSettings(resamples=2000, seed=1)
    dropped = build_analysis(
        load_trials([_log(tmp_path, rows, meta)]), base="base", head="head", settings=settings
    )
    entry = dropped["benchmarks"][0]
    assert entry["base"]["n"] == 15 and entry["head"]["n"] == 15
    assert max(entry["samples"]["head"]["value"]) < 1.5

    meta["benchmark_configs"]["b"]["discard_warmup"] = 0
    kept = build_analysis(
        load_trials([_log(tmp_path, rows, meta)]), base="base", head="head", settings=settings
    )
    assert kept["benchmarks"][0]["head"]["n"] == 18


def test_suite_wide_carryover_reaches_top_level_warnings(tmp_path):
    # Whatever runs right after "leaker" is 30 % faster; every benchmark pools into the suite test.
    rng = np.random.default_rng(3)
    names = ["leaker", "a", "b", "c", "d"]
    rows, t = [], 0
    for run in range(1, 9):
        cells = [(n, v) for n in names for v in ("base", "head")]
        order = rng.permutation(len(cells))
        previous = None
        for position, k in enumerate(order, start=1):
            name, version = cells[k]
            t += 1
            value = 1.0 + rng.normal(0, 0.01)
            if previous == "leaker":
                value *= 0.7
            rows.append(_row(t, name, version, run, position, 1, 1, value))
            previous = name
    analysis = build_analysis(
        load_trials([_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=1000, seed=1),
    )
    suite = analysis["carryover_suite"]
    assert suite is not None
    codes = [w["code"] for w in analysis["warnings"]]
    assert "carryover_suite" in codes
    assert any("leaker" in w["message"] for w in analysis["warnings"] if w["code"] == "carryover_suite")


def test_a_version_with_only_non_positive_values_fails_instead_of_vanishing(tmp_path):
    # A throughput benchmark whose head reports 0 MB/s everywhere is broken, not "new in base".
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2, 3):
                t += 1
                rows.append(_row(t, "tput", version, run, t, it, 1, 100.0 + it if version == "base" else 0.0))
                t += 1
                rows.append(_row(t, "ok", version, run, t, it, 1, 1.0 + it / 1000))
    analysis = build_analysis(
        load_trials([_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=500, seed=1),
    )
    verdicts = {b["benchmark"]: b["verdict"] for b in analysis["benchmarks"]}
    assert verdicts["tput"] == "failed"
    assert analysis["summary"]["decision"] != "pass"
    assert not any(w["code"] == "one_version_only" for w in analysis["warnings"])


def test_the_same_log_twice_counts_once(tmp_path):
    rows = [_row(t, "b", v, 1, t, t, 1, 1.0 + t / 100) for t, v in enumerate(["base", "head"] * 4, start=1)]
    path = _log(tmp_path, rows)
    copy = tmp_path / "copy.csv"
    copy.write_text(path.read_text())
    logs = load_trials([path, copy])
    assert len(logs.frame) == len(rows)
    assert any(w["code"] == "duplicate_trials" for w in logs.warnings)
    # two runners' logs that only share values are both kept
    other = tmp_path / "other.csv"
    pd.DataFrame([{**r, "instance": "runner2"} for r in rows]).to_csv(other, index=False)
    assert len(load_trials([path, other]).frame) == 2 * len(rows)


def test_a_benchmark_added_in_head_is_listed_not_failed(tmp_path):
    # run writes status `skipped` for a benchmark that does not exist in a version.
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2):
                t += 1
                rows.append(_row(t, "old", version, run, t, it, 1, 1.0 + it / 1000))
                t += 1
                new = _row(t, "new", version, run, t, it, 1, 2.0 + it / 1000)
                if version == "base":
                    new.update(
                        value="", status="skipped", reason="benchmark new does not exist in version base"
                    )
                rows.append(new)
    analysis = build_analysis(
        load_trials([_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=500, seed=1),
    )
    assert [b["benchmark"] for b in analysis["benchmarks"]] == ["old"]
    assert any(w["code"] == "one_version_only" and "new" in w["message"] for w in analysis["warnings"])


def test_one_unreadable_log_among_several_is_skipped_with_a_warning(tmp_path):
    good = _log(tmp_path, [_row(t, "b", v, 1, t, t, 1, 1.0) for t, v in enumerate(["base", "head"] * 3, 1)])
    bad = tmp_path / "bad.csv"
    bad.write_text("benchmark,score\nb,1\n")
    logs = load_trials([good, bad])
    assert len(logs.frame) == 6
    (w,) = [w for w in logs.warnings if w["code"] == "unreadable_log"]
    assert "bad.csv" in w["message"] and "value" in w["message"] and w["action"]
    with pytest.raises(InputError, match="lacks the required column"):
        load_trials([bad])
