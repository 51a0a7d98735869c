"""`ordertrap-gate publish` end to end: the real CLI and the real PyGithub client against the
fake GitHub server (tests/fakes/github_server.py); nothing reaches github.com."""

from __future__ import annotations

import json
import os

import pytest

from gate.cli import main
from gate.commands import publish as publish_module
from gate.commands.publish import publish
from gate.errors import InputError
from gate.github.client import make_client, make_retry
from gate.github.context import from_env
from gate.render import COMMENT_LIMIT, COMMENT_MARKER
from tests.fakes import analyses
from tests.fakes.github_server import ACTIONS_TOKEN, READ_ONLY_TOKEN
from tests.integration.publish_fixtures import BASE, HEAD, PR, PUSH_SHA, Job, workflow_run


@pytest.fixture
def default_job(tmp_path, monkeypatch, fake):
    """publish builds its client exactly as in production (request spacing, default retry)."""
    return Job(tmp_path, monkeypatch, fake)


def test_a_head_that_crashes_fails_the_status_unless_accepted(job, fake):
    job.pull_request()
    doc = analyses.analysis(
        [
            analyses.benchmark("crashes_in_head", "failed", n_failed_head=15, reason="exit status -11"),
            analyses.benchmark("parse", "unchanged", change_pct=0.3),
        ]
    )
    assert job.publish(doc) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert (
        status["state"] == "failure"
        and "1 benchmark(s) fail in head but not in base" in status["description"]
    )
    assert job.outputs()["failed"] == "1" and len(fake.comments_on(PR)) == 1
    fake.set_labels(PR, ("perf-regression-accepted",))
    assert job.publish(doc) == 0
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "success" and "1 failing in head accepted" in status["description"]
    (comment,) = fake.comments_on(PR)  # the headline names what was accepted, as the status does
    assert "1 failing in head accepted" in comment["body"].splitlines()[1]
    assert "0 regressions" not in comment["body"].splitlines()[1]


def test_nothing_compared_fails_and_comments(job, fake):
    """Every benchmark renamed, or head's discovery broken: not a pass (not even a green
    inconclusive), and the PR hears of it."""
    job.pull_request()
    doc = analyses.analysis(
        [],
        only_in_base=3,
        warnings=[
            {
                "code": "one_version_only",
                "message": "3 benchmark(s) ran only in main, not in HEAD, so were not compared: a, b, c",
                "action": "the benchmark was removed or renamed in head; if not, check head's build",
            }
        ],
    )
    assert doc["summary"]["decision"] == "fail"
    assert job.publish(doc) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert (
        status["state"] == "failure"
        and "no benchmark of base ran in head (3 missing)" in status["description"]
    )
    assert job.outputs()["decision"] == "fail" and job.outputs()["not_compared"] == "3"
    (comment,) = fake.comments_on(PR)
    assert "within ±3%" not in comment["body"] and "ran only in main" in comment["body"]
    assert "no benchmark of base ran in head" in comment["body"].splitlines()[1]  # the headline
    # nothing in either version (an empty analysis) says nothing about the change: not green either
    assert job.publish(analyses.analysis([])) == 1
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "failure" and "no benchmark could be compared" in status["description"]


# ---- pull_request ------------------------------------------------------------------------------


def test_regression_fails_and_comment_is_created_then_updated(default_job, fake, capsys):
    job = default_job
    job.pull_request()
    assert job.publish(analyses.mixed()) == 1
    out = capsys.readouterr().out
    (comment,) = fake.comments_on(PR)
    assert COMMENT_MARKER in comment["body"] and comment["user"]["login"] == "github-actions[bot]"
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "failure" and status["context"] == "ordertrap-gate"
    assert status["target_url"] == "https://github.example/acme/widgets/actions/runs/123456"
    outs = job.outputs()
    counts = analyses.mixed()["summary"]["counts"]
    assert outs["decision"] == "fail"
    assert outs["regressions"] == str(counts["regression"])
    assert outs["improvements"] == str(counts["improvement"])
    assert outs["inconclusive"] == str(counts["inconclusive"] + counts["failed"])
    assert outs["comment_url"] == comment["html_url"]
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == counts["regression"] and "parse" in errors[0]
    assert job.summary.read_text().strip()

    # second run on the same PR: the comment is edited, never duplicated
    job.output.write_text("")
    assert job.publish(analyses.all_unchanged()) == 0
    (updated,) = fake.comments_on(PR)
    assert updated["id"] == comment["id"] and updated["body"] != comment["body"]
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["failure", "success"]
    assert job.outputs()["decision"] == "pass"
    assert len(fake.requests("POST", "/comments")) == 1 and len(fake.requests("PATCH", "/comments/")) == 1


