"""The Docker action's entrypoint: every failure still publishes something (status `error` with a
one-line reason, the job summary, the outputs, a non-zero exit), and malformed meta.json beside a
trial log is reported instead of crashing. In process and as a real subprocess, against the fake
GitHub server with the real PyGithub client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.action import entrypoint
from gate.commands import publish as publish_module
from tests.fakes.github_server import ACTIONS_TOKEN
from tests.integration.publish_fixtures import BASE, HEAD, PR, Job, workflow_run
from tests.integration.test_container import write_trial_log


@pytest.fixture(autouse=True)
def entrypoint_client_fast(job: Job, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entrypoint builds its client with publish's fast factory (the ``job`` fixture's)."""
    monkeypatch.setattr(entrypoint, "make_client", publish_module.make_client)


def workspace(job: Job, monkeypatch: pytest.MonkeyPatch, meta: dict[str, Any] | None = None) -> Path:
    """A workspace with one trial log (parse 25 % slower in HEAD) and, if given, its meta.json."""
    ws = job.tmp / "ws"
    write_trial_log(ws / "t" / "trials.csv", slowdown=1.25)
    if meta is not None:
        (ws / "t" / "meta.json").write_text(json.dumps({"schema_version": 2, **meta}))
    for key, value in {
        "GITHUB_WORKSPACE": str(ws),
        "INPUT_TRIALS": "t/trials.csv",
        "INPUT_BASE": "main",
        "INPUT_HEAD": "HEAD",
    }.items():
        monkeypatch.setenv(key, value)
    return ws


# ---- meta.json of the wrong shape: reported where it is read ----------------------------------------


@pytest.mark.parametrize(
    ("meta", "named"),
    [
        ({"warnings": [{}]}, "1 of 1 warnings (not objects with string code, message, action)"),
        ({"environment": "x"}, "environment (str 'x', not an object)"),
        (
            {"warnings": "abc", "environment": [1], "full": 3},
            "full (int 3, not an object); environment (list, not an object)",
        ),
    ],
)
def test_meta_json_of_the_wrong_shape_is_a_warning_not_a_crash(job, fake, monkeypatch, capsys, meta, named):
    job.pull_request()
    ws = workspace(job, monkeypatch, meta)
    assert entrypoint.main() == 1  # the regression is still found and fails the step
    assert fake.statuses_for(HEAD)[-1]["state"] == "failure" and job.outputs()["decision"] == "fail"
    analysis = json.loads((ws / "ordertrap-report" / "analysis.json").read_text())
    assert analysis["environment"] is None
    (warning,) = [w for w in analysis["warnings"] if w["code"] == "meta_invalid"]
    assert named in warning["message"] and "ordertrap-gate run" in warning["action"]
    assert "Traceback" not in capsys.readouterr().err


# ---- the last-resort boundary ----------------------------------------------------------------------


def test_an_unexpected_exception_still_publishes_with_the_token_masked(job, fake, monkeypatch, capsys):
    job.pull_request()
    workspace(job, monkeypatch)

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"boom {ACTIONS_TOKEN}\n  second line")

    monkeypatch.setattr(publish_module, "publish", crash)
    assert entrypoint.main() == entrypoint.EXIT_INTERNAL
    captured = capsys.readouterr()
    assert "Traceback (most recent call last)" in captured.err and "in crash" in captured.err  # the log
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "error"
    assert status["description"] == "internal error: RuntimeError: boom *** second line"
    summary = job.summary.read_text()
    assert summary.startswith("## ordertrap-gate: error") and "**Fix:**" in summary and "report it" in summary
    outs = job.outputs()
    assert outs["decision"] == "error" and outs["regressions"] == "0"
    for text in (captured.out, captured.err, summary, job.output.read_text(), json.dumps(status)):
        assert ACTIONS_TOKEN not in text


@pytest.mark.parametrize(
    ("name", "value", "fix"),
    [
        ("fail_on", "sometimes", "one of: regression"),
        ("threshold_pct", "5%", "to a percentage above 0 and below 1000, e.g."),
        ("confidence", "99", "to a confidence level in "),
        ("statistic", "mode", "median, mean, or pNN"),
    ],
)
def test_an_invalid_input_still_publishes_status_error(job, fake, monkeypatch, capsys, name, value, fix):
    """Checked before anything runs, and named as the workflow writes it (not as analyze's flag)."""
    job.pull_request()
    ws = workspace(job, monkeypatch)
    monkeypatch.setenv(f"INPUT_{name.upper()}", value)
    assert entrypoint.main() == 2
    err = capsys.readouterr().err
    assert f"fix: set the action input `{name}`" in err
    assert f"{name} is {value!r}" in err and not any(f"--{n}" in err for n in ("threshold", "conf", "stat"))
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "error" and status["description"].startswith(f"invalid action input: {name} is")
    assert job.outputs()["decision"] == "error" and fix in job.summary.read_text()
    assert not (ws / "ordertrap-report" / "analysis.json").exists()  # nothing was analyzed


@pytest.mark.parametrize("pr_head", [HEAD, "9" * 40], ids=["verified", "not-at-the-run-head"])
def test_the_boundary_sets_a_status_only_for_a_verified_workflow_run_pr(job, fake, monkeypatch, pr_head):
    fake.add_pull(PR, pr_head, BASE, fork="outsider/widgets")
    workflow_run(job, None)
    ws = workspace(job, monkeypatch)
    (ws / "ordertrap-pr.json").write_text(
        json.dumps({"schema_version": 1, "pr_number": PR, "head_sha": HEAD})
    )
    monkeypatch.setenv("INPUT_PR_INFO", "ordertrap-pr.json")

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyError("code")

    monkeypatch.setattr(publish_module, "publish", crash)
    assert entrypoint.main() == entrypoint.EXIT_INTERNAL
    statuses = fake.statuses_for(HEAD)
    if pr_head == HEAD:
        assert [s["description"] for s in statuses] == ["internal error: KeyError: 'code'"]
    else:
        assert statuses == [] and fake.statuses_for(pr_head) == []
    assert job.outputs()["decision"] == "error" and fake.comments_on(PR) == []


def test_a_csv_the_parser_rejects_still_publishes_status_error(job, fake, monkeypatch):
    """A stray carriage return in the last line of a trial log (no line end after it) made the
    csv module raise `_csv.Error` out of the entrypoint: no status, no summary, no outputs. Run as
    the action runs it: a separate process with the workspace as working directory."""
    job.pull_request()
    ws = workspace(job, monkeypatch)
    log = ws / "t" / "trials.csv"
    rows, _, last = log.read_text().rstrip("\n").rpartition("\n")
    log.write_text(rows + "\n" + last.replace("runner-1", "runner\r-1"))
    env = {**os.environ, "GITHUB_ACTIONS": "true", "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN}
    result = subprocess.run(
        [sys.executable, "-I", "-m", "gate", "action"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log_text = result.stdout + result.stderr
    assert result.returncode not in (0, 1), log_text
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "error", log_text
    description = status["description"]
    assert "\n" not in description and "Traceback" not in description and 'File "' not in description
    assert job.outputs()["decision"] == "error"
    assert job.summary.read_text().startswith("## ordertrap-gate: error")
    assert ACTIONS_TOKEN not in log_text + job.summary.read_text() + description
