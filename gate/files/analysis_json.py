"""``analysis.json``: the one reader and writer (docs/contracts.md).

``analyze`` writes it (:func:`write`, :func:`dumps`); ``report``, ``publish`` and the Docker action
read it back (:func:`read`, :func:`parse`). ``render`` and the history take the document
``build_analysis`` returns, checked by :func:`validate` like a file. Test documents are built by
:func:`document`, the check the writer applies, so a fixture lacking a field the writer writes is
refused instead of drifting from the format.

The record is a ``TypedDict`` (:class:`Analysis`), not a frozen dataclass: the document goes as
it is to the Jinja templates, the plots and the JSON text, so a typed mapping keeps
``b["change_pct"]`` working everywhere, mypy checks the keys, and unknown fields of a newer file
are kept without a conversion in either direction.

What :func:`validate` guarantees to every consumer (so they index, never ``.get``):

* every key of :class:`Analysis`, :class:`Summary`, :class:`Benchmark`, :class:`VersionStats`,
  :class:`Stability`, :class:`Followup` and :class:`Adaptive` is present with the type declared.
  Fields the contract marks "added" (and ``adaptive`` / ``followup`` of schema 2) may be absent
  from a file an older gate wrote; they are filled in as that gate meant them: ``null``, ``[]``,
  ``0``, ``failed_in_head_only`` and ``n_benchmarks`` counted from the benchmarks;
* ``summary.counts`` holds every verdict, whole numbers ≥ 0 equal to the benchmarks' verdicts
  counted again (a count of zero may be left out of the file), and ``failed_in_head_only`` equals
  the benchmarks that fail in head only: a summary that disagrees with its own benchmarks (no
  ``counts.regression`` beside a listed regression) is refused rather than published as a pass;
* warnings (top level and per benchmark) are ``{"code", "message", "action"}`` strings;
* ``samples.{base,head}.value`` are finite numbers and ``seq`` as many trial numbers (whole
  numbers ≥ 0), so a plot draws them as they are;
* integers lie within ±(2**53 - 1): RFC 8259 §6 calls numbers outside IEEE 754 double precision
  not interoperable, and a 400-digit integer would raise OverflowError wherever a float is made of
  it. Nesting deeper than the parser's recursion limit is refused too.

* ``carryover_matrix`` is null or names lists with one row per benchmark and one finite number
  or null per predecessor; ``order_check``'s tests hold numbers or null where the order figure
  draws them (:data:`ORDER_TEST_NUMBERS`), so the plots draw what they are given.

* a benchmark's ``carryover.position`` is an object, its ``carryover.predecessors``,
  ``similarity.dissimilar_runs`` / ``dissimilar_instances`` and the suite's
  ``similarity.warnings`` lists (each may be absent or null).

The other analysis details (``order``, ``carryover``, ``similarity``, ``config``,
``carryover_suite``, the suite's ``similarity``, ``environment``, ``adaptive.rule``) and the
rest of ``order_check`` are objects or null, their contents kept as written: the reports read
them field by field.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NotRequired, TypedDict, cast

from gate.decision import fails_in_head_only, noisy_in_head
from gate.errors import InputError
from gate.model import ANALYSIS_SCHEMA, Verdict

SCHEMA: Final = ANALYSIS_SCHEMA
MAX_SAFE_INTEGER: Final = 2**53 - 1  # RFC 8259 §6 (and JavaScript's Number.MAX_SAFE_INTEGER)
_SAFE_DIGITS: Final = len(str(MAX_SAFE_INTEGER))
FIX: Final = (
    "re-run `ordertrap-gate analyze TRIALS.csv --json analysis.json` and pass the file it writes "
    "unchanged (an edited, truncated or foreign analysis.json is not published)"
)
DECISIONS: Final = ("pass", "fail", "inconclusive")
VERDICTS: Final = tuple(str(v) for v in Verdict)


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


class Summary(TypedDict):
    decision: str  # pass | fail | inconclusive
    counts: dict[str, int]  # every verdict
    n_benchmarks: int
    failed_in_head_only: int
    noisy_in_head: int  # inconclusive benchmarks whose head values are far more spread (gate/decision.py)
    only_in_base: int
    only_in_head: int
    time: Time | None


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


# What `analyze` writes in settings (the first seven since schema 1): a test document without one
# of them has drifted.
SETTINGS_KEYS: Final = (
    "statistic",
    "confidence",
    "threshold_pct",
    "resamples",
    "seed",
    "bootstrap",
    "pairing",
    "interval",
    "compared_order",
)

# ---- JSON text ---------------------------------------------------------------------------------


class _UnsafeInteger(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _bounded_int(token: str) -> int:
    # the length test first: int() of a very long token is slow, and refused past 4,300 digits
    if len(token.lstrip("-")) > _SAFE_DIGITS:
        raise _UnsafeInteger(token)
    value = int(token)
    if abs(value) > MAX_SAFE_INTEGER:
        raise _UnsafeInteger(token)
    return value


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def loads(text: str, source: str) -> Any:
    """Parse ``text`` as JSON, refusing unsafe integers and excessive nesting (InputError)."""
    try:
        return json.loads(text.removeprefix("\ufeff"), parse_int=_bounded_int)
    except _UnsafeInteger as exc:
        digits = len(exc.token.lstrip("-"))
        shown = exc.token if len(exc.token) <= 24 else exc.token[:20] + "…"
        raise InputError(
            f"{source} holds a {digits}-digit integer, outside ±(2^53 - 1) where JSON numbers are "
            f"exact (RFC 8259 §6): {shown}",
            FIX,
        ) from None
    except RecursionError:
        raise InputError(f"{source} is nested too deeply to be an analysis.json", FIX) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} is not valid JSON ({exc}), so it is not an analysis.json", FIX) from None


def read(path: str | Path) -> Analysis:
    """Read and check the analysis.json at ``path`` (InputError naming the fix otherwise)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            f"analysis file {p} does not exist",
            "run `ordertrap-gate analyze TRIALS.csv --json analysis.json` first (in a workflow: check "
            "the `analyze` step's log above), or check the path",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"{p} is not a readable JSON file ({exc}), so it is not an analysis.json", FIX
        ) from None
    return parse(text, str(p))


