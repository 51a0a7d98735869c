"""meta.json of a run (docs/contracts.md): what it measures, from which files, on what machine.

A run writes it once, before the first trial; a rerun with the same ``--out`` resumes only when
everything that decides the trials is the same (:func:`check_resume`), so the trial log keeps
describing one run. The file itself is read and written by :mod:`gate.files.run_meta`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gate import __version__
from gate.adapters.base import VersionContext
from gate.config import config_files
from gate.config.project_config import ProjectConfig
from gate.engine.checkout import Version
from gate.engine.layout import Layout
from gate.engine.plan import (
    RunPlan,
    benchmark_meta,
    calibrated_statistics,
    never_stable,
    statistics,
    thresholds,
    warmup_of,
)
from gate.engine.shard import METHOD
from gate.errors import InputError
from gate.files import run_meta
from gate.files.calibration_json import Calibration
from gate.files.run_meta import BenchmarkConfig, Levels, RunMeta, ShardRecord, VersionRecord
from gate.model import TRIAL_LOG_SCHEMA, ConfigSource, utc_timestamp
from gate.rounds.config import AdaptiveConfig, adaptive_record


def read_existing(out: Path) -> RunMeta | None:
    """meta.json of the run in ``out`` to resume, None for a new run."""
    meta_path, log_path = out / run_meta.FILE_NAME, out / "trials.csv"
    if meta_path.exists():
        return run_meta.read(meta_path)
    if log_path.exists() and log_path.stat().st_size > 0:
        raise InputError(f"{log_path} exists without meta.json", "pass a new --out, or delete the directory")
    return None


def calibration_ref(calibration: Calibration | None, sha256: str | None) -> dict[str, Any] | None:
    """meta.json ``calibration``: the file a run applied, and the hash of its bytes."""
    if calibration is None:
        return None
    return {
        "path": calibration.path,
        "metric": calibration.metric,
        "threshold": calibration.threshold,
        "sha256": sha256,
    }


def identity(
    *,
    seed: int,
    config: ProjectConfig,
    mode: str,
    base: str | None,
    head: str,
    instance: str,
    calibration: Mapping[str, Any] | None,
    order_pairs: int | None,
    versions: Sequence[Version],
) -> RunMeta:
    """The fields a resumed run must repeat (compared by :func:`check_resume`)."""
    return RunMeta(
        seed=seed,
        config_hash=config.config_hash,
        mode=mode,
        base=base,
        head=head,
        instance=instance,
        calibration=calibration,
        order_pairs=order_pairs,
        versions={v.revision: VersionRecord(v.role, v.sha) for v in versions},
    )


def check_resume(meta: RunMeta, fresh: RunMeta, out: Path) -> None:
    for key in ("seed", "config_hash", "mode", "base", "head", "instance", "calibration", "order_pairs"):
        was, now = getattr(meta, key), getattr(fresh, key)
        if was != now:
            raise InputError(
                f"{out} holds a run with a different {key} ({was!r}, now {now!r})",
                f"pass a new --out to start a new run, or resume with the same seed/config/flags "
                f"(--seed {meta.seed})",
            )
    for rev, info in fresh.versions.items():
        old = meta.versions.get(rev, VersionRecord())
        if old.sha != info.sha:
            raise InputError(
                f"revision {rev!r} now points to {str(info.sha)[:12]}, but the run in {out} started at "
                f"{str(old.sha)[:12]}",
                # Resuming must measure the same code, and the version name is part of the log, so a
                # moved branch cannot continue this run (passing the SHA would rename the version).
                f"start a new run with a new --out (this one keeps its finished trials); to measure the "
                f"old code again, `git branch old-{info.role} {old.sha}` and pass that name",
            )


def check_adaptive_resume(meta: RunMeta, adaptive: AdaptiveConfig, out: Path) -> None:
    old = meta.adaptive
    if old is None:
        # A run without a budget made no look of its own: a budget given now adds follow-up rounds
        # after its planned trials, finished or not (the budget counts from its first planned
        # trial, as in a run started with it; docs/running.md "Follow-up rounds").
        return
    was = (float(old.budget_s), old.max_rounds)
    now = (adaptive.budget_s, adaptive.max_rounds if adaptive.on else was[1])
    if was != now:
        raise InputError(
            f"{out} holds a run with follow-up budget {was[0]:g} s and at most {was[1]} rounds, now "
            f"{now[0]:g} s and {now[1]}",
            f"resume with --budget {was[0]:g}s --max-rounds {was[1]} (the per-look confidence depends "
            "on them), or pass a new --out to start a new run",
        )


def new_meta(
    fresh: RunMeta,
    *,
    config_path: str,
    config: ProjectConfig,
    inputs: config_files.Inputs,
    changes_by_file: Mapping[str, list[str]],
    contexts: Mapping[str, VersionContext],
    plan: RunPlan,
    calibration: Calibration | None,
    environment: Mapping[str, Any],
    sandbox: Mapping[str, Any],
    layout: Layout,
    warnings: Sequence[Mapping[str, str]],
    adaptive: AdaptiveConfig,
) -> RunMeta:
    """meta.json of a new run: ``fresh`` (:func:`identity`) with everything else it records."""
    return replace(
        fresh,
        schema_version=TRIAL_LOG_SCHEMA,
        tool_version=__version__,
        created_at=utc_timestamp(),
        config_path=config_path,
        # where each file came from (a pull request's run reads them from base) and what head changes
        sources={
            "config": inputs.config_source.meta(
                changes_by_file.get("config"), changes_by_file.get("config_since_branch")
            ),
            "calibration": None
            if inputs.calibration_source is None
            else inputs.calibration_source.meta(
                changes_by_file.get("calibration"), changes_by_file.get("calibration_since_branch")
            ),
        },
        adapter=config.suite.adapter,
        versions={
            rev: VersionRecord(v.role, v.sha, str(contexts[rev].workdir)) for rev, v in fresh.versions.items()
        },
        full=Levels(config.full.suite_runs, config.full.iterations, config.full.measurements),
        benchmark_configs=benchmark_configs(plan, calibration),
        benchmarks=benchmark_meta(plan.names, plan.per_version),
        thresholds=thresholds(config, plan.names, plan.per_version),
        statistic=config.suite.statistic,
        statistics=statistics(config, plan.names, plan.per_version),
        calibrated_statistics=calibrated_statistics(calibration, plan.names),
        tail_check=config.suite.tail_check,
        schedule=[t.as_meta() for t in plan.schedule],
        environment=environment,
        sandbox=sandbox,
        layout=layout.meta([t.trial for t in plan.schedule]),
        warnings=list(warnings),
        adaptive=adaptive_record(adaptive),
        shard=shard_record(plan),
    )


def benchmark_configs(plan: RunPlan, calibration: Calibration | None) -> dict[str, BenchmarkConfig]:
    """meta.json ``benchmark_configs``: each benchmark's planned levels, and the warm-up the
    calibration discards from the benchmarks it configured."""
    warmup_level, warmup = warmup_of(calibration)
    return {
        n: BenchmarkConfig(
            c.suite_runs,
            c.iterations,
            c.measurements,
            config_source=c.config_source,
            discard_warmup=warmup if c.config_source == ConfigSource.CALIBRATION.value else 0,
            warmup_level=warmup_level,
            never_stable=never_stable(calibration, n),
        )
        for n, c in plan.levels.items()
    }


def shard_record(plan: RunPlan) -> ShardRecord | None:
    """meta.json ``shard`` of a ``run --shard K/N``."""
    s = plan.shard
    if s is None:
        return None
    return ShardRecord(
        index=s.spec.index,
        count=s.spec.count,
        method=METHOD,
        seed=s.seed,
        cost_unit=s.cost_unit,
        suite=tuple(s.suite),
        assignment=dict(s.assignment),
        expected=tuple(s.expected),
    )


def check_shard_resume(meta: RunMeta, shard: str | None, out: Path) -> None:
    """A rerun with the same ``--out`` resumes the same shard (or the same unsharded run)."""
    was = meta.shard.label if meta.shard is not None else None
    if was != shard:
        raise InputError(
            f"{out} holds {'shard ' + was if was else 'an unsharded run'}, now "
            f"{'--shard ' + shard if shard else 'no --shard'}",
            f"resume with {'--shard ' + was if was else 'no --shard'}, or pass a new --out",
        )
