"""The Docker image's entrypoint: the action without arguments, the CLI with them; and every
command the actions, the example workflows and the image run is a subcommand of the one CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.workflow_files import ACTIONS, WORKFLOWS, step_scripts

# `python -I -m MODULE VERB`, the console script `.../ordertrap-gate VERB` or `"$gate" VERB` (a
# variable holding its path) in a step, or an argv array `args=(VERB …)`
MODULE_CALL = re.compile(r"python[0-9.]*[\"']?(?:\s+-[A-Za-z]+)*\s+-m\s+([\w.]+)(?:[ \t]+([a-z][\w-]*))?")
CONSOLE_CALL = re.compile(r"(?:/ordertrap-gate|\$gate)[\"']?[ \t]+([a-z][\w-]*)")
ARGS_ARRAY = re.compile(r"\bargs=\(([a-z][\w-]*)")
# modules a step may start besides the gate's CLI: the installers
TOOL_MODULES = {"venv", "pip"}


def dockerfile_instruction(name: str) -> list[str]:
    lines = (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
    (value,) = [json.loads(line.split(None, 1)[1]) for line in lines if line.startswith(f"{name} ")]
    assert isinstance(value, list)
    return [str(part) for part in value]


def image_command(*args: str) -> list[str]:
    """The image's ENTRYPOINT with this interpreter, and CMD unless arguments replace it."""
    entrypoint = dockerfile_instruction("ENTRYPOINT")
    return [sys.executable, *entrypoint[1:], *(args or dockerfile_instruction("CMD"))]


def called_verbs() -> dict[str, set[str]]:
    """Each subcommand the actions, the example workflows and the image call, with where."""
    found: dict[str, set[str]] = {}
    for path in [*ACTIONS, *WORKFLOWS]:
        where = str(path.relative_to(REPO_ROOT))
        for script in step_scripts(path):
            verbs = [m[2] for m in MODULE_CALL.finditer(script) if m[1] == "gate"]
            verbs += CONSOLE_CALL.findall(script) + ARGS_ARRAY.findall(script)
            for verb in verbs:
                found.setdefault(verb, set()).add(where)
    for verb in dockerfile_instruction("CMD"):
        found.setdefault(verb, set()).add("Dockerfile")
    return found


def listed_subcommands() -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "gate", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # argparse lists each subcommand under COMMAND, indented by four spaces, its help beside or below
    return set(re.findall(r"^    ([a-z][\w-]*)(?:\s|$)", proc.stdout, re.MULTILINE))


def test_help_lists_every_command_the_actions_and_the_image_run() -> None:
    verbs = called_verbs()
    # the steps that call the gate: the fork guard, the run action, the nightly calibration and its
    # diff, the history, and the Docker action itself
    expected = {"action", "fork-guard", "run-action", "calibration-diff", "history"}
    assert expected <= set(verbs)
    listed = listed_subcommands()
    assert {"run", "analyze", "calibrate"} <= listed  # the listing is read as intended
    missing = {verb: sorted(where) for verb, where in verbs.items() if verb not in listed}
    assert not missing, f"called but not listed by `ordertrap-gate --help`: {missing}"


@pytest.mark.parametrize("path", [*ACTIONS, *WORKFLOWS], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_steps_start_the_gate_only_through_its_cli(path: Path) -> None:
    """One entry point: a step runs `python -I -m gate VERB` (or the console script), never a
    module of the gate with its own argument parsing and error printing."""
    modules = [m[1] for script in step_scripts(path) for m in MODULE_CALL.finditer(script)]
    assert all(module == "gate" or module in TOOL_MODULES for module in modules), modules


def test_arguments_reach_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run(
        image_command("--help"), cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "ordertrap-gate" in proc.stdout and "analyze" in proc.stdout and "calibrate" in proc.stdout
    proc = subprocess.run(
        image_command("analyze", str(tmp_path / "none.csv"), "--json", str(tmp_path / "a.json")),
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "does not exist" in proc.stderr  # the CLI's error, not the action's


def test_without_arguments_the_image_runs_the_action(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """No INPUT_* and no GITHUB_* at all: the action, not the CLI's usage, says what is missing."""
    proc = subprocess.run(
        image_command(), cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "ordertrap-gate action:" in proc.stderr, proc.stderr
    assert "usage:" not in proc.stderr


def test_github_runs_the_action_without_arguments() -> None:
    runs = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]
    assert runs["using"] == "docker" and "args" not in runs and "entrypoint" not in runs
