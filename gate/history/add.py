"""`history add`: one nightly trial log into history entries, one per version it measured.

The nightly workflow runs base = previous commit, head = current commit in RMIT order
(examples/workflows/perf-nightly.yml). Each version is summarised by the gate's own analysis
(``build_analysis``: warm-up discarded, random-order rows only in an order-check log, the same
statistic and bootstrap CI as a PR verdict), and the paired base→head change of the night is
kept with the head entry as ``step``: it is the most precise number the night has.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from gate.analysis import statistic_source
from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import TrialLogs, load_trials
from gate.analysis.pipeline import build_analysis
from gate.analysis.shards import NOT_MEASURED, merged_meta, runner_of
from gate.analysis.statistic_source import StatisticPlan
from gate.errors import ConfigError
from gate.files.analysis_json import Benchmark
from gate.files.run_meta import RunMeta
from gate.history.store import Entry, Source, Step
from gate.model import utc_timestamp


def run_id_of(paths: Sequence[str | Path]) -> str:
    """The same log always gets the same id, so adding it twice is refused by the store."""
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes())
    return "log-" + h.hexdigest()[:16]


def _order(meta: RunMeta, present: list[str], versions: Sequence[str] | None) -> list[str]:
    if versions:
        order = list(versions)
    elif meta.base and meta.head and meta.base != meta.head:
        order = [meta.base, meta.head]
    elif len(present) == 1:
        order = present  # a nightly that measures HEAD only, or an imported plain run
    else:
        raise ConfigError(
            f"the commit order of the log's versions is unknown (no meta.json with base/head); versions: "
            f"{', '.join(present[:10])}",
            "pass --versions OLDEST,...,NEWEST in commit order",
        )
    missing = [v for v in order if v not in present]
    if missing or len(set(order)) != len(order) or not order:
        raise ConfigError(
            f"--versions must name distinct versions of the log in commit order; "
            f"not in the log: {', '.join(missing) or '-'}; in the log: {', '.join(present[:10])}",
            "pass --versions OLDEST,...,NEWEST with names from the log's version column",
        )
    return order


def _entry(
    b: Benchmark,
    side: Literal["base", "head"],
    seq: int,
    commit: str,
    common: dict[str, Any],
    step: Step | None = None,
) -> Entry:
    """One version's summary of one benchmark (``side`` of the analysis row ``b``) as an entry."""
    v = b[side]
    return Entry(
        seq=seq,
        commit=commit,
        benchmark=b["benchmark"],
        unit=b["unit"],
        higher_is_better=b["higher_is_better"],
        estimate=v["estimate"],
        ci=(v["ci"][0], v["ci"][1]) if v["ci"] else None,
        n=v["n"],
        n_failed=v["n_failed"],
        step=step,
        # the statistic that decided this benchmark (its own or the calibration's), else the suite's
        **{**common, "statistic": b.get("statistic") or common["statistic"]},
    )


# the name under which a one-version log's rows are copied: never a version a log can hold, since
# version names come from the log's own column and this one has a NUL
_COPY = "\0ordertrap-history-copy"


def _alone(
    logs: TrialLogs, version: str, shas: dict[str, str | None], settings: AnalysisSettings, when: str,
    common: dict[str, Any], plan: StatisticPlan | None = None,
) -> list[Entry]:  # fmt: skip
    """The entries of a log that measured one version: summarised by the same analysis as a
    nightly pair (warm-up discarded, the statistic and its bootstrap CI), taken from a comparison
    of the version with a copy of its own rows, whose head side is exactly that summary. There is
    no step: nothing was measured beside it."""
    frame = logs.frame
    copy = frame.loc[frame["version"] == version].assign(version=_COPY)
    doubled = dataclasses.replace(logs, frame=pd.concat([copy, frame], ignore_index=True))
    doc = build_analysis(
        doubled, base=_COPY, head=version, settings=settings, created_at=when, statistics=plan
    )
    commit = str(shas.get(version) or version)
    return [_entry(b, "head", 0, commit, common) for b in doc["benchmarks"]]


def entries_from_trials(
    paths: Sequence[str | Path],
    *,
    versions: Sequence[str] | None = None,
    run_id: str | None = None,
    date: str | None = None,
    source: Source = "nightly",
    pr: int | None = None,
    runner: str | None = None,
    settings: AnalysisSettings | None = None,
) -> list[Entry]:
    logs = load_trials(paths)
    meta = logs.meta or RunMeta()
    present = sorted(str(v) for v in logs.frame["version"].unique())
    order = _order(meta, present, versions)
    # the statistics analyze and the PR verdicts use: [suite], [[benchmark]] and the calibrated
    # choices of meta.json (gate/analysis/statistic_source.py), unless the caller chose one; every
    # shard's meta.json, as each lists only its own benchmarks' statistics
    requested = settings.statistic if settings is not None else None
    plan = statistic_source.resolve(requested, merged_meta(logs))
    settings = settings or AnalysisSettings(statistic=plan.suite)
    run = run_id or run_id_of(paths)
    when = date or meta.created_at or utc_timestamp()
    shas = {rev: v.sha for rev, v in meta.versions.items()}
    # a sharded night: each benchmark's own runner, and no entry for what no shard measured
    runners = {} if runner else runner_of(logs)
    runner = runner or meta.instance
    config = meta.config_hash
    common: dict[str, Any] = {
        "run": run,
        "date": when,
        "source": source,
        "pr": pr,
        "runner": runner,
        "config": config,
        "statistic": settings.statistic,
        "confidence": settings.confidence,
    }
    out: list[Entry] = []
    if len(order) == 1:
        return _alone(logs, order[0], shas, settings, when, common, plan)
    for k in range(len(order) - 1):
        doc = build_analysis(
            logs, base=order[k], head=order[k + 1], settings=settings, created_at=when, statistics=plan
        )
        for b in doc["benchmarks"]:
            if b["reason"].startswith(NOT_MEASURED) and not b["base"]["n"] and not b["head"]["n"]:
                continue
            sides: list[tuple[Literal["base", "head"], str, int]] = (
                [("base", order[k], k), ("head", order[k + 1], k + 1)]
                if k == 0
                else [("head", order[k + 1], k + 1)]
            )
            own = {**common, "runner": runners.get(b["benchmark"], runner)}
            for role, version, seq in sides:
                step = None
                if role == "head":
                    ci = b["change_ci"]
                    step = Step(
                        str(shas.get(order[k]) or order[k]), b["change_pct"], (ci[0], ci[1]) if ci else None
                    )
                out.append(_entry(b, role, seq, str(shas.get(version) or version), own, step))
    return out
