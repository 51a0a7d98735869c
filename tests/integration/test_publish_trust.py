"""What `publish` trusts: the PR named by an artifact only once the API shows it at the run's head,
and analysis.json only when its summary agrees with its own benchmarks. The real CLI and the real
PyGithub client against the fake GitHub server (tests/fakes/github_server.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes import analyses
from tests.fakes.github_server import READ_ONLY_TOKEN
from tests.integration.publish_fixtures import BASE, HEAD, PR, workflow_run

ACCEPT = "perf-regression-accepted"
VICTIM = 43  # someone else's PR, labelled to accept its own regression
VICTIM_HEAD = "7e" * 20


# ---- workflow_run: the PR named by ordertrap-pr.json ---------------------------------------------


def test_a_pr_info_naming_another_pr_borrows_nothing_from_it(job, fake, capsys):
    """A fork's run writes ordertrap-pr.json with its own (correct) head SHA but the number of a PR
    that carries the accept label: that label must not pass the fork's regression, and nothing is
    published to either PR."""
    fake.add_pull(PR, HEAD, BASE, fork="outsider/widgets")  # the fork's own PR, at the run's head
    fake.add_pull(VICTIM, VICTIM_HEAD, BASE, labels=(ACCEPT,))
    info = workflow_run(job, {"schema_version": 1, "pr_number": VICTIM, "head_sha": HEAD})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 2
    err = capsys.readouterr().err
    assert f"PR #{VICTIM} named by the PR info file has head {VICTIM_HEAD[:12]}, not {HEAD[:12]}" in err
    assert "does not belong to this run" in err
    assert fake.requests("GET", f"/issues/{VICTIM}") == []  # its labels were never read
    assert fake.statuses_for(HEAD) == [] and fake.statuses_for(VICTIM_HEAD) == []
    assert fake.comments_on(VICTIM) == [] and fake.comments_on(PR) == []
    assert job.outputs()["decision"] == "error"
    summary = job.summary.read_text()
    assert summary.startswith("## ordertrap-gate: error") and "nothing is published to it" in summary


def test_a_pr_the_api_cannot_show_is_refused_before_anything_is_published(job, fake, capsys):
    info = workflow_run(job, {"schema_version": 1, "pr_number": 999, "head_sha": HEAD})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 2
    assert "cannot read PR #999 named by the PR info file: 404" in capsys.readouterr().err
    assert fake.statuses_for(HEAD) == [] and fake.requests("GET", "/issues/") == []
    assert job.outputs()["decision"] == "error"


def test_a_verified_pr_gets_the_verdict_and_its_label_applies(job, fake):
    fake.add_pull(PR, HEAD, BASE, labels=(ACCEPT,), fork="outsider/widgets")
    info = workflow_run(job, {"schema_version": 1, "pr_number": PR, "head_sha": HEAD})
    assert job.publish(analyses.mixed(), "--pr-info", str(info)) == 0
    assert fake.statuses_for(HEAD)[-1]["state"] == "success" and len(fake.comments_on(PR)) == 1
    pulls = fake.requests("GET", f"/pulls/{PR}")
    issues = fake.requests("GET", f"/issues/{PR}")
    assert pulls and issues and fake.state.requests.index(pulls[0]) < fake.state.requests.index(issues[0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"schema_version": 1, "pr_number": "42", "head_sha": "%s"}', "has pr_number '42', not a PR number"),
        ('{"schema_version": 1, "pr_number": true, "head_sha": "%s"}', "has pr_number True, not a PR number"),
        ('{"schema_version": 1, "pr_number": -42, "head_sha": "%s"}', "has pr_number -42, not a PR number"),
        ('{"schema_version": 1, "pr_number": [42], "head_sha": "%s"}', "has pr_number [42], not a PR number"),
        ('{"schema_version": 1, "pr_number": 1%s, "head_sha": "%%s"}' % ("0" * 400), "has pr_number 1000"),
        ('{"schema_version": "abc", "pr_number": 42, "head_sha": "%s"}', "has schema_version 'abc'"),
        ('{"schema_version": 1, "pr_number": 42, "head_sha": "%s", "base_ref": ["main"]}', "has base_ref"),
        ("[" * 100_000 + "]" * 100_000, "is not readable JSON"),
        ('{"schema_version": 1, "pr_number": 42, "head_sha": 1%s}' % ("0" * 5000), "is not readable JSON"),
    ],
)
def test_a_malformed_pr_info_is_a_clear_error(job, fake, capsys, text, expected):
    fake.add_pull(PR, HEAD, BASE, labels=(ACCEPT,), fork="outsider/widgets")
    workflow_run(job, None)
    path = job.tmp / "ordertrap-pr.json"
    path.write_text(text.replace("%s", HEAD))
    assert job.publish(analyses.mixed(), "--pr-info", str(path)) == 2
    err = capsys.readouterr().err
    assert expected in err and "fix:" in err and "Traceback" not in err
    assert fake.statuses_for(HEAD) == [] and fake.comments_on(PR) == []
    assert job.outputs()["decision"] == "error"


# ---- analysis.json: the decision comes from the benchmarks ----------------------------------------


def _edit(change: Any) -> dict[str, Any]:
    doc = analyses.mixed()
    change(doc)
    return doc


def _pop_regression_count(doc: dict[str, Any]) -> None:
    doc["summary"]["counts"].pop("regression")


def _set(*path_and_value: Any) -> Any:
    """An edit of the document: ``_set("summary", "counts", "regression", 0)``."""
    *path, value = path_and_value

    def change(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BIG = 10**400  # written into the JSON text as 401 digits (see test below)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_pop_regression_count, "summary.counts disagree with the verdicts of its benchmarks"),
        (_set("summary", "counts", "regression", 0), "summary vs benchmarks: regression 0 vs 2"),
        (
            _set("summary", "counts", "regression", "abc"),
            "summary.counts.regression is 'abc', not a whole number",
        ),
        (
            _set("summary", "counts", "regression", 1.5),
            "summary.counts.regression is 1.5, not a whole number",
        ),
        (
            _set("summary", "counts", "regression", True),
            "summary.counts.regression is True, not a whole number",
        ),
        (_set("summary", "counts", "unchanged", -1), "summary.counts.unchanged is -1, not a whole number"),
        (_set("summary", "counts", "regresion", 2), "summary.counts has an unknown verdict 'regresion'"),
        (_set("summary", "counts", "regression", BIG), "holds a 401-digit integer"),
        (_set("benchmarks", 0, "change_pct", BIG), "holds a 401-digit integer"),
        (_set("summary", "only_in_base", BIG), "holds a 401-digit integer"),
        (_set("summary", "only_in_base", "2"), "summary.only_in_base is '2', not a whole number"),
        (_set("summary", "n_benchmarks", "x"), "summary.n_benchmarks is 'x', not a whole number"),
        (_set("summary", "n_benchmarks", 3), "summary.n_benchmarks is 3 but 7 benchmarks are listed"),
        (_set("summary", "failed_in_head_only", 1), "summary.failed_in_head_only is 1 but 0 listed"),
        (_set("benchmarks", 0, "verdict", "regresion"), "benchmarks[0] has verdict 'regresion', not one of"),
        (_set("environment", "x"), "environment is 'x', not an object (or null)"),
        (_set("environment", [1]), "environment is [1], not an object (or null)"),
        (_set("summary", "counts", [1, 2]), "has no summary.counts object"),
    ],
)
def test_a_malformed_or_inconsistent_analysis_sets_status_error(job, fake, capsys, change, expected):
    """Each of these gave a traceback (no status at all) or a silent pass before: a missing
    counts.regression beside two listed regressions published `pass` while the log annotated them."""
    job.pull_request()
    doc = _edit(change)
    assert doc != analyses.mixed()
    assert job.publish(doc) == 2
    err = capsys.readouterr().err
    assert expected in err and "fix:" in err and "re-run `ordertrap-gate analyze" in err
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == "error" and status["description"].startswith("analysis could not be made: ")
    assert str(job.tmp) not in status["description"]  # the file's name, leaving room for the reason
    assert job.outputs()["decision"] == "error" and fake.comments_on(PR) == []
    assert "**Fix:**" in job.summary.read_text()


def test_json_nested_past_the_parser_limit_is_an_error(job, fake, capsys):
    job.pull_request()
    path = job.tmp / "analysis.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert job.publish(path) == 2
    assert "is nested too deeply to be an analysis.json" in capsys.readouterr().err
    assert fake.statuses_for(HEAD)[-1]["state"] == "error"


def test_a_consistent_analysis_with_counts_left_out_still_publishes(job, fake):
    """Counts of zero may be left out (the default policy reads a missing count as 0); only counts
    that contradict the benchmarks are refused."""
    job.pull_request()
    doc = analyses.mixed()
    doc["summary"]["counts"] = {k: v for k, v in doc["summary"]["counts"].items() if v}
    assert len(doc["summary"]["counts"]) < 5
    assert job.publish(doc) == 1
    assert fake.statuses_for(HEAD)[-1]["state"] == "failure"


@pytest.mark.parametrize("name", sorted(analyses.SCENARIOS))
def test_every_scenario_analysis_passes_the_checks(name):
    from gate.files import analysis_json

    doc = analyses.SCENARIOS[name]()
    analysis_json.parse(json.dumps(doc), name)


def test_a_read_only_token_on_an_unusable_analysis_names_the_permission(job, fake, capsys, monkeypatch):
    job.pull_request(fork="outsider/widgets")
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", READ_ONLY_TOKEN)
    path = job.tmp / "analysis.json"
    path.write_text("{not json")
    assert job.publish(path) == 2
    assert "could not be set: 403 The token cannot write the commit status" in capsys.readouterr().out
    assert job.outputs()["decision"] == "error" and fake.statuses_for(HEAD) == []
