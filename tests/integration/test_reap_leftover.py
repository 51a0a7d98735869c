"""A gate killed with SIGKILL cannot stop its running trial; the resumed run reaps it, and only
processes that are provably its own: the group leader started in the recorded spawn window, or
(for a record written by an older gate, without the window) a member works inside the run's --out."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import suppress
from pathlib import Path

from gate.engine.leftover import boot_ticks, reap_leftover
from gate.engine.process import SubprocessRunner


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
    # The child runs before Popen returns: it may still see the provisional record of the spawn
    # (its start and the child's pipes), then the group once the gate knows it.
    wait_for_own_group = f'until grep -q "^$$ " {record}; do sleep 0.01; done'
    result = runner(
        f"cat {record}; echo; {wait_for_own_group}; cat {record}; echo; echo $$", cwd=tmp_path, timeout=10
    )
    first, final, own = result.stdout.splitlines()
    assert first.split()[0] in ("spawning", own)
    recorded, spawned_after, spawned_before = final.split()
    assert recorded == own  # the shell is the group leader; its pid is the group id
    with open(f"/proc/{os.getpid()}/stat") as f:  # any start time is in the same clock as the window
        assert int(spawned_after) <= int(spawned_before)
        assert int(f.read().rsplit(")", 1)[1].split()[19]) < int(spawned_after)
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


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def test_a_reset_left_running_outside_the_run_is_killed(tmp_path: Path) -> None:
    """``[suite].reset`` runs in the repository, outside --out: only the spawn window identifies it.
    A gate-like process runs it through the real runner and is SIGKILLed mid-reset."""
    out, repo = tmp_path / "out", tmp_path / "repo"
    out.mkdir()
    repo.mkdir()
    gate = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                from pathlib import Path
                from gate.engine.process import SubprocessRunner
                runner = SubprocessRunner(pid_file=Path({str(out / ".running")!r}))
                runner("echo $$ > {tmp_path / "reset.pid"}; exec sleep 60", cwd=Path({str(repo)!r}), timeout=120)
                """
            ),
        ]
    )
    pid_path = tmp_path / "reset.pid"
    try:
        deadline = time.monotonic() + 20
        while not (pid_path.exists() and pid_path.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        reset_pid = int(pid_path.read_text())
        gate.send_signal(signal.SIGKILL)
        gate.wait()
        assert _alive(reset_pid)  # SIGKILL of the gate leaves the reset running
        assert reap_leftover(out / ".running", out) == 1
        assert _wait_gone(reset_pid)
    finally:
        gate.kill()
        gate.wait()
        if pid_path.exists() and pid_path.read_text().strip():
            with suppress(ProcessLookupError):
                os.kill(int(pid_path.read_text()), signal.SIGKILL)


def test_a_reused_pid_outside_the_spawn_window_is_not_killed(tmp_path: Path) -> None:
    """The record names a live group whose leader started before the recorded window (what a pid
    reused after the gate died looks like): it is left alone, wherever it works."""
    out = tmp_path / "out"
    out.mkdir()
    stranger = subprocess.Popen(["sleep", "60"], cwd=out, process_group=0)
    try:
        with open(f"/proc/{stranger.pid}/stat") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19])
        (out / ".running").write_text(f"{stranger.pid} {started + 5} {started + 9}")
        assert reap_leftover(out / ".running", out) == 0
        assert _alive(stranger.pid)
        (out / ".running").write_text(f"{stranger.pid} {started - 1} {started + 1}")
        assert reap_leftover(out / ".running", out) == 1
        assert _wait_gone(stranger.pid)
    finally:
        stranger.kill()
        stranger.wait()


def test_a_gate_killed_before_popen_returns_leaves_a_child_the_resume_finds(tmp_path: Path) -> None:
    """The child runs before ``Popen`` returns its pid: a gate SIGKILLed in between had recorded
    only the spawn (its start and the child's pipes), and that is enough to find the child."""
    out, repo = tmp_path / "out", tmp_path / "repo"
    out.mkdir()
    repo.mkdir()
    child_pid = tmp_path / "child.pid"
    gate = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import os, signal, subprocess
                from pathlib import Path
                from gate.engine.process import SubprocessRunner
                real = subprocess._fork_exec
                def fork_exec(*args):
                    pid = real(*args)  # the child runs `sleep` already
                    Path({str(child_pid)!r}).write_text(str(pid))
                    os.kill(os.getpid(), signal.SIGKILL)  # before Popen returns
                subprocess._fork_exec = fork_exec
                runner = SubprocessRunner(pid_file=Path({str(out / ".running")!r}))
                runner(["sleep", "60"], cwd=Path({str(repo)!r}), timeout=120)
                """
            ),
        ]
    )
    gate.wait()
    assert gate.returncode == -signal.SIGKILL
    pid = int(child_pid.read_text())
    try:
        assert _alive(pid)
        assert (out / ".running").read_text().split()[0] == "spawning"
        assert reap_leftover(out / ".running", out) == 1
        assert _wait_gone(pid)
        assert (out / ".running").read_text() == ""
    finally:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_spawning_record_kills_only_the_group_that_holds_its_pipes(tmp_path: Path) -> None:
    """Holding the pipes is what makes a process the spawned child; its group must be young (made
    by the spawn): an older group a holder joined, and processes without the pipes, stay."""
    out = tmp_path / "out"
    out.mkdir()
    elder = subprocess.Popen(["sleep", "60"], cwd=tmp_path, process_group=0)  # an older group
    time.sleep(0.05)  # > 1 clock tick: the spawn window opens after elder started
    since = int(boot_ticks()) - 1
    ours_r, ours_w = os.pipe()
    joined_r, joined_w = os.pipe()
    procs = [elder]
    try:
        ours = subprocess.Popen(["sleep", "60"], stdout=ours_w, cwd=tmp_path, process_group=0)
        procs.append(ours)
        joined = subprocess.Popen(["sleep", "60"], stdout=joined_w, cwd=tmp_path, process_group=elder.pid)
        procs.append(joined)
        stranger = subprocess.Popen(["sleep", "60"], cwd=tmp_path, process_group=0)  # young, no pipe
        procs.append(stranger)
        pipes = " ".join(f"pipe:[{os.fstat(fd).st_ino}]" for fd in (ours_w, joined_w))
        (out / ".running").write_text(f"spawning {since} {pipes}")
        assert reap_leftover(out / ".running", out) == 1
        assert _wait_gone(ours.pid)
        assert _alive(elder.pid) and _alive(stranger.pid)
        assert joined.poll() is None  # (not a group leader: _alive asks about groups)
        assert (out / ".running").read_text() == ""
    finally:
        for fd in (ours_r, ours_w, joined_r, joined_w):
            os.close(fd)
        for p in procs:
            p.kill()
            p.wait()
