"""Long benchmark names are cut in the middle wherever they are shortened (CLI table, comment,
summary, HTML table), so names that differ only at the end stay distinguishable."""

from __future__ import annotations

import html
import re

import pytest

from gate.render import render
from gate.render.terminal import benchmark_table
from tests.fakes import analyses

# Two pytest-benchmark cases that share their first 60 characters, as parametrised tests do.
STEM = "tests/performance/test_strict_unions.py::test_strict_unions_matching_"
NAMES = (STEM + "first_valid_type_of_many[dataclass-with-defaults]", STEM + "last_valid_type_of_many[plain]")


@pytest.mark.parametrize("limit", [3, 10, 40, 41, 80])
def test_shorten_middle_keeps_both_ends_within_the_limit(limit: int) -> None:
    from gate.render.filters import shorten_middle

    name = NAMES[0]
    short = shorten_middle(name, limit)
    assert len(short) == limit and short.count("…") == 1
    head, tail = short.split("…")
    assert name.startswith(head) and name.endswith(tail)
    assert len(tail) >= len(head) >= (limit - 1) // 2


def test_shorten_middle_leaves_short_names_alone() -> None:
    from gate.render.filters import shorten_middle

    assert shorten_middle("BenchmarkSum64/4B", 40) == "BenchmarkSum64/4B"
    assert shorten_middle("x" * 40, 40) == "x" * 40


def _warned(name: str) -> dict:
    return analyses.benchmark(
        name,
        "inconclusive",
        change_pct=3.2,
        warnings=[{"code": "position_drift", "message": "drifts", "action": "add a cool-down"}],
    )


def _analysis(prefix: str = "") -> dict:
    return analyses.analysis([_warned(prefix + n) for n in NAMES])


def test_the_cli_table_shows_the_end_of_each_name() -> None:
    doc = _analysis()
    for b in doc["benchmarks"]:
        b["warnings"] = []
    table = benchmark_table(doc)
    assert "with-defaults]" in table and "of_many[plain]" in table
    assert all(len(line.split(" ")[0]) <= 40 for line in table.splitlines()[1:3])


@pytest.mark.parametrize(("fmt", "prefix"), [("comment", ""), ("summary", "sub/" * 40)])
def test_markdown_table_notes_and_warnings_show_the_end_of_each_name(fmt: str, prefix: str) -> None:
    """(The summary shows names of up to 200 characters whole.)"""
    text = render(_analysis(prefix), fmt)  # type: ignore[arg-type]
    for end in ("with-defaults]`", "of_many[plain]`"):
        # in the table, in the "why inconclusive" note and on the warning line
        assert text.count(end) >= 3, (end, text)


def test_html_table_shows_both_ends_and_the_full_name_as_tooltip() -> None:
    page = render(_analysis(), "html")
    cells = re.findall(r'<code class="name" title="([^"]*)">([^<]*)</code>', page)
    assert sorted(html.unescape(title) for title, _ in cells) == sorted(NAMES)
    for title, shown in cells:
        head, tail = html.unescape(shown).split("…")
        assert html.unescape(title).startswith(head) and html.unescape(title).endswith(tail)
        assert tail.endswith("]")
    # the stylesheet no longer cuts the visible end off with an ellipsis
    assert "text-overflow: ellipsis" not in page


# Parametrised node ids that share their file and their last parameter: cut to 40 characters in
# the middle, the first two (and the last two) read the same.
NESTED = "bench/test_attrs_nested.py::"
TWINS = (
    NESTED + "test_unstructure_attrs_nested[UnstructureStrategy.AS_TUPLE-BaseConverter]",
    NESTED + "test_unstruct_attrs_deep_nest[UnstructureStrategy.AS_TUPLE-BaseConverter]",
    NESTED + "test_unstructure_attrs_nested[UnstructureStrategy.AS_DICT-BaseConverter]",
    NESTED + "test_unstruct_attrs_deep_nest[UnstructureStrategy.AS_DICT-BaseConverter]",
)


def test_the_cli_table_tells_names_apart_that_share_both_ends() -> None:
    doc = analyses.analysis([analyses.benchmark(n, "inconclusive", change_pct=1.0) for n in TWINS])
    shown = [line[: line.index(" inconclusive")].rstrip() for line in benchmark_table(doc).splitlines()[1:5]]
    assert len(set(shown)) == len(TWINS), shown
    for name, short in zip([b["benchmark"] for b in doc["benchmarks"]], shown, strict=True):
        head, _, tail = short.partition("…")
        assert name.startswith(head) and name.endswith(tail)
    # the columns after the name stay aligned
    assert len({line.index("inconclusive") for line in benchmark_table(doc).splitlines()[1:5]}) == 1


def test_distinct_width_is_the_narrowest_that_tells_names_apart() -> None:
    from gate.render.filters import distinct_width, shorten_middle

    w = distinct_width(list(TWINS))
    assert len({shorten_middle(n, w) for n in TWINS}) == len(TWINS)
    assert len({shorten_middle(n, w - 1) for n in TWINS}) < len(TWINS)
    assert distinct_width(list(NAMES)) == 40  # names already distinct at 40 keep the usual column
    assert distinct_width(["a", "b"]) == 40


@pytest.mark.parametrize("fmt", ["comment", "html"])
def test_report_tables_tell_names_apart_that_share_both_ends(fmt: str) -> None:
    doc = analyses.analysis([analyses.benchmark(n, "inconclusive", change_pct=1.0) for n in TWINS])
    page = render(doc, fmt)  # type: ignore[arg-type]
    if fmt == "html":
        shown = [
            html.unescape(s) for s in re.findall(r'<code class="name" title="[^"]*">([^<]*)</code>', page)
        ]
    else:
        shown = re.findall(r"^\| 🟡 \| `([^`]*)`", page, flags=re.M)
    assert len(shown) == len(TWINS) and len(set(shown)) == len(TWINS), shown
