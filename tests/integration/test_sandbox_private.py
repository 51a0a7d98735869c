"""What the sandbox (gate/engine/sandbox.py) keeps apart: each version has its own ``$HOME`` and
``/tmp``; the host's service sockets under ``/run`` are out of sight; on a pull request's event
there is no network, localhost included, unless base's ``[suite] network = true``; no unix socket
can be created (so none connected, wherever it is) unless base's ``[suite] unix_sockets = true``."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gate.engine import sandbox
from gate.engine.process import SubprocessRunner
from tests.conftest import REPO_ROOT, require_tool
from tests.integration.test_run_cli import git, make_repo

PY = sys.executable


def _repo_with(tmp_path: Path, toml: str, files: dict[str, str]) -> Path:
    """make_repo's two commits, then one adding ``files`` and one changing version.txt: HEAD~1
    (version 2) and HEAD (version 3) both have them."""
    repo = make_repo(tmp_path, toml)
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files")
    (repo / "version.txt").write_text("3\n")
    git(repo, "commit", "-qam", "head")
    return repo


def _run(repo: Path, out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
            "--head", "HEAD", "--out", str(out), "--seed", "5"]  # fmt: skip
    full = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME")}
    return subprocess.run(
        argv, cwd=REPO_ROOT, env={**full, **env}, capture_output=True, text=True, timeout=300
    )


def _values(out: Path) -> dict[str, list[float]]:
    import pandas as pd

    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    assert set(trials["status"]) == {"ok"}, trials["reason"].tolist()
    return {v: sorted(trials[trials["version"] == v]["value"].astype(float)) for v in ("HEAD~1", "HEAD")}


# Prints what an earlier process left in /tmp and $HOME (1 when nothing), then head leaves 5 there.
SHARED = r"""
import os
from pathlib import Path

import pytest

places = [Path("/tmp/ordertrap-shared-value"), Path(os.environ["HOME"]) / "ordertrap-shared-value"]
found = [int(p.read_text()) for p in places if p.exists()]
print(max(found, default=1))
if Path("version.txt").read_text().strip() == "3":
    for p in places:
        p.write_text("5")
"""


def test_base_and_head_share_neither_tmp_nor_home(tmp_path):
    require_tool("bwrap")
    home = tmp_path / "home"
    home.mkdir()
    toml = (
        '[suite]\nadapter = "command"\ntimeout = 60\nsandbox = "on"\n'
        f'[[benchmark]]\nname = "shared"\ncommand = "{PY} shared.py"\nunit = "x"\n'
        "[full]\nsuite_runs = 3\niterations = 1\nmeasurements = 1\n"
    )
    repo = _repo_with(tmp_path, toml, {"shared.py": SHARED})
    Path("/tmp/ordertrap-shared-value").unlink(missing_ok=True)
    try:
        done = _run(repo, tmp_path / "out", HOME=str(home))
        assert done.returncode == 0, done.stderr
        values = _values(tmp_path / "out")
        assert values["HEAD~1"] == [1, 1, 1]  # head's file never reached base
        assert values["HEAD"][-1] == 5  # but head's own later trials see it: the home is per version
        assert (
            not Path("/tmp/ordertrap-shared-value").exists()
            and not (home / "ordertrap-shared-value").exists()
        )
    finally:
        Path("/tmp/ordertrap-shared-value").unlink(missing_ok=True)


def _accept_until_closed(server: socket.socket) -> None:
    """Serve connections in a daemon thread until the test calls :func:`_close`: the accept that
    the shutdown wakes ends the thread quietly, so no exception outlives the test and is blamed on
    whichever test runs next in the worker."""

    def serve() -> None:
        try:
            while True:
                server.accept()[0].close()
        except OSError:
            return

    threading.Thread(target=serve, daemon=True).start()


def _close(server: socket.socket) -> None:
    with contextlib.suppress(OSError):  # shutdown wakes a blocked accept(); close alone does not
        server.shutdown(socket.SHUT_RDWR)
    server.close()


def _listen_unix(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(5)
    _accept_until_closed(server)
    return server


CONNECT_UNIX = (
    "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('connected')"
)


def test_a_unix_socket_under_a_tmpfs_place_cannot_be_connected(tmp_path):
    """A read-only bind does not stop connect() (a socket is not written, Linux checks write
    permission on the inode only); a tmpfs over the directory does, as over /run and /var/run."""
    bwrap = require_tool("bwrap")
    planned = sandbox.plan(repo=REPO_ROOT, out=tmp_path / "out", versions=[], bwrap=bwrap)
    options = planned.options()
    assert [options[i + 1] for i, o in enumerate(options) if o == "--tmpfs"][:1] == ["/run"]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    server = _listen_unix(run_dir / "docker.sock")
    work = tmp_path / "work"
    work.mkdir()
    try:
        argv = [PY, "-c", CONNECT_UNIX, str(run_dir / "docker.sock")]
        read_only = sandbox.Sandbox(bwrap, writable=[], read_only=[run_dir], unix_sockets=True)
        assert SubprocessRunner(sandbox=read_only)(argv, cwd=work, timeout=60).stdout.strip() == "connected"
        hidden = sandbox.Sandbox(bwrap, writable=[], read_only=[], tmpfs=[run_dir], unix_sockets=True)
        result = SubprocessRunner(sandbox=hidden)(argv, cwd=work, timeout=60)
        assert result.returncode != 0 and "FileNotFoundError" in result.stderr
    finally:
        _close(server)


CONNECT_TCP = """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    print(2)
except OSError:
    print(1)
