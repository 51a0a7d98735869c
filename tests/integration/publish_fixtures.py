"""The set-up every test of `publish` and of the Docker action's entrypoint shares: the fake GitHub
server (tests/fakes/github_server.py), a GitHub-shaped job around it (:class:`Job`) and `publish`'s
client made fast; tests/integration/conftest.py offers the fixtures ``fake`` and ``job``."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.commands import publish as publish_module
from gate.github.client import make_client, make_retry
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub

HEAD = "a1" * 20
BASE = "b2" * 20
PUSH_SHA = "c3" * 20
PR = 42


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


class Job:
    """A GitHub-shaped job environment in tmp_path: event file, output and summary files."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeGitHub) -> None:
        self.tmp = tmp_path
        self.fake = fake
        self.mp = monkeypatch
        self.output = tmp_path / "github_output"
        self.summary = tmp_path / "step_summary.md"
        self.output.touch()
        self.summary.touch()
        for name in ("INPUT_FAIL_ON", "INPUT_COMMENT", "INPUT_ACCEPT_LABEL", "INPUT_PR_INFO", "GITHUB_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        for key, value in {
            "GITHUB_API_URL": fake.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_REPOSITORY": fake.full_name,
            "GITHUB_RUN_ID": "123456",
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN,
        }.items():
            monkeypatch.setenv(key, value)

    def event(self, name: str, payload: dict[str, Any], sha: str) -> None:
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload))
        self.mp.setenv("GITHUB_EVENT_NAME", name)
        self.mp.setenv("GITHUB_EVENT_PATH", str(path))
        self.mp.setenv("GITHUB_SHA", sha)

    def pull_request(self, *, labels: tuple[str, ...] = (), fork: str | None = None) -> None:
        pull = self.fake.add_pull(PR, HEAD, BASE, labels=labels, fork=fork)
        payload = {
            "action": "synchronize",
            "number": PR,
            "pull_request": pull,
            "repository": {"full_name": self.fake.full_name},
        }
        self.event("pull_request", payload, "d4" * 20)

    def analysis(self, doc: dict[str, Any], name: str = "analysis.json") -> Path:
        path = self.tmp / name
        path.write_text(json.dumps(doc))
        return path

    def outputs(self) -> dict[str, str]:
        lines = self.output.read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line and "<<" not in line)

    def publish(self, doc: dict[str, Any] | Path, *args: str) -> int:
        path = doc if isinstance(doc, Path) else self.analysis(doc)
        return main(["publish", "--analysis", str(path), *args])


@pytest.fixture
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeGitHub) -> Job:
    # PyGithub's request spacing (1 s between writes) only slows these tests down; the client is
    # otherwise the one publish builds (same factory, real PyGithub, real retry class).
    fast = functools.partial(make_client, throttle=False, retry=make_retry(total=5, backoff_factor=0.05))
    monkeypatch.setattr(publish_module, "make_client", fast)
    return Job(tmp_path, monkeypatch, fake)


def workflow_run(job: Job, pr_info: dict[str, Any] | None, *, fork: bool = True) -> Path | None:
    head_repo = "outsider/widgets" if fork else job.fake.full_name
    job.event(
        "workflow_run",
        {
            "action": "completed",
            "workflow_run": {
                "id": 99,
                "head_sha": HEAD,
                "head_branch": "feature",
                "event": "pull_request",
                "conclusion": "success",
                "pull_requests": [],
                "head_repository": {"full_name": head_repo},
            },
        },
        "e5" * 20,
    )
    if pr_info is None:
        return None
    path = job.tmp / "ordertrap-pr.json"
    path.write_text(json.dumps(pr_info))
    return path
