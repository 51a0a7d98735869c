"""The pure parts of eval/peers.py (the peer comparison behind docs/peers.md) on tiny inputs:
the go-test-output writer read back by the gate's own Go parser, benchstat's CSV reader, the
fixed-ratio rules of github-action-benchmark and CodSpeed at their boundaries, and the
pytest-benchmark saved runs read by pytest-benchmark itself."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from gate.adapters.gotest_output import parse_results
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def peers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("peers", REPO_ROOT / "eval" / "peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["peers"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_go_values_are_printed_as_go_prints_them(peers: ModuleType) -> None:
    # testing.prettyPrint: width and precision step down with the magnitude
    assert peers.go_value(1234.56) == "      1235"
    assert peers.go_value(999.96) == "      1000"
    assert peers.go_value(123.456) == "       123.5"
    assert peers.go_value(22.09) == "        22.09"
    assert peers.go_value(1.23456) == "         1.235"
    assert peers.go_value(0.5) == "         0.5000"
    assert peers.go_value(0.0) == "         0"


def test_go_test_output_reads_back_through_the_gates_go_parser(peers: ModuleType) -> None:
    results = [
        ("BenchmarkScan/10ValidUtf8", 22.09),
        ("BenchmarkScan/long", 1234.4),
        ("BenchmarkDecode", 153.25),
        ("BenchmarkScan/10ValidUtf8", 22.1),
    ]
    text = peers.go_test_output(results, procs=8)
    for name in ("BenchmarkScan/10ValidUtf8", "BenchmarkScan/long", "BenchmarkDecode"):
        got = [(n, f) for n, f in parse_results(text, name) if n == name]
        values = [float(f.split()[0]) for _, f in got]
        expected = [float(peers.go_value(v)) for n, v in results if n == name]
        assert values == expected, (name, text)
    # processBench pads the name to the longest one; "%8d" iterations (b.N of a 1 s benchtime)
    assert "\nBenchmarkScan/long-8       \t  810110\t      1234 ns/op\n" in text


def test_go_test_output_refuses_names_go_never_prints(peers: ModuleType) -> None:
    with pytest.raises(ValueError, match="not a Go benchmark name"):
        peers.go_test_output([("Benchmark A", 1.0)])
    with pytest.raises(ValueError, match="not a Go benchmark name"):
        peers.go_test_output([("TestA", 1.0)])


# The layout benchstat v0.0.0-20260908200009 prints with -format csv (a sec/op table, then the
# B/s table that b.SetBytes adds; names lose their "Benchmark" prefix).
BENCHSTAT_CSV = """goos: linux
goarch: amd64
pkg: x
,a.txt,,b.txt,,,
,sec/op,CI,sec/op,CI,vs base,P
U0001-8,1.0016e-07,0%,1.0498e-07,0%,+4.81%,p=0.000 n=10
U0002-8,1.0022e-07,0%,1.0024e-07,1%,~,p=0.566 n=10
U0003-8,1.0059e-07,∞,9.96e-08,∞,~,p=1.000 n=1
U0004-8,2.2e-08,1%,2.1e-08,1%,-4.55%,p=0.002 n=45+30
U0005-8,2.2e-08,0%,2.2e-08,0%,0.00%,p=0.010 n=45+30
U0006/sub-8,2.2e-08,0%,2.3e-08,0%,~,p=0.200 n=3+12
geomean,1.0032e-07,,1.0157e-07,,+1.25%,

