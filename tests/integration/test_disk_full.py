"""A full disk is an infrastructure fault, not a benchmark result: the run stops with exit 75
(sysexits' EX_TEMPFAIL) and a fix, logs nothing as failed because of it, and the resume runs
those trials again.

For real on a small tmpfs (mounted as root, skipped with the reason where that is impossible),
and with ENOSPC injected at each place the gate writes, so the logic never goes untested."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import gate.engine.process
from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.cli import main
from gate.engine.driver import run_schedule
from gate.engine.schedule import LevelConfig, rmit_schedule
from gate.errors import DiskFullError
from gate.files.trial_log import TrialLog
from gate.model import TrialStatus
from tests.conftest import REPO_ROOT
from tests.integration.test_run_cli import _check_complete, config, make_repo

PY = sys.executable


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8); the injected tests below cover the logic")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m,mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({made.stderr.strip()}); the injected tests cover the logic")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _rows(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "trials.csv", keep_default_na=False)


def _run(repo: Path, out: Path) -> subprocess.CompletedProcess[str]:
    argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
            "--head", "HEAD", "--out", str(out), "--seed", "5", "--instance", "box"]  # fmt: skip
    return subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)


def test_a_disk_that_fills_during_the_run_stops_it_and_the_resume_runs_those_trials(tmp_path, small_disk):
    """One benchmark fills the disk the --out lies on (once); every benchmark writes its output
    file in its worktree, as frameworks write their JSON, and fails when it cannot."""
    # "once" across both versions and the resume: the sandbox gives each version a private /tmp,
    # so the flag lives in a [suite] caches directory, the place base and head share
    shared = tmp_path / "shared"
    shared.mkdir()
    flag = shared / "filled-once"
    fill = f"[ -e {flag} ] || {{ touch {flag}; head -c 64m /dev/zero > filler 2>/dev/null; }}; "
    write = "echo 1 > result.txt && cat result.txt"
    repo = make_repo(
        tmp_path,
        f'[suite]\nadapter = "command"\ntimeout = 60\ncaches = ["{shared}"]\n'
        + "".join(
            f'[[benchmark]]\nname = "{name}"\ncommand = "{cmd}"\n'
            for name, cmd in (("a", write), ("b", write), ("fill", fill + write))
        )
        + "[full]\nsuite_runs = 2\niterations = 2\nmeasurements = 1\n",
    )
    out = small_disk / "out"
    first = _run(repo, out)
    assert first.returncode == 75, first.stderr
    assert "error: the disk is full while running trial" in first.stderr
    assert (
        "fix: free space on the file system of" in first.stderr
        and "run the same command again" in first.stderr
    )
    assert "Traceback" not in first.stderr
    rows = _rows(out)
    assert (rows.status == "ok").all(), "a trial the full disk broke was logged"
    assert len(rows) < 24
    for filler in (out / "worktrees").glob("*/filler"):
        filler.unlink()
    second = _run(repo, out)
    assert second.returncode == 0, second.stderr
    assert "resuming" in second.stderr
    _check_complete(out)  # every trial once, all ok


# ---- injected ENOSPC -----------------------------------------------------------------------------


class Adapter:
    """Runs nothing: ``fail`` says how each benchmark's trial ends."""

    name = "fake"

    def __init__(self, fail: dict[str, BaseException]) -> None:
        self.fail = fail
        self.calls: list[str] = []

    def discover(self, *args: Any) -> list[BenchmarkSpec]:
        return []

    def run_trial(self, request: TrialRequest, run: Any) -> list[float]:
        self.calls.append(request.benchmark.name)
        problem = self.fail.get(request.benchmark.name)
        if problem is not None:
            raise problem
        return [1.0] * request.measurements


def _setup(tmp_path: Path) -> tuple[dict, dict, list, TrialLog]:
    ctx = {v: VersionContext(name=v, workdir=tmp_path, scratch=tmp_path) for v in ("base", "head")}
    specs = {v: {n: BenchmarkSpec(n) for n in ("a", "b")} for v in ctx}
    schedule = rmit_schedule(2, ["a", "b"], ["base", "head"], {n: LevelConfig(1, 2, 2) for n in "ab"}, "box")
    log = TrialLog(tmp_path / "trials.csv", fsync=False)
    log.recover(schedule)
    return ctx, specs, schedule, log


def _go(
    schedule: list, ctx: dict, specs: dict, log: TrialLog, adapter: Adapter, done: set[int] | None = None
) -> Any:
    return run_schedule(
        schedule, adapter=adapter, runner=None, versions=ctx, benchmarks=specs, adapter_options={},  # type: ignore[arg-type]
        timeout=10, log=log, finished=done or set(), progress=None,
    )  # fmt: skip


