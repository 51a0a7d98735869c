"""Live evaluation on this machine under a bursty CPU hog: A/A and a planted slowdown, false
verdicts and the share of benchmarks decided (docs/evaluation.md "Live, under a bursty CPU hog").

For each case the script builds a git repository with two commits and runs, as a user would,
``ordertrap-gate run`` (base and head interleaved by RMIT) and ``ordertrap-gate analyze`` on its
trial log, while a CPU hog it starts itself competes for the cores:

* **A/A**: head differs from base only by a comment, so every ``regression`` or ``improvement``
  is a false verdict.
* **planted**: head makes one benchmark slower by a known amount (the demo: ``tokenize`` repeats
  its work on ``--planted-pct`` % of the lines; a real project: ``--planted-patch``). A verdict on
  any other benchmark is false; the planted one should be a ``regression``.

The hog (:func:`hog_main`, one process per ``--hog-procs``) alternates busy and idle spells of
50–500 ms drawn at random, stops by itself after ``--hog-limit-s`` and is killed (its process
group, by its id) when the case ends, so a failed case leaves nothing running.

Projects: the bundled demo (``examples/demo-project``, default) or ``--project PATH``: a git
repository of a real Go module or pytest-benchmark suite with its ``.ordertrap.toml``, fetched by
the user (nothing of it is copied into this repository); base is its ``HEAD``, the A/A comment is
appended to ``--comment-file`` (default: the first tracked ``*.go`` or ``*.py`` file). The
configuration is copied outside the repository with ``[full]`` set to ``--suite-runs`` ×
``--iterations`` (and ``--measurements`` when given) and no follow-up rounds unless ``--budget``,
so a case takes a few minutes.

    .venv/bin/python -m eval.eval_live [--cases aa,planted] [--suite-runs 2] [--iterations 3]
        [--statistic NAME] [--project PATH [--planted-patch FILE] [--comment-file REL]]
        [--hog-procs 2] [--no-hog] [--seed 1] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo-project"
DEMO_PLANTED = "tokenize"
DECIDED = ("regression", "improvement", "unchanged")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


# ---- the hog ----------------------------------------------------------------------------------------
def hog_main(seed: int, limit_s: float) -> None:
    """Busy for 50-500 ms, idle for 50-500 ms, at random, until ``limit_s`` has passed."""
    rng = random.Random(seed)
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        busy_until = time.monotonic() + rng.uniform(0.05, 0.5)
        x = 0
        while time.monotonic() < busy_until:
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        time.sleep(rng.uniform(0.05, 0.5))


class Hog:
    """``procs`` hog processes in one new process group, killed together by its id."""

    def __init__(self, procs: int, seed: int, limit_s: float) -> None:
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    f"from eval.eval_live import hog_main; hog_main({seed + i}, {limit_s})",
                ],
                cwd=ROOT,
                start_new_session=True,
            )
            for i in range(procs)
        ]

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


# ---- the repositories --------------------------------------------------------------------------------
def git(repo: Path, *argv: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def demo_repo(dest: Path) -> Path:
    shutil.copytree(DEMO, dest, ignore=shutil.ignore_patterns("__pycache__", ".ruff_cache", ".pytest_cache"))
    git(dest, "init", "-q", "-b", "main")
    commit(dest, "demo base")
    return dest


def user_repo(project: Path, dest: Path) -> Path:
    if not (project / ".git").exists():
        raise SystemExit(f"error: {project} is not a git repository; fix: pass the checkout of the project")
    git(project.parent, "clone", "-q", "--local", "--no-hardlinks", str(project), str(dest))
    return dest


def comment_file(repo: Path, given: str | None) -> Path:
    if given:
        return repo / given
    for pattern in ("*.go", "*.py"):
        tracked = [f for f in git(repo, "ls-files", pattern).splitlines() if f]
        if tracked:
            return repo / tracked[0]
    raise SystemExit("error: no tracked *.go or *.py file for the A/A comment; fix: pass --comment-file REL")


def add_comment(path: Path) -> None:
    mark = "//" if path.suffix == ".go" else "#"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{mark} eval_live: a comment, the only difference of this A/A head\n")


def plant_demo(repo: Path, pct: float) -> None:
    """tokenize spins, after its work, for ``pct`` % of the time that work took: ``pct`` % slower
    on the wall clock whatever the machine's speed (the timed region is the function)."""
    bench = repo / "bench.py"
    text = bench.read_text(encoding="utf-8")
    old = "    return [list(textkit.tokens(line)) for line in lines]\n"
    if old not in text:
        raise SystemExit("error: the demo's bench_tokenize changed; fix: update eval_live.plant_demo")
    new = (
        "    start = time.perf_counter()\n"
        "    out = [list(textkit.tokens(line)) for line in lines]\n"
        f"    until = time.perf_counter() + (time.perf_counter() - start) * {pct / 100:g}\n"
        "    while time.perf_counter() < until:\n"
        "        pass\n"
        "    return out\n"
    )
    bench.write_text(text.replace(old, new, 1), encoding="utf-8")


def small_config(src: Path, dest: Path, args: argparse.Namespace) -> Path:
    """The project's configuration with a small [full] and the budget of ``--budget``."""
    text = src.read_text(encoding="utf-8")
    full = {"suite_runs": args.suite_runs, "iterations": args.iterations}
    if args.measurements is not None:
        full["measurements"] = args.measurements
    if not re.search(r"(?m)^\[full\]\s*$", text):  # a project without one gets it (else the default applies)
        text = text.rstrip("\n") + "\n\n[full]\n"
    for key, value in full.items():
        text, n = re.subn(rf"(?m)^{key}\s*=.*$", f"{key} = {value}", text)
        if n == 0:
            text = re.sub(r"(?m)^\[full\]\s*$", f"[full]\n{key} = {value}", text)
    if re.search(r"(?m)^budget\s*=", text):
        text = re.sub(r"(?m)^budget\s*=.*$", f'budget = "{args.budget}"', text)
    dest.write_text(text, encoding="utf-8")
    return dest


