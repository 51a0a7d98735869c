"""Sharding a 400-benchmark suite (``run --shard K/N``), replayed from the µOpTime Go data in
simulated time; and ``analyze`` + ``report`` on 10,000 benchmarks from 8 shards.

Data: ``uoptime_go/<project>/measurements.csv`` in the reference data folder
(``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py), read in place.

**The suite.** One benchmark of the suite is one recorded series: a (project, version, cloud
instance, Go benchmark) of the data, 3 suite runs × 5 iterations × 5 one-second values; 400 of
the 990 series are drawn with the seed. ``ordertrap-gate calibrate`` (the real command) chooses
each benchmark's minimal configuration from its series, so the suite has the spread of costs a
calibrated suite has (3 to 75 values per version).

**A run.** For N = 1, 2, 4, 8 and each shard K, the gate's own planner
(:func:`gate.engine.plan.plan_run` with ``shard=K/N``, the code ``run`` calls after discovery)
plans the shard's RMIT schedule from the suite, the calibration and the seed. Each planned trial
of m measurements is served the first m values of the next recorded block (one ``go test``
process) of its side: a series' 15 blocks are split at random into base's and head's pools, and a
seeded quarter of the benchmarks gets head's values × 1.10 (lower is better), the rest are A/A.
The trial log and meta.json of each shard are written as ``run`` writes them (the same
meta.json ``shard`` record), then the real ``ordertrap-gate analyze`` merges the shards' logs.
Time is simulated as in eval/adaptive_replay.py: µOpTime ran ``go test -benchtime 1s``, so a
value stands for 1 s; a shard's time is the values it measured. No processes are started (the
command-adapter harness of eval/adaptive_replay.py would start one per value: ~7,000 per N on
this 2-core machine); the trials' values do not depend on the shard that serves them, so the
verdicts of a sharded run must equal the unsharded run's benchmark by benchmark, which checks
that the merge loses, duplicates and mis-configures nothing. Follow-up rounds are not replayed.

Printed: per N the slowest shard's simulated time against the ideal total/N, the same for a
split by count (names dealt round-robin, for comparison), the verdict counts and the decision;
then N = 8 with shard 3's log deleted; then the 10,000-benchmark analysis (wall time and peak
memory of each command in its own process, and the comment's length).

    .venv/bin/python -m eval.shard_replay [--benchmarks 400] [--large 10000] [--work DIR] [--seed 1]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from eval.reference_data import reference_data, require

DATA = reference_data("uoptime_go")
FULL = (3, 5, 5)
SHARDS = (1, 2, 4, 8)
SLOWDOWN = 1.10
SLOWED_SHARE = 0.25
BASE, HEAD = "base", "head"


def _rng(seed: int, *parts: str) -> np.random.Generator:
    digest = hashlib.sha256("\x00".join(parts).encode()).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])


# ---- the suite ------------------------------------------------------------------------------------
def load_series(data: Path) -> dict[str, list[np.ndarray]]:
    """Every recorded series by suite name: its blocks (one per suite run × iteration) of 5 values."""
    out: dict[str, list[np.ndarray]] = {}
    for project in sorted(p.name for p in data.iterdir() if (p / "measurements.csv").is_file()):
        df = pd.read_csv(data / project / "measurements.csv")
        df = df.sort_values(["version", "instance", "benchmark", "suite_run", "iteration", "second"])
        for (version, instance, bench), rows in df.groupby(["version", "instance", "benchmark"], sort=True):
            blocks = [
                g["ns_per_op"].to_numpy(dtype=np.float64)
                for _, g in rows.groupby(["suite_run", "iteration"], sort=True)
            ]
            out[f"{project}/{version}/i{instance}/{bench}"] = blocks
    return out


def pick_suite(series: Mapping[str, list[np.ndarray]], n: int, seed: int) -> dict[str, list[np.ndarray]]:
    names = sorted(series)
    if n <= len(names):
        chosen = sorted(_rng(seed, "suite").choice(len(names), size=n, replace=False))
        return {names[i]: series[names[i]] for i in chosen}
    # more benchmarks than series (the 10,000-benchmark scale run): the series again, renamed
    return {f"{names[i % len(names)]}#{i // len(names)}": series[names[i % len(names)]] for i in range(n)}


def calibrate(suite: Mapping[str, list[np.ndarray]], work: Path) -> Path:
    """``ordertrap-gate calibrate`` on each benchmark's full series (one version)."""
    from gate.cli import main as gate_main

    out = work / "calibration.json"
    rows = []
    for name, blocks in suite.items():
        for b, block in enumerate(blocks):
            s, i = divmod(b, FULL[1])
            for m, v in enumerate(block, start=1):
                rows.append((name, "v", 1, s + 1, i + 1, m, v))
    src = work / "calibration-input.csv"
    cols = ["benchmark", "version", "instance", "suite_run", "iteration", "measurement", "value"]
    pd.DataFrame(rows, columns=cols).to_csv(src, index=False)
    with contextlib.redirect_stdout(io.StringIO()):
        status = gate_main(
            ["calibrate", str(src), "--levels", "suite_run,iteration,measurement", "--out", str(out)]
        )
    if status != 0:
        raise RuntimeError(f"calibrate failed (status {status})")
    return out


