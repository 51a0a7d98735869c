"""The Docker image's entrypoint: the action without arguments, the CLI with them."""

from __future__ import annotations

import subprocess
import sys

import yaml

from tests.conftest import REPO_ROOT

# the Dockerfile's ENTRYPOINT, with this interpreter
ENTRYPOINT = [sys.executable, "-I", "-u", "-B", "-m", "gate.github.entrypoint"]


def test_arguments_reach_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run(
        [*ENTRYPOINT, "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "ordertrap-gate" in proc.stdout and "analyze" in proc.stdout and "calibrate" in proc.stdout
    proc = subprocess.run(
        [*ENTRYPOINT, "analyze", str(tmp_path / "none.csv"), "--json", str(tmp_path / "a.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "does not exist" in proc.stderr  # the CLI's error, not the action's


def test_github_runs_the_action_without_arguments() -> None:
    runs = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]
    assert runs["using"] == "docker" and "args" not in runs and "entrypoint" not in runs
