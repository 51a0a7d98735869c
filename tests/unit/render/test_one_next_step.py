"""One next step per inconclusive or failed benchmark (gate/render/advice.py), and a footer whose
count agrees with the per-benchmark lines (issue: the comment advised a budget, [full].iterations
and a stabler benchmark for one benchmark, and counted "need only more values" benchmarks whose
lines said more values would not resolve them)."""

from __future__ import annotations

from typing import Any

from gate.analysis.remedies import FULL_REMEDY, too_noisy_remedy
from gate.model import MAX_VALUES
from gate.render import render
from gate.render.advice import next_step, short_why
from tests.fakes import analyses

DRIFT = {
    "code": "position_drift",
    "message": "it drifts with its position in the run",
    "action": "add a cool-down or reset between trials",
}


def _needing(
    name: str, needed: int, remedy: str, warnings: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    return analyses.benchmark(
        name,
        "inconclusive",
        change_pct=2.0,
        samples_needed=needed,
        warnings=warnings,
        reason=f"the 99% CI of the change [-1.0%, +5.0%] is too wide to rule out a 3% change; about {needed} "
        f"values per version (now 15/15) would resolve a 3% change at this noise — {remedy}",
    )


def _doc() -> dict[str, Any]:
    doc = analyses.analysis(
        [
            _needing("noisy", MAX_VALUES + 1, too_noisy_remedy()),
            _needing("short", 30, FULL_REMEDY),
            _needing("drifting", 30, FULL_REMEDY, [DRIFT]),
        ]
    )
    doc["summary"]["decision"] = "inconclusive"
    return doc


def _line(text: str, name: str) -> str:
    return next(x for x in text.splitlines() if x.startswith("- ") and f"`{name}`" in x)


def test_each_line_gives_one_next_step_and_the_footer_counts_the_same_benchmarks() -> None:
    comment = render(_doc(), "comment")
    noisy, short, drifting = (_line(comment, n) for n in ("noisy", "short", "drifting"))
    for line in (noisy, short, drifting):
        assert line.count("→") == 1
        assert "[full\\].iterations" not in line  # the reason's own remedy is not a second advice
    assert f"more than one run may collect ({MAX_VALUES:,})" in noisy and "would resolve it" not in noisy
    assert short.endswith("→ about 30 values per version would resolve it")
    # a drift with the position: more values keep the bias, so its own fix, not more values
    assert "which more values do not remove: add a cool-down or reset between trials" in drifting
    assert "values per version would resolve it" not in drifting
    # only "short" needs only more values: the footer counts it and no other
    assert "**More values?** 1 inconclusive benchmark needs only more values" in comment


def test_no_more_values_footer_when_every_line_says_more_values_would_not_help() -> None:
    doc = analyses.analysis([_needing(f"b{i}", MAX_VALUES + 1 + i, too_noisy_remedy()) for i in range(3)])
    doc["summary"]["decision"] = "inconclusive"
    for fmt in ("comment", "summary"):
        assert "More values?" not in render(doc, fmt)  # type: ignore[arg-type]


def test_the_short_reason_leaves_out_the_fix_and_the_values_count() -> None:
    reason = (
        "the change (-25.4%) is beyond ±3% but the 99% CIs overlap; about 8665 values per version "
        f"(now 20/20) would resolve a 3% change at this noise — {FULL_REMEDY}"
    )
    assert short_why(reason) == "the change (-25.4%) is beyond ±3% but the 99% CIs overlap"
    assert short_why("no confidence interval could be computed; check the output") == (
        "no confidence interval could be computed; check the output"
    )


def test_next_step_order_of_preference() -> None:
    budget = {"more": "about 7 min more would resolve it", "suggest": "--budget 17m"}
    # a bias beats a priced budget; too many values beat it too; the budget beats the bare count
    assert "more values do not remove" in next_step("inconclusive", "x", 60, [DRIFT], budget).text  # type: ignore[union-attr]
    assert next_step("inconclusive", "x", MAX_VALUES + 1, [], budget).code is None  # type: ignore[union-attr]
    step = next_step("inconclusive", "x", 60, [], budget)
    assert step is not None and step.code == "--budget 17m" and step.more_values
    assert next_step("inconclusive", "x — check it", None, [], None).text == "check it"  # type: ignore[union-attr]
    assert next_step("inconclusive", "x", None, [], None) is None
    assert next_step("unchanged", "x — y", None, [], None) is None
    assert next_step("failed", "it crashed — fix it", None, [], None).text == "fix it"  # type: ignore[union-attr]
