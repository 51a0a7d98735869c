"""What a person reads in a terminal: `ordertrap-gate run` as a real process, outside and inside
GitHub Actions (the runner sets GITHUB_ACTIONS=true for every step)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.test_run_cli import config, git, make_repo
from tests.unit.test_inert_output import runner_commands

FAILING = """\
import sys
from pathlib import Path
print("::error::output of the benchmark")
print("result:", Path("version.txt").read_text().strip())
sys.exit(3)
"""


def _failing_repo(tmp_path: Path) -> Path:
    """Three benchmarks that fail in head (HEAD) and print a workflow command each time."""
    repo = make_repo(tmp_path, config(names=("a", "b", "c"), s=1, i=1))
    (repo / "bench.py").write_text(FAILING)
    git(repo, "commit", "-qam", "failing benchmarks")
    return repo


def _run(repo: Path, out: Path, github: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    if github:
        env["GITHUB_ACTIONS"] = "true"
    argv = [sys.executable, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml")]
    argv += ["--base", "HEAD~1", "--head", "HEAD", "--out", str(out), "--instance", "box"]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_in_a_terminal_failures_are_shown_without_workflow_command_fences(tmp_path: Path) -> None:
    proc = _run(_failing_repo(tmp_path), tmp_path / "out", github=False)
    text = proc.stdout + proc.stderr
    # every failing trial (3 benchmarks, head only) is shown
    assert text.count("output of the benchmark") == 3
    assert "::stop-commands::" not in text and "::group::" not in text
    assert not [line for line in text.splitlines() if line.startswith("::") and "output of" not in line]


def test_on_github_the_same_failures_are_fenced(tmp_path: Path) -> None:
    proc = _run(_failing_repo(tmp_path), tmp_path / "out", github=True)
    text = proc.stdout + proc.stderr
    assert text.count("output of the benchmark") == 3
    assert proc.stderr.count("::stop-commands::") == 3
    # the benchmark's ::error:: lines are all inside fences; only the gate's own commands remain
    assert set(runner_commands(proc.stderr)) <= {"stop-commands", "warning"}
