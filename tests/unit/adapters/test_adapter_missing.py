""" "No such benchmark in this version" (a ``skipped`` trial) against "ran but gave no value"
(``invalid``) and "crashed" (``error``), per adapter, on a fake ProcessRunner. The real
frameworks run in tests/integration/test_missing_benchmarks.py."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gate.adapters.base import (
    BenchmarkMissing,
    BenchmarkSpec,
    ProcessResult,
    TrialFailure,
    TrialRequest,
    VersionContext,
)
from gate.adapters.gotest_output import chatty_names
from gate.adapters.registry import get_adapter
from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.errors import ConfigError
from gate.model import TrialStatus
from tests.fakes.process_runner import Call, FakeRunner, Responder, arg_value, failed, ok

HEADER = "goos: linux\ngoarch: amd64\npkg: example.com/sum\n"


def version(tmp_path: Path) -> VersionContext:
    work = tmp_path / "wt"
    work.mkdir(exist_ok=True)
    return VersionContext(
        name="HEAD", workdir=work, scratch=tmp_path / "scratch", gate_cache=tmp_path / "gate-cache"
    )


def request(tmp_path: Path, spec: BenchmarkSpec, settings: dict[str, object], n: int = 2) -> TrialRequest:
    return TrialRequest(
        benchmark=spec, version=version(tmp_path), measurements=n, timeout=60.0, options=settings
    )


def failure(adapter: str, req: TrialRequest, runner: FakeRunner) -> TrialFailure:
    with pytest.raises(TrialFailure) as err:
        get_adapter(adapter).run_trial(req, runner)
    assert not runner.script, "every scripted process was used"
    return err.value


# ---- go: a run that prints no result is asked again with -v ------------------------------------

GO = {"prebuild": False}


def test_go_no_result_and_no_name_with_v_is_a_missing_benchmark(tmp_path: Path) -> None:
    runner = FakeRunner([ok(f"{HEADER}PASS\n"), ok(f"{HEADER}BenchmarkSum\nPASS\n")])
    err = failure("go", request(tmp_path, BenchmarkSpec(name="BenchmarkSum/16B"), GO), runner)
    assert isinstance(err, BenchmarkMissing) and err.status == TrialStatus.SKIPPED
    assert "no such benchmark in this version" in err.reason and "check the name" in err.reason
    probe = runner.calls[1].argv
    assert probe[:2] == ["go", "test"] and probe[-2:] == ["-v", "."]
    assert arg_value(probe, "-bench") == "^BenchmarkSum$/^16B$" and arg_value(probe, "-benchtime") == "1x"


def test_go_no_result_but_started_with_v_is_invalid_not_missing(tmp_path: Path) -> None:
    # b.Skip: Go prints nothing without -v, and the name (then --- SKIP) with it
    started = f"{HEADER}BenchmarkSum\nBenchmarkSum/16B\n    x_test.go:9: not here\n--- SKIP: BenchmarkSum/16B\nPASS\n"
    runner = FakeRunner([ok(f"{HEADER}PASS\n"), ok(started)])
    err = failure("go", request(tmp_path, BenchmarkSpec(name="BenchmarkSum/16B"), GO), runner)
    assert type(err) is TrialFailure and err.status == TrialStatus.INVALID
    assert "exists in this version but reported no result" in err.reason and "b.Skip" in err.reason


def test_go_probe_of_a_binary_forces_verbose_and_a_failing_probe_is_an_error(tmp_path: Path) -> None:
    settings = {"binary": "/abs/x.test", "args": ["-test.v=false", "-benchmem"]}
    runner = FakeRunner([ok("PASS\n"), failed(2, "panic: boom")])
    err = failure("go", request(tmp_path, BenchmarkSpec(name="BenchmarkA"), settings), runner)
    assert err.status == TrialStatus.ERROR and "panic: boom" in err.reason
    probe = runner.calls[1].argv
    assert "-test.v=false" not in probe and probe[-1] == "-test.v" and "-test.benchmem" in probe


def test_chatty_names_are_whole_lines_or_glued_to_output_and_below_the_parents() -> None:
    stdout = (
        f"{HEADER}BenchmarkSum\nBenchmarkSum/4B\nBenchmarkSum/4B-2    \t       1\t       341.0 ns/op\n"
        "hello without newlineBenchmarkSum/64B\nBenchmarkSum/64B-2   \t       1\t       340.0 ns/op\n"
        "\x16BenchmarkSum/1KB\nBenchmarkOther/x\n--- SKIP: BenchmarkSum/1KB\nok  \texample.com/Benchmarks\t0.1s\n"
    )
    names = chatty_names(stdout, ["BenchmarkSum"])
    assert names == ["BenchmarkSum", "BenchmarkSum/4B", "BenchmarkSum/64B", "BenchmarkSum/1KB"]


# ---- gbench --------------------------------------------------------------------------------------

GBENCH = {"binary": "./bench"}
NO_MATCH = "Failed to match any benchmarks against regex: ^BM_New$\n"


def writes_empty_out(stderr: str) -> Responder:
    """Google Benchmark's run when its filter matches nothing: an empty --benchmark_out file."""

    def respond(call: Call) -> ProcessResult:
        Path(arg_value(call.argv, "--benchmark_out")).write_text("")
        return ok("", stderr)

    return respond


