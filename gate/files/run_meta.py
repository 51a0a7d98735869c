"""meta.json beside trials.csv (docs/contracts.md, "meta.json"): the only reader and writer.

:class:`RunMeta` is the document as a frozen value. ``run`` builds it and writes it with
:func:`write` (temp file + fsync + rename, so a kill never leaves half a file); the follow-up
rounds replace its ``adaptive`` section and write it again. Everything else reads it with
:func:`read` (a run to resume: anything unexpected is an error, because resuming must repeat the
same run) or :func:`read_beside` (``analyze``, ``calibrate``, ``history``: a field of another type
is dropped with a ``meta_invalid`` warning and the trials are still analysed).

What a reader can rely on: every field exists with its documented type (absent or dropped fields
have the empty value: ``None``, ``{}`` or ``()``), ``full`` and ``benchmark_configs`` carry the
level names of ``run`` (``suite_run``, ``iteration``, ``measurement``), ``adaptive`` is an
:class:`AdaptiveRecord` whose every part was checked (a lenient read leaves out the smallest
malformed part, :func:`_adaptive`), and a warning code is
spelled as today (:func:`gate.warning_codes.canonical`). Keys this gate does not know are kept in
``extra`` and written back unchanged, so resuming a run with rounds loses nothing. Schema 1 (no
``adaptive``, no ``round`` column) reads as a run without a budget; a newer schema is refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.errors import InputError, RunError, disk_full_error, is_disk_full
from gate.model import MAX_VALUES, TRIAL_LOG_SCHEMA, ConfigSource, Trial, threshold_pct_problem, warning
from gate.statistic import is_statistic, parse_statistic
from gate.warning_codes import WarningCode, canonical

FILE_NAME = "meta.json"
_WARNING_FIELDS = ("code", "message", "action")


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
    """``adaptive.rule``: the error control over all looks (gate/engine/rounds.py: Bonferroni over
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


@dataclass(frozen=True)
class RunMeta:
    """meta.json; the field order is the key order of the file."""

    schema_version: int = TRIAL_LOG_SCHEMA
    tool_version: str | None = None
    created_at: str | None = None
    seed: int | None = None
    mode: str | None = None  # "rmit" | "order-check"
    config_path: str | None = None
    config_hash: str | None = None
    sources: Mapping[str, Any] | None = None  # gate/engine/config_files.py writes each entry
    adapter: str | None = None
    versions: Mapping[str, VersionRecord] = field(default_factory=dict)
    base: str | None = None
    head: str | None = None
    instance: str | None = None
    full: Levels | None = None
    calibration: Mapping[str, Any] | None = None  # path, metric, threshold, sha256
    order_pairs: int | None = None
    benchmark_configs: Mapping[str, BenchmarkConfig] = field(default_factory=dict)
    benchmarks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # unit, direction, versions
    thresholds: Mapping[str, float] = field(default_factory=dict)  # positive finite threshold_pct
    # [suite] statistic (None: analyze's default) and each [[benchmark]] statistic, canonical names
    statistic: str | None = None
    statistics: Mapping[str, str] = field(default_factory=dict)
    tail_check: bool | None = None  # [suite] tail_check (None: analyze's default, on)
    schedule: Sequence[Mapping[str, Any]] = ()  # Trial.as_meta() of every planned trial
    environment: Mapping[str, Any] | None = None
    sandbox: Mapping[str, Any] | None = None
    layout: Mapping[str, Any] | None = None
    warnings: Sequence[Mapping[str, str]] = ()
    adaptive: AdaptiveRecord | None = None  # null without a budget
    given_up: Sequence[GiveUpRecord] = ()  # benchmark × version pairs whose remaining trials were not run
    load: LoadRecord | None = None  # the load while the trials ran (absent in older files)
    shard: ShardRecord | None = None  # run --shard K/N; None for an unsharded run
    extra: Mapping[str, Any] = field(default_factory=dict)  # keys this gate does not know
    # the keys the file had (None: every field, as for a document ``run`` builds); see :meth:`has`
    read_keys: frozenset[str] | None = None

    def has(self, key: str) -> bool:
        """Whether the document gives ``key`` (a hand-written file may leave fields out: such a
        field reads as its empty value, which some readers must tell from a given empty value)."""
        return self.read_keys is None or key in self.read_keys

    # ---- the trials it lists ---------------------------------------------------------------------
    def config_source(self, benchmark: str) -> str:
        c = self.benchmark_configs.get(benchmark)
        return c.config_source if c is not None else ConfigSource.FULL.value

    def planned_trials(self) -> list[Trial]:
        """The planned schedule as trials (round 0)."""
        return [Trial(config_source=self.config_source(str(t["benchmark"])), **t) for t in self.schedule]

    def entry_trials(self, entry: RoundRecord) -> list[Trial]:
        """The trials of one ``adaptive.rounds`` entry."""
        return [
            Trial(config_source=self.config_source(str(t["benchmark"])), round=entry.round, **t)
            for t in entry.schedule
        ]

    def round_trials(self) -> list[Trial]:
        """Every trial of the follow-up rounds recorded in ``adaptive``, in order."""
        rounds = self.adaptive.rounds if self.adaptive is not None else ()
        return [t for entry in rounds for t in self.entry_trials(entry)]

    @property
    def confidence_per_look(self) -> float | None:
        """``adaptive.rule.confidence_per_look``: the level of every look of a run with follow-up
        rounds (None without a budget; a read file's is a level in [0.5, 1))."""
        return None if self.adaptive is None else float(self.adaptive.rule.confidence_per_look)

    def with_adaptive(self, adaptive: AdaptiveRecord | None) -> RunMeta:
        return replace(self, adaptive=adaptive)

    def with_given_up(self, given_up: Sequence[GiveUpRecord]) -> RunMeta:
        return replace(self, given_up=tuple(given_up))

    def with_load(self, load: LoadRecord | None, warnings: Sequence[Mapping[str, str]]) -> RunMeta:
        return replace(self, load=load, warnings=tuple(warnings))

    def with_warning(self, w: Mapping[str, str]) -> RunMeta:
        """This document with ``w`` added, unless a warning with its code is already there."""
        if any(x.get("code") == w["code"] for x in self.warnings):
            return self
        return replace(self, warnings=(*self.warnings, w))

    # ---- JSON ------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "tool_version": self.tool_version,
            "created_at": self.created_at,
            "seed": self.seed,
            "mode": self.mode,
            "config_path": self.config_path,
            "config_hash": self.config_hash,
            "sources": plain(self.sources),
            "adapter": self.adapter,
            "versions": {rev: v.to_json() for rev, v in self.versions.items()},
            "base": self.base,
            "head": self.head,
            "instance": self.instance,
            "full": None if self.full is None else self.full.to_json(),
            "calibration": plain(self.calibration),
            "order_pairs": self.order_pairs,
            "benchmark_configs": {n: c.to_json() for n, c in self.benchmark_configs.items()},
            "benchmarks": plain(self.benchmarks),
            "thresholds": dict(self.thresholds),
            "statistic": self.statistic,
            "statistics": dict(self.statistics),
            "tail_check": self.tail_check,
            "schedule": [dict(t) for t in self.schedule],
            "environment": plain(self.environment),
            "sandbox": plain(self.sandbox),
            "layout": plain(self.layout),
            "warnings": [dict(w) for w in self.warnings],
            "adaptive": None if self.adaptive is None else self.adaptive.to_json(),
            "given_up": [g.to_json() for g in self.given_up],
            **({} if self.load is None else {"load": self.load.to_json()}),
            **({} if self.shard is None else {"shard": self.shard.to_json()}),
            **plain(self.extra),
        }


