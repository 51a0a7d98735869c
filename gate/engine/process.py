"""Starts and controls the processes of builds, trials and resets.

:class:`SubprocessRunner` is the concrete :class:`~gate.adapters.base.ProcessRunner`: every process
starts in its own process group so a timeout (or Ctrl-C) kills its whole process group, its
environment is scrubbed of secrets (:func:`scrub_env`), stdin is /dev/null and output is captured
(bounded); the group running is recorded for :func:`gate.engine.leftover.reap_leftover`. A full disk is not a
failure of the benchmark (:func:`is_disk_full`, :func:`disk_full_error`).
"""

from __future__ import annotations

import _signal
import os
import re
import select
import signal
import socket
import struct
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from gate.adapters.base import (
    ProcessResult,
)
from gate.engine.leftover import boot_ticks, kill_group, write_record

if TYPE_CHECKING:
    from gate.engine.sandbox import Sandbox

# ---- environment scrubbing ---------------------------------------------------------------------
# Benchmark code is untrusted (a pull request's head): it must not see the workflow's secrets.
# On a pull request's run only an allowlist passes (ALLOWED_NAMES below). Elsewhere (a local
# run, the nightly) dropped are: a value holding a URL with a password, the names below, and every variable whose upper-cased name contains TOKEN (not
# TOKENIZER...), SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, APIKEY/API_KEY, WEBHOOK, COOKIE,
# PRIVATE_KEY, KUBECONFIG or CONNECTION_STRING, ends in _KEY, _PW, _PWD, _DSN, _URI, _PEM or _B64,
# is SSHPASS, is a service URL
# (DATABASE_URL, REDIS_URL, ... which carry passwords), or has PASS, PAT, AUTH or CRED(S) as a whole
# word (DB_PASS, GH_PAT, NPM_AUTH, SSH_AUTH_SOCK: the SSH agent's keys). A heuristic; names listed
# in [suite] pass_env go through anyway. Everything else (PATH, HOME, GOPATH, GOPRIVATE, JAVA_HOME,
# ...) is passed through.
SECRET_NAMES: frozenset[str] = frozenset(
    {"GITHUB_TOKEN", "INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}
)
# The runner's file commands: code that can write there sets the environment (BASH_ENV,
# LD_PRELOAD) or PATH of the job's later steps, which hold the tokens. Never passed, not even
# through pass_env. (The files stay findable under RUNNER_TEMP: the fork guard is the real line.)
WORKFLOW_FILE_COMMANDS: frozenset[str] = frozenset(
    {"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"}
)
SECRET_PATTERN = re.compile(
    r"TOKEN(?!IZER)|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|WEBHOOK|COOKIE|PRIVATE_?KEY"
    r"|KUBE_?CONFIG|CONNECTION_?STRING|_KEY$|_PWD?$|_DSN$|_URI$|_PEM$|_B64$|^SSHPASS$"
    r"|(?:^|_)(?:DATABASE|DB|REDIS|MONGO(?:DB)?|AMQP|RABBITMQ|POSTGRES(?:QL)?|PG|MYSQL|MARIADB)_?URL$"
    r"|(?:^|_)(?:PASS|PAT|AUTH|CREDS?)(?:_|$)"
)


def is_secret(name: str) -> bool:
    upper = name.upper()
    return (
        upper in SECRET_NAMES or upper in WORKFLOW_FILE_COMMANDS or SECRET_PATTERN.search(upper) is not None
    )


# A value that carries a password whatever its name: a URL with userinfo (scheme://user:pw@host).
_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@\s]*:[^/@\s]*@")


def _secret_value(value: str) -> bool:
    return _USERINFO.search(value) is not None


