"""The analysis document's types (docs/contracts.md, "analysis.json").

The document itself is a ``TypedDict`` (:class:`Analysis`): it goes as written to the JSON text
and the history, so a typed mapping keeps unknown fields of a newer file without a conversion.
Its detail sections — a benchmark's ``order``, ``carryover``, ``similarity``, ``config`` and
``carryover_exclusion``, the suite's ``order_check``, ``similarity`` and ``environment`` — are
free-form objects in the file; :func:`benchmark_details` and :func:`suite_details` decode them
into frozen records whose every field is present with its type, the default for what an older
file leaves out decided here once. ``analysis_json.validate`` runs both, so a document it accepts
decodes without error, and the reports (gate/render/view.py) read the records, never the raw
objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from gate.files.schema import Invalid, Obj, boolean, integer, is_number, nullable, number, obj, pair, text
from gate.warning_codes import WarningCode


class WarningRecord(TypedDict):
    code: str
    message: str
    action: str


class VersionStats(TypedDict):
    estimate: float | None
    ci: list[float] | None  # [low, high]
    n: int
    n_failed: int


class Samples(TypedDict):
    value: list[float]  # finite
    seq: list[int]  # the trial number of each value (execution order), as many as values
    # the trial (process) and suite run of each value as codes, null when the log has none; absent
    # from files of gates before the noisy_head rule's test over trials (gate/decision.py)
    trial: NotRequired[list[int] | None]
    suite_run: NotRequired[list[int] | None]


class Stability(TypedDict):
    cv: float | None
    rmad: float | None
    rciw: float | None


class Unresolved(TypedDict):
    reason: str  # budget_spent | rounds_spent | hopeless | not_lack_of_data (or a newer one)
    detail: str
    values_needed: int | None
    needs_s: float | None


class Followup(TypedDict):
    rounds: int
    extra_values: dict[str, int]  # {"base": n, "head": n}
    unresolved: Unresolved | None


class BootstrapChoice(TypedDict):
    scheme: str  # flat | two-level: how this benchmark's values were resampled
    reason: str  # why (``--bootstrap auto``); empty when the option named the scheme


class Benchmark(TypedDict):
    benchmark: str
    unit: str
    higher_is_better: bool
    verdict: str  # a gate.model.Verdict value
    reason: str
    change_pct: float | None
    change_ci: list[float] | None
    base: VersionStats
    head: VersionStats
    threshold_pct: NotRequired[float]  # its own [[benchmark]] threshold, when it has one
    bootstrap: NotRequired[BootstrapChoice]  # absent from files of gates before `--bootstrap auto`
    # the statistic that decided this benchmark (absent from older files: settings.statistic,
    # which those files always give; :func:`benchmark_statistic`)
    statistic: NotRequired[str]
    # who chose it when not the suite: "benchmark" ([[benchmark]] statistic) or "calibration" (the
    # nightly calibration; gate/analysis/statistic_source.py); absent: the suite's statistic
    statistic_source: NotRequired[str]
    # the upper-quantile finding beside the verdict (gate/analysis/tail.py); null or absent: none
    tail: NotRequired[dict[str, Any] | None]
    samples_needed: int | None
    stability: dict[str, Stability]  # {"base": …, "head": …}
    config: dict[str, Any] | None
    followup: Followup | None
    order: dict[str, Any] | None
    carryover: dict[str, Any] | None
    # present when the carry-over check named a predecessor at 1 % (gate/analysis/carryover_exclusion.py)
    carryover_exclusion: NotRequired[dict[str, Any]]
    similarity: dict[str, Any] | None
    warnings: list[WarningRecord]
    samples: dict[str, Samples]  # {"base": …, "head": …}


class CarryoverMatrix(TypedDict):
    benchmarks: list[str]
    predecessors: list[str]
    effect_pct: list[list[float | None]]  # [benchmark][predecessor]; null: the pair never ran


class Time(TypedDict):
    spent_s: float | None
    full_s: float | None
    saved_pct: float | None


class ShardLogEntry(TypedDict):
    shard: str
    instance: str
    log: str
    spent_s: float | None


class Shards(TypedDict):
    """``summary.shards`` of a sharded run (gate/analysis/shards.py)."""

    count: int
    not_measured: int
    slowest_s: float | None
    machine_s: float | None
    slowest: str | None
    missing: list[str]
    logs: list[ShardLogEntry]


class Summary(TypedDict):
    decision: str  # pass | fail | inconclusive
    counts: dict[str, int]  # every verdict
    n_benchmarks: int
    failed_in_head_only: int
    noisy_in_head: int  # inconclusive benchmarks whose head values are far more spread (gate/decision.py)
    only_in_base: int
    only_in_head: int
    time: Time | None
    shards: NotRequired[Shards]  # a sharded run's only


class Adaptive(TypedDict):
    budget_s: float | None
    used_s: float | None
    planned_s: float | None
    followup_s: float | None
    full_s: float | None
    rounds: int
    max_rounds: int | None
    rule: dict[str, Any] | None
    stop_reason: str | None


class SettingsRecord(TypedDict):
    """The analysis settings; the reports show every key as written (``interval`` and
    ``compared_order`` are absent from older files)."""

    statistic: str
    confidence: float
    threshold_pct: float
    resamples: int
    seed: int
    bootstrap: str
    pairing: str
    interval: NotRequired[str]  # percentile | bca
    compared_order: NotRequired[str]  # all | random
    carryover: NotRequired[str]  # exclude | report (absent: older files, which only reported)
    tail_statistic: NotRequired[str]  # p90, or "" when the tail check was off (absent: older files)


class Analysis(TypedDict):
    schema_version: int
    tool_version: str
    created_at: str
    base: str | None
    head: str
    inputs: list[str]
    settings: SettingsRecord
    summary: Summary
    adaptive: Adaptive | None
    benchmarks: list[Benchmark]
    order_check: dict[str, Any] | None
    carryover_matrix: CarryoverMatrix | None
    carryover_suite: dict[str, Any] | None
    similarity: dict[str, Any] | None
    environment: dict[str, Any] | None
    warnings: list[WarningRecord]


# ---- the detail sections, decoded ---------------------------------------------------------------
_opt_number = nullable(number())
_opt_bool = nullable(boolean)
_opt_text = nullable(text)
_opt_pair = nullable(pair)


def _opt(o: Obj, key: str, decode: Any) -> Any:
    """``key`` decoded, None when absent (every field below may be absent from an older file)."""
    return o.field(key, decode, None)


@dataclass(frozen=True, slots=True)
class OrderEffect:
    """``benchmarks[].order``: the fixed-vs-random order test of this benchmark (gate/analysis/order.py)."""

    significant: bool | None
    kw_p: float | None
    eta2: float | None
    delta_pct: float | None
    ci_case: int | None  # which of OrderSage's confidence-interval cases (gate/stats/order.py)


@dataclass(frozen=True, slots=True)
class PredecessorEffect:
    """One entry of ``carryover.predecessors`` (or of ``carryover_exclusion.predecessors``)."""

    predecessor: str | None
    effect_pct: float | None
    p_adj: float | None
    significant: bool | None
    p_adj_written: bool  # older files decide significance by p_adj alone (gate/render/render.py)


@dataclass(frozen=True, slots=True)
class PredecessorTest:
    """``carryover.predecessor_test``: the overall Kruskal-Wallis test of all predecessors."""

    p: float | None  # Holm-adjusted when the file gives ``p_adj``, else the raw p
    note: str | None
    significant: bool | None


@dataclass(frozen=True, slots=True)
class Carryover:
    """``benchmarks[].carryover`` (absent or null: no predecessor tested, no position effect)."""

    predecessors: tuple[PredecessorEffect, ...] = ()
    predecessor_test: PredecessorTest | None = None
    position_p: float | None = None
    position_significant: bool = False


@dataclass(frozen=True, slots=True)
class RunConfig:
    """``benchmarks[].config``: the levels it ran (None: not in the file) and where they came from."""

    source: str | None
    suite_run: int | None
    iteration: int | None
    measurement: int | None
    never_stable: bool


@dataclass(frozen=True, slots=True)
class ExclusionSide:
    """``carryover_exclusion.all_trials`` / ``.without``: the comparison with or without the trials."""

    verdict: str | None
    change_ci: list[float] | None


@dataclass(frozen=True, slots=True)
class CarryoverExclusion:
    """``benchmarks[].carryover_exclusion`` (gate/analysis/carryover_exclusion.py)."""

    applied: bool
    predecessors: tuple[PredecessorEffect, ...]
    excluded_trials: dict[str, int]  # {"base": n, "head": n}: both present (0 when absent)
    all_trials: ExclusionSide
    without: ExclusionSide
    reason: str


@dataclass(frozen=True, slots=True)
class TailFinding:
    """``benchmarks[].tail``: the upper-quantile comparison beside the verdict (gate/analysis/tail.py)."""

    statistic: str
    verdict: str
    change_pct: float | None
    change_ci: list[float] | None


@dataclass(frozen=True, slots=True)
class LookRuleWords:
    """``adaptive.rule`` as the reports read it (the error control over all looks; None: not given)."""

    looks: int | None
    confidence_per_look: float | None
    confidence: float | None


@dataclass(frozen=True, slots=True)
class BenchmarkDetails:
    """The detail sections of one benchmark, complete."""

    order: OrderEffect | None
    carryover: Carryover
    dissimilar: tuple[str, ...]  # similarity.dissimilar_runs, then dissimilar_instances
    config: RunConfig | None
    exclusion: CarryoverExclusion | None
    tail: TailFinding | None  # absent, null or empty: none


@dataclass(frozen=True, slots=True)
class SuiteDetails:
    """The suite's detail sections, complete."""

    order_tests: tuple[dict[str, Any], ...]  # ORDER_TEST_FIELDS of every test, in order
    order_matters: bool
    # each {"code", "message", "action"} (message and action may be null); no code: dissimilar
    similarity_warnings: tuple[dict[str, Any], ...]
    environment: dict[str, str]  # the scalar entries, as text