def plain(value: Any) -> Any:
    """A JSON-ready copy (mappings and sequences as dict and list)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


# ---- parsing -------------------------------------------------------------------------------------
class _Invalid(Exception):
    """A field that does not have its documented type; ``what`` says which and how."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def _kind(value: Any) -> str:
    return type(value).__name__


def _count(value: Any) -> bool:
    return type(value) is int and value >= 1


def _object(key: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Invalid(f"{key} ({_kind(value)}, not an object)")
    return value


def _text(key: str, value: Any) -> str | None:
    """Names and hashes are read as text (a version name like 1.10 may arrive as a number)."""
    if value is None or value == "":
        return None
    if isinstance(value, dict | list | bool):
        raise _Invalid(f"{key} ({_kind(value)}, not a string)")
    return str(value)


def _int(key: str, value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise _Invalid(f"{key} ({_kind(value)}, not an integer)")
    return value


def _versions(value: Any) -> dict[str, VersionRecord]:
    out = {}
    for rev, info in (_object("versions", value) or {}).items():
        if not isinstance(info, dict):
            raise _Invalid(f"versions ({rev!r} is {_kind(info)}, not an object)")
        out[str(rev)] = VersionRecord(
            _text("versions role", info.get("role")),
            _text("versions sha", info.get("sha")),
            _text("versions worktree", info.get("worktree")),
        )
    return out


def _levels(value: Any) -> Levels | None:
    full = _object("full", value)
    if full is None:
        return None
    got: list[Any] = [full.get(k) for k in ("suite_run", "iteration", "measurement")]
    if not all(_count(v) for v in got):
        raise _Invalid("full (not suite_run, iteration and measurement as whole numbers ≥ 1)")
    return Levels(*(int(v) for v in got))


def _benchmark_configs(value: Any) -> dict[str, BenchmarkConfig]:
    out = {}
    for name, c in (_object("benchmark_configs", value) or {}).items():
        levels: list[Any] = (
            [c.get(k) for k in ("suite_run", "iteration", "measurement")] if isinstance(c, dict) else []
        )
        if not (levels and all(_count(v) for v in levels)):
            raise _Invalid(
                f"benchmark_configs ({name!r} lacks whole-number suite_run, iteration, measurement)"
            )
        warmup = c.get("discard_warmup", 0)
        level = c.get("warmup_level", "measurement")
        if type(warmup) is not int or warmup < 0 or level not in ("measurement", "iteration"):
            raise _Invalid(f"benchmark_configs ({name!r} has a bad discard_warmup or warmup_level)")
        suite_run, iteration, measurement = (int(v) for v in levels)
        # the bounds run itself keeps ([full] and the calibration's checks, gate/engine/plan.py):
        # at most MAX_VALUES values, and a warm-up that leaves values at its level (the level's
        # count includes the discarded positions, run executes them on top of the calibrated ones)
        if suite_run * iteration * measurement > MAX_VALUES:
            raise _Invalid(
                f"benchmark_configs ({name!r} asks for {suite_run}×{iteration}×{measurement} values, "
                f"more than the {MAX_VALUES:,} a run collects)"
            )
        if warmup >= (iteration if level == "iteration" else measurement):
            raise _Invalid(
                f"benchmark_configs ({name!r} discards {warmup} warm-up {level}(s) of its "
                f"{iteration if level == 'iteration' else measurement}: no value would be left)"
            )
        out[str(name)] = BenchmarkConfig(
            suite_run,
            iteration,
            measurement,
            config_source=str(c.get("source") or ConfigSource.FULL.value),
            discard_warmup=warmup,
            warmup_level=level,
            never_stable=c.get("never_stable") is True,
        )
    return out


def _thresholds(value: Any) -> dict[str, float]:
    """Per-benchmark ``threshold_pct`` in the domain .ordertrap.toml and analyze accept
    (:func:`gate.model.threshold_pct_problem`); one outside it makes the field invalid (left out
    with a ``meta_invalid`` warning: the suite-wide threshold applies)."""
    out: dict[str, float] = {}
    for n, t in (_object("thresholds", value) or {}).items():
        bad = "not a number" if isinstance(t, bool) or not isinstance(t, int | float) else None
        bad = bad or threshold_pct_problem(float(t))
        if bad is not None:
            raise _Invalid(f"thresholds ({str(n)!r:.60}: {str(t)[:20]} is {bad})")
        out[str(n)] = float(t)
    return out


def _statistic(value: Any) -> str | None:
    """A statistic name the gate knows, canonical; anything else reads as absent (the default)."""
    return parse_statistic(value) if isinstance(value, str) and is_statistic(value) else None


def _statistics(value: Any) -> dict[str, str]:
    """Entries that are not statistic names are left out (the suite's statistic applies)."""
    return {str(n): s for n, v in (_object("statistics", value) or {}).items() if (s := _statistic(v))}


# A schedule entry is Trial.as_meta(): exactly these keys, so that a resume rebuilds each trial
# as it was planned (docs/contracts.md, meta.json "schedule").
_TRIAL_TEXT = ("instance", "order_type", "benchmark", "version")
_TRIAL_COUNT = ("trial", "suite_run", "position", "iteration", "measurements")


def _schedule(value: Any, where: str = "schedule") -> tuple[dict[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise _Invalid(f"{where} ({_kind(value)}, not a list of objects)")
    keys = {*_TRIAL_TEXT, *_TRIAL_COUNT}
    for i, t in enumerate(value):
        missing, unknown = sorted(keys - t.keys()), sorted(t.keys() - keys)
        if missing or unknown:
            said = [f"missing {', '.join(missing)}"] if missing else []
            said += [f"unknown {', '.join(map(repr, unknown))}"] if unknown else []
            raise _Invalid(f"{where}[{i}] ({'; '.join(said)}: a trial has exactly {', '.join(sorted(keys))})")
        bad = [k for k in _TRIAL_TEXT if not isinstance(t[k], str)]
        bad += [k for k in _TRIAL_COUNT if not _count(t[k])]
        if bad:
            raise _Invalid(
                f"{where}[{i}].{bad[0]} ({_kind(t[bad[0]])}, not a {'string' if bad[0] in _TRIAL_TEXT else 'whole number ≥ 1'})"
            )
    return tuple(value)


def _benchmarks(value: Any) -> dict[str, dict[str, Any]]:
    found = _object("benchmarks", value) or {}
    if not all(isinstance(b, dict) for b in found.values()):
        raise _Invalid("benchmarks (an entry is not an object)")
    return found


# ---- adaptive ------------------------------------------------------------------------------------
class _Obj:
    """One JSON object inside ``adaptive``, named ``where`` in messages, read key by key; the keys
    not read are :meth:`rest` (kept and written back, like the top level's ``extra``)."""

    def __init__(self, where: str, value: Any) -> None:
        if not isinstance(value, dict):
            raise _Invalid(f"{where} ({_kind(value)}, not an object)")
        self.where, self.doc = where, value
        self._read: set[str] = set()

    def item(self, key: str, nullable: bool) -> Any:
        self._read.add(key)
        value = self.doc.get(key)
        if value is None and not nullable:
            raise _Invalid(f"{self.where}.{key} ({'null' if key in self.doc else 'missing'})")
        return value

    def number(self, key: str, low: float = 0.0, below: float = math.inf) -> float:
        """A finite number in [low, below), as written (an int stays an int: the file round-trips)."""
        value = self.item(key, nullable=False)
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not (ok and low <= value < below):
            bounds = f"≥ {low:g}" if below == math.inf else f"in [{low:g}, {below:g})"
            raise _Invalid(f"{self.where}.{key} ({value!r}, not a number {bounds})")
        return value

    def opt_number(self, key: str) -> float | None:
        return None if self.item(key, nullable=True) is None else self.number(key)

    def whole(self, key: str, low: int | None = 0) -> int:
        value = self.item(key, nullable=False)
        if type(value) is not int or (low is not None and value < low):
            raise _Invalid(
                f"{self.where}.{key} ({value!r}, not a whole number{'' if low is None else f' ≥ {low}'})"
            )
        return value

    def opt_whole(self, key: str) -> int | None:
        return None if self.item(key, nullable=True) is None else self.whole(key)

    def text(self, key: str) -> str:
        value = self.item(key, nullable=False)
        if not isinstance(value, str):
            raise _Invalid(f"{self.where}.{key} ({_kind(value)}, not a string)")
        return value

    def obj(self, key: str) -> _Obj:
        return _Obj(f"{self.where}.{key}", self.item(key, nullable=False))

    def entries(self, key: str) -> dict[str, _Obj]:
        """An object of objects, by name."""
        return {str(n): _Obj(f"{self.where}.{key}[{n!r}]", v) for n, v in self.obj(key).doc.items()}

    def rest(self) -> dict[str, Any]:
        return {k: v for k, v in self.doc.items() if k not in self._read}


def _look_rule(o: _Obj) -> LookRule:
    return LookRule(
        name=o.text("name"),
        confidence=o.number("confidence", 0.0, 1.0),
        looks=o.whole("looks", 1),
        confidence_per_look=o.number("confidence_per_look", 0.5, 1.0),
        extra=o.rest(),
    )


def _not_followed(o: _Obj) -> NotFollowedRecord:
    return NotFollowedRecord(
        reason=o.text("reason"),
        detail=o.text("detail"),
        values_needed=o.opt_whole("values_needed"),
        needs_s=o.opt_number("needs_s"),
        extra=o.rest(),
    )


def _round(o: _Obj) -> RoundRecord:
    return RoundRecord(
        round=o.whole("round", 1),
        seed=o.whole("seed", None),
        planned_at=o.text("planned_at"),
        used_before_s=o.number("used_before_s"),
        time_left_s=o.number("time_left_s"),
        estimated_s=o.number("estimated_s"),
        benchmarks={
            n: FollowUpRecord(
                values_now=f.whole("values_now"),
                values_needed=f.whole("values_needed"),
                suite_runs=f.whole("suite_runs", 1),
                why=f.text("why"),
                extra=f.rest(),
            )
            for n, f in o.entries("benchmarks").items()
        },
        not_followed={n: _not_followed(nf) for n, nf in o.entries("not_followed").items()},
        schedule=_schedule(o.item("schedule", nullable=False), f"{o.where}.schedule"),
        extra=o.rest(),
    )


def _final(o: _Obj) -> FinalRecord:
    return FinalRecord(
        stop_reason=o.text("stop_reason"),
        used_s=o.number("used_s"),
        planned_s=o.number("planned_s"),
        followup_s=o.number("followup_s"),
        unresolved={n: _not_followed(u) for n, u in o.entries("unresolved").items()},
        extra=o.rest(),
    )


def _adaptive(value: Any, problems: list[str]) -> tuple[AdaptiveRecord | None, bool]:
    """``adaptive`` and whether it was kept. What cannot be read is named in ``problems`` and left
    out at the smallest part a run without it still describes: ``final`` (as for a run stopped
    before its last look) or ``rounds`` (analysis counts the rounds from the log's ``round``
    column); anything else drops the whole ``adaptive`` (the budget and the rule define the run)."""
    if value is None:
        return None, True
    try:
        o = _Obj("adaptive", value)
        budget_s = o.number("budget_s")
        max_rounds = o.whole("max_rounds", 1)
        rule = _look_rule(o.obj("rule"))
    except _Invalid as bad:
        problems.append(bad.what)
        return None, False
    try:
        rounds_doc = o.item("rounds", nullable=False)
        if not isinstance(rounds_doc, list):
            raise _Invalid(f"adaptive.rounds ({_kind(rounds_doc)}, not a list)")
        rounds = tuple(_round(_Obj(f"adaptive.rounds[{i}]", r)) for i, r in enumerate(rounds_doc))
    except _Invalid as bad:
        problems.append(bad.what)
        rounds = ()
    final = None
    try:
        final_doc = o.item("final", nullable=True)
        final = None if final_doc is None else _final(_Obj("adaptive.final", final_doc))
    except _Invalid as bad:
        problems.append(bad.what)
    return AdaptiveRecord(budget_s, max_rounds, rule, rounds, final, extra=o.rest()), True


def _given_up(value: Any) -> tuple[GiveUpRecord, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _Invalid(f"given_up ({_kind(value)}, not a list)")
    out = []
    for i, doc in enumerate(value):
        o = _Obj(f"given_up[{i}]", doc)
        out.append(
            GiveUpRecord(
                benchmark=o.text("benchmark"),
                version=o.text("version"),
                failed=o.whole("failed", 1),
                status=o.text("status"),
                reason=o.text("reason"),
                trial=o.whole("trial", 1),
                at=o.text("at"),
                not_run=o.whole("not_run"),
                extra=o.rest(),
            )
        )
    return tuple(out)


def _load_range(o: _Obj) -> LoadRange:
    return LoadRange(o.whole("samples", 1), o.number("min"), o.number("max"))


def _load_record(value: Any) -> LoadRecord | None:
    if value is None:
        return None
    o = _Obj("load", value)
    return LoadRecord(_load_range(o), {k: _load_range(r) for k, r in o.entries("suite_runs").items()})


def _shard(value: Any) -> ShardRecord | None:
    if value is None:
        return None
    o = _Obj("shard", value)
    count = o.whole("count", 1)
    index = o.whole("index", 1)
    if index > count:
        raise _Invalid(f"shard.index ({index}, more than shard.count {count})")
    suite = o.item("suite", nullable=False)
    if not isinstance(suite, list) or not all(isinstance(n, str) for n in suite):
        raise _Invalid("shard.suite (not a list of benchmark names)")
    assignment = o.obj("assignment").doc
    if set(assignment) != set(suite) or not all(
        type(k) is int and 1 <= k <= count for k in assignment.values()
    ):
        raise _Invalid("shard.assignment (not one shard 1..count for every benchmark of shard.suite)")
    expected = o.item("expected", nullable=True) or []
    if not isinstance(expected, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in expected
    ):
        raise _Invalid("shard.expected (not a list of numbers)")
    return ShardRecord(
        index=index,
        count=count,
        method=o.text("method"),
        seed=o.whole("seed", None),
        cost_unit=o.text("cost_unit"),
        suite=tuple(suite),
        assignment=dict(assignment),
        expected=tuple(expected),
        extra=o.rest(),
    )


_FIELDS: dict[str, Callable[[Any], Any]] = {
    "schema_version": lambda v: _int("schema_version", v) or 1,  # absent: 1, read below
    "tool_version": lambda v: _text("tool_version", v),
    "created_at": lambda v: _text("created_at", v),
    "seed": lambda v: _int("seed", v),
    "mode": lambda v: _text("mode", v),
    "config_path": lambda v: _text("config_path", v),
    "config_hash": lambda v: _text("config_hash", v),
    "sources": lambda v: _object("sources", v),
    "adapter": lambda v: _text("adapter", v),
    "versions": _versions,
    "base": lambda v: _text("base", v),
    "head": lambda v: _text("head", v),
    "instance": lambda v: _text("instance", v),
    "full": _levels,
    "calibration": lambda v: _object("calibration", v),
    "order_pairs": lambda v: _int("order_pairs", v),
    "benchmark_configs": _benchmark_configs,
    "benchmarks": _benchmarks,
    "thresholds": _thresholds,
    "statistic": _statistic,
    "statistics": _statistics,
    "tail_check": lambda v: v if isinstance(v, bool) else None,
    "schedule": _schedule,
    "environment": lambda v: _object("environment", v),
    "sandbox": lambda v: _object("sandbox", v),
    "layout": lambda v: _object("layout", v),
    "given_up": _given_up,
    "load": _load_record,
    "shard": _shard,
}


def _warnings(value: Any, problems: list[str]) -> tuple[dict[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(f"warnings ({_kind(value)}, not a list)")
        return ()
    kept = [
        w for w in value if isinstance(w, dict) and all(isinstance(w.get(k), str) for k in _WARNING_FIELDS)
    ]
    if len(kept) < len(value):
        problems.append(
            f"{len(value) - len(kept)} of {len(value)} warnings (not objects with string code, message, action)"
        )
    # an older run's spelling of a code is read as today's (gate/warning_codes.py)
    return tuple({**w, "code": canonical(w["code"])} for w in kept)


def from_json(doc: Any, path: Path | str) -> tuple[RunMeta, list[str]]:
    """The document and the fields left out because they do not have their documented type
    (each described for a message). Raises :class:`InputError` for a newer schema or a
    document that is not an object."""
    if not isinstance(doc, dict):
        raise InputError(
            f"{path} holds {_kind(doc)}, not a JSON object",
            "restore meta.json as `ordertrap-gate run` wrote it",
        )
    version = doc.get("schema_version", 1)
    if type(version) is int and version > TRIAL_LOG_SCHEMA:
        raise InputError(
            f"{path} has schema_version {version}, newer than this gate understands ({TRIAL_LOG_SCHEMA})",
            "upgrade ordertrap-gate to the version that wrote the log",
        )
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, parse in _FIELDS.items():
        if key not in doc:
            continue
        try:
            values[key] = parse(doc[key])
        except _Invalid as bad:
            problems.append(bad.what)
    if "adaptive" in doc:
        values["adaptive"], kept = _adaptive(doc["adaptive"], problems)
        if not kept:
            del values["adaptive"]
    values.setdefault("schema_version", 1)
    values["warnings"] = _warnings(doc.get("warnings"), problems)
    values["extra"] = {k: v for k, v in doc.items() if k not in _FIELDS and k not in ("warnings", "adaptive")}
    values["read_keys"] = frozenset(doc) - {k for k in (*_FIELDS, "adaptive") if k not in values}
    return RunMeta(**values), problems


def _load(path: Path) -> Any:
    return jsontext.loads(path.read_text(encoding="utf-8"))


def read(path: Path) -> RunMeta:
    """meta.json of a run to resume: unreadable or malformed is an error (the run cannot be
    repeated exactly), whose fix is a new output directory."""
    try:
        doc = _load(path)
    except (OSError, ValueError) as exc:  # ValueError: bad UTF-8, bad JSON, nesting too deep
        raise InputError(f"{path} is unreadable: {exc}", "pass a new --out") from None
    try:
        meta, problems = from_json(doc, path)
    except InputError as exc:
        raise InputError(exc.message, "upgrade ordertrap-gate or pass a new --out") from None
    if problems:
        raise InputError(f"{path} has fields of the wrong type: {'; '.join(problems)}", "pass a new --out")
    return meta


def path_beside(log: Path) -> Path | None:
    """meta.json beside the log: ``<log>.meta.json``, ``<stem>.meta.json``, then ``meta.json``."""
    for candidate in (
        log.with_name(log.name + "." + FILE_NAME),
        log.with_name(log.stem + "." + FILE_NAME),
        log.with_name(FILE_NAME),
    ):
        if candidate.is_file():
            return candidate
    return None


def read_beside(log: Path, warnings: list[dict[str, str]]) -> RunMeta | None:
    """meta.json of a trial log for analysis: None when there is none or it cannot be read (a
    ``meta_unreadable`` warning); fields of another type are left out with a ``meta_invalid``
    warning naming them: like an unreadable file they are unknown, and the trials are still
    analysed. A newer schema raises :class:`InputError`."""
    path = path_beside(log)
    if path is None:
        return None
    try:
        doc = _load(path)
    except (OSError, ValueError) as exc:
        warnings.append(
            warning(
                WarningCode.META_UNREADABLE,
                f"{path} could not be read ({exc}); environment, time and defaults are unknown",
                f"restore {path.name} from the run, or delete it to silence this warning",
            )
        )
        return None
    if not isinstance(doc, dict):
        return None
    meta, problems = from_json(doc, path)
    if problems:
        warnings.append(
            warning(
                WarningCode.META_INVALID,
                f"{path} has fields of the wrong type, ignored: {'; '.join(problems)}",
                f"restore {path.name} as `ordertrap-gate run` wrote it (docs/contracts.md, meta.json); "
                "the trials themselves are analysed",
            )
        )
    return meta


def write(path: Path, meta: RunMeta) -> None:
    """Write ``meta`` atomically: a temp file beside it, flushed to disk, renamed into place."""
    tmp = path.with_suffix(".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(meta.to_json(), fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with suppress(OSError):  # a half-written file is never renamed into place
            tmp.unlink(missing_ok=True)
        if is_disk_full(exc):
            raise disk_full_error(f"writing {path.name}", f"{path}: {exc.strerror}", path.parent) from None
        raise RunError(
            f"cannot write {path}: {exc.strerror or exc}", "check the --out directory's permissions and disk"
        ) from None
