"""Open or update the one GitHub issue that lists the history's recent change points.

The issue is found like the PR comment (gate/github/comment.py): an open issue whose body holds
the hidden :data:`MARKER` *and* whose author is the token's identity, so a copied marker in
someone else's issue is never edited. REST endpoints through PyGithub (docs.github.com, "REST
API endpoints for issues"): ``GET /repos/{o}/{r}/issues?state=open`` (paginated),
``POST /repos/{o}/{r}/issues`` to create, ``PATCH /repos/{o}/{r}/issues/{n}`` to edit.
Nothing is written when every recent change point is already listed (a nightly run that finds
nothing new makes no noise), and nothing is created when there is none.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from github import Github
from github.Repository import Repository

from gate.errors import InputError
from gate.github.comment import token_login
from gate.history.changes import read_changes_json
from gate.render import filters

MARKER = "<!-- ordertrap-gate:history-issue -->"
BODY_LIMIT = 65536  # characters: GitHub rejects longer issue bodies
MAX_ROWS = 200
KEY_PREFIX = "<!-- ordertrap-gate:cp "


@dataclass(frozen=True)
class IssueResult:
    action: Literal["created", "updated", "unchanged", "none"]
    url: str | None = None
    number: int | None = None
    new: int = 0


def _name(cp: dict[str, Any]) -> str:
    """The series' name (benchmark, machine, environment); a document written before series had
    names carries the benchmark only."""
    return str(cp.get("series") or cp["benchmark"])


def _key(cp: dict[str, Any]) -> str:
    # hex, so no benchmark name or commit text can close the HTML comment it sits in
    text = "\0".join((_name(cp), cp["before"], cp["after"]))
    return f"{KEY_PREFIX}{text.encode().hex()} -->"


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def recent(doc: dict[str, Any], days: int, today: datetime | None = None) -> list[dict[str, Any]]:
    """Change points whose step lies within ``days`` of the newest night in the history (the
    document's ``newest_date``), or of ``today`` when the document does not say: never of the
    newest change point, which would announce an old step as recent on the day it is imported."""
    cps = doc.get("change_points")
    if not isinstance(cps, list):
        raise InputError(
            "the changes file has no change_points list",
            "pass the file written by `ordertrap-gate history changes --json`",
        )
    if not cps:
        return []
    newest_text = doc.get("newest_date")
    newest = _when(newest_text) if isinstance(newest_text, str) else (today or datetime.now(UTC))
    since = newest - timedelta(days=days)
    return [cp for cp in cps if _when(cp["after_date"]) >= since]


def render_body(
    cps: list[dict[str, Any]],
    server_url: str,
    repository: str,
    report_url: str | None,
    run_url: str | None,
    limit: int = MAX_ROWS,
) -> str:
    """Markdown: one row per change point, grouped by commit range, every name in a code span."""
    base = f"{server_url}/{repository}"
    lines = [
        MARKER,
        "## Performance change points on the default branch",
        "",
        "Found by `ordertrap-gate history changes` (Apache Otava, E-Divisive means) in the nightly history. "
        "Each row is a step between two nightly commits; bisect the range with the gate "
        "(base = before, head = each commit in between: docs/history.md).",
        "",
        "| series (benchmark [machine · environment]) | change | CI | commit range | moved together |",
        "|---|---:|---|---|---:|",
    ]
    shown = sorted(cps, key=lambda cp: (cp["after_date"], _name(cp)))[-limit:] if limit else []
    for cp in shown:
        rng = f"{base}/compare/{cp['before']}...{cp['after']}"
        lines.append(
            f"| {filters.md_code(filters.shorten_middle(_name(cp), 100))} "
            f"| {filters.fmt_pct(cp['change_pct'])} {filters.md_escape(cp['direction'])} "
            f"| {filters.fmt_pct_ci(cp['change_ci'])} "
            f"| [{filters.md_escape(cp['before'][:10])}…{filters.md_escape(cp['after'][:10])}]({filters.safe_url(rng)}) "
            f"| {len(cp['moved_together'])} |"
        )
    if len(cps) > len(shown):
        lines.append(f"\n{len(cps) - len(shown)} older change point(s) are not listed; see the trend page.")
    links = []
    if report_url:
        links.append(f"[trend page]({filters.safe_url(report_url)})")
    if run_url:
        links.append(f"[workflow run]({filters.safe_url(run_url)})")
    if links:
        lines += ["", " · ".join(links)]
    lines += ["", *(_key(cp) for cp in shown)]
    body = "\n".join(lines) + "\n"
    if len(body) > BODY_LIMIT and limit:
        # the newest rows are kept; names are cut to 100 characters, so this ends quickly
        return render_body(cps, server_url, repository, report_url, run_url, limit // 2)
    return body


def _title(cps: list[dict[str, Any]]) -> str:
    ranges = {(cp["before"], cp["after"]) for cp in cps}
    series = {_name(cp) for cp in cps}
    return f"Performance change points: {len(series)} series in {len(ranges)} commit range(s)"


def upsert_issue(
    gh: Github, repo: Repository, cps: list[dict[str, Any]], body: str, *, login: str | None = None
) -> IssueResult:
    if MARKER not in body:
        raise ValueError("the rendered issue lacks the marker; upserting it would create duplicates")
    login = login or token_login(gh)
    ours = [
        i
        for i in repo.get_issues(state="open")
        if i.pull_request is None and MARKER in (i.body or "") and i.user.login == login
    ]
    if ours:
        issue = min(ours, key=lambda i: i.number)
        new = [cp for cp in cps if _key(cp) not in (issue.body or "")]
        if not new:
            return IssueResult("unchanged", issue.html_url, issue.number)
        issue.edit(title=_title(cps), body=body)
        return IssueResult("updated", issue.html_url, issue.number, new=len(new))
    if not cps:
        return IssueResult("none")
    created = repo.create_issue(title=_title(cps), body=body)
    return IssueResult("created", created.html_url, created.number, new=len(cps))


def issue_from_env(args: argparse.Namespace) -> IssueResult:
    from gate.github.client import make_client
    from gate.github.context import from_env

    doc = read_changes_json(args.changes)
    settings = from_env()
    if args.repo:
        settings = dataclasses.replace(settings, repository=args.repo)
    owner, name = settings.owner_repo
    cps = recent(doc, args.recent)
    gh = make_client(settings)
    repo = gh.get_repo(f"{owner}/{name}")
    body = render_body(cps, settings.server_url, f"{owner}/{name}", args.report_url, args.run_url)
    return upsert_issue(gh, repo, cps, body)
