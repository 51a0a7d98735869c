"""The shape of the example workflows and actions that keeps a PR's code off the benchmark machine
until a trust decision was made, and keeps it from standing in for the gate's own code.

* Every example workflow a pull request triggers decides in a ``guard`` job on a GitHub-hosted
  runner without a checkout; every self-hosted job ``needs:`` it and runs only when it allowed,
  on the head commit it decided on.
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

from tests.conftest import REPO_ROOT
from tests.workflow_files import ACTIONS, WORKFLOWS, load, step_scripts

PR_EVENTS = {"pull_request", "pull_request_target"}
GITHUB_HOSTED = re.compile(r"ubuntu-(latest|\d\d\.\d\d)")
# a Python interpreter started with options and then -m/-c: `python3 -m`, `"$GATE_BIN/python" -I -m`, `"$PYTHON" -c`
PYTHON_CALL = re.compile(
    r"""(?P<exe>["']?[^\s"']*python[0-9.]*["']?)(?P<opts>(?:\s+-[A-Za-z]+)*?)\s+-[mc]\b""", re.I
)


def triggers(workflow: dict[str, Any]) -> set[str]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the bare key `on` as True
    if isinstance(on, str):
        return {on}
    return set(on or ())


def runs_on(job: dict[str, Any]) -> list[str]:
    labels = job.get("runs-on", [])
    return [labels] if isinstance(labels, str) else list(labels)


def uses(job: dict[str, Any]) -> list[str]:
    return [str(step.get("uses", "")) for step in job.get("steps", [])]


def pr_workflows() -> list[Path]:
    found = [path for path in WORKFLOWS if triggers(load(path)) & PR_EVENTS]
    assert found, "no example workflow runs on pull requests"
    return found


@pytest.mark.parametrize("path", pr_workflows(), ids=lambda p: p.name)
def test_the_guard_decides_before_any_checkout_on_the_self_hosted_runner(path):
    jobs: dict[str, dict[str, Any]] = load(path)["jobs"]
    guards = [name for name, job in jobs.items() if any(re.search(r"/guard@", u) for u in uses(job))]
    assert len(guards) == 1, f"{path.name}: one job must use the guard action, found {guards}"
    (name,) = guards
    guard = jobs[name]
    (label,) = runs_on(guard)
    assert GITHUB_HOSTED.fullmatch(label), (
        f"{path.name}: the guard must run on a GitHub-hosted runner, not {label}"
    )
    assert not any("actions/checkout" in u for u in uses(guard)), f"{path.name}: the guard job checks out"
    assert all("run" not in step for step in guard["steps"]), f"{path.name}: the guard job runs a script"
    (step_id,) = [s["id"] for s in guard["steps"] if "/guard@" in str(s.get("uses", ""))]
    assert guard["outputs"] == {
        "allowed": f"${{{{ steps.{step_id}.outputs.allowed }}}}",
        "head_sha": f"${{{{ steps.{step_id}.outputs.head_sha }}}}",
    }

    self_hosted = {n: job for n, job in jobs.items() if "self-hosted" in runs_on(job)}
    assert self_hosted, f"{path.name}: no benchmark job on a self-hosted runner"
    for job_name, job in self_hosted.items():
        needs = job.get("needs", [])
        assert name in ([needs] if isinstance(needs, str) else needs), (
            f"{path.name}: {job_name} does not need {name}"
        )
        condition = str(job.get("if", ""))
        assert f"needs.{name}.outputs.allowed == 'true'" in condition, (
            f"{path.name}: {job_name} if: {condition!r}"
        )
        for step in job["steps"]:
            if "/run@" in str(step.get("uses", "")):
                assert step["with"]["head"] == f"${{{{ needs.{name}.outputs.head_sha }}}}", (
                    f"{path.name}: {job_name} must benchmark the head the guard decided on"
                )


@pytest.mark.parametrize("path", [*ACTIONS, *WORKFLOWS], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_python_a_step_starts_is_isolated_from_the_working_directory(path):
    calls = [m for script in step_scripts(path) for m in PYTHON_CALL.finditer(script)]
    for call in calls:
        assert "-I" in call["opts"].split(), (
            f"{path.name}: `{call.group(0)}` can import from the working directory"
        )


def test_the_pattern_finds_python_calls():
    """The check above would pass vacuously if the pattern missed the calls it is meant to see."""
    scripts = [s for p in ACTIONS for s in step_scripts(p)]
    found = {m.group(0) for s in scripts for m in PYTHON_CALL.finditer(s)}
    assert {'"$PYTHON" -I -m', '"$GATE_BIN/python" -I -m', '"$GUARD_BIN/python" -I -m'} <= found
    bad = [m.group(0) for m in PYTHON_CALL.finditer('python3 -m venv x; "$GATE/python" -B -c pass')]
    assert bad == ["python3 -m", '"$GATE/python" -B -c']


def test_the_docker_entrypoint_is_isolated_from_the_workspace():
    lines = (REPO_ROOT / "Dockerfile").read_text().splitlines()
    (entrypoint,) = [json.loads(line.split(None, 1)[1]) for line in lines if line.startswith("ENTRYPOINT ")]
    assert entrypoint[0].startswith("/") and "python" in entrypoint[0]
    assert "-I" in entrypoint[: entrypoint.index("-m")]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_self_hosted_job_holds_a_write_permission(path: Path) -> None:
    # The benchmark machine also runs pull requests' code, and what an earlier job left there can
    # read a later job's token: pushing, commenting and opening pull requests happen on GitHub-hosted
    # runners, from data the self-hosted jobs uploaded.
    for name, job in load(path)["jobs"].items():
        if "self-hosted" in runs_on(job):
            permissions = job.get("permissions")
            assert isinstance(permissions, dict), f"{path.name}: job {name} does not state its permissions"
            writes = sorted(scope for scope, level in permissions.items() if level == "write")
            assert writes == [], f"{path.name}: self-hosted job {name} holds write permissions {writes}"