,a.txt,,b.txt,,,
,B/s,CI,B/s,CI,vs base,P
U0001-8,1.0e+09,0%,0.9e+09,0%,-9.00%,p=0.000 n=10
U0002-8,1.0e+09,0%,1.0e+09,0%,+1.00%,p=0.000 n=10
"""


def test_benchstat_csv_gives_one_verdict_per_benchmark_from_the_time_table(peers: ModuleType) -> None:
    got = peers.benchstat_verdicts(BENCHSTAT_CSV, procs=8)
    assert got == {
        "BenchmarkU0001": "regression",
        "BenchmarkU0002": "unchanged",
        "BenchmarkU0003": "inconclusive",  # "need >= 4 samples to detect a difference"
        "BenchmarkU0004": "improvement",
        "BenchmarkU0005": "unchanged",  # significant but the medians are equal
        "BenchmarkU0006/sub": "inconclusive",  # 3 values on one side
    }


def test_benchstat_csv_with_an_unknown_change_column_stops(peers: ModuleType) -> None:
    bad = BENCHSTAT_CSV.replace("+4.81%", "?")
    with pytest.raises(ValueError, match="unknown change '\\?'"):
        peers.benchstat_verdicts(bad, procs=8)


def test_github_action_benchmark_alerts_only_above_the_ratio(peers: ModuleType) -> None:
    base = np.array([100.0])
    assert peers.gab_alert_rate(base, np.array([200.0])) == 0.0  # ratio > threshold, strictly
    assert peers.gab_alert_rate(base, np.array([200.5])) == 1.0
    assert peers.gab_alert_rate(base, np.array([10.0])) == 0.0  # a speed-up is never an alert
    # the share of (stored base, stored head) pairs: 1 of 4 pairs has head/base > 2
    assert peers.gab_alert_rate(np.array([100.0, 300.0]), np.array([150.0, 250.0])) == 0.25
    assert peers.gab_alert_rate(base, np.array([150.0]), threshold=1.1) == 1.0


def test_codspeed_measures_degradation_as_a_speed_ratio(peers: ModuleType) -> None:
    base = np.array([100.0])
    # +10 % time is a 9.1 % degradation (1 - 100/110): below the 10 % threshold
    assert peers.codspeed_rates(base, np.array([110.0]))["regression"] == 0.0
    assert peers.codspeed_rates(base, np.array([112.0]))["regression"] == 1.0
    assert peers.codspeed_rates(base, np.array([91.0]))["improvement"] == 0.0  # 100/91 - 1 = 9.9 %
    assert peers.codspeed_rates(base, np.array([90.0]))["improvement"] == 1.0  # 11.1 %
    mixed = peers.codspeed_rates(np.array([100.0]), np.array([80.0, 100.0, 120.0, 125.0]))
    assert mixed == {"regression": 0.5, "improvement": 0.25, "unchanged": 0.25}


def test_pytest_benchmark_rules_run_on_saved_runs_it_reads_itself(peers: ModuleType, tmp_path: Path) -> None:
    base = {"test_a": [1.0, 1.0, 1.0, 2.0], "test_b": [1.0, 1.0, 1.0], "test_c": [1.0, 1.1, 1.2]}
    head = {"test_a": [1.04, 1.04, 1.04, 1.04], "test_b": [1.06, 1.06, 1.06], "test_c": [0.5, 1.3, 1.4]}
    (tmp_path / "0001_base.json").write_text(json.dumps(peers.pytest_benchmark_saved_run(base)))
    (tmp_path / "0002_head.json").write_text(json.dumps(peers.pytest_benchmark_saved_run(head)))
    median = peers.pytest_benchmark_verdicts(
        tmp_path / "0001_base.json", tmp_path / "0002_head.json", "median:5%"
    )
    assert median == {"test_a": "unchanged", "test_b": "regression", "test_c": "regression"}
    minimum = peers.pytest_benchmark_verdicts(
        tmp_path / "0001_base.json", tmp_path / "0002_head.json", "min:5%"
    )
    assert minimum == {"test_a": "unchanged", "test_b": "regression", "test_c": "unchanged"}
    # and `pytest-benchmark compare` itself accepts both files
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_benchmark",
            "compare",
            "--columns",
            "min,median",
            str(tmp_path / "0001_base.json"),
            str(tmp_path / "0002_head.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # the CLI creates its storage folder (./.benchmarks) in the working directory
    )
    assert done.returncode == 0, done.stderr
    assert "test_b" in done.stdout and "0001_base" in done.stdout and "0002_head" in done.stdout


def test_the_script_stops_with_a_fix_when_the_recorded_data_is_absent(
    peers: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        peers.main(["--data", str(tmp_path / "absent"), "--part", "a", "--cache", str(tmp_path / "cache")])
        == 2
    )
    err = capsys.readouterr().err
    assert "not at" in err and "fix: put the reference data in" in err and "ORDERTRAP_REFERENCE_DATA" in err
    assert not (tmp_path / "cache").exists()  # nothing installed before the check
