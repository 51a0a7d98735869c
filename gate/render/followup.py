"""The words of the reports for follow-up rounds (``run --budget``): plain text, escaped by the
template that shows it (Markdown ``finalize``, HTML autoescape) or printed by the CLI table.

Inputs are analysis.json ``adaptive`` and ``benchmarks[].followup`` (docs/contracts.md); any field
may be null or missing (an older or partial file), and a phrase then leaves that part out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

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


def _count(x: Any) -> int:
    """A whole number ≥ 0 from the file, else 0 (analysis.json is input: a field may be junk)."""
    return x if type(x) is int and x > 0 else 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def extra_values(followup: Mapping[str, Any]) -> str:
    """'+40 values per version', or '+8 base / +7 head values' when they differ."""
    extra = followup.get("extra_values")
    extra = extra if isinstance(extra, Mapping) else {}
    b, h = _count(extra.get("base")), _count(extra.get("head"))
    return f"+{b} values per version" if b == h else f"+{b} base / +{h} head values"


def rounds_done(followup: Mapping[str, Any]) -> int:
    return _count(followup.get("rounds"))


def resolved(verdict: str, followup: Any) -> str | None:
    """'unchanged after 2 follow-up rounds, +40 values per version' (None without follow-ups)."""
    if not isinstance(followup, Mapping) or not rounds_done(followup):
        return None
    return f"{verdict} after {_plural(rounds_done(followup), 'follow-up round')}, {extra_values(followup)}"


def unresolved(
    followup: Any, adaptive: Any, reason: str, warnings: Sequence[Mapping[str, Any]]
) -> dict[str, str | None] | None:
    """Why an inconclusive benchmark stayed so after the rounds, and what would resolve it:
    ``{"why", "more", "suggest"}``; ``suggest`` is a command-line option (shown as code).
    None when the analysis does not say (no budget, or no ``unresolved`` entry)."""
    if not isinstance(followup, Mapping) or not isinstance(followup.get("unresolved"), Mapping):
        return None
    u = followup["unresolved"]
    a = adaptive if isinstance(adaptive, Mapping) else {}
    kind = str(u.get("reason") or "")
    done = rounds_done(followup)
    after = f"after {_plural(done, 'follow-up round')} ({extra_values(followup)}) " if done else ""
    needs = _num(u.get("needs_s"))
    values = _count(u.get("values_needed")) or None
    budget, used = _num(a.get("budget_s")), _num(a.get("used_s"))
    max_rounds = _count(a.get("max_rounds")) or None
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
    elif kind == "hopeless":
        need = f"about {values} values per version" if isinstance(values, int) else "more values than that"
        why = (
            f"{after}not followed{' further' if done else ''}: too noisy for the time left ({need} would be "
            "needed; making the benchmark stabler is likely cheaper)"
        )
        # Hopeless means the values it needs would take longer than the time left when it was
        # judged, so the run may stop with budget unspent: the budget that resolves it is the time
        # this run used plus what it needs, the "more" said beside it (the unspent rest is no part
        # of it); used + needs exceeds the budget, since needs exceeded the time left.
        if needs is not None and used is not None:
            suggest = f"--budget {budget_arg(used + needs)}"
        elif needs is not None and budget is not None:
            suggest = f"--budget {budget_arg(budget + needs)}"
    elif kind == "not_lack_of_data":
        detail = str(u.get("detail") or "").strip()
        detail = "" if detail in reason else f": {detail}"  # the reason shown beside it says it already
        order = any(
            (m := lookup(str(w.get("code") or ""))) is not None and m.category is WarningCategory.ORDER
            for w in warnings
        )
        why = f"{after}more values would not resolve it{detail}" + (
            " (an order effect: see the warnings)" if order else ""
        )
        more = None
    else:
        why = f"{after}the follow-up rounds left it unresolved"
    return {"why": why, "more": more, "suggest": suggest}


def timeline(adaptive: Any) -> str | None:
    """'planned 3 min + follow-up 4 min of a 15 min budget; the full configuration would take
    41 min' (the last part only when the full configuration's time is known)."""
    if not isinstance(adaptive, Mapping):
        return None
    planned, followup, budget = (_num(adaptive.get(k)) for k in ("planned_s", "followup_s", "budget_s"))
    parts = []
    if planned is not None:
        parts.append(f"planned {rough_duration(planned)}")
    if followup is not None:
        parts.append(f"follow-up {rough_duration(followup)}")
    text = " + ".join(parts) or "time used unknown"
    if budget is not None:
        text += f" of a {rough_duration(budget)} budget"
    full = _num(adaptive.get("full_s"))
    if full is not None:
        text += f"; the full configuration would take {rough_duration(full)}"
    return text


def stop(adaptive: Any) -> str | None:
    """'2 of at most 3 follow-up rounds; stopped: the budget was spent'."""
    if not isinstance(adaptive, Mapping):
        return None
    n = _count(adaptive.get("rounds"))
    cap = _count(adaptive.get("max_rounds")) or None
    text = f"{n} of at most {cap} follow-up rounds" if isinstance(cap, int) else _plural(n, "follow-up round")
    reason = adaptive.get("stop_reason")
    if reason in STOP:
        return f"{text}; stopped: {STOP[reason]}"
    return f"{text}; the run stopped before its last analysis (run it again to finish)"


def rule(adaptive: Any) -> str | None:
    """'each of the 4 looks used a 99.75% CI, so the run keeps 99% overall (Bonferroni)'."""
    r = adaptive.get("rule") if isinstance(adaptive, Mapping) else None
    if not isinstance(r, Mapping):
        return None
    looks, per, overall = (
        _count(r.get("looks")),
        _num(r.get("confidence_per_look")),
        _num(r.get("confidence")),
    )
    if not looks or per is None or overall is None:
        return None
    return (
        f"each of the {looks} looks (the planned one and every round) used a {per * 100:g}% CI, so the "
        f"run keeps {overall * 100:g}% overall (Bonferroni)"
    )