"""


def _pull_request_run(tmp_path: Path, name: str, script: str, network: bool) -> Path:
    """One benchmark ``name`` running ``script`` in both versions, run on a pull request's event
    with or without base's ``[suite] network = true``; the run's out folder."""
    toml = (
        f'[suite]\nadapter = "command"\ntimeout = 60\n{"network = true" if network else ""}\n'
        f'[[benchmark]]\nname = "{name}"\ncommand = "{PY} {name}.py"\nunit = "x"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n"
    )
    where = tmp_path / f"{name}-{'on' if network else 'off'}"
    where.mkdir()
    repo = _repo_with(where, toml, {f"{name}.py": script})
    done = _run(repo, where / "out", GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="pull_request")
    assert done.returncode == 0, done.stderr
    return where / "out"


def test_localhost_cannot_be_reached_on_a_pull_request_event_unless_base_allows_the_network(tmp_path):
    require_tool("bwrap")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    _accept_until_closed(server)
    try:
        seen, metas = {}, {}
        for network in (False, True):
            out = _pull_request_run(tmp_path, "tcp", CONNECT_TCP.format(port=port), network)
            seen[network] = _values(out)
            metas[network] = json.loads((out / "meta.json").read_text())["sandbox"]
        assert seen[False] == {"HEAD~1": [1], "HEAD": [1]}  # refused: no network namespace of the host's
        assert seen[True] == {"HEAD~1": [2], "HEAD": [2]}  # the control: base opted in
        assert metas[False]["network"] is False and metas[True]["network"] is True
    finally:
        _close(server)


# 1: cargo would be told to stay offline, 2: not
CARGO_OFFLINE = 'import os; print(1 if os.environ.get("CARGO_NET_OFFLINE") == "true" else 2)\n'


def test_without_a_network_cargo_is_told_to_stay_offline(tmp_path):
    """So that a crate without a committed Cargo.lock is resolved from the registry the runner
    holds instead of failing on the index it cannot reach (docs/github-actions.md)."""
    require_tool("bwrap")
    seen = {
        network: _values(_pull_request_run(tmp_path, "offline", CARGO_OFFLINE, network))
        for network in (False, True)
    }
    assert seen[False] == {"HEAD~1": [1], "HEAD": [1]}
    assert seen[True] == {"HEAD~1": [2], "HEAD": [2]}  # with the network cargo may download


# 2: connected to the socket, 1: refused; exits non-zero when socketpair() fails (the runtimes need it)
CONNECT_UNIX_PATH = r"""
import socket, sys
a, b = socket.socketpair()
a.sendall(b"x")
assert b.recv(1) == b"x"
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    print(2)
except OSError:
    print(1)
