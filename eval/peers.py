"""The gate and the tools people use today, on the same data, side by side (docs/peers.md).

    .venv/bin/python -m eval.peers [--data DIR] [--cache DIR] [--part a|b|all]

Peers and the rule each one applies (implemented as its own documentation and code state it):

* **benchstat** (golang.org/x/perf/cmd/benchstat, installed by this script from the Go module
  proxy into ``--cache``, never into the repository) reads ``go test -bench`` output. A change is
  reported when its Mann-Whitney U test gives p < 0.05 (``-alpha``, default 0.05); otherwise the
  "vs base" column shows ``~`` and, with fewer than 4 values per side, a footnote that it needs
  more samples (pkg.go.dev/golang.org/x/perf/cmd/benchstat). Here: ``+x%`` = regression (lower is
  better), ``-x%`` = improvement, ``~`` = unchanged, ``~`` with the "need >= 4 samples" footnote =
  inconclusive (benchstat's own words).
* **pytest-benchmark** ``--benchmark-compare-fail=EXPR``: the comparison of a saved run with
  the current one fails when ``current[field] / saved[field] * 100 - 100 > N`` for ``field:N%``
  (``PercentageRegressionCheck`` in pytest_benchmark/utils.py). It has no default expression; the
  option's help gives ``min:5%`` as its example (``pytest --help``), and ``median:5%`` is shown too. It needs saved runs: this script writes each version's values as
  a saved-run JSON file (stats computed by pytest-benchmark's own ``Stats``), loads both through
  pytest-benchmark's ``FileStorage`` (what ``pytest-benchmark compare`` uses) and applies the
  real ``parse_compare_fail(EXPR).fails``. It never says "improvement" or "inconclusive".
* **github-action-benchmark**: each run stores one value per benchmark (the value the tool
  printed, one ``go test -bench`` run); an alert is raised when ``current / previous >
  alert-threshold`` for smaller-is-better tools such as ``go`` (``findAlerts``/``getRatio`` in
  src/write.ts; the ``alert-threshold`` input defaults to ``'200%'`` in its action.yml). Strictly
  greater, as the code does. Alerts only: it never says "improvement" or "inconclusive".
* **CodSpeed**: one value per benchmark per commit; a benchmark fails the check when its
  performance degradation relative to the base exceeds the regression threshold, **10 %** by
  default (codspeed.io/docs/features/customization, "Regression threshold"). CodSpeed's reports
  show the change as ``base / head - 1`` (a speed ratio: "+39 %" for 17.2 µs → 12.4 µs), so
  degradation = ``1 - base / head`` > 0.10 is a regression and ``base / head - 1`` > 0.10 an
  improvement.
* **the gate**: (a) its comparison core in-process (``gate.analysis.compare.compare_many`` with
  the defaults of ``ordertrap-gate analyze``); (b) the real ``ordertrap-gate run`` + ``analyze``.

The two fixed-ratio rules see one value per version. On the recorded data each version has many
values, so their rate is the exact expectation over which single run CI happened to store: the
share of all (base value, head value) pairs that trigger the rule.

Data:
(a) µOpTime Go data (``uoptime_go`` in the reference data folder, eval/reference_data.py; read in place, never copied; the script stops
    with exit 2 when it is absent). Units and the A/A split are those of eval/eval_verdicts.py
    (odd iterations of every suite run → base, even → head, as RMIT interleaves versions);
    3/5/10 % slowdowns multiply head's values. Every value is written as ``go test`` prints it
    (testing.prettyPrint's rounding) and every tool sees those same numbers.
(b) github.com/cespare/xxhash/v2 (fetched from the Go module proxy into ``--cache``): r1 = the
    module, r2 = r1 plus a comment (A/A: same code, separate build), r3 = r1 with a busy loop of a
    few nanoseconds planted in ``Sum64String`` (the Sum64String sub-benchmarks slow down by an
    amount that shrinks with the input size; BenchmarkSum64/100B is untouched). Small on purpose
    (4 benchmarks, 100 ms benchtime): a few minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from eval.reference_data import ENV as REFERENCE_ENV
from eval.reference_data import reference_data
from gate.analysis.compare import AnalysisSettings, Sample, compare_many

REPO = Path(__file__).resolve().parent.parent

DATA = reference_data("uoptime_go")
BENCHSTAT = ("golang.org/x/perf/cmd/benchstat", "v0.0.0-20260908200009-22c9c6c9d4da")
XXHASH = ("github.com/cespare/xxhash/v2", "v2.3.0")
SLOWDOWNS = (0.0, 3.0, 5.0, 10.0)
GAB_THRESHOLD = 2.0  # github-action-benchmark alert-threshold default "200%"
CODSPEED_THRESHOLD = 0.10  # CodSpeed global regression threshold default 10 %
PYTEST_EXPRS = ("min:5%", "median:5%")
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")


class PeersError(Exception):
    """A setup step failed; the message says what to do."""


# --------------------------------------------------------------------------- pure parts


def go_value(ns: float) -> str:
    """``ns`` as ``go test`` prints an ns/op value (testing.prettyPrint, Go 1.26)."""
    y = abs(ns)
    for limit, fmt in (
        (999.95, "10.0f"),
        (99.995, "12.1f"),
        (9.9995, "13.2f"),
        (0.99995, "14.3f"),
        (0.099995, "15.4f"),
        (0.0099995, "16.5f"),
        (0.00099995, "17.6f"),
    ):
        if y == 0 or y >= limit:
            return format(ns, fmt)
    return format(ns, "18.7f")


def go_rounded(values: np.ndarray) -> np.ndarray:
    """The values as a reader of ``go test`` output gets them back."""
    return np.array([float(go_value(float(v))) for v in values], dtype=np.float64)


def go_test_output(results: Iterable[tuple[str, float]], *, pkg: str = "peers", procs: int = 2) -> str:
    """``go test -bench`` output for (benchmark name, ns/op) results, in Go's benchmark data format
    (go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md): configuration lines,
    then ``Name-GOMAXPROCS<tab>iterations<tab>value ns/op`` per result (processBench's
    ``%-*s\\t``, BenchmarkResult.String's ``%8d``). The iteration count is the b.N a 1 s benchtime
    gives; no reader used here takes it into account."""
    rows = [(f"{name}-{procs}", ns) for name, ns in results]
    width = max((len(n) for n, _ in rows), default=0)
    lines = ["goos: linux", "goarch: amd64", f"pkg: {pkg}"]
    for name, ns in rows:
        if not name.startswith("Benchmark") or any(c.isspace() for c in name):
            raise ValueError(f"not a Go benchmark name: {name!r}")
        iterations = max(1, round(1e9 / ns)) if ns > 0 else 1
        lines.append(f"{name:<{width}}\t{iterations:8d}\t{go_value(ns)} ns/op")
    lines.append(f"ok  \t{pkg}\t1.000s")
    return "\n".join(lines) + "\n"


_BENCHSTAT_P = re.compile(r"p=([0-9.]+) n=(\d+)(?:\+(\d+))?")


def benchstat_verdicts(csv_text: str, *, procs: int | None = None) -> dict[str, str]:
    """Verdict per Go benchmark name from ``benchstat -format csv base head``: only the ``sec/op`` table
    (``-benchmem``/``SetBytes`` add tables of their own). A ``-GOMAXPROCS`` suffix is removed
    when ``procs`` is given."""
    out: dict[str, str] = {}
    in_time_table = False
    for row in csv.reader(io.StringIO(csv_text)):
        if not row or not any(row):
            in_time_table = False
            continue
        if row[0] == "" and len(row) > 1:
            if "vs base" in row:
                in_time_table = row[1] == "sec/op"
            continue
        if not in_time_table or row[0] == "geomean" or len(row) < 7:
            continue
        name = "Benchmark" + row[0]  # benchstat drops the prefix every Go benchmark name has
        if procs is not None:
            name = name.removesuffix(f"-{procs}")
        delta, p = row[5], _BENCHSTAT_P.search(row[6])
        if delta == "~":
            sizes = [int(g) for g in p.groups()[1:] if g] if p else [0]
            out[name] = "inconclusive" if min(sizes) < 4 else "unchanged"
        elif re.fullmatch(r"[-+]?[0-9.]+%", delta):
            # A significant change that rounds to "0.00%" has no sign: the medians give it.
            sign = float(delta[:-1]) or float(row[3]) - float(row[1])
            out[name] = "regression" if sign > 0 else "improvement" if sign < 0 else "unchanged"
        else:
            raise ValueError(f"benchstat printed an unknown change {delta!r} for {name!r}")
    return out


def gab_alert_rate(base: np.ndarray, head: np.ndarray, threshold: float = GAB_THRESHOLD) -> float:
    """Share of (stored base value, stored head value) pairs for which github-action-benchmark
    alerts: ``head / base > threshold`` (smaller is better)."""
    ratio = np.asarray(head, dtype=np.float64)[None, :] / np.asarray(base, dtype=np.float64)[:, None]
    return float(np.mean(ratio > threshold))


def codspeed_rates(
    base: np.ndarray, head: np.ndarray, threshold: float = CODSPEED_THRESHOLD
) -> dict[str, float]:
    """Share of (base value, head value) pairs CodSpeed calls a regression (degradation
    ``1 - base / head`` above the threshold) or an improvement (``base / head - 1`` above it)."""
    speed = np.asarray(base, dtype=np.float64)[:, None] / np.asarray(head, dtype=np.float64)[None, :]
    regression = float(np.mean(1.0 - speed > threshold))
    improvement = float(np.mean(speed - 1.0 > threshold))
    return {"regression": regression, "improvement": improvement, "unchanged": 1.0 - regression - improvement}


def pytest_benchmark_saved_run(values_s: Mapping[str, Sequence[float] | np.ndarray]) -> dict:
    """A pytest-benchmark saved run (the JSON ``--benchmark-save`` writes) holding one benchmark
    per name whose rounds are ``values_s`` (seconds); stats by pytest-benchmark's own Stats."""
    from pytest_benchmark import __version__ as pb_version
    from pytest_benchmark.stats import Stats

    benches = []
    for name, values in values_s.items():
        stats = Stats()
        for v in values:
            stats.update(float(v))
        benches.append(
            {
                "group": None,
                "name": name,
                "fullname": f"peers.py::{name}",
                "params": None,
                "param": None,
                "extra_info": {},
                "options": {
                    "disable_gc": False,
                    "timer": "perf_counter",
                    "min_rounds": 1,
                    "max_time": 1.0,
                    "min_time": 5e-06,
                    "warmup": False,
                },
                "stats": {**stats.as_dict(), "iterations": 1, "data": [float(v) for v in values]},
            }
        )
    return {
        "machine_info": {"node": "peers", "machine": "x86_64", "python_implementation": "CPython"},
        "commit_info": {"id": None, "dirty": False},
        "benchmarks": benches,
        "datetime": "2026-01-01T00:00:00.000000+00:00",
        "version": pb_version,
    }


def pytest_benchmark_verdicts(base_json: Path, head_json: Path, expr: str) -> dict[str, str]:
    """Load both saved runs with pytest-benchmark's FileStorage and apply its compare-fail check
    ``expr`` (head = current run, base = the saved one compared against)."""
    from pytest_benchmark.logger import Logger
    from pytest_benchmark.storage.file import FileStorage
    from pytest_benchmark.utils import parse_compare_fail

    check = parse_compare_fail(expr)
    storage = FileStorage(base_json.parent, logger=Logger(Logger.QUIET))
    base = {b["name"]: b for b in storage.load_benchmarks(str(base_json))}
    head = {b["name"]: b for b in storage.load_benchmarks(str(head_json))}
    return {
        name: ("regression" if check.fails(h, base[name]) else "unchanged")
        for name, h in head.items()
        if name in base
    }


@dataclass
class Tally:
    """Verdict shares (0..1) summed over comparisons, per verdict."""

    sums: dict[str, float]
    n: int = 0

    @classmethod
    def empty(cls) -> Tally:
        return cls({v: 0.0 for v in VERDICTS})

    def add(self, shares: Mapping[str, float]) -> None:
        for k, v in shares.items():
            self.sums[k] += v
        self.n += 1

    def pct(self, verdict: str) -> float:
        return 100.0 * self.sums[verdict] / self.n if self.n else float("nan")


def one_hot(verdict: str) -> dict[str, float]:
    return {verdict: 1.0}


# --------------------------------------------------------------------------- tools


def cache_dir(arg: Path | None) -> Path:
    if arg is not None:
        return arg.resolve()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ordertrap-gate-peers"


def go_env(cache: Path, *, offline: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "GOMODCACHE": str(cache / "mod"),
        "GOPATH": str(cache / "gopath"),
        "GOCACHE": str(cache / "gocache"),
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod",
    }
    if offline:
        env["GOPROXY"] = "off"
    return env


def _run(argv: Sequence[str], *, fix: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(argv), check=True, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    except FileNotFoundError as exc:
        raise PeersError(f"{argv[0]} is not installed ({exc}); {fix}") from exc
    except subprocess.CalledProcessError as exc:
        tail = (exc.stderr or exc.stdout or "").strip()[-1500:]
        raise PeersError(f"{' '.join(argv[:4])} ... exited {exc.returncode}:\n{tail}\n{fix}") from exc


def install_benchstat(cache: Path) -> Path:
    binary = cache / "bin" / f"benchstat-{BENCHSTAT[1]}"
    if binary.exists():
        return binary
    (cache / "bin").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**go_env(cache, offline=False), "GOBIN": tmp}
        _run(
            ["go", "install", f"{BENCHSTAT[0]}@{BENCHSTAT[1]}"],
            env=env,
            cwd=tmp,
            fix="install Go (scripts/install-system-deps.sh) and allow the Go module proxy",
        )
        shutil.move(str(Path(tmp) / "benchstat"), binary)
    return binary


def run_benchstat(
    benchstat: Path, base_text: str, head_text: str, workdir: Path, *, procs: int | None
) -> dict[str, str]:
    (workdir / "base.txt").write_text(base_text)
    (workdir / "head.txt").write_text(head_text)
    done = _run(
        [str(benchstat), "-format", "csv", "base.txt", "head.txt"],
        cwd=workdir,
        fix="rerun; benchstat rejected input this script wrote",
    )
    return benchstat_verdicts(done.stdout, procs=procs)


# --------------------------------------------------------------------------- (a) recorded data


def _eval_verdicts() -> ModuleType:
    import importlib

    return importlib.import_module("eval.eval_verdicts")


def recorded(data: Path, benchstat: Path, work: Path, resamples: int) -> dict[float, dict[str, Tally]]:
    """Per slowdown, per tool: the verdict tallies over all A/A units of the µOpTime data."""
    units = _eval_verdicts().units(data, (1, 2, 3))
    units = [
        (
            name,
            Sample(go_rounded(b.values), b.unit_id, b.suite_run),
            Sample(go_rounded(h.values), h.unit_id, h.suite_run),
        )
        for name, b, h in units
    ]
    names = {name: f"BenchmarkU{i:04d}" for i, (name, _, _) in enumerate(units)}
    out: dict[float, dict[str, Tally]] = {}
    for slowdown in SLOWDOWNS:
        tallies = {tool: Tally.empty() for tool in TOOLS}
        heads = [
            (name, base, go_rounded(head.values * (1 + slowdown / 100)), head) for name, base, head in units
        ]
        # the gate
        items = [
            (name, base, Sample(hv, head.unit_id, head.suite_run), False) for name, base, hv, head in heads
        ]
        for res in compare_many(items, AnalysisSettings(resamples=resamples)):
            tallies["gate"].add(one_hot(str(res.verdict)))
        # benchstat: one pair of files holding every unit
        step = work / f"a-{slowdown:g}"
        step.mkdir(parents=True, exist_ok=True)
        base_text = go_test_output((names[n], v) for n, b, _, _ in heads for v in b.values)
        head_text = go_test_output((names[n], v) for n, _, hv, _ in heads for v in hv)
        said = run_benchstat(benchstat, base_text, head_text, step, procs=2)
        missing = set(names.values()) - set(said)
        if missing:
            raise PeersError(f"benchstat gave no row for {len(missing)} benchmarks; check {step}")
        for verdict in said.values():
            tallies["benchstat"].add(one_hot(verdict))
        # pytest-benchmark: two saved runs holding every unit (seconds)
        (step / "base.json").write_text(
            json.dumps(pytest_benchmark_saved_run({names[n]: b.values / 1e9 for n, b, _, _ in heads}))
        )
        (step / "head.json").write_text(
            json.dumps(pytest_benchmark_saved_run({names[n]: hv / 1e9 for n, _, hv, _ in heads}))
        )
        for expr in PYTEST_EXPRS:
            for verdict in pytest_benchmark_verdicts(step / "base.json", step / "head.json", expr).values():
                tallies[f"pytest-benchmark {expr}"].add(one_hot(verdict))
        # fixed-ratio rules on one stored value per version
        for _, base, hv, _ in heads:
            gab = gab_alert_rate(base.values, hv)
            tallies["github-action-benchmark 200%"].add({"regression": gab, "unchanged": 1 - gab})
            tallies["CodSpeed 10%"].add(codspeed_rates(base.values, hv))
        out[slowdown] = tallies
        print(f"  (a) slowdown {slowdown:g}%: {len(units)} units done", file=sys.stderr, flush=True)
    return out


TOOLS = (
    "gate",
    "benchstat",
    "pytest-benchmark min:5%",
    "pytest-benchmark median:5%",
    "github-action-benchmark 200%",
    "CodSpeed 10%",
)
SAYS = {
    "gate": "inconclusive",
    "benchstat": "~ (unchanged)",
    "pytest-benchmark min:5%": "pass (unchanged)",
    "pytest-benchmark median:5%": "pass (unchanged)",
    "github-action-benchmark 200%": "no alert (unchanged)",
    "CodSpeed 10%": "unchanged",
}


def recorded_table(res: dict[float, dict[str, Tally]]) -> str:
    n = res[0.0]["gate"].n
    lines = [
        f"(a) µOpTime Go data: {n} A/A units (project × version × VM × benchmark; base 45 values, head 30)",
        "",
        "| tool (rule) | A/A false verdicts | A/A inconclusive | detects 3 % | detects 5 % | detects 10 % | "
        "inconclusive at 3 / 5 / 10 % | says when it cannot tell |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tool in TOOLS:
        aa = res[0.0][tool]
        inc = " / ".join(f"{res[s][tool].pct('inconclusive'):.1f}" for s in (3.0, 5.0, 10.0))
        lines.append(
            f"| {tool} | {aa.pct('regression') + aa.pct('improvement'):.1f} % | {aa.pct('inconclusive'):.1f} % | "
            + " | ".join(f"{res[s][tool].pct('regression'):.1f} %" for s in (3.0, 5.0, 10.0))
            + f" | {inc} % | {SAYS[tool]} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- (b) a real Go module

REAL_BENCHMARKS = (
    "BenchmarkSum64String/4B",
    "BenchmarkSum64String/100B",
    "BenchmarkSum64String/4KB",
    "BenchmarkSum64/100B",
)
PLANT = (
    "func Sum64String(s string) uint64 {\n",
    "func Sum64String(s string) uint64 {\n\tfor i := uint64(0); i < 12; i++ {\n\t\tplantedSink += i\n\t}\n",
)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "peers",
    "GIT_AUTHOR_EMAIL": "peers@example.com",
    "GIT_COMMITTER_NAME": "peers",
    "GIT_COMMITTER_EMAIL": "peers@example.com",
}


def fetch_module(cache: Path) -> Path:
    done = _run(
        ["go", "mod", "download", "-json", f"{XXHASH[0]}@{XXHASH[1]}"],
        env=go_env(cache, offline=False),
        cwd=cache,
        fix="allow the Go module proxy (GOPROXY) or prefill --cache",
    )
    return Path(json.loads(done.stdout)["Dir"])


def make_module_repo(module: Path, root: Path) -> Path:
    """r1 = the module; r2 = r1 + a comment; r3 = r1 + the planted loop in Sum64String."""
    repo = root / "xxhash"
    shutil.copytree(module, repo)
    for path in repo.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)

    def git(*args: str) -> None:
        _run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_ENV}, fix="install git")

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "r1: module as published")
    git("tag", "r1")
    target = repo / "xxhash_unsafe.go"
    original = target.read_text()
    if PLANT[0] not in original:
        raise PeersError(f"{target} has no {PLANT[0].strip()!r}; the planted slowdown needs {XXHASH[1]}")
    target.write_text(original + "\n// A comment: the same code as r1, built separately.\n")
    git("commit", "-qam", "r2: comment only")
    git("tag", "r2")
    target.write_text(original.replace(PLANT[0], PLANT[1]) + "\nvar plantedSink uint64\n")
    git("commit", "-qam", "r3: planted busy loop in Sum64String")
    git("tag", "r3")
    return repo


