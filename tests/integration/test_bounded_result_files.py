"""The result file a benchmark leaves in its scratch directory is read within bounds
(gate/files/bounded.py): a FIFO does not hang the run, a link to ``/dev/zero`` does not eat the
gate's memory, a link to a file elsewhere is not read for it. Each is a failed trial with the
reason, and the run goes on.

A real ``ordertrap-gate run`` of real pytest-benchmark tests: after pytest-benchmark wrote its
JSON, an ``atexit`` handler of the test replaces it (the benchmark's own process, in the sandbox).
The gate runs under an address-space limit, so that an unbounded read fails fast instead of
taking the machine's memory."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT
from tests.integration.test_run_cli import git, make_repo

PY = sys.executable

TESTS = r"""
import atexit, os, sys

def replace_with(make):
    out = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--benchmark-json="))

    def replace():
        os.unlink(out)
        make(out)
    atexit.register(replace)


def test_fifo(benchmark):
    replace_with(os.mkfifo)
    benchmark(sum, range(10))


def test_zero(benchmark):
    replace_with(lambda out: os.symlink("/dev/zero", out))
    benchmark(sum, range(10))


def test_elsewhere(benchmark):
    replace_with(lambda out: os.symlink(os.environ["ELSEWHERE"], out))
    benchmark(sum, range(10))


def test_plain(benchmark):
    benchmark(sum, range(10))
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.slow
def test_fifo_dev_zero_and_links_in_scratch_are_failed_trials_and_the_run_goes_on(tmp_path):
    # a result file elsewhere that would read as a valid measurement
    elsewhere = tmp_path / "elsewhere.json"
    names = ("test_fifo", "test_zero", "test_elsewhere", "test_plain")
    entries = [{"name": n, "fullname": f"test_bench.py::{n}", "stats": {"data": [1.0, 1.0]}} for n in names]
    elsewhere.write_text(json.dumps({"benchmarks": entries}))
    toml = (
        f'[suite]\nadapter = "pytest-benchmark"\npython = "{PY}"\ntimeout = 60\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 2\n"
    )
    repo = make_repo(tmp_path, toml)
    (repo / "test_bench.py").write_text(TESTS)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "benchmarks")
    (repo / "version.txt").write_text("3\n")
    git(repo, "commit", "-qam", "head")
    out = tmp_path / "out"
    argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
            "--head", "HEAD", "--out", str(out), "--seed", "1"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env["ELSEWHERE"] = str(elsewhere)
    done = subprocess.run(
        argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, preexec_fn=_limit_memory
    )
    assert done.returncode == 0, done.stderr
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    for version in ("HEAD~1", "HEAD"):
        rows = trials[trials["version"] == version]
        status = dict(zip(rows["benchmark"], rows["status"], strict=True))
        reason = dict(zip(rows["benchmark"], rows["reason"], strict=True))
        assert status == {
            "test_bench.py::test_fifo": "invalid",
            "test_bench.py::test_zero": "invalid",
            "test_bench.py::test_elsewhere": "invalid",
            "test_bench.py::test_plain": "ok",
        }
        assert "is not a regular file (a FIFO" in reason["test_bench.py::test_fifo"]
        assert "symbolic link" in reason["test_bench.py::test_zero"]
        assert "symbolic link" in reason["test_bench.py::test_elsewhere"]
