"""``analysis.json``: the one reader and writer (docs/contracts.md).

``analyze`` writes it (:func:`write`, :func:`dumps`); ``report``, ``publish`` and the Docker action
read it back (:func:`read`, :func:`parse`). ``render`` and the history take the document
``build_analysis`` returns, checked by :func:`validate` like a file. Test documents are built by
:func:`document`, the check the writer applies, so a fixture lacking a field the writer writes is
refused instead of drifting from the format.

The types are in gate/files/analysis_model.py, the rules in gate/files/schema.py's decoders.
What :func:`validate` guarantees to every consumer (so they index, never ``.get``):

* every key of :class:`Analysis`, :class:`Summary`, :class:`Benchmark`, :class:`VersionStats`,
  :class:`Stability`, :class:`Followup` and :class:`Adaptive` is present with the type declared.
  Fields the contract marks "added" (and ``adaptive`` / ``followup`` of schema 2) may be absent
  from a file an older gate wrote; they are filled in as that gate meant them: ``null``, ``[]``,
  ``0``, ``failed_in_head_only`` and ``n_benchmarks`` counted from the benchmarks;
* ``summary.counts`` holds every verdict, equal to the benchmarks' verdicts counted again (a
  count of zero may be left out of the file), and ``failed_in_head_only`` / ``noisy_in_head``
  equal what the benchmarks say: a summary that disagrees with its own benchmarks is refused
  rather than published as a pass;
* warnings are ``{"code", "message", "action"}`` strings; ``samples.{base,head}.value`` finite
  numbers and ``seq`` as many trial numbers; ``carryover_matrix`` null or one row per benchmark
  and one number or null per predecessor, so the plots draw what they are given;
* the detail sections decode (:func:`benchmark_details`, :func:`suite_details`); :func:`check`
  returns those records beside the document, so a report decodes them once;
* integers lie within ±(2**53 - 1): RFC 8259 §6 calls numbers outside IEEE 754 double precision
  not interoperable, and a 400-digit integer would raise OverflowError wherever a float is made of
  it. Nesting deeper than the parser's recursion limit is refused too.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, cast

from gate.decision import fails_in_head_only, noisy_in_head
from gate.errors import InputError
from gate.files import bounded
from gate.files.analysis_model import (
    Adaptive,
    Analysis,
    Benchmark,
    BenchmarkDetails,
    CheckedAnalysis,
    Followup,
    Summary,
    VersionStats,
    WarningRecord,
    benchmark_details,
    suite_details,
)
from gate.files.schema import (
    Decoder,
    Invalid,
    Obj,
    boolean,
    integer,
    list_of,
    nullable,
    number,
    obj,
    one_of,
    pair,
    plain_list,
    short,
    text,
    whole,
)
from gate.model import ANALYSIS_SCHEMA, MAX_JSON_BYTES, Verdict

SCHEMA: Final = ANALYSIS_SCHEMA
MAX_SAFE_INTEGER: Final = 2**53 - 1  # RFC 8259 §6 (and JavaScript's Number.MAX_SAFE_INTEGER)
_SAFE_DIGITS: Final = len(str(MAX_SAFE_INTEGER))
FIX: Final = (
    "re-run `ordertrap-gate analyze TRIALS.csv --json analysis.json` and pass the file it writes "
    "unchanged (an edited, truncated or foreign analysis.json is not published)"
)
DECISIONS: Final = ("pass", "fail", "inconclusive")
VERDICTS: Final = tuple(str(v) for v in Verdict)


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
        text = bounded.read_text_within(p, MAX_JSON_BYTES)
    except bounded.FileTooLarge as exc:
        raise InputError(
            f"{exc}, so it is not read as an analysis.json",
            "pass the analysis.json `ordertrap-gate analyze` wrote for this run (split a suite this "
            "large into shards: docs/github-actions.md, Several runners)",
        ) from None
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
# The rules are gate/files/schema.py's decoders; a rule no type states is said whole (:func:`_refuse`).
_opt_number = nullable(number())
_opt_pair = nullable(pair)
_whole = whole(0)
_opt_whole = nullable(_whole)
_opt_obj = nullable(obj)
_SETTING: Final[dict[str, Decoder[Any]]] = {
    "confidence": number(),
    "threshold_pct": number(),
    "resamples": _whole,
    "seed": integer,
}


def _refuse(where: str, said: str) -> Invalid:
    return Invalid(where, None, said=said)


def _input_error(source: str, bad: Invalid) -> InputError:
    """``SOURCE: WHERE is VALUE, not EXPECTED`` (or ``PARENT lacks 'KEY'``), with the fix."""
    if bad.said:
        text_ = f"{bad.where} {bad.said}" if bad.where else bad.said
    elif bad.missing:
        text_ = f"{bad.parent} lacks {bad.key!r}"
    else:
        text_ = f"{bad.where} is {short(bad.value)}, not {bad.expected}"
    return InputError(f"{source}: {text_}", FIX)


def _warning(value: Any, where: str) -> WarningRecord:
    o = Obj(where, value)
    for k in ("code", "message", "action"):
        o.field(k, text)
    return cast(WarningRecord, value)


_warnings = list_of(_warning)


def validate(data: Any, source: str = "analysis", *, complete: bool = False) -> Analysis:
    """The checked document (a copy where fields were filled in); InputError names what is wrong.
    ``complete``: every field the writer writes must be there (the writer's and fixtures' check)."""
    return check(data, source, complete=complete).doc


def check(data: Any, source: str = "analysis", *, complete: bool = False) -> CheckedAnalysis:
    """:func:`validate`, with the detail sections its check decoded (the reports read these)."""
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
        raise InputError(
            f"{source}: schema_version {version} is not one this gate writes ({SCHEMA}) or reads (1–{SCHEMA})",
            FIX,
        )
    if not isinstance(data.get("summary"), dict) or not isinstance(data.get("benchmarks"), list):
        raise InputError(f"{source} lacks 'summary' or 'benchmarks', so it is not an analysis.json", FIX)
    try:
        return _document(Obj("", data, lenient=not complete))
    except Invalid as bad:
        raise _input_error(source, bad) from None


def _document(o: Obj) -> CheckedAnalysis:
    checked = [_fast(b) or _benchmark(b, i, o.lenient) for i, b in enumerate(o.doc["benchmarks"])]
    benchmarks = [b for b, _ in checked]
    doc = dict(o.doc)
    doc["benchmarks"] = benchmarks
    doc["summary"] = _summary(o.child("summary"), benchmarks)
    for k in ("tool_version", "created_at", "head"):
        o.field(k, text)
    o.field("base", nullable(text))
    doc["inputs"] = o.field("inputs", plain_list(_is_text, "a list of paths"), [], added=True)
    settings = o.child("settings")
    for k in SETTINGS_KEYS[:7] if o.lenient else SETTINGS_KEYS:
        settings.field(k, _SETTING.get(k, text))
    o.item("order_check")
    o.item("similarity")
    _carryover_matrix(o.item("carryover_matrix"))
    for k in ("carryover_suite", "environment"):
        doc[k] = o.field(k, _opt_obj, None, added=True)
    suite = suite_details(doc)
    doc["adaptive"] = o.field("adaptive", _adaptive, None, added=True)
    o.field("warnings", _warnings)
    return CheckedAnalysis(cast(Analysis, doc), tuple(d for _, d in checked), suite)


def _is_text(x: Any) -> bool:
    return isinstance(x, str)


def _version(value: Any, where: str) -> VersionStats:
    v = Obj(where, value)
    v.field("estimate", _opt_number)
    v.field("ci", _opt_pair)
    v.field("n", _whole)
    v.field("n_failed", _whole)
    return cast(VersionStats, value)


def _benchmark(value: Any, i: int, lenient: bool) -> tuple[Benchmark, BenchmarkDetails]:
    where = f"benchmarks[{i}]"
    b = obj(value, where)
    if "benchmark" not in b or "verdict" not in b:
        raise _refuse(where, "lacks 'benchmark' or 'verdict'")
    text(b["benchmark"], f"{where}.benchmark")
    if b["verdict"] not in VERDICTS:
        raise _refuse(where, f"has verdict {short(b['verdict'])}, not one of {', '.join(sorted(VERDICTS))}")
    where = f"benchmarks[{i}] ({short(b['benchmark'])})"
    o = Obj(where, b, lenient=lenient)
    o.field("unit", text)
    o.field("higher_is_better", boolean)
    o.field("reason", text)
    o.field("change_pct", _opt_number)
    o.field("change_ci", _opt_pair)
    for role in ("base", "head"):
        o.field(role, _version)
    if "threshold_pct" in b:
        o.field("threshold_pct", number())
    if "bootstrap" in b:
        boot = o.child("bootstrap")
        boot.field("scheme", text)
        boot.field("reason", text)
    for key in ("statistic", "statistic_source"):
        if key in b:
            o.field(key, text)
    if "tail" in b:
        o.field("tail", _opt_obj)
    stability = o.child("stability")
    for role in ("base", "head"):
        s = stability.child(role)
        for k in ("cv", "rmad", "rciw"):
            s.field(k, _opt_number)
    for k in ("config", "order", "carryover", "similarity"):
        o.field(k, _opt_obj)
    details = benchmark_details(b, where)
    o.field("warnings", _warnings)
    samples = o.child("samples")
    for role in ("base", "head"):
        s = samples.child(role)
        values = s.item("value")
        if not _values_ok(values):
            raise _refuse(f"{s.where}.value", "is not a list of finite numbers")
        for key in ("seq", "trial", "suite_run"):  # the last two noisy_head's: null or absent allowed
            labels = s.item(key) if key == "seq" else s.item(key, None)
            if not (_seq_ok(labels, len(values)) or (labels is None and key != "seq")):
                raise _refuse(
                    f"{s.where}.{key}", "is not a list of trial numbers (whole numbers ≥ 0), one per value"
                )
    needed = o.field("samples_needed", _opt_whole, None, added=True)
    followup = o.field("followup", _followup, None, added=True)
    if "samples_needed" in b and "followup" in b:
        return cast(Benchmark, b), details
    return cast(Benchmark, {**b, "samples_needed": needed, "followup": followup}), details


def _followup(value: Any, where: str) -> Followup | None:
    if value is None:
        return None
    f = Obj(where, value)
    f.field("rounds", _whole)
    extra = f.child("extra_values")
    for role in ("base", "head"):
        extra.field(role, _whole)
    u = f.opt_child("unresolved")
    if u is not None:
        u.field("reason", text)
        u.field("detail", text)
        u.field("values_needed", _opt_whole)
        u.field("needs_s", _opt_number)
    return cast(Followup, value)


def _adaptive(value: Any, where: str) -> Adaptive | None:
    if value is None:
        return None
    a = Obj(where, value)
    for k in ("budget_s", "used_s", "planned_s", "followup_s", "full_s"):
        a.field(k, _opt_number)
    a.field("rounds", _whole)
    a.field("max_rounds", _opt_whole)
    a.field("rule", _opt_obj)  # kept as written: gate/files/analysis_model.py look_rule_words
    a.field("stop_reason", nullable(text))
    return cast(Adaptive, value)


def _carryover_matrix(value: Any) -> None:
    """``{"benchmarks": [names], "predecessors": [names], "effect_pct": [[number or null]]}``: one
    row per benchmark, one cell per predecessor, as the heatmap draws it."""
    if value is None:
        return
    m = Obj("carryover_matrix", value)
    names = {k: m.field(k, plain_list(_is_text, "a list of names")) for k in ("benchmarks", "predecessors")}
    effects = m.item("effect_pct")
    if not isinstance(effects, list) or len(effects) != len(names["benchmarks"]):
        raise _refuse("carryover_matrix.effect_pct", "is not a list with one row per benchmark")
    for i, row in enumerate(effects):
        if not isinstance(row, list) or len(row) != len(names["predecessors"]):
            raise _refuse(f"carryover_matrix.effect_pct[{i}]", "is not a list with one cell per predecessor")
        for j, cell in enumerate(row):
            _opt_number(cell, f"carryover_matrix.effect_pct[{i}][{j}]")


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
        isinstance(s[r], dict)
        and _values_ok(s[r]["value"])
        and all(
            _seq_ok(s[r][k], len(s[r]["value"]))
            for k in ("seq", "trial", "suite_run")
            if k == "seq" or s[r].get(k) is not None
        )
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


def _fast(b: Any) -> tuple[Benchmark, BenchmarkDetails] | None:
    """``b`` and its decoded details if it is an entry :func:`_benchmark` accepts unchanged, else
    None (a benchmark with follow-up rounds takes the long way, as does anything not plainly valid)."""
    try:
        plainly_valid = (
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
            and all(isinstance(b.get(k, ""), str) for k in ("statistic", "statistic_source"))
            and _opt_obj_ok(b.get("tail"))
            and isinstance(b["stability"], dict)
            and _stability_ok(b["stability"]["base"])
            and _stability_ok(b["stability"]["head"])
            and _opt_obj_ok(b["config"])
            and _opt_obj_ok(b["order"])
            and _opt_obj_ok(b["carryover"])
            and _opt_obj_ok(b["similarity"])
            and _warnings_ok(b["warnings"])
            and _samples_ok(b["samples"])
            and (b["samples_needed"] is None or _whole_ok(b["samples_needed"]))
            and b["followup"] is None
        )
        return (b, benchmark_details(b)) if plainly_valid else None
    except (KeyError, TypeError, Invalid):
        return None


def derived_counts(benchmarks: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Benchmarks per verdict, counted from the benchmarks themselves (every verdict present)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for b in benchmarks:
        counts[str(b["verdict"])] += 1
    return counts


def _summary(s: Obj, benchmarks: list[Benchmark]) -> Summary:
    s.field("decision", one_of(DECISIONS))
    counts = s.doc.get("counts")
    if not isinstance(counts, dict):
        raise _refuse("", "has no summary.counts object")
    for key, value in counts.items():
        if key not in VERDICTS:
            raise _refuse("summary.counts", f"has an unknown verdict {short(key)}")
        _whole(value, f"summary.counts.{key}")
    derived = derived_counts(benchmarks)
    differ = [f"{v} {counts.get(v, 0)} vs {n}" for v, n in derived.items() if counts.get(v, 0) != n]
    if differ:
        raise _refuse(
            "summary.counts",
            f"disagree with the verdicts of its benchmarks (summary vs benchmarks: {'; '.join(differ)})",
        )
    if not s.lenient and len(counts) != len(VERDICTS):
        raise _refuse("summary.counts", "lacks a verdict (the writer lists every one)")
    out = dict(s.doc)
    out["counts"] = derived
    n = s.field("n_benchmarks", _whole, len(benchmarks), added=True)
    if n != len(benchmarks):
        raise _refuse("summary.n_benchmarks", f"is {n} but {len(benchmarks)} benchmarks are listed")
    out["n_benchmarks"] = n
    for key, derived_n, said in (
        ("failed_in_head_only", sum(map(fails_in_head_only, benchmarks)), "fail in head only"),
        ("noisy_in_head", sum(map(noisy_in_head, benchmarks)), "are far noisier in head"),
    ):
        stated = s.field(key, _whole, derived_n, added=True)
        if stated != derived_n:
            raise _refuse(f"summary.{key}", f"is {stated} but {derived_n} listed benchmark(s) {said}")
        out[key] = stated
    for k in ("only_in_base", "only_in_head"):
        out[k] = s.field(k, _whole, 0, added=True)
    time = s.opt_child("time")
    if time is not None:
        for k in ("spent_s", "full_s", "saved_pct"):
            time.field(k, _opt_number)
    if "shards" in s.doc:
        _shards(s.child("shards"))
    return cast(Summary, out)


def _shards(shards: Obj) -> None:
    """``summary.shards``: what the reports read of a sharded run (gate/analysis/shards.py)."""
    shards.field("count", _whole)
    shards.field("not_measured", _whole)
    for k in ("slowest_s", "machine_s"):
        shards.field(k, _opt_number)
    shards.field("slowest", nullable(text))
    shards.field("missing", plain_list(_is_text, "a list of shard labels"))
    for i, log in enumerate(shards.field("logs", list_of(lambda v, w: v))):
        entry = Obj(f"summary.shards.logs[{i}]", log)
        for k in ("shard", "instance", "log"):
            entry.field(k, text)
        entry.field("spent_s", _opt_number)
