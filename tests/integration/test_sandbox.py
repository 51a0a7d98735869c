"""Builds and benchmarks are the pull request's code: in the sandbox (gate/engine/sandbox.py) they cannot
read a secret out of an ancestor's ``/proc/<pid>/environ`` nor write to what later jobs run.

The attack is a real benchmark run by the real ``ordertrap-gate run`` under a stand-in for the
runner (a copy of bash named ``Runner.Worker``, the step's shell), with the job's token in the
shell's environment and secret-looking names in the gate's own."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import time
import uuid
from contextlib import suppress
from pathlib import Path

import gate
from gate.engine import sandbox
from gate.engine.leftover import reap_leftover
from gate.engine.process import SubprocessRunner
from tests.conftest import REPO_ROOT, require_tool
from tests.integration.test_run_cli import make_repo

PY = sys.executable
TOKEN = "ordertrap-secret"

# Walks every /proc/<pid>/environ it can read and its own ancestors, reads the files it is given
# and tries to write to the paths it is given; reports what it managed in a JSON file.
PROBE = r"""
import json, os, sys, tempfile, uuid
from pathlib import Path

reports, token = Path(sys.argv[1]), sys.argv[2]
targets = json.loads(Path(sys.argv[3]).read_text())
found = set()
for entry in Path("/proc").iterdir():
    if entry.name.isdigit():
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        found |= {e.decode(errors="replace") for e in environ if token.encode() in e}
ancestors, pid = [], os.getpid()
while pid > 0:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ancestors.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
    except OSError:
        break
    pid = int(stat.rsplit(")", 1)[1].split()[1])
read = {}
for path in targets["read"]:
    try:
        read[path] = token in Path(path).read_text()
    except OSError:
        read[path] = False
written = {}
for path in [os.getcwd(), *targets["write"]]:
    try:
        if os.path.isdir(path):
            fd, name = tempfile.mkstemp(prefix=".ordertrap-write-probe-", dir=path)
            os.close(fd)
            os.unlink(name)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        written[path] = True
    except OSError:
        written[path] = False
