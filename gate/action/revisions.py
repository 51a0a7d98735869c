"""Which commits the run action measures and which revision's settings judge them.

:func:`resolve_revisions` is the whole rule, a pure function of the event, the inputs and three
questions to git (:class:`GitFacts`), so a table of cases tests it
(tests/unit/action/test_revisions.py); :class:`Git` answers the questions in the checkout.

* **head**: the ``head`` input, else the pull request's head commit, else ``GITHUB_SHA``.
* **base**: the ``base`` input; for a pull request the merge-base of its base and head (the code
  the PR branched from), while the base branch's tip supplies the settings that judge it, so an
  old branch point cannot bring old settings; for a push the commit before the push; else
  ``head~1``.
* **config-from**: a pull request is measured with base's config and calibration: it cannot
  choose what its own gate measures. Events only people with write access start (schedule, push,
  workflow_dispatch) measure merged or pushed code with its own files, so the nightly run does
  not lag a commit behind a configuration change (docs/running.md, gate/config/config_files.py).
* **calibration**: the ``calibration`` input (``none``: the full configuration); when empty,
  :data:`CALIBRATION_FILE` when head commits one or, with base's files, the settings revision
  does. The commits decide, not the checkout: ``run`` reports a calibration only head adds.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from gate.errors import ConfigError
from gate.host.worktree import run_git

CALIBRATION_FILE: Final = ".ordertrap/calibration.json"
CALIBRATION_OFF: Final = "none"
# the events whose code is already in the repository and is measured with its own files
OWN_FILES_EVENTS: Final = ("schedule", "push", "workflow_dispatch")
NO_COMMIT: Final = "0" * 40  # `before` of a push that created the branch


@dataclass(frozen=True)
class Event:
    """What the decision needs from the event: its name, ``GITHUB_SHA`` and the payload's
    ``pull_request.base.sha`` / ``pull_request.head.sha`` / ``before`` ("" when absent)."""

    name: str
    sha: str
    pr_base_sha: str = ""
    pr_head_sha: str = ""
    push_before: str = ""

    @classmethod
    def from_payload(cls, name: str, sha: str, payload: Mapping[str, Any]) -> Event:
        pr = payload.get("pull_request")
        pr = pr if isinstance(pr, Mapping) else {}

        def text(value: object) -> str:
            return value if isinstance(value, str) else ""

        def sha_of(side: str) -> str:
            part = pr.get(side)
            return text(part.get("sha")) if isinstance(part, Mapping) else ""

        return cls(name, sha, sha_of("base"), sha_of("head"), text(payload.get("before")))


class GitFacts(Protocol):
    def merge_base(self, first: str, second: str) -> str | None:
        """The best common ancestor, None when there is none in the clone."""

    def parent(self, revision: str) -> str:
        """The first parent's SHA (raises :class:`ConfigError` when there is none)."""

    def has_file(self, revision: str, path: str) -> bool:
        """Whether the commit holds ``path``."""


@dataclass(frozen=True)
class Revisions:
    """The decision: what ``run`` gets as --base, --head, --config-from, --config-rev, --calibration."""

    base: str
    head: str
    config_from: Literal["base", "head"]
    config_rev: str | None = None  # with config_from base: the settings' revision when not base
    calibration: str | None = None  # None: the full configuration


def resolve_revisions(event: Event, *, base: str, head: str, calibration: str, git: GitFacts) -> Revisions:
    """The rule of the module docstring. ``base``, ``head``, ``calibration``: the inputs ("" = not given)."""
    head = head or event.pr_head_sha or event.sha
    pr_base_tip = None
    if base:
        pass
    elif event.pr_base_sha:
        merge_base = git.merge_base(event.pr_base_sha, head)
        if merge_base is None:
            raise ConfigError(
                f"no merge-base of {event.pr_base_sha} and {head}", "use actions/checkout with fetch-depth: 0"
            )
        base, pr_base_tip = merge_base, event.pr_base_sha
    elif event.push_before and event.push_before != NO_COMMIT:
        base = event.push_before
    else:
        base = git.parent(head)
    config_from: Literal["base", "head"] = "head" if event.name in OWN_FILES_EVENTS else "base"
    config_rev = pr_base_tip if config_from == "base" else None
    if not calibration and (
        git.has_file(head, CALIBRATION_FILE)
        or (config_from == "base" and git.has_file(config_rev or base, CALIBRATION_FILE))
    ):
        calibration = CALIBRATION_FILE
    return Revisions(
        base,
        head,
        config_from,
        config_rev,
        None if calibration in ("", CALIBRATION_OFF) else calibration,
    )


class Git:
    """:class:`GitFacts` of the checkout in ``repo``; a commit the shallow clone lacks is fetched
    from ``origin`` first (so a network's 600 s, and a prompt for credentials never waited for).

    It runs git as the gate always does (:func:`gate.host.worktree.run_git`): the program found
    on the trusted PATH, without the user's global git config. This runs before any code of the
    pull request in this job, like actions/checkout, but a self-hosted runner keeps ``$HOME`` and
    ``/tmp`` from job to job, where an earlier job's benchmark could have planted a ``git`` or a
    ``~/.gitconfig`` (``core.sshCommand``, a credential helper) that would run here with the job's
    environment. The fetch needs no global config: actions/checkout keeps ``origin`` in the
    repository's own config; where a private repository's missing commit cannot be fetched,
    the error names the fix it would name without a fetch (actions/checkout's fetch-depth: 0)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    def _git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_git(self.repo, *args, timeout=600, timeout_fix="check the runner's network")

    def _ensure(self, sha: str) -> None:
        if self._git("cat-file", "-e", f"{sha}^{{commit}}").returncode != 0:
            self._git("fetch", "-q", "--no-tags", "origin", sha)

    def merge_base(self, first: str, second: str) -> str | None:
        self._ensure(first)
        self._ensure(second)
        found = self._git("merge-base", first, second)
        return (found.stdout.strip() or None) if found.returncode == 0 else None

    def parent(self, revision: str) -> str:
        found = self._git("rev-parse", "--verify", "--end-of-options", f"{revision}~1^{{commit}}")
        if found.returncode != 0:
            raise ConfigError(
                f"{revision} has no parent commit in this clone, so there is no base to compare with",
                "set the input base, or use actions/checkout with fetch-depth: 0 (or 2)",
            )
        return found.stdout.strip()

    def has_file(self, revision: str, path: str) -> bool:
        return self._git("cat-file", "-e", f"{revision}:{path}").returncode == 0