# ---- one case ----------------------------------------------------------------------------------------
def gate(*argv: str, log: Path) -> None:
    exe = ROOT / ".venv" / "bin" / "ordertrap-gate"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gate"]
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"$ {' '.join(cmd + list(argv))}\n")
        fh.flush()
        done = subprocess.run([*cmd, *argv], stdout=fh, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ordertrap-gate {argv[0]} failed ({done.returncode}); see {log}")


def run_case(kind: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    case = work / kind
    if case.exists():
        shutil.rmtree(case)
    case.mkdir(parents=True)
    repo = demo_repo(case / "repo") if args.project is None else user_repo(args.project, case / "repo")
    base = git(repo, "rev-parse", "HEAD")
    planted: str | None = None
    if kind == "aa":
        add_comment(comment_file(repo, args.comment_file) if args.project else repo / "bench.py")
    elif args.project is None:
        plant_demo(repo, args.planted_pct)
        planted = DEMO_PLANTED
    else:
        git(repo, "apply", str(args.planted_patch.resolve()))
        planted = args.planted_benchmark
    head = commit(repo, f"eval_live {kind} head")
    config = small_config(repo / ".ordertrap.toml", case / "config.toml", args)
    out, log = case / "run", case / "gate.log"
    env_cache = Path(tempfile.mkdtemp(prefix="eval-live-cache-"))
    os.environ["TEXTKIT_CACHE_DIR"] = str(env_cache)  # the demo's warm-start file, private per case
    hog = Hog(args.hog_procs, args.seed, args.hog_limit_s) if args.hog_procs else None
    t0 = time.monotonic()
    try:
        gate("run", "--config", str(config), "--repo", str(repo), "--base", base, "--head", head,
             "--out", str(out), "--seed", str(args.seed), "--instance", "live", log=log)  # fmt: skip
    finally:
        if hog is not None:
            hog.stop()
        shutil.rmtree(env_cache, ignore_errors=True)
    wall = time.monotonic() - t0
    analyze = ["analyze", str(out / "trials.csv"), "--json", str(case / "analysis.json")]
    if args.statistic:
        analyze += ["--statistic", args.statistic]
    gate(*analyze, log=log)
    doc = json.loads((case / "analysis.json").read_text(encoding="utf-8"))
    verdicts = {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]}
    false = [
        n
        for n, v in verdicts.items()
        if (v in ("regression", "improvement") and n != planted) or (n == planted and v == "improvement")
    ]
    decided = sum(v in DECIDED for v in verdicts.values())
    return {
        "case": kind,
        "benchmarks": len(verdicts),
        "verdicts": dict(Counter(verdicts.values())),
        "false": false,
        "decided_pct": 100.0 * decided / len(verdicts) if verdicts else 0.0,
        "planted": planted,
        "planted_verdict": verdicts.get(planted) if planted else None,
        "statistic": doc["settings"]["statistic"],
        "carryover_out": sum(
            bool((b.get("carryover_exclusion") or {}).get("applied")) for b in doc["benchmarks"]
        ),
        "wall_s": wall,
    }


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| case | statistic | benchmarks | false verdicts | decided | planted benchmark | verdicts "
        "| carry-over taken out | run time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        planted = f"{r['planted']}: {r['planted_verdict']}" if r["planted"] else "—"
        counts = ", ".join(f"{n} {v}" for v, n in sorted(r["verdicts"].items()))
        false = f"{len(r['false'])}" + (f" ({', '.join(r['false'])})" if r["false"] else "")
        out.append(
            f"| {r['case']} | {r['statistic']} | {r['benchmarks']} | {false} | {r['decided_pct']:.0f} % | "
            f"{planted} | {counts} | {r['carryover_out']} | {r['wall_s'] / 60:.1f} min |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="aa,planted", help="aa, planted or both (default)")
    p.add_argument(
        "--project", type=Path, help="a real project's git checkout with .ordertrap.toml (default: the demo)"
    )
    p.add_argument(
        "--planted-patch", type=Path, help="with --project: the patch that makes one benchmark slower"
    )
    p.add_argument("--planted-benchmark", help="with --planted-patch: the benchmark it slows down")
    p.add_argument("--comment-file", help="with --project: the file the A/A comment goes into (relative)")
    p.add_argument(
        "--planted-pct", type=float, default=10.0, help="the demo's planted slowdown in %% (default 10)"
    )
    p.add_argument("--suite-runs", type=int, default=2)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--measurements", type=int)
    p.add_argument("--budget", default="0", help="follow-up rounds' budget (default 0: none)")
    p.add_argument("--statistic", help="passed to analyze --statistic")
    p.add_argument(
        "--hog-procs", type=int, default=2, help="hog processes (default 2, one per core here; 0 = none)"
    )
    p.add_argument(
        "--hog-limit-s", type=float, default=1800.0, help="the hog stops by itself after this long"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    args = p.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if not cases or any(c not in ("aa", "planted") for c in cases):
        p.error("--cases takes aa, planted or aa,planted")
    if (
        args.project is not None
        and "planted" in cases
        and not (args.planted_patch and args.planted_benchmark)
    ):
        p.error("a planted case on --project needs --planted-patch FILE and --planted-benchmark NAME")
    work = args.work or Path(tempfile.mkdtemp(prefix="eval-live-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for kind in cases:
        print(f"== {kind} in {work / kind}", file=sys.stderr, flush=True)
        rows.append(run_case(kind, args, work))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