@pytest.mark.parametrize(
    ("name", "listed", "status", "words"),
    [
        ("BM_New", "BM_Copy\nBM_Fill/8\n", TrialStatus.SKIPPED, "Failed to match any benchmarks"),
        (
            "BM_Fill",
            "BM_Copy\nBM_Fill/8\nBM_Fill/64\n",
            TrialStatus.INVALID,
            "a family of 2 (BM_Fill/8, BM_Fill/64)",
        ),
    ],
)
def test_gbench_no_match_is_missing_unless_the_name_is_a_family(
    tmp_path: Path, name: str, listed: str, status: TrialStatus, words: str
) -> None:
    runner = FakeRunner([writes_empty_out(NO_MATCH), ok(listed)])
    err = failure("gbench", request(tmp_path, BenchmarkSpec(name=name), GBENCH), runner)
    assert err.status == status and words in err.reason
    assert runner.calls[1].argv == ["./bench", "--benchmark_list_tests=true"]


def test_gbench_empty_output_without_its_message_stays_invalid(tmp_path: Path) -> None:
    err = failure(
        "gbench", request(tmp_path, BenchmarkSpec(name="BM_New"), GBENCH), FakeRunner([writes_empty_out("")])
    )
    assert err.status == TrialStatus.INVALID and "no benchmark matched" in err.reason


# ---- jmh -----------------------------------------------------------------------------------------


def test_jmh_no_matching_benchmarks_is_missing_other_exits_are_errors(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="org.sample.Bench.added")
    message = "No matching benchmarks. Miss-spelled regexp?\nUse EXTRA verbose mode to debug the pattern matching.\n"
    err = failure("jmh", request(tmp_path, spec, {}), FakeRunner([failed(1, message)]))
    assert err.status == TrialStatus.SKIPPED and "JMH: No matching benchmarks" in err.reason
    err = failure("jmh", request(tmp_path, spec, {}), FakeRunner([failed(1, "Exception in thread main")]))
    assert err.status == TrialStatus.ERROR


# ---- command and hyperfine: the command says it, by its missing_exit_code --------------------------


def command(**entry: object) -> dict[str, object]:
    return {"benchmarks": [{"name": "b", "command": "./bench.sh", **entry}]}


def test_command_missing_exit_code_on_the_first_run_is_missing(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="b", command="./bench.sh", options={"missing_exit_code": 77})
    err = failure("command", request(tmp_path, spec, {}, n=3), FakeRunner([failed(77, "")]))
    assert err.status == TrialStatus.SKIPPED and "missing_exit_code 77" in err.reason
    # later in the trial the same status is a failure, and without the key it always is
    err = failure("command", request(tmp_path, spec, {}, n=3), FakeRunner([ok("1.0"), failed(77, "")]))
    assert err.status == TrialStatus.ERROR
    plain = BenchmarkSpec(name="b", command="./bench.sh")
    assert (
        failure("command", request(tmp_path, plain, {}), FakeRunner([failed(77, "")])).status
        == TrialStatus.ERROR
    )
    # exit 0 with no value is not "missing"
    err = failure("command", request(tmp_path, spec, {}), FakeRunner([ok("no number here")]))
    assert err.status == TrialStatus.INVALID


@pytest.mark.parametrize("adapter", ["command", "hyperfine"])
@pytest.mark.parametrize("value", [0, 256, True, "77"])
def test_a_bad_missing_exit_code_is_refused_before_the_run(
    tmp_path: Path, adapter: str, value: object
) -> None:
    with pytest.raises(ConfigError) as err:
        get_adapter(adapter).discover(version(tmp_path), FakeRunner(), command(missing_exit_code=value))
    assert "missing_exit_code" in err.value.message and "77" in err.value.fix


@pytest.mark.parametrize(
    "stderr",
    [
        # hyperfine 1.15 (Debian 12) and the wording of later versions
        "Error: Command terminated with non-zero exit code: 77. Use the '-i'/'--ignore-failure' option ...",
        "Error: Command terminated with non-zero exit code 77. Use the '-i'/'--ignore-failure' option ...",
    ],
)
def test_hyperfine_missing_exit_code_is_read_from_its_message(tmp_path: Path, stderr: str) -> None:
    spec = BenchmarkSpec(name="b", command="./bench.sh", options={"missing_exit_code": 77})
    err = failure("hyperfine", request(tmp_path, spec, {}), FakeRunner([failed(1, stderr)]))
    assert err.status == TrialStatus.SKIPPED
    other = stderr.replace("77", "1")
    assert (
        failure("hyperfine", request(tmp_path, spec, {}), FakeRunner([failed(1, other)])).status
        == TrialStatus.ERROR
    )


# ---- analyze: skipped in both versions is said, not dropped --------------------------------------


def test_a_benchmark_skipped_in_both_versions_is_named_in_a_warning(tmp_path: Path) -> None:
    rows = []
    for t, (name, version_name) in enumerate(
        [(n, v) for n in ("kept", "typo") for v in ("base", "head")] * 3, 1
    ):
        skipped = name == "typo"
        rows.append(
            {"trial": t, "benchmark": name, "version": version_name, "instance": "h", "suite_run": 1,
             "order_type": "random", "position": t, "iteration": t, "measurement": 1,
             "value": "" if skipped else 1.0 + t / 1000, "unit": "s", "higher_is_better": False,
             "status": "skipped" if skipped else "ok", "reason": "no such benchmark" if skipped else "",
             "started_at": "", "elapsed_s": 0.1, "config": "full", "round": 0}
        )  # fmt: skip
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    analysis = build_analysis(
        load_trials([path]), base="base", head="head", settings=AnalysisSettings(resamples=200, seed=1)
    )
    assert [b["benchmark"] for b in analysis["benchmarks"]] == ["kept"]
    (w,) = [w for w in analysis["warnings"] if w["code"] == "in_no_version"]
    assert (
        "typo" in w["message"] and "neither base nor head" in w["message"] and "[[benchmark]]" in w["action"]
    )
    assert not any(w["code"] == "one_version_only" for w in analysis["warnings"])
    json.dumps(analysis)
