"""The sections of meta.json as frozen records, each with its decoder beside it (the document,
:class:`gate.files.run_meta.RunMeta`, and its reading and writing are in gate/files/run_meta.py).

A decoder raises :class:`gate.files.schema.Invalid` naming the field; :func:`describe` words it
as meta.json's messages say it (``adaptive.rounds[0].seed (str 'x', not a whole number ≥ 0)``),
which ``read`` refuses and ``read_beside`` turns into a ``meta_invalid`` warning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gate.files.schema import (
    Invalid,
    Obj,
    entries,
    integer,
    kind,
    list_of,
    nullable,
    number,
    obj,
    short,
    whole,
)
from gate.files.schema import text as _string
from gate.files.settings import BUDGET, CONFIDENCE, MAX_ROUNDS, SHARD
from gate.model import ConfigSource


@dataclass(frozen=True)
class VersionRecord:
    """``versions[REVISION]``: the role, the commit measured and where it was checked out."""

    role: str | None = None  # "base" | "head"
    sha: str | None = None
    worktree: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "sha": self.sha, "worktree": self.worktree}


@dataclass(frozen=True)
class Levels:
    """``full``: how many suite runs, iterations and measurements the full configuration has."""

    suite_run: int
    iteration: int
    measurement: int

    @property
    def values(self) -> int:
        return self.suite_run * self.iteration * self.measurement

    def to_json(self) -> dict[str, Any]:
        return {"suite_run": self.suite_run, "iteration": self.iteration, "measurement": self.measurement}


@dataclass(frozen=True)
class BenchmarkConfig:
    """``benchmark_configs[NAME]``: the configuration a benchmark ran, and the warm-up positions
    (``discard_warmup`` of level ``warmup_level``) that analysis drops as calibrate did."""

    suite_run: int
    iteration: int
    measurement: int
    config_source: str = ConfigSource.FULL.value  # JSON key `source`
    discard_warmup: int = 0
    warmup_level: str = "measurement"
    never_stable: bool = False

    @property
    def calibrated(self) -> bool:
        """A calibrated minimal configuration (not the full one a never-stable benchmark keeps)."""
        return self.config_source == ConfigSource.CALIBRATION.value and not self.never_stable

    def to_json(self) -> dict[str, Any]:
        return {
            "suite_run": self.suite_run,
            "iteration": self.iteration,
            "measurement": self.measurement,
            "source": self.config_source,
            "discard_warmup": self.discard_warmup,
            "warmup_level": self.warmup_level,
            "never_stable": self.never_stable,
        }


# ---- adaptive: the follow-up rounds of ``run --budget`` (gate/adaptive/loop.py) ---------------
@dataclass(frozen=True)
class LookRule:
    """``adaptive.rule``: the error control over all looks (gate/rounds/config.py: Bonferroni over
    ``looks`` = max_rounds + 1; every look tests at ``confidence_per_look``)."""

    name: str
    confidence: float
    looks: int
    confidence_per_look: float
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "confidence": self.confidence,
            "looks": self.looks,
            "confidence_per_look": self.confidence_per_look,
            **plain(self.extra),
        }


@dataclass(frozen=True)
class FollowUpRecord:
    """``adaptive.rounds[].benchmarks[NAME]``: why a benchmark got the round, and how much of it
    (values per version: the smaller of base and head now, and the verdict's estimate)."""

    values_now: int
    values_needed: int
    suite_runs: int
    why: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "values_now": self.values_now,
            "values_needed": self.values_needed,
            "suite_runs": self.suite_runs,
            "why": self.why,
            **plain(self.extra),
        }


@dataclass(frozen=True)
class NotFollowedRecord:
    """``adaptive.rounds[].not_followed[NAME]`` and ``adaptive.final.unresolved[NAME]``: why an
    inconclusive benchmark got no (more) rounds; ``values_needed``/``needs_s`` are null for
    ``not_lack_of_data``."""

    reason: str  # "hopeless" | "not_lack_of_data" | "budget_spent" | "rounds_spent"
    detail: str
    values_needed: int | None = None
    needs_s: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "detail": self.detail,
            "values_needed": self.values_needed,
            "needs_s": self.needs_s,
            **plain(self.extra),
        }