def config(work: Path) -> Any:
    from gate.config.project_config import parse_config

    text = (
        '[suite]\nadapter = "command"\n[[benchmark]]\nname = "x"\ncommand = "true"\n'
        f"[full]\nsuite_runs = {FULL[0]}\niterations = {FULL[1]}\nmeasurements = {FULL[2]}\n"
    )
    return parse_config(text.encode(), work / ".ordertrap.toml")


# ---- one sharded run ----------------------------------------------------------------------------
class Server:
    """The values each trial gets: per benchmark and side the next recorded block, in a seeded
    order (module doc); the same whatever shard asks."""

    def __init__(self, suite: Mapping[str, list[np.ndarray]], seed: int, share: float = SLOWED_SHARE) -> None:
        self.suite, self.seed = suite, seed
        slowed = _rng(seed, "slowed").random(len(suite)) < share
        self.factor = {n: (SLOWDOWN if s else 1.0) for n, s in zip(sorted(suite), slowed, strict=True)}
        self.pools: dict[tuple[str, str], list[np.ndarray]] = {}
        for name, blocks in suite.items():
            perm = _rng(seed, name, "split").permutation(len(blocks))
            half = len(blocks) // 2
            self.pools[(name, BASE)] = [blocks[i] for i in sorted(perm[:half])]
            self.pools[(name, HEAD)] = [blocks[i] * self.factor[name] for i in sorted(perm[half:])]

    def values(self, name: str, version: str, k: int, m: int) -> np.ndarray:
        """The k-th trial (0-based) of ``name``@``version``: m values."""
        pool = [b for b in self.pools[(name, version)] if len(b) >= m]
        cycle, i = divmod(k, len(pool))
        order = _rng(self.seed, name, version, str(cycle)).permutation(len(pool))
        return pool[order[i]][:m]


def plan_shard(
    suite: Sequence[str], cfg: Any, calibration: Any, shard: str | None, seed: int, instance: str
) -> Any:
    from gate.adapters.base import BenchmarkSpec
    from gate.engine.plan import plan_run
    from gate.engine.shard import parse_shard

    per_version = {
        v: {n: BenchmarkSpec(n, command="true", unit="ns/op", higher_is_better=False) for n in suite}
        for v in (BASE, HEAD)
    }
    return plan_run(
        per_version, cfg, calibration, order_check=False, revisions=[BASE, HEAD], seed=seed,
        instance=instance, order_pairs=None, shard=None if shard is None else parse_shard(shard),
    )  # fmt: skip


def write_shard(plan: Any, server: Server, out: Path, cfg: Any, calibration: Any, seed: int) -> float:
    """The shard's trials.csv and meta.json as ``run`` writes them; returns its simulated seconds."""
    from gate.engine.plan import benchmark_meta
    from gate.engine.record import benchmark_configs, shard_record
    from gate.files import run_meta
    from gate.files.run_meta import Levels, RunMeta, VersionRecord
    from gate.model import TRIAL_COLUMNS

    out.mkdir(parents=True, exist_ok=True)
    seen: dict[tuple[str, str], int] = {}
    cols: dict[str, list[Any]] = {c: [] for c in TRIAL_COLUMNS}
    spent = 0.0
    for t in plan.schedule:
        k = seen.get((t.benchmark, t.version), 0)
        seen[(t.benchmark, t.version)] = k + 1
        values = server.values(t.benchmark, t.version, k, t.measurements)
        spent += len(values)
        for m, v in enumerate(values, start=1):
            row = (
                t.trial, t.benchmark, t.version, t.instance, t.suite_run, t.order_type, t.position,
                t.iteration, m, repr(float(v)), "ns/op", "false", "ok", "", "", float(len(values)),
                t.config_source, 0,
            )  # fmt: skip
            for c, x in zip(TRIAL_COLUMNS, row, strict=True):
                cols[c].append(x)
    pd.DataFrame(cols).to_csv(out / "trials.csv", index=False)
    meta = RunMeta(
        seed=seed,
        mode="rmit",
        config_hash=cfg.config_hash,
        adapter="command",
        versions={BASE: VersionRecord("base", "0" * 40), HEAD: VersionRecord("head", "1" * 40)},
        base=BASE,
        head=HEAD,
        instance=plan.schedule[0].instance,
        full=Levels(*FULL),
        calibration={"path": calibration.path, "sha256": "replayed"},
        benchmark_configs=benchmark_configs(plan, calibration),
        benchmarks=benchmark_meta(plan.names, plan.per_version),
        schedule=[t.as_meta() for t in plan.schedule],
        shard=shard_record(plan),
    )
    run_meta.write(out / "meta.json", meta)
    return spent


