"""What the triggering event means for publishing: which PR, which commit, whether it is a fork.

Supported events (docs.github.com, "Events that trigger workflows"):

* ``pull_request`` / ``pull_request_target``: the PR from the payload; status on the PR head SHA.
* ``push``, ``schedule``, ``workflow_dispatch``: no PR; status on ``GITHUB_SHA``.
* ``workflow_run``: the fork-safe second workflow. GitHub leaves ``workflow_run.pull_requests``
  empty for PRs from forks, so the first (unprivileged) workflow stores the PR number and SHAs in
  ``ordertrap-pr.json`` beside its artifact (:func:`write_pr_info`), and the second one reads it
  back here. That file comes from untrusted code, so it is checked against the trusted event:
  its head SHA must be the ``workflow_run.head_sha`` GitHub reports, and :mod:`gate.commands.publish`
  checks through the API that the PR's head is that commit before it reads the PR's labels, sets
  the status or comments (a file naming another PR would otherwise borrow that PR's labels).

Labels are never taken from the payload: it is a snapshot of the event (a re-run keeps it), and
only the API says which labels the PR has now (:func:`gate.commands.publish.publish`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gate.errors import ConfigError, InputError
from gate.github.context import ActionContext

PR_INFO_SCHEMA: Final = 1
PR_INFO_NAME: Final = "ordertrap-pr.json"
PR_EVENTS: Final = ("pull_request", "pull_request_target")
NO_PR_EVENTS: Final = ("push", "schedule", "workflow_dispatch")
MAX_PR_NUMBER: Final = 2**53 - 1  # JSON's exact integer range (RFC 8259 §6)


@dataclass(frozen=True)
class EventInfo:
    name: str
    head_sha: str
    pr_number: int | None = None
    base_sha: str | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    head_repo: str | None = None
    is_fork: bool = False
    # workflow_run only: the PR info came from an artifact and must match the API before use
    from_artifact: bool = False


def load_payload(settings: ActionContext) -> dict[str, Any]:
    if settings.event_path is None:
        return {}
    try:
        data = json.loads(settings.event_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(
            f"the event file {settings.event_path} does not exist",
            fix="GITHUB_EVENT_PATH must point at the event payload (set by the runner); unset it for a local run",
        ) from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        # the runner writes UTF-8 JSON; anything else is not its payload (RecursionError: nesting
        # deeper than the parser's recursion limit)
        raise InputError(
            f"the event file {settings.event_path} is not UTF-8 JSON: {type(exc).__name__}: {str(exc)[:200]}",
            fix="point GITHUB_EVENT_PATH at the runner's event payload",
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read the event file {settings.event_path}: {exc.strerror or exc}",
            fix="GITHUB_EVENT_PATH must point at the event payload file (set by the runner)",
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"the event file {settings.event_path} is not a JSON object", fix="check GITHUB_EVENT_PATH"
        )
    return data


def _pr_event(name: str, payload: dict[str, Any], repository: str) -> EventInfo:
    pr = payload.get("pull_request") or {}
    head = pr.get("head") or {}
    base = pr.get("base") or {}
    head_repo = (head.get("repo") or {}).get("full_name")
    number = pr.get("number") or payload.get("number")
    if not number or not head.get("sha"):
        raise InputError(
            f"the {name} event payload has no pull_request.number/head.sha",
            fix="run publish from a workflow triggered by pull_request, or pass the PR info file (pr_info)",
        )
    return EventInfo(
        name=name,
        head_sha=head["sha"],
        pr_number=int(number),
        base_sha=base.get("sha"),
        base_ref=base.get("ref"),
        head_ref=head.get("ref"),
        head_repo=head_repo,
        # a deleted fork has repo null: treat as a fork (never trusted)
        is_fork=head_repo != repository,
    )


def read_pr_info(path: Path) -> dict[str, Any]:
    """The PR info file, each field of the type :func:`pr_info_from_payload` writes (it comes from
    the PR's own run: any other shape is refused with a clear error, never a traceback)."""
    fix = "re-run the first workflow; it writes the file with `ordertrap-gate pr-info PATH`"
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(
            f"the PR info file {path} does not exist",
            fix=f"the first workflow must write it with `ordertrap-gate pr-info {PR_INFO_NAME}` "
            "and upload it with the trial logs; download that artifact before this step",
        ) from exc
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        # ValueError: not JSON, or an integer longer than Python parses (4,300 digits)
        raise InputError(f"the PR info file {path} is not readable JSON: {_short(exc)}", fix=fix) from exc
    if not isinstance(info, dict):
        raise InputError(f"the PR info file {path} is not a JSON object", fix=fix)
    version = info.get("schema_version", 0)
    if not _whole(version) or version > PR_INFO_SCHEMA:
        raise InputError(
            f"the PR info file {path} has schema_version {_short(version)}; this gate reads up to {PR_INFO_SCHEMA}",
            fix="use the same ordertrap-gate version in both workflows",
        )
    number = info.get("pr_number")
    if number is not None and not (_whole(number) and 0 < number <= MAX_PR_NUMBER):
        raise InputError(f"the PR info file {path} has pr_number {_short(number)}, not a PR number", fix=fix)
    for key in ("head_sha", "base_sha", "head_ref", "base_ref"):
        if info.get(key) is not None and not isinstance(info[key], str):
            raise InputError(f"the PR info file {path} has {key} {_short(info[key])}, not a string", fix=fix)
    return info


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _short(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, BaseException) else repr(value)
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _workflow_run_event(payload: dict[str, Any], settings: ActionContext, pr_info: Path | None) -> EventInfo:
    run = payload.get("workflow_run") or {}
    head_sha = run.get("head_sha")
    if not head_sha:
        raise InputError(
            "the workflow_run payload has no workflow_run.head_sha",
            fix="trigger this workflow with `on: workflow_run` (see examples/workflows/perf-publish.yml)",
        )
    head_repo = (run.get("head_repository") or {}).get("full_name")
    is_fork = head_repo != settings.repository
    if pr_info is None:
        # a push-triggered first workflow: no PR, publish a status on the commit only
        prs = run.get("pull_requests") or []
        if prs and not is_fork:
            return EventInfo(
                name="workflow_run",
                head_sha=head_sha,
                pr_number=int(prs[0]["number"]),
                head_repo=head_repo,
                is_fork=False,
            )
        return EventInfo(name="workflow_run", head_sha=head_sha, head_repo=head_repo, is_fork=is_fork)
    info = read_pr_info(pr_info)
    if info.get("head_sha") != head_sha:
        raise InputError(
            f"the PR info file says head {_short(info.get('head_sha'))} but the workflow run built {head_sha!r}",
            fix="download the artifact of exactly this run (actions/download-artifact with "
            "`run-id: ${{ github.event.workflow_run.id }}`); a mismatch can mean a tampered artifact",
        )
    number = info.get("pr_number")
    return EventInfo(
        name="workflow_run",
        head_sha=head_sha,
        pr_number=number,
        base_sha=info.get("base_sha"),
        base_ref=info.get("base_ref"),
        head_ref=info.get("head_ref"),
        head_repo=head_repo,
        is_fork=is_fork,
        from_artifact=True,
    )


def load_event(settings: ActionContext, pr_info: Path | None = None) -> EventInfo:
    """Interpret the event that started this job."""
    name = settings.event_name
    payload = load_payload(settings)
    if name in PR_EVENTS:
        return _pr_event(name, payload, settings.repository)
    if name == "workflow_run":
        return _workflow_run_event(payload, settings, pr_info)
    if name in NO_PR_EVENTS or not name:
        if not settings.sha:
            raise ConfigError(
                "GITHUB_SHA is empty, so there is no commit to publish a status on",
                fix="run inside GitHub Actions, or export GITHUB_SHA for a local publish",
            )
        return EventInfo(name=name or "local", head_sha=settings.sha)
    # other events (release, issue_comment, …): publish on GITHUB_SHA without a PR
    if not settings.sha:
        raise ConfigError(f"event {name!r} has no GITHUB_SHA", fix="export GITHUB_SHA")
    return EventInfo(name=name, head_sha=settings.sha)


def pr_info_from_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The fields the second workflow needs, taken from a pull_request payload."""
    pr = payload.get("pull_request") or {}
    head = pr.get("head") or {}
    base = pr.get("base") or {}
    if not pr.get("number") or not head.get("sha"):
        raise InputError(
            "the event is not a pull_request event",
            fix="write the PR info file only in the first workflow, triggered by pull_request",
        )
    return {
        "schema_version": PR_INFO_SCHEMA,
        "pr_number": int(pr["number"]),
        "head_sha": head["sha"],
        "head_ref": head.get("ref"),
        "base_sha": base.get("sha"),
        "base_ref": base.get("ref"),
    }


def write_pr_info(settings: ActionContext, path: Path) -> dict[str, Any]:
    info = pr_info_from_payload(load_payload(settings))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return info
