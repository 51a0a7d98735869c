"""The go adapter on output of benchmarks that print to stdout, recorded from the real toolchain
(tests/testdata/go/prints/SOURCE.md): Go prints the name, then the benchmark's output, then the
result fields, so a result is split across lines and the output may look like numbers."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.adapters.gotest_output import is_verbose, parse_results
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, ok

PRINTS = Path(__file__).resolve().parents[2] / "testdata" / "go" / "prints"


def run(tmp_path: Path, stdout: str, name: str, measurements: int, **settings: object) -> list[float]:
    work = tmp_path / "wt"
    work.mkdir(exist_ok=True)
    req = TrialRequest(
        benchmark=BenchmarkSpec(name=name, unit="ns/op"),
        version=VersionContext(name="HEAD", workdir=work, scratch=tmp_path / "scratch"),
        measurements=measurements,
        timeout=60.0,
        options={"prebuild": False, **settings},
    )
    return get_adapter("go").run_trial(req, FakeRunner([ok(stdout)]))


def recorded(name: str) -> str:
    return (PRINTS / name).read_text()


@pytest.mark.parametrize(
    ("file", "name", "settings", "values"),
    [
        # "BenchmarkPrint-2 \thello" ... "       3\t     13490 ns/op"
        ("print-count3.txt", "BenchmarkPrint", {}, [13490.0, 7364.0, 5879.0]),
        # GOMAXPROCS=1: no "-1" suffix
        ("print-count2-cpu1.txt", "BenchmarkPrint", {"args": ["-cpu=1"]}, [12634.0, 12394.0]),
        # no newline: "BenchmarkPrintNoNewline-2 \txxx       3\t     14475 ns/op\t 162 B/op\t 1 allocs/op"
        (
            "print-no-newline-count2-benchmem.txt",
            "BenchmarkPrintNoNewline",
            {"args": ["-benchmem"]},
            [14475.0, 15059.0],
        ),
        (
            "print-no-newline-count2-benchmem.txt",
            "BenchmarkPrintNoNewline",
            {"args": ["-benchmem"], "metric": "B/op"},
            [162.0, 88.0],
        ),
        # lines in Go's result format ("       7\t         1 ns/op\t       1 B/op") before the real
        # result, "3 items in 5 ns/op", and a b.Logf in the result format after "--- BENCH:"
        ("lookalike-count2-benchmem.txt", "BenchmarkLookalike", {"args": ["-benchmem"]}, [41757.0, 25068.0]),
        (
            "lookalike-count2-benchmem.txt",
            "BenchmarkLookalike",
            {"args": ["-benchmem"], "metric": "allocs/op"},
            [6.0, 6.0],
        ),
        # -v: the name is printed after the run, right before the fields; the next repetition's
        # output (lookalikes included) follows the result
        ("lookalike-count2-verbose.txt", "BenchmarkLookalike", {"args": ["-v"]}, [37470.0, 34301.0]),
        # -v with a sub-benchmark that prints without a newline: "sub sub BenchmarkSizes/n=2 \t 2\t 3014 ns/op"
        (
            "sizes-n2-prints-count2-verbose-cpu1.txt",
            "BenchmarkSizes/n=2",
            {"args": ["-test.v", "-test.cpu=1"]},
            [3014.0, 2083.0],
        ),
    ],
)
def test_results_of_printing_benchmarks(
    tmp_path: Path, file: str, name: str, settings: dict[str, object], values: list[float]
) -> None:
    assert run(tmp_path, recorded(file), name, len(values), **settings) == values


def test_parent_of_two_printing_sub_benchmarks_is_two_matches(tmp_path: Path) -> None:
    # the second sub-benchmark's name follows the first's output on its line: "sub BenchmarkSizes/n=2-2 \t"
    assert parse_results(recorded("sizes-prints-parent-two-subs.txt"), "BenchmarkSizes") == [
        ("BenchmarkSizes/n=1", "\t      5353 ns/op"),
        ("BenchmarkSizes/n=1", "\t     44766 ns/op"),
        ("BenchmarkSizes/n=2", "\t     18382 ns/op"),
        ("BenchmarkSizes/n=2", "\t      5478 ns/op"),
    ]
    with pytest.raises(TrialFailure) as err:
        run(tmp_path, recorded("sizes-prints-parent-two-subs.txt"), "BenchmarkSizes", 2)
    assert err.value.status == TrialStatus.INVALID
    assert "2 benchmarks matched" in err.value.reason and "BenchmarkSizes/n=2" in err.value.reason


def test_parent_with_one_sub_benchmark_names_the_sub_benchmark(tmp_path: Path) -> None:
    stdout = "BenchmarkSizes/n=5-2   \t     100\t  25.24 ns/op\nPASS\n"
    with pytest.raises(TrialFailure) as err:
        run(tmp_path, stdout, "BenchmarkSizes", 1)
    assert err.value.status == TrialStatus.INVALID
    assert "'BenchmarkSizes/n=5', not 'BenchmarkSizes'" in err.value.reason


@pytest.mark.parametrize(
    ("stdout", "values"),
    [
        # numbers in the output are not results: no tab after an integer, or not at the end of the line
        ("BenchmarkA-2   \tread 42 rows\n12 3.5 ns/op\n1\t2 ns/op extra\n       3\t  100.0 ns/op\n", [100.0]),
        # a result-format line printed before the result is overridden by the real one
        ("BenchmarkA-2   \t       9\t 1 ns/op\n       3\t  100.0 ns/op\n", [100.0]),
        # b.Log output (after "--- BENCH:") in the result format is not a result
        (
            "BenchmarkA-2   \t       3\t  100.0 ns/op\n--- BENCH: BenchmarkA-2\n    a_test.go:9: 1\t2 ns/op\n",
            [100.0],
        ),
        # the package line of `go test` is not a name ("Benchmarks": lower-case after "Benchmark")
        ("BenchmarkA-2   \tx\n       3\t  100.0 ns/op\nok  \texample.com/Benchmarks\t1 ns/op\n", [100.0]),
        # a name inside the output is only the requested one's (or its sub-benchmark's) ...
        ("BenchmarkA-2   \tsee BenchmarkAB\tstats\n       3\t  100.0 ns/op\n", [100.0]),
        # ... which Go prints right after output that did not end in a newline
        (
            "BenchmarkA-2   \tx\n       3\t  100.0 ns/op\nxxBenchmarkA-2   \tx\n       3\t   50.0 ns/op\n",
            [100.0, 50.0],
        ),
    ],
)
def test_output_that_looks_like_numbers(tmp_path: Path, stdout: str, values: list[float]) -> None:
    assert run(tmp_path, stdout, "BenchmarkA", len(values)) == values


def test_whole_lines_in_go_format_printed_by_the_benchmark_are_reported_not_used(tmp_path: Path) -> None:
    line = "BenchmarkA-2 \t 100 \t 1.0 ns/op"  # printed by the benchmark itself, twice per repetition
    stdout = f"BenchmarkA-2   \t{line}\n{line}\n       3\t  100.0 ns/op\n"
    with pytest.raises(TrialFailure) as err:
        run(tmp_path, stdout, "BenchmarkA", 1)
    assert err.value.status == TrialStatus.INVALID
    assert (
        "got 2 results, wanted 1" in err.value.reason
        and "prints lines in Go's result format" in err.value.reason
    )
    with pytest.raises(TrialFailure) as err:
        run(tmp_path, stdout, "BenchmarkA", 1, args=["-count=1"])
    assert "remove -count" in err.value.reason


@pytest.mark.parametrize(
    ("args", "verbose"),
    [
        ([], False),
        (["-v"], True),
        (["-test.v"], True),
        (["-test.v=test2json"], True),
        (["-v", "-v=false"], False),
        (["-benchmem", "-cpu=1"], False),
        (["-vet=off"], False),
    ],
)
def test_verbose_flag(args: list[str], verbose: bool) -> None:
    assert is_verbose(args) is verbose


def test_a_long_line_of_output_is_parsed_in_linear_time(tmp_path: Path) -> None:
    """fmt.Print(i) without newlines over b.N iterations makes one line of megabytes; a regex
    search anchored at its end would retry from every digit (minutes for 200 kB)."""
    stdout = "".join(
        f"BenchmarkA-2   \t{'1' * 200_000}x{'1' * 200_000}       3\t  {v} ns/op\n" for v in (10, 20)
    )
    started = time.perf_counter()
    assert run(tmp_path, stdout, "BenchmarkA", 2) == [10.0, 20.0]
    assert time.perf_counter() - started < 5
