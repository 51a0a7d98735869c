"""Long steps say what they are doing (a build, a discovery that compiles): a line when they start,
the step's own output while it runs (throttled), and their time at the end."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest

from gate.adapters._common import StepProgress
from gate.adapters.base import VersionContext
from gate.adapters.criterion import CriterionAdapter
from gate.engine.process import SubprocessRunner
from tests.fakes.process_runner import FakeRunner, ok
from tests.unit.adapters.test_adapter_criterion import HELP_08, built, cargo_messages, metadata


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_step_says_it_started_shows_its_output_throttled_and_its_time() -> None:
    out, clock = io.StringIO(), Clock()
    step = StepProgress("building base", interval=5.0, stream=out, clock=clock)
    step("   Compiling serde v1.0\n   Compiling it")  # the second line is not complete yet
    clock.now += 1
    step("ertools v0.13\n   Compiling rand v0.8\n")  # within 5 s of the last shown line: not shown
    clock.now += 5
    step("   Compiling criterion v0.4\x1b[31m\n")
    clock.now += 2.5
    step.done("built")
    lines = out.getvalue().splitlines()
    assert lines == [
        "ordertrap-gate run: building base …",
        "ordertrap-gate run:   building base [0 s]: Compiling serde v1.0",
        "ordertrap-gate run:   building base [6 s]: Compiling criterion v0.4<U+001B>[31m",
        "ordertrap-gate run: building base: built in 8.5 s",
    ]


def test_the_runner_passes_the_output_on_while_the_process_runs(tmp_path: Path) -> None:
    seen: list[str] = []
    result = SubprocessRunner()(
        ["/bin/sh", "-c", "echo compiling >&2; echo done"], cwd=tmp_path, timeout=30, progress=seen.append
    )
    assert result.returncode == 0 and result.stdout == "done\n" and result.stderr == "compiling\n"
    assert sorted("".join(seen).splitlines()) == ["compiling", "done"]


def test_the_criterion_build_says_it_builds_and_shows_cargo_but_not_its_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = built(tmp_path)
    workdir = tmp_path / "wt"
    workdir.mkdir()
    ctx = VersionContext(name="base", workdir=workdir, scratch=tmp_path / "scratch")
    runner = FakeRunner(
        [
            ok(metadata(workdir / "target")),
            ok(cargo_messages({"sums": str(exe)}), "   Compiling sumcrate v0.1.0 (/wt)\n"),
            ok(HELP_08),
            ok("sum_1000: benchmark\n"),
        ]
    )
    CriterionAdapter().discover(ctx, runner, {})
    err = capsys.readouterr().err
    assert "building the criterion benchmarks of base (cargo bench --no-run) …" in err
    assert "Compiling sumcrate v0.1.0" in err and "compiler-artifact" not in err
    assert "building the criterion benchmarks of base (cargo bench --no-run): built in" in err


def test_the_criterion_build_shows_a_cargo_warning_not_its_continuation_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rust-itertools v0.12.1's first progress line was "(in the `quickcheck` dependency)", the
    tail of a two-line cargo warning."""
    exe = built(tmp_path)
    workdir = tmp_path / "wt"
    workdir.mkdir()
    ctx = VersionContext(name="base", workdir=workdir, scratch=tmp_path / "scratch")
    warning = (
        "warning: /wt/Cargo.toml: `default_features` is deprecated in favor of `default-features`\n"
        "(in the `quickcheck` dependency)\n"
    )
    runner = FakeRunner(
        [
            ok(metadata(workdir / "target")),
            ok(cargo_messages({"sums": str(exe)}), warning),
            ok(HELP_08),
            ok("sum_1000: benchmark\n"),
        ]
    )
    CriterionAdapter().discover(ctx, runner, {})
    err = capsys.readouterr().err
    assert "(cargo bench --no-run) [0 s]: warning: /wt/Cargo.toml: `default_features` is deprecated" in err
    assert "quickcheck" not in err


