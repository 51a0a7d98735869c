"""meta.json is read through the bounds .ordertrap.toml and the calibration are held to
(gate/files/run_meta.py): a per-benchmark threshold of 1e9 or a warm-up that covers every value
cannot turn a +20 % regression into `unchanged` or make the benchmark vanish. The real `analyze`
on a trial log with a hand-edited meta.json."""

from __future__ import annotations

import json

import numpy as np

from gate.cli import main
from tests.fakes.trial_logs import csv_log, csv_row


def _rows() -> list[dict]:
    rng = np.random.default_rng(3)
    rows, trial = [], 0
    for i in range(15):
        for position, (version, level) in enumerate((("v1", 100.0), ("v2", 120.0)), start=1):
            trial += 1
            value = float(level * np.exp(rng.normal(0, 0.01)))
            rows.append(csv_row(trial, "parse", version, 1, position, i + 1, 1, value))
    return rows


def _analyze(tmp_path, meta: dict) -> dict:
    log = csv_log(tmp_path, _rows(), meta={"schema_version": 2, "base": "v1", "head": "v2", **meta})
    out = tmp_path / "analysis.json"
    assert main(["analyze", str(log), "--json", str(out), "--resamples", "500"]) == 0
    return json.loads(out.read_text())


def _codes(doc: dict) -> list[str]:
    return [w["code"] for w in doc["warnings"]]


def test_a_threshold_of_1e9_in_meta_json_is_refused(tmp_path):
    doc = _analyze(tmp_path, {"thresholds": {"parse": 1e9}})
    (parse,) = doc["benchmarks"]
    assert parse["verdict"] == "regression" and doc["summary"]["decision"] == "fail"
    assert "meta_invalid" in _codes(doc)
    (w,) = [w for w in doc["warnings"] if w["code"] == "meta_invalid"]
    assert "thresholds" in w["message"] and "below 1000" in w["message"]


def test_a_warmup_covering_every_value_in_meta_json_is_refused(tmp_path):
    config = {"suite_run": 1, "iteration": 15, "measurement": 1, "source": "calibration",
              "discard_warmup": 15, "warmup_level": "iteration"}  # fmt: skip
    doc = _analyze(tmp_path, {"benchmark_configs": {"parse": config}})
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["parse"]
    assert doc["benchmarks"][0]["verdict"] == "regression" and doc["summary"]["decision"] == "fail"
    (w,) = [w for w in doc["warnings"] if w["code"] == "meta_invalid"]
    assert "no value would be left" in w["message"]


def test_a_benchmark_the_warmup_leaves_without_values_is_named_and_not_a_pass(tmp_path):
    """A log cut short (only 5 of 15 iterations) under a valid 14-iteration warm-up: every value
    of `parse` is discarded. It ran, so it is listed as failed, and the decision is no pass."""
    steady = [dict(r, benchmark="load", value=100.0 + r["iteration"] % 3) for r in _rows()]
    rows = [r for r in _rows() if r["iteration"] <= 5] + steady
    config = {"suite_run": 1, "iteration": 15, "measurement": 1, "source": "calibration",
              "discard_warmup": 14, "warmup_level": "iteration"}  # fmt: skip
    log = csv_log(
        tmp_path,
        rows,
        meta={"schema_version": 2, "base": "v1", "head": "v2", "benchmark_configs": {"parse": config}},
    )
    out = tmp_path / "analysis.json"
    assert main(["analyze", str(log), "--json", str(out), "--resamples", "500"]) == 0
    doc = json.loads(out.read_text())
    verdicts = {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]}
    assert verdicts["parse"] == "failed" and doc["summary"]["decision"] != "pass"
    (w,) = [w for w in doc["warnings"] if w["code"] == "no_values_left"]
    assert "parse" in w["message"]