# On a pull request's run (:func:`runs_pull_request_code`) the base environment of builds and
# benchmarks is built from this allowlist (plus ``[suite] pass_env``), not by the name heuristic
# above: what a toolchain needs to find itself and build, nothing a workflow may have added.
ALLOWED_NAMES: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "PWD",
        "CI", "GITHUB_ACTIONS", "RUNNER_OS", "RUNNER_ARCH",
        "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB",
        "GOPRIVATE", "GOAMD64", "GOMAXPROCS", "GOGC", "CGO_ENABLED",
        "JAVA_HOME", "JAVA_TOOL_OPTIONS", "MAVEN_OPTS", "M2_HOME", "MAVEN_HOME", "GRADLE_USER_HOME",
        "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR", "RUSTFLAGS",
        "CARGO_BUILD_JOBS", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH",
        "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "MAKEFLAGS",
        "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PIP_CACHE_DIR",
        "NODE_PATH", "NPM_CONFIG_CACHE", "NODE_ENV",
    }
)  # fmt: skip
ALLOWED_PREFIXES = ("LC_",)

# Events only people with write access start (as gate/github/fork_guard.py's TRUSTED_EVENTS):
# any other event on GitHub Actions may run a pull request's code.
TRUSTED_EVENTS = ("push", "schedule", "workflow_dispatch", "merge_group")


def runs_pull_request_code(env: Mapping[str, str] = os.environ) -> bool:
    """On GitHub Actions, for every event but the trusted ones: the code measured may be a pull
    request's, the job's environment the workflow's."""
    return env.get("GITHUB_ACTIONS") == "true" and env.get("GITHUB_EVENT_NAME", "") not in TRUSTED_EVENTS


def scrub_env(
    env: Mapping[str, str], pass_env: Iterable[str] = (), *, allowlist: bool = False
) -> dict[str, str]:
    """``env`` without secrets; ``pass_env`` names are kept unless they are GitHub's tokens or the
    workflow file commands. ``allowlist``: keep only :data:`ALLOWED_NAMES` (and ``LC_*``), without
    a URL with a password, and ``pass_env``; else every name :func:`is_secret` does not flag and
    whose value holds no URL with a password."""
    allowed = {n for n in pass_env if n.upper() not in SECRET_NAMES | WORKFLOW_FILE_COMMANDS}
    if allowlist:
        return {
            k: v
            for k, v in env.items()
            if k in allowed
            or ((k in ALLOWED_NAMES or k.startswith(ALLOWED_PREFIXES)) and not _secret_value(v))
        }
    return {k: v for k, v in env.items() if k in allowed or not (is_secret(k) or _secret_value(v))}


_STOP_SIGNALS = (int(signal.SIGINT), int(signal.SIGTERM))