def test_a_silent_step_shows_the_line_held_back_then_says_it_still_runs() -> None:
    """rustc compiling a large bench target prints nothing for minutes after cargo's last line."""
    out, clock = io.StringIO(), Clock()
    step = StepProgress("building base", interval=5.0, quiet=60.0, stream=out, clock=clock)
    step("   Compiling rand v0.8\n")
    clock.now += 1
    step("   Compiling itertools v0.12.1 (/wt)\n")  # held back: within 5 s of the last shown line
    clock.now += 5
    step.tick()  # nothing followed it: shown now
    clock.now += 30
    step.tick()  # quiet for less than 60 s: nothing
    clock.now += 30
    step.tick()
    clock.now += 60
    step.tick()
    step.done("built")
    step.tick()  # after done, never a line
    lines = out.getvalue().splitlines()
    assert lines == [
        "ordertrap-gate run: building base …",
        "ordertrap-gate run:   building base [0 s]: Compiling rand v0.8",
        "ordertrap-gate run:   building base [6 s]: Compiling itertools v0.12.1 (/wt)",
        "ordertrap-gate run:   building base [66 s]: still running, no output for 65 s; last: Compiling itertools v0.12.1 (/wt)",
        "ordertrap-gate run:   building base [126 s]: still running, no output for 125 s; last: Compiling itertools v0.12.1 (/wt)",
        "ordertrap-gate run: building base: built in 126.0 s",
    ]


def test_the_watcher_speaks_while_a_real_process_is_silent(tmp_path: Path) -> None:
    out = io.StringIO()
    step = StepProgress("building base", interval=0.05, quiet=0.2, stream=out)
    result = SubprocessRunner()(
        ["/bin/sh", "-c", "echo Compiling x >&2; sleep 2"], cwd=tmp_path, timeout=60, progress=step
    )
    step.done("built")
    assert result.returncode == 0
    assert "still running, no output for" in out.getvalue()


def test_a_step_with_no_output_at_all_still_says_it_runs(tmp_path: Path) -> None:
    """`mvn -q` prints nothing while it downloads and compiles."""
    out = io.StringIO()
    step = StepProgress("building base", interval=0.05, quiet=0.2, stream=out)
    SubprocessRunner()(["/bin/sh", "-c", "sleep 2"], cwd=tmp_path, timeout=60, progress=step)
    step.done("built")
    assert "still running, no output for" in out.getvalue()


def test_a_step_dropped_without_done_stops_its_watcher() -> None:
    """Discovery that raises never calls done: the watcher must not speak for the rest of the run."""
    step = StepProgress("finding dropped", interval=0.05, quiet=0.1, stream=io.StringIO())
    del step

    def watching() -> bool:
        return any(t.name == "step-progress: finding dropped" for t in threading.enumerate())

    deadline = time.monotonic() + 30
    while watching() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not watching()


def test_one_still_running_line_at_a_time_from_the_innermost_step() -> None:
    """Discovery (outer) wraps the build (inner): only the build says it still runs, and neither
    before `quiet` seconds have passed since it started."""
    out, clock = io.StringIO(), Clock()
    outer = StepProgress("finding", interval=5.0, quiet=60.0, stream=out, clock=clock)
    inner = StepProgress("building", interval=5.0, quiet=60.0, stream=out, clock=clock)
    clock.now += 10
    outer.tick()
    inner.tick()
    assert "still running" not in out.getvalue()
    clock.now += 60
    outer.tick()
    inner.tick()
    inner.done("built")
    clock.now += 60
    outer.tick()
    outer.done("1 found")
    assert out.getvalue().splitlines()[2:] == [
        "ordertrap-gate run:   building [70 s]: still running, no output for 70 s",
        "ordertrap-gate run: building: built in 70.0 s",
        "ordertrap-gate run:   finding [130 s]: still running, no output for 130 s",
        "ordertrap-gate run: finding: 1 found in 130.0 s",
    ]
