"""The one reader of the Actions environment (``GITHUB_*`` and ``INPUT_*``).

Everything GitHub-related is configured here once into a frozen :class:`ActionSettings`; the
rest of :mod:`gate.github` receives that object and never touches ``os.environ`` (the
python-coverage-comment-action ``settings.py`` habit). The token is kept in a :class:`Secret`
whose ``repr`` and ``str`` are masked, so a settings object can be logged safely.

Names follow docs.github.com, "Variables reference" (default environment variables) and
"Metadata syntax for GitHub Actions" (inputs reach the action as ``INPUT_<NAME>``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from gate.errors import ConfigError

DEFAULT_API_URL: Final = "https://api.github.com"
DEFAULT_SERVER_URL: Final = "https://github.com"
DEFAULT_ACCEPT_LABEL: Final = "perf-regression-accepted"
FAIL_ON_CHOICES: Final = ("regression", "inconclusive", "never")
COMMENT_CHOICES: Final = ("always", "on-change", "never")


class Secret:
    """A string that never shows itself in ``repr``/``str`` (tracebacks, logs, dataclass repr)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def _choice(value: str, choices: tuple[str, ...], name: str) -> str:
    value = value.strip().lower()
    if value not in choices:
        raise ConfigError(
            f"{name} is {value!r}, which is not one of {', '.join(choices)}",
            fix=f"set the action input `{name}` (or --{name.replace('_', '-')}) to one of: {', '.join(choices)}",
        )
    return value


@dataclass(frozen=True)
class ActionSettings:
    """Everything publish and the action entrypoint need from the environment."""

    token: Secret = field(repr=False)
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    repository: str = ""
    event_name: str = ""
    event_path: Path | None = None
    sha: str = ""
    ref: str = ""
    run_id: str = ""
    run_attempt: str = ""
    workspace: Path | None = None
    output_path: Path | None = None
    summary_path: Path | None = None
    # action inputs (snake_case names, as in action.yml)
    trials: tuple[str, ...] = ()
    base: str = ""
    head: str = ""
    threshold_pct: str = ""
    confidence: str = ""
    statistic: str = ""
    fail_on: str = "regression"
    comment: str = "on-change"
    accept_label: str = DEFAULT_ACCEPT_LABEL
    calibration: str = ""
    pr_info: str = ""
    report_dir: str = ""

    @property
    def owner_repo(self) -> tuple[str, str]:
        owner, _, name = self.repository.partition("/")
        if not owner or not name:
            raise ConfigError(
                f"GITHUB_REPOSITORY is {self.repository!r}, expected OWNER/NAME",
                fix="run inside GitHub Actions, or export GITHUB_REPOSITORY=owner/name for a local publish",
            )
        return owner, name

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    def with_overrides(self, **changes: object) -> ActionSettings:
        """Apply CLI flags (None means "not given") and validate the result again."""
        given = {key: value for key, value in changes.items() if value is not None}
        return _validated(dataclasses.replace(self, **given))  # type: ignore[arg-type]


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _split_trials(value: str) -> tuple[str, ...]:
    """``trials`` takes paths or globs separated by newlines, commas or spaces."""
    parts = value.replace(",", "\n").split()
    return tuple(part for part in (p.strip() for p in parts) if part)


def _validated(settings: ActionSettings) -> ActionSettings:
    return dataclasses.replace(
        settings,
        fail_on=_choice(settings.fail_on, FAIL_ON_CHOICES, "fail_on"),
        comment=_choice(settings.comment, COMMENT_CHOICES, "comment"),
        accept_label=settings.accept_label.strip(),
    )


def from_env(environ: Mapping[str, str] | None = None) -> ActionSettings:
    """Read the Actions environment once. ``environ`` defaults to ``os.environ``."""
    env = os.environ if environ is None else environ

    def inp(name: str, default: str = "") -> str:
        # Docker actions get INPUT_<NAME> from runs.env; spaces/hyphens are kept as the runner does.
        value = env.get(f"INPUT_{name.upper()}")
        return default if value is None or value == "" else value

    token = inp("github_token") or env.get("GITHUB_TOKEN", "")
    settings = ActionSettings(
        token=Secret(token),
        api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        server_url=(env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
        repository=env.get("GITHUB_REPOSITORY", ""),
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        event_path=_path(env.get("GITHUB_EVENT_PATH")),
        sha=env.get("GITHUB_SHA", ""),
        ref=env.get("GITHUB_REF", ""),
        run_id=env.get("GITHUB_RUN_ID", ""),
        run_attempt=env.get("GITHUB_RUN_ATTEMPT", ""),
        workspace=_path(env.get("GITHUB_WORKSPACE")),
        output_path=_path(env.get("GITHUB_OUTPUT")),
        summary_path=_path(env.get("GITHUB_STEP_SUMMARY")),
        trials=_split_trials(inp("trials")),
        base=inp("base"),
        head=inp("head"),
        threshold_pct=inp("threshold_pct"),
        confidence=inp("confidence"),
        statistic=inp("statistic"),
        fail_on=inp("fail_on", "regression"),
        comment=inp("comment", "on-change"),
        accept_label=inp("accept_label", DEFAULT_ACCEPT_LABEL),
        calibration=inp("calibration"),
        pr_info=inp("pr_info"),
        report_dir=inp("report_dir"),
    )
    return _validated(settings)
