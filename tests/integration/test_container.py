"""The root action's image, built and run with podman the way GitHub runs a Docker action.

``scripts/container-test.sh build`` builds the Dockerfile (base image debootstrapped once and
cached, see docs/github-actions.md "Running the image locally or behind a proxy"); the container then runs with the workspace at
``/github/workspace``, the runner's files under ``/github/file_commands`` and
``/github/workflow``, the inputs in ``INPUT_*``, against the fake GitHub server on the host.
``--network host`` lets the container reach the fake server on 127.0.0.1 (it binds loopback only).
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from gate.model import TRIAL_COLUMNS
from tests.conftest import REPO_ROOT, require_tool
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub

pytestmark = [pytest.mark.podman, pytest.mark.slow]

SCRIPT = REPO_ROOT / "scripts" / "container-test.sh"
# the tag scripts/container-test.sh builds (ORDERTRAP_IMAGE, as there)
IMAGE = os.environ.get("ORDERTRAP_IMAGE", "localhost/ordertrap-gate:test")
HEAD = "a1" * 20
BASE = "b2" * 20
PR = 7


def write_trial_log(path: Path, *, slowdown: float, seed: int = 3) -> None:
    """A small RMIT log (docs/contracts.md): parse is ``slowdown`` times slower in HEAD."""
    rng = random.Random(seed)
    rows = []
    trial = 0
    for suite_run in range(1, 4):
        order = [(b, v, i) for b in ("parse", "render") for v in ("main", "HEAD") for i in range(1, 6)]
        rng.shuffle(order)
        for position, (bench, version, iteration) in enumerate(order, 1):
            trial += 1
            base = 0.010 if bench == "parse" else 0.020
            factor = slowdown if (bench == "parse" and version == "HEAD") else 1.0
            rows.append(
                {
                    "trial": trial, "benchmark": bench, "version": version, "instance": "runner-1",
                    "suite_run": suite_run, "order_type": "random", "position": position,
                    "iteration": iteration, "measurement": 1,
                    "value": f"{base * factor * rng.uniform(0.99, 1.01):.6f}", "unit": "s",
                    "higher_is_better": "false", "status": "ok", "reason": "",
                    "started_at": "2026-11-26T02:30:00Z", "elapsed_s": "0.05", "config": "full",
                    "round": 0,
                }
            )  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=TRIAL_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture(scope="module")
def image() -> str:
    for tool in ("podman", "runc", "debootstrap"):
        require_tool(tool)
    build = subprocess.run(["bash", str(SCRIPT), "build"], capture_output=True, text=True, timeout=1500)
    assert build.returncode == 0, f"image build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}"
    return IMAGE


def run_action(
    image: str, fake: FakeGitHub, tmp: Path, event: dict, inputs: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    workspace, files, workflow = tmp / "workspace", tmp / "file_commands", tmp / "workflow"
    for folder in (workspace, files, workflow):
        folder.mkdir(exist_ok=True)
    (files / "output").write_text("")
    (files / "summary.md").write_text("")
    (workflow / "event.json").write_text(json.dumps(event))
    env_vars = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_SHA": "d4" * 20,
        "GITHUB_RUN_ID": "4242",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary.md",
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    args = ["run", "--rm", "--network", "host", "--workdir", "/github/workspace",
            "-v", f"{workspace}:/github/workspace", "-v", f"{files}:/github/file_commands",
            "-v", f"{workflow}:/github/workflow"]  # fmt: skip
    for key in env_vars:
        args += ["-e", key]  # values come from the environment: the token is not on the command line
    args += ["-e", "INPUT_GITHUB_TOKEN", image]
    env = {**os.environ, **env_vars, "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=600)


def outputs_of(tmp: Path) -> dict[str, str]:
    lines = (tmp / "file_commands" / "output").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_container_gates_a_pull_request_end_to_end(image, tmp_path):
    with FakeGitHub() as fake:
        pull = fake.add_pull(PR, HEAD, BASE)
        event = {"action": "synchronize", "number": PR, "pull_request": pull}
        write_trial_log(tmp_path / "workspace" / "ordertrap-trials" / "runner-1" / "trials.csv", slowdown=1.2)
        inputs = {"trials": "ordertrap-trials/**/trials.csv", "base": "main", "head": "HEAD",
                  "fail_on": "regression", "comment": "on-change", "accept_label": "perf-regression-accepted"}  # fmt: skip

        first = run_action(image, fake, tmp_path, event, inputs)
        log = first.stdout + first.stderr
        assert first.returncode == 1, log  # the regression fails the step
        assert ACTIONS_TOKEN not in log
        assert "::error title=performance regression in parse::" in first.stdout
        (comment,) = fake.comments_on(PR)
        assert "parse" in comment["body"]
        assert fake.statuses_for(HEAD)[-1]["state"] == "failure"
        outs = outputs_of(tmp_path)
        assert (
            outs["decision"] == "fail"
            and outs["regressions"] == "1"
            and outs["comment_url"] == comment["html_url"]
        )
        assert outs["report_path"] == "ordertrap-report/report.html"
        assert (tmp_path / "workspace" / "ordertrap-report" / "report.html").stat().st_size > 0
        assert (tmp_path / "workspace" / "ordertrap-report" / "analysis.json").is_file()
        assert "parse" in (tmp_path / "file_commands" / "summary.md").read_text()

        # a maintainer accepts the regression and re-runs the job: same payload, label from the API
        fake.set_labels(PR, ("perf-regression-accepted",))
        second = run_action(image, fake, tmp_path, event, inputs)
        assert second.returncode == 0, second.stdout + second.stderr
        (updated,) = fake.comments_on(PR)
        assert updated["id"] == comment["id"] and "accepted" in updated["body"].lower()
        status = fake.statuses_for(HEAD)[-1]
        assert status["state"] == "success" and "accepted" in status["description"]


def test_container_without_trial_logs_sets_status_error(image, tmp_path):
    with FakeGitHub() as fake:
        pull = fake.add_pull(PR, HEAD, BASE)
        result = run_action(
            image, fake, tmp_path, {"number": PR, "pull_request": pull}, {"trials": "nothing/*.csv"}
        )
        assert result.returncode == 2
        assert "no trial log matches" in result.stderr and "download the trial artifacts" in result.stderr
        assert fake.statuses_for(HEAD)[-1]["state"] == "error"
        assert outputs_of(tmp_path)["decision"] == "error"


def test_container_runs_its_installed_gate_not_a_gate_package_in_the_workspace(image, tmp_path):
    """The workspace (the working directory of the entrypoint) holds a top-level `gate` package,
    as a repository may, or a PR may plant: the image's installed gate runs all the same."""
    shadow = tmp_path / "workspace" / "gate"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        "import pathlib, sys\n"
        "pathlib.Path(__file__).resolve().parents[1].joinpath('SHADOW-gate-RAN').write_text('ran')\n"
        "sys.exit('the workspace gate package was imported')\n"
    )
    with FakeGitHub() as fake:
        pull = fake.add_pull(PR, HEAD, BASE)
        event = {"action": "synchronize", "number": PR, "pull_request": pull}
        write_trial_log(tmp_path / "workspace" / "ordertrap-trials" / "runner-1" / "trials.csv", slowdown=1.0)
        result = run_action(image, fake, tmp_path, event, {"trials": "ordertrap-trials/**/trials.csv",
                                                           "base": "main", "head": "HEAD"})  # fmt: skip
        log = result.stdout + result.stderr
        assert not (tmp_path / "workspace" / "SHADOW-gate-RAN").exists(), log
        assert result.returncode == 0, log
        assert outputs_of(tmp_path)["decision"] == "pass"
        assert fake.statuses_for(HEAD)[-1]["state"] == "success"


def test_arguments_given_to_the_image_reach_the_cli(image):
    # `docker run IMAGE --help`: with arguments the entrypoint is the CLI; GitHub runs it without
    # any, action.yml has no args (docs/github-actions.md "Running the image locally or behind a proxy")
    proc = subprocess.run(
        ["bash", str(SCRIPT), "run", "--rm", image, "--help"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "usage: ordertrap-gate" in proc.stdout and "calibrate" in proc.stdout
