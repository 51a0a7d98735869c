"""The one reader of the Actions environment (``GITHUB_*`` and ``INPUT_*``).

Everything GitHub-related is configured here once into a frozen :class:`ActionContext`, whose
``inputs`` (:class:`ActionInputs`) hold every action input parsed to its type and checked, with
errors that name the input as the workflow writes it (``threshold_pct``, not a CLI flag); the
rest of the gate receives these objects and never touches ``os.environ`` (the
python-coverage-comment-action ``settings.py`` habit). The token is kept in a :class:`Secret`
whose ``repr`` and ``str`` are masked, so a settings object can be logged safely.

Names follow docs.github.com, "Variables reference" (default environment variables) and
"Metadata syntax for GitHub Actions" (inputs reach the action as ``INPUT_<NAME>``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from gate.decision import FAIL_ON_CHOICES
from gate.errors import ConfigError
from gate.files.schema import Invalid
from gate.files.settings import BOOTSTRAP, CONFIDENCE, STATISTIC, THRESHOLD_PCT, Setting

DEFAULT_API_URL: Final = "https://api.github.com"
DEFAULT_SERVER_URL: Final = "https://github.com"
DEFAULT_ACCEPT_LABEL: Final = "perf-regression-accepted"
DEFAULT_FORK_LABEL: Final = "ordertrap-run-fork"
DEFAULT_TRIALS: Final = ("ordertrap-trials/**/trials.csv",)  # where run/action.yml's artifacts land
DEFAULT_REPORT_DIR: Final = "ordertrap-report"
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


def _raw(env: Mapping[str, str], name: str) -> str:
    """The input ``name`` as the runner passes it: ``INPUT_<NAME>`` ("Metadata syntax for GitHub
    Actions", inputs); the root action maps each one in ``runs.env``, the composite actions in
    their steps' ``env``. Unset and empty are the same: the input was not given."""
    return env.get(f"INPUT_{name.upper()}") or ""


_Problem = tuple[str, str]  # (what is wrong, naming the input; how to fix it)


def _text(name: str, value: str, problems: list[_Problem]) -> str:
    return value.strip()


def _choice(choices: tuple[str, ...], flag: str = "") -> Callable[[str, str, list[_Problem]], str]:
    """One of ``choices`` (any case); ``flag`` is the publish command's option for the same value."""
    also = f" (or {flag})" if flag else ""

    def parse(name: str, value: str, problems: list[_Problem]) -> str:
        chosen = value.strip().lower()
        if chosen not in choices:
            problems.append(
                (
                    f"{name} is {value!r}, which is not one of {', '.join(choices)}",
                    f"set the action input `{name}`{also} to one of: {', '.join(choices)}",
                )
            )
        return chosen

    return parse


def _setting(setting: Setting[Any]) -> Callable[[str, str, list[_Problem]], Any]:
    """An optional input in ``setting``'s domain (gate/files/settings.py), the one ``analyze``'s
    flag and the configuration accept, so a value the action takes never fails later under a flag
    name the workflow does not contain; empty means the analysis default."""

    def parse(name: str, value: str, problems: list[_Problem]) -> Any:
        if not value.strip():
            return None
        try:
            return setting.text(value, name)
        except Invalid as bad:
            problems.append(
                (
                    f"{name} is {value!r}, which is {setting.problem(bad)}",
                    f"set the action input `{name}` to {setting.forms or setting.expected}, e.g. "
                    f"`{name}: {setting.example}`, or leave it empty for the default",
                )
            )
            return None

    return parse


def parse_boolean(text: str) -> bool:
    """``true`` or ``false`` (any case, blanks around), as a workflow's boolean input arrives; empty
    is false. Anything else is a ValueError rather than false: ``allow_fork_prs: yes`` is meant as yes."""
    chosen = text.strip().lower()
    if chosen in ("", "false"):
        return False
    if chosen == "true":
        return True
    raise ValueError(f"{text!r} is not true or false")


def _boolean(name: str, value: str, problems: list[_Problem]) -> bool:
    try:
        return parse_boolean(value)
    except ValueError:
        problems.append(
            (
                f"{name} is {value!r}, which is not true or false",
                f"set the action input `{name}` to true or false",
            )
        )
        return False


def _trials(name: str, value: str, problems: list[_Problem]) -> tuple[str, ...]:
    """``trials`` takes paths or globs separated by newlines, commas or spaces."""
    return tuple(value.replace(",", "\n").split())


def _raise(problems: list[_Problem]) -> None:
    if problems:
        raise ConfigError("; ".join(p for p, _ in problems), fix="; ".join(f for _, f in problems))


Parser = Callable[[str, str, list[_Problem]], Any]
_T = TypeVar("_T")


def action_input(default: Any, parse: Parser) -> Any:
    """One action input, declared once as a dataclass field: its name (the field's), its type (the
    annotation), its default and its domain (``parse(name, text, problems)``, which appends
    ``(what is wrong, how to fix it)`` for a value outside the domain). tests/unit/action checks
    that each action.yml declares the same inputs with the same defaults."""
    return field(default=default, metadata={"parse": parse})


def input_parser(cls: type[Any], name: str) -> Parser:
    parse: Parser = {f.name: f for f in dataclasses.fields(cls)}[name].metadata["parse"]
    return parse


def problems_in_inputs(cls: type[_T], environ: Mapping[str, str]) -> tuple[dict[str, Any], list[_Problem]]:
    """The given ``INPUT_*`` of ``cls``'s inputs parsed (an invalid one at its default), and the
    problems found. An input not given (unset or empty) is left out: it takes its default."""
    defaults = cls()
    problems: list[_Problem] = []
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        raw = _raw(environ, item.name)
        if not raw:
            continue
        found: list[_Problem] = []
        value = item.metadata["parse"](item.name, raw, found)
        problems += found
        values[item.name] = getattr(defaults, item.name) if found else value
    return values, problems


@dataclass(frozen=True)
class ActionInputs:
    """The inputs of the Docker action (action.yml) and of the fork guard (guard/action.yml,
    run/action.yml), parsed and checked once: each is the typed value or, where "not given" means
    the analysis default, None. Names are the inputs' own (snake_case), so every error names what
    the workflow writes. The run action's own inputs: :class:`gate.action.run_inputs.RunInputs`."""

    trials: tuple[str, ...] = action_input(DEFAULT_TRIALS, _trials)
    base: str = action_input("", _text)
    head: str = action_input("", _text)
    threshold_pct: float | None = action_input(None, _setting(THRESHOLD_PCT))
    confidence: float | None = action_input(None, _setting(CONFIDENCE))
    statistic: str | None = action_input(None, _setting(STATISTIC))
    bootstrap: str | None = action_input(None, _setting(BOOTSTRAP))
    fail_on: str = action_input("regression", _choice(FAIL_ON_CHOICES, "--fail-on"))
    comment: str = action_input("on-change", _choice(COMMENT_CHOICES, "--comment"))
    accept_label: str = action_input(DEFAULT_ACCEPT_LABEL, _text)
    calibration: str = action_input("", _text)
    pr_info: str = action_input("", _text)
    report_dir: str = action_input(DEFAULT_REPORT_DIR, _text)
    allow_fork_prs: bool = action_input(False, _boolean)
    fork_label: str = action_input(DEFAULT_FORK_LABEL, _text)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, fallback: bool = False) -> ActionInputs:
        """Every ``INPUT_*`` this product reads. An input that is not given takes its default;
        one that does not parse is an error (:class:`ConfigError`) naming every such input and
        how to set it. ``fallback=True`` gives the default instead: enough to publish that error."""
        values, problems = problems_in_inputs(cls, os.environ if environ is None else environ)
        if not fallback:
            _raise(problems)
        return cls(**values)


@dataclass(frozen=True)
class ActionContext:
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
    inputs: ActionInputs = field(default_factory=lambda: ActionInputs())

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

    def with_overrides(self, **changes: str | None) -> ActionContext:
        """Apply the publish command's flags to the inputs (None means "not given"); the flags
        take the same values as the inputs they stand for and are checked the same way."""
        given = {key: value for key, value in changes.items() if value is not None}
        if not given:
            return self
        problems: list[_Problem] = []
        parsed = {
            name: input_parser(ActionInputs, name)(name, value, problems) for name, value in given.items()
        }
        _raise(problems)
        return dataclasses.replace(self, inputs=dataclasses.replace(self.inputs, **parsed))


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def from_env(environ: Mapping[str, str] | None = None, *, fallback: bool = False) -> ActionContext:
    """Read the Actions environment once. ``environ`` defaults to ``os.environ``; ``fallback``
    as in :meth:`ActionInputs.from_env`."""
    env = os.environ if environ is None else environ
    token = _raw(env, "github_token") or env.get("GITHUB_TOKEN", "")
    return ActionContext(
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
        inputs=ActionInputs.from_env(env, fallback=fallback),
    )
