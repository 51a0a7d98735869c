"""The commit status ``ordertrap-gate`` on the head commit (required-check friendly).

``POST /repos/{o}/{r}/statuses/{sha}`` (docs.github.com, "REST API endpoints for commit
statuses"): ``state`` is one of error, failure, pending, success; ``description`` is limited to
140 characters; a branch-protection rule can require the context by name, and the latest status
of a context on a commit is the one that counts.

A status belongs to a commit, not to a pull request: two PRs whose head is the same commit (one
branch proposed to ``main`` and to a release branch) share it, and GitHub shows it on both. So
the context stays one fixed name (what branch protection requires), the description ends with
the PR it is about (`` (PR #12)``), the target URL is the run that wrote it, and
:func:`publish_status` reads the latest one before writing and keeps it when overwriting it would
hide a verdict:

* a run older than the run that wrote it (a smaller ``GITHUB_RUN_ID``: an older run finishing
  late) never overwrites it — a re-run of the same run (a new attempt) does;
* a ``success`` never replaces another PR's ``failure``/``error`` while that PR is open with this
  commit as its head — one PR's regression is not turned green by another PR's run of the same
  commit; that PR's own newer run (with its accept label or a fix) clears it. A non-green result
  is always written (naming its PR), and a status that names no PR (a push or a local publish)
  is not kept against a PR's run.

The statuses API has no compare-and-set, so another run may write between this run's read and
its write; after writing a ``success`` the run reads the list again, and a status that landed in
between and that the rules above would have kept is written again on top (status ids grow with
creation). Two runs that both finish that check within the same moment can still interleave.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

import requests
from github import GithubException
from github.Repository import Repository

CONTEXT: Final = "ordertrap-gate"
DESCRIPTION_LIMIT: Final = 140
# room kept for the " (PR #n)" suffix, so a caller can fit its text before it
PR_SUFFIX_ROOM: Final = len(" (PR #1234567)")
TEXT_LIMIT: Final = DESCRIPTION_LIMIT - PR_SUFFIX_ROOM
# statuses of one commit read to find the gate's latest (newest first; GitHub keeps at most 1000
# per commit and context)
SCAN_LIMIT: Final = 300

State = Literal["success", "failure", "error", "pending"]
NOT_GREEN: Final = frozenset({"failure", "error"})

_PR_SUFFIX = re.compile(r" \(PR #(\d{1,9})\)$")
_RUN_IN_URL = re.compile(r"/actions/runs/(\d{1,20})(?:/|$)")


def clip(description: str, limit: int = DESCRIPTION_LIMIT) -> str:
    description = " ".join(description.split())
    return description if len(description) <= limit else description[: limit - 1] + "…"


def describe(text: str, pr_number: int | None) -> str:
    """The description: ``text`` clipped to leave room for the PR it is about."""
    if pr_number is None:
        return clip(text)
    suffix = f" (PR #{pr_number})"
    return clip(text, DESCRIPTION_LIMIT - len(suffix)) + suffix


@dataclass(frozen=True)
class GateStatus:
    """The latest ``ordertrap-gate`` status of a commit, as read back."""

    id: int
    state: str
    description: str
    target_url: str | None
    pr_number: int | None  # from the description's suffix; None for a push/local publish
    run_id: int | None  # from the target URL

    @classmethod
    def of(cls, status: Any) -> GateStatus:
        description = str(status.description or "")
        target_url = status.target_url or None
        pr = _PR_SUFFIX.search(description)
        run = _RUN_IN_URL.search(str(target_url or ""))
        return cls(
            id=int(status.id),
            state=str(status.state),
            description=description,
            target_url=target_url,
            pr_number=int(pr[1]) if pr else None,
            run_id=int(run[1]) if run else None,
        )

    @property
    def about(self) -> str:
        return f"PR #{self.pr_number}" if self.pr_number is not None else "a run without a PR"


@dataclass(frozen=True)
class StatusWrite:
    state: State
    written: bool
    kept: GateStatus | None = None  # the status left in place when not written
    why_kept: str = ""
    restored: GateStatus | None = None  # written again on top: it landed between read and write


def latest_gate_status(repo: Repository, sha: str) -> GateStatus | None:
    """The newest status with the gate's context on ``sha`` (``GET .../commits/{sha}/statuses``
    lists newest first)."""
    for index, status in enumerate(repo.get_commit(sha).get_statuses()):
        if index >= SCAN_LIMIT:
            break
        if status.context == CONTEXT:
            return GateStatus.of(status)
    return None


def reason_to_keep(
    repo: Repository,
    sha: str,
    latest: GateStatus,
    state: State,
    pr_number: int | None,
    run_id: int | None,
) -> str:
    """Why ``latest`` must stay instead of this run's ``state`` ("" when it may be replaced)."""
    if latest.pr_number == pr_number:
        if run_id is not None and latest.run_id is not None and run_id < latest.run_id:
            return (
                f"a newer run ({latest.run_id}) of {latest.about} already set it and this run ({run_id}) "
                "is older; fix: re-run the newest run if its result is out of date"
            )
        return ""
    if state in NOT_GREEN or latest.state not in NOT_GREEN or latest.pr_number is None:
        return ""
    if _still_head_of(repo, latest.pr_number, sha):
        return (
            f"{latest.about} has this commit as its head too and its run set `{latest.state}`, which a "
            f"success of another PR does not replace; fix: it clears when {latest.about} gets its "
            "accept label (and a re-run), a new commit, or is closed — then re-run this job"
        )
    return ""


