"""SIGINT/SIGTERM at any moment of a SubprocessRunner call: the spawned group is killed before
the KeyboardInterrupt leaves the call, and a stop request is never lost.

Two races made `run` fail under load: a KeyboardInterrupt raised inside ``Popen`` (the child
already runs, its pid not yet stored) orphaned the build, and a signal whose C handler ran just
before ``poll()`` blocked left the gate waiting for the build to end. The first is injected here
at every bytecode of the call (a Python handler runs between bytecodes); the second by letting
another thread take the signal while the main thread waits in ``poll``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import gate.engine.process
from gate.engine.driver import StopFlag
from gate.engine.process import SubprocessRunner

TRACED = {subprocess.__file__, gate.engine.process.__file__}


def _raise_keyboard_interrupt(signum: int, frame: FrameType | None) -> None:  # the CLI's SIGTERM
    raise KeyboardInterrupt


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Pids of every child Popen forks (also one whose Popen never returned)."""
    pids: list[int] = []
    real = subprocess._fork_exec  # type: ignore[attr-defined]

    def fork_exec(*args: Any) -> int:
        pid = real(*args)
        pids.append(pid)
        return pid

    monkeypatch.setattr(subprocess, "_fork_exec", fork_exec)
    return pids


@pytest.fixture
def handler(request: pytest.FixtureRequest) -> Iterator[signal.Signals]:
    sig = request.param
    previous = signal.signal(
        sig, signal.default_int_handler if sig == signal.SIGINT else _raise_keyboard_interrupt
    )
    try:
        yield sig
    finally:
        signal.signal(sig, previous)


class _Injector:
    """A trace function that sends ``sig`` to this process at the ``at``-th bytecode executed in
    the runner or in ``subprocess`` (its handler runs right there, as it would for a signal
    arriving then), or, when ``stop_in_collect``, at the latest when the call starts waiting for
    the child (the child never exits by itself)."""

    def __init__(self, sig: int, at: int, stop_in_collect: bool) -> None:
        self.sig, self.at, self.stop_in_collect = sig, at, stop_in_collect
        self.count = 0
        self.sent = False
        self.past_the_end = False

    def _local(self, frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if event == "opcode" and not self.sent:
            self.count += 1
            last = self.stop_in_collect and frame.f_code is gate.engine.process._collect.__code__
            if self.count == self.at or last:
                self.sent = True
                self.past_the_end = self.count != self.at
                signal.raise_signal(self.sig)
        return self._local

    def __call__(self, frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if frame.f_code.co_filename in TRACED:
            frame.f_trace_opcodes = True
            return self._local
        return None


def _gone(pid: int) -> bool:
    """Killed and reaped: not running, and no zombie either (the runner waited for it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    os.kill(pid, signal.SIGKILL)  # clean up after a failure
    os.waitpid(pid, 0)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("handler", [signal.SIGINT, signal.SIGTERM], indirect=True)
def test_a_stop_signal_at_any_bytecode_of_a_spawn_kills_the_child(
    tmp_path: Path, forked: list[int], handler: signal.Signals
) -> None:
    runner = SubprocessRunner(pid_file=tmp_path / ".running")
    at = 0
    while True:
        at += 1
        forked.clear()
        inject = _Injector(handler, at, stop_in_collect=True)
        sys.settrace(inject)
        try:
            runner(["sleep", "60"], cwd=tmp_path, timeout=120)
        except KeyboardInterrupt:
            pass
        else:
            pytest.fail(f"signal at bytecode {at}: the call ran to its end")
        finally:
            sys.settrace(None)
        assert inject.sent
        assert all(_gone(pid) for pid in forked), f"signal at bytecode {at}: the child survived"
        assert (tmp_path / ".running").read_text().strip() == ""
        assert signal.getsignal(handler) in (signal.default_int_handler, _raise_keyboard_interrupt)
        if inject.past_the_end:
            break
    assert at > 100  # the whole spawn was covered, up to the wait for the child


@pytest.mark.slow
def test_a_first_ctrl_c_at_any_bytecode_of_a_trial_is_kept_and_the_trial_completes(tmp_path: Path) -> None:
    """Held during the spawn, then delivered: StopFlag's "stop after the current trial"."""
    runner = SubprocessRunner()
    at = 0
    while True:
        at += 1
        stop = StopFlag()
        with open(os.devnull, "w") as stop.stream, stop.installed():
            inject = _Injector(signal.SIGINT, at, stop_in_collect=False)
            sys.settrace(inject)
            try:
                result = runner(["true"], cwd=tmp_path, timeout=60)
            finally:
                sys.settrace(None)
        if not inject.sent:
            break  # past the end of the call
        assert result.returncode == 0, f"signal at bytecode {at}"
        assert stop.requested, f"signal at bytecode {at} was lost"
    assert at > 100


@pytest.mark.parametrize("handler", [signal.SIGINT], indirect=True)  # also when pytest ignores SIGINT
def test_a_signal_taken_while_the_wait_is_not_interrupted_still_kills_the_child(
    tmp_path: Path, handler: signal.Signals
) -> None:
    """The C handler runs, but the main thread's poll() goes on (here: another thread took the
    signal; in the gate: it landed just before poll() blocked). Without the wakeup fd the call
    waited for the child to exit by itself."""
    started, finished = tmp_path / "started", tmp_path / "finished"
    command = f"echo $$ > {started}; sleep 30; touch {finished}"
    runner = SubprocessRunner()
    sender = threading.Thread(target=_send_sigint_once_started, args=(started,))
    sender.start()  # first: a new thread inherits the mask
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the main thread's only
    try:
        with pytest.raises(KeyboardInterrupt):
            runner(command, cwd=tmp_path, timeout=120)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        sender.join()
    assert not finished.exists()
    assert _gone(int(started.read_text()))


def _send_sigint_once_started(started: Path) -> None:
    for _ in range(3000):  # (the child writes it at once; give up after ~30 s rather than hang)
        if started.exists() and started.read_text().strip():
            break
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)  # blocked in the main thread: this thread takes it