def analyze(logs: Sequence[Path], out: Path) -> dict[str, Any]:
    from gate.cli import main as gate_main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        gate_main(["analyze", *map(str, logs), "--json", str(out)])
    return json.loads(out.read_text())


def count_split_slowest(names: Sequence[str], costs: Mapping[str, float], n: int) -> float:
    """The slowest shard when the names are dealt round-robin (a split by count)."""
    load = [0.0] * n
    for i, name in enumerate(sorted(names)):
        load[i % n] += costs[name]
    return max(load)


def split_experiment(suite: Mapping[str, list[np.ndarray]], work: Path, seed: int) -> list[str]:
    from gate.files import calibration_json

    work.mkdir(parents=True, exist_ok=True)
    cal_path = calibrate(suite, work)
    calibration = calibration_json.read(cal_path)
    cfg = config(work)
    server = Server(suite, seed)
    names = sorted(suite)
    lines = [
        f"{len(names)} benchmarks ({sum(f > 1 for f in server.factor.values())} with head × {SLOWDOWN:g}, "
        f"the rest A/A); simulated seconds (1 value = 1 s)",
        "",
        "| N | total | ideal (total/N) | slowest shard (LPT) | × ideal | by count: slowest | × ideal | "
        "verdicts (regression / improvement / unchanged / inconclusive / failed) | decision | same verdicts as N = 1 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    reference: dict[str, str] | None = None
    for n in SHARDS:
        logs, times = [], []
        for k in range(1, n + 1):
            shard = None if n == 1 else f"{k}/{n}"
            plan = plan_shard(names, cfg, calibration, shard, seed, f"runner-{k}")
            out = work / f"N{n}" / f"shard{k}"
            times.append(write_shard(plan, server, out, cfg, calibration, seed))
            logs.append(out / "trials.csv")
        doc = analyze(logs, work / f"N{n}" / "analysis.json")
        verdicts = {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]}
        if reference is None:
            reference = verdicts
        c = doc["summary"]["counts"]
        total = sum(times)
        # per-benchmark simulated cost of the whole suite: the planned values × 2 versions
        full_plan = plan_shard(names, cfg, calibration, None, seed, "x")
        costs = {
            b: 2.0 * lv.suite_runs * lv.iterations * lv.measurements for b, lv in full_plan.levels.items()
        }
        by_count = count_split_slowest(names, costs, n)
        same = sum(verdicts.get(b) == v for b, v in reference.items())
        lines.append(
            f"| {n} | {total:,.0f} | {total / n:,.0f} | {max(times):,.0f} | {max(times) / (total / n):.3f} | "
            f"{by_count:,.0f} | {by_count / (total / n):.3f} | {c['regression']} / {c['improvement']} / "
            f"{c['unchanged']} / {c['inconclusive']} / {c['failed']} | {doc['summary']['decision']} | "
            f"{same}/{len(reference)} |"
        )
    # N = 8 with shard 3's log deleted
    logs = [work / "N8" / f"shard{k}" / "trials.csv" for k in range(1, 9) if k != 3]
    doc = analyze(logs, work / "N8" / "analysis-without-3.json")
    lost = [b for b in doc["benchmarks"] if b["reason"].startswith("not measured")]
    planned = json.loads((work / "N8" / "shard1" / "meta.json").read_text())["shard"]
    of_3 = sorted(b for b, k in planned["assignment"].items() if k == 3)
    named = sorted(b["benchmark"] for b in lost)
    lines += [
        "",
        f"N = 8 without shard 3's log: decision **{doc['summary']['decision']}**; "
        f"{len(lost)} benchmarks not measured, {'exactly' if named == of_3 else 'NOT'} the {len(of_3)} "
        f"benchmarks of shard 3 (each listed by name, verdict inconclusive); "
        f"summary.shards.missing = {doc['summary']['shards']['missing']}",
    ]
    # the same suite A/A (no slowdown), N = 8: complete, then each shard's log deleted in turn
    aa = Server(suite, seed, share=0.0)
    logs = []
    for k in range(1, 9):
        plan = plan_shard(names, cfg, calibration, f"{k}/8", seed, f"runner-{k}")
        out = work / "AA" / f"shard{k}"
        write_shard(plan, aa, out, cfg, calibration, seed)
        logs.append(out / "trials.csv")
    whole = analyze(logs, work / "AA" / "analysis.json")["summary"]
    without = [
        analyze([x for j, x in enumerate(logs) if j != k], work / "AA" / f"analysis-{k}.json")["summary"]
        for k in range(8)
    ]
    decisions = sorted({d["decision"] for d in without})
    lines.append(
        f"A/A, N = 8: all shards → decision {whole['decision']} ({whole['counts']['inconclusive']} inconclusive, "
        f"{whole['counts']['regression']} regression); each shard's log deleted in turn (8 analyses) → "
        f"decision {' / '.join(decisions)}, with {min(d['shards']['not_measured'] for d in without)}–"
        f"{max(d['shards']['not_measured'] for d in without)} benchmarks not measured"
    )
    return lines


