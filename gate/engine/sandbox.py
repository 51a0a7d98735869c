"""Builds, benchmarks and resets run in a bubblewrap sandbox: their own PID and mount namespace.

What the sandbox guarantees, for every process :class:`~gate.engine.process.SubprocessRunner` starts
while it is on (``[suite] sandbox``, default ``"auto"``):

* **No ancestor is visible.** A new PID namespace with its own ``/proc`` (bwrap ``--unshare-pid
  --proc /proc``): the gate, the step's shell and the runner are not in it, so their
  ``/proc/<pid>/environ`` (the job's tokens, the names the driver scrubbed) cannot be read, nor
  their memory or open files: a ``/proc`` shows only the processes of the PID namespace that
  mounted it and of the namespaces below (``pid_namespaces(7)``). PID 1 inside is bwrap itself,
  started with the scrubbed environment.
* **Read-only by default.** ``/`` is bound read-only; writable are only the version's own
  worktree and scratch directory (``OUT/worktrees/<v>``, ``OUT/scratch/<v>``) for a process
  started there, or the repository's work tree for a process started there (``[suite].reset``),
  its private ``$HOME`` and temp directory (next point), and the ``[suite] caches`` the
  configuration opts in to.
* **A private ``$HOME`` and ``/tmp`` per version.** ``OUT/private/<v>/home`` is bound at
  ``$HOME``, ``OUT/private/<v>/tmp`` at ``/tmp``, ``/var/tmp`` and ``$TMPDIR`` (the reset has its
  own): base and head share no file there (a file head leaves cannot change base's values), and
  nothing a build or benchmark writes there reaches the real ``$HOME`` or ``/tmp``, where later
  steps and jobs (and the gate's own programs: gate/host/programs.py) would find it. The
  toolchains under ``$HOME`` are bound back read-only (:func:`toolchains`).
* **No service sockets, no network on a pull request.** ``/run`` and ``/var/run`` are empty
  (tmpfs): a read-only bind does not stop ``connect()`` to a socket there (``docker.sock``: root
  on a host where the runner user is in ``docker``). Nor to one anywhere else: a seccomp filter
  (bwrap ``--seccomp``, gate/engine/seccomp.py) refuses ``socket(AF_UNIX)``, unless ``[suite]
  unix_sockets = true`` (``socketpair`` stays: it reaches nothing). Without ``network`` the sandbox has a
  network namespace of its own (``--unshare-net``): no route anywhere, localhost included.
  Read-only again inside those, whatever their place: the gate's own files (its venv or install
  prefix, its interpreter, its package), the runner's tool cache (``RUNNER_TOOL_CACHE``, where
  ``run/action.yml`` caches the gate's venv for later jobs, which hold write tokens), the
  runner's temp directory (``RUNNER_TEMP``: the step scripts and the file commands
  ``GITHUB_ENV``/``GITHUB_PATH`` that set later steps' environment), the runner's work root
  (``_work``: the checked-out actions that later steps run), the runner's installation, the
  repository's git directory (hooks and config run by later git commands), the other
  version's worktree and ``OUT`` itself (the trial log). The runner's registration, credential
  and service files (``.runner``, ``.credentials*``, ``.env``, ``.path``) read as empty, its
  ``_diag`` logs as an empty directory (:func:`runner_directories`). ``/dev`` is a fresh
  minimal one (bwrap ``--dev``).
* **No privileges.** bwrap sets ``PR_SET_NO_NEW_PRIVS`` (setuid programs do not gain
  privileges); a gate running as root drops every capability (``--cap-drop ALL``), so a
  read-only mount cannot be remounted writable.
* **Process control holds.** bwrap stays in the process group the driver made, and in the gate's
  session: not ``--new-session``, whose new session is a new scheduler autogroup (``sched(7)``),
  a CPU share of its own that an unsandboxed benchmark does not get (measured here: the median
  ``/bin/true`` took 2.4 ms longer). Killing that
  group (a timeout, a stop signal, a resume's reap) or the gate itself (SIGKILL) ends bwrap,
  which takes the namespace's PID 1 with it (``--die-with-parent``), and the kernel then kills
  every process left in the namespace (``pid_namespaces(7)``), daemons that left the group
  included.

Not covered: the network on trusted events (builds download dependencies) or with
``network = true``, unix sockets outside ``/run`` the runner user can reach when ``[suite]
unix_sockets = true`` or on a host whose ABIs the filter does not know (neither x86_64 nor
aarch64: warning ``unix_sockets_unfiltered``), reading files this user
can read outside ``$HOME`` and ``/tmp`` (other repositories), the terminal a local run is started
from (TIOCSTI, as without the sandbox; kernels from 6.2 refuse it with
``dev.tty.legacy_tiocsti = 0``), and what persists in the ``[suite] caches`` for later jobs on a
persistent runner: that is what an ephemeral runner is for (docs/github-actions.md "Prepare the
benchmark runner (checklist)").

Timing: the sandbox is set up before the command starts and torn down after it ended. A shell
inside sends one datagram from the forked process that then execs the command (after a new
process's wait for its first turn on a CPU, which the unsandboxed spawn, a vfork, does not pay
either) and one when the command has exited,
stamped by the kernel when sent; :class:`~gate.engine.process.SubprocessRunner` measures the process's wall time
(``ProcessResult.elapsed_s``, the command adapter's ``value = "wall"``) between the two, so
neither bwrap's set-up nor the namespace's teardown is measured. Frameworks that time
themselves (Go, Google Benchmark, pytest-benchmark, JMH, hyperfine's runs of its command) run
entirely inside and are not affected.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gate
from gate.engine import seccomp
from gate.errors import ConfigError, RunError
from gate.host import programs, worktree
from gate.warning_codes import WarningCode

# Run inside the sandbox by /bin/sh: one datagram on stdin (the timing socket, process._Marks) says
# "set up, starting the command now", a second one "the command has ended"; the command gets
# /dev/null as stdin, as without the sandbox, and its exit status is passed on. The first mark is
# sent by the forked subshell that then becomes the command (exec): a new process waits for a CPU
# before it first runs, which without the sandbox the measured spawn does not (vfork lends it the
# gate's); sent by the parent before the fork, that wait was in the value (milliseconds on a
# loaded machine: docs/running.md, "The sandbox on real adapters").
_STARTER = '(printf . >&0; exec "$@" </dev/null); s=$?; printf . >&0; exit $s'

_OFF_FIX = 'or, if only trusted code ever runs on this machine, set [suite] sandbox = "off"'


@dataclass(frozen=True)
class Area:
    """Paths a process may write when it starts inside one of them (its working directory), and
    the area's private directory: its ``home`` and ``tmp`` are bound at ``$HOME`` and the temp
    directories, so that base and head (and the reset) share neither."""

    paths: tuple[Path, ...]
    private: Path | None = None


# Mount kinds; for one path the higher wins (a read-only bind over a cache, an area's own
# writable bind over a read-only one, a hidden file over everything).
_PRIVATE, _TMPFS, _WRITABLE, _READ_ONLY, _AREA, _HIDDEN = range(6)


class Sandbox:
    """The bwrap command line for one run. ``wrap`` is called for every spawn; the argument list
    for each area is built once (the paths exist by then: a version's worktree, scratch and
    private directories are made before its first process).

    ``home`` and ``temp``: the places a process sees its own private directory at (``$HOME``;
    ``/tmp``, ``/var/tmp``, ``$TMPDIR``); ``fallback``: the private directory of a process started
    outside every area. ``tmpfs``: directories seen empty (``/run``: the sockets of the host's
    services). ``network``: False gives the process a network namespace of its own with only a
    loopback interface that is down (bwrap ``--unshare-net``). ``unix_sockets``: False refuses
    ``socket(AF_UNIX, ...)`` inside (gate/engine/seccomp.py), where the host's ABIs are known
    (``seccomp`` is then the filter; None: unix sockets stay reachable)."""

    def __init__(
        self,
        bwrap: str,
        *,
        writable: Iterable[Path],
        read_only: Iterable[Path],
        hidden: Iterable[Path] = (),
        areas: Iterable[Area] = (),
        drop_caps: bool | None = None,
        home: Path | None = None,
        temp: Iterable[Path] = (),
        fallback: Path | None = None,
        tmpfs: Iterable[Path] = (),
        network: bool = True,
        unix_sockets: bool = False,
    ) -> None:
        self.bwrap = bwrap
        self.writable = tuple(_real(p) for p in writable)
        self.read_only = tuple(_real(p) for p in read_only)
        self.hidden = tuple(_real(p) for p in hidden)
        # deepest first, so that a worktree inside the repository wins over the repository
        self.areas = sorted(
            (Area(tuple(_real(p) for p in a.paths), a.private) for a in areas),
            key=lambda a: -max(len(p.parts) for p in a.paths),
        )
        self.drop_caps = os.geteuid() == 0 if drop_caps is None else drop_caps
        self.home = _real(home) if home is not None else None
        self.temp = tuple(dict.fromkeys(_real(p) for p in temp))
        self.fallback = fallback
        self.tmpfs = tuple(_real(p) for p in tmpfs)
        self.network = network
        self.unix_sockets = unix_sockets
        self.seccomp = None if unix_sockets else seccomp.unix_socket_filter()
        self._cache: dict[str, list[str]] = {}

    def _area_of(self, cwd: str) -> Area | None:
        for area in self.areas:
            for p in area.paths:
                text = str(p)
                if cwd == text or cwd.startswith(text.rstrip("/") + "/"):
                    return area
        return None

    def options(self, area: Area | None = None) -> list[str]:
        """bwrap's options (everything before the command) for a process started in ``area``."""
        # One mount per path, applied parents first (bwrap mounts in argument order, a later mount
        # covers an earlier one): the most specific rule wins; for the same path, the higher kind.
        rules: dict[Path, tuple[int, Path | None]] = {}

        def rule(path: Path, kind: int, source: Path | None = None) -> None:
            if path not in rules or rules[path][0] <= kind:
                rules[path] = (kind, source)

        private = area.private if area is not None and area.private is not None else self.fallback
        if private is not None:
            if self.home is not None:
                rule(self.home, _PRIVATE, private / "home")
            for place in self.temp:
                rule(place, _PRIVATE, private / "tmp")
        for p in self.tmpfs:
            rule(p, _TMPFS)
        for p in self.writable:
            rule(p, _WRITABLE)
        for p in self.read_only:
            rule(p, _READ_ONLY)
        for p in area.paths if area else ():
            rule(p, _AREA)
        for p in self.hidden:
            rule(p, _HIDDEN)
        args = [
            "--die-with-parent",
            "--unshare-pid",
            # Without a network, cargo is told so (CARGO_NET_OFFLINE): a crate without a
            # committed Cargo.lock is then resolved and built from the registry the runner already
            # holds ([suite] caches), where cargo would otherwise fail on the index it cannot reach.
            *([] if self.network else ["--unshare-net", "--setenv", "CARGO_NET_OFFLINE", "true"]),
            *(["--cap-drop", "ALL"] if self.drop_caps else []),
            "--ro-bind",
            "/",
            "/",
        ]
        # What each mounted path shows: a read-only place inside a place already seen read-only at
        # its own path shows the same files read-only without a mount of its own (bwrap binds
        # recursively and remounts every submount read-only). Each mount costs bwrap start-up
        # time on every process (docs/running.md, "Cost of the driver itself").
        shown: dict[Path, int] = {Path("/"): _READ_ONLY}
        for path, (kind, source) in sorted(
            rules.items(), key=lambda item: (len(item[0].parts), str(item[0]))
        ):
            if path == Path("/"):
                continue
            if kind == _PRIVATE and source is not None:
                if os.path.isdir(path):  # a place that exists here, seen with the area's content
                    args += ["--bind", str(source), str(path)]
                    shown[path] = _PRIVATE
                continue
            if not os.path.lexists(path):
                continue
            shown[path] = kind
            if kind == _READ_ONLY and shown[next(p for p in path.parents if p in shown)] == _READ_ONLY:
                continue
            if kind == _HIDDEN:
                if path.is_dir():
                    args += ["--tmpfs", str(path)]
                elif path.is_file():
                    args += ["--ro-bind", "/dev/null", str(path)]
            elif kind == _TMPFS:
                if path.is_dir() and not path.is_symlink():
                    args += ["--tmpfs", str(path)]
            elif kind == _READ_ONLY:
                args += ["--ro-bind", str(path), str(path)]
            elif path.is_dir():
                args += ["--bind", str(path), str(path)]
        return [*args, "--proc", "/proc", "--dev", "/dev"]

    def filter_fd(self) -> int | None:
        """A fresh descriptor to read the seccomp filter from (bwrap reads it to its end, so one
        per spawn; the caller passes it to the child and closes it), or None without a filter."""
        if self.seccomp is None:
            return None
        read, write = os.pipe2(os.O_CLOEXEC)
        try:
            os.write(write, self.seccomp)  # a few hundred bytes: within any pipe's buffer
        except OSError:
            os.close(read)
            raise
        finally:
            os.close(write)
        return read

    def wrap(self, argv: Sequence[str], cwd: Path, filter_fd: int | None = None) -> list[str]:
        """``argv`` as run inside the sandbox; its stdin must be the timing socket
        (process._Marks), and ``filter_fd`` (from :meth:`filter_fd`) passed to the child."""
        key = os.path.realpath(cwd)
        prefix = self._cache.get(key)
        if prefix is None:
            prefix = [self.bwrap, *self.options(self._area_of(key))]
            self._cache[key] = prefix
        if self.seccomp is not None and filter_fd is None:
            raise ValueError("the sandbox's seccomp filter needs a descriptor: Sandbox.filter_fd()")
        refuse = ["--seccomp", str(filter_fd)] if self.seccomp is not None else []
        return [*prefix, *refuse, "--", "/bin/sh", "-c", _STARTER, "sh", *argv]


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _git_dir(repo: Path) -> Path | None:
    try:
        proc = worktree.run_git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir", timeout=60)
    except (OSError, RunError):
        return None
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def runner_installation(pid: int | None = None) -> Path | None:
    """The GitHub Actions runner's installation directory (``<root>/bin/Runner.Worker``), found
    from the ancestor process that runs the job, or None outside a runner."""
    current = os.getppid() if pid is None else pid
    for _ in range(64):
        if current <= 1:
            return None
        try:
            with open(f"/proc/{current}/stat", "rb") as f:
                stat = f.read()
            name = stat[stat.index(b"(") + 1 : stat.rindex(b")")]
            if name == b"Runner.Worker":
                exe = Path(os.readlink(f"/proc/{current}/exe"))
                return exe.parent.parent if exe.parent.name == "bin" else exe.parent
            current = int(stat.rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None
    return None


def gate_files() -> list[Path]:
    """The gate's own code and interpreter: what later jobs run with their tokens."""
    prefix = Path(sys.prefix)
    paths = [prefix, Path(sys.base_prefix), Path(gate.__file__).resolve().parent]
    if prefix.parent.name == "ordertrap-gate":  # run/action.yml's cache: <cache>/ordertrap-gate/venv-<key>
        paths.append(prefix.parent)
    return paths


# Toolchains that live under $HOME, bound read-only into the private $HOME when they exist
# (besides every PATH entry under $HOME): rustup's toolchains behind ~/.cargo/bin's proxies, Go's
# GOPATH, pyenv, SDKMAN!, nvm. Their caches are not writable: [suite] caches opts in.
_TOOLCHAIN_HOMES = (".rustup", ".cargo", "go", ".pyenv", ".sdkman", ".nvm", ".local/bin", "bin")
_TOOLCHAIN_VARIABLES = ("RUSTUP_HOME", "CARGO_HOME", "GOPATH", "GOROOT", "JAVA_HOME", "PYENV_ROOT")
# What a self-hosted runner's installation holds that no job step needs to read: its registration
# (.runner), its OAuth credentials (.credentials, .credentials_rsaparams), the variables and PATH
# of its service (.env, .path) and its diagnostic logs (_diag: job logs with masked values).
_RUNNER_PRIVATE = (".runner", ".credentials", ".credentials_rsaparams", ".env", ".path", "_diag")


def expand(path: str, home: str) -> Path:
    """A configured path: ``~/x`` is under ``home``."""
    return Path(home) / path[2:] if path.startswith("~/") else Path(path)


def toolchains(env: Mapping[str, str], extra: Iterable[str] = ()) -> list[Path]:
    """Directories under ``$HOME`` seen read-only in the private ``$HOME``: the PATH entries
    there, the usual toolchain homes and ``[suite] toolchains``."""
    home = env.get("HOME", "")
    if not home or _real(home) == Path("/"):
        return []
    real_home = _real(home)
    found = [Path(home) / name for name in _TOOLCHAIN_HOMES]
    found += [Path(env[name]) for name in _TOOLCHAIN_VARIABLES if os.path.isabs(env.get(name, ""))]
    found += [Path(entry) for entry in env.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)]
    found += [expand(p, home) for p in extra]
    kept = []
    for path in found:
        real = _real(path)
        if (real == real_home or real_home in real.parents) and real != real_home and os.path.isdir(real):
            kept.append(path)
    return kept