@dataclass(frozen=True, slots=True)
class CheckedAnalysis:
    """A document ``analysis_json.check`` accepted with the detail sections it decoded doing so:
    a report reads these records instead of decoding the sections a second time."""

    doc: Analysis
    details: tuple[BenchmarkDetails, ...]  # one per ``doc["benchmarks"]`` entry, in its order
    suite: SuiteDetails


def _predecessor(value: Any, where: str) -> PredecessorEffect:
    o = Obj(where, value)
    return PredecessorEffect(
        predecessor=_opt(o, "predecessor", lambda v, w: None if v is None else str(v)),
        effect_pct=_opt(o, "effect_pct", _opt_number),
        p_adj=_opt(o, "p_adj", _opt_number),
        significant=_opt(o, "significant", _opt_bool),
        p_adj_written="p_adj" in o.doc,
    )


def _predecessors(o: Obj, key: str) -> tuple[PredecessorEffect, ...]:
    value = o.item(key, None)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise Invalid(f"{o.where}.{key}", value, "a list (or null)")
    return tuple(_predecessor(p, f"{o.where}.{key}[{i}]") for i, p in enumerate(value))


def carryover_record(value: Any, where: str = "carryover") -> Carryover:
    """``benchmarks[].carryover``, decoded (null: nothing tested)."""
    if value is None:
        return Carryover()
    o = Obj(where, value)
    test = o.opt_child("predecessor_test", None)
    position = o.opt_child("position", None)
    return Carryover(
        predecessors=_predecessors(o, "predecessors"),
        predecessor_test=None
        if test is None
        else PredecessorTest(
            p=_opt(test, "p_adj" if "p_adj" in test.doc else "p", _opt_number),
            note=_opt(test, "note", lambda v, w: None if v is None else str(v)),
            significant=_opt(test, "significant", _opt_bool),
        ),
        position_p=None if position is None else _opt(position, "p", _opt_number),
        position_significant=position is not None and bool(position.doc.get("significant")),
    )


