"""render(): golden files, GitHub limits, the render context, template overrides, input checks."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.files import analysis_json
from gate.render import COMMENT_LIMIT, COMMENT_MARKER, SUMMARY_LIMIT, RenderContext, render
from tests.conftest import FORMATS, GOLDEN_CONTEXT, REPO_ROOT, check_golden, golden_path
from tests.fakes import analyses
from tests.unit.mdcheck import split_cells, tables

# ---- golden files (make golden) --------------------------------------------------------------------


@pytest.mark.parametrize("scenario", sorted(analyses.SCENARIOS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(scenario: str, fmt: str, update_golden: bool) -> None:
    rendered = render(analyses.SCENARIOS[scenario](), fmt, GOLDEN_CONTEXT)  # type: ignore[arg-type]
    check_golden(golden_path(scenario, fmt), rendered, update_golden)


def test_rendering_is_deterministic() -> None:
    a = analyses.order_effects()
    ctx = RenderContext(calibration=analyses.calibration(["alloc_big", "hash"]))
    for fmt in ("comment", "summary", "html"):
        assert render(copy.deepcopy(a), fmt, ctx) == render(copy.deepcopy(a), fmt, ctx)  # type: ignore[arg-type]


def test_render_does_not_modify_the_analysis() -> None:
    a = analyses.mixed()
    before = copy.deepcopy(a)
    for fmt in ("comment", "summary", "html"):
        render(a, fmt)  # type: ignore[arg-type]
    assert a == before


# ---- the comment a reviewer reads ---------------------------------------------------------------------


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


# ---- limits, enforced after rendering --------------------------------------------------------------


@pytest.fixture(scope="module")
def large() -> dict:
    return analyses.large(5000)


def _check_tables(text: str) -> int:
    """Every table keeps its header's width; returns the number of benchmark rows."""
    n = 0
    for table in tables(text):
        width = len(split_cells(table[0]))
        assert re.fullmatch(r"\|[:\-| ]+\|", table[1]), "the delimiter row follows the header"
        for row in table:
            assert len(split_cells(row)) == width
        n += len(table) - 2
    return n


def test_comment_of_5000_benchmarks_is_cut_by_rows(large: dict) -> None:
    text = render(large, "comment", RenderContext(summary_url="https://example.invalid/summary"))
    assert len(text.encode("utf-16-le")) // 2 <= COMMENT_LIMIT  # also fits if GitHub counts UTF-16
    assert text.startswith(COMMENT_MARKER)
    shown = _check_tables(text)
    hidden = int(re.search(r"(\d+) of 5000 benchmarks are not shown", text).group(1))  # type: ignore[union-attr]
    assert shown + hidden == 5000 and hidden > 0
    assert "[Full table in the job summary](https://example.invalid/summary)" in text
    assert text.count("<details>") == text.count("</details>")
    # cutting drops unchanged rows first: every benchmark that needs attention is still listed
    attention = sum(1 for b in large["benchmarks"] if b["verdict"] != "unchanged")
    assert len(tables(text)[0]) - 2 == attention


def test_local_comment_of_5000_benchmarks_says_which_command_shows_the_rest(large: dict) -> None:
    text = render(large, "comment", RenderContext(local=True))
    assert re.search(r"\d+ of 5000 benchmarks are not shown", text)
    assert "`ordertrap-gate report --format summary` shows the full table." in text
    assert "job summary" not in text


def test_summary_lists_all_5000_within_1_mib(large: dict) -> None:
    text = render(large, "summary")
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert _check_tables(text) == 5000
    assert "not shown" not in text


def test_summary_is_cut_by_rows_beyond_1_mib() -> None:
    a = analyses.large(3000)
    for b in a["benchmarks"]:
        b["benchmark"] = b["benchmark"] + "/" + "é" * 190  # 2 bytes per character in UTF-8
    text = render(a, "summary", RenderContext(report_url="https://example.invalid/report.html"))
    assert len(text.encode()) <= SUMMARY_LIMIT
    shown = _check_tables(text)
    hidden = int(re.search(r"(\d+) more benchmarks are not shown", text).group(1))  # type: ignore[union-attr]
    assert shown + hidden == 3000 and hidden > 0


