"""`make demo` on a machine without bubblewrap: the demo's benchmarks are the gate's own code, so
scripts/demo.sh runs them unsandboxed on purpose, says so once, and leaves no sandbox warning for
the comment (a newcomer's first comment); with a working bubblewrap nothing changes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate.config.project_config import parse_config
from gate.engine import sandbox
from tests.conftest import REPO_ROOT, require_tool


def _setup(tmp_path: Path, bwrap: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    require_tool("git")
    out = tmp_path / "demo"
    proc = subprocess.run(
        ["bash", "scripts/demo.sh"],
        cwd=REPO_ROOT,
        env={**os.environ, "DEMO_OUT": str(out), "DEMO_SETUP_ONLY": "1", "BWRAP": bwrap,
             "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc, out / "repo"


def _committed_config(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", "HEAD~1:.ordertrap.toml"], capture_output=True, text=True, check=True
    ).stdout


def test_without_bubblewrap_the_demo_runs_unsandboxed_on_purpose_and_says_so_once(tmp_path: Path) -> None:
    proc, repo = _setup(tmp_path, str(tmp_path / "no-such-bwrap"))
    assert proc.stdout.count("run unsandboxed on purpose") == 1
    text = _committed_config(repo)  # base's file is what the run reads
    config = parse_config(text.encode(), repo / ".ordertrap.toml")
    assert config.suite.sandbox == "off"
    # off GitHub Actions, sandbox = "off" is the operator's choice: no warning reaches the report
    isolation = sandbox.choose_isolation("off", lambda b: None, cwd=repo, env={"PATH": "/nonexistent"})  # type: ignore[arg-type,return-value]
    assert isolation.warning is None and isolation.meta["kind"] == "none"


def test_with_a_working_bubblewrap_the_demo_config_is_unchanged(tmp_path: Path) -> None:
    bwrap = shutil.which("bwrap")
    require_tool("bwrap")
    assert bwrap is not None
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-user", "--unshare-pid", "--", "/bin/true"],
        capture_output=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0:  # installed, but no user namespaces here: the other test's case
        pytest.skip("bubblewrap cannot start a sandbox on this machine")
    proc, repo = _setup(tmp_path, bwrap)
    assert "unsandboxed" not in proc.stdout and "run in the bubblewrap sandbox" in proc.stdout
    # the example's own file, no `sandbox = ...` added (its comments may mention the sandbox)
    text = _committed_config(repo)
    assert text == (REPO_ROOT / "examples" / "demo-project" / ".ordertrap.toml").read_text()
    assert parse_config(text.encode(), repo / ".ordertrap.toml").suite.sandbox == "auto"
