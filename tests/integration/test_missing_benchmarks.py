"""A benchmark that a change adds or removes is ``skipped`` in the version without it, not
``failed``: ``run`` + ``analyze`` end to end on real git repositories with two or three revisions,
with the real frameworks (Go, pytest-benchmark, Google Benchmark, hyperfine, and the command
adapter's ``missing_exit_code``).

Verdicts of the benchmarks present in both versions are not the subject here: ``analyze`` runs
with ``--threshold-pct 500`` so that they come out ``unchanged`` and the decision shows only
what the added or removed benchmarks do to it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.test_adapter_gbench import compile_gbench
from tests.integration.two_versions import (
    GO_CONFIG,
    make_go_repo,
    make_repo,
    one_version_only,
    run_and_analyze,
    statuses,
    use_go_env,
)

# ---- Go ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def go_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_go_repo(tmp_path_factory.mktemp("gomissing"))


@pytest.fixture
def go_environment(go_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_go_env(monkeypatch, go_repo.parent)


@pytest.mark.slow
def test_go_sub_benchmark_added_by_the_change_is_skipped_in_base_not_failed(
    go_repo: Path, go_environment: None, tmp_path: Path
) -> None:
    # the xxhash case: every leaf named by hand, BenchmarkSum/16B exists in head only
    entries = "".join(f'[[benchmark]]\nname = "BenchmarkSum/{s}"\n' for s in ("4B", "16B", "64B"))
    trials, meta, analysis = run_and_analyze(
        go_repo, GO_CONFIG.format(benchmarks=entries), tmp_path / "out", "r1", "r2"
    )
    seen = statuses(trials)
    assert seen[("BenchmarkSum/16B", "r1")] == {"skipped"}
    assert seen[("BenchmarkSum/16B", "r2")] == seen[("BenchmarkSum/4B", "r1")] == {"ok"}
    assert seen[("BenchmarkNew", "r1")] == {"skipped"}  # not discovered in r1: never run
    reasons = set(
        trials.loc[(trials["benchmark"] == "BenchmarkSum/16B") & (trials["version"] == "r1"), "reason"]
    )
    assert len(reasons) == 1 and "no such benchmark in this version" in reasons.pop()
    verdicts = {b["benchmark"]: b["verdict"] for b in analysis["benchmarks"]}
    # microsecond-scale Go benchmarks on a loaded machine can come out inconclusive even at 500 %;
    # what matters here is that none of them (and neither added leaf) is failed
    assert set(verdicts) == {"BenchmarkOld", "BenchmarkSum/4B", "BenchmarkSum/64B"}
    assert set(verdicts.values()) <= {"unchanged", "inconclusive"}
    assert "BenchmarkNew" in one_version_only(analysis) and "BenchmarkSum/16B" in one_version_only(analysis)
    summary = analysis["summary"]
    assert (summary["only_in_head"], summary["only_in_base"]) == (2, 0)
    # new benchmarks have no baseline yet: nothing against the change
    all_unchanged = set(verdicts.values()) == {"unchanged"}
    assert summary["decision"] == ("pass" if all_unchanged else "inconclusive")
    assert "BenchmarkSum" not in meta["benchmarks"]  # the parent is replaced by the named leaves


# ---- pytest-benchmark --------------------------------------------------------------------------------

PY_TESTS = "def test_kept(benchmark):\n    benchmark(lambda: sum(range(20)))\n"
PY_EXTRA = "\n\ndef test_{name}(benchmark):\n    benchmark(lambda: sum(range(30)))\n"


@pytest.mark.slow
def test_pytest_benchmark_added_and_removed_tests_are_skipped_not_failed(tmp_path: Path) -> None:
    pytest.importorskip("pytest_benchmark")  # a dev dependency: always there after `make test`
    repo = make_repo(
        tmp_path,
        [
            {"test_bench.py": PY_TESTS + PY_EXTRA.format(name="removed")},
            {"test_bench.py": PY_TESTS + PY_EXTRA.format(name="added")},
        ],
    )
    # test_added is named by hand, so base runs pytest for it and pytest answers "not found";
    # test_removed is discovered in base only, so head never runs it
    config = f"""[suite]
adapter = "pytest-benchmark"
python = "{sys.executable}"
timeout = 120

[[benchmark]]
name = "test_bench.py::test_added"

[pytest-benchmark]
plugin_autoload = false

