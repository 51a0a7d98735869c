"""The run action's inputs (run/action.yml), declared once: name, type, default and domain.

Each domain is the one the configuration and the CLI already use (the duration grammar and the
``max_rounds`` range of :mod:`gate.rounds.config`, ``K/N`` of :mod:`gate.engine.shard`, the
sandbox modes of :mod:`gate.config.project_config`), so the action accepts exactly what
``ordertrap-gate run`` accepts, and its errors name the input as the workflow writes it. An
error never repeats the value: it goes into an ``::error`` line, and a workflow's input may hold
anything (the text is escaped anyway, :mod:`gate.workflow_commands`).

The fork guard's inputs (``allow_fork_prs``, ``fork_label``) take their declaration from
:class:`gate.github.context.ActionInputs` (guard/action.yml has them too); the token is read by
:func:`gate.github.context.from_env`; ``python`` is read by the install step only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from gate.config.project_config import SANDBOX_MODES
from gate.engine.shard import MAX_SHARDS, ShardSpec, parse_shard
from gate.errors import ConfigError
from gate.github.context import (
    DEFAULT_FORK_LABEL,
    ActionInputs,
    Parser,
    action_input,
    input_parser,
    parse_boolean,
    problems_in_inputs,
)
from gate.rounds.config import (
    DEFAULT_MAX_ROUNDS,
    MAX_BUDGET_S,
    MAX_ROUNDS_LIMIT,
    check_max_rounds,
    parse_duration,
)

DEFAULT_CONFIG: Final = ".ordertrap.toml"
DEFAULT_OUT: Final = "ordertrap-trials"


def _checked(domain: Callable[[str], Any], problem: str, fix: str) -> Parser:
    """An input in ``domain`` (a function that raises ConfigError or ValueError outside it); the
    error says ``the input NAME <problem>`` and how to fix it, without the value."""

    def parse(name: str, value: str, problems: list[tuple[str, str]]) -> Any:
        try:
            return domain(value.strip())
        except (ConfigError, ValueError):
            problems.append((f"the input {name} {problem}", fix))
            return None

    return parse


def _text(name: str, value: str, problems: list[tuple[str, str]]) -> str:
    return value.strip()


def _whole_number(text: str) -> int:
    if not text.lstrip("-").isdigit() or not text.isascii():
        raise ValueError(text)
    return int(text)


def _max_rounds(text: str) -> int:
    return check_max_rounds(_whole_number(text))


def _sandbox(text: str) -> str:
    if text not in SANDBOX_MODES:  # exactly as written: `off` is a decision, not a guess
        raise ValueError(text)
    return text


@dataclass(frozen=True)
class RunInputs:
    """run/action.yml's inputs, typed and checked: None (or "") means "not given"."""

    config: str = action_input(DEFAULT_CONFIG, _text)
    base: str = action_input("", _text)
    head: str = action_input("", _text)
    seed: int | None = action_input(
        None,
        _checked(
            _whole_number,
            "is not a whole number",
            "set seed to a whole number (e.g. seed: 1) or leave it empty for the run id",
        ),
    )
    calibration: str = action_input("", _text)
    budget: float | None = action_input(
        None,
        _checked(
            lambda text: parse_duration(text, "budget"),
            "is not a duration",
            f"write it as seconds or with units (budget: 900, 15m or 1h30m, at most {MAX_BUDGET_S / 86400:g} "
            "days; 0 turns follow-up rounds off) or leave it empty for the config's [adaptive] budget",
        ),
    )
    max_rounds: int | None = action_input(
        None,
        _checked(
            _max_rounds,
            f"is not a whole number from 1 to {MAX_ROUNDS_LIMIT}",
            f"set max_rounds: {DEFAULT_MAX_ROUNDS} (or leave it empty for the config's [adaptive] max_rounds)",
        ),
    )
    order_check: bool = action_input(
        False,
        _checked(
            parse_boolean,
            "is not true or false",
            "set order_check: true (nightly order-effect check) or false",
        ),
    )
    shard: ShardSpec | None = action_input(
        None,
        _checked(
            lambda text: parse_shard(text, "shard"),
            "is not K/N",
            f"set shard: 2/4 (this runner's shard K of N, 1 ≤ K ≤ N ≤ {MAX_SHARDS}) or leave it empty for "
            "the whole suite",
        ),
    )
    sandbox: str | None = action_input(
        None,
        _checked(
            _sandbox,
            "is not auto, on or off",
            "leave it empty (the sandbox, required on GitHub) or set sandbox: off only for a runner that "
            "runs trusted code only",
        ),
    )
    instance: str = action_input("", _text)
    out: str = action_input(DEFAULT_OUT, _text)
    artifact_name: str = action_input("", _text)
    # the fork guard's, declared once for both actions (gate.github.context.ActionInputs)
    allow_fork_prs: bool = action_input(False, input_parser(ActionInputs, "allow_fork_prs"))
    fork_label: str = action_input(DEFAULT_FORK_LABEL, input_parser(ActionInputs, "fork_label"))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> tuple[RunInputs, list[tuple[str, str]]]:
        """The inputs (an invalid one at its default) and every problem as (problem, fix)."""
        values, problems = problems_in_inputs(cls, environ)
        return cls(**values), problems