(reports / f"{uuid.uuid4().hex}.json").write_text(json.dumps(
    {"cwd": os.getcwd(), "found": sorted(found), "ancestors": ancestors, "read": read, "written": written}
))
print(1)
"""


def _attack(
    tmp_path: Path, mode: str
) -> tuple[subprocess.CompletedProcess[str], list[dict], dict[str, Path]]:
    """Run the probe benchmark for base and head through `run` as the runner would, with
    ``[suite] sandbox = mode``; returns the gate's result, the probe's reports and the paths."""
    require_tool("git")
    require_tool("bash")
    secret = f"{TOKEN}-{uuid.uuid4().hex}"
    reports, out = tmp_path / "reports", tmp_path / "out"
    reports.mkdir()
    # what a self-hosted runner holds: its installation (credentials, the node that runs later
    # actions), its work root (checked-out actions), tool cache (the gate's cached venv), temp
    runner_root = tmp_path / "actions-runner"
    (runner_root / "bin").mkdir(parents=True)
    worker = runner_root / "bin" / "Runner.Worker"
    shutil.copy(shutil.which("bash") or "/bin/bash", worker)
    (runner_root / ".credentials").write_text(json.dumps({"scheme": "OAuth", "token": secret}))
    (runner_root / ".runner").write_text(json.dumps({"agentName": secret}))
    (runner_root / "_diag").mkdir()
    (runner_root / "_diag" / "Worker_1.log").write_text(f"job message: {secret}\n")
    private_reads = [
        runner_root / ".credentials",
        runner_root / ".runner",
        runner_root / "_diag" / "Worker_1.log",
    ]
    node = runner_root / "externals" / "node20" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\n")
    work = tmp_path / "work"
    action = work / "_actions" / "actions" / "upload-artifact" / "v4" / "dist" / "index.js"
    action.parent.mkdir(parents=True)
    action.write_text("// runs next, with ACTIONS_RUNTIME_TOKEN\n")
    tool_cache = work / "_tool"
    cached_venv = tool_cache / "ordertrap-gate" / "venv-0123456789abcdef" / "bin"
    cached_venv.mkdir(parents=True)
    runner_temp = work / "_temp"
    file_command = runner_temp / "_runner_file_commands" / "set_env_1"
    file_command.parent.mkdir(parents=True)
    file_command.write_text("")
    other_place = tmp_path / "scratchpad"  # in /tmp: each version has a private /tmp instead
    other_place.mkdir()

    # the probe, its targets and its reports: in a directory bound writable ([suite] caches)
    (reports / "probe.py").write_text(PROBE)
    repo = make_repo(
        tmp_path,
        f'[suite]\nadapter = "command"\ntimeout = 60\nsandbox = "{mode}"\ncaches = ["{reports}"]\n'
        f'[[benchmark]]\nname = "probe"\n'
        f'command = "{PY} {reports}/probe.py {reports} {TOKEN} {reports}/targets.json"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n",
    )
    paths = {
        "venv": Path(sys.prefix),
        "package": Path(gate.__file__).resolve().parent,
        "cached venv": cached_venv,
        "file command": file_command,
        "runner node": node,
        "action": action,
        "trial log": out / "trials.csv",
        "git hooks": repo / ".git" / "hooks",
        "base worktree": out / "worktrees" / "base-HEAD_1",
        "head worktree": out / "worktrees" / "head-HEAD",
        "scratchpad": other_place,
    }
    (reports / "targets.json").write_text(
        json.dumps({"read": [str(p) for p in private_reads], "write": [str(p) for p in paths.values()]})
    )
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "GITHUB_TOKEN": f"{secret}-job-token",  # the step's shell has it; `env -u` keeps it from the gate
        "NPM_TOKEN": f"{secret}-npm",  # the gate has it; scrub_env keeps it from the benchmarks
        "RUNNER_TOOL_CACHE": str(tool_cache),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_WORKSPACE": str(work / "project"),
    }
    gate_argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
                 "--head", "HEAD", "--out", str(out), "--seed", "3", "--instance", "box"]  # fmt: skip
    if mode == "off":  # on GitHub only the workflow (run --sandbox off) can turn it off, not the file
        gate_argv += ["--sandbox", "off"]
    # The worker stays the gate's ancestor (a bash that does not exec its last command).
    step = 'env -u GITHUB_TOKEN "$@"; exit $?'
    result = subprocess.run(
        [str(worker), "-c", step, "bash", *gate_argv],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = [json.loads(p.read_text()) for p in sorted(reports.glob("*.json")) if p.name != "targets.json"]
    return result, found, paths


def test_a_benchmark_in_the_sandbox_finds_no_secret_and_cannot_write_what_later_jobs_run(tmp_path):
    result, reports, paths = _attack(tmp_path, "auto")
    assert result.returncode == 0, result.stderr
    assert len(reports) == 2  # base and head both ran the probe
    for report in reports:
        assert report["found"] == [], "a secret was read from some process's environment"
        assert not any("gate run" in a or "Runner.Worker" in a for a in report["ancestors"])
        runner_root = tmp_path / "actions-runner"
        assert report["read"] == {
            str(runner_root / p): False for p in (".credentials", ".runner", "_diag/Worker_1.log")
        }
        own = report["cwd"]
        written = report["written"]
        assert written.pop(own) is True  # its own worktree
        assert {p for p, ok in written.items() if ok} == set(), "wrote where it must not"
        assert own in (str(paths["base worktree"]), str(paths["head worktree"]))
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["sandbox"]["kind"] == "bwrap"


def test_without_the_sandbox_the_same_benchmark_reads_the_tokens_and_writes_everywhere(tmp_path):
    """The control: what the probe finds when ``[suite] sandbox = "off"`` (a GitHub warning)."""
    result, reports, paths = _attack(tmp_path, "off")
    assert result.returncode == 0, result.stderr
    assert "sandbox_off" in result.stdout + result.stderr
    for report in reports:
        names = {entry.split("=", 1)[0] for entry in report["found"]}
        assert {"GITHUB_TOKEN", "NPM_TOKEN"} <= names  # the shell's and the gate's environ
        assert any("gate run" in a for a in report["ancestors"])
        assert all(report["read"].values())
        assert all(
            report["written"][str(paths[k])] for k in ("venv", "cached venv", "trial log", "git hooks")
        )


def test_the_sandbox_is_required_on_github_and_a_fallback_elsewhere(tmp_path):
    """Where namespaces cannot be made (here: inside a user namespace that forbids nested ones,
    bwrap --disable-userns, as in a locked-down container), `run` refuses on GitHub Actions with a
    fix, and elsewhere runs unsandboxed with a warning that names the fix."""
    bwrap = require_tool("bwrap")
    repo = make_repo(
        tmp_path,
        '[suite]\nadapter = "command"\n[[benchmark]]\nname = "a"\ncommand = "echo 1"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n",
    )
    jail = [bwrap, "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--dev-bind", "/", "/", "--"]

    def run(out: str, **env: str) -> subprocess.CompletedProcess[str]:
        argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--head", "HEAD",
                "--out", str(tmp_path / out)]  # fmt: skip
        return subprocess.run(
            [*jail, *argv],
            cwd=REPO_ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=300,
        )

    refused = run("gh", GITHUB_ACTIONS="true")
    assert refused.returncode == 2, refused.stderr
    assert "cannot run in a sandbox: bwrap cannot create the sandbox here" in refused.stderr
    assert "fix: let unprivileged users create user namespaces" in refused.stderr
    assert 'sandbox = "off"' in refused.stderr
    assert not (tmp_path / "gh" / "trials.csv").exists()  # nothing ran

    local = run("local", GITHUB_ACTIONS="")
    assert local.returncode == 0, local.stderr
    assert "warning: builds and benchmarks run without a sandbox: bwrap cannot create" in local.stderr
    meta = json.loads((tmp_path / "local" / "meta.json").read_text())
    assert meta["sandbox"]["kind"] == "none" and "no_sandbox" in {w["code"] for w in meta["warnings"]}

    # no bwrap: /dev/null (not a regular file) over it, the rest of PATH as it is
    no_bwrap = [bwrap, "--unshare-user", "--dev-bind", "/", "/", "--ro-bind", "/dev/null", bwrap, "--"]
    missing = subprocess.run(
        [
            *no_bwrap,
            PY,
            "-m",
            "gate",
            "run",
            "--config",
            str(repo / ".ordertrap.toml"),
            "--head",
            "HEAD",
            "--out",
            str(tmp_path / "missing"),
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "GITHUB_ACTIONS": "true"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode == 2, missing.stderr
    assert "bubblewrap (bwrap) is not installed" in missing.stderr
    assert "apt-get install -y bubblewrap" in missing.stderr


# ---- process control in the sandbox ------------------------------------------------------------


def _sandbox(tmp_path: Path) -> sandbox.Sandbox:
    bwrap = require_tool("bwrap")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return sandbox.Sandbox(bwrap, writable=[Path("/tmp")], read_only=[], areas=[sandbox.Area((work,))])


def _running(marker: str) -> list[int]:
    """Live (not zombie) processes, seen from here, whose command line holds ``marker``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with suppress(OSError):
            mine = marker.encode() in (entry / "cmdline").read_bytes()
            if mine and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                pids.append(int(entry.name))
    return pids