@dataclass(frozen=True)
class RoundRecord:
    """``adaptive.rounds[]``: one follow-up round as planned, written with its whole schedule
    before its first trial (so a killed run resumes it)."""

    round: int
    seed: int
    planned_at: str
    used_before_s: float
    time_left_s: float
    estimated_s: float
    benchmarks: Mapping[str, FollowUpRecord] = field(default_factory=dict)
    not_followed: Mapping[str, NotFollowedRecord] = field(default_factory=dict)
    schedule: Sequence[Mapping[str, Any]] = ()  # Trial.as_meta() of the round's trials
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "seed": self.seed,
            "planned_at": self.planned_at,
            "used_before_s": self.used_before_s,
            "time_left_s": self.time_left_s,
            "estimated_s": self.estimated_s,
            "benchmarks": {n: f.to_json() for n, f in self.benchmarks.items()},
            "not_followed": {n: nf.to_json() for n, nf in self.not_followed.items()},
            "schedule": [dict(t) for t in self.schedule],
            **plain(self.extra),
        }


@dataclass(frozen=True)
class FinalRecord:
    """``adaptive.final``: why the rounds stopped, the budget clock's times, and why each benchmark
    still inconclusive at the last look was not resolved."""

    stop_reason: str  # "all_resolved" | "no_candidates" | "budget_spent" | "rounds_spent"
    used_s: float
    planned_s: float
    followup_s: float
    unresolved: Mapping[str, NotFollowedRecord] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "stop_reason": self.stop_reason,
            "used_s": self.used_s,
            "planned_s": self.planned_s,
            "followup_s": self.followup_s,
            "unresolved": {n: u.to_json() for n, u in self.unresolved.items()},
            **plain(self.extra),
        }


@dataclass(frozen=True)
class AdaptiveRecord:
    """``adaptive`` (null without a budget): the budget, the rule, the rounds recorded so far and
    ``final`` (None until the last look)."""

    budget_s: float
    max_rounds: int
    rule: LookRule
    rounds: Sequence[RoundRecord] = ()
    final: FinalRecord | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def with_round(self, entry: RoundRecord) -> AdaptiveRecord:
        return replace(self, rounds=(*self.rounds, entry))

    def with_final(self, final: FinalRecord) -> AdaptiveRecord:
        return replace(self, final=final)

    def to_json(self) -> dict[str, Any]:
        return {
            "budget_s": self.budget_s,
            "max_rounds": self.max_rounds,
            "rule": self.rule.to_json(),
            "rounds": [r.to_json() for r in self.rounds],
            "final": None if self.final is None else self.final.to_json(),
            **plain(self.extra),
        }


@dataclass(frozen=True)
class GiveUpRecord:
    """``given_up[]``: a benchmark whose remaining trials in one version were not run, because
    its first trials there all failed (gate/engine/give_up.py; docs/running.md "Giving up on a
    failing benchmark"). Written before the next trial starts, so a resumed run skips them too."""

    benchmark: str
    version: str
    failed: int  # the failed trials it gave up after
    status: str  # the status of the last of them: error | timeout | invalid
    reason: str  # the reason of the last of them, as in the trial log
    trial: int  # the trial number after which it gave up
    at: str  # UTC time of the decision
    not_run: int  # the trials of the schedule being run that were left out
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "version": self.version,
            "failed": self.failed,
            "status": self.status,
            "reason": self.reason,
            "trial": self.trial,
            "at": self.at,
            "not_run": self.not_run,
            **plain(self.extra),
        }


@dataclass(frozen=True)
class LoadRange:
    samples: int
    min: float
    max: float

    def to_json(self) -> dict[str, Any]:
        return {"samples": self.samples, "min": self.min, "max": self.max}


@dataclass(frozen=True)
class LoadRecord:
    """``load``: the 1-minute load average read at every trial end (gate/engine/load.py), as
    min–max over the run and per suite run (keys: the suite run number as text)."""

    overall: LoadRange
    suite_runs: Mapping[str, LoadRange] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**self.overall.to_json(), "suite_runs": {k: r.to_json() for k, r in self.suite_runs.items()}}


@dataclass(frozen=True)
class ShardRecord:
    """``shard`` (absent for an unsharded run): which part of the suite this log measured, and
    the whole suite's split as every runner computed it (gate/engine/shard.py), so ``analyze``
    over the shards' logs knows what was planned and names what is missing."""

    index: int  # 1-based
    count: int
    method: str  # "lpt"
    seed: int
    cost_unit: str  # "s" | "values"
    suite: Sequence[str]  # every benchmark of the suite, sorted
    assignment: Mapping[str, int]  # benchmark -> shard
    expected: Sequence[float] = ()  # expected cost per shard (cost_unit)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def benchmarks_of(self, index: int) -> list[str]:
        return [n for n in self.suite if self.assignment.get(n) == index]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "count": self.count,
            "method": self.method,
            "seed": self.seed,
            "cost_unit": self.cost_unit,
            "suite": list(self.suite),
            "assignment": dict(self.assignment),
            "expected": list(self.expected),
            **plain(self.extra),
        }


