"""A gate killed with SIGKILL cannot stop its running trial; the resumed run reaps it, and only
processes that are provably its own (working directory inside the run's --out)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from gate.driver import SubprocessRunner, reap_leftover


def _alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child stays a zombie until reaped by its parent (this test): not running
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_the_running_trial_is_recorded_and_cleared(tmp_path: Path) -> None:
    record = tmp_path / ".running"
    runner = SubprocessRunner(pid_file=record)
    result = runner(f"cat {record}; echo; echo $$", cwd=tmp_path, timeout=10)
    recorded, own = result.stdout.split()
    assert recorded == own  # the shell is the group leader; its pid is the group id
    assert record.read_text().strip() == ""


def test_a_leftover_group_inside_the_run_is_killed_and_a_stranger_is_not(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "worktrees" / "head").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    ours = subprocess.Popen(["sleep", "60"], cwd=out / "worktrees" / "head", process_group=0)
    stranger = subprocess.Popen(["sleep", "60"], cwd=outside, process_group=0)
    try:
        (out / ".running").write_text(f"{stranger.pid}\n")
        assert reap_leftover(out / ".running", out) == 0
        assert _alive(stranger.pid)
        (out / ".running").write_text(f"{ours.pid}\n")
        assert reap_leftover(out / ".running", out) == 1
        deadline = time.monotonic() + 5
        while _alive(ours.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(ours.pid)
        assert (out / ".running").read_text() == ""
    finally:
        for p in (ours, stranger):
            p.kill()
            p.wait()
