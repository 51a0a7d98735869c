"""The shape of the example workflows and actions that keeps a PR's code from standing in for the
gate's own code.

* Every Python the actions and example workflows start from a shell step, and the Docker
  action's entrypoint, runs isolated (``-I``), so a module in the working directory is never
  imported in place of the installed one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

WORKFLOWS = sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml"))
ACTIONS = [REPO_ROOT / "action.yml", REPO_ROOT / "run" / "action.yml"]
# a Python interpreter started with options and then -m/-c: `python3 -m`, `"$GATE_BIN/python" -I -m`, `"$PYTHON" -c`
PYTHON_CALL = re.compile(
    r"""(?P<exe>["']?[^\s"']*python[0-9.]*["']?)(?P<opts>(?:\s+-[A-Za-z]+)*?)\s+-[mc]\b""", re.I
)


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def shell_scripts(path: Path) -> list[str]:
    data = load(path)
    if "runs" in data:
        steps = data["runs"].get("steps", [])
    else:
        steps = [step for job in data["jobs"].values() for step in job.get("steps", [])]
    # without comment lines, which may mention a call they warn against
    return [
        "\n".join(line for line in str(step["run"]).splitlines() if not line.lstrip().startswith("#"))
        for step in steps
        if "run" in step
    ]


@pytest.mark.parametrize("path", [*ACTIONS, *WORKFLOWS], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_python_a_step_starts_is_isolated_from_the_working_directory(path):
    calls = [m for script in shell_scripts(path) for m in PYTHON_CALL.finditer(script)]
    for call in calls:
        assert "-I" in call["opts"].split(), (
            f"{path.name}: `{call.group(0)}` can import from the working directory"
        )


def test_the_pattern_finds_python_calls():
    """The check above would pass vacuously if the pattern missed the calls it is meant to see."""
    scripts = [s for p in ACTIONS for s in shell_scripts(p)]
    found = {m.group(0) for s in scripts for m in PYTHON_CALL.finditer(s)}
    assert {'"$PYTHON" -I -m', '"$GATE_BIN/python" -I -m'} <= found
    bad = [m.group(0) for m in PYTHON_CALL.finditer('python3 -m venv x; "$GATE/python" -B -c pass')]
    assert bad == ["python3 -m", '"$GATE/python" -B -c']


def test_the_docker_entrypoint_is_isolated_from_the_workspace():
    lines = (REPO_ROOT / "Dockerfile").read_text().splitlines()
    (entrypoint,) = [json.loads(line.split(None, 1)[1]) for line in lines if line.startswith("ENTRYPOINT ")]
    assert entrypoint[0].startswith("/") and "python" in entrypoint[0]
    assert "-I" in entrypoint[: entrypoint.index("-m")]
