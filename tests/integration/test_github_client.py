"""gate.github against the fake GitHub server, through the real PyGithub client (no mocks)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from github import GithubException

from gate.errors import ConfigError, GitHubError
from gate.github import outputs
from gate.github.client import make_client, make_retry
from gate.github.comment import ACTIONS_BOT, token_login, upsert_comment
from gate.github.context import ActionSettings, Secret, from_env
from gate.github.status import CONTEXT, set_status
from tests.fakes.github_server import ACTIONS_TOKEN, PAT_TOKEN, READ_ONLY_TOKEN, FakeGitHub

MARKER = "<!-- test-marker -->"
HEAD = "c" * 40


@pytest.fixture
def fake():
    with FakeGitHub() as server:
        server.add_pull(7, HEAD)
        yield server


def client_for(fake: FakeGitHub, token: str = ACTIONS_TOKEN):
    settings = ActionSettings(token=Secret(token), api_url=fake.url, repository=fake.full_name)
    return make_client(settings, retry=make_retry(total=3, backoff_factor=0.01), throttle=False)


def test_settings_never_show_the_token():
    settings = from_env({"INPUT_GITHUB_TOKEN": "ghs_supersecret", "GITHUB_REPOSITORY": "a/b"})
    assert settings.token.reveal() == "ghs_supersecret"
    assert "supersecret" not in repr(settings)
    assert "supersecret" not in str(settings.token)


def test_settings_read_inputs_and_validate_choices():
    settings = from_env(
        {"INPUT_FAIL_ON": "Inconclusive", "INPUT_COMMENT": "always", "INPUT_TRIALS": "a/*.csv, b.csv\nc.csv"}
    )
    assert (settings.inputs.fail_on, settings.inputs.comment, settings.inputs.trials) == (
        "inconclusive",
        "always",
        ("a/*.csv", "b.csv", "c.csv"),
    )
    assert settings.inputs.accept_label == "perf-regression-accepted"
    with pytest.raises(ConfigError, match="fail_on") as info:
        from_env({"INPUT_FAIL_ON": "sometimes"})
    assert "regression, inconclusive, never" in info.value.fix


def test_token_from_github_token_when_input_is_empty():
    assert from_env({"INPUT_GITHUB_TOKEN": "", "GITHUB_TOKEN": "t2"}).token.reveal() == "t2"


def test_missing_token_names_the_fix():
    with pytest.raises(GitHubError) as info:
        make_client(ActionSettings(token=Secret(""), repository="a/b"))
    assert "github_token" in info.value.fix


def test_actions_token_falls_back_to_the_bot_login(fake):
    assert token_login(client_for(fake)) == ACTIONS_BOT
    assert token_login(client_for(fake, PAT_TOKEN)) == "octocat"


def test_create_then_update_never_duplicates(fake):
    gh = client_for(fake)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    first = upsert_comment(gh, issue, f"{MARKER}\nfirst", MARKER)
    second = upsert_comment(gh, issue, f"{MARKER}\nsecond", MARKER)
    third = upsert_comment(gh, issue, f"{MARKER}\nsecond", MARKER)
    assert (first.action, second.action, third.action) == ("created", "updated", "unchanged")
    comments = fake.comments_on(7)
    assert len(comments) == 1 and comments[0]["body"].endswith("second")
    assert first.comment_id == second.comment_id == comments[0]["id"]
    assert len(fake.requests("PATCH")) == 1


def test_someone_elses_comment_with_the_marker_is_not_edited(fake):
    fake.add_comment(7, f"{MARKER} copied by a human", login="mallory")
    gh = client_for(fake)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    result = upsert_comment(gh, issue, f"{MARKER}\nours", MARKER)
    assert result.action == "created"
    bodies = {c["body"] for c in fake.comments_on(7)}
    assert bodies == {f"{MARKER} copied by a human", f"{MARKER}\nours"}


def test_finds_its_comment_past_the_first_page(fake):
    for i in range(35):
        fake.add_comment(7, f"chatter {i}")
    existing = fake.add_comment(7, f"{MARKER}\nold", login=ACTIONS_BOT)
    settings = ActionSettings(token=Secret(ACTIONS_TOKEN), api_url=fake.url, repository=fake.full_name)
    from github import Github

    gh = make_client(settings, retry=make_retry(total=2, backoff_factor=0.01), throttle=False)
    assert isinstance(gh, Github)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    result = upsert_comment(gh, issue, f"{MARKER}\nnew", MARKER, login=ACTIONS_BOT)
    assert result.action == "updated" and result.comment_id == existing["id"]
    assert any("page=2" in r.path or r.method == "GET" for r in fake.requests("GET", "/comments"))
    assert len(fake.comments_on(7)) == 36


def test_create_false_does_not_create(fake):
    gh = client_for(fake)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    assert upsert_comment(gh, issue, f"{MARKER} x", MARKER, create=False).action == "skipped"
    assert fake.comments_on(7) == []


@pytest.mark.parametrize("state", ["success", "failure", "error", "pending"])
def test_status_states(fake, state):
    repo = client_for(fake).get_repo(fake.full_name)
    set_status(repo, HEAD, state, "x" * 300, "http://example.invalid/run")
    (status,) = fake.statuses_for(HEAD)
    assert status["state"] == state and status["context"] == CONTEXT
    assert len(status["description"]) == 140 and status["target_url"] == "http://example.invalid/run"


def test_5xx_then_success_is_retried(fake):
    fake.fail_next("POST", r"/statuses/", 502, times=2, message="Bad Gateway")
    repo = client_for(fake).get_repo(fake.full_name)
    set_status(repo, HEAD, "success", "ok")
    assert len(fake.statuses_for(HEAD)) == 1
    assert len(fake.requests("POST", "/statuses/")) == 3


def test_secondary_rate_limit_waits_retry_after_then_succeeds(fake):
    fake.fail_next(
        "POST",
        r"/comments$",
        403,
        message="You have exceeded a secondary rate limit. Please wait a few minutes.",
        headers={"Retry-After": "1"},
    )
    gh = client_for(fake)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    assert upsert_comment(gh, issue, f"{MARKER} y", MARKER).action == "created"
    assert len(fake.requests("POST", "/comments")) == 2 and len(fake.comments_on(7)) == 1


def test_persistent_5xx_gives_up(fake):
    fake.fail_next("POST", r"/statuses/", 503, times=10)
    repo = client_for(fake).get_repo(fake.full_name)
    with pytest.raises(Exception) as info:
        set_status(repo, HEAD, "success", "ok")
    assert "503" in str(info.value) or "too many" in str(info.value).lower()


def test_read_only_token_gets_403_at_once(fake):
    gh = client_for(fake, READ_ONLY_TOKEN)
    repo = gh.get_repo(fake.full_name)
    with pytest.raises(GithubException) as info:
        set_status(repo, HEAD, "success", "ok")
    assert info.value.status == 403
    assert len(fake.requests("POST", "/statuses/")) == 1  # a permission 403 is not retried


def test_outputs_file_format(tmp_path: Path):
    path = tmp_path / "out"
    outputs.write_outputs(path, {"decision": "fail", "regressions": 2, "comment_url": ""})
    outputs.write_outputs(path, {"notes": "line 1\nline 2"})
    lines = path.read_text().splitlines()
    assert lines[:3] == ["decision=fail", "regressions=2", "comment_url="]
    assert lines[3].startswith("notes<<ghadelimiter_")
    delimiter = lines[3].split("<<", 1)[1]
    assert lines[4:] == ["line 1", "line 2", delimiter]


def test_annotations_are_capped_at_ten():
    stream = io.StringIO()
    shown = outputs.annotate_errors(
        [(f"t{i}", f"bench {i}: +5%\n::warning::x") for i in range(25)], stream=stream
    )
    lines = stream.getvalue().splitlines()
    assert shown == 10 and len(lines) == 10
    assert all(line.startswith("::error title=") for line in lines)
    assert "16 more regressions" in lines[-1]
    assert "%0A::warning::x" in lines[0]  # a newline in a message cannot start a second command


def test_summary_is_appended(tmp_path: Path):
    path = tmp_path / "summary.md"
    path.write_text("previous step\n")
    outputs.write_summary(path, "## gate")
    assert path.read_text() == "previous step\n## gate\n"


def test_unwritable_output_names_the_fix(tmp_path: Path):
    with pytest.raises(GitHubError) as info:
        outputs.write_outputs(tmp_path / "missing-dir" / "out", {"a": 1})
    assert "GITHUB_OUTPUT" in info.value.fix


def test_event_file_is_json(tmp_path: Path):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"x": 1}))
    assert from_env({"GITHUB_EVENT_PATH": str(event)}).event_path == event


def test_duplicates_from_a_race_are_removed_keeping_the_oldest(fake):
    oldest = fake.add_comment(7, f"{MARKER}\nfrom job 1", login=ACTIONS_BOT)
    fake.add_comment(7, "a human comment in between")
    fake.add_comment(7, f"{MARKER}\nfrom job 2", login=ACTIONS_BOT)
    gh = client_for(fake)
    issue = gh.get_repo(fake.full_name).get_issue(7)
    result = upsert_comment(gh, issue, f"{MARKER}\nnew", MARKER)
    assert (result.action, result.comment_id, result.removed) == ("updated", oldest["id"], 1)
    bodies = sorted(c["body"] for c in fake.comments_on(7))
    assert bodies == [f"{MARKER}\nnew", "a human comment in between"]
    assert len(fake.requests("DELETE")) == 1
