"""A regression does not turn green by being renamed or made noisy in head, and a log from which
nothing could be compared is no pass (gate/decision.py): the real `analyze` on a trial log, then
the real `publish` through PyGithub against the fake GitHub server; the accept label is the way
through."""

from __future__ import annotations

import json

import numpy as np

from gate.cli import main
from tests.fakes.trial_logs import csv_log, csv_row
from tests.integration.publish_fixtures import HEAD, PR


def _log(tmp_path, values: dict[tuple[str, str], list[float]]):
    """Interleaved trials: for each value index, every (benchmark, version) in turn."""
    rows, trial = [], 0
    longest = max(len(v) for v in values.values())
    for i in range(longest):
        for position, ((bench, version), vals) in enumerate(values.items(), start=1):
            if i < len(vals):
                trial += 1
                rows.append(csv_row(trial, bench, version, i // 5 + 1, position, i % 5 + 1, 1, vals[i]))
    return csv_log(tmp_path, rows)


def _analyze(tmp_path, log) -> dict:
    out = tmp_path / "analysis.json"
    argv = ["analyze", str(log), "--base", "v1", "--head", "v2", "--json", str(out), "--resamples", "500"]
    assert main(argv) == 0
    return json.loads(out.read_text())


def _steady(level: float, n: int = 15, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    return (level * np.exp(rng.normal(0, 0.01, n))).tolist()


def test_a_regressed_benchmark_renamed_in_head_is_not_green(tmp_path, job, fake):
    job.pull_request()
    log = _log(
        tmp_path,
        {
            ("parse", "v1"): _steady(100, seed=1),
            ("parse_renamed", "v2"): _steady(150, seed=2),  # +50 %, under a new name
            ("load", "v1"): _steady(50, seed=3),
            ("load", "v2"): _steady(50, seed=4),
        },
    )
    doc = _analyze(tmp_path, log)
    assert doc["summary"]["only_in_base"] == 1 and doc["summary"]["decision"] == "fail"
    assert job.publish(doc) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "failure" and "1 ran in base only" in status["description"]
    fake.set_labels(PR, ("perf-regression-accepted",))
    assert job.publish(doc) == 0
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "success" and status["description"].startswith("accepted: 1 ran in base only")


def test_a_benchmark_made_noisy_in_head_is_not_green(tmp_path, job, fake):
    job.pull_request()
    rng = np.random.default_rng(7)
    noisy = (120 * np.exp(rng.normal(0, 0.35, 15))).tolist()  # +20 % hidden in noise
    log = _log(
        tmp_path,
        {
            ("parse", "v1"): _steady(100, seed=1),
            ("parse", "v2"): noisy,
            ("load", "v1"): _steady(50, seed=3),
            ("load", "v2"): _steady(50, seed=4),
        },
    )
    doc = _analyze(tmp_path, log)
    (parse,) = [b for b in doc["benchmarks"] if b["benchmark"] == "parse"]
    assert parse["verdict"] == "inconclusive"
    assert [w["code"] for w in parse["warnings"]].count("noisy_head") == 1
    assert doc["summary"]["noisy_in_head"] == 1 and doc["summary"]["decision"] == "fail"
    assert job.publish(doc) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "failure" and "1 far noisier in head" in status["description"]


def test_a_log_in_which_nothing_could_be_read_is_not_green(tmp_path, job, fake):
    job.pull_request()
    log = tmp_path / "trials.csv"
    log.write_text("benchmark,version,value,status\nparse,v1,abc,ok\nparse,v2,abc,ok\n")
    doc = _analyze(tmp_path, log)
    assert doc["summary"]["counts"]["failed"] == 1 and doc["summary"]["decision"] == "fail"
    assert job.publish(doc) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "failure" and "no benchmark could be compared" in status["description"]
