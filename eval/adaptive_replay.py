"""Replay recorded Go benchmark data through the real run engine: (a) calibrated minimal, (b) minimal +
budget (follow-up rounds), (c) full configuration; A/A and injected 3 / 5 / 10 % slowdowns.

Data: the µOpTime Go data (``uoptime_go/<project>/measurements.csv`` in the reference data folder,
``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py), read in place,
never copied. One *pull request* (a case) = one project × version × injected slowdown; every
benchmark of that version is in it.

How a case runs. A temporary git repository gets two commits, ``base`` and ``head``, each holding
an ``.ordertrap.toml`` (the ``command`` adapter, one ``[[benchmark]]`` per Go benchmark, ``[full]``
= 3 suite runs × 5 iterations × 5 measurements as recorded) and a tiny ``serve.awk`` that knows
which side it is. ``gate.commands.run.run`` (the real engine: worktrees, RMIT schedule, driver,
one ``/bin/sh -c`` process per measurement, trial log, and with a budget its follow-up rounds)
runs on it in-process, then ``analyze`` on the log, exactly as a user would.

How values are served. The recorded values of one benchmark × version are cut into blocks of
one (instance, suite run, iteration) each: the 5 one-second measurements of one ``go test``
process, in their recorded order. For both A/A and slowdown cases, the blocks are split at
random into two halves, base's pool and head's pool (the same split for every slowdown of that
version, so the cases differ only by the factor). One trial is one recorded process: a trial of m
measurements (the benchmark's configuration in this scheme) gets the first m values of the next
block of its side, the blocks in a random order, and in a new random order once the pool is used
up. So the correlation inside a recorded process stays inside one trial, and different trials
come from different processes, as they do when the gate runs them. A side's pool holds ~22
blocks: the full configuration's 15 trials per version repeat none, follow-up rounds may (a
repeated block is a repeated process; it narrows the intervals a little). Head's served values
are base-version values multiplied by 1.03 / 1.05 / 1.10 for the slowdown cases (lower is
better). The command is one ``awk`` process that bumps a counter file, prints the next value of
the precomputed sequence and appends it to a served log (the bookkeeping the test checks).

All three cloud instances are pooled (``--instances``): one instance holds only 15 blocks, so a
side would repeat processes in the full configuration (repeats narrow the intervals falsely);
pooling instances adds their differences to both sides alike, which is harsher than one runner.

``[suite] sandbox = "off"``: the served "benchmark" is the harness's own awk script reading the
harness's own files; the sandbox (bubblewrap) would only add its start-up to each of thousands
of processes and needs write access to the counter files outside the worktree.

Time is simulated: µOpTime ran ``go test -benchtime 1s``, so one recorded value stands for 1 s
of benchmark time and a trial of m measurements for m s. Every scheme's time is the number of
values it measured (its trial log's rows) in these seconds; the budget of (b) is spent on the
same clock (:class:`SimulatedClock`, the engine's ``BudgetClock``). The gate's own per-trial
overhead is not in the simulated time (the harness's wall time is printed separately).

Calibration (schemes a, b): ``ordertrap-gate calibrate`` on the project's first version, instance 1,
full data (as µOpTime RQ4 does), reused for every later version. The tidy input has the columns
``benchmark, version, instance, suite_run, iteration, measurement, value`` (the data's ``second``
renamed ``measurement``, ``ns_per_op`` renamed ``value``), so the file's levels are the runs' own.

Budget (b): ``--budget-fraction`` (default 0.25) × the full configuration's time of the case
(75 values × 2 versions × benchmarks, in simulated s): what a user reads off the nightly's full
run (its trial log's elapsed time) and scales by the share of it a PR may spend.

    .venv/bin/python -m eval.adaptive_replay [--projects toml] [--versions v2.0.1] [--benchmarks 5]
        [--schemes a,b,c] [--slowdowns 0,3,5,10] [--jobs 2] [--work DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import inspect
import io
import json
import math
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from eval.reference_data import reference_data, require
from gate.files import analysis_json, run_meta

DATA = reference_data("uoptime_go")
PROJECTS = ("prometheus-common", "toml")
SLOWDOWNS = (0.0, 3.0, 5.0, 10.0)
SCHEMES = ("a", "b", "c")
SCHEME_NAMES = {"a": "(a) calibrated minimal", "b": "(b) minimal + budget", "c": "(c) full configuration"}
FULL = (3, 5, 5)  # suite runs × iterations × measurements recorded per instance
BLOCK = ("instance", "suite_run", "iteration")
SEQUENCE_MIN = 4000  # values precomputed per side (≥ any budget here); the awk script wraps beyond
DECISIONS = ("pass", "fail", "inconclusive")


# ---- the served values ----------------------------------------------------------------------------
def case_rng(seed: int, *parts: str) -> np.random.Generator:
    """An independent stream per (seed, project, version, benchmark, purpose)."""
    digest = hashlib.sha256("\x00".join(parts).encode()).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])


def blocks_of(rows: pd.DataFrame) -> list[np.ndarray]:
    """One array per (instance, suite run, iteration), values in recorded order."""
    rows = rows.sort_values([*BLOCK, "second"])
    return [g["ns_per_op"].to_numpy(dtype=np.float64) for _, g in rows.groupby(list(BLOCK), sort=True)]


def split_pools(
    blocks: Sequence[np.ndarray], seed: int, project: str, version: str, bench: str
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Base's and head's pools: the blocks split at random into halves (base gets the smaller)."""
    perm = case_rng(seed, project, version, bench, "split").permutation(len(blocks))
    half = len(blocks) // 2
    return [blocks[i] for i in sorted(perm[:half])], [blocks[i] for i in sorted(perm[half:])]