def gate_config(benchtime: str, suite_runs: int, iterations: int, measurements: int) -> str:
    benches = "".join(f'[[benchmark]]\nname = "{b}"\n' for b in REAL_BENCHMARKS)
    tops = "|".join(sorted({b.split("/")[0] for b in REAL_BENCHMARKS}))
    return (
        f'[suite]\nadapter = "go"\ntimeout = 300\n{benches}\n[go]\nbenchtime = "{benchtime}"\n'
        # [[benchmark]] entries add to what discovery lists; include narrows it (docs/frameworks.md "[go]").
        f'include = "^({tops})$"\n\n'
        f"[full]\nsuite_runs = {suite_runs}\niterations = {iterations}\nmeasurements = {measurements}\n"
    )


def gate_verdicts(
    repo: Path, work: Path, env: dict[str, str], head: str, config: str
) -> dict[str, tuple[str, float | None]]:
    out = work / f"gate-{head}"
    cfg = work / f"gate-{head}.toml"
    cfg.write_text(config)
    gate = [sys.executable, "-m", "gate"]
    _run(
        [
            *gate,
            "run",
            "--config",
            str(cfg),
            "--repo",
            str(repo),
            "--base",
            "r1",
            "--head",
            head,
            "--out",
            str(out),
            "--seed",
            "7",
            "--instance",
            "peers",
        ],
        env=env,
        cwd=REPO,
        fix=f"see {out}",
    )
    _run(
        [*gate, "analyze", str(out / "trials.csv"), "--json", str(out / "analysis.json")],
        env=env,
        cwd=REPO,
        fix=f"see {out}",
    )
    analysis = json.loads((out / "analysis.json").read_text())
    measured = sorted(b["benchmark"] for b in analysis["benchmarks"])
    if measured != sorted(REAL_BENCHMARKS):
        raise PeersError(f"the gate measured {measured}, not {sorted(REAL_BENCHMARKS)}; fix gate_config()")
    return {b["benchmark"]: (b["verdict"], b.get("change_pct")) for b in analysis["benchmarks"]}


