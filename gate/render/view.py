"""The view model: everything a template shows, precomputed from analysis.json in Python.

Templates only lay out and format these values (no arithmetic in templates). The input is a
document checked by :mod:`gate.files.analysis_json`: its keys and types are indexed as guaranteed
there, and its detail sections (``order``, ``carryover``, ``similarity``, ``config``,
``carryover_exclusion``, ``order_check``, ``environment``) are read as the typed records of
:mod:`gate.files.analysis_model`, whose defaults for what an older file lacks are decided there.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from gate.decision import Decision
from gate.files.analysis_json import Analysis, Benchmark, VersionStats, benchmark_statistic
from gate.files.analysis_model import (
    BenchmarkDetails,
    CarryoverExclusion,
    CheckedAnalysis,
    PredecessorEffect,
    PredecessorTest,
    RunConfig,
    Shards,
    Time,
    benchmark_details,
    suite_details,
)
from gate.render import advice
from gate.render import followup as followup_words
from gate.render.filters import fmt_p
from gate.render.followup_view import adaptive_view, budget_estimate, budget_hint
from gate.render.view_model import PredecessorRow, Row, RowData, View
from gate.stats.quantile import describe, is_statistic
from gate.warning_codes import WarningCategory, WarningCode, lookup

VERDICT_ICON = {
    "regression": "🔴",
    "failed": "❌",
    "inconclusive": "🟡",
    "improvement": "🟢",
    "unchanged": "⚪",
}
DECISION_ICON: dict[str, str] = {Decision.FAIL: "❌", Decision.INCONCLUSIVE: "⚠️", Decision.PASS: "✅"}
COUNT_ORDER = ("regression", "improvement", "inconclusive", "unchanged", "failed")
COUNT_LABEL = {
    "regression": ("regression", "regressions"),
    "improvement": ("improvement", "improvements"),
    "inconclusive": ("inconclusive", "inconclusive"),
    "unchanged": ("unchanged", "unchanged"),
    "failed": ("failed", "failed"),
}
ATTENTION = ("regression", "failed", "inconclusive", "improvement")

# Warning categories of the comment, the summary and the HTML report, in display order, with
# what each one means for the reader.
CATEGORIES: tuple[tuple[str, str, str], ...] = (
    (
        "config",
        "Configuration",
        "how the gate was configured for this run: base and head differ, or a setting does not fit it",
    ),
    (
        "isolation",
        "Isolation",
        "benchmarks ran without the sandbox: their code could read the gate's environment and files",
    ),
    ("order", "Order effects", "results depend on the order or position benchmarks ran in"),
    ("carryover", "Carry-over", "a benchmark is faster or slower right after another one"),
    ("dissimilar", "Dissimilar runs", "some runs do not look like the others"),
    ("benchmarks", "Benchmarks", "some benchmarks were not compared, or not measured as configured"),
    ("log", "Trial log", "some trials were left out, or base and head were not measured together"),
    ("machine", "Machine preparation", "the benchmark host was not prepared for stable timing"),
    ("noise", "Noisy benchmarks", "values vary too much to resolve a small change"),
    ("other", "Other warnings", ""),
)
# Every code the gate writes and its category come from gate/warning_codes.py (one member per
# code, each with its category); only the host checks of gate/engine/environment.py are "machine".
MACHINE_CODES = frozenset(c.value for c in WarningCode if c.category is WarningCategory.MACHINE)
# Codes from elsewhere (older analyses, other tools) by prefix. Never "machine": a code is about
# the host only if it is one of MACHINE_CODES; anything unknown is "other".
_CODE_PREFIX = (
    ("order", "order"),
    ("position", "order"),
    ("carry", "carryover"),
    ("dissimilar", "dissimilar"),
    ("similar", "dissimilar"),
    ("unstable", "noise"),
    ("noisy", "noise"),
)


def warning_category(code: str) -> str:
    """The CATEGORIES key a warning code is shown under (suite-level or per benchmark alike)."""
    member = lookup(code)
    if member is not None:
        return member.category.value
    c = code.strip().lower()
    for prefix, cat in _CODE_PREFIX:
        if c.startswith(prefix):
            return cat
    return "other"


@functools.lru_cache(maxsize=256)
def config_label(config: RunConfig | None) -> str:
    """'minimal 2×3×1' (suite runs × iterations × measurements), 'full 3×5×1' or '—'."""
    if config is None:
        return "—"
    levels = "×".join(
        "?" if n is None else str(n) for n in (config.suite_run, config.iteration, config.measurement)
    )
    if config.source == "calibration":
        levels = f"minimal {levels}"
    elif config.source == "full":
        levels = f"full {levels}"
    return levels + " (never stable)" if config.never_stable else levels


def _predecessor_row(p: PredecessorEffect) -> PredecessorRow:
    return {
        "predecessor": p.predecessor,
        "effect_pct": p.effect_pct,
        "p_adj": p.p_adj,
        "significant": p.significant,
    }


def benchmark_row(b: Benchmark, index: int, details: BenchmarkDetails | None = None) -> Row:
    d = benchmark_details(b) if details is None else details
    verdict = b["verdict"]
    base, head = b["base"], b["head"]
    sb, sh = b["stability"]["base"], b["stability"]["head"]
    warnings = b["warnings"]
    order = d.order
    preds = d.carryover.predecessors[:5]  # the analysis sorts significant ones first; a detail view shows 5
    change = b["change_pct"]
    config = d.config
    data: RowData = {
        "index": index,
        "anchor": f"b{index}",
        "number": index + 1,
        "name": b["benchmark"],
        "verdict": verdict,
        "icon": VERDICT_ICON.get(verdict, "•"),
        "attention": verdict in ATTENTION,
        "reason": b["reason"],
        # the scheme ``--bootstrap auto`` chose and why (absent from older files)
        "bootstrap": b["bootstrap"]["scheme"] if "bootstrap" in b else None,
        "bootstrap_reason": b["bootstrap"]["reason"] if "bootstrap" in b else "",
        "unit": b["unit"],
        "higher_is_better": b["higher_is_better"],
        "change_pct": change,
        "abs_change": -1.0 if change is None else abs(change),
        "change_ci": b["change_ci"],
        "base_est": base["estimate"],
        "base_ci": base["ci"],
        "base_n": base["n"],
        "base_failed": base["n_failed"],
        "head_est": head["estimate"],
        "head_ci": head["ci"],
        "head_n": head["n"],
        "head_failed": head["n_failed"],
        "cv_base": sb["cv"],
        "cv_head": sh["cv"],
        "rciw_base": sb["rciw"],
        "rciw_head": sh["rciw"],
        "config": config_label(config),
        "minimal": config is not None and config.source == "calibration" and not config.never_stable,
        # calibrated, but µOpTime found no stable configuration: it ran the full one (§5)
        "never_stable": config is not None and config.never_stable,
        "order": order,
        "order_significant": bool(order and order.significant),
        "predecessors": [_predecessor_row(p) for p in preds],
        "carryover_note": carryover_note(preds, d.carryover.predecessor_test),
        "exclusion_note": exclusion_note(d.exclusion),
        "position_p": d.carryover.position_p,
        "position_significant": d.carryover.position_significant,
        "dissimilar": list(d.dissimilar),
        "warnings": [{"code": w["code"], "message": w["message"], "action": w["action"]} for w in warnings],
        "n_warnings": len(warnings),
        "n_label": _n_label(base, head),
        # inconclusive for lack of data: more values would resolve it (a budget's hint)
        "samples_needed": b["samples_needed"],
        # what happened, without the reason's own fix: the reports give one next step instead
        "why": advice.short_why(b["reason"]),
        "followup_resolved": followup_words.resolved(verdict, b["followup"]),
        "followup_unresolved": None,  # set by build(): its words need the run's budget
        "next_step": None,  # set by build(), from the follow-up words (gate/render/advice.py)
    }
    return Row(data)


def carryover_note(predecessors: Sequence[PredecessorEffect], omnibus: PredecessorTest | None) -> str:
    """Why some predecessors have no adjusted p (shown as "not tested"): the post-hoc tests run
    only after the overall Kruskal-Wallis test of all predecessors is significant, and Holm's
    step-down stops at the first predecessor that is not (gate/analysis/carryover.py)."""
    if not any(p.p_adj is None for p in predecessors):
        return ""
    p_overall = None if omnibus is None else omnibus.p
    if omnibus is None or p_overall is None:
        note = (omnibus and omnibus.note) or "too few trials after each predecessor"
        return f"Not tested: the overall test of all predecessors could not run ({note}), so no predecessor is singled out."
    if not omnibus.significant:
        return (
            "Not tested: the overall test of all predecessors (Kruskal-Wallis, Holm-adjusted p = "
            f"{fmt_p(p_overall)}) finds no difference between them, so no predecessor is tested on its "
            "own; the effects shown are within the noise."
        )
    return (
        "Not tested: predecessors are tested one at a time, strongest first (Holm's step-down), and "
        "the testing stops at the first one that is not significant."
    )


def _n_label(base: VersionStats, head: VersionStats) -> str:
    """Samples per version, with failed trials when there are any: '15 / 9 (6 failed)'."""
    nb, nh = base["n"], head["n"]
    failed = base["n_failed"] + head["n_failed"]
    return f"{nb} / {nh} ({failed} failed)" if failed else f"{nb} / {nh}"


def counts_line(counts: Mapping[str, int]) -> list[dict[str, Any]]:
    out = []
    for key in COUNT_ORDER:
        n = counts[key]
        singular, plural = COUNT_LABEL[key]
        out.append({"key": key, "n": n, "label": singular if n == 1 else plural, "icon": VERDICT_ICON[key]})
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def accepted_what(
    counts: Mapping[str, int], n: int, not_compared: int, failed_in_head_only: int, noisy_in_head: int = 0
) -> str:
    """What an accept label turned from fail into pass, in words."""
    reg = counts["regression"]
    compared = sum(k for v, k in counts.items() if v != "failed")
    what = [
        text
        for text, k in (
            (_plural(reg, "regression"), reg),
            (f"{failed_in_head_only} failing in head", failed_in_head_only),
            (f"no benchmark compared ({not_compared} missing in head)", not n and not_compared),
            (f"{not_compared} missing in head", n and not_compared),
            (f"{noisy_in_head} far noisier in head", noisy_in_head),
            ("nothing compared", n and not compared),
        )
        if k
    ]
    return ", ".join(what) or "unresolved benchmarks"


def headline(
    decision: str,
    counts: Mapping[str, int],
    n: int,
    accepted: bool,
    not_compared: int = 0,
    failed_in_head_only: int = 0,
    noisy_in_head: int = 0,
) -> str:
    """One phrase a reviewer reads first (plain text; escaped by the template). The decision
    may come from the publish policy (fail_on, accept label), so it need not follow the counts.
    ``not_compared``: benchmarks that ran in base but not in head; ``failed_in_head_only``:
    failed benchmarks whose base ran cleanly; ``noisy_in_head``: inconclusive benchmarks far
    noisier in head (all three fail the gate like regressions)."""
    reg, inc = counts["regression"], counts["inconclusive"]
    failed, imp = counts["failed"], counts["improvement"]
    if accepted:  # name what the label accepted (the status says the same)
        return accepted_what(counts, n, not_compared, failed_in_head_only, noisy_in_head) + " accepted"
    if not n:
        if not_compared and decision == Decision.FAIL:
            return f"no benchmark of base ran in head ({not_compared} missing)"
        return "no benchmark was compared" + (" — cannot tell yet" if decision != Decision.FAIL else "")
    problems = [
        p
        for p, k in (
            (_plural(reg, "regression"), reg),
            (f"{failed} failed", failed),
            (f"{inc} inconclusive", inc),
            (f"{noisy_in_head} far noisier in head", noisy_in_head),
            (f"{not_compared} not compared", not_compared),
        )
        if k
    ]
    if decision == Decision.FAIL:
        return ", ".join(problems) if problems else "failed"
    if decision == Decision.INCONCLUSIVE:
        return (", ".join(problems) if problems else "inconclusive") + " — cannot tell yet"
    if problems:  # "pass" although something is wrong: the policy does not fail on it
        return ", ".join(problems) + " — not failing the gate"
    if imp:
        return f"no regressions, {_plural(imp, 'improvement')}"
    return f"no regressions in {_plural(n, 'benchmark')}"


def collect_warnings(
    analysis: Analysis, rows: Sequence[Row], similarity_warnings: Sequence[Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Warnings grouped by category: [{key, title, meaning, items: [{benchmark, code, message, action}]}]."""
    groups: dict[str, list[dict[str, Any]]] = {key: [] for key, _, _ in CATEGORIES}
    seen: set[tuple[str, str, str, str]] = set()

    def add(w: Mapping[str, Any], benchmark: str | None) -> None:
        code = str(w["code"] or "")
        message, action = str(w["message"] or ""), str(w["action"] or "")
        item = {"benchmark": benchmark, "code": code, "message": message, "action": action}
        key = (benchmark or "", code, message, action)
        if key in seen:
            return
        seen.add(key)
        groups[warning_category(code)].append(item)

    for w in analysis["warnings"]:
        add(w, None)
    if similarity_warnings is None:
        similarity_warnings = suite_details(analysis).similarity_warnings
    for sw in similarity_warnings:
        add(sw, None)
    for r in rows:
        for w in r["warnings"]:
            add(w, r["name"])
        if r["dissimilar"] and not any(warning_category(w["code"]) == "dissimilar" for w in r["warnings"]):
            # flagged in the data without a warning of its own: still tell the reader what to do
            add(
                {
                    "code": WarningCode.DISSIMILAR.value,
                    "message": "these runs look unlike the others: " + ", ".join(r["dissimilar"]),
                    "action": "check the runner for background load or a machine change during those runs, "
                    "then rerun",
                },
                r["name"],
            )
    return [
        {"key": key, "title": title, "meaning": meaning, "entries": groups[key], "n": len(groups[key])}
        for key, title, meaning in CATEGORIES
        if groups[key]
    ]