def _gone(marker: str) -> bool:
    for _ in range(100):  # the kernel takes a moment to tear a PID namespace down
        if not _running(marker):
            return True
        time.sleep(0.05)
    for pid in _running(marker):  # clean up after a failure
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return False


def _group_gone(pgid: int) -> bool:
    """No process, live or zombie, left in process group ``pgid`` within 10 s."""
    for _ in range(200):
        members = []
        for entry in Path("/proc").iterdir():
            with suppress(OSError, ValueError, IndexError):
                if (
                    entry.name.isdigit()
                    and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == pgid
                ):
                    members.append(entry.name)
        if not members:
            return True
        time.sleep(0.05)
    return False


def test_a_timeout_kills_the_sandbox_with_a_daemon_that_left_the_group(tmp_path):
    marker = f"1000.{uuid.uuid4().int % 10**9}"  # a unique `sleep` argument
    runner = SubprocessRunner(sandbox=_sandbox(tmp_path))
    result = runner(
        f"sleep {marker} & setsid sleep {marker} & sleep {marker}", cwd=tmp_path / "work", timeout=1.0
    )
    assert result.timed_out
    assert _gone(marker), "a process of the sandbox survived the timeout"


def test_a_sigkilled_gate_takes_its_sandboxed_trial_with_it(tmp_path):
    """bwrap --die-with-parent: the kernel kills bwrap with the gate, and the PID namespace with
    it, a daemon that left the group included; a resume finds nothing left to reap."""
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    out = tmp_path / "out"
    out.mkdir()
    gate_proc = subprocess.Popen(
        [
            PY,
            "-c",
            textwrap.dedent(
                f"""
                from pathlib import Path
                from gate.engine import sandbox
                from gate.engine.process import SubprocessRunner
                box = sandbox.Sandbox({shutil.which("bwrap")!r}, writable=[Path("/tmp")], read_only=[])
                runner = SubprocessRunner(pid_file=Path({str(out / ".running")!r}), sandbox=box)
                runner("setsid sleep {marker} & exec sleep {marker}", cwd=Path({str(tmp_path)!r}), timeout=120)
                """
            ),
        ],
        cwd=REPO_ROOT,
    )
    try:
        record = out / ".running"
        for _ in range(600):
            # the trial runs and the gate has recorded its process group (killed between the spawn
            # and that record, the gate leaves a "spawning" record, which a resume reaps by its pipes)
            if len(_running(f"sleep {marker}")) >= 2 and record.read_text().split()[0].isdigit():
                break
            assert gate_proc.poll() is None, "the gate ended early"
            time.sleep(0.05)
        gate_proc.send_signal(signal.SIGKILL)
        gate_proc.wait()
        assert _gone(marker), "a process of the sandbox outlived the gate"
        # bwrap and its shell die with the gate too; their exit (and being reaped as orphans) takes
        # the kernel a moment after the sleeps are gone, so the resume is checked once they are
        assert _group_gone(int(record.read_text().split()[0])), "the trial's group outlived the gate"
        assert reap_leftover(out / ".running", out) == 0
    finally:
        gate_proc.kill()
        gate_proc.wait()
        _gone(marker)


