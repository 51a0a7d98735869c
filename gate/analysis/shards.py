"""``analyze`` over the logs of a sharded run (``run --shard K/N``; docs/github-actions.md,
"Sharding a suite").

Every shard's meta.json carries the whole suite's split (``shard``), so the logs together say
what was planned. What this module guarantees:

* **nothing silently missing**: a benchmark of a shard whose log is missing (a failed or cancelled
  job, an artifact not downloaded), or whose planned trials are not all in the log on any of the
  shard's runners (a killed run, an empty log), is listed by name as *not measured*: an
  ``inconclusive`` benchmark, so the decision can never be ``pass`` (gate/decision.py);
* **one suite, one split**: logs of different suites, configurations, revisions or splits, the
  same benchmark from two shards, or the same shard twice from one runner are refused with the fix,
  before anything is compared; a sharded log beside an unsharded one too;
* **replication kept**: a shard measured on several runners (a matrix of shards × instances)
  keeps each runner's log as its own source, so the trial and instance structure the comparison
  and the similarity check use is the one it would have unsharded;
* **time**: each shard's time (the follow-up budget clock's when it ran rounds, else the trials'
  own ``elapsed_s``), the slowest shard (the wall time a PR waits) and the machine time of all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from gate.analysis.compare import Comparison, VersionResult
from gate.analysis.load import TrialLogs
from gate.errors import InputError
from gate.files.run_meta import AdaptiveRecord, GiveUpRecord, RunMeta, ShardRecord
from gate.model import Verdict, warning
from gate.warning_codes import WarningCode

NOT_MEASURED = "not measured:"  # how the reason of a benchmark no shard measured begins

_FIX_ONE_RUN = (
    "pass the logs of one sharded run only (the artifacts of one workflow run); rerun every shard "
    "with the same config, calibration, revisions and --seed if they differ"
)


@dataclass(frozen=True)
class ShardLog:
    source: int
    path: str
    shard: ShardRecord
    instance: str
    spent_s: float
    complete: bool


@dataclass(frozen=True)
class Coverage:
    """What the shards' logs measured: ``not_measured`` benchmark -> why."""

    count: int
    split: ShardRecord
    logs: Sequence[ShardLog]
    missing: Sequence[int]
    not_measured: Mapping[str, str]
    warnings: Sequence[dict[str, str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """analysis.json ``summary.shards`` (docs/contracts.md)."""
        wall: dict[int, float] = {}
        for log in self.logs:
            wall[log.shard.index] = max(wall.get(log.shard.index, 0.0), log.spent_s)
        slowest = max(wall, key=lambda k: (wall[k], -k)) if wall else None
        machine = sum(log.spent_s for log in self.logs)
        return {
            "count": self.count,
            "method": self.split.method,
            "logs": [
                {
                    "shard": log.shard.label,
                    "instance": log.instance,
                    "log": log.path,
                    "spent_s": round(log.spent_s, 3),
                    "complete": log.complete,
                }
                for log in sorted(self.logs, key=lambda x: (x.shard.index, x.instance))
            ],
            "missing": [f"{k}/{self.count}" for k in self.missing],
            "not_measured": len(self.not_measured),
            "slowest": None if slowest is None else f"{slowest}/{self.count}",
            "slowest_s": None if slowest is None else round(wall[slowest], 3),
            "machine_s": round(machine, 3),
        }


def _identity(meta: RunMeta) -> dict[str, Any]:
    """What every shard of one run shares."""
    assert meta.shard is not None
    return {
        "shard count": meta.shard.count,
        "split seed": meta.shard.seed,
        "config hash": meta.config_hash,
        "mode": meta.mode,
        "base": meta.base,
        "head": meta.head,
        "revisions": {rev: v.sha for rev, v in sorted(meta.versions.items())},
        "calibration": (meta.calibration or {}).get("sha256"),
        "suite": tuple(meta.shard.suite),
        "split": dict(meta.shard.assignment),
    }


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return f"{len(value)} benchmarks"
    if isinstance(value, dict) and value and all(isinstance(v, int) for v in value.values()):
        return f"a split of {len(value)} benchmarks"
    return repr(value)


def _spent(frame: pd.DataFrame, meta: RunMeta) -> float:
    """The shard's time: the budget clock's with follow-up rounds, else its trials' elapsed_s."""
    if meta.adaptive is not None and meta.adaptive.final is not None:
        return float(meta.adaptive.final.used_s)
    if frame.empty or not {"trial", "elapsed_s"} <= set(frame.columns):
        return 0.0
    trials = frame.drop_duplicates(["trial"])
    return float(pd.to_numeric(trials["elapsed_s"], errors="coerce").fillna(0.0).sum())


def _missing_planned(frame: pd.DataFrame, meta: RunMeta) -> dict[str, int]:
    """Benchmark -> planned trials of it (round 0) not in the log; given-up ones are not missing."""
    if not meta.schedule:
        return {}
    planned = pd.DataFrame(
        {
            "trial": [int(t["trial"]) for t in meta.schedule],
            "benchmark": [str(t["benchmark"]) for t in meta.schedule],
            "version": [str(t["version"]) for t in meta.schedule],
        }
    )
    given_up = {(g.benchmark, g.version) for g in meta.given_up}
    if given_up:
        keep = [(b, v) not in given_up for b, v in zip(planned["benchmark"], planned["version"], strict=True)]
        planned = planned.loc[keep]
    logged: set[int] = set()
    if "trial" in frame.columns and not frame.empty:
        logged = set(pd.to_numeric(frame["trial"], errors="coerce").dropna().astype(np.int64).tolist())
    lost = planned.loc[~planned["trial"].isin(logged)]
    return {str(k): int(n) for k, n in lost.groupby("benchmark").size().items()}


def coverage(logs: TrialLogs) -> Coverage | None:
    """The shards of ``logs`` checked (module doc); None when no log is a shard's."""
    if not any(m.shard is not None for m in logs.metas):
        return None
    # TrialLogs built by hand (tests) may leave meta_sources out: then meta i is log i's
    of_meta = logs.meta_sources if len(logs.meta_sources) == len(logs.metas) else range(len(logs.metas))
    metas = dict(zip(of_meta, logs.metas, strict=True))
    sharded = {src: m for src, m in metas.items() if m.shard is not None}
    if not sharded:
        return None
    frame = logs.frame
    sources = set(int(s) for s in frame["source"].unique()) | set(metas)
    plain = sorted(sources - set(sharded))
    first_src = min(sharded)
    first = sharded[first_src]
    assert first.shard is not None
    if plain:
        raise InputError(
            f"{logs.paths[plain[0]]} is not a shard's log (its meta.json has no shard record, or it has "
            f"none), while {logs.paths[first_src]} is shard {first.shard.label}: a shard's benchmarks "
            "would be counted twice or compared across machines",
            "analyze the shards' logs together and an unsharded run's log on its own",
        )
    want = _identity(first)
    for src, meta in sorted(sharded.items()):
        got = _identity(meta)
        for what, value in want.items():
            if got[what] != value:
                raise InputError(
                    f"{logs.paths[src]} and {logs.paths[first_src]} are shards of different runs: "
                    f"{what} {_shown(got[what])} vs {_shown(value)}",
                    _FIX_ONE_RUN,
                )
    split = first.shard
    count = split.count
    by_runner: dict[tuple[int, str], int] = {}
    shard_of_source = {src: m.shard.index for src, m in sharded.items() if m.shard is not None}
    for src, meta in sorted(sharded.items()):
        assert meta.shard is not None
        key = (meta.shard.index, str(meta.instance or ""))
        if key in by_runner:
            raise InputError(
                f"{logs.paths[src]} and {logs.paths[by_runner[key]]} are both shard {meta.shard.label} "
                f"from runner {key[1]!r}: its benchmarks would be counted twice",
                "pass one log per shard and runner; to replicate a shard on several runners give each "
                "its own --instance (the run action's default is the runner's name)",
            )
        by_runner[key] = src
    # the same benchmark from two shards, or in a shard the split does not put it in
    if not frame.empty:
        pairs = frame[["source", "benchmark"]].drop_duplicates()
        pairs = pairs.assign(_shard=pairs["source"].map(shard_of_source))
        per = pairs.drop_duplicates(["benchmark", "_shard"])
        twice = per.loc[per.duplicated("benchmark", keep=False)]
        if not twice.empty:
            name = str(twice["benchmark"].iloc[0])
            where = sorted(int(k) for k in twice.loc[twice["benchmark"] == name, "_shard"])
            raise InputError(
                f"benchmark {name} is in the logs of shards {' and '.join(f'{k}/{count}' for k in where)} "
                f"({int(twice['benchmark'].nunique())} such benchmark(s)): one suite's shards never share one",
                _FIX_ONE_RUN,
            )
        planned_shard = per["benchmark"].map(split.assignment)
        wrong = per.loc[planned_shard.to_numpy() != per["_shard"].to_numpy()]
        if not wrong.empty:
            row = wrong.iloc[0]
            k = split.assignment.get(str(row["benchmark"]))
            raise InputError(
                f"{logs.paths[int(row['source'])]} (shard {int(row['_shard'])}/{count}) holds benchmark "
                f"{row['benchmark']}, which the split puts "
                + (f"on shard {k}/{count}" if k else "in no shard (it is not in the suite)"),
                _FIX_ONE_RUN,
            )
    warnings: list[dict[str, str]] = []
    present = sorted({m.shard.index for m in sharded.values() if m.shard is not None})
    missing = [k for k in range(1, count + 1) if k not in present]
    not_measured: dict[str, str] = {}
    for k in missing:
        for name in split.benchmarks_of(k):
            not_measured[name] = (
                f"{NOT_MEASURED} the log of shard {k}/{count} is missing (its job failed or was cancelled, "
                "or its artifact was not passed to analyze); rerun that shard"
            )
    if missing:
        names = [n for k in missing for n in split.benchmarks_of(k)]
        warnings.append(
            warning(
                WarningCode.SHARD_MISSING,
                f"{len(missing)} of {count} shards have no log ({', '.join(f'{k}/{count}' for k in missing)}): "
                f"{len(names)} benchmark(s) not measured, so the decision cannot be pass: "
                + ", ".join(names[:10])
                + (f" and {len(names) - 10} more" if len(names) > 10 else ""),
                "rerun the failed shard job(s) of the workflow, or pass every shard's trials.csv (with its "
                "meta.json) to analyze",
            )
        )
    # incomplete: a benchmark whose planned trials are not all in any log of its shard
    shard_logs: list[ShardLog] = []
    lost_by_shard: dict[int, list[dict[str, int]]] = {}
    for src, meta in sorted(sharded.items()):
        assert meta.shard is not None
        rows = frame.loc[frame["source"] == src]
        lost = _missing_planned(rows, meta)
        lost_by_shard.setdefault(meta.shard.index, []).append(lost)
        shard_logs.append(
            ShardLog(src, logs.paths[src], meta.shard, str(meta.instance or ""), _spent(rows, meta), not lost)
        )
    for k, losts in sorted(lost_by_shard.items()):
        everywhere = set.intersection(*(set(lost) for lost in losts))
        somewhere = set.union(*(set(lost) for lost in losts)) - everywhere
        for name in sorted(everywhere):
            n = min(lost[name] for lost in losts)
            not_measured[name] = (
                f"{NOT_MEASURED} the log of shard {k}/{count} lacks {n} of its planned trials (the run "
                "stopped early: killed, timed out or out of disk); rerun that shard (the same command "
                "with the same --out resumes it)"
            )
        if everywhere:
            warnings.append(
                warning(
                    WarningCode.SHARD_INCOMPLETE,
                    f"the log of shard {k}/{count} is incomplete: {len(everywhere)} benchmark(s) lack "
                    "planned trials and count as not measured: "
                    + ", ".join(sorted(everywhere)[:10])
                    + (" …" if len(everywhere) > 10 else ""),
                    "let the shard's run finish (rerun the job: the run resumes), then analyze again",
                )
            )
        if somewhere:
            warnings.append(
                warning(
                    WarningCode.SHARD_INCOMPLETE,
                    f"shard {k}/{count}: {len(somewhere)} benchmark(s) lack planned trials on some of its "
                    "runners and are compared on the values of the others",
                    "rerun the shard's incomplete job to measure them on every runner",
                )
            )
    replicas = {k: sum(1 for log in shard_logs if log.shard.index == k) for k in present}
    if len(set(replicas.values())) > 1:
        warnings.append(
            warning(
                WarningCode.SHARD_REPLICAS,
                "the shards were measured on different numbers of runners ("
                + ", ".join(f"{k}/{count}: {n}" for k, n in sorted(replicas.items()))
                + "): their benchmarks' intervals are not alike",
                "give every shard the same instances in the workflow matrix (shard × instance)",
            )
        )
    return Coverage(count, split, shard_logs, missing, not_measured, warnings)


def merged_meta(logs: TrialLogs) -> RunMeta | None:
    """One meta.json for the whole suite: the first shard's, with the first [suite] statistic any
    shard recorded, every shard's per-benchmark records (configurations, warm-up, thresholds,
    units, statistics, given-up) and each benchmark's
    follow-up outcome from its own shard; the follow-up times are the slowest shard's (each
    shard had the same budget)."""
    first = logs.meta
    if first is None or len(logs.metas) < 2:
        return first
    configs: dict[str, Any] = {}
    benchmarks: dict[str, Any] = {}
    thresholds: dict[str, float] = {}
    statistics: dict[str, str] = {}
    calibrated_statistics: dict[str, str] = {}
    given_up: list[GiveUpRecord] = []
    for m in logs.metas:
        configs.update(m.benchmark_configs)
        benchmarks.update(m.benchmarks)
        thresholds.update(m.thresholds)
        statistics.update(m.statistics)
        calibrated_statistics.update(m.calibrated_statistics)
        given_up.extend(m.given_up)
    adaptive = first.adaptive
    finals = [m.adaptive for m in logs.metas if m.adaptive is not None and m.adaptive.final is not None]
    if adaptive is not None and finals:
        slowest: AdaptiveRecord = max(finals, key=lambda a: float(a.final.used_s) if a.final else 0.0)
        assert slowest.final is not None
        unresolved: dict[str, Any] = {}
        for a in finals:
            assert a.final is not None
            unresolved.update(a.final.unresolved)
        adaptive = replace(slowest, final=replace(slowest.final, unresolved=unresolved))
    return replace(
        first,
        statistic=next((m.statistic for m in logs.metas if m.statistic is not None), None),
        benchmark_configs=configs,
        benchmarks=benchmarks,
        thresholds=thresholds,
        statistics=statistics,
        calibrated_statistics=calibrated_statistics,
        given_up=tuple(given_up),
        adaptive=adaptive,
    )


def runner_of(logs: TrialLogs) -> dict[str, str]:
    """Benchmark -> the runner (instance) that measured it, for the logs of a sharded run whose
    benchmarks each ran on one runner; empty otherwise."""
    if not any(m.shard is not None for m in logs.metas) or "instance" not in logs.frame.columns:
        return {}
    per = logs.frame.groupby("benchmark")["instance"].unique()
    return {str(b): str(v[0]) for b, v in per.items() if len(v) == 1}


def not_measured_comparisons(cov: Coverage) -> list[Comparison]:
    """One ``inconclusive`` comparison per benchmark no shard measured, its reason saying why."""
    empty = VersionResult(None, None, 0, 0)
    return [
        Comparison(name, Verdict.INCONCLUSIVE, why, None, None, empty, empty, False)
        for name, why in sorted(cov.not_measured.items())
    ]
