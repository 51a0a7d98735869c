"""Upsert the one PR comment of the gate, found by the hidden marker the renderer puts in it.

REST endpoints used through PyGithub (docs.github.com, "REST API endpoints for issue comments"):
``GET /repos/{o}/{r}/issues/{n}/comments`` (paginated), ``POST`` on the same path to create,
``PATCH /repos/{o}/{r}/issues/comments/{id}`` to edit. The comment is ours when its body holds the
marker *and* its author is the token's identity, so a copied marker in someone else's comment is
never edited. The default ``GITHUB_TOKEN`` cannot read ``GET /user`` (403 "Resource not accessible
by integration"); its comments are authored by ``github-actions[bot]``, which is the fallback.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from github import Github, GithubException
from github.Issue import Issue
from github.IssueComment import IssueComment

ACTIONS_BOT: str = "github-actions[bot]"


@dataclass(frozen=True)
class CommentResult:
    action: Literal["created", "updated", "unchanged", "skipped"]
    url: str | None = None
    comment_id: int | None = None
    removed: int = 0  # duplicates deleted


def token_login(gh: Github) -> str:
    """The login that comments with this token: ``/user`` when readable, else the Actions bot."""
    # PyGithub logs every 403 at INFO on stderr; this one is expected with the Actions token.
    retry_log = logging.getLogger("github.GithubRetry")
    level = retry_log.level
    retry_log.setLevel(logging.WARNING)
    try:
        return str(gh.get_user().login)
    except GithubException as exc:
        if exc.status in (401, 403, 404):
            return ACTIONS_BOT
        raise
    finally:
        retry_log.setLevel(level)


def find_comments(issue: Issue, marker: str, login: str) -> list[IssueComment]:
    """Our comments carrying ``marker``, oldest first (the first is the one every run edits)."""
    return [
        comment
        for comment in issue.get_comments()
        if marker in (comment.body or "") and comment.user is not None and comment.user.login == login
    ]


def upsert_comment(
    gh: Github, issue: Issue, body: str, marker: str, *, create: bool = True, login: str | None = None
) -> CommentResult:
    """Edit our existing comment, or create it when ``create`` is true. Never a duplicate.

    Duplicates can still arise outside this function — two jobs racing on the same PR, or a
    create retried after a 5xx that GitHub had in fact applied — so extra copies found here are
    deleted (``DELETE /repos/{o}/{r}/issues/comments/{id}``) and the oldest one is kept.
    """
    if marker not in body:
        raise ValueError("the rendered comment lacks the marker; upserting it would create duplicates")
    login = login or token_login(gh)
    found = find_comments(issue, marker, login)
    if found:
        existing, duplicates = found[0], found[1:]
        for duplicate in duplicates:
            duplicate.delete()
        if existing.body == body:
            return CommentResult("unchanged", existing.html_url, existing.id, removed=len(duplicates))
        existing.edit(body)
        return CommentResult("updated", existing.html_url, existing.id, removed=len(duplicates))
    if not create:
        return CommentResult("skipped")
    created = issue.create_comment(body)
    return CommentResult("created", created.html_url, created.id)