"""


def test_a_unix_socket_behind_a_read_only_bind_cannot_be_connected_unless_base_allows_it(tmp_path):
    """The socket listens in the repository, which the sandbox binds read-only (not /run, not
    /tmp): only the seccomp filter (gate/engine/seccomp.py) keeps the benchmark from it."""
    require_tool("bwrap")
    seen, walls, metas = {}, {}, {}
    for opt_in in ("", "unix_sockets = true\n"):
        where = tmp_path / ("on" if opt_in else "off")
        where.mkdir()
        sockets = where / "repo" / "sockets"
        toml = (
            f'[suite]\nadapter = "command"\ntimeout = 60\n{opt_in}'
            f'[[benchmark]]\nname = "unix"\ncommand = "{PY} unix.py {sockets}/svc.sock"\nunit = "x"\n'
            '[[benchmark]]\nname = "wall"\ncommand = "true"\nvalue = "wall"\n'
            "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n"
        )
        repo = _repo_with(where, toml, {"unix.py": CONNECT_UNIX_PATH})
        assert repo == where / "repo"
        sockets.mkdir()
        server = _listen_unix(sockets / "svc.sock")
        try:
            done = _run(repo, where / "out", GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="push")
        finally:
            _close(server)
        assert done.returncode == 0, done.stderr
        import pandas as pd

        trials = pd.read_csv(where / "out" / "trials.csv", keep_default_na=False)
        assert set(trials["status"]) == {"ok"}, trials["reason"].tolist()
        seen[bool(opt_in)] = sorted(trials[trials["benchmark"] == "unix"]["value"].astype(int))
        walls[bool(opt_in)] = trials[trials["benchmark"] == "wall"]["value"].astype(float).tolist()
        metas[bool(opt_in)] = json.loads((where / "out" / "meta.json").read_text())["sandbox"]
    assert seen[False] == [1, 1]  # refused in both versions
    assert seen[True] == [2, 2]  # the control: base opted in
    for values in walls.values():  # the timing marks (a socketpair made outside) still work
        assert len(values) == 2 and all(0 < v < 5 for v in values)
    assert metas[False]["unix_sockets"] is False and metas[True]["unix_sockets"] is True


def test_a_cache_that_does_not_exist_yet_is_made_and_bound_writable(tmp_path):
    """`caches = ["~/.cargo/registry"]` on a runner where cargo never downloaded anything: left out
    of the binds, cargo would write into the read-only ~/.cargo and fail."""
    bwrap = require_tool("bwrap")
    home = tmp_path / "home"
    (home / ".cargo").mkdir(parents=True)
    planned = sandbox.plan(
        repo=REPO_ROOT,
        out=tmp_path / "out",
        versions=[],
        bwrap=bwrap,
        env={"HOME": str(home), "PATH": os.environ["PATH"]},
        caches=["~/.cargo/registry"],
    )  # ~/.cargo itself is a toolchain home: read-only
    registry = home / ".cargo" / "registry"
    work = tmp_path / "work"
    work.mkdir()
    argv = ["/bin/sh", "-c", f"echo crate > {registry}/x.crate && echo written"]
    result = SubprocessRunner(sandbox=planned)(argv, cwd=work, timeout=60)
    assert result.stdout.strip() == "written", result.stderr
    assert (registry / "x.crate").read_text() == "crate\n"


def test_a_cargo_target_directory_under_tmp_is_refused_unless_it_is_a_cache(tmp_path):
    """CARGO_TARGET_DIR=/tmp/x "shared by base and head" is, in the sandbox, one private /tmp/x per
    version: the gate would look for the bench executable at the real /tmp/x after the build."""
    from gate.adapters.base import VersionContext
    from gate.adapters.criterion import require_shared_target
    from gate.errors import RunError

    bwrap = require_tool("bwrap")
    worktree, scratch, target = tmp_path / "wt", tmp_path / "scratch", tmp_path / "cargo-target"
    worktree.mkdir()
    scratch.mkdir()
    version = VersionContext(name="base", workdir=worktree, scratch=scratch)
    for caches, shared in (([], False), ([str(target)], True)):
        planned = sandbox.plan(
            repo=REPO_ROOT, out=tmp_path / "out", versions=[(worktree, scratch)], bwrap=bwrap, caches=caches
        )
        runner = SubprocessRunner(sandbox=planned)
        if shared:
            require_shared_target(target, version, runner)
            assert list(target.iterdir()) == []  # the probe is gone
        else:
            with pytest.raises(RunError) as err:
                require_shared_target(target, version, runner)
            assert "private to each version" in str(err.value) and "[suite] caches" in err.value.fix
