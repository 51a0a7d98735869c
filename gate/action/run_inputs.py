"""The run action's inputs (run/action.yml), declared once: name, type, default and domain.

Each domain is the one the configuration and the CLI use, declared once in
:mod:`gate.files.settings` (the duration grammar of ``budget``, the ``max_rounds`` range, ``K/N``,
the sandbox modes, a whole-number seed), so the action accepts exactly what
``ordertrap-gate run`` accepts, and its errors name the input as the workflow writes it. An
error never repeats the value: it goes into an ``::error`` line, and a workflow's input may hold
anything (the text is escaped anyway, :mod:`gate.workflow_commands`).

The fork guard's inputs (``allow_fork_prs``, ``fork_label``) take their declaration from
:class:`gate.github.context.ActionInputs` (guard/action.yml has them too); the token is read by
:func:`gate.github.context.from_env`; ``python`` is read by the install step only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gate.engine.shard import ShardSpec
from gate.files.schema import Invalid
from gate.files.settings import (
    BUDGET,
    DEFAULT_MAX_ROUNDS,
    MAX_BUDGET_S,
    MAX_ROUNDS,
    MAX_ROUNDS_LIMIT,
    MAX_SHARDS,
    SANDBOX,
    SEED,
    SHARD,
    Setting,
)
from gate.github.context import (
    DEFAULT_FORK_LABEL,
    ActionInputs,
    Parser,
    action_input,
    input_parser,
    parse_boolean,
    problems_in_inputs,
)

DEFAULT_CONFIG: Final = ".ordertrap.toml"
DEFAULT_OUT: Final = "ordertrap-trials"


def _checked(setting: Setting[Any], problem: str, fix: str) -> Parser:
    """An input in ``setting``'s domain (gate/files/settings.py); the error says ``the input NAME
    <problem>`` and how to fix it, without the value."""

    def parse(name: str, value: str, problems: list[tuple[str, str]]) -> Any:
        try:
            return setting.text(value, name)
        except Invalid:
            problems.append((f"the input {name} {problem}", fix))
            return None

    return parse


def _text(name: str, value: str, problems: list[tuple[str, str]]) -> str:
    return value.strip()


def _shard(name: str, value: str, problems: list[tuple[str, str]]) -> ShardSpec | None:
    index_count = _checked(
        SHARD,
        "is not K/N",
        f"set shard: 2/4 (this runner's shard K of N, 1 ≤ K ≤ N ≤ {MAX_SHARDS}) or leave it empty for "
        "the whole suite",
    )(name, value, problems)
    return None if index_count is None else ShardSpec(*index_count)


def _order_check(name: str, value: str, problems: list[tuple[str, str]]) -> bool:
    try:
        return parse_boolean(value)
    except ValueError:
        problems.append(
            (
                f"the input {name} is not true or false",
                "set order_check: true (nightly order-effect check) or false",
            )
        )
        return False


@dataclass(frozen=True)
class RunInputs:
    """run/action.yml's inputs, typed and checked: None (or "") means "not given"."""

    config: str = action_input(DEFAULT_CONFIG, _text)
    base: str = action_input("", _text)
    head: str = action_input("", _text)
    seed: int | None = action_input(
        None,
        _checked(
            SEED,
            "is not a whole number",
            "set seed to a whole number (e.g. seed: 1) or leave it empty for the run id",
        ),
    )
    calibration: str = action_input("", _text)
    budget: float | None = action_input(
        None,
        _checked(
            BUDGET,
            "is not a duration",
            f"write it as seconds or with units (budget: 900, 15m or 1h30m, at most {MAX_BUDGET_S / 86400:g} "
            "days; 0 turns follow-up rounds off) or leave it empty for the config's [adaptive] budget",
        ),
    )
    max_rounds: int | None = action_input(
        None,
        _checked(
            MAX_ROUNDS,
            f"is not a whole number from 1 to {MAX_ROUNDS_LIMIT}",
            f"set max_rounds: {DEFAULT_MAX_ROUNDS} (or leave it empty for the config's [adaptive] max_rounds)",
        ),
    )
    order_check: bool = action_input(False, _order_check)
    shard: ShardSpec | None = action_input(None, _shard)
    sandbox: str | None = action_input(
        None,
        _checked(
            SANDBOX,
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
