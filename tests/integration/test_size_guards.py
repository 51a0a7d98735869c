"""Size guards on the files a user or a pull request's artifact hands the gate (gate/model.py:
MAX_VALUES, MAX_JSON_BYTES; measured by benchmarks/bench_big_inputs.py): the real `analyze` and
`publish` CLI refuse them with the fix before reading them whole or running any statistics."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from gate.cli import main
from gate.errors import InputError
from gate.files import analysis_json
from gate.model import MAX_BENCHMARKS, MAX_JSON_BYTES, MAX_TRIAL_LOG_BYTES, MAX_VALUES
from tests.fakes.trial_logs import csv_log, csv_row


def _rows(bench: str, counts: dict[str, int]) -> list[dict]:
    rows, trial = [], 0
    for version, n in counts.items():
        for i in range(n):
            trial += 1
            rows.append(
                csv_row(trial, bench, version, i // 25 + 1, 1, (i // 5) % 5 + 1, i % 5 + 1, 1.0 + i % 7 / 100)
            )
    return rows


def test_more_values_per_benchmark_and_version_than_one_run_collects_is_refused(tmp_path, capsys):
    log = csv_log(tmp_path, _rows("parse", {"v1": 30, "v2": MAX_VALUES + 1}))
    out = tmp_path / "analysis.json"
    code = main(
        ["analyze", str(log), "--base", "v1", "--head", "v2", "--json", str(out), "--resamples", "100"]
    )
    err = capsys.readouterr().err
    assert code != 0 and not out.exists()
    assert f"more than the {MAX_VALUES:,} values one run collects" in err
    assert "'parse' in 'v2': 10,001" in err and "fix: analyze the logs of one run" in err


def test_a_log_within_the_bound_is_analysed(tmp_path):
    log = csv_log(tmp_path, _rows("parse", {"v1": 30, "v2": 40}))
    out = tmp_path / "analysis.json"
    assert (
        main(["analyze", str(log), "--base", "v1", "--head", "v2", "--json", str(out), "--resamples", "100"])
        == 0
    )


def _sparse(path, size: int) -> None:
    with path.open("wb") as fh:  # no disk blocks: the guard refuses it by its size alone
        fh.truncate(size)


def test_a_huge_meta_json_is_unreadable_and_the_trials_are_still_analysed(tmp_path):
    log = csv_log(tmp_path, _rows("parse", {"v1": 15, "v2": 15}))
    _sparse(tmp_path / "meta.json", MAX_JSON_BYTES + 1)
    out = tmp_path / "analysis.json"
    assert (
        main(["analyze", str(log), "--base", "v1", "--head", "v2", "--json", str(out), "--resamples", "100"])
        == 0
    )
    doc = json.loads(out.read_text())
    (unreadable,) = [w for w in doc["warnings"] if w["code"] == "meta_unreadable"]
    assert "the gate reads whole" in unreadable["message"] and doc["benchmarks"][0]["benchmark"] == "parse"


def test_a_huge_analysis_json_is_refused_with_the_fix(tmp_path):
    path = tmp_path / "analysis.json"
    _sparse(path, MAX_JSON_BYTES + 1)
    with pytest.raises(InputError) as info:
        analysis_json.read(path)
    assert "the gate reads whole" in info.value.message and "analyze` wrote" in info.value.fix


def test_a_huge_analysis_json_publishes_an_error_status(tmp_path, monkeypatch, capsys):
    path = tmp_path / "analysis.json"
    _sparse(path, MAX_JSON_BYTES + 1)
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    assert main(["publish", "--analysis", str(path)]) != 0
    assert (
        "the gate reads whole" in summary.read_text()
        and "fix: pass the analysis.json" in capsys.readouterr().err
    )


def test_a_trial_log_larger_than_the_gate_reads_is_refused_and_the_other_logs_are_analysed(tmp_path, capsys):
    good = csv_log(tmp_path, _rows("parse", {"v1": 15, "v2": 15}))
    huge = tmp_path / "huge" / "trials.csv"
    huge.parent.mkdir()
    with huge.open("wb") as fh:
        fh.write(good.read_bytes().splitlines(keepends=True)[0])
        fh.truncate(MAX_TRIAL_LOG_BYTES + 1)  # sparse: no disk blocks
    out = tmp_path / "analysis.json"
    argv = ["analyze", str(huge), "--base", "v1", "--head", "v2", "--json", str(out), "--resamples", "100"]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert "MB the gate reads" in err and "fix: pass the trials.csv files" in err
    assert main([*argv[:2], str(good), *argv[2:]]) == 0
    (skipped,) = [w for w in json.loads(out.read_text())["warnings"] if w["code"] == "unreadable_log"]
    assert "MB the gate reads" in skipped["message"]


def test_more_benchmarks_than_one_analysis_takes_is_refused(tmp_path, capsys):
    n = MAX_BENCHMARKS + 1
    frame = pd.DataFrame({"benchmark": [f"b{i}" for i in range(n)], "version": "v1", "value": 1.0})
    log = tmp_path / "trials.csv"
    frame.to_csv(log, index=False)
    out = tmp_path / "analysis.json"
    assert main(["analyze", str(log), "--base", "v1", "--head", "v2", "--json", str(out)]) != 0
    err = capsys.readouterr().err
    assert f"{n:,} benchmarks, more than the {MAX_BENCHMARKS:,}" in err and "fix: split the suite" in err
    assert not out.exists()
