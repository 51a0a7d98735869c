"""Go benchmarks that print to stdout, against the real Go toolchain: `go test -bench` prints the
name, then the benchmark's output, then the result fields, so a result is split across lines
(tests/testdata/go/prints/: the benchmarks and output recorded from them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.test_adapter_go import go_env

SOURCE = Path(__file__).resolve().parent.parent / "testdata" / "go" / "prints" / "prints_test.go"
MODES = {
    "go-test-per-trial": {"package": "./prints", "prebuild": False},
    "prebuilt-in-scratch": {"package": "./prints"},
    "binary-in-worktree": {"binary": "./prints.test"},  # built with `go test -c` below
}


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("go")
    root = tmp_path_factory.mktemp("goprints")
    (root / "go.mod").write_text("module example.com/prints\n\ngo 1.19\n")
    (root / "prints").mkdir()
    shutil.copyfile(SOURCE, root / "prints" / "prints_test.go")
    subprocess.run(
        ["go", "test", "-c", "-o", "prints.test", "./prints"],
        cwd=root,
        env={**os.environ, **go_env(root)},
        check=True,
    )
    return root


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_printing_benchmarks_yield_their_results(module: Path, tmp_path: Path, mode: str) -> None:
    runner = real_runner(go_env(module))
    adapter = get_adapter("go")
    version = context(module, tmp_path / "scratch")
    settings = {**MODES[mode], "benchtime": "3x", "args": ["-benchmem"]}
    names = [s.name for s in adapter.discover(version, runner, settings)]
    # the parent is replaced by its leaves, found in the listing run despite the printed output
    top = ["BenchmarkPrint", "BenchmarkPrintNoNewline", "BenchmarkLookalike"]
    assert names == [*top, "BenchmarkSizes/n=1", "BenchmarkSizes/n=2"]
    for name in ["BenchmarkPrint", "BenchmarkPrintNoNewline", "BenchmarkLookalike", "BenchmarkSizes/n=2"]:
        values = adapter.run_trial(trial(BenchmarkSpec(name=name), version, 3, settings), runner)
        # the lookalike lines and its b.Logf say 1 ns/op; printing a line takes far longer
        assert len(values) == 3 and all(v > 1 for v in values), (name, values)
    allocs = adapter.run_trial(
        trial(BenchmarkSpec(name="BenchmarkLookalike"), version, 2, {**settings, "metric": "allocs/op"}),
        runner,
    )
    assert len(allocs) == 2  # the lookalike lines have no allocs/op: taking one would be "no 'allocs/op'"

    with pytest.raises(TrialFailure) as err:  # a parent of two sub-benchmarks, which print
        adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkSizes"), version, 2, settings), runner)
    assert err.value.status == TrialStatus.INVALID and "2 benchmarks matched" in err.value.reason
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkPrints"), version, 2, settings), runner)
    assert err.value.status == TrialStatus.SKIPPED and "no such benchmark in this version" in err.value.reason


@pytest.mark.parametrize(
    "args",
    [["-v"], ["-cpu=1"], ["-cpu=2", "-benchmem"], ["-v", "-cpu=1", "-benchmem"]],
    ids=["verbose", "gomaxprocs1", "gomaxprocs2-benchmem", "verbose-gomaxprocs1-benchmem"],
)
def test_verbose_and_gomaxprocs_suffixes(module: Path, tmp_path: Path, args: list[str]) -> None:
    runner = real_runner(go_env(module))
    adapter = get_adapter("go")
    version = context(module, tmp_path / "scratch")
    settings = {"package": "./prints", "benchtime": "3x", "args": args}
    adapter.discover(version, runner, settings)  # builds the test binary into scratch
    for name in ["BenchmarkPrint", "BenchmarkPrintNoNewline", "BenchmarkLookalike", "BenchmarkSizes/n=1"]:
        values = adapter.run_trial(trial(BenchmarkSpec(name=name), version, 3, settings), runner)
        assert len(values) == 3 and all(v > 1 for v in values), (name, values)