def test_on_change_does_not_comment_when_nothing_changed(job, fake):
    job.pull_request()
    assert job.publish(analyses.all_unchanged()) == 0
    assert fake.comments_on(PR) == []
    assert fake.statuses_for(HEAD)[-1]["state"] == "success"
    assert job.outputs()["comment_url"] == ""


def test_comment_always_and_never(job, fake, monkeypatch):
    job.pull_request()
    assert job.publish(analyses.all_unchanged(), "--comment", "always") == 0
    assert len(fake.comments_on(PR)) == 1
    monkeypatch.setenv("INPUT_COMMENT", "never")
    assert job.publish(analyses.mixed()) == 1
    (comment,) = fake.comments_on(PR)
    assert "regression" not in comment["body"].split(COMMENT_MARKER)[0]  # untouched
    assert len(fake.requests("PATCH")) == 0


def test_accept_label_is_read_from_the_api(job, fake):
    job.pull_request(labels=())  # the payload has no label (a re-run keeps the original payload)
    fake.set_labels(PR, ("bug", "perf-regression-accepted"))
    assert job.publish(analyses.mixed()) == 0
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "success" and "accepted" in status["description"]
    (comment,) = fake.comments_on(PR)
    assert "accepted" in comment["body"].lower()
    assert job.outputs()["decision"] == "pass"


def test_label_removed_since_the_event_no_longer_accepts(job, fake):
    job.pull_request(labels=("perf-regression-accepted",))
    fake.set_labels(PR, ())
    assert job.publish(analyses.mixed()) == 1
    assert fake.statuses_for(HEAD)[-1]["state"] == "failure"


def test_custom_accept_label(job, fake, monkeypatch):
    job.pull_request()
    fake.set_labels(PR, ("slow-is-fine",))
    monkeypatch.setenv("INPUT_ACCEPT_LABEL", "slow-is-fine")
    assert job.publish(analyses.mixed()) == 0


def test_fail_on_never_reports_but_exits_zero(job, fake):
    job.pull_request()
    assert job.publish(analyses.mixed(), "--fail-on", "never") == 0
    assert job.outputs()["decision"] == "fail"
    assert fake.statuses_for(HEAD)[-1]["state"] == "failure"


def test_inconclusive(job, fake):
    job.pull_request()
    doc = analyses.inconclusive_heavy()
    assert doc["summary"]["counts"]["regression"] == 0
    assert job.publish(doc) == 0
    assert job.outputs()["decision"] == "inconclusive"
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "success" and status["description"].startswith("inconclusive")
    job.output.write_text("")
    assert job.publish(doc, "--fail-on", "inconclusive") == 1
    assert job.outputs()["decision"] == "fail" and fake.statuses_for(HEAD)[-1]["state"] == "failure"


@pytest.mark.parametrize(
    "content", [None, "{not json", json.dumps({"schema_version": 99, "summary": {"counts": {}}})]
)
def test_no_usable_analysis_sets_status_error(job, fake, capsys, content):
    job.pull_request()
    path = job.tmp / "analysis.json"
    if content is not None:
        path.write_text(content)
    assert job.publish(path) == 2
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "error" and status["description"].startswith("analysis could not be made")
    assert job.outputs()["decision"] == "error"
    assert "Fix:" in job.summary.read_text()
    assert "fix:" in capsys.readouterr().err


def test_fork_pr_with_read_only_token_explains_and_still_writes_the_summary(job, fake, capsys, monkeypatch):
    job.pull_request(fork="outsider/widgets")
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", READ_ONLY_TOKEN)
    assert job.publish(analyses.mixed()) == 1  # the verdict still fails the job
    out = capsys.readouterr().out
    assert "two-workflow pattern" in out and "workflow_run" in out
    assert out.count("two-workflow pattern") == 1
    assert fake.comments_on(PR) == [] and fake.statuses_for(HEAD) == []
    assert job.summary.read_text().strip()
    assert job.outputs()["decision"] == "fail"


