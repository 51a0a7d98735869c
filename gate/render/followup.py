"""The words of the reports for follow-up rounds (``run --budget``): plain text, escaped by the
template that shows it (Markdown ``finalize``, HTML autoescape) or printed by the CLI table.

Inputs are analysis.json ``adaptive`` and ``benchmarks[].followup`` as
:mod:`gate.files.analysis_json` checks them (every key present, counts whole numbers ≥ 0); a time
or count that is null (unknown) leaves its part of a phrase out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from gate.files.analysis_json import Adaptive, Followup
from gate.files.analysis_model import Unresolved, look_rule_words
from gate.model import MAX_VALUES
from gate.warning_codes import WarningCategory, lookup

STOP = {
    "all_resolved": "every benchmark resolved",
    "no_candidates": "more values would not resolve the rest",
    "budget_spent": "the budget was spent",
    "rounds_spent": "the follow-up rounds were used up",
}


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        return None
    return float(x)


def rough_duration(seconds: float) -> str:
    """'45 s', '2.5 min', '41 min', '1.8 h': what a reader compares, not a measurement."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 10:
        return f"{minutes:.1f}".rstrip("0").rstrip(".") + " min"
    if minutes < 120:
        return f"{minutes:.0f} min"
    return f"{minutes / 60:.1f} h"


def budget_arg(seconds: float) -> str:
    """A ``--budget`` value ≥ ``seconds``, in whole minutes ('25m', '1h30m', '2h')."""
    minutes = max(1, math.ceil(seconds / 60 - 1e-9))
    hours, rest = divmod(minutes, 60)
    if not hours:
        return f"{minutes}m"
    return f"{hours}h{rest}m" if rest else f"{hours}h"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def extra_values(followup: Followup) -> str:
    """'+40 values per version', or '+8 base / +7 head values' when they differ."""
    b, h = followup["extra_values"]["base"], followup["extra_values"]["head"]
    return f"+{b} values per version" if b == h else f"+{b} base / +{h} head values"


def resolved(verdict: str, followup: Followup | None) -> str | None:
    """'unchanged after 2 follow-up rounds, +40 values per version' (None without follow-ups)."""
    if followup is None or not followup["rounds"]:
        return None
    return f"{verdict} after {_plural(followup['rounds'], 'follow-up round')}, {extra_values(followup)}"


class UnresolvedWords(TypedDict):
    why: str
    more: str | None
    suggest: str | None  # a command-line option (shown as code)


def unresolved(
    followup: Followup | None, adaptive: Adaptive, reason: str, warnings: Sequence[Mapping[str, object]]
) -> UnresolvedWords | None:
    """Why an inconclusive benchmark stayed so after the rounds, and what would resolve it:
    ``{"why", "more", "suggest"}``; ``suggest`` is a command-line option (shown as code).
    None when the analysis does not say (no budget, or no ``unresolved`` entry)."""
    if followup is None or followup["unresolved"] is None:
        return None
    u = followup["unresolved"]
    kind = u["reason"]
    done = followup["rounds"]
    after = f"after {_plural(done, 'follow-up round')} ({extra_values(followup)}) " if done else ""
    needs = u["needs_s"]
    values = u["values_needed"] or None
    budget, used = adaptive["budget_s"], adaptive["used_s"]
    max_rounds = adaptive["max_rounds"] or None
    more = f"about {rough_duration(needs)} more would resolve it" if needs is not None else None
    suggest: str | None = None
    if kind == "budget_spent":
        why = f"{after}the budget ran out"
        if needs is not None and budget is not None:
            suggest = f"--budget {budget_arg(budget + needs)}"
    elif kind == "rounds_spent":
        why = f"{after}the follow-up rounds ran out" + (
            f" (at most {max_rounds})" if isinstance(max_rounds, int) else ""
        )
        if isinstance(max_rounds, int):
            suggest = f"--max-rounds {max_rounds + 1}"
            if needs is not None and budget is not None and used is not None and used + needs > budget:
                suggest += f" --budget {budget_arg(used + needs)}"
    elif kind == "hopeless" and isinstance(values, int) and values > MAX_VALUES:
        # More values than one run may collect per benchmark and version: the verdict's reason
        # says more values will not resolve it, so no budget is offered as if they would.
        # The count is the next step's to say (gate/render/advice.py), which every report
        # shows beside this.
        why = f"{after}not followed{' further' if done else ''}: too noisy for the values one run may collect"
        more = None
    elif kind == "hopeless":
        # How many values is the next step's to say ("about 90 min more would resolve it (about
        # 4,000 values per version)", gate/render/advice.py), from the statistic analyze used.
        why = f"{after}not followed{' further' if done else ''}: the values it needs would take longer than the time left"
        # Hopeless means the values it needs would take longer than the time left when it was
        # judged, so the run may stop with budget unspent: the budget that resolves it is the time
        # this run used plus what it needs, the "more" said beside it (the unspent rest is no part
        # of it); used + needs exceeds the budget, since needs exceeded the time left.
        if needs is not None and used is not None:
            suggest = f"--budget {budget_arg(used + needs)}"
        elif needs is not None and budget is not None:
            suggest = f"--budget {budget_arg(budget + needs)}"
    elif kind == "not_lack_of_data":
        detail = u["detail"].strip()
        detail = "" if detail in reason else f": {detail}"  # the reason shown beside it says it already
        # an order effect is named as the cause only when the reason names none of its own
        # ("what happened — what to do", gate/analysis/compare.py): "no CI could be computed —
        # check the benchmark's output" is not cured by a reset
        order = " — " not in reason and any(
            (m := lookup(str(w["code"]))) is not None and m.category is WarningCategory.ORDER
            for w in warnings
        )
        why = f"{after}more values would not resolve it{detail}" + (
            " (an order effect: see the warnings)" if order else ""
        )
        more = None
    else:
        why = f"{after}the follow-up rounds left it unresolved"
    if kind in ("budget_spent", "rounds_spent") and isinstance(values, int) and values > MAX_VALUES:
        # The budget or the rounds ran out first, but no budget resolves it: the verdict's reason
        # (and the comment's advice, gate/render/advice.py) says more values will not.
        why += "; too noisy for the values one run may collect"
        more = suggest = None
    return UnresolvedWords(why=why, more=more, suggest=suggest)