def test_enospc_inside_a_trial_stops_the_run_unlogged(tmp_path):
    """What the gate logged as ``error`` ("OSError: No space left on device; please report this as
    a bug"), and a resume then counted as done."""
    ctx, specs, schedule, log = _setup(tmp_path)
    first_b = next(t.trial for t in schedule if t.benchmark == "b")
    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "scratch" / "x.json"))
    with pytest.raises(DiskFullError) as exc:
        _go(schedule, ctx, specs, log, Adapter({"b": full}))
    assert exc.value.exit_code == 75
    assert (
        "the disk is full while running trial" in exc.value.message and "No space left" in exc.value.message
    )
    assert "run the same command again" in exc.value.fix
    done = TrialLog(log.path).recover(schedule)
    assert done == set(range(1, first_b))  # the trial it hit is not done
    resumed = _go(schedule, ctx, specs, log, Adapter({}), done)
    assert resumed.ran == len(schedule) - len(done) and resumed.failed == 0
    assert list(_rows(tmp_path).trial.drop_duplicates()) == [t.trial for t in schedule]


def test_a_trial_that_fails_on_a_nearly_full_disk_is_not_a_result(tmp_path, monkeypatch):
    """A framework that cannot write its output exits non-zero: with the disk (nearly) full, that
    failure is the disk's, not the benchmark's. With room left it is the benchmark's, logged."""
    ctx, specs, schedule, log = _setup(tmp_path)
    broken = {"a": TrialFailure(TrialStatus.ERROR, "pytest-benchmark exited with status 1: OSError")}
    real = os.statvfs

    def statvfs(path: Any) -> Any:
        st = real(path)
        fields = list(st)
        fields[3] = fields[4] = 3  # f_bfree, f_bavail: 3 blocks
        return os.statvfs_result(fields)

    monkeypatch.setattr(gate.engine.process.os, "statvfs", statvfs)
    with pytest.raises(DiskFullError) as exc:
        _go(schedule, ctx, specs, log, Adapter(broken))
    assert "left and the trial failed (pytest-benchmark exited with status 1" in exc.value.message
    assert not (_rows(tmp_path).status != "ok").any()
    monkeypatch.setattr(gate.engine.process.os, "statvfs", real)
    result = _go(schedule, ctx, specs, log, Adapter(broken), TrialLog(log.path).recover(schedule))
    assert result.failed > 0 and set(_rows(tmp_path).status) == {"ok", "error"}


def test_a_log_write_cut_by_enospc_stops_and_the_resume_repeats_nothing(tmp_path, monkeypatch):
    """The write of a trial's rows stops half-way: nothing stays queued in the gate to be written
    later, the torn tail is cut on resume and the trial runs again."""
    ctx, specs, schedule, log = _setup(tmp_path)
    real_write = os.write
    writes = {"n": 0}

    def write(fd: int, data: Any) -> int:
        if fd != log._fd:  # type: ignore[attr-defined]
            return real_write(fd, data)
        writes["n"] += 1
        if writes["n"] == 3:  # the third trial: half of its rows fit, then the disk is full
            return real_write(fd, bytes(data[: len(data) // 2]))
        if writes["n"] == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(gate.engine.process.os, "write", write)
    with pytest.raises(DiskFullError) as exc:
        _go(schedule, ctx, specs, log, Adapter({}))
    assert "the disk is full while writing the trial log" in exc.value.message
    monkeypatch.setattr(gate.engine.process.os, "write", real_write)
    assert not log.is_open
    done = TrialLog(log.path).recover(schedule)
    assert done == {1, 2}
    _go(schedule, ctx, specs, log, Adapter({}), done)
    rows = _rows(tmp_path)
    assert list(rows.trial.drop_duplicates()) == [t.trial for t in schedule]
    assert len(rows) == 2 * len(schedule)  # two measurements each, none twice


def test_meta_json_on_a_full_disk_is_a_clear_error_and_the_rerun_works(tmp_path, monkeypatch, capsys):
    repo = make_repo(tmp_path, config(s=1, i=1))
    out = tmp_path / "out"
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD",
            "--out", str(out), "--instance", "box", "--seed", "1"]  # fmt: skip
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # ENOSPC may surface only at fsync (delayed allocation)
        if os.readlink(f"/proc/self/fd/{fd}").endswith("meta.tmp"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert main(argv) == 75
    err = capsys.readouterr().err
    assert "error: the disk is full while writing meta.json" in err and "fix: free space" in err
    assert not (out / "meta.json").exists() and not (out / "meta.tmp").exists()
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert main(argv) == 0
    _check_complete(out)
