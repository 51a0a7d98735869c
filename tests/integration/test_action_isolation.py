"""Every step of run/action.yml and guard/action.yml runs the gate's installed code only, never a
module from the working directory (the PR's checkout).

The checkout holds top-level ``gate/``, ``venv/`` and ``pip/`` packages of a hostile PR: each one,
if it is ever imported or run, leaves a marker file beside the checkout and exits loudly. The
steps' own shell text is run with ``bash --noprofile --norc -eo pipefail`` (how GitHub runs
``shell: bash``) from that checkout, against a copy of the action's files (as the runner keeps
them under ``_actions/``), with the real interpreter, venv, pip and git. A repository whose own
top-level package is called ``gate`` must still work, and its benchmarks must see that package.

Installing the gate fetches build requirements (and, for the guard, PyGithub) from the package
index, as on a runner; the run action's venv is installed with ``PIP_NO_DEPS=1`` (pip reads every
option from ``PIP_<OPTION>``) so the test does not download numpy & co.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT, require_tool
from tests.fakes.github_server import ACTIONS_TOKEN, FakeGitHub

pytestmark = pytest.mark.slow

SHADOWS = ("gate", "venv", "pip")
SHADOW = """\
import pathlib, sys
pathlib.Path(__file__).resolve().parents[1].joinpath("SHADOW-{name}-RAN").write_text("ran")
sys.exit("the PR checkout's own {name} package was imported")
"""
HEAD_SHA = "c3" * 20

# pip and TLS settings of this machine (an index mirror, a CA bundle), so installs work as in CI
PASS_THROUGH = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY",
                "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")  # fmt: skip


def plant_shadows(checkout: Path, names: tuple[str, ...] = SHADOWS) -> None:
    for name in names:
        package = checkout / name
        package.mkdir()
        for module in ("__init__.py", "__main__.py"):
            (package / module).write_text(SHADOW.format(name=name))


def shadows_that_ran(checkout: Path) -> list[str]:
    return sorted(p.name for p in checkout.glob("SHADOW-*-RAN"))


def step(action: str, step_id: str) -> str:
    meta = yaml.safe_load((REPO_ROOT / action / "action.yml").read_text())
    (found,) = [s for s in meta["runs"]["steps"] if s.get("id") == step_id]
    assert "${{" not in found["run"], "steps take inputs through env: only then is this the real text"
    return found["run"]


def run_step(
    action: str, step_id: str, cwd: Path, env: dict[str, str], *, network: bool = False
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    output = cwd.parent / f"{step_id}.output"
    output.write_text("")
    full_env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd.parent / "home"), "GITHUB_OUTPUT": str(output)}
    if network:
        full_env |= {k: v for k, v in os.environ.items() if k.startswith("PIP_") or k in PASS_THROUGH}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step(action, step_id)],
        cwd=cwd, env={**full_env, **env}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    lines = output.read_text().splitlines()
    return result, dict(line.split("=", 1) for line in lines if "=" in line)


def git(cwd: Path, *args: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def action_root(tmp_path_factory) -> Path:
    """The action's files as the runner downloads them (run/, guard/, the gate's sources)."""
    root = tmp_path_factory.mktemp("actions") / "ordertrap-gate"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in ("gate", "run", "guard"):
        shutil.copytree(REPO_ROOT / name, root / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, root / name)
    return root


@pytest.fixture
def checkout(tmp_path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (tmp_path / "home").mkdir()
    plant_shadows(path)
    return path


# ---- the install steps (a cold cache: venv and pip run) ----------------------------------------


@pytest.mark.parametrize("names", [SHADOWS, ("pip",)], ids=["gate-venv-pip", "pip-only"])
def test_run_action_install_step_never_runs_the_checkout_s_venv_or_pip(action_root, tmp_path, names):
    path = tmp_path / "workspace"
    path.mkdir()
    (tmp_path / "home").mkdir()
    plant_shadows(path, names)
    result, out = run_step(
        "run", "venv", path,
        {"ACTION_PATH": str(action_root / "run"), "PYTHON": sys.executable,
         "RUNNER_TOOL_CACHE": str(tmp_path / "toolcache"), "PIP_NO_DEPS": "1"},
        network=True,
    )  # fmt: skip
    assert shadows_that_ran(path) == [], result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    gate_bin = Path(out["bin"])
    assert gate_bin.parent.parent == tmp_path / "toolcache" / "ordertrap-gate"
    assert (gate_bin / "ordertrap-gate").is_file()
    installed = subprocess.run(
        [str(gate_bin / "python"), "-I", "-c", "import gate; print(gate.__file__)"],
        cwd=path, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert Path(installed).is_relative_to(gate_bin.parent), installed


@pytest.fixture(scope="module")
def guard_bin(action_root, tmp_path_factory) -> Path:
    """guard/action.yml's install step, run once from a checkout with the shadow packages."""
    tmp = tmp_path_factory.mktemp("guard-install")
    path = tmp / "workspace"
    path.mkdir()
    (tmp / "home").mkdir()
    plant_shadows(path)
    result, out = run_step(
        "guard", "install", path,
        {"ACTION_PATH": str(action_root / "guard"), "PYTHON": sys.executable, "RUNNER_TEMP": str(tmp)},
        network=True,
    )  # fmt: skip
    assert shadows_that_ran(path) == [], result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    bin_dir = Path(out["bin"])
    assert bin_dir.is_relative_to(tmp) and not bin_dir.is_relative_to(path)
    return bin_dir