def test_missing_permissions_in_own_repo_names_the_permission(job, fake, capsys, monkeypatch):
    job.pull_request()
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", READ_ONLY_TOKEN)
    assert job.publish(analyses.all_unchanged(), "--comment", "always") == 0
    out = capsys.readouterr().out
    assert "pull-requests: write" in out and "statuses: write" in out


def test_5xx_then_success(job, fake):
    job.pull_request()
    fake.fail_next("POST", r"/issues/\d+/comments$", 502, message="Bad Gateway")
    fake.fail_next("POST", r"/statuses/", 500, times=2)
    assert job.publish(analyses.mixed()) == 1
    assert len(fake.comments_on(PR)) == 1 and len(fake.statuses_for(HEAD)) == 1
    assert len(fake.requests("POST", "/comments")) == 2 and len(fake.requests("POST", "/statuses/")) == 3


def test_5xx_and_secondary_limit_on_the_comment_edit_are_retried(job, fake):
    job.pull_request()
    assert job.publish(analyses.mixed()) == 1  # creates the comment
    fake.fail_next("PATCH", r"/issues/comments/\d+$", 502, message="Bad Gateway")
    fake.fail_next(
        "PATCH",
        r"/issues/comments/\d+$",
        403,
        message="You have exceeded a secondary rate limit",
        headers={"Retry-After": "1"},
    )
    assert job.publish(analyses.failures()) == 1
    (comment,) = fake.comments_on(PR)
    assert len(fake.requests("PATCH", "/issues/comments/")) == 3
    assert "failed" in comment["body"]


def test_a_lasting_rate_limit_is_not_reported_as_a_permission_problem(job, fake, capsys):
    job.pull_request()
    fake.fail_next(
        "POST", r"/statuses/", 403, times=50, message="You have exceeded a secondary rate limit",
        headers={"Retry-After": "0"},
    )  # fmt: skip
    assert job.publish(analyses.mixed()) == 2
    err = capsys.readouterr().err
    assert "failed after retries" in err and "re-run the job" in err
    assert "permissions:" not in err and "read-only" not in err
    assert len(fake.requests("POST", "/statuses/")) == 6  # the first try and 5 retries


@pytest.mark.slow
def test_comment_stays_within_github_limit(job, fake):
    job.pull_request()
    doc = analyses.large(5000)
    assert job.publish(doc, "--comment", "always") == 1
    (comment,) = fake.comments_on(PR)  # the fake answers 422 above 65,536 characters, as GitHub does
    assert COMMENT_MARKER in comment["body"] and len(comment["body"]) <= COMMENT_LIMIT
    assert len(job.summary.read_text().encode()) <= 1024 * 1024


def test_token_never_printed(job, fake, capsys):
    job.pull_request(fork="outsider/widgets")
    job.publish(analyses.mixed())
    captured = capsys.readouterr()
    for text in (
        captured.out,
        captured.err,
        job.summary.read_text(),
        job.output.read_text(),
        repr(from_env()),
    ):
        assert ACTIONS_TOKEN not in text


# ---- other events ------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["push", "schedule", "workflow_dispatch"])
def test_events_without_a_pr_set_a_status_on_github_sha(job, fake, event):
    payloads = {
        "push": {"ref": "refs/heads/main", "before": BASE, "after": PUSH_SHA},
        "schedule": {"schedule": "0 3 * * *"},
        "workflow_dispatch": {"inputs": {}, "ref": "refs/heads/main"},
    }
    job.event(event, payloads[event], PUSH_SHA)
    assert job.publish(analyses.mixed()) == 1
    assert fake.statuses_for(PUSH_SHA)[-1]["state"] == "failure"
    assert fake.requests("POST", "/comments") == [] and fake.requests("GET", "/issues") == []
    assert job.outputs()["decision"] == "fail"


def test_workflow_run_publishes_on_the_pr_from_the_artifact(job, fake):
    fake.add_pull(PR, HEAD, BASE, fork="outsider/widgets")
    info = workflow_run(job, {"schema_version": 1, "pr_number": PR, "head_sha": HEAD, "base_sha": BASE})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 1
    assert len(fake.comments_on(PR)) == 1
    assert fake.statuses_for(HEAD)[-1]["state"] == "failure"  # on the PR head, not on GITHUB_SHA
    assert fake.statuses_for("e5" * 20) == []


