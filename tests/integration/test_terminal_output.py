"""What a person reads in a terminal: `ordertrap-gate run` as a real process, outside and inside
GitHub Actions (the runner sets GITHUB_ACTIONS=true for every step)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.integration.test_analyze_cli import analyze, make_log
from tests.integration.test_run_cli import config, git, make_repo
from tests.unit.test_inert_output import runner_commands

FAILING = """\
import sys
from pathlib import Path
# ends by retitling the terminal, erasing the line and writing over it
print("::error::output of the benchmark \\x1b]0;owned\\x07\\x1b[2K\\rhidden")
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
    # the benchmark's escape sequences are shown, not obeyed (its reason ends at the line's \r)
    assert "output of the benchmark <U+001B>]0;owned<U+0007><U+001B>[2K;" in text
    assert not RAW_CONTROL.search(text)


def test_on_github_the_same_failures_are_fenced(tmp_path: Path) -> None:
    proc = _run(_failing_repo(tmp_path), tmp_path / "out", github=True)
    text = proc.stdout + proc.stderr
    assert text.count("output of the benchmark") == 3
    assert proc.stderr.count("::stop-commands::") == 3
    # the benchmark's ::error:: lines are all inside fences; only the gate's own commands remain
    assert set(runner_commands(proc.stderr)) <= {"stop-commands", "warning"}


# A window title (OSC 0, ended by BEL), erase the line (CSI 2K), return to the line start, and a
# C1 CSI: obeyed, the name retitles the terminal and overwrites what was printed before it.
HOSTILE = "parse\x1b]0;owned\x07\x1b[2K\rfine\x9b31m\x08\x7f"
# C0 except \t and \n, DEL, C1
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_control_characters_in_names_are_shown_not_obeyed_and_kept_in_the_data(tmp_path: Path) -> None:
    log = make_log(tmp_path / "r1", {HOSTILE: (1.10, 0.005, False), "load": (1.0, 0.005, False)})
    out = tmp_path / "analysis.json"
    proc = analyze(log, "--json", out, "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    assert not RAW_CONTROL.search(proc.stdout + proc.stderr)
    shown = "parse<U+001B>]0;owned<U+0007><U+001B>[2K<U+000D>fine<U+009B>31m<U+0008><U+007F>"
    assert shown in proc.stdout
    assert HOSTILE in {b["benchmark"] for b in json.loads(out.read_text())["benchmarks"]}