def go_test_count(repo: Path, rev: str, work: Path, env: dict[str, str], benchtime: str, count: int) -> str:
    tree = work / f"tree-{rev}"
    if not tree.exists():
        _run(
            ["git", "-C", str(repo), "worktree", "add", "-q", "--detach", str(tree), rev],
            env={**os.environ, **GIT_ENV},
            fix="install git",
        )
    pattern = "|".join(re.escape(b.split("/")[0]) for b in REAL_BENCHMARKS)
    subs = "|".join(sorted({re.escape(b.split("/")[1]) for b in REAL_BENCHMARKS}))
    done = _run(
        [
            "go",
            "test",
            "-run",
            "^$",
            "-bench",
            f"^({pattern})$/^({subs})$",
            "-benchtime",
            benchtime,
            "-count",
            str(count),
            ".",
        ],
        env=env,
        cwd=tree,
        fix="see the go test output above",
    )
    return done.stdout


def go_values(text: str) -> dict[str, np.ndarray]:
    """ns/op per benchmark from real ``go test`` output, read by the gate's own Go parser."""
    from gate.adapters.gotest_output import parse_results

    out: dict[str, list[float]] = {}
    for bench in REAL_BENCHMARKS:
        for name, fields in parse_results(text, bench):
            if name != bench:
                continue
            match = re.search(r"([-+0-9.eE]+) ns/op", fields)
            if match:
                out.setdefault(bench, []).append(float(match.group(1)))
    return {k: np.array(v) for k, v in out.items()}


