"""The project's actions and example workflows as tests read them: where they are and the shell
scripts of their steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO_ROOT

WORKFLOWS = sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml"))
ACTIONS = [REPO_ROOT / "action.yml", REPO_ROOT / "run" / "action.yml", REPO_ROOT / "guard" / "action.yml"]


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def step_scripts(path: Path) -> list[str]:
    """The ``run:`` script of every step of an action or workflow, without comment lines (which
    may mention a call they warn against)."""
    data = load(path)
    if "runs" in data:
        steps = data["runs"].get("steps", [])
    else:
        steps = [step for job in data["jobs"].values() for step in job.get("steps", [])]
    return [
        "\n".join(line for line in str(step["run"]).splitlines() if not line.lstrip().startswith("#"))
        for step in steps
        if "run" in step
    ]
