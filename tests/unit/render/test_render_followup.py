"""Reports of a run with follow-up rounds (``run --budget``): the time line, how each benchmark was
resolved, why one stayed inconclusive and what budget would resolve it; escaped like every
other text; and nothing changes without a budget."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from gate.render import followup as words
from gate.render import render
from gate.render.terminal import benchmark_table
from tests.fakes import analyses
from tests.unit.render.test_render_html import _external_refs

TIMELINE = "planned 3 min + follow-up 12 min of a 15 min budget; the full configuration would take 41 min"
STOPPED = "2 of at most 3 follow-up rounds; stopped: the budget was spent"


def test_comment_gives_one_line_and_one_next_step_per_unresolved_benchmark() -> None:
    text = render(analyses.followup_rounds(), "comment")
    assert text.count(TIMELINE) == 1  # once, near the decision (before the tables)
    assert text.index(TIMELINE) < text.index("| Benchmark")
    assert STOPPED in text
    assert "⏱️ Measured in" not in text  # the run's time is the time line above, not a second one
    # how the rounds resolved a benchmark, and the error rule, are in the summary and the HTML report
    assert "unchanged after 2 follow-up rounds" not in text and "Bonferroni" not in text
    query = next(x for x in text.splitlines() if x.startswith("- 🟡 `query`"))
    assert query.endswith(
        "→ about 25 min more would resolve it (about 90 values per version): `--budget 40m`"
    )
    flaky = next(x for x in text.splitlines() if x.startswith("- 🟡 `flaky_io`"))
    assert flaky.endswith(
        "→ about 90 min more would resolve it (about 4,000 values per version): `--budget 1h45m`"
    )
    # one piece of advice each: no second remedy from the reason or the follow-up words
    for line in (query, flaky):
        assert line.count("→") == 1 and "[full]" not in line and "stabler" not in line
    # no CI could be computed: the reason's own fix, not the order effect its warnings also show
    # (a reset does not cure non-positive values), and no budget
    sorted_insert = next(x for x in text.splitlines() if x.startswith("- 🟡 `sorted_insert`"))
    assert sorted_insert.endswith("(non-positive or non-finite values) → check the benchmark's output")
    assert "--budget" not in sorted_insert and "reset" not in sorted_insert


def test_summary_says_how_each_benchmark_was_resolved() -> None:
    text = render(analyses.followup_rounds(), "summary")
    assert text.count(TIMELINE) == 1 and text.index(TIMELINE) < text.index("| Benchmark")
    assert STOPPED.capitalize() in text
    assert "Each of the 4 looks (the planned one and every round) used a 99.75% CI" in text
    assert "`parse`: unchanged after 2 follow-up rounds, +40 values per version" in text
    assert "`alloc`: regression after 1 follow-up round, +10 values per version" in text
    assert "`render`:" not in text  # no follow-up round: nothing to say
    query = next(x for x in text.splitlines() if x.startswith("- 🟡 `query`"))
    assert "follow-up: after 2 follow-up rounds (+40 values per version) the budget ran out" in query
    assert query.endswith(
        "→ **next:** about 25 min more would resolve it (about 90 values per version): `--budget 40m`"
    )
    flaky = next(x for x in text.splitlines() if x.startswith("- 🟡 `flaky_io`"))
    assert "not followed: the values it needs would take longer than the time left" in flaky
    assert flaky.count("4,000 values per version") == 1  # the next step's count, said once
    assert "stabler" not in flaky and flaky.count("**next:**") == 1


@pytest.mark.parametrize("fmt", ["comment", "summary"])
def test_markdown_escapes_names_and_reasons_of_follow_ups(fmt: str) -> None:
    text = render(analyses.followup_rounds(), fmt)  # type: ignore[arg-type]
    line = next(x for x in text.splitlines() if "&lt;script&gt;" in x)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; @&#8203;team" in line
    if fmt == "summary":  # the follow-up's own words are in the summary and the HTML report
        assert "&lt;/details&gt; \\*\\*bold\\*\\* @&#8203;octocat #&#8203;12 \\|pipe\\|" in line
        assert "\\[x\\](javascript" in line  # not a link
    # raw, the detail would close the <details> block, mention a user and link an issue
    assert "</details> **bold**" not in text and "@octocat #12" not in text and "<script>" not in text
    # the name is a code span, where nothing is markup (as every benchmark name)
    assert "``<b>x</b>|@octocat `y` #7``" in text


def test_html_report_has_the_time_line_and_a_follow_up_table() -> None:
    page = render(analyses.followup_rounds(), "html")
    assert _external_refs(page) == []
    header = page[page.index('<p id="adaptive">') :]
    assert header.startswith(f'<p id="adaptive"><b>Follow-up rounds:</b> {TIMELINE}. {STOPPED.capitalize()}.')
    assert "Measured in <b>" not in page
    table = page[
        page.index('<table id="followup">') : page.index("</table>", page.index('<table id="followup">'))
    ]
    rows = re.findall(r"<tr><td><code class=\"name\" title=\"([^\"]*)\">", table)
    # resolved by the rounds first (table order), then the unresolved ones
    assert rows == [
        "alloc",
        "parse",
        "flaky_io",
        "sorted_insert",
        "&lt;b&gt;x&lt;/b&gt;|@octocat `y` #7",
        "query",
    ]
    assert "Unchanged after 2 follow-up rounds, +40 values per version" in table
    assert (
        "the budget ran out; next step: about 25 min more would resolve it (about 90 values per version): "
        "<code>--budget 40m</code>"
    ) in table
    assert "&lt;/details&gt; **bold**" in table and "</details> **bold**" not in page
    assert "<b>x</b>" not in page
    details = re.findall(r'<p class="followup">(.*)</p>', page)
    assert "Follow-up: unchanged after 2 follow-up rounds, +40 values per version." in details
    # a follow-up line each, and a next step for the three whose reason or rounds give one (the
    # hostile one's reason has no fix)
    assert len(details) == 6 + 3


def _without_budget(doc: dict[str, Any]) -> dict[str, Any]:
    """The same analysis as a schema-1 file, before the fields existed."""
    old = copy.deepcopy(doc)
    old["schema_version"] = 1
    del old["adaptive"]
    for b in old["benchmarks"]:
        del b["followup"], b["samples_needed"]
    return old


@pytest.mark.parametrize("scenario", ["mixed", "inconclusive_heavy", "failures", "hostile_names"])
@pytest.mark.parametrize("fmt", ["comment", "summary", "html"])
def test_without_a_budget_nothing_changes(scenario: str, fmt: str) -> None:
    doc = analyses.SCENARIOS[scenario]()
    assert doc["adaptive"] is None and all(b["followup"] is None for b in doc["benchmarks"])
    assert render(doc, fmt) == render(_without_budget(doc), fmt)  # type: ignore[arg-type]
    assert "follow-up" not in render(doc, fmt).lower()  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["comment", "summary"])
def test_the_budget_hint_prices_the_values_at_the_runs_pace(fmt: str) -> None:
    """The hint's budget is what the missing values cost at the pace the run measured, not a
    fixed example: a Go run needing 41,526 more values was told `--budget 15m` (about 6 h)."""
    doc = analyses.needs_budget()  # 30 s for 4 benchmarks × 6 values × 2 versions
    # query needs 30 per version, scan 18: (30 - 6) × 2 + (18 - 6) × 2 = 72 values at 30/48 s each
    assert (
        "need only more values (72 values in all), about 45 s of measuring at this run's pace "
        "(30 s for 48 values): a time budget (`run --budget 1m`"
    ) in render(doc, fmt)  # type: ignore[arg-type]
    for b in doc["benchmarks"]:
        if b["samples_needed"]:
            b["samples_needed"] = 6000
    assert "(23,976 values in all), about 4.2 h" in render(
        doc, fmt
    ) and "(`run --budget 4h10m`) would buy them" in render(doc, fmt)  # type: ignore[arg-type]
    # no measured time: no price, no made-up budget
    doc["summary"]["time"] = None
    text = render(doc, fmt)  # type: ignore[arg-type]
    assert "need only more values: a time budget (`run --budget DURATION`" in text
    assert "15m" not in text


@pytest.mark.parametrize("fmt", ["comment", "summary"])
def test_budget_hint_only_where_more_values_would_resolve(fmt: str) -> None:
    hint = "**More values?** 2 inconclusive benchmarks need only more values ("
    assert hint in render(analyses.needs_budget(), fmt)  # type: ignore[arg-type]
    # no benchmark lacks values (no samples_needed): no hint, as in every golden file before
    assert "More values?" not in render(analyses.inconclusive_heavy(), fmt)  # type: ignore[arg-type]
    # a run that had a budget says what the rounds did instead
    assert "More values?" not in render(analyses.followup_rounds(), fmt)  # type: ignore[arg-type]
    passed = analyses.needs_budget()
    passed["summary"]["decision"] = "pass"  # e.g. the publish policy does not gate on inconclusive
    assert "More values?" not in render(passed, fmt)  # type: ignore[arg-type]


def test_comment_leaves_the_resolved_list_to_the_summary() -> None:
    doc = analyses.followup_rounds()
    for i in range(14):
        doc["benchmarks"].append(
            analyses.benchmark(
                f"extra_{i:02d}",
                "unchanged",
                followup={"rounds": 1, "extra_values": {"base": 5, "head": 5}, "unresolved": None},
            )
        )
    doc["summary"]["counts"]["unchanged"] += 14
    doc["summary"]["n_benchmarks"] += 14
    comment = render(doc, "comment")
    assert ": unchanged after 1 follow-up round" not in comment  # not a finding: the summary lists it
    assert render(doc, "summary").count(": unchanged after 1 follow-up round, +5 values per version") == 14


# ---- the words, one case each ----------------------------------------------------------------------

ADAPTIVE = {"budget_s": 900.0, "used_s": 600.0, "max_rounds": 3}


def _fu(reason: str, rounds: int = 3, needs_s: float | None = 420.0, detail: str = "") -> dict[str, Any]:
    unresolved = {"reason": reason, "detail": detail, "values_needed": 60, "needs_s": needs_s}
    return {"rounds": rounds, "extra_values": {"base": 30, "head": 30}, "unresolved": unresolved}


def test_rounds_spent_suggests_more_rounds_and_a_budget_only_when_time_is_short() -> None:
    u = words.unresolved(_fu("rounds_spent"), ADAPTIVE, "", [])
    assert u == {
        "why": "after 3 follow-up rounds (+30 values per version) the follow-up rounds ran out (at most 3)",
        "more": "about 7 min more would resolve it",
        "suggest": "--max-rounds 4 --budget 17m",  # 600 s used + 420 s needed > 900 s
    }
    assert (
        words.unresolved(_fu("rounds_spent", needs_s=60.0), ADAPTIVE, "", [])["suggest"] == "--max-rounds 4"
    )  # type: ignore[index]


def test_hopeless_suggests_the_time_used_plus_the_time_needed() -> None:
    # the rounds stopped with 300 s of the 900 s budget unspent: a budget of 600 s used + 420 s
    # needed resolves it, as "7 min more" says; the budget plus the need (22m) would overstate it
    u = words.unresolved(_fu("hopeless", rounds=1), ADAPTIVE, "", [])
    assert u == {
        "why": "after 1 follow-up round (+30 values per version) not followed further: the values it needs "
        "would take longer than the time left",
        "more": "about 7 min more would resolve it",
        "suggest": "--budget 17m",
    }
    no_used = {**ADAPTIVE, "used_s": None}  # the time used is unknown
    assert words.unresolved(_fu("hopeless", rounds=1), no_used, "", [])["suggest"] == "--budget 22m"  # type: ignore[index]


def test_hopeless_beyond_what_one_run_may_collect_offers_no_budget() -> None:
    # the verdict's reason says more values will not resolve it: no "--budget" beside it says otherwise
    from gate.model import MAX_VALUES

    fu = _fu("hopeless", rounds=1, needs_s=14_000.0)
    fu["unresolved"]["values_needed"] = MAX_VALUES + 1
    u = words.unresolved(fu, ADAPTIVE, "", [])
    assert u == {
        "why": "after 1 follow-up round (+30 values per version) not followed further: too noisy for the "
        "values one run may collect",
        "more": None,
        "suggest": None,
    }
    fu["unresolved"]["values_needed"] = MAX_VALUES  # what one run may still collect keeps its budget
    assert words.unresolved(fu, ADAPTIVE, "", [])["suggest"] == "--budget 4h4m"  # type: ignore[index]  # 600 s + 14,000 s


@pytest.mark.parametrize("reason", ["budget_spent", "rounds_spent"])
def test_a_budget_or_rounds_that_ran_out_offer_nothing_beyond_what_one_run_may_collect(reason: str) -> None:
    # analyze's follow-up words and the comment's advice must agree: more values will not resolve it
    from gate.model import MAX_VALUES

    fu = _fu(reason, rounds=2, needs_s=26_000.0)
    fu["unresolved"]["values_needed"] = MAX_VALUES + 8_990
    u = words.unresolved(fu, ADAPTIVE, "", [])
    assert u["more"] is None and u["suggest"] is None  # type: ignore[index]
    assert u["why"].endswith("; too noisy for the values one run may collect")  # type: ignore[index]
    fu["unresolved"]["values_needed"] = MAX_VALUES  # what one run may still collect keeps its suggestion
    assert words.unresolved(fu, ADAPTIVE, "", [])["suggest"] is not None  # type: ignore[index]


def test_unknown_need_gives_no_suggestion() -> None:
    u = words.unresolved(_fu("budget_spent", needs_s=None), ADAPTIVE, "", [])
    assert u == {
        "why": "after 3 follow-up rounds (+30 values per version) the budget ran out",
        "more": None,
        "suggest": None,
    }


def test_not_lack_of_data_quotes_a_detail_the_reason_does_not_say() -> None:
    u = words.unresolved(_fu("not_lack_of_data", rounds=0, detail="values are bimodal"), ADAPTIVE, "x", [])
    assert u == {"why": "more values would not resolve it: values are bimodal", "more": None, "suggest": None}


@pytest.mark.parametrize(
    ("seconds", "arg", "rough"),
    [
        (30, "1m", "30 s"),
        (150, "3m", "2.5 min"),
        (2400, "40m", "40 min"),
        (5401, "1h31m", "90 min"),
        (7200, "2h", "2.0 h"),
    ],
)
def test_durations(seconds: float, arg: str, rough: str) -> None:
    assert words.budget_arg(seconds) == arg
    assert words.rough_duration(seconds) == rough


def test_time_line_and_stop_without_optional_parts() -> None:
    a = {
        "planned_s": 100.0,
        "followup_s": 20.0,
        "budget_s": 300.0,
        "full_s": None,
        "rounds": 1,
        "max_rounds": None,
    }
    assert words.timeline(a) == "planned 100 s + follow-up 20 s of a 5 min budget"
    assert words.stop({**a, "stop_reason": None}) == (
        "1 follow-up round; the run stopped before its last analysis (run it again to finish)"
    )
    assert words.rule({"rule": None}) is None


def test_one_stop_reason_when_the_rest_need_more_time_than_was_left() -> None:
    # The planner stops with "no_candidates" when every benchmark left needs more time than the
    # budget has left: "more values would not resolve the rest" would contradict the lines that
    # price the budget which resolves them.
    a = {**ADAPTIVE, "rounds": 1, "stop_reason": "no_candidates"}
    hopeless = {"reason": "hopeless", "needs_s": 5160.0}
    not_data = {"reason": "not_lack_of_data", "needs_s": None}
    assert words.stop(a, [hopeless, {**hopeless, "needs_s": 6660.0}]) == (
        "1 of at most 3 follow-up rounds; stopped: what the rest need (at least 86 min more) is more "
        "than the 5 min left of the budget"
    )
    assert (
        words.stop(a, [not_data])
        == "1 of at most 3 follow-up rounds; stopped: more values would not resolve the rest"
    )
    assert words.stop(a, [hopeless, not_data]).endswith(
        "is more than the 5 min left of the budget, and more values would not resolve 1 other"
    )


def test_junk_in_the_rule_renders_without_the_rule() -> None:
    """``adaptive.rule`` is kept as written (analysis_json checks only that it is an object):
    a malformed one leaves its sentence out, never a crash."""
    doc = analyses.followup_rounds()
    assert doc["adaptive"] is not None
    doc["adaptive"]["rule"] = {"looks": "4", "confidence": None}
    for fmt in ("comment", "summary", "html"):
        text = render(doc, fmt)
        assert "2 of at most 3 follow-up rounds; stopped: the budget was spent" in text
        assert "Bonferroni" not in text


def test_the_cli_table_gives_the_same_stop_reason_as_the_comment() -> None:
    """`analyze` printed "stopped: more values would not resolve the rest" under lines pricing the
    budget that would resolve them (Masterminds/semver with `--budget 4m`, where the comment said
    the rest needed more than the time left)."""
    doc = analyses.followup_rounds()
    assert doc["adaptive"] is not None
    doc["adaptive"]["stop_reason"] = "no_candidates"
    table = benchmark_table(doc)
    assert "stopped: what the rest need (at least 90 min more) is more than" in table
    assert "stopped: more values would not resolve the rest" not in table
    (line,) = [x for x in table.splitlines() if x.startswith("follow-up rounds:")]
    stop = line.split("; stopped: ")[1]
    assert f"stopped: {stop}" in render(doc, "comment")