def served_sequence(
    pool: Sequence[np.ndarray], seed: int, key: tuple[str, ...], m: int, length: int = SEQUENCE_MIN
) -> np.ndarray:
    """One trial of ``m`` measurements per recorded block: the first ``m`` values of each block, the
    blocks in a random order, again in a new random order whenever the pool runs out."""
    usable = [b[:m] for b in pool if len(b) >= m]
    rng = case_rng(seed, *key, "serve")
    out: list[np.ndarray] = []
    n = 0
    while n < length:
        for i in rng.permutation(len(usable)):
            out.append(usable[i])
            n += m
    return np.concatenate(out)


def measurements_per_trial(names: Sequence[str], calibration: str | None) -> dict[str, int]:
    """Each benchmark's measurements per trial, as ``run`` sets them: the calibrated configuration's
    (plus discarded warm-up measurements), [full]'s for a benchmark without one or never stable."""
    from gate.files import calibration_json

    m = dict.fromkeys(names, FULL[2])
    if calibration is None:
        return m
    cal = calibration_json.read(calibration)
    warmup = (
        int(cal.discard_warmup.get("count") or 0) if cal.discard_warmup.get("level") == "measurement" else 0
    )
    for name in names:
        config = cal.config_for(name)
        if config is not None and not cal.never_stable(name):
            m[name] = int(config.get("measurement", FULL[2])) + warmup
    return m


SERVE_AWK = """\
# ordertrap-gate adaptive replay: serve the next recorded value of benchmark b for this side.
BEGIN {{
  dir = "{dir}"; side = "{side}"
  counter = dir "/state/" side "/" b
  n = 0
  if ((getline line < counter) > 0) n = line + 0
  close(counter)
  n++
  print n > counter; close(counter)
  data = dir "/data/" side "/" b ".txt"
  i = 0
  while (i < n && (getline v < data) > 0) i++
  close(data)
  if (i < n) {{  # past the precomputed sequence: start it again
    k = (n - 1) % i + 1; i = 0
    while (i < k && (getline v < data) > 0) i++
    close(data)
  }}
  print v >> (dir "/served/" side "/" b ".txt")
  print v
}}
"""


def toml_string(text: str) -> str:
    return json.dumps(text)  # a TOML basic string for these ASCII names


def config_text(names: Sequence[str]) -> str:
    lines = [
        "# written by eval/adaptive_replay.py",
        "[suite]",
        'adapter = "command"',
        'build = ""',
        'reset = ""',
        'sandbox = "off"',
        "timeout = 60",
        "",
        "[full]",
        f"suite_runs = {FULL[0]}",
        f"iterations = {FULL[1]}",
        f"measurements = {FULL[2]}",
    ]
    for i, name in enumerate(names):
        lines += [
            "",
            "[[benchmark]]",
            f"name = {toml_string(name)}",
            f'command = "awk -v b=b{i:03d} -f serve.awk"',
            'value = "stdout"',
            'unit = "ns/op"',
            "higher_is_better = false",
        ]
    return "\n".join(lines) + "\n"


