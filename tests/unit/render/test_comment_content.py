"""What the pull-request comment says: the headline per decision, the attention table, the render
context's links, unsafe URLs left unlinked, warnings that share an action merged."""

from __future__ import annotations

import pytest

from gate.analysis.remedies import too_noisy_remedy
from gate.render import COMMENT_MARKER, RenderContext, render
from gate.render.filters import md_escape
from tests.fakes import analyses
from tests.unit.mdcheck import split_cells, tables


def test_comment_headline_and_attention_table() -> None:
    text = render(analyses.mixed(), "comment")
    lines = text.splitlines()
    assert lines[0] == COMMENT_MARKER
    assert "fail" in lines[1] and "2 regressions" in lines[1]
    attention = tables(text)[0]
    names = [split_cells(row)[1].strip() for row in attention[2:]]
    assert names == ["`parse`", "`alloc_small`", "`query`", "`throughput`"]  # regressions first
    assert "12.3 ms" in attention[2] and "14.8 ms" in attention[2] and "minimal 2×3×1" in attention[2]
    details = text[text.index("<details>") : text.index("</details>")]
    assert "`render`" in details and "`parse`" not in details
    assert "reset state between benchmarks" in text  # the carry-over warning's action


def test_comment_pass_has_no_attention_table() -> None:
    text = render(analyses.all_unchanged(), "comment")
    assert "pass" in text.splitlines()[1]
    assert "Nothing needs attention" in text
    assert "Expected slowdown" not in text


def test_context_decision_accept_and_links() -> None:
    a = analyses.mixed()
    accepted = render(a, "comment", RenderContext(decision="pass", accepted=True, accept_label="perf-ok"))
    assert "Performance gate: **pass**" in accepted
    assert "Accepted" in accepted and "`perf-ok`" in accepted
    assert "Expected slowdown" not in accepted
    plain = render(a, "comment", RenderContext(accept_label="perf-ok", rerun_hint="comment /rerun-perf"))
    assert "Add the `perf-ok` label" in plain
    assert "comment /rerun-perf" in plain
    assert "](" not in plain  # no URLs given → no links
    linked = render(
        a, "comment", RenderContext(run_url="https://github.com/o/r/actions/runs/1", report_url="r.html")
    )
    assert "[workflow run](https://github.com/o/r/actions/runs/1)" in linked
    assert "[HTML report with plots](r.html)" in linked


@pytest.mark.parametrize(
    ("scenario", "decision", "phrase"),
    [
        ("mixed", "pass", "2 regressions, 1 inconclusive — not failing the gate"),
        ("mixed", "fail", "2 regressions, 1 inconclusive"),
        ("failures", "inconclusive", "1 regression, 2 failed, 1 inconclusive — cannot tell yet"),
        ("inconclusive_heavy", "fail", "6 inconclusive"),
        ("all_unchanged", "pass", "no regressions in 5 benchmarks"),
    ],
)
def test_headline_follows_the_decision(scenario: str, decision: str, phrase: str) -> None:
    text = render(analyses.SCENARIOS[scenario](), "comment", RenderContext(decision=decision))
    assert text.splitlines()[1].endswith(f"**{decision}** · {phrase}")


def test_javascript_urls_are_not_linked() -> None:
    text = render(analyses.mixed(), "comment", RenderContext(run_url="javascript:alert(1)"))
    assert "javascript" not in text


def test_comment_merges_warnings_with_the_same_action() -> None:
    a = analyses.all_unchanged()
    for i, b in enumerate(a["benchmarks"]):
        b["warnings"] = [
            {"code": "unstable", "message": f"{b['benchmark']} is noisy ({i})", "action": "quiet it"}
        ]
    names = [f"extra{i}" for i in range(5)]
    a = analyses.analysis(
        a["benchmarks"]
        + [
            analyses.benchmark(n, warnings=[{"code": "unstable", "message": "m", "action": "quiet it"}])
            for n in names
        ]
    )
    text = render(a, "comment")
    lines = [line for line in text.splitlines() if line.endswith("→ **do:** quiet it")]
    assert len(lines) == 1
    assert "and 4 more: " in lines[0] and ": 10 warnings like “" in lines[0]
    summary = render(a, "summary")
    # the summary keeps every warning, below the action they share
    assert summary.count("- **do:** quiet it — for these 10:") == 1 and "→ **do:**" not in summary
    assert len([line for line in summary.splitlines() if line.startswith("  - `")]) == 10


def test_local_comment_points_to_local_commands_not_to_the_workflow() -> None:
    # hostile_names has more warnings than the comment lists: "… and N more" says where the rest is
    github = render(analyses.hostile_names(), "comment", RenderContext())
    assert "more in the job summary." in github and "re-run the workflow" in github
    local = render(analyses.hostile_names(), "comment", RenderContext(local=True))
    assert "job summary" not in local and "workflow" not in local
    assert "more: see `ordertrap-gate report --format summary` or the HTML report (`--format html`)." in local
    assert "**Rerun:** run `ordertrap-gate run` again with a new `--out`" in local
    summary = render(analyses.hostile_names(), "summary", RenderContext(local=True))
    assert "re-run the workflow" not in summary and "`ordertrap-gate run` again with a new `--out`" in summary
    # a hint given by the caller still wins
    assert "comment /rerun-perf." in render(
        analyses.hostile_names(), "comment", RenderContext(local=True, rerun_hint="comment /rerun-perf")
    )


@pytest.mark.parametrize(("fmt", "limit"), [("comment", 300), ("summary", 1000)])
def test_a_long_reason_keeps_its_fix_whole(fmt: str, limit: int) -> None:
    # the longest fix the analysis writes, after a message quoting a long framework error
    fix = too_noisy_remedy()
    error = "panic: " + "frame " * 300
    message = f"every trial failed (error: {error}); the change cannot be told"
    a = analyses.analysis(
        [analyses.benchmark("crashes", "failed", n_failed_head=15, reason=f"{message} — {fix}")]
    )
    line = next(x for x in render(a, fmt).splitlines() if "`crashes`" in x and "panic" in x)
    arrow = " → " if fmt == "comment" else " → **next:** "
    assert line.endswith(arrow + md_escape(fix))  # the fix, whole, as the one next step
    assert "every trial failed (error: panic: frame" in line and "the change cannot be told" in line
    assert "…" in line and len(line) < limit + len(md_escape(fix)) + 40