def parse(text: str, source: str = "analysis.json") -> Analysis:
    return validate(loads(text, source), source)


def dumps(doc: Analysis) -> str:
    """The file's text (one line and a newline); refuses a document :func:`read` would refuse."""
    validate(doc, "the analysis", complete=True)
    return json.dumps(doc, allow_nan=False, separators=(",", ":")) + "\n"


def write(path: Path, doc: Analysis) -> None:
    """Write atomically (a reader never sees half a file), readable as any file the user creates
    (``mkstemp`` makes it 0600; another user, such as a workflow step after the root-run Docker
    action, must be able to read and upload it)."""
    text = dumps(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".analysis-", suffix=".json", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def benchmark_statistic(doc: Analysis, b: Benchmark) -> str:
    """The statistic that decided ``b``: its own (written since per-benchmark statistics), else
    the suite's ``settings.statistic`` (every older file wrote that, ``median`` by default then)."""
    return b.get("statistic") or doc["settings"]["statistic"]


def document(**fields: Any) -> Analysis:
    """A document with ``schema_version`` :data:`SCHEMA` and exactly the fields ``analyze``
    writes (every one required, settings included): how test fixtures build their documents."""
    return validate({"schema_version": SCHEMA, **fields}, "the analysis", complete=True)


# ---- the check ---------------------------------------------------------------------------------


class _Check:
    def __init__(self, source: str, complete: bool) -> None:
        self.source = source
        self.complete = complete

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.source}: {message}", FIX)

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{where} is {_short(value)}, not an object")
        return value

    def opt_obj(self, value: Any, where: str) -> dict[str, Any] | None:
        if value is not None and not isinstance(value, dict):
            raise self.fail(f"{where} is {_short(value)}, not an object (or null)")
        return value

    def key(
        self, d: Mapping[str, Any], key: str, where: str, default: Any = ..., *, added: bool = False
    ) -> Any:
        """``d[key]``; an "added" key absent from an older file gets ``default``, unless the
        document is checked as one the writer made (``complete``)."""
        if key in d:
            return d[key]
        if added and not self.complete:
            return default
        raise self.fail(f"{where} lacks {key!r}")

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{where} is {_short(value)}, not a string")
        return value

    def opt_string(self, value: Any, where: str) -> str | None:
        return None if value is None else self.string(value, where)

    def whole(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{where} is {_short(value)}, not a whole number ≥ 0")
        return value

    def opt_whole(self, value: Any, where: str) -> int | None:
        return None if value is None else self.whole(value, where)

    def number(self, value: Any, where: str) -> float | None:
        """A finite number or null."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(f"{where} is {_short(value)}, not a number (or null)")
        return value

    def interval(self, value: Any, where: str) -> list[float] | None:
        if value is None:
            return None
        if not _pair_ok(value):
            raise self.fail(f"{where} is {_short(value)}, not [low, high] (or null)")
        return value

    def warnings(self, value: Any, where: str) -> list[WarningRecord]:
        if not isinstance(value, list):
            raise self.fail(f"{where} is {_short(value)}, not a list")
        for i, w in enumerate(value):
            self.obj(w, f"{where}[{i}]")
            for k in ("code", "message", "action"):
                self.string(self.key(w, k, f"{where}[{i}]"), f"{where}[{i}].{k}")
        return cast(list[WarningRecord], value)


def validate(data: Any, source: str = "analysis", *, complete: bool = False) -> Analysis:
    """The checked document (a copy where fields were filled in); InputError names what is wrong.
    ``complete``: every field the writer writes must be there (the writer's and fixtures' check)."""
    c = _Check(source, complete)
    if not isinstance(data, dict):
        raise InputError(f"{source} is not a JSON object, so it is not an analysis.json", FIX)
    version = data.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError(f"{source} has no integer schema_version, so it is not an analysis.json", FIX)
    if version > SCHEMA:
        raise InputError(
            f"{source} has schema_version {version}; this ordertrap-gate reads analysis files up to "
            f"version {SCHEMA}",
            "upgrade ordertrap-gate (pip install -U ordertrap-gate), or re-run `analyze` with this version",
        )
    if version < 1 or (complete and version != SCHEMA):
        raise c.fail(f"schema_version {version} is not one this gate writes ({SCHEMA}) or reads (1–{SCHEMA})")
    if not isinstance(data.get("summary"), dict) or not isinstance(data.get("benchmarks"), list):
        raise InputError(f"{source} lacks 'summary' or 'benchmarks', so it is not an analysis.json", FIX)
    benchmarks = [b if _benchmark_ok(b) else _benchmark(c, b, i) for i, b in enumerate(data["benchmarks"])]
    doc = dict(data)
    doc["benchmarks"] = benchmarks
    doc["summary"] = _summary(c, data["summary"], benchmarks)
    for k in ("tool_version", "created_at", "head"):
        c.string(c.key(data, k, "the document"), k)
    c.opt_string(c.key(data, "base", "the document"), "base")
    inputs = c.key(data, "inputs", "the document", [], added=True)
    if not isinstance(inputs, list) or not all(isinstance(x, str) for x in inputs):
        raise c.fail(f"inputs is {_short(inputs)}, not a list of paths")
    doc["inputs"] = inputs
    settings = c.obj(c.key(data, "settings", "the document"), "settings")
    for k in SETTINGS_KEYS if complete else SETTINGS_KEYS[:7]:
        value = c.key(settings, k, "settings")
        if k in ("confidence", "threshold_pct"):
            if c.number(value, f"settings.{k}") is None:
                raise c.fail(f"settings.{k} is null, not a number")
        elif k == "resamples":
            c.whole(value, "settings.resamples")
        elif k == "seed" and (isinstance(value, bool) or not isinstance(value, int)):
            raise c.fail(f"settings.seed is {_short(value)}, not an integer")
        elif k != "seed":
            c.string(value, f"settings.{k}")
    _order_check(c, c.key(data, "order_check", "the document"))
    _carryover_matrix(c, c.key(data, "carryover_matrix", "the document"))
    similarity = c.opt_obj(c.key(data, "similarity", "the document"), "similarity")
    if similarity is not None and not isinstance(similarity.get("warnings", []), list | None):
        raise c.fail(f"similarity.warnings is {_short(similarity['warnings'])}, not a list (or null)")
    for k in ("carryover_suite", "environment"):
        doc[k] = c.opt_obj(c.key(data, k, "the document", None, added=True), k)
    doc["adaptive"] = _adaptive(c, c.key(data, "adaptive", "the document", None, added=True))
    c.warnings(c.key(data, "warnings", "the document"), "warnings")
    return cast(Analysis, doc)


# ---- the fast path --------------------------------------------------------------------------------
# A report of 5,000 benchmarks is checked once per format; naming the failing field costs more than
# the check itself, so a benchmark entry is first tested by these predicates (the same rules as
# _benchmark, without the names) and only one they refuse goes through _benchmark, which then
# raises naming its field (or fills in the fields an older file lacks).


def _num_ok(x: Any) -> bool:
    t = x.__class__
    if t is float:
        return x - x == 0.0  # false for inf and nan
    if t is int or x is None:
        return True
    return t is not bool and isinstance(x, int | float) and math.isfinite(x)


def _whole_ok(x: Any) -> bool:
    return x.__class__ is not bool and isinstance(x, int) and x >= 0


def _pair_ok(x: Any) -> bool:
    return x is None or (
        isinstance(x, list)
        and len(x) == 2
        and x[0] is not None
        and x[1] is not None
        and _num_ok(x[0])
        and _num_ok(x[1])
    )


def _version_ok(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and _num_ok(v["estimate"])
        and _pair_ok(v["ci"])
        and _whole_ok(v["n"])
        and _whole_ok(v["n_failed"])
    )


def _stability_ok(s: Any) -> bool:
    return isinstance(s, dict) and _num_ok(s["cv"]) and _num_ok(s["rmad"]) and _num_ok(s["rciw"])


def _values_ok(values: Any) -> bool:
    return isinstance(values, list) and all(
        (x.__class__ is float and x - x == 0.0) or x.__class__ is int for x in values
    )


def _seq_ok(seq: Any, n: int) -> bool:
    return isinstance(seq, list) and len(seq) == n and all(x.__class__ is int and x >= 0 for x in seq)


def _samples_ok(s: Any) -> bool:
    return isinstance(s, dict) and all(
        isinstance(s[r], dict) and _values_ok(s[r]["value"]) and _seq_ok(s[r]["seq"], len(s[r]["value"]))
        for r in ("base", "head")
    )


def _warnings_ok(ws: Any) -> bool:
    return isinstance(ws, list) and all(
        isinstance(w, dict)
        and isinstance(w["code"], str)
        and isinstance(w["message"], str)
        and isinstance(w["action"], str)
        for w in ws
    )


def _opt_obj_ok(x: Any) -> bool:
    return x is None or isinstance(x, dict)


def _bootstrap_ok(x: Any) -> bool:
    return isinstance(x, dict) and all(k in x and isinstance(x[k], str) for k in ("scheme", "reason"))


def _detail_problem(b: Mapping[str, Any]) -> str | None:
    """What is wrong with the parts of a benchmark's carry-over and similarity details that the
    reports read (each may be absent or null): ``carryover.position`` an object,
    ``carryover.predecessors`` and ``similarity.dissimilar_runs``/``dissimilar_instances`` lists."""
    carry, sim = b["carryover"], b["similarity"]
    if carry is not None:
        if not _opt_obj_ok(carry.get("position")):
            return f"carryover.position is {_short(carry['position'])}, not an object (or null)"
        if not isinstance(carry.get("predecessors", []), list | None):
            return f"carryover.predecessors is {_short(carry['predecessors'])}, not a list (or null)"
    for k in ("dissimilar_runs", "dissimilar_instances"):
        if sim is not None and not isinstance(sim.get(k, []), list | None):
            return f"similarity.{k} is {_short(sim[k])}, not a list (or null)"
    return None


def _benchmark_ok(b: Any) -> bool:
    """Whether ``b`` is an entry :func:`_benchmark` accepts unchanged (a benchmark with follow-up
    rounds takes the long way, as does anything not plainly valid)."""
    try:
        return (
            isinstance(b, dict)
            and isinstance(b["benchmark"], str)
            and b["verdict"] in VERDICTS
            and isinstance(b["unit"], str)
            and isinstance(b["higher_is_better"], bool)
            and isinstance(b["reason"], str)
            and _num_ok(b["change_pct"])
            and _pair_ok(b["change_ci"])
            and _version_ok(b["base"])
            and _version_ok(b["head"])
            and ("threshold_pct" not in b or (b["threshold_pct"] is not None and _num_ok(b["threshold_pct"])))
            and ("bootstrap" not in b or _bootstrap_ok(b["bootstrap"]))
            and ("statistic" not in b or isinstance(b["statistic"], str))
            and _opt_obj_ok(b.get("tail"))
            and isinstance(b["stability"], dict)
            and _stability_ok(b["stability"]["base"])
            and _stability_ok(b["stability"]["head"])
            and _opt_obj_ok(b["config"])
            and _opt_obj_ok(b["order"])
            and _opt_obj_ok(b["carryover"])
            and _opt_obj_ok(b["similarity"])
            and _detail_problem(b) is None
            and _warnings_ok(b["warnings"])
            and _samples_ok(b["samples"])
            and (b["samples_needed"] is None or _whole_ok(b["samples_needed"]))
            and b["followup"] is None
        )
    except (KeyError, TypeError):
        return False


def _version(c: _Check, value: Any, where: str) -> VersionStats:
    v = c.obj(value, where)
    c.number(c.key(v, "estimate", where), f"{where}.estimate")
    c.interval(c.key(v, "ci", where), f"{where}.ci")
    c.whole(c.key(v, "n", where), f"{where}.n")
    c.whole(c.key(v, "n_failed", where), f"{where}.n_failed")
    return cast(VersionStats, v)


def _benchmark(c: _Check, value: Any, i: int) -> Benchmark:
    where = f"benchmarks[{i}]"
    b = c.obj(value, where)
    if "benchmark" not in b or "verdict" not in b:
        raise c.fail(f"{where} lacks 'benchmark' or 'verdict'")
    c.string(b["benchmark"], f"{where}.benchmark")
    if b["verdict"] not in VERDICTS:
        raise c.fail(f"{where} has verdict {_short(b['verdict'])}, not one of {', '.join(sorted(VERDICTS))}")
    where = f"benchmarks[{i}] ({_short(b['benchmark'])})"
    c.string(c.key(b, "unit", where), f"{where}.unit")
    if not isinstance(c.key(b, "higher_is_better", where), bool):
        raise c.fail(f"{where}.higher_is_better is {_short(b['higher_is_better'])}, not true or false")
    c.string(c.key(b, "reason", where), f"{where}.reason")
    c.number(c.key(b, "change_pct", where), f"{where}.change_pct")
    c.interval(c.key(b, "change_ci", where), f"{where}.change_ci")
    for role in ("base", "head"):
        _version(c, c.key(b, role, where), f"{where}.{role}")
    if "threshold_pct" in b and c.number(b["threshold_pct"], f"{where}.threshold_pct") is None:
        raise c.fail(f"{where}.threshold_pct is null, not a number")
    if "bootstrap" in b:
        boot = c.obj(b["bootstrap"], f"{where}.bootstrap")
        for k in ("scheme", "reason"):
            c.string(c.key(boot, k, f"{where}.bootstrap"), f"{where}.bootstrap.{k}")
    if "statistic" in b:
        c.string(b["statistic"], f"{where}.statistic")
    if "tail" in b:
        c.opt_obj(b["tail"], f"{where}.tail")
    stability = c.obj(c.key(b, "stability", where), f"{where}.stability")
    for role in ("base", "head"):
        s = c.obj(c.key(stability, role, f"{where}.stability"), f"{where}.stability.{role}")
        for k in ("cv", "rmad", "rciw"):
            c.number(c.key(s, k, f"{where}.stability.{role}"), f"{where}.stability.{role}.{k}")
    for k in ("config", "order", "carryover", "similarity"):
        c.opt_obj(c.key(b, k, where), f"{where}.{k}")
    problem = _detail_problem(b)
    if problem is not None:
        raise c.fail(f"{where}.{problem}")
    c.warnings(c.key(b, "warnings", where), f"{where}.warnings")
    samples = c.obj(c.key(b, "samples", where), f"{where}.samples")
    for role in ("base", "head"):
        s = c.obj(c.key(samples, role, f"{where}.samples"), f"{where}.samples.{role}")
        values = c.key(s, "value", f"{where}.samples.{role}")
        if not _values_ok(values):
            raise c.fail(f"{where}.samples.{role}.value is not a list of finite numbers")
        if not _seq_ok(c.key(s, "seq", f"{where}.samples.{role}"), len(values)):
            raise c.fail(
                f"{where}.samples.{role}.seq is not a list of trial numbers (whole numbers ≥ 0), one per value"
            )
    needed = c.opt_whole(c.key(b, "samples_needed", where, None, added=True), f"{where}.samples_needed")
    followup = _followup(c, c.key(b, "followup", where, None, added=True), f"{where}.followup")
    if "samples_needed" in b and "followup" in b:
        return cast(Benchmark, b)
    return cast(Benchmark, {**b, "samples_needed": needed, "followup": followup})


def _followup(c: _Check, value: Any, where: str) -> Followup | None:
    f = c.opt_obj(value, where)
    if f is None:
        return None
    c.whole(c.key(f, "rounds", where), f"{where}.rounds")
    extra = c.obj(c.key(f, "extra_values", where), f"{where}.extra_values")
    for role in ("base", "head"):
        c.whole(c.key(extra, role, f"{where}.extra_values"), f"{where}.extra_values.{role}")
    u = c.opt_obj(c.key(f, "unresolved", where), f"{where}.unresolved")
    if u is not None:
        w = f"{where}.unresolved"
        c.string(c.key(u, "reason", w), f"{w}.reason")
        c.string(c.key(u, "detail", w), f"{w}.detail")
        c.opt_whole(c.key(u, "values_needed", w), f"{w}.values_needed")
        c.number(c.key(u, "needs_s", w), f"{w}.needs_s")
    return cast(Followup, f)


def _adaptive(c: _Check, value: Any) -> Adaptive | None:
    a = c.opt_obj(value, "adaptive")
    if a is None:
        return None
    for k in ("budget_s", "used_s", "planned_s", "followup_s", "full_s"):
        c.number(c.key(a, k, "adaptive"), f"adaptive.{k}")
    c.whole(c.key(a, "rounds", "adaptive"), "adaptive.rounds")
    c.opt_whole(c.key(a, "max_rounds", "adaptive"), "adaptive.max_rounds")
    c.opt_obj(c.key(a, "rule", "adaptive"), "adaptive.rule")
    c.opt_string(c.key(a, "stop_reason", "adaptive"), "adaptive.stop_reason")
    return cast(Adaptive, a)


# the order-check test fields the reports draw: finite numbers or null
ORDER_TEST_NUMBERS: Final = (
    "kw_p",
    "eta2",
    "delta_pct",
    "fixed_median",
    "fixed_ci_low",
    "fixed_ci_high",
    "random_median",
    "random_ci_low",
    "random_ci_high",
)


def _order_check(c: _Check, value: Any) -> None:
    """An order-check ``experiments`` entry (or the whole order-check document): its tests are
    objects whose drawn fields are numbers or null and ``significant`` true, false or null."""
    doc = c.opt_obj(value, "order_check")
    if doc is None:
        return
    whole = "experiments" in doc
    experiments = doc["experiments"] if whole else [doc]
    if not isinstance(experiments, list):
        raise c.fail(f"order_check.experiments is {_short(experiments)}, not a list")
    for i, exp in enumerate(experiments):
        where = f"order_check.experiments[{i}]" if whole else "order_check"
        tests = c.key(c.obj(exp, where), "tests", where, [], added=True)
        if not isinstance(tests, list):
            raise c.fail(f"{where}.tests is {_short(tests)}, not a list")
        for j, t in enumerate(tests):
            at = f"{where}.tests[{j}]"
            c.obj(t, at)
            for k in ORDER_TEST_NUMBERS:
                c.number(t.get(k), f"{at}.{k}")
            if t.get("significant") not in (None, True, False):
                raise c.fail(f"{at}.significant is {_short(t['significant'])}, not true, false or null")


def _carryover_matrix(c: _Check, value: Any) -> None:
    """``{"benchmarks": [names], "predecessors": [names], "effect_pct": [[number or null]]}``: one
    row per benchmark, one cell per predecessor, as the heatmap draws it."""
    m = c.opt_obj(value, "carryover_matrix")
    if m is None:
        return
    names: dict[str, Any] = {}
    for k in ("benchmarks", "predecessors"):
        names[k] = c.key(m, k, "carryover_matrix")
        if not isinstance(names[k], list) or not all(isinstance(x, str) for x in names[k]):
            raise c.fail(f"carryover_matrix.{k} is {_short(names[k])}, not a list of names")
    effects = c.key(m, "effect_pct", "carryover_matrix")
    if not isinstance(effects, list) or len(effects) != len(names["benchmarks"]):
        raise c.fail("carryover_matrix.effect_pct is not a list with one row per benchmark")
    for i, row in enumerate(effects):
        if not isinstance(row, list) or len(row) != len(names["predecessors"]):
            raise c.fail(f"carryover_matrix.effect_pct[{i}] is not a list with one cell per predecessor")
        for j, cell in enumerate(row):
            c.number(cell, f"carryover_matrix.effect_pct[{i}][{j}]")


def derived_counts(benchmarks: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Benchmarks per verdict, counted from the benchmarks themselves (every verdict present)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for b in benchmarks:
        counts[str(b["verdict"])] += 1
    return counts


def derived_failed_in_head_only(benchmarks: Sequence[Mapping[str, Any]]) -> int:
    return sum(fails_in_head_only(b) for b in benchmarks)


def derived_noisy_in_head(benchmarks: Sequence[Mapping[str, Any]]) -> int:
    return sum(noisy_in_head(b) for b in benchmarks)


def _summary(c: _Check, s: dict[str, Any], benchmarks: list[Benchmark]) -> Summary:
    decision = c.key(s, "decision", "summary")
    if decision not in DECISIONS:
        raise c.fail(f"summary.decision is {_short(decision)}, not one of {', '.join(DECISIONS)}")
    counts = s.get("counts")
    if not isinstance(counts, dict):
        raise c.fail("has no summary.counts object")
    for key, value in counts.items():
        if key not in VERDICTS:
            raise c.fail(f"summary.counts has an unknown verdict {_short(key)}")
        c.whole(value, f"summary.counts.{key}")
    derived = derived_counts(benchmarks)
    differ = [f"{v} {counts.get(v, 0)} vs {n}" for v, n in derived.items() if counts.get(v, 0) != n]
    if differ:
        raise c.fail(
            f"summary.counts disagree with the verdicts of its benchmarks (summary vs benchmarks: {'; '.join(differ)})"
        )
    if c.complete and len(counts) != len(VERDICTS):
        raise c.fail("summary.counts lacks a verdict (the writer lists every one)")
    out = dict(s)
    out["counts"] = derived
    n = c.whole(c.key(s, "n_benchmarks", "summary", len(benchmarks), added=True), "summary.n_benchmarks")
    if n != len(benchmarks):
        raise c.fail(f"summary.n_benchmarks is {n} but {len(benchmarks)} benchmarks are listed")
    out["n_benchmarks"] = n
    head_only = derived_failed_in_head_only(benchmarks)
    stated = c.whole(
        c.key(s, "failed_in_head_only", "summary", head_only, added=True), "summary.failed_in_head_only"
    )
    if stated != head_only:
        raise c.fail(
            f"summary.failed_in_head_only is {stated} but {head_only} listed benchmark(s) fail in head only"
        )
    out["failed_in_head_only"] = stated
    noisy = derived_noisy_in_head(benchmarks)
    stated = c.whole(c.key(s, "noisy_in_head", "summary", noisy, added=True), "summary.noisy_in_head")
    if stated != noisy:
        raise c.fail(
            f"summary.noisy_in_head is {stated} but {noisy} listed benchmark(s) are far noisier in head"
        )
    out["noisy_in_head"] = stated
    for k in ("only_in_base", "only_in_head"):
        out[k] = c.whole(c.key(s, k, "summary", 0, added=True), f"summary.{k}")
    time = c.opt_obj(c.key(s, "time", "summary"), "summary.time")
    if time is not None:
        for k in ("spent_s", "full_s", "saved_pct"):
            c.number(c.key(time, k, "summary.time"), f"summary.time.{k}")
    if "shards" in s:
        _shards(c, s["shards"])
    return cast(Summary, out)


def _shards(c: _Check, value: Any) -> None:
    """``summary.shards``: what the reports read of a sharded run (gate/analysis/shards.py)."""
    shards = c.obj(value, "summary.shards")
    c.whole(c.key(shards, "count", "summary.shards"), "summary.shards.count")
    c.whole(c.key(shards, "not_measured", "summary.shards"), "summary.shards.not_measured")
    for k in ("slowest_s", "machine_s"):
        c.number(c.key(shards, k, "summary.shards"), f"summary.shards.{k}")
    c.opt_string(c.key(shards, "slowest", "summary.shards"), "summary.shards.slowest")
    missing = c.key(shards, "missing", "summary.shards")
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise c.fail("summary.shards.missing is not a list of shard labels")
    logs = c.key(shards, "logs", "summary.shards")
    if not isinstance(logs, list):
        raise c.fail("summary.shards.logs is not a list")
    for i, log in enumerate(logs):
        entry = c.obj(log, f"summary.shards.logs[{i}]")
        for k in ("shard", "instance", "log"):
            c.string(c.key(entry, k, f"summary.shards.logs[{i}]"), f"summary.shards.logs[{i}].{k}")
        c.number(c.key(entry, "spent_s", f"summary.shards.logs[{i}]"), f"summary.shards.logs[{i}].spent_s")
