"""The follow-up loop of ``run --budget``: analyse the log → plan a round → run it → analyse …

Planning is :mod:`gate.rounds.planner` (pure); trials run through
:func:`gate.engine.driver.run_schedule` (passed in as ``drive``); every look is
:func:`gate.analysis.pipeline.build_analysis` on the trial log with ``analyze``'s default settings
at the per-look confidence, so ``analyze`` on the finished log (which reads that confidence from
meta.json) gives the verdicts of the last look.

Crash safety: each round's entry, with its whole schedule, is written to meta.json (temp file +
rename) before its first trial starts, and ``final`` after the last look. A run killed at any
moment resumes by completing the recorded rounds (the trial log says which trials finished),
then planning on; one killed after ``final`` is complete.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

import pandas as pd

from gate.analysis import statistic_source
from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.analysis.shards import NOT_MEASURED
from gate.engine.driver import DriverResult
from gate.engine.schedule import LevelConfig, Trial, followup_schedule
from gate.files.analysis_json import Analysis
from gate.files.run_meta import AdaptiveRecord, FinalRecord, RoundRecord, RunMeta
from gate.model import trial_floor, utc_timestamp
from gate.render.followup import STOP, no_candidates
from gate.rounds.clock import BudgetClock
from gate.rounds.config import AdaptiveConfig, look_rule
from gate.rounds.planner import RoundPlan, looks_from_analysis, plan_round, round_seed

Drive = Callable[[Sequence[Trial], Callable[[], bool] | None], DriverResult]


def _own_benchmarks(doc: Analysis) -> Analysis:
    """``doc`` without the benchmarks of other shards (listed as not measured in a shard's own look)."""
    mine = [b for b in doc["benchmarks"] if not b["reason"].startswith(NOT_MEASURED)]
    counts = {v: sum(1 for b in mine if b["verdict"] == v) for v in doc["summary"]["counts"]}
    return cast(Analysis, {**doc, "benchmarks": mine, "summary": {**doc["summary"], "counts": counts}})


def _minutes(seconds: float) -> str:
    seconds = max(0.0, seconds)
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _pct(confidence: float) -> str:
    return f"{float(confidence) * 100:g} %"


@dataclass
class Rounds:
    """What the loop needs from the run (built once by :func:`gate.adaptive.stage.after_planned`)."""

    budget: AdaptiveConfig  # the run's budget and most rounds: the loop's only source of them
    meta: RunMeta  # the run's meta.json as it started (or was resumed), with ``adaptive``
    save_meta: Callable[[RunMeta], None]  # atomic write of meta.json (gate.files.run_meta.write)
    log_path: Path
    planned: Sequence[Trial]
    levels: Mapping[str, LevelConfig]
    versions: Sequence[str]
    instance: str
    seed: int
    clock: BudgetClock
    drive: Drive
    quiet: bool = False  # no progress lines on stderr
    # meta.json ``adaptive`` as the loop extends it (rounds, final); saved through ``save_meta``
    adaptive: AdaptiveRecord = field(init=False)

    def __post_init__(self) -> None:
        assert self.meta.adaptive is not None, "follow-up rounds need meta.json adaptive"
        self.adaptive = self.meta.adaptive

    @property
    def current(self) -> RunMeta:
        """meta.json with the rounds recorded so far."""
        return self.meta.with_adaptive(self.adaptive)

    def save(self) -> None:
        self.save_meta(self.current)

    def budget_left(self) -> bool:
        return self.clock.used_s() < self.budget.budget_s

    def say(self, text: str) -> None:
        if not self.quiet:
            print(f"ordertrap-gate run: {text}", file=sys.stderr, flush=True)

    # ---- one look -----------------------------------------------------------------------------
    def look(self) -> tuple[Analysis, pd.DataFrame]:
        logs = load_trials([self.log_path])
        # the statistics `analyze` on the finished log uses: [[benchmark]], [suite], the calibrated
        # choices (meta.json; gate/analysis/statistic_source.py), so that the rounds' "values
        # needed" come from the CIs of the statistic that decides
        plan = statistic_source.resolve(None, self.meta)
        settings = AnalysisSettings(
            confidence=float(look_rule(self.budget.max_rounds).confidence_per_look), statistic=plan.suite
        )
        if self.meta.tail_check is False:  # [suite] tail_check = false
            settings = replace(settings, tail_statistic="")
        return build_analysis(logs, base=None, head=None, settings=settings, statistics=plan), logs.frame

    def _trial_shape(self) -> dict[str, tuple[int, int]]:
        """Each benchmark's (trials per suite run, values per trial) after the warm-up is dropped."""
        out = {}
        for name, c in self.levels.items():
            cfg = self.meta.benchmark_configs.get(name)
            warm = cfg.discard_warmup if cfg is not None else 0
            level = cfg.warmup_level if cfg is not None else "measurement"
            it = c.iterations - (warm if level == "iteration" else 0)
            m = c.measurements - (warm if level == "measurement" else 0)
            out[name] = (max(1, it), max(1, m))
        return out

    def _values_per_suite_run(self) -> dict[str, int]:
        return {name: it * m for name, (it, m) in self._trial_shape().items()}

    def _suite_run_s(self, frame: pd.DataFrame, names: Sequence[str]) -> dict[str, float]:
        out = {}
        for name in names:
            rows = frame.loc[frame["benchmark"].astype(str) == name]
            total = 0.0
            for v in self.versions:
                mine = rows.loc[rows["version"].astype(str) == v]
                total += self.levels[name].iterations * self.clock.trial_s(name, v, mine)
            out[name] = total
        return out

    # ---- the loop -----------------------------------------------------------------------------
    def run(self, finished: set[int]) -> bool:
        """Complete the recorded rounds, then plan and run new ones until a stop reason; write
        ``final``. False when interrupted (Ctrl-C/SIGTERM): rerun to resume."""
        for entry in self.adaptive.rounds:  # resume: rounds recorded before the interruption
            trials = self.meta.entry_trials(entry)
            result = self.drive([t for t in trials if t.trial not in finished], self.budget_left)
            if result.interrupted:
                return False
            if result.out_of_budget:
                break
        budget = self.budget.budget_s
        max_rounds = self.budget.max_rounds
        rule = look_rule(max_rounds)
        planned_s = float(self.adaptive.rounds[0].used_before_s) if self.adaptive.rounds else None
        while True:
            doc, frame = self.look()
            if self.meta.shard is not None:
                # a shard's look sees the other shards as not measured: they are not this run's to follow
                doc = _own_benchmarks(doc)
            looks = looks_from_analysis(
                doc,
                self._values_per_suite_run(),
                self._suite_run_s(
                    frame, [b["benchmark"] for b in doc["benchmarks"] if b["verdict"] == "inconclusive"]
                ),
                self._trial_shape(),
                # a round leaves no benchmark with fewer trials than a look can decide with
                trial_floor(float(rule.confidence_per_look)),
            )
            used = self.clock.used_s()
            if planned_s is None:
                planned_s = used
            counts = ", ".join(f"{n} {v}" for v, n in doc["summary"]["counts"].items() if n)
            done = len(self.adaptive.rounds)
            after = f"follow-up round {done}" if done else "the planned runs"
            self.say(
                f"checking which benchmarks are decided after {after} "
                f"({_pct(rule.confidence_per_look)} intervals, so that the run as a whole "
                f"keeps {_pct(rule.confidence)}): {counts or 'nothing compared'}"
            )
            plan = plan_round(looks, time_left_s=budget - used, rounds_done=done, max_rounds=max_rounds)
            if plan.stop is not None:
                self._finish(plan, used, planned_s, done)
                return True
            number = done + 1
            entry = self._record(number, plan, used, budget - used)
            self.adaptive = self.adaptive.with_round(entry)
            self.save()  # before the round's first trial: a kill resumes it
            self.say(
                f"follow-up round {number}: {len(plan.benchmarks)} benchmark(s), {plan.suite_runs} suite "
                f"run(s), ~{_minutes(plan.estimated_s)} of {_minutes(budget - used)} left"
            )
            trials = self.meta.entry_trials(entry)
            result = self.drive(trials, self.budget_left)
            if result.interrupted:
                return False

    def _record(self, number: int, plan: RoundPlan, used: float, left: float) -> RoundRecord:
        earlier = list(self.planned) + self.current.round_trials()
        seed = round_seed(self.seed, number)
        schedule = followup_schedule(
            seed,
            number,
            {n: f.suite_runs for n, f in plan.benchmarks.items()},
            self.versions,
            self.levels,
            self.instance,
            first_trial=max(t.trial for t in earlier) + 1,
            first_suite_run=max(t.suite_run for t in earlier) + 1,
        )
        return RoundRecord(
            round=number,
            seed=seed,
            planned_at=utc_timestamp(),
            used_before_s=round(used, 3),
            time_left_s=round(left, 3),
            estimated_s=round(plan.estimated_s, 3),
            benchmarks={n: f.as_record() for n, f in plan.benchmarks.items()},
            not_followed={n: nf.as_record() for n, nf in plan.not_followed.items()},
            schedule=[t.as_meta() for t in schedule],
        )

    def _finish(self, plan: RoundPlan, used: float, planned_s: float, rounds: int) -> None:
        assert plan.stop is not None
        unresolved = {n: nf.as_record() for n, nf in plan.not_followed.items()}
        final = FinalRecord(
            stop_reason=plan.stop,
            used_s=round(used, 3),
            planned_s=round(planned_s, 3),
            followup_s=round(max(0.0, used - planned_s), 3),
            unresolved=unresolved,
        )
        self.adaptive = self.adaptive.with_final(final)
        self.save()
        budget = self.budget.budget_s
        left = f"; {len(unresolved)} still inconclusive" if unresolved else ""
        # "no_candidates" is also "what the rest need is more than the time left": say which, as
        # the comment does (gate/render/followup.py), not "more values would not resolve the rest"
        why = (
            no_candidates(
                budget,
                used,
                [{"reason": nf.reason, "needs_s": nf.needs_s} for nf in plan.not_followed.values()],
            )
            if plan.stop == "no_candidates"
            else STOP[plan.stop]
        )
        self.say(
            f"follow-up rounds: {rounds} run, stopped: {why}; {_minutes(used)} of the {_minutes(budget)} budget used{left}"
        )