[full]
suite_runs = 1
iterations = 1
measurements = 3
"""
    trials, _, analysis = run_and_analyze(repo, config, tmp_path / "out", "r1", "r2")
    seen = statuses(trials)
    assert seen[("test_bench.py::test_added", "r1")] == {"skipped"}
    assert seen[("test_bench.py::test_removed", "r2")] == {"skipped"}
    assert seen[("test_bench.py::test_kept", "r1")] == seen[("test_bench.py::test_added", "r2")] == {"ok"}
    added = trials.loc[(trials["benchmark"] == "test_bench.py::test_added") & (trials["version"] == "r1")]
    assert "pytest: not found" in added["reason"].iloc[0]
    assert [b["benchmark"] for b in analysis["benchmarks"]] == ["test_bench.py::test_kept"]
    assert analysis["benchmarks"][0]["verdict"] != "failed"
    assert (analysis["summary"]["only_in_head"], analysis["summary"]["only_in_base"]) == (1, 1)
    assert "test_removed" in one_version_only(analysis) and "test_added" in one_version_only(analysis)


# ---- Google Benchmark --------------------------------------------------------------------------------

GBENCH = """#include <benchmark/benchmark.h>
static void BM_Kept(benchmark::State& state) {{ for (auto _ : state) benchmark::DoNotOptimize(state.iterations()); }}
BENCHMARK(BM_Kept);
static void BM_{name}(benchmark::State& state) {{ for (auto _ : state) benchmark::DoNotOptimize(state.iterations()); }}
BENCHMARK(BM_{name});
BENCHMARK_MAIN();
"""


def test_gbench_added_and_removed_benchmarks_are_skipped_not_failed(tmp_path: Path) -> None:
    require_tool("g++")
    if not Path("/usr/include/benchmark/benchmark.h").exists():
        compile_gbench(tmp_path)  # skips, or fails under CI, naming the missing package
    repo = make_repo(
        tmp_path, [{"bench.cc": GBENCH.format(name="Removed")}, {"bench.cc": GBENCH.format(name="Added")}]
    )
    config = """[suite]
adapter = "gbench"
build = "g++ -O1 bench.cc -o bench -lbenchmark -lpthread"
timeout = 120

[[benchmark]]
name = "BM_Added"

[gbench]
binary = "bench"
min_time = "0.01"

[full]
suite_runs = 1
iterations = 1
measurements = 3
"""
    trials, _, analysis = run_and_analyze(repo, config, tmp_path / "out", "r1", "r2")
    seen = statuses(trials)
    assert seen[("BM_Added", "r1")] == seen[("BM_Removed", "r2")] == {"skipped"}
    added = trials.loc[(trials["benchmark"] == "BM_Added") & (trials["version"] == "r1"), "reason"].iloc[0]
    assert "Failed to match any benchmarks" in added
    assert [b["benchmark"] for b in analysis["benchmarks"]] == ["BM_Kept"]
    assert analysis["benchmarks"][0]["verdict"] != "failed"
    assert (analysis["summary"]["only_in_head"], analysis["summary"]["only_in_base"]) == (1, 1)


# ---- command adapter and hyperfine: missing_exit_code --------------------------------------------

BENCH_PY = "import sys, time\nprint(1.0 + len(sys.argv) / 100)\n"


def test_command_missing_exit_code_makes_a_new_script_skipped_in_base(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    repo = make_repo(tmp_path, [{"old.py": BENCH_PY}, {"new.py": BENCH_PY}])
    config = f"""[suite]
adapter = "command"
timeout = 60

[[benchmark]]
name = "old"
command = "{sys.executable} old.py"

[[benchmark]]
name = "new"
command = "test -f new.py || exit 77; {sys.executable} new.py"
missing_exit_code = 77

[full]
suite_runs = 2
iterations = 2
measurements = 2
"""
    trials, _, analysis = run_and_analyze(repo, config, tmp_path / "out", "r1", "r2")
    seen = statuses(trials)
    assert seen[("new", "r1")] == {"skipped"} and seen[("new", "r2")] == seen[("old", "r1")] == {"ok"}
    assert [(b["benchmark"], b["verdict"]) for b in analysis["benchmarks"]] == [("old", "unchanged")]
    assert analysis["summary"]["decision"] == "pass"


def test_hyperfine_reports_the_missing_exit_code_of_the_real_tool(tmp_path: Path) -> None:
    require_tool("hyperfine")
    spec = BenchmarkSpec(name="new", command="exit 77", options={"missing_exit_code": 77})
    version = context(tmp_path, tmp_path / "scratch")
    with pytest.raises(TrialFailure) as err:
        get_adapter("hyperfine").run_trial(trial(spec, version, 3), real_runner())
    assert err.value.status == TrialStatus.SKIPPED and "missing_exit_code 77" in err.value.reason
    other = BenchmarkSpec(name="new", command="exit 3", options={"missing_exit_code": 77})
    with pytest.raises(TrialFailure) as err:
        get_adapter("hyperfine").run_trial(trial(other, version, 3), real_runner())
    assert err.value.status == TrialStatus.ERROR