def runner_directories(env: Mapping[str, str], installation: Path | None) -> list[Path]:
    """A self-hosted runner's installation directory: from the ``Runner.Worker`` ancestor, else
    from the work root the runner's variables name (``RUNNER_WORKSPACE`` = <work root>/<repo>,
    ``RUNNER_TEMP`` = <work root>/_temp, ``GITHUB_WORKSPACE`` = <work root>/<repo>/<repo>), whose
    parent is the installation in the default layout; only a directory holding ``.runner`` or
    ``bin/Runner.Worker`` counts."""
    candidates = [installation] if installation is not None else []
    for name, up in (("RUNNER_WORKSPACE", 2), ("RUNNER_TEMP", 2), ("GITHUB_WORKSPACE", 3)):
        value = env.get(name, "")
        if os.path.isabs(value):
            candidates.append(Path(value).parents[up - 1] if len(Path(value).parts) > up else Path("/"))
    found: list[Path] = []
    for c in candidates:
        runner = (c / ".runner").exists() or (c / "bin" / "Runner.Worker").exists()
        if c != Path("/") and runner and c not in found:
            found.append(c)
    return found


def private_directory(out: Path, name: str) -> Path:
    """``OUT/private/<name>`` with an empty ``home`` and ``tmp`` (kept across a resume: the
    build's state in them stays; removed with the worktrees at the end of a run)."""
    root = out / "private" / name
    for sub in ("home", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "tmp").chmod(0o1777)  # as /tmp: a build that changes user finds it writable
    return root


