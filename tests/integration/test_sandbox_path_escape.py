"""A head benchmark that plants ``git``, ``bwrap``, ``go`` and ``java`` in every PATH entry it can
write (``~/.local/bin``, ``~/bin``, ``~/go/bin``, ``~/.cargo/bin``, a temp directory) never gets
them run by the gate outside the sandbox: the gate takes its programs from a PATH without the
places benchmarks can write (gate/host/programs.py).

Two real ``ordertrap-gate run`` on a two-commit repository: the first lets head plant (and runs
git afterwards: ``worktree remove``), the second starts with the plants in place (bwrap, go and
java are looked up at its start)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

import pytest

from tests.conftest import REPO_ROOT, require_tool
from tests.integration.test_run_cli import make_repo

PY = sys.executable

# Head's benchmark (version.txt holds 2 in head): a program of each name, in each directory given,
# that records its run in the marker file and then runs the real one.
PLANT = r"""
import os, sys
from pathlib import Path

marker, real, dirs = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2].split(",")), sys.argv[3:]
if Path("version.txt").read_text().strip() == "2":
    for d in dirs:
        Path(d).mkdir(parents=True, exist_ok=True)
        for name, target in real.items():
            p = Path(d) / name
            p.write_text(f'#!/bin/sh\necho "{p} $*" >> {marker}\nexec {target} "$@"\n')
            p.chmod(0o755)
print(1)
"""


@pytest.mark.parametrize("mode", ["on", "off"])
def test_programs_planted_on_path_by_a_benchmark_never_run_outside_the_sandbox(tmp_path, mode):
    require_tool("git")
    if mode == "on":
        require_tool("bwrap")
    home = tmp_path / "home"
    home.mkdir()
    writable = [home / ".local" / "bin", home / "bin", home / "go" / "bin", home / ".cargo" / "bin"]
    writable.append(tmp_path / "tmp-bin")  # under /tmp
    real = {name: shutil.which(name) for name in ("git", "bwrap", "go", "java")}
    real_programs = ",".join(f"{n}={p}" for n, p in real.items() if p)
    marker = tmp_path / f"planted-{uuid.uuid4().hex}.log"
    (home / "plant.py").write_text(PLANT)
    dirs = " ".join(str(d) for d in writable)
    # $HOME and the temp directory bound writable into the sandbox ([suite] caches; by default
    # each version has a private $HOME and /tmp there): the plants land in the real ones
    caches = f'caches = ["{home}", "{writable[-1]}"]'
    writable[-1].mkdir()
    toml = (
        f'[suite]\nadapter = "command"\ntimeout = 60\nsandbox = "{mode}"\n{caches}\n'
        f'[[benchmark]]\nname = "plant"\n'
        f'command = "{PY} {home / "plant.py"} {marker} {real_programs} {dirs}"\nunit = "x"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n"
    )
    repo = make_repo(tmp_path, toml)
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env |= {"HOME": str(home), "PATH": os.pathsep.join([*map(str, writable), os.environ["PATH"]])}
    for out in ("out1", "out2"):
        argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
                "--head", "HEAD", "--out", str(tmp_path / out), "--seed", "1"]  # fmt: skip
        done = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert all((d / "git").is_file() for d in writable), "nothing planted: the test proves nothing"
    assert not marker.exists(), "a planted program ran: " + marker.read_text()
