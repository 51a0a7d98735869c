"""The comment's first screen: the decision, the table, one line per finding.
Benchmarks with the same next step share a line naming them (escaped); steps that differ keep a
line each; each warning category is one visible line, its warnings behind ``<details>``; nothing is
lost (the job summary keeps a line per benchmark and every warning). And no comment or summary of
the scenarios gives advice that contradicts itself (items 1 and 12)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from gate.analysis.compare import AnalysisSettings, Sample, compare_one
from gate.files import analysis_json
from gate.render import RenderContext, render, view
from gate.render.advice import next_step, split_reason
from gate.render.filters import md_code, md_escape
from tests.fakes import analyses

ICONS = ("- 🟡 ", "- ❌ ")


def _notes(text: str) -> list[str]:
    return [x for x in text.splitlines() if x.startswith(ICONS)]


def test_benchmarks_with_the_same_next_step_share_one_line_naming_them() -> None:
    comment = render(analyses.inconclusive_heavy(), "comment")
    (line,) = _notes(comment)
    names = [f"`bench_{i:02d}`" for i in (5, 4, 3, 2, 1, 0)]
    assert line.startswith("- 🟡 " + ", ".join(names) + " **inconclusive**: ")
    assert line.count("→") == 1
    # the job summary keeps one line per benchmark
    summary = render(analyses.inconclusive_heavy(), "summary")
    assert len(_notes(summary)) == 6
    # steps that differ keep a line each (two budgets, a reason's own fix, no step)
    notes = _notes(render(analyses.followup_rounds(), "comment"))
    assert [n.split(" **")[0] for n in notes] == [
        "- 🟡 `flaky_io`",
        "- 🟡 `sorted_insert`",
        "- 🟡 ``<b>x</b>|@octocat `y` #7``",
        "- 🟡 `query`",
    ]


def test_more_values_steps_merge_with_the_range_and_the_footer_counts_them() -> None:
    comment = render(analyses.needs_budget(), "comment")
    notes = _notes(comment)
    assert notes[0] == (
        "- 🟡 `scan`, `query` **inconclusive**: the 99% CI of the change is too wide to rule out a 3% "
        "change → about 18–30 values per version would resolve them"
    )
    assert "**More values?** 2 inconclusive benchmarks need only more values" in comment


def test_names_on_a_shared_line_are_escaped() -> None:
    hostile = ["<script>alert(1)</script>", "@octocat `x` #1|y"]
    doc = analyses.analysis(
        [analyses.benchmark(name, "inconclusive", change_pct=2.0, samples_needed=40) for name in hostile]
    )
    (line,) = _notes(render(doc, "comment"))
    spans = [md_code(name, table=False) for name in hostile]
    assert line.startswith("- 🟡 " + ", ".join(spans) + " **inconclusive**")
    rest = line
    for span in spans:
        rest = rest.replace(span, "")
    assert "<" not in rest and "@octocat" not in rest


def test_warnings_show_one_line_per_kind_and_their_detail_behind_details() -> None:
    doc = analyses.order_effects()
    comment = render(doc, "comment")
    warnings = comment[comment.index("#### ⚠️ Warnings") :]
    visible = warnings[: warnings.index("<details>")]
    titles = [line for line in visible.splitlines() if line.startswith("- **")]
    assert titles[0].startswith("- **Order check**")
    assert [t.split("**")[1] for t in titles[1:]] == [
        "Order effects",
        "Carry-over",
        "Dissimilar runs",
        "Machine preparation",
    ]
    assert "→" not in visible  # no action on the first screen: one line per kind
    detail = warnings[
        warnings.index("<details><summary>What the 5 warnings say") : warnings.index("</details>")
    ]
    groups = view.build(analysis_json.check(doc), RenderContext())["warning_groups"]
    messages = [e["message"] for g in groups for e in g["entries"]]
    assert len(messages) == 5
    for message in messages:
        assert md_escape(message) in detail


def _footer_count(text: str) -> int:
    found = re.search(r"\*\*More values\?\*\* (\d+) inconclusive", text)
    return int(found.group(1)) if found else 0


def _more_values_names(line: str) -> int:
    head = line.split(" **")[0]
    return head.count("`, `") + 1


@pytest.mark.parametrize("scenario", sorted(analyses.SCENARIOS))
def test_no_comment_or_summary_contradicts_itself(scenario: str) -> None:
    """One piece of advice per line; the footer's "need only more values" counts exactly the
    benchmarks whose line says so (item 12: the footer counted 12 whose lines said more values
    would not resolve them); a line never says both; a stop reason that more values would not
    resolve the rest comes with no budget advice (item 1); a benchmark that ran a calibrated
    minimal configuration is not told to raise [full], which does not change what it runs."""
    doc: dict[str, Any] = analyses.SCENARIOS[scenario]()
    calibrated = [
        md_code(b["benchmark"], table=False)
        for b in doc["benchmarks"]
        if (b["config"] or {}).get("source") == "calibration"
    ]
    for fmt in ("comment", "summary"):
        text = render(doc, fmt)  # type: ignore[arg-type]
        notes = _notes(text)
        more = 0
        for line in notes:
            assert line.count("→") <= 1, line
            assert " — " not in line, line  # a reason's own fix is never a second piece of advice
            resolve = "would resolve" in line
            assert not (
                resolve and ("would not resolve" in line or "do not remove" in line or "may collect" in line)
            ), line
            if any(name in line.split(" **")[0].split(":")[0] for name in calibrated):
                # [full] does not change what a calibrated minimal configuration runs
                assert "raise \\[full\\]" not in line, line
            if resolve and "--budget" not in line:
                more += _more_values_names(line) if fmt == "comment" else 1
        assert _footer_count(text) == more, (fmt, more)
        if "stopped: more values would not resolve" in text:
            assert not any("--budget" in line for line in notes)


def test_a_reason_with_its_own_fix_is_one_step_whatever_the_warnings() -> None:
    """No CI could be computed: compare.py writes what happened and its fix apart (" — "), and
    that fix is the one step even beside an order effect (a reset does not cure non-positive
    values)."""
    c = compare_one(
        "x", Sample(np.zeros(15)), Sample(np.ones(15)), False, AnalysisSettings(), np.random.default_rng(1)
    )
    what, fix = split_reason(c.reason)
    assert c.verdict == "inconclusive" and c.samples_needed is None
    assert (
        what.startswith("no confidence interval could be computed") and fix == "check the benchmark's output"
    )
    order = {"code": "order_effect", "message": "fixed and random differ", "action": "add a reset"}
    step = next_step("inconclusive", c.reason, None, [order], None)
    assert step is not None and step.text == "check the benchmark's output"