def time_view(time: Time | None, n_minimal: int) -> dict[str, Any] | None:
    """Time spent; the comparison with the full configuration only when a calibrated minimal
    configuration ran: otherwise every benchmark ran the full configuration and a difference
    between estimate and spent time is noise (failed trials end early), not a saving."""
    if time is None or time["spent_s"] is None:
        return None
    if n_minimal == 0:
        return {"spent_s": time["spent_s"], "full_s": None, "saved_pct": None}
    return {"spent_s": time["spent_s"], "full_s": time["full_s"], "saved_pct": time["saved_pct"]}


def shards_view(shards: Shards) -> dict[str, Any] | None:
    """A sharded run's time line (gate/analysis/shards.py): the slowest shard is the wall time the
    pull request waited, the machine time what the runners spent together."""
    if shards["slowest_s"] is None:
        return None
    return {k: shards[k] for k in ("count", "slowest", "slowest_s", "machine_s", "missing", "not_measured")}


def build(checked: CheckedAnalysis, context: Any) -> View:
    """The common view model for all three formats (``context`` is a RenderContext), from the
    records the check of the document decoded (never decoded again here)."""
    analysis, details, suite = checked.doc, checked.details, checked.suite
    summary = analysis["summary"]
    counts = summary["counts"]
    rows = [
        benchmark_row(b, i, d) for i, (b, d) in enumerate(zip(analysis["benchmarks"], details, strict=True))
    ]
    n = summary["n_benchmarks"]
    not_compared = summary["only_in_base"]  # ran in base, not in head
    failed_in_head_only = summary["failed_in_head_only"]
    noisy = summary["noisy_in_head"]
    decision = str(context.decision or summary["decision"])
    settings = analysis["settings"]
    conf_label = f"{settings['confidence'] * 100:g}%"
    tests = list(suite.order_tests)
    n_order_sig = sum(1 for t in tests if t["significant"])
    return {
        "decision": decision,
        "decision_icon": DECISION_ICON.get(decision, "•"),
        "headline": headline(decision, counts, n, context.accepted, not_compared, failed_in_head_only, noisy),
        "accepted": context.accepted,
        "accepted_what": accepted_what(counts, n, not_compared, failed_in_head_only, noisy),
        "accept_label": context.accept_label,
        "run_url": context.run_url,
        "report_url": context.report_url,
        "summary_url": context.summary_url,
        "rerun_hint": context.rerun_hint.rstrip(". ") if context.rerun_hint else None,  # template adds "."
        "local": context.local,
        "base": analysis["base"] or "base",
        "head": analysis["head"] or "head",
        "n_benchmarks": n,
        "not_compared": not_compared,
        "counts": counts_line(counts),
        "rows": rows,
        "attention": [r for r in rows if r["attention"]],
        "unchanged": [r for r in rows if not r["attention"]],
        "notes": [r for r in rows if r["verdict"] in ("failed", "inconclusive") and r["reason"]],
        "warning_groups": collect_warnings(analysis, rows, suite.similarity_warnings),
        "time": time_view(summary["time"], sum(1 for r in rows if r["minimal"])),
        "shards": shards_view(summary["shards"]) if "shards" in summary else None,
        "confidence": conf_label,
        "threshold_pct": settings["threshold_pct"],
        "statistic": statistic_label(analysis),
        "statistic_name": settings["statistic"],  # short, for a table header
        "settings": {str(k): str(v) for k, v in settings.items()},
        "order_tests": tests,
        "n_order_significant": n_order_sig,
        "order_matters": suite.order_matters,
        "tool_version": analysis["tool_version"],
        "created_at": analysis["created_at"],
        "environment": suite.environment,
        "adaptive": adaptive_view(analysis, rows),
        "budget_hint": budget_hint(rows, decision),
        "budget_estimate": budget_estimate(rows, decision, summary["time"]),
        "n_minimal": sum(1 for r in rows if r["minimal"]),
        "n_never_stable": sum(1 for r in rows if r["never_stable"]),
        "config_note": config_note(rows, n),
        "carryover_taken_out": taken_out([d.exclusion for d in details]),
    }


