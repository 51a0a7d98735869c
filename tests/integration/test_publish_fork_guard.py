"""The fork guard of run/action.yml, the calibration diff and the action entrypoint's helpers,
against the fake GitHub server through the real PyGithub client."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest

from gate.action.entrypoint import analyze_options, expand_trials
from gate.cli import main
from gate.errors import ConfigError
from gate.github.calibration_diff import diff_markdown
from gate.github.context import from_env
from tests.fakes import analyses
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub

HEAD = "a1" * 20


@pytest.fixture
def fake():
    with FakeGitHub() as server:
        yield server


def guard(
    fake: FakeGitHub, tmp_path: Path, payload: dict, *, event: str = "pull_request", **inputs: str
) -> int:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    env = {
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_SHA": HEAD,
        "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN,
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    with mock.patch.dict(os.environ, env, clear=True):  # the step's environment, nothing else
        return main(["fork-guard"])


def fork_payload(fake: FakeGitHub, **extra) -> dict:
    pull = fake.add_pull(3, HEAD, fork="outsider/widgets")
    return {
        "action": "synchronize",
        "number": 3,
        "pull_request": pull,
        "sender": {"login": "outsider"},
        **extra,
    }


def test_same_repo_pr_runs(fake, tmp_path, capsys):
    pull = fake.add_pull(3, HEAD)
    assert guard(fake, tmp_path, {"action": "opened", "pull_request": pull}) == 0
    assert "allowed" in capsys.readouterr().out


@pytest.mark.parametrize("event", ["push", "schedule", "workflow_dispatch", "merge_group"])
def test_events_without_fork_code_run(fake, tmp_path, event):
    assert guard(fake, tmp_path, {}, event=event) == 0


@pytest.mark.parametrize(
    "event", ["issue_comment", "pull_request_review", "workflow_run", "repository_dispatch"]
)
def test_events_anyone_can_start_are_refused(fake, tmp_path, capsys, event):
    # a `/perf` comment workflow that passes the PR's head on would otherwise run a fork's code
    assert guard(fake, tmp_path, {"issue": {"number": 7}}, event=event) == 1
    assert f"the {event} event can be started by anyone" in capsys.readouterr().out


def test_fork_pr_is_refused_and_says_how_to_opt_in(fake, tmp_path, capsys):
    assert guard(fake, tmp_path, fork_payload(fake)) == 1
    out = capsys.readouterr().out
    assert out.startswith("::error title=fork PR not benchmarked::")
    assert "ordertrap-run-fork" in out and "allow_fork_prs" in out


def test_fork_pr_runs_when_the_workflow_opts_in(fake, tmp_path):
    assert guard(fake, tmp_path, fork_payload(fake), allow_fork_prs="true") == 0


@pytest.mark.parametrize("value", ["yes", "on", "1"])
def test_an_opt_in_that_is_not_true_or_false_is_an_error_naming_the_input(fake, tmp_path, capsys, value):
    """Not read as false: the workflow meant something, so the guard cannot decide (exit 2) and
    says which input to write how; the benchmark job, which needs `allowed == 'true'`, stays off."""
    assert guard(fake, tmp_path, fork_payload(fake), allow_fork_prs=value) == 2
    captured = capsys.readouterr()
    assert f"allow_fork_prs is {value!r}, which is not true or false" in captured.err
    assert "set the action input `allow_fork_prs` to true or false" in captured.err
    assert "allowed" not in captured.out


def test_label_by_a_writer_in_this_event_runs(fake, tmp_path, capsys):
    fake.set_permission("maintainer", "write")
    payload = fork_payload(
        fake, action="labeled", label={"name": "ordertrap-run-fork"}, sender={"login": "maintainer"}
    )
    assert guard(fake, tmp_path, payload) == 0
    assert "maintainer (write) added `ordertrap-run-fork`" in capsys.readouterr().out
    assert fake.requests("GET", "/collaborators/maintainer/permission")


def test_label_by_a_triager_is_refused(fake, tmp_path, capsys):
    fake.set_permission("helper", "triage")
    payload = fork_payload(
        fake, action="labeled", label={"name": "ordertrap-run-fork"}, sender={"login": "helper"}
    )
    assert guard(fake, tmp_path, payload) == 1
    assert "'triage', not write" in capsys.readouterr().out


def test_a_push_on_a_labelled_pr_needs_a_new_label(fake, tmp_path):
    fake.set_permission("maintainer", "admin")
    payload = fork_payload(fake)  # synchronize: new commits; the label is still on the PR
    payload["pull_request"]["labels"] = [{"name": "ordertrap-run-fork"}]
    assert guard(fake, tmp_path, payload) == 1
    assert fake.requests("GET", "/collaborators/") == []


def test_custom_label(fake, tmp_path):
    fake.set_permission("maintainer", "maintain")
    payload = fork_payload(fake, action="labeled", label={"name": "bench-ok"}, sender={"login": "maintainer"})
    assert guard(fake, tmp_path, payload) == 1
    assert guard(fake, tmp_path, payload, fork_label="bench-ok") == 0


# ---- entrypoint helpers ------------------------------------------------------------------------


def test_expand_trials_globs_dirs_and_dedup(tmp_path):
    for name in ("a", "b"):
        (tmp_path / "t" / name).mkdir(parents=True)
        (tmp_path / "t" / name / "trials.csv").write_text("x")
    found = expand_trials(("t/**/trials.csv", "t/a", "t/b/trials.csv"), tmp_path)
    assert found == [tmp_path / "t/a/trials.csv", tmp_path / "t/b/trials.csv"]
    with pytest.raises(ConfigError) as info:
        expand_trials(("nothing/*.csv",), tmp_path)
    assert "download the trial artifacts" in info.value.fix


def test_inputs_map_onto_analyze_s_keyword_arguments():
    settings = from_env({"INPUT_BASE": "main", "INPUT_THRESHOLD_PCT": " 5 ", "INPUT_STATISTIC": "Mean",
                         "INPUT_BOOTSTRAP": "auto"})  # fmt: skip
    # typed values straight into analyze's core: no flag text to parse back; the rest at its defaults
    assert analyze_options(settings.inputs) == {
        "base": "main", "statistic": "mean", "bootstrap": "auto", "threshold_pct": 5.0
    }  # fmt: skip


# ---- calibration diff --------------------------------------------------------------------------


def test_calibration_diff_lists_changed_benchmarks(tmp_path, capsys):
    old = analyses.calibration_document()
    new = json.loads(json.dumps(old))
    name = sorted(new["benchmarks"])[0]
    new["benchmarks"][name]["config"] = {"suite_run": 3, "iteration": 5, "measurement": 5}
    text = diff_markdown(old, new)
    assert f"| {name} |" in text and "3 × 5 × 5" in text
    assert diff_markdown(old, old).count("No benchmark changed") == 1
    (tmp_path / "new.json").write_text(json.dumps(new))
    assert main(["calibration-diff", str(tmp_path / "missing.json"), str(tmp_path / "new.json")]) == 0
    assert "First calibration" in capsys.readouterr().out
    assert main(["calibration-diff", str(tmp_path / "old.json"), str(tmp_path / "missing.json")]) == 2


@pytest.mark.parametrize("content", [b'{"action": "opened", "x": "\xff\xfe"}', b"[" * 100_000])
def test_an_event_file_that_is_not_utf8_json_is_a_clear_error(fake, tmp_path, capsys, content):
    path = tmp_path / "event.json"
    path.write_bytes(content)
    env = {
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_SHA": HEAD,
        "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN,
    }
    with mock.patch.dict(os.environ, env, clear=True):
        assert main(["fork-guard"]) == 2
    err = capsys.readouterr().err
    assert "is not UTF-8 JSON" in err and "GITHUB_EVENT_PATH" in err and "Traceback" not in err