def _still_head_of(repo: Repository, pr_number: int, sha: str) -> bool:
    """Whether PR ``pr_number`` is open with head ``sha``; an unanswered question counts as yes
    (a failure is never turned green on an unknown)."""
    try:
        pull = repo.get_pull(pr_number)
        return bool(pull.state == "open" and pull.head.sha == sha)
    except GithubException as exc:
        return exc.status != 404
    except requests.RequestException:
        return True


def publish_status(
    repo: Repository,
    sha: str,
    state: State,
    text: str,
    target_url: str | None = None,
    *,
    pr_number: int | None = None,
    run_id: int | None = None,
) -> StatusWrite:
    """Set the gate's status on ``sha`` unless the latest one must stay (module docstring).
    Raises what PyGithub raises for the read or the write."""
    latest = latest_gate_status(repo, sha)
    if latest is not None:
        why = reason_to_keep(repo, sha, latest, state, pr_number, run_id)
        if why:
            return StatusWrite(state, written=False, kept=latest, why_kept=why)
    own_id = _create(repo, sha, state, describe(text, pr_number), target_url)
    if state in NOT_GREEN:
        return StatusWrite(state, written=True)
    restored = _restore_raced(repo, sha, own_id, latest, state, pr_number, run_id)
    return StatusWrite(state, written=True, restored=restored)


def _restore_raced(
    repo: Repository,
    sha: str,
    own_id: int,
    seen: GateStatus | None,
    state: State,
    pr_number: int | None,
    run_id: int | None,
) -> GateStatus | None:
    """The status another run wrote between this run's read (``seen``) and its write (``own_id``)
    that the rules would have kept, written again on top; None when there is none."""
    for index, status in enumerate(repo.get_commit(sha).get_statuses()):
        if index >= SCAN_LIMIT or (seen is not None and int(status.id) <= seen.id):
            break
        if status.context != CONTEXT or int(status.id) >= own_id:
            continue
        raced = GateStatus.of(status)
        if reason_to_keep(repo, sha, raced, state, pr_number, run_id):
            _create(repo, sha, raced.state, raced.description, raced.target_url)  # type: ignore[arg-type]
            return raced
    return None


def _create(repo: Repository, sha: str, state: State, description: str, target_url: str | None) -> int:
    """POST the status (PyGithub's lazy commit: no GET first); its id."""
    commit = repo.get_commit(sha)
    if target_url:
        created = commit.create_status(
            state=state, target_url=target_url, description=clip(description), context=CONTEXT
        )
    else:
        created = commit.create_status(state=state, description=clip(description), context=CONTEXT)
    return int(created.id)


def set_status(
    repo: Repository, sha: str, state: State, description: str, target_url: str | None = None
) -> State:
    """Set the status unconditionally and return its state."""
    _create(repo, sha, state, description, target_url)
    return state