def plan(
    *,
    repo: Path,
    out: Path,
    versions: Sequence[tuple[Path, Path]],
    bwrap: str,
    env: Mapping[str, str] = os.environ,
    network: bool = True,
    unix_sockets: bool = False,
    caches: Iterable[str] = (),
    toolchain_dirs: Iterable[str] = (),
) -> Sandbox:
    """The sandbox of one ``run``: ``versions`` are (worktree, scratch) pairs; each gets its own
    private ``$HOME`` and temp directory (``OUT/private/<scratch's name>``), the reset another."""
    home = env.get("HOME", "")
    home_path = Path(home) if home and _real(home) != Path("/") else None
    temp = [Path(p) for p in ("/tmp", "/var/tmp") if os.path.isdir(p)]
    temp.append(Path(tempfile.gettempdir()))
    writable = [expand(c, home) for c in caches]
    for cache in writable:
        # a missing place would be left out of the binds (nothing to bind), and the build would
        # then write the read-only toolchain directory above it (~/.cargo for ~/.cargo/registry)
        # or a private $HOME that is not kept: made empty here, as the tool would make it
        try:
            cache.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"[suite] caches: cannot create {cache}: {exc.strerror}",
                "create the directory (writable by the runner's user) or remove it from [suite] caches",
            ) from exc
    read_only = [*toolchains(env, toolchain_dirs), *gate_files(), out, repo]
    git_dir = _git_dir(repo)
    if git_dir is not None:
        read_only.append(git_dir)
    for name in ("RUNNER_TOOL_CACHE", "RUNNER_TEMP", "AGENT_TOOLSDIRECTORY"):
        if env.get(name):
            read_only.append(Path(env[name]))
    if env.get("RUNNER_WORKSPACE"):  # <work root>/<repository>: the work root holds _actions, _temp, _tool
        read_only.append(Path(env["RUNNER_WORKSPACE"]).parent)
    hidden: list[Path] = []
    for installation in runner_directories(env, runner_installation()):
        read_only.append(installation)
        hidden += [installation / name for name in _RUNNER_PRIVATE]
        hidden += sorted(installation.glob(".credentials*"))
    areas = [Area((wt, scratch), private_directory(out, scratch.name)) for wt, scratch in versions]
    areas.append(Area((repo,), private_directory(out, "reset")))
    tmpfs = [Path(p) for p in ("/run", "/var/run")]
    if network:  # a resolver configuration kept under /run (systemd-resolved) stays readable
        resolv = _real("/etc/resolv.conf")
        if any(resolv.is_relative_to(_real(t)) for t in tmpfs if os.path.isdir(t)):
            read_only.append(resolv.parent)
    return Sandbox(
        bwrap,
        writable=writable,
        read_only=read_only,
        hidden=hidden,
        areas=areas,
        home=home_path,
        temp=temp,
        fallback=private_directory(out, "other"),
        tmpfs=tmpfs,
        network=network,
        unix_sockets=unix_sockets,
    )


