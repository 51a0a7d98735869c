"""run/action.yml's gate step, its real script run with bash as GitHub runs it, with the real gate:
a pull request is measured with base's files (the config and calibration its head changes are
reported, not applied). The YAML → Python glue: the step's env maps each input to INPUT_<NAME>
and its one command is `python -I -m gate run-action` (the rules themselves:
tests/integration/test_run_action.py, tests/unit/action)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.integration.test_run_config_from_base import CAL, calibration, make_repo, toml
from tests.workflow_files import load


def run_step(
    repo: Path, gate_bin: Path, inputs: dict[str, str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The gate step's script, with its env's `${{ inputs.X }}` evaluated as the runner would for
    ``inputs`` (their action.yml defaults otherwise), plus the runner's ``env``."""
    meta = load(REPO_ROOT / "run" / "action.yml")
    (step,) = [s for s in meta["runs"]["steps"] if s.get("id") == "gate"]
    script, step_env, meta_inputs = step["run"], step["env"], meta["inputs"]
    evaluated = {}
    for key, expression in step_env.items():
        if key == "GATE_BIN":
            evaluated[key] = str(gate_bin)
            continue
        name = expression.removeprefix("${{ inputs.").removesuffix(" }}")
        assert expression == f"${{{{ inputs.{name} }}}}" and name in meta_inputs, expression
        evaluated[key] = inputs.get(name, str(meta_inputs[name]["default"]))
    full_env = {"PATH": "/usr/bin:/bin", "HOME": str(repo.parent), "GITHUB_OUTPUT": str(repo.parent / "o"),
                **evaluated, **env}  # fmt: skip
    # GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=repo, env=full_env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_action_measures_a_pull_request_with_base_files(tmp_path):
    """The real gate through the step: head excludes `hot` and calibrates it to one value."""
    repo = make_repo(
        tmp_path,
        {".ordertrap.toml": toml(), CAL: calibration()},
        {".ordertrap.toml": toml('exclude = ["^hot$"]'), CAL: calibration(hot=(1, 1, 1))},
    )
    base, head = (
        subprocess.run(["git", "-C", str(repo), "rev-parse", rev], capture_output=True, text=True, check=True).stdout.strip()
        for rev in ("HEAD~1", "HEAD")
    )  # fmt: skip
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 5, "pull_request": {
        "number": 5, "head": {"sha": head, "repo": {"full_name": "acme/widgets"}}, "base": {"sha": base}}}))  # fmt: skip
    github = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "acme/widgets",
              "GITHUB_RUN_ID": "1", "RUNNER_NAME": "r1"}  # fmt: skip
    result = run_step(
        repo, Path(sys.executable).parent, {"github_token": "", "out": str(tmp_path / "out")}, github
    )
    assert result.returncode == 0, result.stdout + result.stderr
    outputs = dict(line.split("=", 1) for line in (tmp_path / "o").read_text().splitlines() if "=" in line)
    assert (outputs["base"], outputs["head"], outputs["artifact"]) == (base, head, "ordertrap-trials-r1")
    meta = json.loads((Path(outputs["dir"]) / "meta.json").read_text())
    assert meta["sources"]["config"]["from"] == "base" and meta["sources"]["calibration"]["from"] == "base"
    assert meta["benchmark_configs"]["hot"]["iteration"] == 5 and meta["seed"] == 1  # the run id
    codes = {w["code"] for w in meta["warnings"]}
    assert {"head_config_change", "head_calibration_change"} <= codes
    assert "(from the base revision)" in result.stdout
    assert json.loads((tmp_path / "out" / "ordertrap-pr.json").read_text())["head_sha"] == head