# ---- the guard's decision ----------------------------------------------------------------------


def decide(
    guard_bin: Path, fake: FakeGitHub, checkout: Path, payload: dict, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    event = checkout.parent / "event.json"
    event.write_text(json.dumps(payload))
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_SHA": "d4" * 20,  # the merge commit: not what is benchmarked
        "GUARD_BIN": str(guard_bin),
        "INPUT_GITHUB_TOKEN": ACTIONS_TOKEN,
        "INPUT_ALLOW_FORK_PRS": inputs.get("allow_fork_prs", "false"),
        "INPUT_FORK_LABEL": inputs.get("fork_label", "ordertrap-run-fork"),
    }
    return run_step("guard", "decide", checkout, env)


def test_guard_allows_a_fork_pr_labelled_by_a_writer_and_names_the_reviewed_head(guard_bin, checkout):
    with FakeGitHub() as fake:
        fake.set_permission("maintainer", "write")
        pull = fake.add_pull(3, HEAD_SHA, fork="outsider/widgets")
        payload = {"action": "labeled", "number": 3, "pull_request": pull,
                   "label": {"name": "ordertrap-run-fork"}, "sender": {"login": "maintainer"}}  # fmt: skip
        result, out = decide(guard_bin, fake, checkout, payload)
        assert fake.requests("GET", "/collaborators/maintainer/permission")
    assert shadows_that_ran(checkout) == [], result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert out["allowed"] == "true" and out["head_sha"] == HEAD_SHA
    assert "maintainer (write) added `ordertrap-run-fork`" in out["reason"]


def test_guard_refuses_an_unlabelled_fork_pr_and_says_how_to_opt_in(guard_bin, checkout):
    with FakeGitHub() as fake:
        pull = fake.add_pull(3, HEAD_SHA, fork="outsider/widgets")
        payload = {
            "action": "synchronize",
            "number": 3,
            "pull_request": pull,
            "sender": {"login": "outsider"},
        }
        result, out = decide(guard_bin, fake, checkout, payload)
    assert shadows_that_ran(checkout) == [], result.stdout + result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert out["allowed"] == "false"
    assert result.stdout.startswith("::error title=fork PR not benchmarked::")
    assert "ordertrap-run-fork" in result.stdout and "allow_fork_prs" in result.stdout


def test_guard_allows_a_same_repository_pr(guard_bin, checkout):
    with FakeGitHub() as fake:
        pull = fake.add_pull(4, HEAD_SHA)
        result, out = decide(
            guard_bin, fake, checkout, {"action": "opened", "number": 4, "pull_request": pull}
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert out == {
        "allowed": "true",
        "head_sha": HEAD_SHA,
        "reason": "the PR's branch lives in this repository",
    }
    assert shadows_that_ran(checkout) == []


# ---- run/action.yml after the install, step by step --------------------------------------------

BENCH = """\
import sys
sys.path.insert(0, ".")
{body}
print("value:", 1 + len(sys.argv))
"""
CONFIG = """\
[suite]
adapter = "command"
timeout = 60
{extra}
[[benchmark]]
name = "probe"
command = "{python} bench.py"
unit = "x"

[full]
suite_runs = 1
iterations = 2
measurements = 1
"""


def gate_bin_of_this_test_run(tmp_path: Path) -> Path:
    """GATE_BIN as the install step leaves it: `python` and `ordertrap-gate` of an installed gate
    (here the test's own environment, which has the gate's dependencies)."""
    installed = shutil.which("ordertrap-gate", path=str(Path(sys.executable).parent))
    assert installed, "ordertrap-gate is not installed next to the test interpreter (pip install -e .)"
    bin_dir = tmp_path / "gatebin"
    bin_dir.mkdir()
    for name, target in (("python", sys.executable), ("ordertrap-gate", installed)):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
        script.chmod(0o755)
    return bin_dir


def pr_repository(
    path: Path, head_files: dict[str, str], shadows: tuple[str, ...] = (), suite: str = ""
) -> dict[str, str]:
    """base: the benchmark (``suite``: more [suite] lines); head (checked out): the PR's files,
    plus the shadow packages."""
    require_tool("git")
    git(path, "init", "-q", "-b", "main")
    (path / "bench.py").write_text(BENCH.format(body=""))
    (path / ".ordertrap.toml").write_text(CONFIG.format(python=sys.executable, extra=suite))
    git(path, "add", "-A")
    git(path, "commit", "-qm", "base")
    base = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-qb", "feature")
    for name, text in head_files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    plant_shadows(path, shadows)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "head")
    return {"base": base, "head": git(path, "rev-parse", "HEAD")}


