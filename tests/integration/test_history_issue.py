"""`history issue` against the fake GitHub server through the real PyGithub client: one issue,
created once, updated only when a new change point appears, never someone else's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.history.issue import MARKER
from gate.render.filters import md_code, shorten_middle
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub

HOSTILE = "`@octocat` <!-- --> [x](javascript:alert(1)) | #1"


def _cp(name: str, before: str, after: str, date: str, change: float = 5.0) -> dict[str, Any]:
    return {
        "benchmark": name,
        "before": before,
        "after": after,
        "before_date": date,
        "after_date": date,
        "change_pct": change,
        "change_ci": [change - 1, change + 1],
        "direction": "regression",
        "moved_together": [name],
        "index": 10,
    }


def _changes(tmp_path: Path, cps: list[dict[str, Any]], newest: str | None = None) -> Path:
    """A changes document; the history's newest night is the newest step's unless ``newest``."""
    out = tmp_path / f"changes-{len(list(tmp_path.iterdir()))}.json"
    newest = newest or max((cp["after_date"] for cp in cps), default="2026-11-20T02:17:00Z")
    doc = {"schema_version": 1, "newest_date": newest, "change_points": cps, "groups": []}
    out.write_text(json.dumps(doc))
    return out


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeGitHub() as gh:
        monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        monkeypatch.setenv("GITHUB_REPOSITORY", gh.full_name)
        yield gh


def _issue(path: Path) -> int:
    return main(
        ["history", "issue", str(path), "--report-url", "https://acme.github.io/widgets/history.html"]
    )


def test_one_issue_created_then_updated_only_for_new_change_points(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = [
        _cp("alloc", "a" * 40, "b" * 40, "2026-11-20T02:17:00Z"),
        _cp(HOSTILE, "a" * 40, "b" * 40, "2026-11-20T02:17:00Z"),
    ]
    assert _issue(_changes(tmp_path, first)) == 0
    (issue,) = fake.issues()
    assert MARKER in issue["body"] and issue["user"]["login"] == "github-actions[bot]"
    assert "history issue: created" in capsys.readouterr().out
    # hostile name: only inside a code span (no live mention, link, HTML comment end or table break)
    assert HOSTILE not in issue["body"]
    assert md_code(shorten_middle(HOSTILE, 100)) in issue["body"]
    assert "/compare/" + "a" * 40 + "..." + "b" * 40 in issue["body"]

    assert _issue(_changes(tmp_path, first)) == 0  # nothing new: no write at all
    assert "history issue: unchanged" in capsys.readouterr().out
    assert not fake.requests("PATCH") and len(fake.requests("POST", "/issues")) == 1

    later = [*first, _cp("parse", "b" * 40, "c" * 40, "2026-11-24T02:17:00Z", -8.0)]
    assert _issue(_changes(tmp_path, later)) == 0
    assert "history issue: updated" in capsys.readouterr().out
    (issue,) = fake.issues()
    assert "/compare/" + "b" * 40 + "..." + "c" * 40 in issue["body"]
    assert len(fake.requests("PATCH", "/issues/")) == 1


def test_someone_elses_issue_with_the_marker_is_left_alone(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_issue(1, "copied", f"{MARKER}\nsomeone copied our marker", login="mallory")
    assert _issue(_changes(tmp_path, [_cp("alloc", "a" * 40, "b" * 40, "2026-11-20T02:17:00Z")])) == 0
    theirs, ours = sorted(fake.issues(), key=lambda i: i["number"])
    assert theirs["body"] == f"{MARKER}\nsomeone copied our marker"
    assert ours["user"]["login"] == "github-actions[bot]" and not fake.requests("PATCH")


def test_no_change_point_opens_no_issue(fake: FakeGitHub, tmp_path: Path) -> None:
    assert _issue(_changes(tmp_path, [])) == 0
    assert fake.issues() == [] and not fake.requests("POST")


def test_recent_is_counted_from_the_newest_night_not_the_newest_step(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    # a history imported today whose last step is a year old: nothing is recent
    old = [_cp("alloc", "a" * 40, "b" * 40, "2025-11-20T02:17:00Z")]
    assert _issue(_changes(tmp_path, old, newest="2026-11-25T02:17:00Z")) == 0
    assert fake.issues() == [] and not fake.requests("POST")
    # the same step within the last 7 nights is reported
    assert _issue(_changes(tmp_path, old, newest="2025-11-26T02:17:00Z")) == 0
    (issue,) = fake.issues()
    assert "/compare/" + "a" * 40 + "..." + "b" * 40 in issue["body"]


def test_series_are_named_with_machine_and_environment(fake: FakeGitHub, tmp_path: Path) -> None:
    cps = []
    for env in ("conda-py3.8", "conda-py3.12"):
        cp = _cp("query.time_filter", "a" * 40, "b" * 40, "2026-11-20T02:17:00Z")
        cp["series"] = f"query.time_filter [ubuntu-22.04 · {env}]"
        cps.append(cp)
    assert _issue(_changes(tmp_path, cps)) == 0
    (issue,) = fake.issues()
    for env in ("conda-py3.8", "conda-py3.12"):
        assert md_code(f"query.time_filter [ubuntu-22.04 · {env}]") in issue["body"]
    assert "2 series in 1 commit range" in issue["title"]