def _git(repo: Path, *argv: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "replay",
        "GIT_AUTHOR_EMAIL": "replay@example.invalid",
        "GIT_COMMITTER_NAME": "replay",
        "GIT_COMMITTER_EMAIL": "replay@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(
        ["git", *argv], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@dataclass(frozen=True)
class Case:
    scheme: str
    project: str
    version: str
    slowdown: float
    benchmarks: tuple[str, ...]
    seed: int
    calibration: str | None
    budget_s: float | None
    max_rounds: int
    instances: tuple[int, ...] = (1, 2, 3)

    @property
    def key(self) -> str:
        pooled = "" if self.instances == (1, 2, 3) else "/i" + "-".join(map(str, self.instances))
        return f"{self.scheme}/{self.project}/{self.version}/{self.slowdown:g}{pooled}"

    @property
    def full_s(self) -> float:
        """The full configuration's simulated time: 75 values per benchmark and version, 1 s each."""
        return float(math.prod(FULL) * 2 * len(self.benchmarks))


def prepare_case(case: Case, rows: pd.DataFrame, root: Path) -> dict[str, dict[str, np.ndarray]]:
    """The case folder: data/state/served per side, and the repository with base and head commits.

    Returns the served sequence of every benchmark per side (head's with the slowdown applied)."""
    factor = 1.0 + case.slowdown / 100.0
    sequences: dict[str, dict[str, np.ndarray]] = {"base": {}, "head": {}}
    for side in ("base", "head"):
        for sub in ("data", "state", "served"):
            (root / sub / side).mkdir(parents=True, exist_ok=True)
    per_trial = measurements_per_trial(case.benchmarks, case.calibration)
    for i, name in enumerate(case.benchmarks):
        bench_rows = rows[rows["benchmark"] == name]
        base_pool, head_pool = split_pools(blocks_of(bench_rows), case.seed, case.project, case.version, name)
        for side, pool, f in (("base", base_pool, 1.0), ("head", head_pool, factor)):
            key = (case.project, case.version, name, side)
            seq = served_sequence(pool, case.seed, key, per_trial[name]) * f
            sequences[side][name] = seq
            (root / "data" / side / f"b{i:03d}.txt").write_text(
                "".join(f"{v!r}\n" for v in seq.tolist()), encoding="utf-8"
            )
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".ordertrap.toml").write_text(config_text(case.benchmarks), encoding="utf-8")
    for side in ("base", "head"):
        (repo / "serve.awk").write_text(SERVE_AWK.format(dir=str(root), side=side), encoding="utf-8")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", side)
        _git(repo, "branch", side)
    return sequences