def real_module(cache: Path, work: Path, benchstat: Path, args: argparse.Namespace) -> str:
    module = fetch_module(cache)
    repo = make_module_repo(module, work)
    env = go_env(cache, offline=True)
    config = gate_config(args.benchtime, args.suite_runs, args.iterations, args.measurements)
    rows: dict[str, dict[str, str]] = {}
    changes: dict[str, dict[str, str]] = {}
    texts: dict[str, str] = {}
    t0 = time.perf_counter()
    for rev in ("r1", "r2", "r3"):
        texts[rev] = go_test_count(repo, rev, work, env, args.benchtime, args.count)
    go_s = time.perf_counter() - t0
    (work / "go-test-r1.txt").write_text(texts["r1"])
    t0 = time.perf_counter()
    for head, label in (("r2", "A/A"), ("r3", "slowdown")):
        gate = gate_verdicts(repo, work, env, head, config)
        base_v, head_v = go_values(texts["r1"]), go_values(texts[head])
        step = work / f"b-{head}"
        step.mkdir(exist_ok=True)
        said = run_benchstat(benchstat, texts["r1"], texts[head], step, procs=None)
        said = {re.sub(r"-\d+$", "", k): v for k, v in said.items()}
        (step / "base.json").write_text(
            json.dumps(pytest_benchmark_saved_run({b: v / 1e9 for b, v in base_v.items()}))
        )
        (step / "head.json").write_text(
            json.dumps(pytest_benchmark_saved_run({b: v / 1e9 for b, v in head_v.items()}))
        )
        pb = {
            expr: pytest_benchmark_verdicts(step / "base.json", step / "head.json", expr)
            for expr in PYTEST_EXPRS
        }
        for bench in REAL_BENCHMARKS:
            key = f"{label}: {bench}"
            verdict, change = gate.get(bench, ("missing", None))
            median_change = 100 * (np.median(head_v[bench]) / np.median(base_v[bench]) - 1)
            changes[key] = {
                "gate": f"{change:+.1f} %" if change is not None else "n/a",
                "go test": f"{median_change:+.1f} %",
            }
            cs = codspeed_rates(base_v[bench], head_v[bench])
            rows[key] = {
                "gate": verdict,
                "benchstat": said.get(bench, "missing"),
                **{f"pytest-benchmark {e}": pb[e].get(bench, "missing") for e in PYTEST_EXPRS},
                "github-action-benchmark 200%": f"alert in {100 * gab_alert_rate(base_v[bench], head_v[bench]):.0f} %",
                "CodSpeed 10%": f"regr. {100 * cs['regression']:.0f} % / impr. {100 * cs['improvement']:.0f} %",
            }
    gate_s = time.perf_counter() - t0
    lines = [
        f"(b) {XXHASH[0]}@{XXHASH[1]}: gate run {args.suite_runs} suite runs × {args.iterations} iterations × "
        f"{args.measurements} measurements, benchtime {args.benchtime} ({gate_s:.0f} s for both comparisons); "
        f"peers on `go test -count {args.count} -benchtime {args.benchtime}` per revision ({go_s:.0f} s). "
        "Fixed-ratio rules: share of single-run pairs that trigger them.",
        "",
        "| comparison: benchmark | change (gate, median) | change (go test medians) | "
        + " | ".join(TOOLS)
        + " |",
        "|---|---|---|" + "---|" * len(TOOLS),
    ]
    for key, row in rows.items():
        lines.append(
            f"| {key} | {changes[key]['gate']} | {changes[key]['go test']} | "
            + " | ".join(row[t] for t in TOOLS)
            + " |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the µOpTime Go data folder (default uoptime_go in $ORDERTRAP_REFERENCE_DATA, else ../shared/data)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="benchstat, Go module and build cache (default ~/.cache/ordertrap-gate-peers)",
    )
    parser.add_argument("--part", choices=("a", "b", "all"), default="all")
    parser.add_argument("--resamples", type=int, default=AnalysisSettings().resamples)
    parser.add_argument("--benchtime", default="100ms")
    parser.add_argument("--count", type=int, default=10, help="go test -count for the peers in (b)")
    parser.add_argument("--suite-runs", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--measurements", type=int, default=3)
    args = parser.parse_args(argv)
    if args.part in ("a", "all") and not (args.data / "toml" / "measurements.csv").exists():
        print(
            f"error: the µOpTime Go data is not at {args.data}\n"
            f"fix: put the reference data in {reference_data()} (set {REFERENCE_ENV} to move it) or pass --data DIR",
            file=sys.stderr,
        )
        return 2
    cache = cache_dir(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    try:
        benchstat = install_benchstat(cache)
        with tempfile.TemporaryDirectory(prefix="ordertrap-peers-") as tmp:
            work = Path(tmp)
            if args.part in ("a", "all"):
                print(recorded_table(recorded(args.data, benchstat, work, args.resamples)), flush=True)
                print()
            if args.part in ("b", "all"):
                print(real_module(cache, work, benchstat, args), flush=True)
    except PeersError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