# ---- 10,000 benchmarks ----------------------------------------------------------------------------
def _measured(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one gate command in its own process (the
    CPU time is what to compare on a machine shared with other work)."""
    code = (
        "import resource, sys, time; from gate.cli import main; t = time.perf_counter(); "
        "rc = main(sys.argv[1:]); u = resource.getrusage(resource.RUSAGE_SELF); "
        "print(time.perf_counter() - t, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, file=sys.stderr); "
        "sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1, 2):
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    wall, cpu, rss = proc.stderr.strip().splitlines()[-1].split()
    return float(wall), float(cpu), float(rss)


def scale_experiment(series: Mapping[str, list[np.ndarray]], n: int, work: Path, seed: int) -> list[str]:
    from gate.files import calibration_json

    suite = pick_suite(series, n, seed)
    calibration = calibration_json.read(calibrate(suite, work))
    cfg = config(work)
    server = Server(suite, seed)
    names = sorted(suite)
    logs = []
    rows = 0
    for k in range(1, 9):
        plan = plan_shard(names, cfg, calibration, f"{k}/8", seed, f"runner-{k}")
        out = work / "large" / f"shard{k}"
        write_shard(plan, server, out, cfg, calibration, seed)
        rows += sum(1 for _ in (out / "trials.csv").open()) - 1
        logs.append(out / "trials.csv")
    doc = work / "large" / "analysis.json"
    t_an, c_an, m_an = _measured(["analyze", *map(str, logs), "--json", str(doc)])
    comment = work / "large" / "comment.md"
    t_re, c_re, m_re = _measured(["report", str(doc), "--format", "comment", "--out", str(comment)])
    length = len(comment.read_text(encoding="utf-8"))
    return [
        "",
        f"{n:,} benchmarks from 8 shards ({rows:,} rows): `analyze` {t_an:.1f} s wall ({c_an:.1f} s CPU), "
        f"peak {m_an:,.0f} MiB; `report --format comment` {t_re:.1f} s wall ({c_re:.1f} s CPU), peak "
        f"{m_re:,.0f} MiB; comment {length:,} characters (GitHub's limit 65,536)",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=400)
    parser.add_argument("--large", type=int, default=10_000, help="benchmarks of the scale run (0: skip)")
    parser.add_argument("--only-large", action="store_true", help="skip the 400-benchmark split experiment")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, help="keep the logs here (default: a temporary folder)")
    args = parser.parse_args(argv)
    data = require(DATA, "uoptime_go")
    series = load_series(data)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shard-replay-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        lines = (
            []
            if args.only_large
            else split_experiment(pick_suite(series, args.benchmarks, args.seed), work / "split", args.seed)
        )
        if args.large:
            (work / "scale").mkdir(parents=True, exist_ok=True)
            lines += scale_experiment(series, args.large, work / "scale", args.seed)
    print("\n".join(lines))
    print(f"\n(harness wall time {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