# ---- the simulated budget clock -------------------------------------------------------------------
class SimulatedClock:
    """``BudgetClock`` in simulated seconds: one logged measurement = 1 s (``-benchtime 1s``).

    ``used_s`` counts the rows of the run's trial log (every planned and follow-up measurement of
    this and earlier invocations); ``trial_s`` is the mean number of measurements per logged trial
    of that benchmark × version, i.e. its simulated duration. No per-trial gate overhead: the
    replayed benchmark time is what the schemes are compared on."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self._offset = 0
        self._rows = 0

    def used_s(self) -> float:
        if not self.log.exists():
            return 0.0
        with self.log.open("rb") as fh:
            if fh.seek(0, os.SEEK_END) < self._offset:  # truncated by a resume: count again
                self._offset, self._rows = 0, 0
            fh.seek(self._offset)
            data = fh.read()
        end = data.rfind(b"\n") + 1  # whole lines only
        lines = data[:end].count(b"\n")
        if self._offset == 0 and lines:
            lines -= 1  # the header
        self._offset += end
        self._rows += lines
        return float(self._rows)

    def trial_s(self, benchmark: str, version: str, rows: pd.DataFrame) -> float:
        if len(rows) == 0:
            return float(FULL[2])
        return float(len(rows)) / float(rows["trial"].nunique())


# ---- one case -------------------------------------------------------------------------------------
def run_args(case: Case, root: Path) -> argparse.Namespace:
    from gate.cli import build_parser

    argv = [
        "run",
        "--config",
        str(root / "repo" / ".ordertrap.toml"),
        "--repo",
        str(root / "repo"),
        "--base",
        "base",
        "--head",
        "head",
        "--out",
        str(root / "out"),
        "--seed",
        str(case.seed),
        "--instance",
        "replay",
        "--config-from",
        "worktree",
    ]
    if case.calibration:
        argv += ["--calibration", case.calibration]
    if case.budget_s:
        argv += ["--budget", f"{case.budget_s:.0f}", "--max-rounds", str(case.max_rounds)]
    return build_parser(["run"]).parse_args(argv)


def run_case(case: Case, data: Path, work: Path) -> dict[str, Any]:
    """Run one case end to end; the result row (verdicts, decision, time)."""
    from gate.cli import main as gate_main
    from gate.commands import run as run_command

    root = work / "cases" / case.key.replace("/", "_")
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    root.mkdir(parents=True)
    rows = pd.read_csv(data / case.project / "measurements.csv")
    rows = rows[(rows["version"] == case.version) & rows["instance"].isin(case.instances)]
    prepare_case(case, rows, root)
    t0 = time.perf_counter()
    log = root / "out" / "trials.csv"
    with (root / "gate.log").open("w", encoding="utf-8") as err, contextlib.redirect_stderr(err):
        try:
            args = run_args(case, root)
        except SystemExit as exc:  # argparse has written why to gate.log
            raise RuntimeError(f"case {case.key}: bad run arguments; see {root / 'gate.log'}") from exc
        if case.budget_s:
            if "clock" not in inspect.signature(run_command.run).parameters:
                raise SystemExit(
                    "error: scheme b needs `run --budget` with an injectable clock "
                    "(gate.commands.run.run(args, clock=...)); fix: run schemes a,c, or update the gate"
                )
            status = run_command.run(args, clock=SimulatedClock(log))  # type: ignore[call-arg]
        else:
            status = run_command.run(args)
        with contextlib.redirect_stdout(io.StringIO()):
            status = status or gate_main(["analyze", str(log), "--json", str(root / "analysis.json")])
    wall = time.perf_counter() - t0
    if status != 0:
        raise RuntimeError(f"case {case.key} failed with status {status}; see {root / 'gate.log'}")
    return summarize(case, root, wall)


def summarize(case: Case, root: Path, wall_s: float) -> dict[str, Any]:
    doc = analysis_json.read(root / "analysis.json")
    log = pd.read_csv(root / "out" / "trials.csv")
    meta = run_meta.read(root / "out" / "meta.json")
    return {
        **{k: v for k, v in asdict(case).items() if k not in ("benchmarks",)},
        "key": case.key,
        "n_benchmarks": len(case.benchmarks),
        "verdicts": {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]},
        "decision": doc["summary"]["decision"],
        "simulated_s": float(len(log)),
        # follow-up rounds' measurements (the log's round column, 0 = planned; absent before rounds)
        "followup_s": float((log["round"] > 0).sum()) if "round" in log.columns else 0.0,
        "full_s": case.full_s,
        "rounds": int(log["round"].max()) if "round" in log.columns and len(log) else 0,
        "stop_reason": meta.adaptive.final.stop_reason if meta.adaptive and meta.adaptive.final else None,
        "wall_s": wall_s,
    }


# ---- calibration ----------------------------------------------------------------------------------
def calibrate_project(data: Path, project: str, work: Path, metric: str) -> Path:
    """``ordertrap-gate calibrate`` on the project's first version, instance 1 (µOpTime RQ4)."""
    from gate.cli import main as gate_main

    out = work / "calibration" / f"{project}.json"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    df = pd.read_csv(data / project / "measurements.csv")
    first = sorted(df["version"].unique(), key=version_key)[0]
    tidy = df[(df["version"] == first) & (df["instance"] == 1)].rename(
        columns={"second": "measurement", "ns_per_op": "value"}
    )
    src = work / "calibration" / f"{project}-{first}.csv"
    tidy[["benchmark", "version", "instance", "suite_run", "iteration", "measurement", "value"]].to_csv(
        src, index=False
    )
    with contextlib.redirect_stdout(io.StringIO()):
        status = gate_main(
            ["calibrate", str(src), "--levels", "suite_run,iteration,measurement", "--metric", metric,
             "--out", str(out)]
        )  # fmt: skip
    if status != 0:
        raise RuntimeError(f"calibrate failed for {project} (status {status})")
    return out


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.lstrip("v").split("."))


