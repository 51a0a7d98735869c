"""``[gbench] binary`` and ``[go] binary`` name a file in the version's worktree, with real
processes: a program of the same name on PATH (a decoy that leaves a mark when run) must never
run, and a missing file is an error naming the resolved path. Real Google Benchmark and Go test
binaries where installed (as tests/integration/test_adapter_gbench.py / test_adapter_go.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.engine.process import SubprocessRunner
from gate.errors import RunError
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.test_adapter_gbench import compile_gbench
from tests.integration.test_adapter_go import go_env


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


@pytest.fixture
def decoys(tmp_path: Path) -> Path:
    """A PATH directory whose `bench` and `pkg.test` record that they ran (in `ran`)."""
    bin_dir = tmp_path / "path-bin"
    for name, listing in [("bench", "BM_Decoy"), ("pkg.test", "BenchmarkDecoy")]:
        script(bin_dir / name, f'echo {name} >> "{tmp_path}/ran"\necho {listing}\n')
    return bin_dir


def runner_with(decoys: Path, extra: dict[str, str] | None = None) -> SubprocessRunner:
    return real_runner({**(extra or {}), "PATH": f"{decoys}{os.pathsep}{os.environ.get('PATH', '')}"})


@pytest.mark.parametrize(("adapter", "binary"), [("gbench", "bench"), ("go", "pkg.test")])
def test_bare_name_is_never_looked_up_on_path(
    tmp_path: Path, decoys: Path, adapter: str, binary: str
) -> None:
    work = tmp_path / "wt"
    work.mkdir()
    version = context(work, tmp_path / "scratch")
    with pytest.raises(RunError) as err:  # not built: an error, not the decoy
        get_adapter(adapter).discover(version, runner_with(decoys), {"binary": binary})
    assert f"{work / binary}" in err.value.message and "does not exist" in err.value.message
    assert "[suite] build" in err.value.fix
    with pytest.raises(TrialFailure) as trial_err:
        name = "BM_Real" if adapter == "gbench" else "BenchmarkReal"
        get_adapter(adapter).run_trial(
            trial(BenchmarkSpec(name=name), version, 1, {"binary": binary}), runner_with(decoys)
        )
    assert trial_err.value.status == TrialStatus.ERROR and f"{work / binary}" in trial_err.value.reason

    listing = "BM_Real" if adapter == "gbench" else "BenchmarkReal"
    script(work / binary, f"echo {listing}\n")  # built: the worktree's file runs
    specs = get_adapter(adapter).discover(version, runner_with(decoys), {"binary": binary})
    assert [s.name for s in specs] == [listing]
    assert not (tmp_path / "ran").exists()


@pytest.fixture(scope="module")
def gbench_worktree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gbench-wt")
    os.link(compile_gbench(root, "build/bench"), root / "bench")
    return root


@pytest.mark.parametrize("binary", ["bench", "build/bench", "ABSOLUTE"])
def test_real_google_benchmark_binary_in_the_worktree(
    gbench_worktree: Path, tmp_path: Path, decoys: Path, binary: str
) -> None:
    binary = str(gbench_worktree / "bench") if binary == "ABSOLUTE" else binary
    adapter = get_adapter("gbench")
    version = context(gbench_worktree, tmp_path / "scratch", prefix=("nice", "-n", "0"))
    settings = {"binary": binary, "min_time": "0.01"}
    specs = adapter.discover(version, runner_with(decoys), settings)
    assert [s.name for s in specs] == ["BM_Copy", "BM_Fill/8", "BM_Fill/64", "BM_Fails"]
    values = adapter.run_trial(
        trial(BenchmarkSpec(name="BM_Copy"), version, 2, settings), runner_with(decoys)
    )
    assert len(values) == 2 and all(v > 0 for v in values)
    assert not (tmp_path / "ran").exists()


def test_real_google_benchmark_binary_not_built(gbench_worktree: Path, tmp_path: Path) -> None:
    version = context(gbench_worktree, tmp_path / "scratch")
    with pytest.raises(RunError) as err:
        get_adapter("gbench").discover(version, real_runner(), {"binary": "out/bench"})
    assert str(gbench_worktree / "out" / "bench") in err.value.message
    assert "[suite] build" in err.value.fix and "[gbench] binary" in err.value.fix


def test_real_go_test_binary_in_the_worktree(tmp_path: Path, decoys: Path) -> None:
    require_tool("go")
    work = tmp_path / "wt"
    (work / "pkg").mkdir(parents=True)
    (work / "go.mod").write_text("module example.com/pkg\n\ngo 1.19\n")
    (work / "pkg" / "pkg_test.go").write_text(
        'package pkg\n\nimport "testing"\n\nfunc BenchmarkReal(b *testing.B) {\n'
        "\tfor i := 0; i < b.N; i++ {\n\t}\n}\n"
    )
    env = go_env(work)
    subprocess.run(
        ["go", "test", "-c", "-o", "pkg.test", "./pkg"], cwd=work, env={**os.environ, **env}, check=True
    )
    version = context(work, tmp_path / "scratch")
    settings = {"binary": "pkg.test", "benchtime": "100x"}
    specs = get_adapter("go").discover(version, runner_with(decoys, env), settings)
    assert [s.name for s in specs] == ["BenchmarkReal"]
    values = get_adapter("go").run_trial(trial(specs[0], version, 2, settings), runner_with(decoys, env))
    assert len(values) == 2 and all(v > 0 for v in values)
    assert not (tmp_path / "ran").exists()
