"""eval/eval_live.py: the CPU hog it starts ends with the case, and bad options stop it with a fix."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from eval.eval_live import Hog, add_comment, plant_demo
from tests.conftest import REPO_ROOT


def test_the_hog_is_killed_when_the_case_ends() -> None:
    hog = Hog(procs=2, seed=1, limit_s=600)
    time.sleep(0.5)
    assert all(p.poll() is None for p in hog.procs)  # running beside the case
    hog.stop()
    assert all(p.poll() is not None for p in hog.procs)


def test_the_hog_stops_by_itself_after_its_limit() -> None:
    hog = Hog(procs=1, seed=2, limit_s=0.3)
    assert hog.procs[0].wait(timeout=30) == 0


def test_the_planted_slowdown_and_the_comment_change_only_what_they_say(tmp_path: Path) -> None:
    src = (REPO_ROOT / "examples" / "demo-project" / "bench.py").read_text(encoding="utf-8")
    bench = tmp_path / "bench.py"
    bench.write_text(src, encoding="utf-8")
    plant_demo(tmp_path, 10.0)
    planted = bench.read_text(encoding="utf-8")
    assert "* 0.1\n" in planted and planted.count("while time.perf_counter() < until") == 1
    spin = planted.index("while time.perf_counter() < until")
    assert planted.index("def bench_tokenize") < spin < planted.index("def bench_wordfreq")  # tokenize only
    add_comment(bench)
    assert bench.read_text(encoding="utf-8").startswith(planted)


def test_bad_options_stop_with_a_fix(tmp_path: Path) -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "eval.eval_live", *argv, "--work", str(tmp_path)],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    bad = run("--cases", "ab")
    assert bad.returncode == 2 and "--cases takes aa, planted" in bad.stderr
    bad = run("--project", str(tmp_path), "--cases", "planted")
    assert bad.returncode == 2 and "--planted-patch" in bad.stderr
    bad = run("--project", str(tmp_path), "--cases", "aa", "--hog-procs", "0")
    assert bad.returncode != 0 and "is not a git repository; fix:" in bad.stderr


def test_the_small_configuration_is_written_where_the_project_has_no_full_table(tmp_path):
    """A project's config without [full] (dacite's, xxhash's) gets one: otherwise the gate's
    default configuration runs instead of --suite-runs × --iterations × --measurements."""
    import argparse

    from eval.eval_live import small_config
    from gate.config.project_config import parse_config

    src = tmp_path / "src.toml"
    src.write_text('[suite]\nadapter = "command"\n\n[[benchmark]]\nname = "a"\ncommand = "true"\n')
    args = argparse.Namespace(suite_runs=2, iterations=4, measurements=3, budget="0")
    dest = small_config(src, tmp_path / "small.toml", args)
    full = parse_config(dest.read_bytes(), dest).full
    assert (full.suite_runs, full.iterations, full.measurements) == (2, 4, 3)