def test_wall_time_starts_once_the_sandbox_is_set_up(tmp_path):
    """A bwrap that takes 3 s to start: ``elapsed_s`` of ``true`` leaves that out (the command
    adapter's ``value = "wall"``). Not a timing test: the margin is the whole 3 s."""
    real = require_tool("bwrap")
    slow = tmp_path / "slow-bwrap"
    slow.write_text(f'#!/bin/sh\nsleep 3\nexec {real} "$@"\n')
    slow.chmod(0o755)
    (tmp_path / "work").mkdir()
    box = sandbox.Sandbox(str(slow), writable=[Path("/tmp")], read_only=[])
    started = time.perf_counter()
    result = SubprocessRunner(sandbox=box)(["true"], cwd=tmp_path / "work", timeout=60)
    assert result.returncode == 0 and time.perf_counter() - started >= 3
    assert result.elapsed_s < 3


def test_the_start_mark_comes_from_the_process_that_becomes_the_command(tmp_path):
    """The wall time's start mark is sent after the fork, by the process that then execs the
    command (its pid, as the kernel passes it with SO_PASSCRED, is the command's): the wait of a
    new process for its first turn on a CPU is not in the value, as without the sandbox."""
    bwrap = require_tool("bwrap")
    (tmp_path / "work").mkdir()
    box = sandbox.Sandbox(bwrap, writable=[Path("/tmp")], read_only=[])
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    fd = box.filter_fd()
    argv = box.wrap(["sleep", "2"], tmp_path / "work", fd)
    proc = subprocess.Popen(argv, stdin=theirs, cwd=tmp_path / "work", pass_fds=(fd,) if fd else ())
    try:
        theirs.close()
        if fd is not None:
            os.close(fd)
        _, ancillary, _, _ = ours.recvmsg(16, socket.CMSG_SPACE(12))
        (sender,) = [
            struct.unpack("iII", v[:12])[0] for lvl, kind, v in ancillary if kind == socket.SCM_CREDENTIALS
        ]
        time.sleep(0.5)  # the sender execs the command right after the mark
        assert Path(f"/proc/{sender}/cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", b"2"]
    finally:
        proc.kill()
        proc.wait()
        ours.close()


# Plants a global git config in $HOME (here bound writable as a [suite] caches entry: by default
# the sandbox's $HOME is private) whose fsmonitor
# and hooks would run a program the next time anyone runs git in this repository.
PLANT = r"""
import os, sys
from pathlib import Path

marker, home = Path(sys.argv[1]), Path(os.environ["HOME"])
hook = home / f"ordertrap-planted-{marker.name}"
hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
hook.chmod(0o755)
hooks = home / f"ordertrap-planted-hooks-{marker.name}"
hooks.mkdir(exist_ok=True)
for name in ("post-checkout", "reference-transaction"):
    (hooks / name).write_text(hook.read_text())
    (hooks / name).chmod(0o755)
(home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {hook}\n\thooksPath = {hooks}\n")
print(1)
"""


def test_a_git_config_planted_in_home_never_runs_in_the_gates_own_git(tmp_path, monkeypatch):
    """The gate runs git outside the sandbox (worktree add/remove, reading base's config) after
    the benchmarks ran: what they wrote into ~/.gitconfig must not execute there."""
    require_tool("bwrap")
    from gate.cli import main

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    marker = tmp_path / f"planted-{uuid.uuid4().hex}.log"
    (home / "plant.py").write_text(PLANT)
    toml = (
        f'[suite]\nadapter = "command"\ntimeout = 30\nsandbox = "on"\ncaches = ["{home}"]\n'
        f'[[benchmark]]\nname = "plant"\ncommand = "{PY} {home / "plant.py"} {marker}"\nunit = "x"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n"
    )
    repo = make_repo(tmp_path, toml)
    for out in ("out1", "out2"):  # the second run adds (and removes) worktrees under the planted config
        argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
        assert main([*argv, "--out", str(tmp_path / out), "--seed", "1"]) == 0
    assert (home / ".gitconfig").is_file(), "the benchmark did not plant its config: the test proves nothing"
    assert not marker.exists(), marker.read_text()