def run_action_steps(path: Path, tmp_path: Path, shas: dict[str, str]) -> dict[str, str]:
    """Every step of run/action.yml after the install, in order, as a same-repository PR."""
    gate_bin = gate_bin_of_this_test_run(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({
        "action": "synchronize", "number": 5,
        "pull_request": {"number": 5, "head": {"sha": shas["head"], "ref": "feature", "repo": {"full_name": "acme/widgets"}},
                         "base": {"sha": shas["base"], "ref": "main", "repo": {"full_name": "acme/widgets"}}},
    }))  # fmt: skip
    github = {"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_EVENT_NAME": "pull_request",
              "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "d4" * 20, "GITHUB_TOKEN": "ghs_secret"}  # fmt: skip
    logs: dict[str, str] = {}

    def ok(step_id: str, env: dict[str, str]) -> dict[str, str]:
        result, out = run_step("run", step_id, path, {**github, "GATE_BIN": str(gate_bin), **env})
        logs[step_id] = result.stdout + result.stderr
        assert result.returncode == 0, f"step {step_id}:\n{logs[step_id]}"
        return out

    inputs = {"INPUT_HEAD": shas["head"], "INPUT_GITHUB_TOKEN": "ghs_secret", "INPUT_ALLOW_FORK_PRS": "false",
              "INPUT_FORK_LABEL": "ordertrap-run-fork", "INPUT_CONFIG": ".ordertrap.toml", "INPUT_SEED": "1",
              "INPUT_CALIBRATION": "none", "INPUT_ORDER_CHECK": "false", "INPUT_OUT": "ordertrap-trials",
              "RUNNER_NAME": "r1"}  # fmt: skip
    paths = ok("gate", inputs)
    assert "ordertrap-gate fork-guard: allowed: the PR's branch lives in this repository" in logs["gate"]
    # base is the PR's base tip here, so the merge-base is that tip, which also supplies the settings
    assert (paths["base"], paths["head"]) == (shas["base"], shas["head"])
    return paths


def trial_statuses(path: Path, paths: dict[str, str]) -> list[str]:
    import csv

    with (path / paths["dir"] / "trials.csv").open(newline="") as handle:
        return [row["status"] for row in csv.DictReader(handle)]


def test_every_run_action_step_runs_the_installed_gate_from_a_hostile_checkout(tmp_path):
    path = tmp_path / "workspace"
    path.mkdir()
    (tmp_path / "home").mkdir()
    shas = pr_repository(path, {"README": "a PR that adds gate/, venv/ and pip/ packages\n"}, SHADOWS)
    paths = run_action_steps(path, tmp_path, shas)
    assert shadows_that_ran(path) == []
    assert trial_statuses(path, paths) == ["ok"] * 4
    info = json.loads((path / paths["out"] / "ordertrap-pr.json").read_text())
    assert info["head_sha"] == shas["head"] and info["pr_number"] == 5


def test_a_repository_with_its_own_gate_package_is_benchmarked_with_it(tmp_path):
    """The gate's steps use the installed gate; the benchmarks, run in the repository's worktrees,
    import the repository's own top-level `gate` package. That package logs which program
    imported it, so an import by a gate step shows even where the test environment's editable
    install would let the step go on with the installed submodules."""
    path = tmp_path / "workspace"
    path.mkdir()
    (tmp_path / "home").mkdir()
    logs = tmp_path / "logs"  # bound writable into the sandbox ([suite] caches): /tmp is private there
    logs.mkdir()
    log = logs / "imports.log"
    own = {
        "gate/__init__.py": (
            "import os, sys\n"
            'OWNER = "the repository"\n'
            f"with open({str(log)!r}, 'a') as handle:\n"
            "    handle.write(os.path.basename(sys.argv[0]) + '\\n')\n"
        ),
        "bench.py": BENCH.format(body='import gate\nassert gate.OWNER == "the repository", gate.__file__'),
    }
    shas = pr_repository(path, own, suite=f'caches = ["{logs}"]')
    paths = run_action_steps(path, tmp_path, shas)
    # head's benchmark asserts it imported the repository's gate: a failed import or the wrong
    # package would make its trials fail
    assert trial_statuses(path, paths) == ["ok"] * 4
    importers = log.read_text().splitlines()
    assert importers and set(importers) == {"bench.py"}, importers