def _names(o: Obj, key: str) -> list[str]:
    value = o.item(key, None)
    if value is None:
        return []
    if not isinstance(value, list):
        raise Invalid(f"{o.where}.{key}", value, "a list (or null)")
    return [str(x) for x in value]


def _level(value: Any, where: str) -> int | None:
    if value is None or value.__class__ is int:
        return value
    raise Invalid(where, value, "a whole number (or null)")


def run_config(value: Any, where: str) -> RunConfig | None:
    """``benchmarks[].config`` (or a calibration point's levels), decoded; None for null."""
    if value is None:
        return None
    o = Obj(where, value)
    return RunConfig(
        source=_opt(o, "source", _opt_text),
        suite_run=_opt(o, "suite_run", _level),
        iteration=_opt(o, "iteration", _level),
        measurement=_opt(o, "measurement", _level),
        never_stable=o.doc.get("never_stable") is True,
    )


def _side(o: Obj, key: str) -> ExclusionSide:
    side = o.opt_child(key, None)
    if side is None:
        return ExclusionSide(None, None)
    return ExclusionSide(_opt(side, "verdict", _opt_text), _opt(side, "change_ci", _opt_pair))


def _exclusion(value: Any, where: str) -> CarryoverExclusion:
    o = Obj(where, value)
    gone = o.field("excluded_trials", lambda v, w: {} if v is None else obj(v, w), {})
    for role, n in gone.items():
        if n.__class__ is not int or n < 0:
            raise Invalid(f"{where}.excluded_trials.{role}", n, "a whole number ≥ 0")
    return CarryoverExclusion(
        applied=o.doc.get("applied") is True,
        predecessors=_predecessors(o, "predecessors"),
        excluded_trials={"base": 0, "head": 0, **gone},
        all_trials=_side(o, "all_trials"),
        without=_side(o, "without"),
        reason=str(o.doc.get("reason", "")),
    )


def tail_finding(value: Any, where: str) -> TailFinding | None:
    if not value:
        return None
    o = Obj(where, value)
    return TailFinding(
        statistic=o.field("statistic", text),
        verdict=o.field("verdict", text),
        change_pct=o.field("change_pct", _opt_number),
        change_ci=_opt(o, "change_ci", _opt_pair),
    )