def test_workflow_run_rejects_a_pr_info_for_another_commit(job, fake, capsys):
    fake.add_pull(PR, HEAD, BASE, fork="outsider/widgets")
    info = workflow_run(job, {"schema_version": 1, "pr_number": PR, "head_sha": "f" * 40})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 2
    assert "tampered" in capsys.readouterr().err
    assert fake.comments_on(PR) == [] and fake.statuses_for(HEAD) == []


def test_workflow_run_refuses_a_pr_that_moved_on(job, fake, capsys):
    """The PR's head (from the API) is no longer the commit the run built: nothing is read from
    or published to the PR (the run of its new head publishes); summary and outputs say why."""
    fake.add_pull(PR, "9" * 40, BASE, labels=("perf-regression-accepted",), fork="outsider/widgets")
    info = workflow_run(job, {"schema_version": 1, "pr_number": PR, "head_sha": HEAD})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 2
    assert "has head 999999999999, not a1a1a1a1a1a1" in capsys.readouterr().err
    assert fake.comments_on(PR) == [] and fake.statuses_for(HEAD) == [] and fake.statuses_for("9" * 40) == []
    assert fake.requests("GET", f"/issues/{PR}") == []  # its labels were never read
    assert job.outputs()["decision"] == "error"
    assert "refused: PR #" in job.summary.read_text()


def test_workflow_run_of_a_push_sets_only_a_status(job, fake):
    workflow_run(job, None, fork=False)
    assert job.publish(analyses.all_unchanged()) == 0
    assert fake.statuses_for(HEAD)[-1]["state"] == "success"
    assert fake.requests("POST", "/comments") == []


def test_write_pr_info_roundtrip(job, fake, tmp_path):
    job.pull_request()
    assert main(["pr-info", str(tmp_path / "art" / "ordertrap-pr.json")]) == 0
    info = json.loads((tmp_path / "art" / "ordertrap-pr.json").read_text())
    assert info == {
        "schema_version": 1,
        "pr_number": PR,
        "head_sha": HEAD,
        "head_ref": "feature",
        "base_sha": BASE,
        "base_ref": "main",
    }


def test_local_run_without_token_writes_summary_only(job, fake, monkeypatch, capsys):
    job.pull_request()
    monkeypatch.delenv("INPUT_GITHUB_TOKEN")
    assert job.publish(analyses.mixed()) == 1
    assert "local run" in capsys.readouterr().out
    assert fake.requests() == []
    assert job.outputs()["decision"] == "fail"


def test_publish_function_raises_input_error_without_analysis(job, fake, tmp_path):
    job.pull_request()
    settings = from_env()
    client = make_client(settings, retry=make_retry(total=2, backoff_factor=0.01), throttle=False)
    with pytest.raises(InputError) as info:
        publish(settings, tmp_path / "nope.json", client=client)
    assert "analyze" in info.value.fix


# ---- the Docker action's entrypoint, in process --------------------------------------------------


def test_entrypoint_analyses_reports_publishes_and_hides_the_token(job, fake, monkeypatch, capsys):
    from gate.action import entrypoint
    from tests.integration.test_container import write_trial_log

    job.pull_request()
    workspace = job.tmp / "ws"
    write_trial_log(workspace / "ordertrap-trials" / "ordertrap-trials-r1" / "trials.csv", slowdown=1.25)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.setenv("INPUT_TRIALS", "ordertrap-trials/**/trials.csv")
    monkeypatch.setenv("INPUT_BASE", "main")
    monkeypatch.setenv("INPUT_HEAD", "HEAD")
    monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
    monkeypatch.setattr(entrypoint, "make_client", publish_module.make_client)  # the fast factory
    assert entrypoint.main() == 1
    assert "INPUT_GITHUB_TOKEN" not in os.environ and "GITHUB_TOKEN" not in os.environ
    assert ACTIONS_TOKEN not in capsys.readouterr().out
    outs = job.outputs()
    assert outs["decision"] == "fail" and outs["regressions"] == "1"
    assert outs["report_path"] == "ordertrap-report/report.html"
    assert (workspace / "ordertrap-report" / "report.html").is_file()
    assert len(fake.comments_on(PR)) == 1 and fake.statuses_for(HEAD)[-1]["state"] == "failure"
    (comment,) = fake.comments_on(PR)
    assert "/actions/runs/123456#artifacts" in comment["body"]  # the HTML report is linked