def carryover_taken_out(benchmarks: Sequence[Benchmark]) -> str | None:
    """:func:`taken_out` of the benchmarks' ``carryover_exclusion``."""
    return taken_out([benchmark_details(b).exclusion for b in benchmarks])


def taken_out(exclusions: Sequence[CarryoverExclusion | None]) -> str | None:
    """One sentence for every format: which predecessors' followers were left out of how many
    benchmarks, with the effect, and how many verdicts that changed (benchmarks[].carryover_exclusion,
    gate/analysis/carryover_exclusion.py); None when nothing was left out."""
    applied = [e for e in exclusions if e is not None and e.applied]
    if not applied:
        return None
    preds: dict[str, PredecessorEffect] = {}
    for e in applied:
        for p in e.predecessors:
            preds.setdefault(str(p.predecessor), p)
    what = "; ".join(
        f"after {name} ({_effect_words(p.effect_pct)}, adjusted p = {_p(p.p_adj)})"
        for name, p in preds.items()
    )
    trials = sum(n for e in applied for n in e.excluded_trials.values())
    changed = sum(e.all_trials.verdict != e.without.verdict for e in applied)
    return (
        f"Carry-over taken out: the trials right {what} were left out of {len(applied)} benchmark(s) "
        f"({trials} trials); {changed} verdict(s) differ from the comparison with all trials."
    )


