"""The run action's questions to git (gate/action/revisions.py ``Git``) go through the gate's one
git runner (gate/host/worktree.py ``run_git``): git from the trusted PATH, never a ``git`` planted
under ``$HOME`` or a temp directory, which an earlier job's benchmark on a self-hosted runner
could have written. A real repository with two commits, the real git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from gate.action.revisions import CALIBRATION_FILE, Git
from gate.host import programs
from tests.conftest import require_tool


def _commit(repo: Path, message: str) -> str:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True)
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_revisions_never_run_a_git_planted_on_path_under_home(tmp_path, monkeypatch):
    require_tool("git")
    real_git = shutil.which("git")
    assert real_git is not None
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for key, value in (("user.email", "t@example.invalid"), ("user.name", "t")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    (repo / "a.txt").write_text("1\n")
    first = _commit(repo, "first")
    (repo / ".ordertrap").mkdir()
    (repo / CALIBRATION_FILE).write_text("{}\n")
    second = _commit(repo, "second")

    home = tmp_path / "home"
    planted = home / ".local" / "bin"
    planted.mkdir(parents=True)
    marker = tmp_path / "planted-git-ran"
    (planted / "git").write_text(f'#!/bin/sh\necho "$*" >> {marker}\nexec {real_git} "$@"\n')
    (planted / "git").chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(programs, "_pinned", None)  # resolved afresh from this PATH

    git = Git(repo)
    assert git.parent(second) == first
    assert git.merge_base(first, second) == first
    assert git.has_file(second, CALIBRATION_FILE) and not git.has_file(first, CALIBRATION_FILE)
    assert not marker.exists(), f"the planted git ran: {marker.read_text()}"