def test_entrypoint_fences_benchmark_names_from_the_trial_logs(job, fake, monkeypatch, capsys):
    # A fork controls benchmark names in the fork-safe pattern: "::warning::..." in a name must not
    # reach the runner as a workflow command while analyze and report print it.
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # set by the runner; the fences depend on it
    import pandas as pd

    from gate.action import entrypoint
    from tests.integration.test_container import write_trial_log

    job.pull_request()
    workspace = job.tmp / "ws"
    log = workspace / "t" / "trials.csv"
    write_trial_log(log, slowdown=1.25)
    frame = pd.read_csv(log)
    first = sorted(frame["benchmark"].unique())[0]
    frame.loc[frame["benchmark"] == first, "benchmark"] = "::warning::spoofed"
    frame.to_csv(log, index=False)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.setenv("INPUT_TRIALS", "t/trials.csv")
    monkeypatch.setenv("INPUT_BASE", "main")
    monkeypatch.setenv("INPUT_HEAD", "HEAD")
    monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
    monkeypatch.setattr(entrypoint, "make_client", publish_module.make_client)
    entrypoint.main()
    token = None
    seen = 0
    for line in capsys.readouterr().out.splitlines():
        if token is None and line.startswith("::stop-commands::"):
            token = line.split("::")[2]
        elif token is not None and line == f"::{token}::":
            token = None
        elif "spoofed" in line and line.replace("\u200b", "").lstrip().startswith("::warning::"):
            # (on GitHub every line is also made inert by a zero-width space: gate.workflow_commands)
            seen += 1
            assert token is not None, f"unfenced workflow command: {line!r}"
    assert seen >= 1  # analyze did print the name; it was fenced


def test_github_down_still_writes_summary_and_outputs_then_fails(job, fake, capsys):
    job.pull_request()
    fake.fail_next("POST", r"/statuses/", 503, times=50, message="Service Unavailable")
    assert job.publish(analyses.all_unchanged()) == 2
    err = capsys.readouterr().err
    assert "commit status failed after retries" in err and "re-run the job" in err
    assert job.outputs()["decision"] == "pass" and job.summary.read_text().strip()
    assert len(fake.requests("POST", "/statuses/")) == 6  # the first try and 5 retries


def test_entrypoint_bad_input_value_still_publishes_status_error(job, fake, monkeypatch):
    from gate.action import entrypoint
    from tests.integration.test_container import write_trial_log

    job.pull_request()
    workspace = job.tmp / "ws"
    write_trial_log(workspace / "t" / "trials.csv", slowdown=1.0)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.setenv("INPUT_TRIALS", "t/trials.csv")
    monkeypatch.setenv("INPUT_STATISTIC", "mode")  # analyze rejects it (argparse exits)
    monkeypatch.setattr(entrypoint, "make_client", publish_module.make_client)
    assert entrypoint.main() == 2
    assert fake.statuses_for(HEAD)[-1]["state"] == "error"
    assert job.outputs()["decision"] == "error"


def test_labels_unreadable_count_as_absent_not_as_the_payload_says(job, fake, capsys):
    """The labels API fails after its retries: the accept label in the event payload (a snapshot a
    re-run keeps) is not a fallback; the regression fails, and the log, summary and status say why."""
    job.pull_request(labels=("perf-regression-accepted",))
    fake.fail_next("GET", rf"/issues/{PR}$", 503, times=50)
    assert job.publish(analyses.mixed()) == 2  # the failed read fails the job after publishing
    captured = capsys.readouterr()
    assert "treated as absent" in captured.out and "re-run the job" in captured.err
    assert job.outputs()["decision"] == "fail"
    assert fake.comments_on(PR) == []
    status = fake.statuses_for(HEAD)[-1]
    assert status["state"] == "failure" and "accepted" not in status["description"]
    assert "labels unreadable: accept label not applied" in status["description"]
    assert "see the PR comment" not in status["description"]  # none was written
    assert "`perf-regression-accepted` was not applied" in job.summary.read_text()


def test_a_local_run_does_not_take_the_accept_label_from_the_payload(job, fake, monkeypatch, capsys):
    job.pull_request(labels=("perf-regression-accepted",))
    monkeypatch.delenv("INPUT_GITHUB_TOKEN")
    assert job.publish(analyses.mixed()) == 1
    assert job.outputs()["decision"] == "fail"
    assert "accept label `perf-regression-accepted` is not read (local run)" in capsys.readouterr().out
