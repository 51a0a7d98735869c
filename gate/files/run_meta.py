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
malformed part, :func:`gate.files.meta_sections.adaptive`),. Keys this gate does not know are
kept in ``extra`` and written back unchanged, so resuming a run with rounds loses nothing. A file
without ``schema_version`` or of schema 1 (no release wrote either) is refused naming the fix, a
rerun; a newer schema is refused too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.errors import InputError, RunError, disk_full_error, is_disk_full
from gate.files import bounded
from gate.files import meta_sections as sections
from gate.files.meta_sections import (
    AdaptiveRecord,
    BenchmarkConfig,
    FinalRecord,
    FollowUpRecord,
    GiveUpRecord,
    Levels,
    LoadRange,
    LoadRecord,
    LookRule,
    NotFollowedRecord,
    RoundRecord,
    ShardRecord,
    VersionRecord,
    count,
    invalid,
    name_text,
    plain,
)
from gate.files.schema import Invalid, Obj, entries, integer, kind, nullable, obj, short
from gate.files.settings import SEED, STATISTIC, THRESHOLD_PCT, values_problem
from gate.model import (
    MAX_JSON_BYTES,
    MAX_VALUES,
    TRIAL_LOG_SCHEMA,
    ConfigSource,
    Trial,
    warning,
)
from gate.statistic import CALIBRATED
from gate.warning_codes import WarningCode

__all__ = [
    "AdaptiveRecord",
    "BenchmarkConfig",
    "FinalRecord",
    "FollowUpRecord",
    "GiveUpRecord",
    "Levels",
    "LoadRange",
    "LoadRecord",
    "LookRule",
    "NotFollowedRecord",
    "RoundRecord",
    "RunMeta",
    "ShardRecord",
    "VersionRecord",
    "from_json",
    "path_beside",
    "plain",
    "read",
    "read_beside",
    "write",
]

FILE_NAME = "meta.json"
RERUN = (
    "run `ordertrap-gate run` again with this version (a new --out) to write the trials and meta.json anew"
)
_WARNING_FIELDS = ("code", "message", "action")


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
    sources: Mapping[str, Any] | None = None  # gate/config/config_files.py writes each entry
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
    # ("calibrated": each benchmark by the calibration's choice; gate/analysis/statistic_source.py)
    statistic: str | None = None
    statistics: Mapping[str, str] = field(default_factory=dict)
    # the statistic calibration.json chose for each planned benchmark (run --calibration); whether
    # it decides is gate/analysis/statistic_source.py's rule (absent in older files: none)
    calibrated_statistics: Mapping[str, str] = field(default_factory=dict)
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
            **(
                {"calibrated_statistics": dict(self.calibrated_statistics)}
                if self.calibrated_statistics
                else {}
            ),
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


# ---- parsing -------------------------------------------------------------------------------------
def opt_object(value: Any, where: str) -> dict[str, Any] | None:
    return nullable(obj, "")(value, where)


def versions(value: Any, where: str) -> dict[str, VersionRecord]:
    def version(o: Obj) -> VersionRecord:
        return VersionRecord(*(o.field(k, name_text, None) for k in ("role", "sha", "worktree")))

    return {} if value is None else entries(version)(value, where)


def levels(value: Any, where: str) -> Levels | None:
    full = opt_object(value, where)
    if full is None:
        return None
    got: list[Any] = [full.get(k) for k in ("suite_run", "iteration", "measurement")]
    if not all(count(v) for v in got):
        raise invalid(where, "not suite_run, iteration and measurement as whole numbers ≥ 1")
    # [full]'s bound in .ordertrap.toml (gate/files/settings.py)
    if (too_many := values_problem(got[0], got[1], got[2], MAX_VALUES)) is not None:
        raise invalid(where, f"asks for {too_many}")
    return Levels(*(int(v) for v in got))


