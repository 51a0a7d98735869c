"""The gbench adapter against a real Google Benchmark binary (Debian package `libbenchmark-dev`),
compiled once per module."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial

SOURCE = r"""
#include <benchmark/benchmark.h>
#include <string>

static void BM_Copy(benchmark::State& state) {
  std::string x = "hello";
  for (auto _ : state) { std::string copy(x); benchmark::DoNotOptimize(copy); }
}
BENCHMARK(BM_Copy);

static void BM_Fill(benchmark::State& state) {
  for (auto _ : state) { std::string s(state.range(0), 'x'); benchmark::DoNotOptimize(s); }
}
BENCHMARK(BM_Fill)->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

static void BM_Fails(benchmark::State& state) {
  for (auto _ : state) { state.SkipWithError("input missing"); break; }
}
BENCHMARK(BM_Fails);

BENCHMARK_MAIN();
"""


def compile_gbench(root: Path, output: str = "bench") -> Path:
    """SOURCE compiled against the real libbenchmark into ``root / output``."""
    require_tool("g++")
    if not Path("/usr/include/benchmark/benchmark.h").exists():
        message = "libbenchmark-dev is not installed; run `make system-deps`"
        if os.environ.get("CI"):  # as require_tool: a skip must not hide a missing install step
            pytest.fail(message)
        pytest.skip(message)
    (root / "bench.cc").write_text(SOURCE)
    (root / output).parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["g++", "-O1", "bench.cc", "-o", output, "-lbenchmark", "-lpthread"], cwd=root, check=True)
    return root / output


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_gbench(tmp_path_factory.mktemp("gbench"))


def test_list_and_run(binary: Path) -> None:
    adapter = get_adapter("gbench")
    version = context(binary.parent, binary.parent / "scratch")
    settings = {"binary": "./bench", "min_time": "0.01"}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["BM_Copy", "BM_Fill/8", "BM_Fill/64", "BM_Fails"]
    values = adapter.run_trial(trial(BenchmarkSpec(name="BM_Fill/8"), version, 3, settings), real_runner())
    assert len(values) == 3 and all(v > 0 for v in values)
    micro = {**settings, "unit": "us", "time": "cpu_time"}
    assert len(adapter.run_trial(trial(BenchmarkSpec(name="BM_Copy"), version, 2, micro), real_runner())) == 2


def test_errors_and_match_count(binary: Path) -> None:
    adapter = get_adapter("gbench")
    version = context(binary.parent, binary.parent / "scratch")
    settings = {"binary": "./bench", "min_time": "0.01"}
    cases = [("BM_Fill", "a family of 2 (BM_Fill/8, BM_Fill/64)"), ("BM_Fails", "input missing")]
    for name, words in cases:
        with pytest.raises(TrialFailure) as err:
            adapter.run_trial(trial(BenchmarkSpec(name=name), version, 1, settings), real_runner())
        assert err.value.status == TrialStatus.INVALID and words in err.value.reason
    unanchored = {**settings, "args": ["--benchmark_filter=BM_Fill"]}  # a later flag wins
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="BM_Fill/8"), version, 1, unanchored), real_runner())
    assert "2 benchmarks matched" in err.value.reason
