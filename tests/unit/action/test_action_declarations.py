"""Each action's inputs are declared once (a dataclass field: name, type, default, domain), and
the action.yml files say the same: the same inputs, the same defaults, each one passed to the
gate as INPUT_<NAME>. The run action's domains are the CLI's own (duration, max_rounds, K/N,
sandbox modes), and its errors name the input without repeating the value."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gate.action.run_inputs import RunInputs
from gate.engine.shard import MAX_SHARDS, ShardSpec
from gate.files.settings import MAX_ROUNDS_LIMIT
from gate.github.context import ActionInputs, input_parser
from tests.conftest import REPO_ROOT
from tests.workflow_files import load

# inputs the gate reads elsewhere: the token (gate.github.context.from_env), the interpreter
# (run/action.yml's install step)
NOT_DECLARED = {"github_token", "python"}


def declared_default(cls: type[Any], name: str, text: str) -> object:
    """The typed value of the action.yml default (empty means "not given": the field's default)."""
    if not text:
        return getattr(cls(), name)
    problems: list[tuple[str, str]] = []
    value = input_parser(cls, name)(name, text, problems)
    assert not problems, problems
    return value


@pytest.mark.parametrize(
    ("path", "cls"),
    [("action.yml", ActionInputs), ("run/action.yml", RunInputs)],
)
def test_each_action_yml_declares_the_inputs_and_defaults_of_its_dataclass(path, cls):
    meta = load(REPO_ROOT / path)
    inputs = meta["inputs"]
    fields = {f.name for f in dataclasses.fields(cls)}
    # the Docker action's dataclass also serves the guard's two inputs, which action.yml lacks
    guard_only = {"allow_fork_prs", "fork_label"} if cls is ActionInputs else set()
    assert set(inputs) - NOT_DECLARED == fields - guard_only
    for name in fields - guard_only:
        default = str(inputs[name]["default"])
        assert declared_default(cls, name, default) == getattr(cls(), name), name
    # and every input reaches the gate as INPUT_<NAME> (docker: runs.env; composite: the gate step)
    if meta["runs"]["using"] == "docker":
        env = meta["runs"]["env"]
    else:
        (step,) = [s for s in meta["runs"]["steps"] if "-m gate run-action" in str(s.get("run"))]
        env = step["env"]
    mapped = {key[len("INPUT_") :].lower() for key in env if key.startswith("INPUT_")}
    assert mapped == set(inputs) - {"python"}
    for name in mapped:
        assert env[f"INPUT_{name.upper()}"] == f"${{{{ inputs.{name} }}}}"


def test_run_inputs_are_typed_in_the_cli_s_domains():
    inputs, problems = RunInputs.from_env(
        {
            "INPUT_SEED": "-3", "INPUT_BUDGET": "1H30m", "INPUT_MAX_ROUNDS": str(MAX_ROUNDS_LIMIT),
            "INPUT_ORDER_CHECK": "True", "INPUT_SHARD": " 2/4 ", "INPUT_SANDBOX": "off",
            "INPUT_ALLOW_FORK_PRS": "TRUE", "INPUT_OUT": "", "INPUT_CONFIG": "perf.toml",
        }
    )  # fmt: skip
    assert problems == []
    assert (inputs.seed, inputs.budget, inputs.max_rounds) == (-3, 5400.0, MAX_ROUNDS_LIMIT)
    assert (inputs.order_check, inputs.shard, inputs.sandbox) == (True, ShardSpec(2, 4), "off")
    assert inputs.allow_fork_prs is True and inputs.out == "ordertrap-trials" and inputs.config == "perf.toml"
    assert RunInputs.from_env({}) == (RunInputs(), [])
    assert RunInputs().budget is None and RunInputs().order_check is False


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("seed", "abc"), ("seed", "1.5"), ("seed", "٣"),
        ("budget", "15x"), ("budget", "m"), ("budget", "-5"), ("budget", "1d"), ("budget", "200h"),
        ("max_rounds", "0"), ("max_rounds", str(MAX_ROUNDS_LIMIT + 1)), ("max_rounds", "two"),
        ("max_rounds", "99999999999999999999999"),
        ("order_check", "yes"),
        ("shard", "2"), ("shard", "0/4"), ("shard", "5/4"), ("shard", f"1/{MAX_SHARDS + 1}"),
        ("sandbox", "none"), ("sandbox", "OFF"),
    ],
)  # fmt: skip
def test_a_bad_run_input_names_the_input_and_the_fix_not_the_value(name, value):
    inputs, problems = RunInputs.from_env({f"INPUT_{name.upper()}": value, "INPUT_SEED": "abc"})
    found = [(p, f) for p, f in problems if p.startswith(f"the input {name} is not")]
    assert len(found) == 1, problems
    problem, fix = found[0]
    assert name in fix and (len(value) < 3 or value not in problem + fix)
    assert getattr(inputs, name) == getattr(RunInputs(), name)  # an invalid input at its default
    assert len(problems) == 1 + (name != "seed")  # every bad input is reported, not only the first


def test_the_run_action_s_messages_are_the_ones_it_always_wrote():
    _, problems = RunInputs.from_env({"INPUT_SEED": "x", "INPUT_MAX_ROUNDS": "0", "INPUT_SHARD": "x"})
    assert problems[0] == (
        "the input seed is not a whole number",
        "set seed to a whole number (e.g. seed: 1) or leave it empty for the run id",
    )
    assert problems[1] == (
        "the input max_rounds is not a whole number from 1 to 20",
        "set max_rounds: 3 (or leave it empty for the config's [adaptive] max_rounds)",
    )
    assert problems[2][0] == "the input shard is not K/N"
