"""The go adapter's messages when its parse fails for a reason the benchmark has to fix: output cut
by the driver (more than 32 MiB printed), and lines in Go's result format printed by the benchmark
(whose fix must hold for `go test`, which merges the test binary's stderr into its stdout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.engine.process import _Capture
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, ok

HEADER = "goos: linux\ngoarch: amd64\npkg: example.com/big\n"
NOISE = ("x" * 65535 + "\n").encode()  # the benchmark's own output, in 64 KiB lines


def run(tmp_path: Path, stdout: str, measurements: int, **settings: object) -> list[float]:
    work = tmp_path / "wt"
    work.mkdir(exist_ok=True)
    req = TrialRequest(
        benchmark=BenchmarkSpec(name="BenchmarkBig", unit="ns/op"),
        version=VersionContext(name="HEAD", workdir=work, scratch=tmp_path / "scratch"),
        measurements=measurements,
        timeout=60.0,
        options={"prebuild": False, **settings},
    )
    return get_adapter("go").run_trial(req, FakeRunner([ok(stdout)]))


def captured(*parts: bytes | int) -> str:
    """What the driver keeps of a stream made of ``parts`` (an int = that many MiB of NOISE)."""
    capture = _Capture()
    for part in parts:
        if isinstance(part, int):
            for _ in range(part * 16):
                capture.add(NOISE)
        else:
            capture.add(part)
    return capture.value().decode()


def reason(tmp_path: Path, stdout: str, measurements: int, **settings: object) -> str:
    with pytest.raises(TrialFailure) as err:
        run(tmp_path, stdout, measurements, **settings)
    assert err.value.status == TrialStatus.INVALID
    return err.value.reason


CUT = "its output was cut in the middle because the benchmark printed more than 32 MiB"


def test_a_name_in_the_dropped_middle_is_reported_as_cut_output_not_as_a_wrong_name(tmp_path: Path) -> None:
    # the N=1 run prints before Go prints the name, the timed runs after it
    stdout = captured(HEADER.encode(), 2, b"BenchmarkBig-2 \t", 35, b"       1\t  123.0 ns/op\nPASS\n")
    assert "BenchmarkBig-2" not in stdout and "bytes of output dropped here]" in stdout
    text = reason(tmp_path, stdout, 1)
    assert CUT in text and "print less to stdout" in text and "check the name" not in text


def test_results_in_the_dropped_middle_are_reported_as_cut_output_not_as_a_count_problem(
    tmp_path: Path,
) -> None:
    reps = [part for i in range(3) for part in (b"BenchmarkBig-2 \t", 16, f"  1\t {i}00.0 ns/op\n".encode())]
    stdout = captured(HEADER.encode(), *reps, b"PASS\n")
    text = reason(tmp_path, stdout, 3)
    assert CUT in text and "got 2 results, wanted 3" in text and "remove -count" not in text


def test_the_marker_alone_does_not_change_a_good_parse(tmp_path: Path) -> None:
    stdout = (
        f"{HEADER}BenchmarkBig-2 \tx\n[ordertrap-gate: 123 bytes of output dropped here]\n"
        "x\n       1\t  123.0 ns/op\nPASS\n"
    )
    assert run(tmp_path, stdout, 1) == [123.0]


def test_hand_written_cut_output_without_any_name(tmp_path: Path) -> None:
    stdout = f"{HEADER}xxx\n[ordertrap-gate: 40000000 bytes of output dropped here]\nxxx\nPASS\n"
    assert CUT in reason(tmp_path, stdout, 1)
    # not cut: the adapter asks Go (one -v run) whether the benchmark exists; here it does not
    work = tmp_path / "wt"
    req = TrialRequest(
        benchmark=BenchmarkSpec(name="BenchmarkBig", unit="ns/op"),
        version=VersionContext(name="HEAD", workdir=work, scratch=tmp_path / "scratch"),
        measurements=1,
        timeout=60.0,
        options={"prebuild": False},
    )
    with pytest.raises(TrialFailure) as err:
        get_adapter("go").run_trial(req, FakeRunner([ok(f"{HEADER}xxx\nPASS\n"), ok(f"{HEADER}PASS\n")]))
    assert err.value.status == TrialStatus.SKIPPED and CUT not in err.value.reason


@pytest.mark.parametrize("settings", [{}, {"binary": "./big.test"}], ids=["go-test", "binary"])
def test_result_lines_printed_by_the_benchmark_are_not_sent_to_stderr(
    tmp_path: Path, settings: dict[str, object]
) -> None:
    line = "BenchmarkBig-2 \t 100 \t 1.0 ns/op"  # printed by the benchmark itself
    stdout = f"BenchmarkBig-2   \t{line}\n{line}\n       3\t  100.0 ns/op\n"
    text = reason(tmp_path, stdout, 1, **settings)
    assert "got 2 results, wanted 1" in text and "stderr" not in text
    assert "don't print them, or write them to a file" in text
