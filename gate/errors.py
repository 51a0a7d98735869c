"""Domain errors. Every error says what went wrong *and* what to do about it.

Modules raise these; only :mod:`gate.cli` turns them into a message and an exit code
(the asv ``UserError`` habit), so library code never calls ``sys.exit``.
"""

from __future__ import annotations

import errno
from pathlib import Path


class GateError(Exception):
    """Base class. ``fix`` is the action that resolves the problem, shown after the message."""

    exit_code = 2

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message}\n  fix: {self.fix}" if self.fix else self.message


class ConfigError(GateError):
    """The config file, a CLI flag or an INPUT_* variable is wrong."""


class InputError(GateError):
    """A data file (trial log, analysis, calibration) is missing, malformed or inconsistent."""


class RunError(GateError):
    """The run engine cannot proceed (git worktree, build step, adapter discovery)."""


class GitHubError(GateError):
    """Talking to the GitHub API or the Actions runner failed."""


class DiskFullError(RunError):
    """A disk the run writes to is full (ENOSPC, EDQUOT): an infrastructure fault, not a result.

    The trial it hit is not logged, so a resume runs it again. Exit status 75 is sysexits(3)'s
    EX_TEMPFAIL: a temporary failure, retrying later (after freeing space) may succeed."""

    exit_code = 75


DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS


def disk_full_error(where: str, detail: str, path: Path | str | None = None) -> DiskFullError:
    """The error that stops a run on a full disk; the fix says how to go on."""
    place = f" on the file system of {path}" if path is not None else ""
    return DiskFullError(
        f"the disk is full while {where}: {detail}",
        f"free space{place} or raise the disk quota, then run the same command again: the run resumes "
        "and runs the trial the full disk interrupted again (nothing was logged as failed because of it)",
    )
