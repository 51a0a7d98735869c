"""GitHub's size limits, enforced after rendering: the comment's 65,536 characters and the job
summary's 1 MiB, cut by rows with what was left out counted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gate.render import COMMENT_LIMIT, COMMENT_MARKER, SUMMARY_LIMIT, RenderContext, render
from tests.fakes import analyses
from tests.unit.mdcheck import split_cells, tables


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


def test_local_comment_of_5000_benchmarks_says_which_command_shows_the_rest(large: dict) -> None:
    text = render(large, "comment", RenderContext(local=True))
    assert re.search(r"\d+ of 5000 benchmarks are not shown", text)
    assert "`ordertrap-gate report --format summary` shows the full table." in text
    assert "job summary" not in text
