"""The audit: do the minimal configurations reach the full configuration's verdicts?

µOpTime §4.5 (RQ4, ../shared/papers/004_*.txt): consecutive version pairs are replayed with each
benchmark's minimal configuration, chosen on the earlier version, and with the full configuration
(the ground truth). The default rule is the product's own (``analyze``: gate/analysis/compare.py
with its settings), so the audit answers whether the gate's verdicts hold; the paper's rule is kept
to reproduce the published counts (tests/validation).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gate.analysis.compare import AnalysisSettings, Comparison, Sample, compare_many
from gate.calibration import audit_rounds
from gate.calibration.audit_rounds import RoundsReplay
from gate.calibration.dataset import Dataset, LevelCounts
from gate.calibration.search import DEFAULT_SEED, json_number
from gate.errors import ConfigError
from gate.stats.stability import (
    DEFAULT_CONFIDENCE,
    BootstrapPlan,
    FloatArray,
    bootstrap_mean_ci_batch,
    bootstrap_median_ci_batch,
    bootstrap_t_mean_ci_batch,
)

AUDIT_THRESHOLD_PCT = 3.0  # µOpTime §4.5: a relevant change is at least 3 %

# RQ4 (§4.5): the average and CI the change detection uses with each stability metric
# (the prototype's method names: cv__mean__ci_bootstrap_mean_p, rmad__median__…_median_p, …).
AUDIT_ESTIMATOR: Mapping[str, tuple[str, str]] = {
    "cv": ("mean", "percentile"),
    "rmad": ("median", "percentile"),
    "rciw1": ("mean", "percentile"),
    "rciw2": ("mean", "t"),
    "rciw3": ("median", "percentile"),
}


@dataclass(frozen=True)
class Estimate:
    average: float
    lo: float
    hi: float


def estimate(
    values: FloatArray, statistic: str, method: str, plan: BootstrapPlan, confidence: float
) -> Estimate:
    row = values[None, :]
    if statistic == "mean":
        avg = float(values.mean())
        lo, hi = (bootstrap_t_mean_ci_batch if method == "t" else bootstrap_mean_ci_batch)(
            row, plan, confidence
        )
    else:
        avg = float(np.median(values))
        lo, hi = bootstrap_median_ci_batch(row, plan, confidence)
    return Estimate(avg, float(lo[0]), float(hi[0]))


def uoptime_verdict_and_change(
    base: Estimate, head: Estimate, threshold_pct: float, higher_is_better: bool
) -> tuple[str, float]:
    """µOpTime §4.5: a change is a relative change beyond the threshold with non-overlapping CIs
    (intervals that only touch count as disjoint, as in the prototype)."""
    change = (head.average - base.average) / base.average * 100.0
    disjoint = max(base.lo, head.lo) >= min(base.hi, head.hi)
    worse = -change if higher_is_better else change
    if disjoint and worse > threshold_pct:
        return "regression", change
    if disjoint and -worse > threshold_pct:
        return "improvement", change
    return "unchanged", change


AUDIT_RULES: tuple[str, ...] = ("gate", "uoptime")
DECIDED = frozenset({"regression", "improvement", "unchanged"})


def audit(
    datasets: Mapping[str, Dataset],
    configs: Mapping[str, LevelCounts],
    metric: str,
    plan: BootstrapPlan,
    threshold_pct: float = AUDIT_THRESHOLD_PCT,
    confidence: float = DEFAULT_CONFIDENCE,
    rule: str = "uoptime",
    seed: int = DEFAULT_SEED,
    rounds: RoundsReplay | None = None,
    statistic: str | None = None,
    statistics: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Replay consecutive version pairs: verdicts with each benchmark's minimal configuration
    (from the calibrated version, reused for the later ones — RQ4's forward setting) against the
    verdicts of the full configuration (the ground truth). ``statistics``: the statistic the
    calibration chose for a benchmark's PRs, which then decides its verdicts (rule ``gate``). Counts follow the paper: a positive
    is a regression.

    ``rule="gate"`` decides every verdict as ``analyze`` does with its default settings
    (gate/analysis/compare.py: its default statistic, or ``statistic`` — the one the suite's PRs
    use —, disjoint bootstrap CIs, the small-sample rank guard, ``inconclusive`` when the evidence
    decides nothing), so the audit answers "would the gate's verdict change with the minimal
    configuration?". ``rule="uoptime"`` is the paper's
    §4.5 rule (the average and CI that go with ``metric``, AUDIT_ESTIMATOR), kept to reproduce
    the published counts (tests/validation).

    ``rounds`` (rule ``gate`` only): the minimal configuration is followed by the follow-up
    rounds a pull request with that budget would run (gate/calibration/audit_rounds.py), so the
    agreement describes the gate users get. Every pair reports its agreement over the benchmarks
    the full configuration decides (``decided``, ``agreement_decided_pct``): two inconclusive
    verdicts agree, but say nothing about the minimal configuration."""
    if rule not in AUDIT_RULES:
        raise ConfigError(f"unknown audit rule {rule!r}", f"use one of {', '.join(AUDIT_RULES)}")
    if rounds is not None and rule != "gate":
        raise ConfigError(
            "follow-up rounds replay only with the gate's verdict rule",
            "pass --audit-rule gate with --audit-budget (µOpTime's own rule has no rounds)",
        )
    gate_statistic = statistic or AnalysisSettings().statistic
    statistic, method = AUDIT_ESTIMATOR[metric]
    versions = list(datasets)
    cache: dict[tuple[str, str, LevelCounts], Estimate] = {}

    def clip(version: str, config: LevelCounts) -> LevelCounts:
        return tuple(min(c, m) for c, m in zip(config, datasets[version].full, strict=True))

    def est(version: str, name: str, config: LevelCounts) -> Estimate | None:
        key = (version, name, clip(version, config))
        if key not in cache:
            values = datasets[version].series[name].values(key[2])
            if values.size < 2:
                return None
            cache[key] = estimate(values, statistic, method, plan, confidence)
        return cache[key]

    gate_settings: AnalysisSettings | None = None
    if rule == "gate":
        gate_settings = AnalysisSettings(
            confidence=confidence,
            threshold_pct=threshold_pct,
            resamples=plan.resamples,
            seed=seed,
            statistic=gate_statistic,
        )

    def gate_compare(
        v1: str,
        v2: str,
        names: Sequence[str],
        config_of: Mapping[str, LevelCounts],
        settings: AnalysisSettings,
    ) -> list[Comparison]:
        items = []
        for name in names:
            s1 = datasets[v1].series[name]
            s2 = datasets[v2].series[name]
            items.append(
                (
                    name,
                    Sample(s1.values(c1 := clip(v1, config_of[name])), unit_id=s1.trials(c1)),
                    Sample(s2.values(c2 := clip(v2, config_of[name])), unit_id=s2.trials(c2)),
                    s1.higher_is_better,
                )
            )
        return compare_many(items, settings, statistics=statistics or {})

    def verdicts_of(comparisons: Sequence[Comparison]) -> dict[str, tuple[str, float]]:
        return {
            c.benchmark: (str(c.verdict), c.change_pct if c.change_pct is not None else math.nan)
            for c in comparisons
        }

    pairs = []
    for v1, v2 in itertools.pairwise(versions):
        d1, d2 = datasets[v1], datasets[v2]
        names = [n for n in d1.series if n in d2.series and n in configs]
        full_v: dict[str, tuple[str, float]] = {}
        min_v: dict[str, tuple[str, float]] = {}
        rounds_doc: dict[str, Any] | None = None
        if gate_settings is not None:
            full_of = dict.fromkeys(names, tuple(max(a, b) for a, b in zip(d1.full, d2.full, strict=True)))
            full_v = verdicts_of(gate_compare(v1, v2, names, full_of, gate_settings))
            if rounds is None:
                min_v = verdicts_of(gate_compare(v1, v2, names, configs, gate_settings))
            else:
                final, rounds_doc = audit_rounds.replay(
                    names,
                    configs,
                    tuple(min(a, b) for a, b in zip(d1.full, d2.full, strict=True)),
                    {n: audit_rounds.value_s(d1, d2, n) for n in names},
                    gate_settings,
                    rounds,
                    functools.partial(gate_compare, v1, v2),
                )
                min_v = verdicts_of(list(final.values()))
        else:
            for name in names:
                hib = d1.series[name].higher_is_better
                f1, f2 = est(v1, name, d1.full), est(v2, name, d2.full)
                m1, m2 = est(v1, name, configs[name]), est(v2, name, configs[name])
                if f1 is None or f2 is None or m1 is None or m2 is None:
                    continue
                full_v[name] = uoptime_verdict_and_change(f1, f2, threshold_pct, hib)
                min_v[name] = uoptime_verdict_and_change(m1, m2, threshold_pct, hib)
        counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
        agree = 0
        decided = agree_decided = min_decided = 0
        full_changes = min_changes = 0
        differences = []
        verdicts: dict[str, dict[str, str]] = {}
        for name in names:
            if name not in full_v or name not in min_v:
                continue
            (fv, fchange), (mv, mchange) = full_v[name], min_v[name]
            verdicts[name] = {"full": fv, "minimal": mv}
            full_pos, min_pos = fv == "regression", mv == "regression"
            full_changes += full_pos
            min_changes += min_pos
            key = ("t" if full_pos == min_pos else "f") + ("p" if min_pos else "n")
            counts[key] += 1
            full_decided = fv in DECIDED
            decided += full_decided
            min_decided += mv in DECIDED
            agree_decided += full_decided and fv == mv
            if fv == mv:
                agree += 1
            else:
                differences.append(
                    {
                        "benchmark": name,
                        "full": fv,
                        "minimal": mv,
                        "full_change_pct": json_number(round(fchange, 3)),
                        "minimal_change_pct": json_number(round(mchange, 3)),
                        "config": dict(zip(d1.levels, configs[name], strict=True)),
                    }
                )
        n = sum(counts.values())
        neg = counts["fp"] + counts["tn"]
        pos = counts["fn"] + counts["tp"]
        pairs.append(
            {
                "base": v1,
                "head": v2,
                "n": n,
                "full_changes": full_changes,
                "min_changes": min_changes,
                **counts,
                "fpr": counts["fp"] / neg if neg else 0.0,
                "fnr": counts["fn"] / pos if pos else 0.0,
                "agreement_pct": round(100.0 * agree / n, 2) if n else None,
                # the full configuration's decided verdicts (regression, improvement, unchanged):
                # the only ones an agreement can be checked against; None when there is none
                "decided": decided,
                "minimal_decided": min_decided,
                "agreement_decided_pct": round(100.0 * agree_decided / decided, 2) if decided else None,
                "rounds": rounds_doc,
                "disagreements": differences,
                "verdicts": verdicts,
            }
        )
    if gate_settings is not None:
        rule_doc: dict[str, Any] = {
            "name": "gate",
            "threshold_pct": threshold_pct,
            "confidence": confidence,
            "statistic": gate_settings.statistic,
            # benchmarks decided by the statistic the calibration chose for them instead
            "statistics": {n: s for n, s in (statistics or {}).items() if s != gate_settings.statistic},
            "ci": f"bootstrap {gate_settings.method} ({gate_settings.bootstrap}, {gate_settings.pairing})",
            "resamples": gate_settings.resamples,
            "seed": seed,
            "positive": "regression as `analyze` decides it (gate/analysis/compare.py); "
            "inconclusive and failed count as negatives and as disagreements when they differ",
            "followup": None
            if rounds is None
            else {"budget_s": rounds.budget_s, "max_rounds": rounds.max_rounds},
        }
    else:
        rule_doc = {
            "name": "uoptime",
            "threshold_pct": threshold_pct,
            "confidence": confidence,
            "statistic": statistic,
            "ci": f"bootstrap {'t' if method == 't' else 'percentile'}",
            "resamples": plan.resamples,
            "positive": "regression (relative change beyond threshold_pct in the worse direction, "
            "CIs disjoint)",
        }
    return {
        "rule": rule_doc,
        "calibrated_on": versions[0] if versions else None,
        "versions": versions,
        "pairs": pairs,
    }