# ---- the table ------------------------------------------------------------------------------------
def pct(num: float, den: float) -> str:
    return f"{100.0 * num / den:.1f}%" if den else "–"


def table(results: Sequence[dict[str, Any]], schemes: Sequence[str]) -> str:
    full_mean = np.mean([r["simulated_s"] for r in results if r["scheme"] == "c"] or [np.nan])
    head = (
        "| scheme | A/A false verdicts | unchanged inconclusive | A/A PR decisions pass / inconclusive / fail "
        "| detect 3% | detect 5% | detect 10% | mean time (sim. s) | time vs (c) | PRs |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|"]
    for s in schemes:
        rs = [r for r in results if r["scheme"] == s]
        if not rs:
            continue
        aa = [r for r in rs if r["slowdown"] == 0]
        aa_v = [v for r in aa for v in r["verdicts"].values()]
        false = sum(v in ("regression", "improvement") for v in aa_v)
        inconc = sum(v == "inconclusive" for v in aa_v)
        dec = {d: sum(r["decision"] == d for r in aa) for d in DECISIONS}
        det = []
        for sd in (3.0, 5.0, 10.0):
            vs = [v for r in rs if r["slowdown"] == sd for v in r["verdicts"].values()]
            det.append(pct(sum(v == "regression" for v in vs), len(vs)))
        mean_t = float(np.mean([r["simulated_s"] for r in rs]))
        ratio = f"{100 * mean_t / full_mean:.1f}%" if np.isfinite(full_mean) else "–"
        lines.append(
            f"| {SCHEME_NAMES[s]} | {pct(false, len(aa_v))} ({false}/{len(aa_v)}) | {pct(inconc, len(aa_v))} | "
            f"{pct(dec['pass'], len(aa))} / {pct(dec['inconclusive'], len(aa))} / {pct(dec['fail'], len(aa))} "
            f"| {det[0]} | {det[1]} | {det[2]} | {mean_t:.0f} | {ratio} | {len(rs)} |"
        )
    return "\n".join(lines)


# ---- main -----------------------------------------------------------------------------------------
def pick(names: Sequence[str], n: int | None) -> list[str]:
    """``n`` names spread evenly over the sorted list (all when n is None)."""
    names = sorted(names)
    if n is None or n >= len(names):
        return names
    idx = np.linspace(0, len(names) - 1, n).round().astype(int)
    return [names[i] for i in idx]


def build_cases(args: argparse.Namespace, work: Path) -> list[Case]:
    cases: list[Case] = []
    for project in args.projects:
        df = pd.read_csv(args.data / project / "measurements.csv", usecols=["version", "benchmark"])
        versions = sorted(df["version"].unique(), key=version_key)
        if args.versions:
            unknown = [v for v in args.versions if v not in versions]
            if unknown:
                raise SystemExit(
                    f"error: {project} has no version {', '.join(unknown)}; fix: pick from {', '.join(versions)}"
                )
            versions = [v for v in versions if v in args.versions]
        calibration = None
        if {"a", "b"} & set(args.schemes):
            calibration = str(calibrate_project(args.data, project, work, args.metric))
        for version in versions:
            names = pick(df.loc[df["version"] == version, "benchmark"].unique(), args.benchmarks)
            for scheme in args.schemes:
                for slowdown in args.slowdowns:
                    budget = None
                    if scheme == "b":
                        budget = args.budget_fraction * math.prod(FULL) * 2 * len(names)
                    cases.append(
                        Case(
                            scheme=scheme,
                            project=project,
                            version=version,
                            slowdown=slowdown,
                            benchmarks=tuple(names),
                            seed=args.seed,
                            calibration=calibration if scheme in ("a", "b") else None,
                            budget_s=budget,
                            max_rounds=args.max_rounds,
                            instances=args.instances,
                        )
                    )
    return cases


