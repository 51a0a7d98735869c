"""Adapters against a fake ProcessRunner: the argv they build, and what they do with good output,
garbage, NaN/inf, missing values and 0 or 2 matching benchmarks. Real frameworks run in
tests/integration/test_adapter_*.py; the recorded outputs live in tests/testdata/."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters._common import anchored, last_number
from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import ADAPTER_NAMES, get_adapter
from gate.errors import ConfigError
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, failed, ok, timed_out

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"


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
        settings=settings or {},
    )


# ---- registry ------------------------------------------------------------------------------------


def test_registry_builds_every_named_adapter() -> None:
    assert ADAPTER_NAMES == ("command", "pytest-benchmark", "go", "gbench", "hyperfine", "jmh")
    for name in ("command",):
        assert get_adapter(name).name == name


def test_registry_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        get_adapter("criterion")
    assert "criterion" in str(err.value)
    for name in ADAPTER_NAMES:
        assert name in err.value.fix


# ---- shared parsing helpers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parse took 0.0123 s\n", 0.0123),
        ("1\n2\n3.5e-3\n", 0.0035),
        ("x86_64 run: 12ms", 12.0),
        ("-4.5", -4.5),
        (".25\n", 0.25),
        ("result: 7 (v1.2.3 build)\n", 7.0),
        ("no digits at all", None),
        ("", None),
    ],
)
def test_last_number(text: str, expected: float | None) -> None:
    assert last_number(text) == expected


@pytest.mark.parametrize("token", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_last_number_returns_non_finite_tokens_so_they_are_rejected(token: str) -> None:
    value = last_number(f"12.5\n{token}\n")
    assert value is not None and value != 12.5


def test_info_is_not_inf() -> None:
    assert last_number("3.0\ninfo: done\n") == 3.0


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