def look_rule_words(value: Any) -> LookRuleWords | None:
    """``adaptive.rule`` (an object or null, analysis_json checks): kept as written in the file, so
    a field of another type reads as not given and the reports leave the rule's sentence out."""
    if not isinstance(value, dict):
        return None
    looks = value.get("looks")
    per: Any = value.get("confidence_per_look")
    overall: Any = value.get("confidence")
    return LookRuleWords(
        looks=looks if type(looks) is int and looks > 0 else None,
        confidence_per_look=float(per) if is_number(per) else None,
        confidence=float(overall) if is_number(overall) else None,
    )


def benchmark_details(b: Mapping[str, Any], where: str = "benchmark") -> BenchmarkDetails:
    """The detail sections of a benchmark entry, decoded (:class:`Invalid` names a bad field)."""
    order = b["order"]
    o = None if order is None else Obj(f"{where}.order", order)
    sim = b["similarity"]
    s = None if sim is None else Obj(f"{where}.similarity", sim)
    exclusion = b.get("carryover_exclusion")
    return BenchmarkDetails(
        order=None
        if o is None
        else OrderEffect(
            significant=_opt(o, "significant", _opt_bool),
            kw_p=_opt(o, "kw_p", _opt_number),
            eta2=_opt(o, "eta2", _opt_number),
            delta_pct=_opt(o, "delta_pct", _opt_number),
            ci_case=_opt(o, "ci_case", nullable(integer)),
        ),
        carryover=carryover_record(b["carryover"], f"{where}.carryover"),
        dissimilar=() if s is None else (*_names(s, "dissimilar_runs"), *_names(s, "dissimilar_instances")),
        config=run_config(b["config"], f"{where}.config"),
        exclusion=None if exclusion is None else _exclusion(exclusion, f"{where}.carryover_exclusion"),
        tail=tail_finding(b.get("tail"), f"{where}.tail"),
    )


# the order-check test fields the reports show; the numbers among them the order figure draws
ORDER_TEST_FIELDS = (
    "test",
    "significant",
    "kw_p",
    "eta2",
    "delta_pct",
    "ci_case",
    "fixed_median",
    "fixed_ci_low",
    "fixed_ci_high",
    "random_median",
    "random_ci_low",
    "random_ci_high",
)
ORDER_TEST_NUMBERS = tuple(k for k in ORDER_TEST_FIELDS if k not in ("test", "significant", "ci_case"))


def _order_tests(value: Any) -> tuple[list[dict[str, Any]], bool]:
    """An order-check ``experiments`` entry or the whole order-check document: its tests (objects
    whose drawn fields are numbers or null and ``significant`` true, false or null) and
    ``order_matters``."""
    if value is None:
        return [], False
    doc = Obj("order_check", value)
    whole = "experiments" in doc.doc
    experiments = doc.doc["experiments"] if whole else [doc.doc]
    if not isinstance(experiments, list):
        raise Invalid("order_check.experiments", experiments, "a list")
    out = []
    for i, exp in enumerate(experiments):
        e = Obj(f"order_check.experiments[{i}]" if whole else "order_check", exp)
        tests = e.item("tests", [])
        if not isinstance(tests, list):
            raise Invalid(f"{e.where}.tests", tests, "a list")
        for j, t in enumerate(tests):
            at = f"{e.where}.tests[{j}]"
            obj(t, at)
            for k in ORDER_TEST_NUMBERS:
                _opt_number(t.get(k), f"{at}.{k}")
            _opt_bool(t.get("significant"), f"{at}.significant")
            out.append({k: t.get(k) for k in ORDER_TEST_FIELDS})
    return out, bool(doc.doc.get("order_matters"))


def suite_details(doc: Mapping[str, Any]) -> SuiteDetails:
    """The suite's detail sections, decoded (:class:`Invalid` names a bad field)."""
    tests, matters = _order_tests(doc["order_check"])
    sim = doc["similarity"]
    warnings: Any = None if sim is None else Obj("similarity", sim).item("warnings", None)
    if warnings is not None and not isinstance(warnings, list):
        raise Invalid("similarity.warnings", warnings, "a list (or null)")
    environment = doc.get("environment") or {}
    return SuiteDetails(
        order_tests=tuple(tests),
        order_matters=bool(sum(1 for t in tests if t["significant"])) or matters,
        similarity_warnings=tuple(
            {
                "code": w.get("code") or WarningCode.DISSIMILAR.value,
                "message": w.get("message"),
                "action": w.get("action"),
            }
            for w in warnings or []
            if isinstance(w, dict)
        ),
        environment={str(k): str(v) for k, v in environment.items() if not isinstance(v, Mapping | list)},
    )
