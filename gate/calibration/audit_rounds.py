"""The audit's replay of what a pull request really runs: the minimal configuration, then
follow-up rounds for the inconclusive benchmarks within the budget (docs/calibration.md, "Audit").

The rounds are planned by the run's own planner (:func:`gate.rounds.planner.plan_round`: which
benchmarks, how many extra suite runs, within the time left and ``max_rounds``), and every look —
the planned one included — decides at the run's per-look confidence
``1 − (1 − c)/(max_rounds + 1)`` (gate/rounds/config.py, Bonferroni over the looks), as
``run --budget`` does. A follow-up round adds suite runs of the benchmark's own configuration;
the replay takes them from the recorded full-configuration data, so it can add suite runs only up
to the recorded ones (``capped`` counts the rounds that wanted more). Time: each value costs the
benchmark's mean recorded duration per measurement, or 1 s when the log has none (µOpTime's
``-benchtime 1s``); a suite run costs its values × 2 versions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gate.analysis.compare import AnalysisSettings, Comparison
from gate.calibration.dataset import Dataset, LevelCounts
from gate.model import trial_floor
from gate.rounds.config import DEFAULT_MAX_ROUNDS, per_look_confidence
from gate.rounds.planner import Look, plan_round


@dataclass(frozen=True)
class RoundsReplay:
    """``budget_s`` of benchmark time per version pair (what ``run --budget`` would get) and the
    most rounds (``[adaptive] max_rounds``)."""

    budget_s: float
    max_rounds: int = DEFAULT_MAX_ROUNDS


# compare(names, config of each, settings) -> comparisons
CompareWith = Callable[[Sequence[str], Mapping[str, LevelCounts], AnalysisSettings], list[Comparison]]


def value_s(d1: Dataset, d2: Dataset, name: str) -> float:
    durations = [
        s.mean_duration
        for s in (d1.series[name], d2.series[name])
        if s.mean_duration is not None and math.isfinite(s.mean_duration) and s.mean_duration > 0
    ]
    return max(durations) if durations else 1.0


def replay(
    names: Sequence[str],
    minimal: Mapping[str, LevelCounts],
    full: LevelCounts,
    cost_per_value: Mapping[str, float],
    settings: AnalysisSettings,
    rounds: RoundsReplay,
    compare: CompareWith,
) -> tuple[dict[str, Comparison], dict[str, Any]]:
    """The final comparison of every benchmark after the planned look and the follow-up rounds,
    and what the rounds did (``rounds``, ``used_s``, ``budget_s``, ``followed``, ``capped``,
    ``stop``)."""
    look_settings = replace(settings, confidence=per_look_confidence(settings.confidence, rounds.max_rounds))
    min_trials = trial_floor(look_settings.confidence)  # as run's rounds (gate/adaptive/loop.py)
    configs = {n: tuple(min(c, f) for c, f in zip(minimal[n], full, strict=True)) for n in names}
    current = {c.benchmark: c for c in compare(names, configs, look_settings)}
    used = 0.0
    done = 0
    followed: set[str] = set()
    capped = 0
    stop: str | None = None
    while True:
        looks = []
        for n in names:
            c = current[n]
            per_run = math.prod(configs[n][1:])
            looks.append(
                Look(
                    name=n,
                    verdict=str(c.verdict),
                    reason=c.reason,
                    samples_needed=c.samples_needed,
                    values_now=min(c.base.n, c.head.n),
                    values_per_suite_run=per_run,
                    suite_run_s=per_run * 2 * cost_per_value[n],
                    trials_per_suite_run=math.prod(configs[n][1:-1]),
                    values_per_trial=configs[n][-1] if len(configs[n]) > 1 else 1,
                    min_trials=min_trials,
                )
            )
        plan = plan_round(
            looks, time_left_s=rounds.budget_s - used, rounds_done=done, max_rounds=rounds.max_rounds
        )
        if not plan.benchmarks:
            stop = plan.stop
            break
        done += 1
        grown = []
        for n, f in plan.benchmarks.items():
            per_run_s = math.prod(configs[n][1:]) * 2 * cost_per_value[n]
            used += f.suite_runs * per_run_s  # the PR spends what it planned
            want = configs[n][0] + f.suite_runs
            if want > full[0]:
                capped += 1
            if min(want, full[0]) > configs[n][0]:
                configs[n] = (min(want, full[0]), *configs[n][1:])
                grown.append(n)
            followed.add(n)
        if grown:
            current.update(
                {c.benchmark: c for c in compare(grown, {n: configs[n] for n in grown}, look_settings)}
            )
    return current, {
        "rounds": done,
        "budget_s": rounds.budget_s,
        "used_s": round(used, 3),
        "followed": len(followed),
        "capped": capped,
        "stop": stop,
        "confidence_per_look": look_settings.confidence,
    }
