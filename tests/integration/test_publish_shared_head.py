"""Two pull requests whose head is the same commit share its commit status (a status belongs to a
commit): the real `publish` CLI through PyGithub against the fake GitHub server, two PRs, one head.
The context stays `ordertrap-gate` (what branch protection requires), the description names the
PR, and a failure is never turned green by another PR's run or by an older run of its own PR."""

from __future__ import annotations

import pytest

from tests.fakes import analyses
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub
from tests.integration.publish_fixtures import BASE, HEAD, Job

TO_MAIN = 42
TO_RELEASE = 43
RELEASE_BASE = "e5" * 20


@pytest.fixture(autouse=True)
def two_pulls_with_one_head(fake):
    fake.add_pull(TO_MAIN, HEAD, BASE)
    fake.add_pull(TO_RELEASE, HEAD, RELEASE_BASE, head_ref="feature")


def _run(job: Job, number: int, run_id: int, doc: dict) -> int:
    """The gate's job of PR ``number`` (run ``run_id``) publishing ``doc``."""
    pull = job.fake.state.pulls[number]
    payload = {"action": "synchronize", "number": number, "pull_request": pull, "repository": {}}
    job.event("pull_request", payload, "d4" * 20)
    job.mp.setenv("GITHUB_RUN_ID", str(run_id))
    job.output.write_text("")
    job.summary.write_text("")
    return job.publish(doc)


def _latest(fake: FakeGitHub) -> dict:
    return fake.statuses_for(HEAD)[-1]


def test_one_context_naming_the_pr(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.all_unchanged()) == 0
    status = _latest(fake)
    assert status["context"] == "ordertrap-gate" and status["state"] == "success"
    assert status["description"].endswith(" (PR #42)") and len(status["description"]) <= 140
    assert status["target_url"].endswith("/actions/runs/100")


def test_another_prs_success_does_not_turn_a_failure_green(job, fake, capsys):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1  # a regression against main
    assert _latest(fake)["state"] == "failure"
    # the same commit against the release branch: no regression there
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["failure"]
    assert _latest(fake)["description"].endswith("(PR #42)")
    log = capsys.readouterr().out
    assert "the status stays `failure`" in log and "PR #42 has this commit as its head too" in log
    assert "has this commit as its head too" in job.summary.read_text()
    assert job.outputs()["decision"] == "pass"  # PR 43's own verdict is unchanged

    # a failure of the other PR is written over a success, naming its PR
    assert _run(job, TO_RELEASE, 102, analyses.mixed()) == 1
    assert _latest(fake)["state"] == "failure" and _latest(fake)["description"].endswith("(PR #43)")


def test_the_same_prs_newer_run_clears_its_failure(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    fake.set_labels(TO_MAIN, ("perf-regression-accepted",))
    assert _run(job, TO_MAIN, 101, analyses.mixed()) == 0
    assert _latest(fake)["state"] == "success" and "accepted" in _latest(fake)["description"]
    # now PR 43's success may be written over PR 42's success
    assert _run(job, TO_RELEASE, 102, analyses.all_unchanged()) == 0
    assert _latest(fake)["description"].endswith("(PR #43)")


def test_a_failure_of_a_pr_that_moved_on_is_replaced(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    fake.state.pulls[TO_MAIN]["head"]["sha"] = "f6" * 20  # PR 42 got a new commit
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    assert _latest(fake)["state"] == "success" and _latest(fake)["description"].endswith("(PR #43)")


def test_a_closed_pr_no_longer_holds_the_commit(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    fake.state.pulls[TO_MAIN]["state"] = "closed"
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    assert _latest(fake)["state"] == "success"


def test_an_unanswered_pr_read_keeps_the_failure(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    fake.fail_next("GET", r"/pulls/42$", 503, times=10)
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["failure"]


def test_an_older_run_finishing_late_does_not_replace_a_newer_one(job, fake, capsys):
    fake.set_labels(TO_MAIN, ("perf-regression-accepted",))
    assert _run(job, TO_MAIN, 101, analyses.mixed()) == 0  # the newer run: accepted
    fake.set_labels(TO_MAIN, ())
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1  # the older run ends last
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["success"]
    assert "a newer run (101) of PR #42 already set it" in capsys.readouterr().out
    # an older run's error does not replace it either
    broken = job.tmp / "broken.json"
    broken.write_text("{")
    assert _run(job, TO_MAIN, 99, broken) != 0  # type: ignore[arg-type]
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["success"]
    # a re-run of the newest run (same run id, next attempt) replaces it
    assert _run(job, TO_MAIN, 101, analyses.mixed()) == 1
    assert _latest(fake)["state"] == "failure"


def test_a_push_run_does_not_turn_a_prs_failure_green(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    job.event("push", {"after": HEAD}, HEAD)
    job.mp.setenv("GITHUB_RUN_ID", "101")
    assert job.publish(analyses.all_unchanged()) == 0
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["failure"]
    # a status without a PR does not hold against a PR's run
    fake.state.statuses.clear()
    assert job.publish(analyses.mixed()) == 1
    assert not _latest(fake)["description"].endswith(")")
    assert _run(job, TO_MAIN, 102, analyses.all_unchanged()) == 0
    assert _latest(fake)["state"] == "success"


def test_statuses_of_other_contexts_are_ignored(job, fake):
    assert _run(job, TO_MAIN, 100, analyses.mixed()) == 1
    with fake.lock:
        fake.state.statuses[HEAD].append(
            {**fake.state.statuses[HEAD][0], "id": 1, "context": "ci/other", "state": "success"}
        )
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    # the newest status of the commit is another context's success: PR 42's failure still counts
    assert [s["context"] for s in fake.statuses_for(HEAD)] == ["ordertrap-gate", "ci/other"]


def test_a_failure_written_between_the_read_and_the_write_is_put_back_on_top(job, fake, capsys):
    """PR 42's run writes its failure after PR 43's run read the statuses and before it writes its
    success (the statuses API has no compare-and-set): the failure ends on top again."""

    def other_run_writes(state: str) -> None:
        body = {
            "state": state,
            "description": f"{state}: see the PR comment (PR #42)",
            "target_url": "https://github.example/acme/widgets/actions/runs/100",
            "context": "ordertrap-gate",
        }
        assert (
            fake.handle("POST", f"/repos/{fake.full_name}/statuses/{HEAD}", {}, ACTIONS_TOKEN, body)[0] == 201
        )

    fake.before_next("POST", r"/statuses/", lambda: other_run_writes("failure"))
    assert _run(job, TO_RELEASE, 101, analyses.all_unchanged()) == 0
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["failure", "success", "failure"]
    assert _latest(fake)["description"].endswith("(PR #42)") and _latest(fake)["target_url"].endswith("/100")
    assert "that status was written again on top" in capsys.readouterr().out
    # a success that landed in between is not written again: only what the rules keep
    fake.state.statuses.clear()
    fake.before_next("POST", r"/statuses/", lambda: other_run_writes("success"))
    assert _run(job, TO_RELEASE, 102, analyses.all_unchanged()) == 0
    assert [s["state"] for s in fake.statuses_for(HEAD)] == ["success", "success"]
    assert _latest(fake)["description"].endswith("(PR #43)")