class _SpawnSignals:
    """SIGINT/SIGTERM during one :class:`SubprocessRunner` call, so that a stop signal at any
    moment kills the spawned group (main thread only: Python runs signal handlers there).

    * Held while the child's pid is unknown. The child runs (and may write files, start its own
      children) before ``Popen`` returns; a KeyboardInterrupt raised inside ``Popen`` (after the
      fork, before the pid is stored, or while it reads the exec-status pipe) would leave a child
      nobody knows, let alone kills. The handlers in place (Ctrl-C's, the CLI's SIGTERM, the
      driver's :class:`StopFlag`) are swapped for one that notes the signal, and
      :meth:`release` calls them once ``proc`` is known. Held in Python, not with
      ``pthread_sigmask``: a blocked mask is inherited through exec, so every benchmark would
      run with SIGINT and SIGTERM blocked.
    * A wakeup fd (``signal.set_wakeup_fd``) to poll beside the child's pipes. A signal that
      lands after the interpreter's last check and before ``poll()`` blocks runs only its C
      handler; without the wakeup fd the Python handler would wait until ``poll`` returns, for a
      build up to its end (the run sat out a 60 s ``sleep`` that way).
    """

    __slots__ = ("_wakeup", "holding", "pending", "saved", "wakeup")

    def __init__(self, wakeup: tuple[int, int]) -> None:
        self.holding = False
        self.pending: list[int] = []
        self.saved: dict[int, Callable[[int, FrameType | None], Any]] = {}
        self._wakeup = wakeup
        self.wakeup = -1  # read end of the wakeup pipe once installed, for poll

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending.append(signum)
        else:  # released, not yet restored: the handler that was in place, as if it still were
            self.saved[signum](signum, frame)

    def hold(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self.holding = True
        # _signal: signal.signal/getsignal wrap these and turn the handlers into an enum (which a
        # callable is not: a caught ValueError), ~3 µs a call, 10x the call itself
        for s in _STOP_SIGNALS:
            handler = _signal.getsignal(s)
            if callable(handler):  # SIG_DFL / SIG_IGN stay: the process dies / ignores it anyway
                self.saved[s] = handler
                _signal.signal(s, self._handle)
        # (from here on no stop signal raises until release)
        previous = signal.set_wakeup_fd(self._wakeup[1], warn_on_full_buffer=False)
        if previous in (-1, self._wakeup[1]):
            self.wakeup = self._wakeup[0]
        else:  # someone else's (an event loop's): put it back and poll without ours
            signal.set_wakeup_fd(previous)

    def release(self) -> None:
        """Deliver the signals held so far (may raise KeyboardInterrupt) and stop holding."""
        self.holding = False
        while self.pending:
            signum = self.pending.pop(0)
            self.saved[signum](signum, None)

    def restore(self) -> None:
        """Release, then put the handlers back (a signal arriving meanwhile meets ``_handle``,
        which passes it on: the same behaviour)."""
        try:
            self.release()
        finally:
            for s, handler in self.saved.items():
                _signal.signal(s, handler)
            if self.wakeup >= 0:
                signal.set_wakeup_fd(-1)


class SubprocessRunner:
    """The real :class:`ProcessRunner`. ``env`` passed by an adapter is added on top of the
    scrubbed environment of the gate itself (adapters pass e.g. PYTHONDONTWRITEBYTECODE).

    With ``pid_file``, the process group of the running trial and when it was spawned are recorded
    there, so a run resumed after the gate was SIGKILLed can reap it (:func:`gate.engine.leftover.reap_leftover`): a
    provisional record before the fork (the child runs before its pid is known), the group once
    ``Popen`` returns, blanks once it is gone (three ``pwrite`` per spawn).

    SIGINT/SIGTERM (Ctrl-C, a cancelled job) at any moment of a call kill the spawned group before
    their KeyboardInterrupt leaves the call (:class:`_SpawnSignals`)."""

    def __init__(
        self,
        base_env: Mapping[str, str] | None = None,
        pid_file: Path | None = None,
        pass_env: Iterable[str] = (),
        sandbox: Sandbox | None = None,
        allowlist: bool = False,
    ) -> None:
        self.sandbox = sandbox
        source = os.environ if base_env is None else base_env
        self.pass_env = tuple(pass_env)
        self.base_env = scrub_env(source, self.pass_env, allowlist=allowlist)
        self._pid_fd = os.open(pid_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644) if pid_file else None
        # Fast path: nothing to scrub in the gate's own environment -> env=None lets the child
        # inherit it without re-encoding every variable per spawn (~80 µs).
        self._inherit = base_env is None and len(self.base_env) == len(os.environ)
        self._devnull: int | None = None
        self._wakeup = (-1, -1)

    def __call__(
        self,
        argv: Sequence[str] | str,
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ProcessResult:
        args: Sequence[str] = ["/bin/sh", "-c", argv] if isinstance(argv, str) else list(argv)
        full_env: Mapping[str, str] | None
        if env:
            full_env = {**self.base_env, **scrub_env(env, self.pass_env)}
        else:
            # (a variable added to os.environ since, possibly a secret, ends the fast path)
            full_env = None if self._inherit and len(os.environ) == len(self.base_env) else self.base_env
        if self._devnull is None:  # opened once, not per spawn; dup2'ed to the child's stdin
            self._devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            self._wakeup = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signals = _SpawnSignals(self._wakeup)
        proc: subprocess.Popen[bytes] | None = None
        failed: OSError | None = None
        fds: list[int] = []  # pipe ends still open here, closed on the way out
        marks: _Marks | None = None
        filter_fd: int | None = None  # the sandbox's seccomp filter, read by bwrap
        try:
            signals.hold()
            try:
                out_r, out_w = os.pipe()
                fds += (out_r, out_w)
                err_r, err_w = os.pipe()
                fds += (err_r, err_w)
                if self.sandbox is not None:
                    marks = _Marks()
                    filter_fd = self.sandbox.filter_fd()
                    if filter_fd is not None:
                        fds.append(filter_fd)
                    args = self.sandbox.wrap(args, cwd, filter_fd)
            except OSError as exc:  # out of descriptors (as Popen's own pipes would have been)
                return _cannot_start(args, exc)
            start = time.perf_counter()
            spawned_after = 0.0
            if self._pid_fd is not None:
                spawned_after = boot_ticks()
                # Whatever holds these pipes is this child (or its descendants): a resume can
                # find it even if the gate dies before Popen returns.
                pipes = f"pipe:[{os.fstat(out_w).st_ino}] pipe:[{os.fstat(err_w).st_ino}]"
                record = f"spawning {int(spawned_after) - 1} {pipes}"
                write_record(self._pid_fd, record)
            try:
                proc = subprocess.Popen(
                    args,
                    cwd=cwd,
                    env=full_env,
                    stdin=self._devnull if marks is None else marks.peer.fileno(),
                    stdout=out_w,
                    stderr=err_w,
                    # Own process group: a timeout kills the whole tree, and the terminal's Ctrl-C
                    # (sent to the foreground group) reaches the gate only, which then finishes the
                    # trial. process_group=0 (setpgid) rather than start_new_session (setsid): the
                    # latter costs ~3 ms per spawn here (no vfork), more than a trivial benchmark.
                    process_group=0,
                    pass_fds=() if filter_fd is None else (filter_fd,),
                )
            except OSError as exc:  # missing executable, bad cwd
                failed = exc
            for fd in (out_w, err_w):  # the child's now: EOF once it and its descendants close them
                os.close(fd)
                fds.remove(fd)
            if marks is not None:
                marks.peer.close()
            if filter_fd is not None:
                os.close(filter_fd)
                fds.remove(filter_fd)
            if proc is None:
                assert failed is not None
                return _cannot_start(args, failed)
            if self._pid_fd is not None:
                # the leader's /proc starttime lies in [spawned_after, now] (ticks, truncated: -1 / +1)
                record = f"{proc.pid} {int(spawned_after) - 1} {int(boot_ticks()) + 1}"
                write_record(self._pid_fd, record)
            signals.release()  # a stop signal held during the spawn raises here, where proc is known
            out, err, timed_out = _collect(
                proc, out_r, err_r, time.monotonic() + timeout, signals.wakeup, marks, progress
            )
            if timed_out:
                kill_group(proc.pid)
                # whatever it printed before the kill; a grandchild that left the group and still
                # holds the pipes gets 5 s, then the pipes are abandoned
                more_out, more_err, stuck = _collect(proc, out_r, err_r, time.monotonic() + 5, signals.wakeup)
                out, err = out + more_out, err + more_err
                if stuck:
                    proc.kill()
                proc.wait()
            # In the sandbox, from the command's start to its end as its shell saw them: bwrap's
            # set-up and the namespace's teardown are not the command's time (gate/engine/sandbox.py).
            elapsed = marks.elapsed() if marks is not None and marks.stamps else time.perf_counter() - start
            kill_group(proc.pid)  # reap daemons the benchmark left behind; they would disturb later trials
        except BaseException:  # Ctrl-C (at any moment: see _SpawnSignals): never leave it running
            if proc is not None:
                kill_group(proc.pid)
                proc.wait()
            raise
        finally:
            for fd in fds:
                os.close(fd)
            if marks is not None:
                marks.close()
            if self._pid_fd is not None:  # nothing left to reap: a resume must not warn
                write_record(self._pid_fd, "")
            signals.restore()
        return ProcessResult(
            returncode=proc.returncode if proc.returncode is not None else -9,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            elapsed_s=elapsed,
            timed_out=timed_out,
        )


# SO_TIMESTAMPNS (= SCM_TIMESTAMPNS) is 35 in asm-generic/socket.h, which these architectures use;
# Python's socket module does not name it. Elsewhere the marks are stamped when read.
_SO_TIMESTAMPNS: int | None = getattr(socket, "SO_TIMESTAMPNS", None) or (
    35 if os.uname().machine in ("x86_64", "aarch64", "arm64", "riscv64", "ppc64le", "s390x") else None
)


class _Marks:
    """The sandbox's timing marks (gate/engine/sandbox.py): one datagram its shell sends right before it
    starts the command, one right after the command exited. The kernel stamps each when it is
    sent (``SO_TIMESTAMPNS``, socket(7); AF_UNIX stamps in ``unix_dgram_sendmsg``), so the wall
    time is the command's, not also the delay until the gate got the CPU to read them. Where the
    option is refused the marks are stamped when read. A socket, not a pipe: a descendant cannot
    reopen it through ``/proc/<pid>/fd`` (open(2) gives ENXIO) to send a mark of its own."""

    __slots__ = ("peer", "sock", "stamped", "stamps")

    def __init__(self) -> None:
        self.sock, self.peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.stamped = False
        if _SO_TIMESTAMPNS is not None:
            with suppress(OSError):
                self.sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
                self.stamped = True
        self.stamps: list[int] = []  # ns: CLOCK_REALTIME from the kernel, else perf_counter_ns

    def now(self) -> int:
        return time.time_ns() if self.stamped else time.perf_counter_ns()

    def read(self) -> bool:
        """Take the next mark; False once both are in or the sandbox closed its end."""
        data, ancillary, _, _ = self.sock.recvmsg(16, socket.CMSG_SPACE(16))
        if not data:
            return False
        stamp = self.now()
        for level, kind, value in ancillary:
            if self.stamped and level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(value) >= 16:
                sec, nsec = struct.unpack("qq", value[:16])
                stamp = sec * 1_000_000_000 + nsec
        self.stamps.append(stamp)
        return len(self.stamps) < 2

    def elapsed(self) -> float:
        """Seconds from the first mark to the second (or to now, when there is none)."""
        end = self.stamps[1] if len(self.stamps) > 1 else self.now()
        return (end - self.stamps[0]) / 1e9

    def close(self) -> None:
        self.sock.close()
        self.peer.close()


def _cannot_start(args: Sequence[str], exc: OSError) -> ProcessResult:
    return ProcessResult(127, "", f"cannot start {args[0]!r}: {exc.strerror or exc}", 0.0)


OUTPUT_HEAD = 1 << 20  # bytes kept from the start of each stream
OUTPUT_LIMIT = 32 << 20  # bytes kept in all per stream: the head and the latest output


class _Capture:
    """One stream's output, bounded: a benchmark that prints without end (``yes``) must not grow
    the gate until the OOM killer ends the run. Past ``OUTPUT_LIMIT`` the middle is dropped and
    replaced by a line that says how much; parsers read values from the end (the last number, the
    result lines) and messages from the start."""

    __slots__ = ("dropped", "head", "tail", "tail_size")

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.dropped = 0

    def add(self, data: bytes) -> None:
        if len(self.head) < OUTPUT_HEAD:
            room = OUTPUT_HEAD - len(self.head)
            self.head += data[:room]
            data = data[room:]
            if not data:
                return
        self.tail.append(data)
        self.tail_size += len(data)
        excess = self.tail_size - (OUTPUT_LIMIT - OUTPUT_HEAD)
        while excess > 0:
            first = self.tail[0]
            cut = min(len(first), excess)
            if cut == len(first):
                self.tail.popleft()
            else:
                self.tail[0] = first[cut:]
            self.tail_size -= cut
            self.dropped += cut
            excess -= cut

    def value(self) -> bytes:
        gap = (
            f"\n[ordertrap-gate: {self.dropped} bytes of output dropped here]\n".encode()
            if self.dropped
            else b""
        )
        return bytes(self.head) + gap + b"".join(self.tail)


def _collect(
    proc: subprocess.Popen[bytes],
    out_fd: int,
    err_fd: int,
    deadline: float,
    wakeup: int = -1,
    marks: _Marks | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[bytes, bytes, bool]:
    """Read the child's stdout and stderr (``out_fd``, ``err_fd``) to EOF and reap the process,
    or give up at ``deadline``.

    ``Popen.communicate(timeout=...)`` ends with ``wait(timeout)``, a sleep-and-retry loop that
    costs ~0.2 ms per trivial trial; polling the pipes and then a pidfd waits exactly as long as
    needed. ``wakeup`` (see :class:`_SpawnSignals`) is polled too: a signal wakes the wait, its
    handler runs (and raises to abort) as soon as ``poll`` returns. ``marks``, the sandbox's
    timing socket, is read as its datagrams arrive. ``progress`` gets each piece of output as it is read
    (for display only: a character split between two reads shows as a replacement character).
    Returns (stdout, stderr, timed_out).
    """
    stdout, stderr = _Capture(), _Capture()
    captures = {out_fd: stdout, err_fd: stderr}
    poller = select.poll()
    for fd in captures:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    if wakeup >= 0:
        poller.register(wakeup, select.POLLIN)
    marks_fd = -1
    if marks is not None:
        marks_fd = marks.sock.fileno()
        poller.register(marks_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    open_fds = len(captures)
    while open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return stdout.value(), stderr.value(), True
        for fd, _ in poller.poll(remaining * 1000):
            if fd == wakeup:
                _drain(wakeup)
                continue
            if fd == marks_fd:
                assert marks is not None
                if not marks.read():  # both marks are in, or the sandbox is gone
                    poller.unregister(fd)
                continue
            data = os.read(fd, 65536)
            if data:
                captures[fd].add(data)
                if progress is not None:
                    progress(data.decode("utf-8", "replace"))
            else:
                poller.unregister(fd)
                open_fds -= 1
    out, err = stdout.value(), stderr.value()
    if proc.poll() is None:  # closed its output but still running: wait on a pidfd, no sleep loop
        try:
            pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # pre-5.3 kernel
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                return out, err, True
        else:
            try:
                waiter = select.poll()
                waiter.register(pidfd, select.POLLIN)
                if wakeup >= 0:
                    waiter.register(wakeup, select.POLLIN)
                while True:
                    ready = waiter.poll(max(0.0, deadline - time.monotonic()) * 1000)
                    if not ready or any(fd == pidfd for fd, _ in ready):
                        break
                    _drain(wakeup)  # a signal whose handler did not abort (StopFlag's first)
            finally:
                os.close(pidfd)
            if proc.poll() is None:
                return out, err, True
    return out, err, False


def _drain(fd: int) -> None:
    """Empty the wakeup pipe (the bytes are signal numbers; the handlers have run or run now)."""
    with suppress(BlockingIOError):
        os.read(fd, 4096)


# ---- a full disk --------------------------------------------------------------------------------
# ENOSPC ("No space left on device") and EDQUOT ("Disk quota exceeded"), write(2).
# A trial that failed while a disk the run writes to had less than this left is not a result:
# the benchmark may have failed for want of space (a framework's JSON output, a temp file).
LOW_SPACE_BYTES = 1 << 20


def low_space(paths: Iterable[Path | str]) -> tuple[str, int] | None:
    """(path, bytes free) of the first of ``paths`` whose file system has less than
    :data:`LOW_SPACE_BYTES` free for this user, or no free inode; None if all have room."""
    root = os.geteuid() == 0
    for path in paths:
        try:
            st = os.statvfs(path)
        except OSError:
            continue
        free = (st.f_bfree if root else st.f_bavail) * st.f_frsize
        inodes = st.f_ffree if root else st.f_favail
        if free < LOW_SPACE_BYTES or (st.f_files > 0 and inodes == 0):
            return str(path), free
    return None
