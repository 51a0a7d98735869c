"""Refuse to run a fork PR's code on the benchmark runner unless a maintainer opted in.

``ordertrap-gate fork-guard`` (exit 0 = go, 1 = refused, 2 = could not decide). It
runs twice in the example workflows:

1. in ``guard/action.yml``, the only step of a ``guard`` job on a GitHub-hosted runner without a
   checkout: the benchmark job ``needs:`` it and runs only when its output ``allowed`` is
   ``true``, so the trust decision is made before any of the PR's files are on the self-hosted
   machine;
2. in ``run/action.yml``, again on the benchmark runner, as a second layer for workflows without
   the guard job.

Both actions start every Python process with ``-I`` (isolated mode: neither the working
directory nor ``PYTHON*`` variables take part in the module search; docs.python.org, "Command
line and environment"), so a PR that adds a top-level ``gate``, ``venv`` or ``pip`` package
cannot put its code in place of this check.

A PR from a fork may be run when either

* the workflow sets the input ``allow_fork_prs: true`` (a maintainer's decision in the base
  repository's workflow file), or
* this very run was triggered by a maintainer adding the opt-in label: the event is
  ``pull_request`` with ``action: labeled`` and ``label.name`` = the opt-in label, and the
  ``sender``'s permission on the repository, asked from the API
  (``GET /repos/{o}/{r}/collaborators/{user}/permission``), is ``admin``, ``maintain`` or
  ``write`` — anyone with triage rights can add labels, so the label alone proves nothing.

Only the labelling run is accepted, not a later push on a labelled PR: the label stays when the
fork pushes new commits, but the maintainer approved the head SHA in that labelling event
(``pull_request.head.sha`` of its payload). The step output ``head_sha`` is that commit (for
other events ``GITHUB_SHA``); the example workflows pass it to ``run/action.yml`` as ``head``, so
the benchmarks run exactly the reviewed commit. After new commits, the maintainer removes and
re-adds the label.

Outputs (``GITHUB_OUTPUT``): ``allowed`` (``true``/``false``), ``head_sha``, ``reason``.

This guards the gate's own workflow. It cannot stop a fork that edits the workflow file in its
PR: for that, the repository setting "Require approval for all outside collaborators" (Settings →
Actions → Fork pull request workflows) must be on; docs/github-actions.md "Fork PRs" says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from github import Github, GithubException

from gate.errors import GitHubError
from gate.github.client import make_client
from gate.github.context import from_env
from gate.github.event import PR_EVENTS, load_payload

WRITE_PERMISSIONS = ("admin", "maintain", "write")
# Events only people with write access start (or GitHub itself, for the default branch and the
# merge queue): the code they run is already in the repository.
TRUSTED_EVENTS = ("push", "schedule", "workflow_dispatch", "merge_group")


@dataclass(frozen=True)
class TrustDecision:
    allowed: bool
    reason: str


def check(
    event_name: str,
    payload: Mapping[str, Any],
    repository: str,
    *,
    allow_input: bool,
    label: str,
    client: Github | None,
) -> TrustDecision:
    if event_name in TRUSTED_EVENTS or not event_name:
        return TrustDecision(True, f"{event_name or 'this'} event: no fork code involved")
    if event_name not in PR_EVENTS:
        # issue_comment, pull_request_review, workflow_run, ...: anyone can start them, and a
        # workflow that passes a PR's head on would run a fork's code with no check at all
        return TrustDecision(
            False,
            f"the {event_name} event can be started by anyone and may name a fork's code; the benchmarks run "
            f"only on {', '.join((*PR_EVENTS, *TRUSTED_EVENTS))}. Fix: trigger the benchmark workflow on one "
            "of those (for a fork PR, a maintainer adds the opt-in label)",
        )
    pr = payload.get("pull_request") or {}
    head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
    if head_repo == repository:
        return TrustDecision(True, "the PR's branch lives in this repository")
    who = head_repo or "a deleted fork"
    if allow_input:
        return TrustDecision(True, f"PR from {who}: allowed because the workflow sets allow_fork_prs: true")
    refusal = (
        f"PR from {who}: its code is NOT run on this runner (fork PRs can run anything on a self-hosted "
        f"machine). To run it, a maintainer with write access reviews the PR and adds the label "
        f"`{label}`; that labelling event runs the benchmarks of exactly the reviewed head commit. "
        f"New commits need the label removed and added again. Or set `allow_fork_prs: true` in the workflow."
    )
    if payload.get("action") != "labeled" or (payload.get("label") or {}).get("name") != label:
        return TrustDecision(False, refusal)
    sender = (payload.get("sender") or {}).get("login")
    if not sender:
        return TrustDecision(False, refusal)
    if client is None:
        return TrustDecision(False, refusal + " (no token to verify who added the label)")
    owner_repo = client.get_repo(repository)
    try:
        permission = owner_repo.get_collaborator_permission(sender)
    except GithubException as exc:
        raise GitHubError(
            f"cannot check the permission of {sender}: {exc.status}",
            fix="give the job `permissions: contents: read` (metadata) and pass `github_token`",
        ) from exc
    if permission in WRITE_PERMISSIONS:
        head_sha = (pr.get("head") or {}).get("sha", "?")
        return TrustDecision(
            True, f"PR from {who}: {sender} ({permission}) added `{label}` for head {head_sha[:12]}"
        )
    return TrustDecision(
        False, f"`{label}` was added by {sender}, whose permission is {permission!r}, not write. " + refusal
    )


def reviewed_head(event_name: str, payload: Mapping[str, Any], sha: str) -> str:
    """The commit the decision is about: the PR head in this event's payload, else ``GITHUB_SHA``."""
    if event_name in PR_EVENTS:
        head = ((payload.get("pull_request") or {}).get("head") or {}).get("sha")
        return head if isinstance(head, str) else ""
    return sha


def guard(env: Mapping[str, str]) -> int:
    """``ordertrap-gate fork-guard``: write the outputs and return 0 (go) or 1 (refused); a
    :class:`GateError` (bad input, API failure) means the guard could not decide."""
    from gate import workflow_commands
    from gate.github import outputs

    settings = from_env(env)
    payload = load_payload(settings)
    client = make_client(settings) if settings.token and settings.repository else None
    verdict = check(
        settings.event_name,
        payload,
        settings.repository,
        allow_input=settings.inputs.allow_fork_prs,
        label=settings.inputs.fork_label,
        client=client,
    )
    outputs.write_outputs(
        settings.output_path,
        {
            "allowed": "true" if verdict.allowed else "false",
            "head_sha": reviewed_head(settings.event_name, payload, settings.sha),
            "reason": verdict.reason,
        },
    )
    if verdict.allowed:
        print(f"ordertrap-gate fork-guard: allowed: {verdict.reason}")
        return 0
    workflow_commands.emit("error", verdict.reason, {"title": "fork PR not benchmarked"})
    return 1
