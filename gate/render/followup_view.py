"""The follow-up part of the report view: what the rounds of ``run --budget`` did (analysis.json
``adaptive``), each inconclusive benchmark's one next step, and what the values still asked for
would cost at the run's own pace (``run --budget``)."""

from __future__ import annotations

from typing import Any

from gate.decision import Decision
from gate.files.analysis_json import Analysis
from gate.files.analysis_model import Time
from gate.render import advice
from gate.render import followup as followup_words
from gate.render.view_model import Row


def adaptive_view(analysis: Analysis, rows: list[Row]) -> dict[str, Any] | None:
    """The follow-up rounds of ``run --budget`` (analysis.json ``adaptive``), None without a
    budget. Sets each row's ``followup_unresolved`` (why it stayed inconclusive and what would
    resolve it); ``followed`` lists the other benchmarks that had follow-up rounds, in the
    table's order, with how they were resolved."""
    adaptive = analysis["adaptive"]
    benchmarks = analysis["benchmarks"]
    if adaptive is not None:
        for r in rows:
            if r["verdict"] == "inconclusive":
                b = benchmarks[r["index"]]
                r["followup_unresolved"] = followup_words.unresolved(
                    b["followup"], adaptive, r["reason"], r["warnings"]
                )
    for r in rows:
        r["next_step"] = advice.next_step(
            r["verdict"], r["reason"], r["samples_needed"], r["warnings"], r["followup_unresolved"]
        )
    if adaptive is None:
        return None
    left = [
        f["unresolved"]
        for r in rows
        if r["followup_unresolved"] is not None
        and (f := benchmarks[r["index"]]["followup"]) is not None
        and f["unresolved"] is not None
    ]
    return {
        "timeline": followup_words.timeline(adaptive),
        "stop": followup_words.stop(adaptive, left),
        "rule": followup_words.rule(adaptive),
        "followed": [r for r in rows if r["followup_resolved"] and not r["followup_unresolved"]],
        "unresolved": [r for r in rows if r["followup_unresolved"]],
    }


def _more_values(rows: list[Row], decision: str) -> list[Row]:
    if decision != Decision.INCONCLUSIVE:
        return []
    return [
        r
        for r in rows
        if r["next_step"] is not None and r["next_step"].more_values and r["next_step"].code is None
    ]


TOO_LONG_FOR_A_BUDGET_S = 3600.0


def budget_estimate(rows: list[Row], decision: str, time: Time | None) -> dict[str, Any] | None:
    """What the values the "More values?" line asks for would cost at this run's pace (its
    measured time over the values it collected, builds excluded): ``{"seconds", "arg"}`` for
    ``run --budget``, or None without a measured time: a budget is only advice if it is the
    price of the values asked for, and hours of it mean the benchmark is too noisy for the
    threshold (``too_long``)."""
    wanting = _more_values(rows, decision)
    collected = sum(r["base_n"] + r["head_n"] for r in rows)
    if not wanting or time is None or not time["spent_s"] or not collected:
        return None
    extra = sum(
        max(r["samples_needed"] - r["base_n"], 0) + max(r["samples_needed"] - r["head_n"], 0)
        for r in wanting
        if r["samples_needed"] is not None
    )
    if not extra:
        return None
    seconds = extra * time["spent_s"] / collected
    return {
        "seconds": seconds,
        "n_values": f"{extra:,} values",
        "arg": followup_words.budget_arg(seconds),
        "pace": f"{time['spent_s']:.0f} s for {collected:,} values",
        # docs/running.md "Choosing a budget": hours mean too noisy for the threshold
        "too_long": seconds >= TOO_LONG_FOR_A_BUDGET_S,
    }


def budget_hint(rows: list[Row], decision: str) -> int:
    """On an inconclusive run, the inconclusive benchmarks whose one next step is more values
    (gate/render/advice.py) and that no follow-up round priced already: the reports then say how
    to get them (``run --budget``). Counted from the same steps the per-benchmark lines show, so
    the two agree."""
    return len(_more_values(rows, decision))
