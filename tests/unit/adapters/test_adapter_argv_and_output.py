"""Adapters against a fake ProcessRunner: the argv they build, and what they do with good output,
garbage, NaN/inf, missing values and 0 or 2 matching benchmarks. Real frameworks run in
tests/integration/test_adapter_*.py; the recorded outputs live in tests/testdata/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gate.adapters._common import anchored
from gate.adapters.base import BenchmarkSpec, ProcessResult, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import ADAPTER_NAMES, get_adapter
from gate.errors import ConfigError, RunError
from gate.model import TrialStatus
from tests.fakes.process_runner import Call, FakeRunner, Responder, arg_value, failed, ok, timed_out

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"


def version(tmp_path: Path, prefix: tuple[str, ...] = ()) -> VersionContext:
    work = tmp_path / "wt"
    work.mkdir(exist_ok=True)
    return VersionContext(
        name="HEAD", workdir=work, prefix=prefix, python="/venv/bin/python", scratch=tmp_path / "scratch"
    )


def request(
    tmp_path: Path,
    spec: BenchmarkSpec,
    measurements: int = 3,
    settings: dict[str, object] | None = None,
    prefix: tuple[str, ...] = (),
) -> TrialRequest:
    return TrialRequest(
        benchmark=spec,
        version=version(tmp_path, prefix),
        measurements=measurements,
        timeout=60.0,
        options=settings or {},
    )


# ---- registry ------------------------------------------------------------------------------------


def test_registry_builds_every_named_adapter() -> None:
    assert ADAPTER_NAMES[:6] == ("command", "pytest-benchmark", "go", "gbench", "hyperfine", "jmh")
    assert {"criterion", "tinybench"} <= set(ADAPTER_NAMES)
    for name in ADAPTER_NAMES:
        assert get_adapter(name).name == name


def test_registry_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        get_adapter("nonesuch")
    assert "nonesuch" in str(err.value)
    for name in ADAPTER_NAMES:
        assert name in err.value.fix


# ---- shared parsing helpers (last_number: tests/unit/adapters/test_last_number.py) -----------------


def test_anchored_escapes_metacharacters_but_not_spaces_or_dashes() -> None:
    assert anchored("BM_x/8") == "^BM_x/8$"
    assert anchored("a.b(c)[1]") == r"^a\.b\(c\)\[1\]$"
    assert anchored("name with-dash") == "^name with-dash$"


# ---- command -------------------------------------------------------------------------------------


def command_settings(**entry: object) -> dict[str, object]:
    return {"benchmarks": [{"name": "parse", "command": "python bench.py parse", **entry}]}


def test_command_discover_returns_exactly_the_configured_list(tmp_path: Path) -> None:
    settings = {
        "benchmarks": [
            {"name": "a", "command": "echo 1", "value": "wall", "unit": "s"},
            {"name": "b", "command": "echo 2", "unit": "MB/s", "higher_is_better": True},
        ]
    }
    runner = FakeRunner()
    specs = get_adapter("command").discover(version(tmp_path), runner, settings)
    assert [s.name for s in specs] == ["a", "b"]
    assert specs[0].options == {"value": "wall"}
    assert specs[1].unit == "MB/s" and specs[1].higher_is_better is True
    assert runner.calls == []


@pytest.mark.parametrize(
    "benchmarks",
    [
        [],
        [{"name": "a"}],
        [{"name": "a", "command": "x"}, {"name": "a", "command": "y"}],
        [{"command": "x"}],
        [{"name": "a", "command": "x", "value": "cpu"}],
        [{"name": "a", "command": "x", "higher_is_better": "yes"}],
    ],
)
def test_command_discover_rejects_bad_config(tmp_path: Path, benchmarks: list[dict[str, object]]) -> None:
    with pytest.raises(ConfigError) as err:
        get_adapter("command").discover(version(tmp_path), FakeRunner(), {"benchmarks": benchmarks})
    assert err.value.fix


def test_command_runs_n_processes_and_takes_last_stdout_number(tmp_path: Path) -> None:
    spec = get_adapter("command").discover(version(tmp_path), FakeRunner(), command_settings())[0]
    runner = FakeRunner([ok("warm 1\n0.5\n"), ok("0.25"), ok("result 0.125 s\n")])
    values = get_adapter("command").run_trial(request(tmp_path, spec), runner)
    assert values == [0.5, 0.25, 0.125]
    assert [c.argv for c in runner.calls] == ["python bench.py parse"] * 3
    assert all(c.cwd == tmp_path / "wt" for c in runner.calls)


def test_command_wall_mode_uses_process_elapsed_and_prefix_wraps_the_shell(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="w", command="sleep 0", options={"value": "wall"})
    runner = FakeRunner([ok("999", elapsed_s=0.3), ok("999", elapsed_s=0.4)])
    values = get_adapter("command").run_trial(
        request(tmp_path, spec, measurements=2, prefix=("nice", "-n", "0")), runner
    )
    assert values == [0.3, 0.4]
    assert runner.calls[0].argv == ["nice", "-n", "0", "/bin/sh", "-c", "sleep 0"]


@pytest.mark.parametrize(
    ("output", "status", "words"),
    [
        ("done\n", TrialStatus.INVALID, "no number"),
        ("1.0\nnan\n", TrialStatus.INVALID, "non-finite"),
        ("inf", TrialStatus.INVALID, "non-finite"),
    ],
)
def test_command_rejects_garbage_and_non_finite(
    tmp_path: Path, output: str, status: TrialStatus, words: str
) -> None:
    spec = BenchmarkSpec(name="p", command="x")
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(request(tmp_path, spec, measurements=1), FakeRunner([ok(output)]))
    assert err.value.status == status
    assert words in err.value.reason


def test_command_crash_and_timeout_stop_the_trial(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="p", command="x")
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(
            request(tmp_path, spec), FakeRunner([ok("1"), failed(3, "segfault")])
        )
    assert err.value.status == TrialStatus.ERROR and "segfault" in err.value.reason
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(request(tmp_path, spec), FakeRunner([timed_out()]))
    assert err.value.status == TrialStatus.TIMEOUT


# ---- helpers: a fake run that "writes" a recorded output file where the real tool would -----------


def writes(flag: str, source: Path | str, stdout: str = "") -> Responder:
    """A runner step that copies ``source`` (a recorded file, or literal text) to the path the
    adapter passed with ``flag``, as the real tool would."""

    def step(call: Call) -> ProcessResult:
        assert not isinstance(call.argv, str)
        target = Path(arg_value(call.argv, flag))
        if isinstance(source, Path):
            shutil.copyfile(source, target)
        else:
            target.write_text(source)
        return ok(stdout)

    return step


def reason_of(err: pytest.ExceptionInfo[TrialFailure]) -> str:
    return err.value.reason


# ---- hyperfine -----------------------------------------------------------------------------------


def test_hyperfine_argv_and_times_from_recorded_export(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="sleep", command="sleep 0.01")
    runner = FakeRunner([writes("--export-json", TESTDATA / "hyperfine" / "sleep-3-runs.json")])
    req = request(tmp_path, spec, measurements=3, settings={"shell": "none", "warmup": 1}, prefix=("nice",))
    values = get_adapter("hyperfine").run_trial(req, runner)
    assert values == [0.011208947, 0.011292601000000001, 0.011254385]
    argv = runner.calls[0].argv
    assert argv[:2] == ["nice", "hyperfine"] and argv[-2:] == ["--", "sleep 0.01"]
    assert "--runs=3" in argv and "--shell=none" in argv and "--warmup=1" in argv and "--style=none" in argv
    out = Path(arg_value(argv, "--export-json"))
    assert out.parent == tmp_path / "scratch"


@pytest.mark.parametrize(
    ("export", "words"),
    [
        ('{"results": [{"command": "c", "times": [0.1, NaN]}]}', "non-finite"),
        ('{"results": [{"command": "c", "times": [0.1]}]}', "got 1 runs, wanted 2"),
        ('{"results": [{"command": "c"}]}', "times is missing"),
        ('{"results": []}', "no benchmark matched"),
        ("not json", "not hyperfine's format"),
    ],
)
def test_hyperfine_rejects_bad_exports(tmp_path: Path, export: str, words: str) -> None:
    spec = BenchmarkSpec(name="c", command="c")
    runner = FakeRunner([writes("--export-json", export)])
    with pytest.raises(TrialFailure) as err:
        get_adapter("hyperfine").run_trial(request(tmp_path, spec, measurements=2), runner)
    assert err.value.status == TrialStatus.INVALID
    assert words in reason_of(err)


def test_hyperfine_missing_export_file_is_invalid(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="c", command="c")
    with pytest.raises(TrialFailure) as err:
        get_adapter("hyperfine").run_trial(request(tmp_path, spec), FakeRunner([ok()]))
    assert err.value.status == TrialStatus.INVALID and "no output file" in reason_of(err)


# ---- go ------------------------------------------------------------------------------------------


def test_go_argv_and_ns_per_op_from_recorded_output(tmp_path: Path) -> None:
    stdout = (TESTDATA / "go" / "fib10-count3-benchmem.txt").read_text()
    runner = FakeRunner([ok(stdout)])
    spec = BenchmarkSpec(name="BenchmarkFib10", unit="ns/op")
    req = request(tmp_path, spec, measurements=3, settings={"package": "./pkg", "benchtime": "1000x"})
    assert get_adapter("go").run_trial(req, runner) == [316.4, 302.1, 302.0]
    assert runner.calls[0].argv == [
        "go",
        "test",
        "-run",
        "^$",
        "-bench",
        "^BenchmarkFib10$",
        "-benchtime",
        "1000x",
        "-count",
        "3",
        "./pkg",
    ]


def test_go_other_metric_and_prebuilt_binary(tmp_path: Path) -> None:
    stdout = (TESTDATA / "go" / "fib10-count3-benchmem.txt").read_text()
    runner = FakeRunner([ok(stdout)])
    spec = BenchmarkSpec(name="BenchmarkFib10", unit="B/op")
    req = request(tmp_path, spec, measurements=3, settings={"binary": "./pkg.test", "metric": "B/op"})
    assert get_adapter("go").run_trial(req, runner) == [0.0, 0.0, 0.0]
    argv = runner.calls[0].argv
    assert argv[:5] == ["./pkg.test", "-test.run", "^$", "-test.bench", "^BenchmarkFib10$"]
    assert arg_value(argv, "-test.count") == "3" and arg_value(argv, "-test.benchtime") == "1s"


def test_go_sub_benchmark_regex_is_anchored_per_level_and_gomaxprocs_1_has_no_suffix(tmp_path: Path) -> None:
    stdout = (TESTDATA / "go" / "sizes-n8-gomaxprocs1.txt").read_text()
    runner = FakeRunner([ok(stdout)])
    spec = BenchmarkSpec(name="BenchmarkSizes/n=8")
    assert get_adapter("go").run_trial(request(tmp_path, spec, measurements=2), runner) == [84.73, 84.22]
    assert arg_value(runner.calls[0].argv, "-bench") == "^BenchmarkSizes$/^n=8$"


def test_go_parent_with_two_sub_benchmarks_is_two_matches(tmp_path: Path) -> None:
    stdout = (TESTDATA / "go" / "sizes-parent-two-subs.txt").read_text()
    with pytest.raises(TrialFailure) as err:
        get_adapter("go").run_trial(
            request(tmp_path, BenchmarkSpec(name="BenchmarkSizes")), FakeRunner([ok(stdout)])
        )
    assert err.value.status == TrialStatus.INVALID
    assert "2 benchmarks matched" in reason_of(err) and "BenchmarkSizes/n=5" in reason_of(err)


@pytest.mark.parametrize(
    ("stdout", "words"),
    [
        ("BenchmarkA-2 \t 100 \t NaN ns/op\n", "non-finite"),
        ("BenchmarkA-2 \t 100 \t 12 B/op\n", "no 'ns/op'"),
        ("BenchmarkA-2 \t 100 \t 1.0 ns/op\n", "got 1 results, wanted 3"),
    ],
)
def test_go_rejects_bad_output(tmp_path: Path, stdout: str, words: str) -> None:
    with pytest.raises(TrialFailure) as err:
        get_adapter("go").run_trial(
            request(tmp_path, BenchmarkSpec(name="BenchmarkA")), FakeRunner([ok(stdout)])
        )
    assert err.value.status == TrialStatus.INVALID
    assert words in reason_of(err)


def test_go_discover_lists_benchmarks_and_rejects_duplicates(tmp_path: Path) -> None:
    listing = "BenchmarkA\nBenchmarkB\nok  \texample.com/x\t0.01s\n?   \texample.com/y\t[no test files]\n"
    runner = FakeRunner([ok(listing), ok("BenchmarkA\n")])  # -list, then the -v listing of BenchmarkA
    specs = get_adapter("go").discover(version(tmp_path), runner, {"package": "./...", "include": "A$"})
    assert [(s.name, s.unit, s.higher_is_better) for s in specs] == [("BenchmarkA", "ns/op", False)]
    assert runner.calls[0].argv == ["go", "test", "-list", "^Benchmark", "./..."]
    dup = FakeRunner([ok("BenchmarkA\nok x 0s\nBenchmarkA\nok y 0s\n")])
    with pytest.raises(ConfigError):
        get_adapter("go").discover(version(tmp_path), dup, {"package": "./..."})
    settings = {"metric": "MB/s", "prebuild": False}
    mbs = get_adapter("go").discover(version(tmp_path), FakeRunner([ok("BenchmarkA\n")] * 2), settings)
    assert mbs[0].unit == "MB/s" and mbs[0].higher_is_better is True


def test_discovery_adds_configured_names_it_cannot_list(tmp_path: Path) -> None:
    listing = "BenchmarkA\nBenchmarkB\nBenchmarkC\n"
    settings = {
        "prebuild": False,
        "benchmarks": [{"name": "BenchmarkA"}, {"name": "BenchmarkB/small", "unit": "B/op"}],
    }
    runner = FakeRunner([ok(listing), ok("BenchmarkC\n")])
    specs = get_adapter("go").discover(version(tmp_path), runner, settings)
    # only the benchmark no entry names is run once to look for sub-benchmarks
    assert arg_value(runner.calls[1].argv, "-bench") == "^(?:BenchmarkC)$"
    assert [(s.name, s.unit) for s in specs] == [
        ("BenchmarkA", "ns/op"),  # discovered; the run engine applies [[benchmark]] overrides
        # BenchmarkB is dropped: it would match all of its sub-benchmarks
        ("BenchmarkC", "ns/op"),
        ("BenchmarkB/small", "B/op"),
    ]


def test_go_prebuilds_the_test_binary_once_and_trials_use_it(tmp_path: Path) -> None:
    def build(call: Call) -> ProcessResult:
        assert not isinstance(call.argv, str)
        Path(arg_value(call.argv, "-o")).write_text("binary")
        return ok()

    settings = {"package": "./pkg", "build_args": ["-tags=bench"], "args": ["-benchmem", "-test.cpu=1"]}
    runner = FakeRunner([build, ok("BenchmarkA\nBenchmarkB\n"), ok("BenchmarkA\nBenchmarkB\n")])
    specs = get_adapter("go").discover(version(tmp_path), runner, settings)
    assert [s.name for s in specs] == ["BenchmarkA", "BenchmarkB"]
    build_argv, list_argv = runner.calls[0].argv, runner.calls[1].argv
    binary = arg_value(build_argv, "-o")
    assert build_argv[:3] == ["go", "test", "-c"] and build_argv[-2:] == ["-tags=bench", "./pkg"]
    assert Path(binary).parent == tmp_path / "scratch"
    assert list_argv == [binary, "-test.list", "^Benchmark"]

    trial_runner = FakeRunner([ok("BenchmarkA-2 \t 10 \t 5.0 ns/op\n")])
    assert get_adapter("go").run_trial(request(tmp_path, specs[0], 1, settings), trial_runner) == [5.0]
    call = trial_runner.calls[0]
    assert call.argv[0] == binary and call.cwd == tmp_path / "wt" / "pkg"
    assert call.argv[-2:] == ["-test.benchmem", "-test.cpu=1"]


def test_go_failed_prebuild_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(RunError) as err:
        get_adapter("go").discover(version(tmp_path), FakeRunner([failed(1, "undefined: Foo")]), {})
    assert "undefined: Foo" in str(err.value) and "prebuild = false" in err.value.fix


# ---- gbench --------------------------------------------------------------------------------------


def test_gbench_argv_and_iteration_rows_from_recorded_json(tmp_path: Path) -> None:
    recorded = TESTDATA / "gbench" / "bm_vec8-3-repetitions.json"
    rows = [r for r in json.loads(recorded.read_text())["benchmarks"] if r["run_type"] == "iteration"]
    runner = FakeRunner([writes("--benchmark_out", recorded)])
    settings = {"binary": "build/bench", "min_time": "0.01"}
    values = get_adapter("gbench").run_trial(
        request(tmp_path, BenchmarkSpec(name="BM_Vec/8"), 3, settings), runner
    )
    # the recorded file is in microseconds; the adapter reports nanoseconds by default
    assert values == pytest.approx([r["real_time"] * 1000 for r in rows])
    argv = runner.calls[0].argv
    assert argv[0] == "build/bench"
    assert "--benchmark_filter=^BM_Vec/8$" in argv and "--benchmark_repetitions=3" in argv
    assert "--benchmark_out_format=json" in argv and "--benchmark_min_time=0.01" in argv


def test_gbench_cpu_time_in_microseconds(tmp_path: Path) -> None:
    recorded = TESTDATA / "gbench" / "bm_vec8-3-repetitions.json"
    rows = [r for r in json.loads(recorded.read_text())["benchmarks"] if r["run_type"] == "iteration"]
    runner = FakeRunner([writes("--benchmark_out", recorded)])
    settings = {"binary": "b", "time": "cpu_time", "unit": "us"}
    values = get_adapter("gbench").run_trial(
        request(tmp_path, BenchmarkSpec(name="BM_Vec/8"), 3, settings), runner
    )
    assert values == pytest.approx([r["cpu_time"] for r in rows])


def test_gbench_two_matches_from_recorded_unanchored_run(tmp_path: Path) -> None:
    runner = FakeRunner([writes("--benchmark_out", TESTDATA / "gbench" / "two-matches.json")])
    with pytest.raises(TrialFailure) as err:
        get_adapter("gbench").run_trial(
            request(tmp_path, BenchmarkSpec(name="BM_Vec"), 2, {"binary": "b"}), runner
        )
    assert err.value.status == TrialStatus.INVALID and "2 benchmarks matched" in reason_of(err)


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ([], "no benchmark matched"),
        ([{"name": "BM_A", "run_type": "iteration", "real_time": "nan", "time_unit": "ns"}], "non-finite"),
        ([{"name": "BM_A", "run_type": "iteration", "time_unit": "ns"}], "no numeric real_time"),
        (
            [{"name": "BM_A", "run_type": "iteration", "error_occurred": True, "error_message": "bad input"}],
            "bad input",
        ),
    ],
)
def test_gbench_rejects_bad_rows(tmp_path: Path, rows: list[dict[str, object]], words: str) -> None:
    runner = FakeRunner([writes("--benchmark_out", json.dumps({"benchmarks": rows}))])
    with pytest.raises(TrialFailure) as err:
        get_adapter("gbench").run_trial(
            request(tmp_path, BenchmarkSpec(name="BM_A"), 1, {"binary": "b"}), runner
        )
    assert err.value.status == TrialStatus.INVALID and words in reason_of(err)


def test_gbench_needs_a_binary_and_lists_tests(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        get_adapter("gbench").discover(version(tmp_path), FakeRunner(), {})
    assert "binary" in err.value.fix
    runner = FakeRunner([ok("BM_A\nBM_B/8\n")])
    specs = get_adapter("gbench").discover(version(tmp_path), runner, {"binary": "b"})
    assert [s.name for s in specs] == ["BM_A", "BM_B/8"] and specs[0].unit == "ns"
    assert runner.calls[0].argv == ["./b", "--benchmark_list_tests=true"]  # in the worktree, never on PATH


# ---- jmh -----------------------------------------------------------------------------------------


def test_jmh_argv_and_raw_data(tmp_path: Path) -> None:
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "avgt-one-result.json")])
    spec = BenchmarkSpec(name="org.example.bench.ParseBench.parse", unit="ns/op")
    settings = {"jar": "target/benchmarks.jar", "java_args": ["-Xmx1g"]}
    assert get_adapter("jmh").run_trial(request(tmp_path, spec, 3, settings), runner) == [412.7, 398.1, 401.9]
    argv = runner.calls[0].argv
    assert argv[:5] == [
        "java",
        "-Xmx1g",
        "-jar",
        "target/benchmarks.jar",
        r"^org\.example\.bench\.ParseBench\.parse$",
    ]
    for flag, value in (
        ("-f", "1"),
        ("-wi", "0"),
        ("-i", "3"),
        ("-bm", "avgt"),
        ("-tu", "ns"),
        ("-foe", "true"),
        ("-rf", "json"),
    ):
        assert arg_value(argv, flag) == value


def test_jmh_thrpt_is_higher_is_better_with_ops_unit(tmp_path: Path) -> None:
    default = get_adapter("jmh").discover(version(tmp_path), FakeRunner([ok("a.B.c\n")]), {"mode": "thrpt"})
    assert default[0].unit == "ops/s" and default[0].higher_is_better is True
    settings = {"mode": "thrpt", "time_unit": "us", "benchmarks": [{"name": "org.example.bench.Other.x"}]}
    listing = FakeRunner([ok("Benchmarks: \norg.example.bench.ParseBench.parse\n")])
    spec, configured = get_adapter("jmh").discover(version(tmp_path), listing, settings)
    assert spec.unit == "ops/us" and spec.higher_is_better is True
    assert configured.name == "org.example.bench.Other.x"
    assert configured.unit == "ops/us" and configured.higher_is_better is True
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "thrpt-one-result.json")])
    assert get_adapter("jmh").run_trial(request(tmp_path, spec, 2, settings), runner) == [2.41, 2.52]


def test_jmh_unit_mismatch_params_and_nan_are_invalid(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="org.example.bench.ParseBench.parse")
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "thrpt-one-result.json")])
    with pytest.raises(TrialFailure) as err:  # file says ops/us, the adapter asked for avgt ns/op
        get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner)
    assert "score unit" in reason_of(err)
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "nan-score.json")])
    with pytest.raises(TrialFailure) as err:
        get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner)
    assert err.value.status == TrialStatus.INVALID and "non-finite" in reason_of(err)
    listspec = BenchmarkSpec(name="org.example.bench.ListBench.add")
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "params-two-results.json")])
    with pytest.raises(TrialFailure) as err:
        get_adapter("jmh").run_trial(request(tmp_path, listspec, 2), runner)
    assert "@Param" in reason_of(err) and "params" in reason_of(err)


def test_jmh_reads_tidy_layout_with_a_comma_inside_a_string_and_inf_strings(tmp_path: Path) -> None:
    """JMH's JSONResultFormat.tidy() breaks the line after every comma, inside strings too: a JVM
    argument with a comma leaves a raw newline in a string, which strict JSON parsers refuse."""
    spec = BenchmarkSpec(name="org.example.bench.ParseBench.parse")
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "tidy-comma-in-jvmargs.json")])
    assert get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner) == [408.5, 401.5]
    data = json.loads((TESTDATA / "jmh" / "tidy-comma-in-jvmargs.json").read_text(), strict=False)
    data[0]["primaryMetric"]["rawData"] = [[408.5, "+INF"]]
    runner = FakeRunner([writes("-rff", json.dumps(data))])
    with pytest.raises(TrialFailure) as err:
        get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner)
    assert err.value.status == TrialStatus.INVALID and "non-finite" in reason_of(err)


def test_jmh_empty_raw_data_names_the_property_that_suppresses_it(tmp_path: Path) -> None:
    data = json.loads((TESTDATA / "jmh" / "avgt-one-result.json").read_text())
    data[0]["primaryMetric"]["rawData"] = []  # what -Djmh.json.rawData=false writes
    runner = FakeRunner([writes("-rff", json.dumps(data))])
    with pytest.raises(TrialFailure) as err:
        get_adapter("jmh").run_trial(
            request(tmp_path, BenchmarkSpec(name="org.example.bench.ParseBench.parse")), runner
        )
    assert err.value.status == TrialStatus.INVALID and "jmh.json.rawData" in reason_of(err)


def test_jmh_params_option_becomes_p_flags_and_discovery_parses_l(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="org.example.bench.ListBench.add", options={"params": {"size": "10"}})
    text = json.dumps(json.loads((TESTDATA / "jmh" / "params-two-results.json").read_text())[:1])
    runner = FakeRunner([writes("-rff", text)])
    assert get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner) == [10.5, 10.7]
    assert arg_value(runner.calls[0].argv, "-p") == "size=10"
    listing = "Benchmarks: \norg.example.A.x\norg.example.B.y\n"
    specs = get_adapter("jmh").discover(version(tmp_path), FakeRunner([ok(listing)]), {})
    assert [s.name for s in specs] == ["org.example.A.x", "org.example.B.y"]


# ---- pytest-benchmark ----------------------------------------------------------------------------


def pb_json(names: list[str], data: list[object]) -> str:
    return json.dumps({"benchmarks": [{"name": n, "fullname": n, "stats": {"data": data}} for n in names]})


def test_pytest_benchmark_argv_env_and_values(tmp_path: Path) -> None:
    runner = FakeRunner([writes("--benchmark-json", pb_json(["t.py::test_a"], [1e-6, 2e-6, 3e-6]))])
    values = get_adapter("pytest-benchmark").run_trial(
        request(tmp_path, BenchmarkSpec(name="t.py::test_a")), runner
    )
    assert values == [1e-6, 2e-6, 3e-6]
    call = runner.calls[0]
    argv = call.argv
    assert argv[:4] == ["/venv/bin/python", "-m", "pytest", "-q"] and argv[-1] == "t.py::test_a"
    for needed in (
        "no:cacheprovider",
        "addopts=",
        "--assert=plain",
        "ordertrap_pytest_plugin",
        "--benchmark-max-time=0",
    ):
        assert needed in argv
    assert "--benchmark-min-rounds=3" in argv
    assert arg_value(argv, "--benchmark-storage").startswith(f"file://{tmp_path / 'scratch'}")
    assert Path(arg_value(argv, "--benchmark-json")).parent == tmp_path / "scratch"
    assert call.env is not None
    assert call.env["PYTHONDONTWRITEBYTECODE"] == "1" and call.env["PYTEST_ADDOPTS"] == ""
    plugin_dir = Path(call.env["PYTHONPATH"].split(":")[0])
    assert (plugin_dir / "ordertrap_pytest_plugin.py").is_file()


def test_pytest_benchmark_extra_rounds_are_dropped_from_the_front(tmp_path: Path) -> None:
    runner = FakeRunner([writes("--benchmark-json", pb_json(["t::a"], [9.0, 1.0, 2.0, 3.0]))])
    values = get_adapter("pytest-benchmark").run_trial(request(tmp_path, BenchmarkSpec(name="t::a")), runner)
    assert values == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (pb_json([], []), "measured nothing"),
        (pb_json(["t::a[1]", "t::a[2]"], [1.0, 1.0, 1.0]), "2 benchmarks matched"),
        (pb_json(["t::a"], [1.0, 1.0]), "got 2 rounds, wanted 3"),
        (pb_json(["t::a"], [1.0, 1.0, float("nan")]), "non-finite"),
        (json.dumps({"benchmarks": [{"name": "t::a", "stats": {}}]}), "stats.data is missing"),
        ("{", "not pytest-benchmark JSON"),
    ],
)
def test_pytest_benchmark_rejects_bad_json(tmp_path: Path, text: str, words: str) -> None:
    runner = FakeRunner([writes("--benchmark-json", text)])
    with pytest.raises(TrialFailure) as err:
        get_adapter("pytest-benchmark").run_trial(request(tmp_path, BenchmarkSpec(name="t::a")), runner)
    assert err.value.status == TrialStatus.INVALID and words in reason_of(err)


def test_pytest_benchmark_process_failures_name_the_fix(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="t::a")
    cases = [
        (
            failed(4, "error: unrecognized arguments: --benchmark-json=x"),
            TrialStatus.ERROR,
            "install pytest-benchmark",
        ),
        (failed(5, "", stdout="no tests ran in 0.01s"), TrialStatus.INVALID, "collected no test"),
        (
            failed(4, "ERROR: not found: /wt/t.py::a\n(no match in any of [<Module t.py>])"),
            TrialStatus.SKIPPED,
            "no such benchmark in this version (pytest: not found: /wt/t.py::a)",
        ),
        (
            failed(4, "ERROR: file or directory not found: t.py::a\n"),
            TrialStatus.SKIPPED,
            "no such benchmark in this version",
        ),
        (failed(1, "", stdout="FAILED t::a - AssertionError\n1 failed"), TrialStatus.ERROR, "FAILED t::a"),
        (timed_out(), TrialStatus.TIMEOUT, "timeout"),
    ]
    for result, status, words in cases:
        with pytest.raises(TrialFailure) as err:
            get_adapter("pytest-benchmark").run_trial(request(tmp_path, spec), FakeRunner([result]))
        assert err.value.status == status and words in reason_of(err)


def test_pytest_benchmark_plugin_autoload_off_loads_pytest_benchmark_explicitly(tmp_path: Path) -> None:
    runner = FakeRunner([writes("--benchmark-json", pb_json(["t::a"], [1.0]))])
    req = request(tmp_path, BenchmarkSpec(name="t::a"), 1, {"plugin_autoload": False, "assert_rewrite": True})
    get_adapter("pytest-benchmark").run_trial(req, runner)
    call = runner.calls[0]
    assert call.env is not None and call.env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    assert "pytest_benchmark.plugin" in call.argv and "--assert=plain" not in call.argv


# ---- the pytest plugin that runs inside the benchmarked project's interpreter -----------------------


def load_plugin() -> object:
    import importlib.util

    from gate.adapters.pytest_benchmark import PLUGIN, PLUGIN_DIR

    spec = importlib.util.spec_from_file_location(PLUGIN, PLUGIN_DIR / f"{PLUGIN}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plugin_timer_precision_is_bounded_and_keeps_the_estimate() -> None:
    plugin = load_plugin()
    ticks = iter(range(10**6))

    def coarse_timer() -> float:  # advances 1 ms per call, like a coarse clock
        return next(ticks) * 1e-3

    assert plugin._bounded_timer_precision(coarse_timer) == pytest.approx(1e-3)  # type: ignore[attr-defined]
    assert next(ticks) <= 1000  # stopped after 100 samples, not after a second of spinning


def test_plugin_replaces_pytest_benchmark_timer_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    fixture = pytest.importorskip("pytest_benchmark.fixture")
    plugin = load_plugin()
    monkeypatch.setattr(fixture, "compute_timer_precision", fixture.compute_timer_precision)
    plugin.pytest_configure(None)  # type: ignore[attr-defined]
    assert fixture.compute_timer_precision is plugin._bounded_timer_precision  # type: ignore[attr-defined]
    info = plugin.pytest_benchmark_generate_machine_info(None)  # type: ignore[attr-defined]
    assert "ordertrap-gate" in info["cpu"]["note"] and info["python_version"]


def test_jmh_each_param_combination_is_a_benchmark_of_its_own(tmp_path: Path) -> None:
    listing = (
        "Benchmarks: \norg.example.A.x\norg.example.bench.ListBench.add\n"
        '  param "size" = {10, 100}\n  param "kind" = {array, linked}\n'
    )
    runner = FakeRunner([ok(listing)])
    specs = get_adapter("jmh").discover(version(tmp_path), runner, {})
    assert runner.calls[0].argv[-1] == "-lp"
    assert [s.name for s in specs] == [
        "org.example.A.x",
        "org.example.bench.ListBench.add:kind=array,size=10",
        "org.example.bench.ListBench.add:kind=array,size=100",
        "org.example.bench.ListBench.add:kind=linked,size=10",
        "org.example.bench.ListBench.add:kind=linked,size=100",
    ]
    # a trial of one combination passes it as -p and reads its own result from JMH's JSON
    data = json.loads((TESTDATA / "jmh" / "params-two-results.json").read_text())
    runner = FakeRunner([writes("-rff", json.dumps(data))])
    spec = BenchmarkSpec(name="org.example.bench.ListBench.add:size=100")
    assert get_adapter("jmh").run_trial(request(tmp_path, spec, 2), runner) == [98.2, 99.0]
    argv = runner.calls[0].argv
    assert r"^org\.example\.bench\.ListBench\.add$" in argv and arg_value(argv, "-p") == "size=100"
    missing = BenchmarkSpec(name="org.example.bench.ListBench.add:size=7")
    with pytest.raises(TrialFailure) as err:
        get_adapter("jmh").run_trial(
            request(tmp_path, missing, 2), FakeRunner([writes("-rff", json.dumps(data))])
        )
    assert "no benchmark matched" in reason_of(err)


def test_jmh_with_a_classpath_runs_jmh_main_instead_of_a_jar(tmp_path: Path) -> None:
    ctx = version(tmp_path)
    (ctx.workdir / "target").mkdir(parents=True, exist_ok=True)
    (ctx.workdir / "target" / "cp.txt").write_text("/m2/jmh-core.jar:/m2/commons-math.jar\n")
    settings = {"classpath": "target/classes:target/test-classes", "classpath_file": "target/cp.txt"}
    runner = FakeRunner([ok("Benchmarks:\norg.example.A.x\n")])
    get_adapter("jmh").discover(ctx, runner, settings)
    assert runner.calls[0].argv == [
        "java",
        "-cp",
        "target/classes:target/test-classes:/m2/jmh-core.jar:/m2/commons-math.jar",
        "org.openjdk.jmh.Main",
        "-lp",
    ]
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "avgt-one-result.json")])
    spec = BenchmarkSpec(name="org.example.bench.ParseBench.parse")
    get_adapter("jmh").run_trial(request(tmp_path, spec, 3, settings), runner)
    assert runner.calls[0].argv[1:4] == [
        "-cp",
        "target/classes:target/test-classes:/m2/jmh-core.jar:/m2/commons-math.jar",
        "org.openjdk.jmh.Main",
    ]
    with pytest.raises(RunError) as err:  # the build did not write it: the fix names the command
        get_adapter("jmh").discover(ctx, FakeRunner(), {"classpath_file": "target/none.txt"})
    assert "dependency:build-classpath" in err.value.fix
