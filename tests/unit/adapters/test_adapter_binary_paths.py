"""``[gbench] binary`` and ``[go] binary`` are paths in the version's worktree, never names looked
up on PATH: the argv the adapters build, and the error when the file is not there (fake runner;
tests/integration/test_adapter_binary_paths.py runs real processes with a decoy on PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, ProcessResult, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.errors import RunError
from gate.model import TrialStatus
from tests.fakes.process_runner import Call, FakeRunner, arg_value, failed, ok

# What the driver's SubprocessRunner returns when the executable cannot be started.
NOT_FOUND = "cannot start {!r}: No such file or directory"


def version(tmp_path: Path, prefix: tuple[str, ...] = ()) -> VersionContext:
    work = tmp_path / "wt"
    work.mkdir(exist_ok=True)
    return VersionContext(name="HEAD~1", workdir=work, prefix=prefix, scratch=tmp_path / "scratch")


def request(
    tmp_path: Path, name: str, settings: dict[str, object], prefix: tuple[str, ...] = ()
) -> TrialRequest:
    return TrialRequest(
        benchmark=BenchmarkSpec(name=name),
        version=version(tmp_path, prefix),
        measurements=1,
        timeout=60.0,
        options=settings,
    )


def gbench_writes_json(call: Call) -> ProcessResult:
    """As Google Benchmark would: one iteration row of BM_A into --benchmark_out."""
    assert not isinstance(call.argv, str)
    Path(arg_value(call.argv, "--benchmark_out")).write_text(
        '{"benchmarks": [{"name": "BM_A", "run_type": "iteration", "real_time": 5, "time_unit": "ns"}]}'
    )
    return ok()


def go_test_c_writes_binary(call: Call) -> ProcessResult:
    assert not isinstance(call.argv, str)
    Path(arg_value(call.argv, "-o")).write_text("binary")
    return ok()


@pytest.mark.parametrize(
    ("binary", "argv0"),
    [
        ("bench", "./bench"),  # a bare name: `./` so that execvp does not search PATH
        ("./bench", "./bench"),
        ("build/bench", "build/bench"),  # relative to the working directory = the worktree
        ("/opt/bench/bin/bench", "/opt/bench/bin/bench"),  # absolute: as is
    ],
)
def test_gbench_binary_is_a_path_in_the_worktree(tmp_path: Path, binary: str, argv0: str) -> None:
    runner = FakeRunner([ok("BM_A\n")])
    get_adapter("gbench").discover(version(tmp_path), runner, {"binary": binary})
    assert runner.calls[0].argv == [argv0, "--benchmark_list_tests=true"]
    assert runner.calls[0].cwd == tmp_path / "wt"
    runner = FakeRunner([gbench_writes_json])
    assert get_adapter("gbench").run_trial(request(tmp_path, "BM_A", {"binary": binary}), runner) == [5.0]
    assert runner.calls[0].argv[0] == argv0 and runner.calls[0].cwd == tmp_path / "wt"


def test_gbench_prefix_stays_in_front_of_the_resolved_binary(tmp_path: Path) -> None:
    runner = FakeRunner([ok("BM_A\n")])
    get_adapter("gbench").discover(version(tmp_path, ("nice", "-n", "0")), runner, {"binary": "bench"})
    assert runner.calls[0].argv == ["nice", "-n", "0", "./bench", "--benchmark_list_tests=true"]


@pytest.mark.parametrize(
    ("binary", "argv0"),
    [("pkg.test", "./pkg.test"), ("bin/pkg.test", "bin/pkg.test"), ("/abs/pkg.test", "/abs/pkg.test")],
)
def test_go_binary_is_a_path_in_the_worktree(tmp_path: Path, binary: str, argv0: str) -> None:
    settings = {"binary": binary, "benchtime": "10x"}
    runner = FakeRunner([ok("BenchmarkA\n"), ok("BenchmarkA\n")])  # -test.list, then the -v listing
    get_adapter("go").discover(version(tmp_path, ("taskset", "-c", "1")), runner, settings)
    assert runner.calls[0].argv == ["taskset", "-c", "1", argv0, "-test.list", "^Benchmark"]
    assert runner.calls[0].cwd == tmp_path / "wt"
    runner = FakeRunner([ok("BenchmarkA-2 \t      10\t   5.0 ns/op\n")])
    assert get_adapter("go").run_trial(request(tmp_path, "BenchmarkA", settings), runner) == [5.0]
    assert runner.calls[0].argv[:2] == [argv0, "-test.run"] and runner.calls[0].cwd == tmp_path / "wt"


@pytest.mark.parametrize("adapter", ["gbench", "go"])
@pytest.mark.parametrize("binary", ["bench", "build/bench"])
def test_missing_binary_names_the_resolved_path_and_the_fix(
    tmp_path: Path, adapter: str, binary: str
) -> None:
    resolved = tmp_path / "wt" / binary
    argv0 = binary if "/" in binary else f"./{binary}"
    with pytest.raises(RunError) as err:
        get_adapter(adapter).discover(
            version(tmp_path), FakeRunner([failed(127, NOT_FOUND.format(argv0))]), {"binary": binary}
        )
    assert str(resolved) in err.value.message and "does not exist" in err.value.message
    assert "HEAD~1" in err.value.message
    assert "[suite] build" in err.value.fix and f"[{adapter}] binary" in err.value.fix

    name = "BM_A" if adapter == "gbench" else "BenchmarkA"
    with pytest.raises(TrialFailure) as trial_err:
        get_adapter(adapter).run_trial(
            request(tmp_path, name, {"binary": binary}), FakeRunner([failed(127, NOT_FOUND.format(argv0))])
        )
    assert trial_err.value.status == TrialStatus.ERROR
    reason = trial_err.value.reason
    assert str(resolved) in reason and "does not exist" in reason and "[suite] build" in reason


@pytest.mark.parametrize("adapter", ["gbench", "go"])
def test_binary_that_is_not_executable_or_a_directory(tmp_path: Path, adapter: str) -> None:
    work = version(tmp_path).workdir
    (work / "bench").write_text("not a program")
    (work / "dir").mkdir()
    for binary, words in [("bench", "is not executable"), ("dir", "is not a file")]:
        with pytest.raises(RunError) as err:
            get_adapter(adapter).discover(
                version(tmp_path), FakeRunner([failed(126, "Permission denied")]), {"binary": binary}
            )
        assert str(work / binary) in err.value.message and words in err.value.message


@pytest.mark.parametrize("adapter", ["gbench", "go"])
def test_a_binary_that_exists_and_fails_keeps_its_own_error(tmp_path: Path, adapter: str) -> None:
    work = version(tmp_path).workdir
    (work / "bench").write_text("#!/bin/sh\nexit 3\n")
    (work / "bench").chmod(0o755)
    with pytest.raises(RunError) as err:
        get_adapter(adapter).discover(
            version(tmp_path), FakeRunner([failed(3, "segfault in setup")]), {"binary": "bench"}
        )
    assert "segfault in setup" in err.value.message and "does not exist" not in err.value.message
    name = "BM_A" if adapter == "gbench" else "BenchmarkA"
    with pytest.raises(TrialFailure) as trial_err:
        get_adapter(adapter).run_trial(
            request(tmp_path, name, {"binary": "bench"}), FakeRunner([failed(3, "segfault in setup")])
        )
    assert trial_err.value.status == TrialStatus.ERROR and "exited with status 3" in trial_err.value.reason


def test_go_prebuilt_binary_in_scratch_is_not_resolved_against_the_worktree(tmp_path: Path) -> None:
    """The binary discovery builds (no [go] binary) is an absolute path in scratch: unchanged."""
    runner = FakeRunner([go_test_c_writes_binary, ok("BenchmarkA\n"), ok("BenchmarkA\n")])
    get_adapter("go").discover(version(tmp_path), runner, {"package": "./pkg"})
    assert not isinstance(runner.calls[0].argv, str)
    built = arg_value(runner.calls[0].argv, "-o")
    assert Path(built).is_absolute() and runner.calls[1].argv[0] == built
