"""The commit status ``ordertrap-gate`` on the head commit (required-check friendly).

``POST /repos/{o}/{r}/statuses/{sha}`` (docs.github.com, "REST API endpoints for commit
statuses"): ``state`` is one of error, failure, pending, success; ``description`` is limited to
140 characters; a branch-protection rule can require the context by name.
"""

from __future__ import annotations

from typing import Final, Literal

from github.Repository import Repository

CONTEXT: Final = "ordertrap-gate"
DESCRIPTION_LIMIT: Final = 140

State = Literal["success", "failure", "error", "pending"]


def clip(description: str, limit: int = DESCRIPTION_LIMIT) -> str:
    description = " ".join(description.split())
    return description if len(description) <= limit else description[: limit - 1] + "…"


def set_status(
    repo: Repository, sha: str, state: State, description: str, target_url: str | None = None
) -> State:
    """Set the status and return its state (PyGithub's lazy commit: one POST, no GET)."""
    commit = repo.get_commit(sha)
    if target_url:
        commit.create_status(
            state=state, target_url=target_url, description=clip(description), context=CONTEXT
        )
    else:
        commit.create_status(state=state, description=clip(description), context=CONTEXT)
    return state