def timeline(adaptive: Adaptive) -> str:
    """'planned 3 min + follow-up 4 min of a 15 min budget; the full configuration would take
    41 min' (the last part only when the full configuration's time is known)."""
    planned, followup, budget = adaptive["planned_s"], adaptive["followup_s"], adaptive["budget_s"]
    parts = []
    if planned is not None:
        parts.append(f"planned {rough_duration(planned)}")
    if followup is not None:
        parts.append(f"follow-up {rough_duration(followup)}")
    text = " + ".join(parts) or "time used unknown"
    if budget is not None:
        text += f" of a {rough_duration(budget)} budget"
    full = adaptive["full_s"]
    if full is not None:
        text += f"; the full configuration would take {rough_duration(full)}"
    return text


def stop(adaptive: Adaptive, unresolved: Sequence[Unresolved] = ()) -> str:
    """'2 of at most 3 follow-up rounds; stopped: the budget was spent'. ``unresolved``: the
    ``followup.unresolved`` entries of the benchmarks left inconclusive. The planner stops with
    "no_candidates" both when more values would not resolve the rest and when what they need is
    more than the time left (gate/rounds/planner.py ``plan_round``): the entries tell which, so the
    one reason given is the one the per-benchmark lines agree with."""
    n, cap = adaptive["rounds"], adaptive["max_rounds"] or None
    text = f"{n} of at most {cap} follow-up rounds" if cap is not None else _plural(n, "follow-up round")
    reason = adaptive["stop_reason"]
    if reason == "no_candidates":
        budget, used = _num(adaptive["budget_s"]), _num(adaptive["used_s"])
        return f"{text}; stopped: {no_candidates(budget, used, unresolved)}"
    if reason in STOP:
        return f"{text}; stopped: {STOP[reason]}"
    return f"{text}; the run stopped before its last analysis (run it again to finish)"


def no_candidates(budget: float | None, used: float | None, unresolved: Sequence[Mapping[str, Any]]) -> str:
    """Why the planner found nothing to follow up ("no_candidates"): the time left, or values
    that would not help — the one reason both the comment and ``run``'s own line give."""
    too_long = [u for u in unresolved if u["reason"] == "hopeless"]
    not_data = len(unresolved) - len(too_long)
    if not too_long:
        return STOP["no_candidates"]
    needs = [s for u in too_long if (s := _num(u["needs_s"])) is not None]
    left = (
        f"the {rough_duration(max(budget - used, 0.0))} left of the budget"
        if budget is not None and used is not None
        else "the time left"
    )
    need = (
        f"what the rest need (at least {rough_duration(min(needs))} more)" if needs else "what the rest need"
    )
    text = f"{need} is more than {left}"
    if not_data:
        text += f", and more values would not resolve {_plural(not_data, 'other')}"
    return text


def rule(adaptive: Adaptive) -> str | None:
    """'each of the 4 looks used a 99.75% CI, so the run keeps 99% overall (Bonferroni)'.
    ``rule``'s fields as gate/files/analysis_model.py decodes them (analysis_json checks they do)."""
    r = look_rule_words(adaptive["rule"])
    if r is None:
        return None
    looks, per, overall = r.looks, r.confidence_per_look, r.confidence
    if not looks or per is None or overall is None:
        return None
    return (
        f"each of the {looks} looks (the planned one and every round) used a {per * 100:g}% CI, so the "
        f"run keeps {overall * 100:g}% overall (Bonferroni)"
    )