def _worker(case: Case, data: str, work: str) -> dict[str, Any]:
    return run_case(case, Path(data), Path(work))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--projects", default=",".join(PROJECTS), help="comma list (default: both)")
    parser.add_argument("--versions", default="", help="comma list of versions (default: all five)")
    parser.add_argument(
        "--benchmarks", type=int, help="N benchmarks per project, spread over the sorted names"
    )
    parser.add_argument("--schemes", default="a,b,c", help="comma list of a, b, c (default: all)")
    parser.add_argument("--slowdowns", default="0,3,5,10", help="injected slowdowns in %% (0 = A/A)")
    parser.add_argument("--budget-fraction", type=float, default=0.25, help="(b): budget / full time")
    parser.add_argument("--max-rounds", type=int, default=3, help="(b): run --max-rounds")
    parser.add_argument("--metric", default="cv", help="calibrate --metric (default cv)")
    parser.add_argument(
        "--instances", default="1,2,3", help="recorded instances pooled into the values served (default: all)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--work", type=Path, help="work folder; finished cases in it are not rerun")
    args = parser.parse_args(argv)
    args.projects = [p for p in args.projects.split(",") if p]
    args.versions = [v for v in args.versions.split(",") if v]
    args.schemes = [s for s in args.schemes.split(",") if s]
    args.slowdowns = [float(s) for s in args.slowdowns.split(",") if s]
    args.instances = tuple(sorted(int(i) for i in args.instances.split(",") if i))
    bad = [s for s in args.schemes if s not in SCHEMES] + [p for p in args.projects if p not in PROJECTS]
    if bad:
        raise SystemExit(
            f"error: unknown {', '.join(bad)}; fix: schemes from a,b,c, projects from {PROJECTS}"
        )
    for project in args.projects:  # every file before minutes of work
        require(args.data / project / "measurements.csv", "uoptime_go")
    work = args.work or Path(f"/tmp/adaptive-replay-{os.getpid()}")
    work.mkdir(parents=True, exist_ok=True)
    results_path = work / "results.jsonl"
    done = {}
    if results_path.exists():
        for line in results_path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            done[r["key"]] = r
    t0 = time.perf_counter()
    cases = build_cases(args, work)
    todo = [c for c in cases if c.key not in done]
    print(
        f"{len(cases)} cases ({len(cases) - len(todo)} already in {results_path}); work folder {work}",
        file=sys.stderr,
    )
    with results_path.open("a", encoding="utf-8") as fh:
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(_worker, c, str(args.data), str(work)) for c in todo]
                for f in futures:
                    r = f.result()
                    done[r["key"]] = r
                    fh.write(json.dumps(r) + "\n")
                    fh.flush()
                    print(f"  {r['key']}: {r['decision']} in {r['wall_s']:.0f} s", file=sys.stderr)
        else:
            for c in todo:
                r = run_case(c, args.data, work)
                done[r["key"]] = r
                fh.write(json.dumps(r) + "\n")
                fh.flush()
                print(f"  {r['key']}: {r['decision']} in {r['wall_s']:.0f} s", file=sys.stderr)
    results = [done[c.key] for c in cases]
    n_bench = sorted({(r["project"], r["n_benchmarks"]) for r in results})
    print(
        f"Replay of {', '.join(f'{p} ({n} benchmarks)' for p, n in n_bench)}, versions "
        f"{', '.join(sorted({r['version'] for r in results}, key=version_key))}; slowdowns "
        f"{', '.join(f'{s:g}%' for s in args.slowdowns)}; calibrate --metric {args.metric}; (b) budget = "
        f"{args.budget_fraction:g} × full time, max {args.max_rounds} rounds; instances "
        f"{','.join(map(str, args.instances))} pooled; seed {args.seed}\n"
    )
    print(table(results, args.schemes))
    if len(args.projects) > 1:
        for project in args.projects:
            print(f"\n{project}:\n")
            print(table([r for r in results if r["project"] == project], args.schemes))
    rounds = [r for r in results if r["scheme"] == "b"]
    if rounds:
        reasons = Counter(str(r["stop_reason"]) for r in rounds)
        print(
            f"\n(b): mean follow-up time {np.mean([r['followup_s'] for r in rounds]):.0f} s, mean rounds "
            f"{np.mean([r['rounds'] for r in rounds]):.2f}; stop reasons: "
            + ", ".join(f"{k} {v}" for k, v in reasons.most_common())
        )
    print(
        f"\nwall time {time.perf_counter() - t0:.0f} s for {len(todo)} case(s) with --jobs {args.jobs}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
