"""The pytest-benchmark adapter against real pytest-benchmark (from PyPI, in the dev venv), in a
real git worktree whose project config tries to write into the tree (autosave, --benchmark-json)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial

PROJECT_CONFIG = """[tool.pytest.ini_options]
addopts = "--benchmark-autosave --benchmark-json=bench-in-tree.json"
"""
TESTS = """import pytest


def test_add(benchmark):
    benchmark(lambda: sum(range(50)))


@pytest.mark.parametrize("n", [1, 2])
def test_param(benchmark, n):
    benchmark(lambda: n * 2)


def test_plain():
    assert True


def test_fails(benchmark):
    benchmark(lambda: None)
    assert 1 == 2
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def worktree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("git")
    pytest.importorskip("pytest_benchmark")  # a dev dependency: always there after `make test`
    root = tmp_path_factory.mktemp("pbproj")
    repo = root / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text(PROJECT_CONFIG)
    (repo / "test_bench.py").write_text(TESTS)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "bench")
    git(repo, "worktree", "add", "-q", "--detach", str(root / "wt"), "HEAD")
    return root / "wt"


def test_discover_runs_and_leaves_the_worktree_clean(worktree: Path) -> None:
    adapter = get_adapter("pytest-benchmark")
    scratch = worktree.parent / "scratch"
    version = context(worktree, scratch, python=sys.executable)
    specs = adapter.discover(version, real_runner(), {})
    assert [s.name for s in specs] == [
        "test_bench.py::test_add",
        "test_bench.py::test_param[1]",
        "test_bench.py::test_param[2]",
        "test_bench.py::test_fails",
    ]
    values = adapter.run_trial(trial(specs[0], version, 4), real_runner())
    assert len(values) == 4 and all(v > 0 for v in values)
    assert len(adapter.run_trial(trial(specs[1], version, 2), real_runner())) == 2

    # the gate's plugin replaced py-cpuinfo's machine info in the JSON it wrote (into scratch)
    outputs = [json.loads(p.read_text()) for p in scratch.glob("test_bench.py_test_add-*.json")]
    assert len(outputs) == 1
    assert "ordertrap-gate" in outputs[0]["machine_info"]["cpu"]["note"]
    assert outputs[0]["commit_info"]["id"] == "unknown"  # no git processes in the worktree

    assert git(worktree, "status", "--porcelain", "--ignored") == ""
    assert git(worktree.parent / "repo", "status", "--porcelain", "--ignored") == ""


@pytest.mark.parametrize(
    ("name", "status", "words"),
    [
        ("test_bench.py::test_param", TrialStatus.INVALID, "2 benchmarks matched"),
        (
            "test_bench.py::test_missing",
            TrialStatus.SKIPPED,
            "no such benchmark in this version (pytest: not found",
        ),
        ("test_other.py::test_missing", TrialStatus.SKIPPED, "pytest: file or directory not found"),
        ("test_bench.py::test_fails", TrialStatus.ERROR, "test_fails"),
        ("test_bench.py::test_plain", TrialStatus.INVALID, "measured nothing"),
    ],
)
def test_failures(worktree: Path, name: str, status: TrialStatus, words: str) -> None:
    version = context(worktree, worktree.parent / "scratch", python=sys.executable)
    with pytest.raises(TrialFailure) as err:
        get_adapter("pytest-benchmark").run_trial(trial(BenchmarkSpec(name=name), version, 2), real_runner())
    assert err.value.status == status and words in err.value.reason
    assert git(worktree, "status", "--porcelain", "--ignored") == ""


def test_a_gate_started_from_an_xdist_worker_still_measures(worktree: Path) -> None:
    # pytest-benchmark disables itself in any process that has PYTEST_XDIST_WORKER set; the
    # trial's pytest must not inherit that marker from the process that started the gate
    version = context(worktree, worktree.parent / "scratch", python=sys.executable)
    runner = real_runner({"PYTEST_XDIST_WORKER": "gw3"})
    values = get_adapter("pytest-benchmark").run_trial(
        trial(BenchmarkSpec(name="test_bench.py::test_add"), version, 3), runner
    )
    assert len(values) == 3 and all(v > 0 for v in values)