def test_comment_hard_cut_when_even_zero_rows_do_not_fit(tmp_path: Path) -> None:
    # The built-in template caps warnings; a user template that lists them all can still
    # exceed the limit without any table row: the text is then cut at a line, marker kept.
    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}{% block warnings %}'
        "{% for g in v.warning_groups %}{% for w in g.entries %}- {{ w.message }}\n{% endfor %}{% endfor %}"
        "{% endblock %}",
        encoding="utf-8",
    )
    a = analyses.mixed()
    a["warnings"] = [{"code": f"w{i}", "message": "m" * 300 + str(i), "action": ""} for i in range(2000)]
    text = render(a, "comment", RenderContext(template_dir=str(tmp_path)))
    assert len(text) <= COMMENT_LIMIT
    assert text.startswith(COMMENT_MARKER)
    assert text.endswith("(cut at GitHub's comment limit; see the job summary of this workflow run)\n")
    assert all(line == "" or len(line) < 400 for line in text.splitlines())  # whole lines only


# ---- template overrides ------------------------------------------------------------------------------


def test_override_one_block(tmp_path: Path) -> None:
    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}\n{% block time %}CUSTOM TIME {{ v.n_benchmarks }}\n{% endblock %}\n',
        encoding="utf-8",
    )
    text = render(analyses.mixed(), "comment", RenderContext(template_dir=str(tmp_path)))
    assert "CUSTOM TIME 7" in text
    assert "Measured in" not in text
    assert "Performance gate" in text and text.startswith(COMMENT_MARKER)


def test_override_without_marker_gets_the_marker(tmp_path: Path) -> None:
    (tmp_path / "comment.md.j2").write_text("just {{ v.decision }}\n", encoding="utf-8")
    text = render(analyses.mixed(), "comment", RenderContext(template_dir=str(tmp_path)))
    assert text == COMMENT_MARKER + "\njust fail\n"


def test_undefined_value_in_a_template_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "summary.md.j2").write_text("{{ v.no_such_field }}\n", encoding="utf-8")
    with pytest.raises(InputError, match="undefined"):
        render(analyses.mixed(), "summary", RenderContext(template_dir=str(tmp_path)))


# ---- input checks ------------------------------------------------------------------------------------


def test_newer_schema_says_upgrade() -> None:
    a = analyses.mixed()
    a["schema_version"] = 99
    with pytest.raises(InputError) as err:
        analysis_json.validate(a)
    assert "upgrade ordertrap-gate" in err.value.fix


@pytest.mark.parametrize(
    "data",
    [[], {"schema_version": 1}, {"schema_version": "1", "summary": {}, "benchmarks": []}, {"benchmarks": []}],
)
def test_not_an_analysis(data: object) -> None:
    with pytest.raises(InputError) as err:
        analysis_json.validate(data)
    assert "ordertrap-gate analyze" in err.value.fix


def test_reading_a_missing_or_non_json_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        analysis_json.read(tmp_path / "missing.json")
    bad = tmp_path / "trials.csv"
    bad.write_text("trial,benchmark\n1,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        analysis_json.read(bad)


def test_unknown_format() -> None:
    with pytest.raises(InputError, match="comment, summary, html"):
        render(analyses.mixed(), "pdf")  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", ["mixed", "failures", "order_effects"])
def test_fields_that_may_be_null_render_when_null(scenario: str) -> None:
    """Every field the contract allows to be null is null, and the analysis details kept as
    written are empty or partial; all three formats still render."""
    a = analyses.SCENARIOS[scenario]()
    for b in a["benchmarks"]:
        b["change_ci"] = None
        b["change_pct"] = None
        b["base"]["ci"] = None
        b["base"]["estimate"] = None
        b["stability"]["head"] = {"cv": None, "rmad": None, "rciw": None}
        for key in ("config", "order", "carryover", "similarity"):
            b[key] = None  # type: ignore[literal-required]
    for key in ("order_check", "carryover_matrix", "similarity", "environment"):
        a[key] = None  # type: ignore[literal-required]
    a["summary"]["time"] = None
    a["benchmarks"][-1]["carryover"] = {"predecessors": [{"predecessor": "x"}]}
    for fmt in ("comment", "summary", "html"):
        text = render(a, fmt)  # type: ignore[arg-type]
        assert a["benchmarks"][0]["benchmark"] in text


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


def test_update_golden_rewrites_a_stale_golden_file_and_the_check_then_passes(tmp_path: Path) -> None:
    path = tmp_path / "golden" / "x.comment.md"
    with pytest.raises(AssertionError, match="is missing: run `make golden`"):
        check_golden(path, "new\n", update=False)
    path.parent.mkdir()
    path.write_text("old\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"pytest --update-golden"):
        check_golden(path, "new\n", update=False)
    check_golden(path, "new\n", update=True)
    assert path.read_text(encoding="utf-8") == "new\n"
    check_golden(path, "new\n", update=False)


def test_pytest_accepts_the_update_golden_option() -> None:
    """`make golden` runs the golden tests with --update-golden (tests/conftest.py)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "--update-golden",
            "-k",
            "test_golden",
            __file__,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test_golden[" in proc.stdout