def benchmark_configs(value: Any, where: str) -> dict[str, BenchmarkConfig]:
    out = {}
    for name, c in (opt_object(value, where) or {}).items():
        got: list[Any] = (
            [c.get(k) for k in ("suite_run", "iteration", "measurement")] if isinstance(c, dict) else []
        )
        if not (got and all(count(v) for v in got)):
            raise invalid(where, f"{name!r} lacks whole-number suite_run, iteration, measurement")
        warmup = c.get("discard_warmup", 0)
        level = c.get("warmup_level", "measurement")
        if type(warmup) is not int or warmup < 0 or level not in ("measurement", "iteration"):
            raise invalid(where, f"{name!r} has a bad discard_warmup or warmup_level")
        suite_run, iteration, measurement = (int(v) for v in got)
        # the bounds run itself keeps ([full] and the calibration's checks, gate/engine/plan.py):
        # at most MAX_VALUES values, and a warm-up that leaves values at its level (the level's
        # count includes the discarded positions, run executes them on top of the calibrated ones)
        if (too_many := values_problem(suite_run, iteration, measurement, MAX_VALUES)) is not None:
            raise invalid(where, f"{name!r} asks for {too_many}, the most a run collects")
        at_level = iteration if level == "iteration" else measurement
        if warmup >= at_level:
            raise invalid(
                where,
                f"{name!r} discards {warmup} warm-up {level}(s) of its {at_level}: no value would be left",
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


def thresholds(value: Any, where: str) -> dict[str, float]:
    """Per-benchmark ``threshold_pct`` in the domain .ordertrap.toml and analyze accept
    (:data:`gate.files.settings.THRESHOLD_PCT`); one outside it makes the field invalid (left out
    with a ``meta_invalid`` warning: the suite-wide threshold applies)."""
    out: dict[str, float] = {}
    for n, t in (opt_object(value, where) or {}).items():
        try:
            out[str(n)] = THRESHOLD_PCT.value(t, where)
        except Invalid as bad:
            raise invalid(where, f"{str(n)!r:.60}: {str(t)[:20]} is {THRESHOLD_PCT.problem(bad)}") from None
    return out


def statistic(value: Any, where: str = "") -> str | None:
    """A statistic name the gate knows (:data:`gate.files.settings.STATISTIC`), canonical; anything
    else reads as absent (the default)."""
    return None if STATISTIC.problem_of(value) is not None else STATISTIC.value(value, where)


def statistics(value: Any, where: str) -> dict[str, str]:
    """Entries that are not statistic names are left out (the suite's statistic applies), and so is
    ``calibrated``, which names no statistic for one benchmark."""
    return {
        str(n): s
        for n, v in (opt_object(value, where) or {}).items()
        if (s := statistic(v)) and s != CALIBRATED
    }


def benchmarks(value: Any, where: str) -> dict[str, dict[str, Any]]:
    found = opt_object(value, where) or {}
    if not all(isinstance(b, dict) for b in found.values()):
        raise invalid(where, "an entry is not an object")
    return found


_name = name_text
_FIELDS: dict[str, Callable[[Any, str], Any]] = {
    "schema_version": integer,  # checked first, in from_json
    "tool_version": _name,
    "created_at": _name,
    "seed": nullable(SEED.decode),
    "mode": _name,
    "config_path": _name,
    "config_hash": _name,
    "sources": opt_object,
    "adapter": _name,
    "versions": versions,
    "base": _name,
    "head": _name,
    "instance": _name,
    "full": levels,
    "calibration": opt_object,
    "order_pairs": nullable(integer),
    "benchmark_configs": benchmark_configs,
    "benchmarks": benchmarks,
    "thresholds": thresholds,
    "statistic": statistic,
    "statistics": statistics,
    "calibrated_statistics": statistics,
    "tail_check": lambda v, w: v if isinstance(v, bool) else None,
    "schedule": sections.opt_schedule,
    "environment": opt_object,
    "sandbox": opt_object,
    "layout": opt_object,
    "given_up": sections.given_up,
    "load": sections.load_record,
    "shard": sections.shard,
}


def _warnings(value: Any, problems: list[str]) -> tuple[dict[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(f"warnings ({kind(value)}, not a list)")
        return ()
    kept = [
        w for w in value if isinstance(w, dict) and all(isinstance(w.get(k), str) for k in _WARNING_FIELDS)
    ]
    if len(kept) < len(value):
        problems.append(
            f"{len(value) - len(kept)} of {len(value)} warnings (not objects with string code, message, action)"
        )
    return tuple(kept)


def from_json(doc: Any, path: Path | str) -> tuple[RunMeta, list[str]]:
    """The document and the fields left out because they do not have their documented type
    (each described for a message). Raises :class:`InputError` for a newer schema or a
    document that is not an object."""
    if not isinstance(doc, dict):
        raise InputError(
            f"{path} holds {kind(doc)}, not a JSON object",
            "restore meta.json as `ordertrap-gate run` wrote it",
        )
    version = doc.get("schema_version")
    if type(version) is int and version > TRIAL_LOG_SCHEMA:
        raise InputError(
            f"{path} has schema_version {version}, newer than this gate understands ({TRIAL_LOG_SCHEMA})",
            "upgrade ordertrap-gate to the version that wrote the log",
        )
    if version != TRIAL_LOG_SCHEMA:  # no release wrote another: a development version's file
        found = "no schema_version" if version is None else f"schema_version {short(version)}"
        raise InputError(
            f"{path} has {found}: an unreleased ordertrap-gate wrote it, this one reads "
            f"schema_version {TRIAL_LOG_SCHEMA} only",
            RERUN,
        )
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, parse in _FIELDS.items():
        if key not in doc:
            continue
        try:
            values[key] = parse(doc[key], key)
        except Invalid as bad:
            problems.append(sections.describe(bad))
    if "adaptive" in doc:
        values["adaptive"], kept = sections.adaptive(doc["adaptive"], problems)
        if not kept:
            del values["adaptive"]
    values["warnings"] = _warnings(doc.get("warnings"), problems)
    values["extra"] = {k: v for k, v in doc.items() if k not in _FIELDS and k not in ("warnings", "adaptive")}
    values["read_keys"] = frozenset(doc) - {k for k in (*_FIELDS, "adaptive") if k not in values}
    return RunMeta(**values), problems


def _load(path: Path) -> Any:
    # ValueError when larger than MAX_JSON_BYTES: unreadable, like bad JSON (a schedule entry per
    # trial is ~150 bytes, so a real meta.json stays far below)
    return jsontext.loads(bounded.read_text_within(path, MAX_JSON_BYTES))


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
        fix = exc.fix if exc.fix == RERUN else "upgrade ordertrap-gate or pass a new --out"
        raise InputError(exc.message, fix) from None
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
