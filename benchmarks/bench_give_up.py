#!/usr/bin/env python3
"""What giving up on a failing benchmark saves: the demo project's suite (examples/demo-project,
base and head commits as `make demo` builds them) plus one benchmark that fails every time,
run by the real ``ordertrap-gate run`` twice with the same seed: with the rule (``[suite]
give_up_after`` default 2) and without it (``give_up_after = 0``).

* ``--case broken``: a wrong command (exits 1 at once, as a missing input file does);
* ``--case hang``: a benchmark that sleeps past ``[suite] timeout`` (``--timeout``, default 5 s).

Printed: trials run and wall time of each side, and their ratios, from one invocation. The
demo's own benchmarks are measured in full by both sides, so the difference is the broken one.

    .venv/bin/python -m benchmarks.bench_give_up --case broken
    .venv/bin/python -m benchmarks.bench_give_up --case hang --timeout 5 --suite-runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo-project"
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@ordertrap.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@ordertrap.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}
BROKEN = {
    "broken": "python bench.py no-such-benchmark --input missing.json",
    "hang": "python -c 'import time; time.sleep(3600)'",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], env=GIT_ENV, check=True, capture_output=True)


def demo_repo(root: Path) -> Path:
    repo = root / "repo"
    shutil.copytree(DEMO, repo, ignore=shutil.ignore_patterns("__pycache__", ".*_cache"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "apply", "--whitespace=nowarn", str(ROOT / "examples" / "demo-project.head.patch"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    return repo


def config(repo: Path, case: str, give_up_after: int | None, timeout: float, suite_runs: int) -> str:
    text = (repo / ".ordertrap.toml").read_text()
    text = re.sub(r"(?ms)^\[adaptive\].*", "", text)  # the planned trials only: no follow-up rounds
    text = text.replace("timeout = 120", f"timeout = {timeout:g}")
    text = text.replace("suite_runs = 3", f"suite_runs = {suite_runs}")
    if give_up_after is not None:
        text = text.replace("[suite]\n", f"[suite]\ngive_up_after = {give_up_after}\n", 1)
    return text + f'\n[[benchmark]]\nname = "{case}"\ncommand = "{BROKEN[case]}"\nunit = "s"\n'


def run(repo: Path, root: Path, name: str, text: str, seed: int) -> tuple[int, int, float]:
    """(trials in the log, trials the schedule planned, wall seconds)."""
    cfg = root / f"{name}.toml"
    cfg.write_text(text)
    out = root / name
    cmd = [sys.executable, "-m", "gate", "run", "--config", str(cfg), "--repo", str(repo)]
    cmd += ["--base", "HEAD~1", "--head", "HEAD", "--out", str(out), "--seed", str(seed), "--budget", "0"]
    env = {**os.environ, "TEXTKIT_CACHE_DIR": tempfile.mkdtemp(prefix="bench-give-up-")}
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{name}: run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    print(f"{name}: {done.stderr.strip().splitlines()[-1]}")
    trials = pd.read_csv(out / "trials.csv")["trial"].nunique()
    planned = len(json.loads((out / "meta.json").read_text())["schedule"])
    return trials, planned, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=sorted(BROKEN), default="broken")
    ap.add_argument("--timeout", type=float, default=5.0, help="[suite] timeout in seconds")
    ap.add_argument("--suite-runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if shutil.which("python") is None:
        sys.exit("the demo's commands say `python`: put a python on PATH")
    with tempfile.TemporaryDirectory(prefix="bench-give-up-") as tmp:
        root = Path(tmp)
        repo = demo_repo(root)
        sides = {}
        for name, after in (("rule", None), ("off", 0)):
            text = config(repo, args.case, after, args.timeout, args.suite_runs)
            sides[name] = run(repo, root, name, text, args.seed)
    (n_rule, planned, t_rule), (n_off, _, t_off) = sides["rule"], sides["off"]
    print(f"case {args.case}: {planned} planned trials (timeout {args.timeout:g} s)")
    print(f"  with the rule (give_up_after = 2): {n_rule} trials run, {t_rule:.1f} s")
    print(f"  without (give_up_after = 0):       {n_off} trials run, {t_off:.1f} s")
    print(f"  ratio rule/off: trials {n_rule / n_off:.3f}, wall time {t_rule / t_off:.3f}")


if __name__ == "__main__":
    main()