@dataclass(frozen=True)
class Isolation:
    sandbox: Sandbox | None
    meta: dict[str, Any]  # for meta.json: {"kind": "bwrap", "version": ...} or {"kind": "none", ...}
    warning: dict[str, str] | None = None


def probe(sandbox: Sandbox, cwd: Path) -> str:
    """ "" when the sandbox starts here, else why not (bwrap's own message)."""
    fd: int | None = None
    try:
        fd = sandbox.filter_fd()
        refuse = ["--seccomp", str(fd)] if fd is not None else []
        proc = subprocess.run(
            [sandbox.bwrap, *sandbox.options(), *refuse, "--", "/bin/true"],
            cwd=cwd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
            pass_fds=() if fd is None else (fd,),
        )
    except subprocess.TimeoutExpired:
        return "bwrap did not start /bin/true within 60 s"
    except OSError as exc:
        return f"bwrap cannot be started: {exc.strerror or exc}"
    finally:
        if fd is not None:
            os.close(fd)
    if proc.returncode != 0:
        message = " ".join(proc.stderr.split())[:300] or f"exit status {proc.returncode}"
        return f"bwrap cannot create the sandbox here: {message}"
    return ""


def _version(bwrap: str) -> str:
    try:
        proc = subprocess.run(
            [bwrap, "--version"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return proc.stdout.strip().rpartition(" ")[2] or "unknown"


def choose_isolation(
    mode: str,
    make: Callable[[str], Sandbox],
    *,
    cwd: Path,
    env: Mapping[str, str] = os.environ,
) -> Isolation:
    """Apply ``[suite] sandbox``: ``"off"`` runs without; ``"on"`` refuses to run without one;
    ``"auto"`` (the default) refuses on GitHub Actions (``GITHUB_ACTIONS=true``: the job holds
    tokens and the runner is shared with later jobs) and elsewhere falls back with a warning."""
    on_github = env.get("GITHUB_ACTIONS") == "true"
    if mode == "off":
        warning = None
        if on_github:
            warning = {
                "code": WarningCode.SANDBOX_OFF.value,
                "message": '[suite] sandbox = "off": builds and benchmarks can read the environment of the gate '
                "and of the job's shell through /proc, and write to the gate's venv and the runner's files",
                "action": 'remove sandbox = "off" unless only trusted code ever runs on this runner',
            }
        return Isolation(None, {"kind": "none", "reason": "[suite] sandbox = off"}, warning)
    found = programs.current()
    bwrap = found.find("bwrap")
    if bwrap is None:
        reason = found.missing("bwrap").replace(
            "bwrap is not installed", "bubblewrap (bwrap) is not installed"
        )
        fix = (
            "install it: sudo apt-get install -y bubblewrap (Fedora: sudo dnf install bubblewrap), "
            + _OFF_FIX
        )
    else:
        sandbox = make(bwrap)
        reason = probe(sandbox, cwd)
        if not reason:
            unfiltered = None
            if sandbox.seccomp is None and not sandbox.unix_sockets:
                unfiltered = {
                    "code": WarningCode.UNIX_SOCKETS_UNFILTERED.value,
                    "message": f"no seccomp filter for this machine ({os.uname().machine}): builds and "
                    "benchmarks in the sandbox can connect to unix sockets outside /run that this user "
                    "can reach (x86_64 and aarch64 have one)",
                    "action": "run on x86_64 or aarch64, or keep service sockets this user can connect to "
                    "under /run",
                }
            return Isolation(sandbox, {"kind": "bwrap", "version": _version(bwrap)}, unfiltered)
        fix = (
            "let unprivileged users create user namespaces (sysctl user.max_user_namespaces > 0; Debian: "
            "sysctl kernel.unprivileged_userns_clone=1; Ubuntu 23.10+: an AppArmor profile that allows "
            "bwrap userns, or sysctl kernel.apparmor_restrict_unprivileged_userns=0), run the runner on "
            "the host rather than in a container that forbids namespaces, " + _OFF_FIX
        )
    if mode == "on" or on_github:
        why = "[suite] sandbox = on" if mode == "on" else "on GitHub Actions the sandbox is required"
        raise RunError(
            f"builds and benchmarks cannot run in a sandbox: {reason} ({why}; without it they can read "
            "the job's tokens through /proc/<pid>/environ of the gate and its shell)",
            fix,
        )
    warning = {
        "code": WarningCode.NO_SANDBOX.value,
        "message": f"builds and benchmarks run without a sandbox: {reason}; they can read this process's "
        "environment through /proc and write wherever this user can",
        "action": fix,
    }
    return Isolation(None, {"kind": "none", "reason": reason}, warning)