def _effect_words(effect: float | None) -> str:
    if effect is None:
        return "effect unknown"
    return f"{abs(effect):.1f}% {'faster' if effect < 0 else 'slower'}"


def _p(p: float | None) -> str:
    return "?" if p is None else f"{p:.2g}"


def exclusion_note(e: CarryoverExclusion | None) -> str | None:
    """The HTML report's line for one benchmark: what was left out and the other result."""
    if e is None:
        return None
    names = ", ".join(dict.fromkeys(str(p.predecessor) for p in e.predecessors))
    other = e.all_trials if e.applied else e.without
    ci = other.change_ci
    ci_text = "no CI" if ci is None else f"[{ci[0]:+.1f}%, {ci[1]:+.1f}%]"
    head = "taken out" if e.applied else "not taken out"
    gone = e.excluded_trials
    return (
        f"Carry-over {head}: trials right after {names} (base {gone['base']}, head "
        f"{gone['head']}); {e.reason}. "
        f"{'With all trials' if e.applied else 'Without them'}: {other.verdict or '—'}, change CI {ci_text}."
    )


def statistic_label(analysis: Analysis) -> str:
    """What decided, as the footers say it after "decided by the": "10th percentile
    (Harrell–Davis) of each version", then the benchmarks a [[benchmark]] statistic decided
    instead, then those decided by the statistic the nightly calibration chose for them (an old
    file: its settings.statistic, median then)."""
    suite = analysis["settings"]["statistic"]
    label = (describe(suite) if is_statistic(suite) else suite) + " of each version"
    by_source: dict[str, dict[str, str]] = {}
    for b in analysis["benchmarks"]:
        if (st := benchmark_statistic(analysis, b)) != suite:
            by_source.setdefault(b.get("statistic_source", "benchmark"), {})[b["benchmark"]] = st
    for source, words in (
        ("benchmark", "by their own statistic"),
        ("calibration", "by the statistic chosen by the nightly calibration"),
    ):
        own = by_source.get(source, {})
        if own:
            shown = ", ".join(
                f"{name} ({describe(st) if is_statistic(st) else st})" for name, st in list(own.items())[:5]
            )
            more = f" and {len(own) - 5} more" if len(own) > 5 else ""
            label += f"; {words}: {shown}{more}"
    return label


def config_note(rows: list[Row], n: int) -> str:
    """Which configurations ran, counted from what each benchmark actually ran."""
    minimal = sum(1 for r in rows if r["minimal"])
    never = sum(1 for r in rows if r["never_stable"])
    if minimal == 0 and never == 0:
        return "every benchmark ran the full configuration"
    text = f"{minimal} of {n} benchmarks ran a calibrated minimal configuration"
    if never:
        text += (
            f"; {never} ran the full configuration because calibration found no stable "
            "configuration for them (never stable)"
        )
    return text
