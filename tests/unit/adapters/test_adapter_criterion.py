"""The ``criterion`` adapter with a scripted runner, on files a real Criterion.rs 0.8.2 wrote
(``tests/testdata/criterion/SOURCE.md``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, ProcessResult, TrialFailure
from gate.adapters.criterion import CriterionAdapter
from gate.errors import ConfigError, RunError
from gate.model import TrialStatus
from tests.fakes.process_runner import Call, FakeRunner, Responder, failed, ok
from tests.unit.adapters.test_adapter_argv_and_output import TESTDATA, request, version

DATA = TESTDATA / "criterion"
HELP_08 = "      --exact\n          Run benchmarks that exactly match the provided filter\n"
HELP_03 = "        --list       List all benchmarks\n"


def cargo_messages(executables: dict[str, str]) -> str:
    lines = [
        json.dumps(
            {"reason": "compiler-artifact", "target": {"kind": ["lib"], "name": "x"}, "executable": None}
        )
    ]
    for name, path in executables.items():
        target = {"kind": ["bench"], "name": name}
        lines.append(json.dumps({"reason": "compiler-artifact", "target": target, "executable": path}))
    lines.append(json.dumps({"reason": "build-finished", "success": True}))
    return "\n".join(lines) + "\n"


def metadata(target: Path) -> str:
    return json.dumps({"target_directory": str(target), "packages": [{"name": "sumcrate"}, {"name": "util"}]})


def built(tmp_path: Path) -> Path:
    exe = tmp_path / "target" / "release" / "deps" / "sums-0123"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


def writes_result(benchmark_dir: str, stderr: str = "Benchmarking x\n") -> Responder:
    """The trial as Criterion runs it: the recorded files copied under CRITERION_HOME."""

    def respond(call: Call) -> ProcessResult:
        assert call.env is not None
        home = Path(call.env["CRITERION_HOME"])
        shutil.copytree(DATA / benchmark_dir, home / benchmark_dir)
        return ok("", stderr)

    return respond


def test_build_once_per_worktree_and_the_trial_runs_the_copied_executable(tmp_path: Path) -> None:
    exe = built(tmp_path)
    adapter = CriterionAdapter()
    ctx = version(tmp_path)
    runner = FakeRunner(
        [
            ok(metadata(ctx.workdir / "target")),
            ok(cargo_messages({"sums": str(exe)})),
            ok(HELP_08),
            ok((DATA / "list.txt").read_text()),
        ]
    )
    specs = adapter.discover(ctx, runner, {})
    assert [s.name for s in specs] == ["sum_1000", "group/sum 10"] and specs[0].unit == "ns"
    assert runner.calls[1].argv == [
        "cargo",
        "bench",
        "--no-run",
        "--message-format=json",
    ]  # no clean: target inside
    copied = runner.calls[3].argv[0]
    assert Path(copied).parent == ctx.scratch and Path(copied).read_text() == exe.read_text()
    runner = FakeRunner([writes_result("group/sum 10")])
    values = adapter.run_trial(request(tmp_path, specs[1], 3, {"warm_up_time": 0.1}), runner)
    sample = json.loads((DATA / "group/sum 10/new/sample.json").read_text())
    assert values == [t / n for n, t in zip(sample["iters"], sample["times"], strict=True)][-3:]
    argv = runner.calls[0].argv
    assert argv[:6] == [copied, "--bench", "--exact", "group/sum 10", "--noplot", "--sample-size"]
    assert argv[6:] == ["10", "--warm-up-time", "0.1"]  # at least Criterion's minimum of 10 samples
    assert [p.is_file() for p in ctx.scratch.iterdir()] == [True]  # CRITERION_HOME removed


def writes_probe(call: Call) -> ProcessResult:
    """The probe of a shared target directory, run where the gate sees its files (no sandbox)."""
    probe = Path(call.argv[-1])
    assert ".ordertrap-probe-" in probe.name, call.argv
    probe.parent.mkdir(parents=True, exist_ok=True)
    probe.touch()
    return ok()


def test_a_shared_target_directory_cleans_the_workspace_packages_first(tmp_path: Path) -> None:
    exe = built(tmp_path)
    ctx = version(tmp_path)
    runner = FakeRunner(
        [
            ok(metadata(tmp_path / "shared")),
            writes_probe,
            ok(),
            ok(cargo_messages({"sums": str(exe)})),
            ok(HELP_08),
            ok("a: benchmark\n"),
        ]
    )
    CriterionAdapter().discover(ctx, runner, {})
    assert runner.calls[2].argv == [
        "cargo", "clean", "--profile", "bench", "--package", "sumcrate", "--package", "util"
    ]  # fmt: skip
    assert list((tmp_path / "shared").iterdir()) == []  # the probe is gone


def test_a_target_directory_the_gate_cannot_see_is_refused_before_the_build(tmp_path: Path) -> None:
    """CARGO_TARGET_DIR under /tmp or $HOME is private to each version in the sandbox: the probe
    written there is not where the gate looks, and the build of many minutes never starts."""
    ctx = version(tmp_path)
    runner = FakeRunner([ok(metadata(tmp_path / "shared")), ok()])  # wrote elsewhere
    with pytest.raises(RunError) as err:
        CriterionAdapter().discover(ctx, runner, {})
    assert "private to each version" in str(err.value) and len(runner.calls) == 2
    assert f'caches = ["{tmp_path / "shared"}"]' in err.value.fix
    runner = FakeRunner([ok(metadata(tmp_path / "shared")), failed(1, "mkdir: Read-only file system")])
    with pytest.raises(RunError) as err:
        CriterionAdapter().discover(ctx, runner, {})
    assert "cannot be written" in str(err.value) and "[suite] caches" in err.value.fix


def test_missing_benchmark_is_skipped_and_silence_after_running_is_invalid(tmp_path: Path) -> None:
    exe = built(tmp_path)
    adapter = CriterionAdapter()
    ctx = version(tmp_path)
    runner = FakeRunner(
        [ok(metadata(ctx.workdir)), ok(cargo_messages({"sums": str(exe)})), ok(HELP_08), ok("a: benchmark\n")]
    )
    adapter.discover(ctx, runner, {})
    spec = BenchmarkSpec(name="gone")
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(request(tmp_path, spec, 3), FakeRunner([ok("", "")]))
    assert err.value.status == TrialStatus.SKIPPED and "ran nothing" in err.value.reason
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(request(tmp_path, spec, 3), FakeRunner([ok("", "Benchmarking gone\n")]))
    assert err.value.status == TrialStatus.INVALID and "sample.json" in err.value.reason
    # a result for another id (a filter that matched a different benchmark) is not this one's
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(request(tmp_path, spec, 3), FakeRunner([writes_result("sum_1000")]))
    assert err.value.status == TrialStatus.INVALID


def test_two_bench_targets_need_a_choice_and_bad_times_are_refused(tmp_path: Path) -> None:
    ctx = version(tmp_path)
    two = cargo_messages({"sums": "/x/sums-1", "parse": "/x/parse-2"})
    with pytest.raises(ConfigError) as err:
        CriterionAdapter().discover(ctx, FakeRunner([ok(metadata(ctx.workdir)), ok(two)]), {})
    assert "2 bench targets (parse, sums)" in str(err.value) and "[criterion] bench" in err.value.fix
    with pytest.raises(ConfigError) as err:
        CriterionAdapter().discover(ctx, FakeRunner(), {"measurement_time": "5s"})
    assert "seconds" in str(err.value)
    with pytest.raises(Exception) as err:
        CriterionAdapter().discover(
            ctx, FakeRunner([ok(metadata(ctx.workdir)), failed(101, "error: no bench")]), {}
        )
    assert "cargo bench --no-run" in str(err.value)


def test_sample_json_with_nan_or_mismatched_lengths_is_invalid(tmp_path: Path) -> None:
    from gate.adapters.criterion import parse_sample

    assert parse_sample('{"iters": [2.0, 4.0], "times": [10.0, 30.0]}', "b") == [5.0, 7.5]
    for text in ('{"iters": [1.0], "times": [1.0, 2.0]}', '{"iters": [0.0], "times": [1.0]}', "[]"):
        with pytest.raises(TrialFailure) as err:
            parse_sample(text, "b")
        assert err.value.status == TrialStatus.INVALID


def test_criterion_0_3_lists_bench_and_gets_an_anchored_regex(tmp_path: Path) -> None:
    """Criterion 0.3 (httparse 1.10's benches) prints libtest's ``ID: bench`` and has no --exact."""
    exe = built(tmp_path)
    adapter = CriterionAdapter()
    ctx = version(tmp_path)
    listing = "req/req: bench\n\nreq_short/req_short: bench\n\n"
    runner = FakeRunner(
        [ok(metadata(ctx.workdir)), ok(cargo_messages({"parse": str(exe)})), ok(HELP_03), ok(listing)]
    )
    specs = adapter.discover(ctx, runner, {})
    assert [s.name for s in specs] == ["req/req", "req_short/req_short"]
    runner = FakeRunner([writes_result("sum_1000")])
    with pytest.raises(TrialFailure):  # the recorded result is sum_1000's, not req/req's
        adapter.run_trial(
            request(tmp_path, specs[0], 3, {"warm_up_time": 1, "measurement_time": 2.5}), runner
        )
    argv = runner.calls[0].argv
    assert argv[1:4] == ["--bench", "^req/req$", "--noplot"]
    # Criterion 0.3 parses these as integers: whole seconds are written without ".0"
    assert argv[-4:] == ["--warm-up-time", "1", "--measurement-time", "2.5"]


# What cargo 1.95 printed on this machine for a crate missing from ~/.cargo/registry: with
# ~/.cargo bound read-only (the sandbox's default), and with no network (a pull request's event)
READ_ONLY_REGISTRY = """ Downloading crates ...
  Downloaded itoa v1.0.1
error: failed to open `/root/.cargo/registry/cache/index.crates.io-1949cf8c6b5b557f/itoa-1.0.1.crate`

Caused by:
  Read-only file system (os error 30)
"""
NO_NETWORK = """warning: spurious network error (1 try remaining): [6] Could not resolve hostname (Could not resolve host: index.crates.io)
error: failed to get `itoa` as a dependency of package `tiny v0.1.0 (/tmp/tiny)`

Caused by:
  failed to download from `https://index.crates.io/config.json`
"""


@pytest.mark.parametrize("stderr", [READ_ONLY_REGISTRY, NO_NETWORK], ids=["read-only", "no-network"])
def test_crates_the_sandboxed_build_cannot_download_name_the_registry_cache_as_the_fix(
    tmp_path: Path, stderr: str
) -> None:
    ctx = version(tmp_path)
    with pytest.raises(RunError) as err:  # the build of a first run on a fresh runner
        CriterionAdapter().discover(ctx, FakeRunner([ok(metadata(ctx.workdir)), failed(101, stderr)]), {})
    assert "failed to" in str(err.value) and 'caches = ["~/.cargo/registry"]' in err.value.fix
    assert "cargo fetch" in err.value.fix and "network = true" in err.value.fix
    with pytest.raises(RunError) as err:  # `cargo clean -p` of a shared target resolves the crates too
        CriterionAdapter().discover(
            ctx, FakeRunner([ok(metadata(tmp_path / "shared")), writes_probe, failed(101, stderr)]), {}
        )
    assert "cargo clean" in str(err.value) and 'caches = ["~/.cargo/registry"]' in err.value.fix

    # a compile error keeps the fix that points at cargo's whole output
    compile_error = "error[E0425]: cannot find value `x` in this scope\n --> benches/b.rs:3:5\n"
    with pytest.raises(RunError) as err:
        CriterionAdapter().discover(
            ctx, FakeRunner([ok(metadata(ctx.workdir)), failed(101, compile_error)]), {}
        )
    assert "cargo bench --no-run" in err.value.fix and "caches" not in err.value.fix