def plain(value: Any) -> Any:
    """A JSON-ready copy (mappings and sequences as dict and list)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


# ---- decoding ------------------------------------------------------------------------------------
def describe(bad: Invalid) -> str:
    """``where (what was found, not what was expected)``: one malformed field, for a message."""
    if bad.said:
        return f"{bad.where} {bad.said}"
    if bad.missing:
        return f"{bad.where} (missing)"
    if bad.value is None:
        return f"{bad.where} (null)"
    value = bad.value  # a scalar is shown with its type (``int 3``, ``str '15m'``), a container by type
    found = f"{kind(value)} {short(value, 24)}" if isinstance(value, int | float | str) else kind(value)
    return f"{bad.where} ({found}, not {bad.expected})"


def invalid(where: str, said: str) -> Invalid:
    """A field wrong in a way a type does not say; ``said`` is the parenthesis of its message."""
    return Invalid(where, None, said=f"({said})")


def count(value: Any) -> bool:
    return type(value) is int and value >= 1


def name_text(value: Any, where: str) -> str | None:
    """Names and hashes are read as text (a version name like 1.10 may arrive as a number)."""
    if value is None or value == "":
        return None
    if isinstance(value, dict | list | bool):
        raise Invalid(where, value, "a string")
    return str(value)


# A schedule entry is Trial.as_meta(): exactly these keys, so that a resume rebuilds each trial
# as it was planned (docs/contracts.md, meta.json "schedule").
_TRIAL_TEXT = ("instance", "order_type", "benchmark", "version")
_TRIAL_COUNT = ("trial", "suite_run", "position", "iteration", "measurements")
_TRIAL_KEYS = frozenset({*_TRIAL_TEXT, *_TRIAL_COUNT})


def schedule(value: Any, where: str) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise invalid(where, f"{kind(value)}, not a list of objects")
    for i, t in enumerate(value):
        missing, unknown = sorted(_TRIAL_KEYS - t.keys()), sorted(t.keys() - _TRIAL_KEYS)
        if missing or unknown:
            said = [f"missing {', '.join(missing)}"] if missing else []
            said += [f"unknown {', '.join(map(repr, unknown))}"] if unknown else []
            raise invalid(
                f"{where}[{i}]", f"{'; '.join(said)}: a trial has exactly {', '.join(sorted(_TRIAL_KEYS))}"
            )
        for k in _TRIAL_TEXT:
            _string(t[k], f"{where}[{i}].{k}")
        for k in _TRIAL_COUNT:
            whole(1)(t[k], f"{where}[{i}].{k}")
    return tuple(value)


def opt_schedule(value: Any, where: str) -> tuple[dict[str, Any], ...]:
    return () if value is None else schedule(value, where)


# ---- adaptive ------------------------------------------------------------------------------------
# a confidence level: the one analyze's --confidence takes (gate/files/settings.py); rule.confidence
# is the overall level the looks share, confidence_per_look each look's
_confidence = CONFIDENCE.decode
_seconds = number(0.0)
_opt_seconds = nullable(_seconds)
_opt_count = nullable(whole(0))


def look_rule(o: Obj) -> LookRule:
    return LookRule(
        name=o.field("name", _string),
        confidence=o.field("confidence", _confidence),
        looks=o.field("looks", whole(1)),
        confidence_per_look=o.field("confidence_per_look", _confidence),
        extra=o.rest(),
    )


def not_followed(o: Obj) -> NotFollowedRecord:
    return NotFollowedRecord(
        reason=o.field("reason", _string),
        detail=o.field("detail", _string),
        values_needed=o.field("values_needed", _opt_count, None),
        needs_s=o.field("needs_s", _opt_seconds, None),
        extra=o.rest(),
    )


def follow_up(o: Obj) -> FollowUpRecord:
    return FollowUpRecord(
        values_now=o.field("values_now", whole(0)),
        values_needed=o.field("values_needed", whole(0)),
        suite_runs=o.field("suite_runs", whole(1)),
        why=o.field("why", _string),
        extra=o.rest(),
    )


def round_record(value: Any, where: str) -> RoundRecord:
    o = Obj(where, value)
    return RoundRecord(
        round=o.field("round", whole(1)),
        seed=o.field("seed", integer),
        planned_at=o.field("planned_at", _string),
        used_before_s=o.field("used_before_s", _seconds),
        time_left_s=o.field("time_left_s", _seconds),
        estimated_s=o.field("estimated_s", _seconds),
        benchmarks=o.field("benchmarks", entries(follow_up)),
        not_followed=o.field("not_followed", entries(not_followed)),
        schedule=o.field("schedule", schedule),
        extra=o.rest(),
    )


def final_record(value: Any, where: str) -> FinalRecord:
    o = Obj(where, value)
    return FinalRecord(
        stop_reason=o.field("stop_reason", _string),
        used_s=o.field("used_s", _seconds),
        planned_s=o.field("planned_s", _seconds),
        followup_s=o.field("followup_s", _seconds),
        unresolved=o.field("unresolved", entries(not_followed)),
        extra=o.rest(),
    )


def adaptive(value: Any, problems: list[str]) -> tuple[AdaptiveRecord | None, bool]:
    """``adaptive`` and whether it was kept. What cannot be read is named in ``problems`` and left
    out at the smallest part a run without it still describes: ``final`` (as for a run stopped
    before its last look) or ``rounds`` (analysis counts the rounds from the log's ``round``
    column); anything else drops the whole ``adaptive`` (the budget and the rule define the run)."""
    if value is None:
        return None, True
    try:
        o = Obj("adaptive", value)
        budget_s = o.field("budget_s", BUDGET.decode)
        max_rounds = o.field("max_rounds", MAX_ROUNDS.decode)
        rule = look_rule(o.child("rule"))
    except Invalid as bad:
        problems.append(describe(bad))
        return None, False
    rounds: tuple[RoundRecord, ...] = ()
    try:
        rounds = tuple(o.field("rounds", list_of(round_record)))
    except Invalid as bad:
        problems.append(describe(bad))
    final = None
    try:
        final = o.field("final", nullable(final_record), None)
    except Invalid as bad:
        problems.append(describe(bad))
    return AdaptiveRecord(budget_s, max_rounds, rule, rounds, final, extra=o.rest()), True


def _give_up(value: Any, where: str) -> GiveUpRecord:
    o = Obj(where, value)
    return GiveUpRecord(
        benchmark=o.field("benchmark", _string),
        version=o.field("version", _string),
        failed=o.field("failed", whole(1)),
        status=o.field("status", _string),
        reason=o.field("reason", _string),
        trial=o.field("trial", whole(1)),
        at=o.field("at", _string),
        not_run=o.field("not_run", whole(0)),
        extra=o.rest(),
    )


def given_up(value: Any, where: str) -> tuple[GiveUpRecord, ...]:
    return () if value is None else tuple(list_of(_give_up)(value, where))


def _load_range(o: Obj) -> LoadRange:
    return LoadRange(o.field("samples", whole(1)), o.field("min", _seconds), o.field("max", _seconds))


def load_record(value: Any, where: str) -> LoadRecord | None:
    if value is None:
        return None
    o = Obj(where, value)
    return LoadRecord(_load_range(o), o.field("suite_runs", entries(_load_range)))


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def shard(value: Any, where: str) -> ShardRecord | None:
    if value is None:
        return None
    o = Obj(where, value)
    count_ = o.field("count", whole(1))
    index = o.field("index", whole(1))
    if index > count_:
        raise invalid(f"{where}.index", f"{index}, more than shard.count {count_}")
    if (outside := SHARD.problem_of((index, count_))) is not None:  # run --shard's domain
        raise invalid(where, f"{index}/{count_} is {outside}")
    suite = o.item("suite")
    if not isinstance(suite, list) or not all(isinstance(n, str) for n in suite):
        raise invalid(f"{where}.suite", "not a list of benchmark names")
    assignment = o.field("assignment", obj)
    if set(assignment) != set(suite) or not all(
        type(k) is int and 1 <= k <= count_ for k in assignment.values()
    ):
        raise invalid(f"{where}.assignment", "not one shard 1..count for every benchmark of shard.suite")
    expected = o.item("expected", None) or []
    if not isinstance(expected, list) or not all(_finite(x) for x in expected):
        raise invalid(f"{where}.expected", "not a list of numbers")
    return ShardRecord(
        index=index,
        count=count_,
        method=o.field("method", _string),
        seed=o.field("seed", integer),
        cost_unit=o.field("cost_unit", _string),
        suite=tuple(suite),
        assignment=dict(assignment),
        expected=tuple(expected),
        extra=o.rest(),
    )
