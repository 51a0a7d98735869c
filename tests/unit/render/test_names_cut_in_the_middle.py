"""Long benchmark names lose the path they share, then leading path segments, then their middle
wherever they are shortened (CLI table, comment, summary, HTML table: gate/render/names.py), so
names that differ only at the end stay distinguishable."""

from __future__ import annotations

import html
import re

import pytest

from gate.render import render
from gate.render.filters import shorten_middle
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
        full, short = html.unescape(title), html.unescape(shown)
        # the file both share is dropped (a leading …), then the middle of the test's name
        assert short.startswith("…test_strict_unions_") and "performance" not in short
        middle, tail = short[1:].split("…")
        assert middle in full and full.endswith(tail) and tail.endswith("]")
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
        # the file they share is dropped (the leading …), then the middle of the rest
        assert short.startswith("…test_") and "bench/" not in short
        head, _, tail = short[1:].partition("…")
        assert name.startswith(NESTED + head) and name.endswith(tail)
    # the columns after the name stay aligned
    assert len({line.index("inconclusive") for line in benchmark_table(doc).splitlines()[1:5]}) == 1


def test_the_column_is_the_narrowest_that_tells_names_apart() -> None:
    from gate.render.names import column, shorten_all

    # without their shared file the twins are told apart in the usual 40 characters, where a
    # plain middle cut makes pairs of them read the same
    assert column(list(TWINS))[0] == 40
    assert len({shorten_middle(n, 40) for n in TWINS}) < len(TWINS)
    w, shown = column(list(TWINS), 10)
    assert len(set(shown.values())) == len(TWINS) and all(len(s) <= w for s in shown.values())
    assert len(set(shorten_all(TWINS, w - 1).values())) < len(TWINS)
    assert len({shorten_middle(n, w - 1) for n in TWINS}) < len(TWINS)
    assert column(list(NAMES))[0] == 40  # names already distinct at 40 keep the usual column
    assert column(["a", "b"]) == (40, {"a": "a", "b": "b"})


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


# JMH names (gate/adapters/jmh.py): package.Class.method, then one @Param combination each. Cut in
# the middle at the comment's 80 or the HTML table's 44 characters they read
# "org.apache.commons.lang3.StringUtil…ceType=STRING,size=1000": the method, what differs, was gone.
PKG = "org.apache.commons.lang3."
JMH = (
    PKG + "StringUtilsIsMixedCaseBenchmark.isMixedCase:charSequenceType=STRING_BUILDER,size=1000",
    PKG + "StringUtilsIsMixedCaseBenchmark.isMixedCase:charSequenceType=STRING,size=1000",
    PKG + "StringUtilsIsMixedCaseBenchmark.isAllLowerCase:charSequenceType=STRING,size=1000",
    PKG + "CharSequenceUtilsBenchmark.regionMatches:charSequenceType=STRING,size=10",
)


def _method(name: str) -> str:
    return name.split(":")[0].rsplit(".", 1)[1]


@pytest.mark.parametrize("width", [44, 60, 80])
def test_jmh_names_keep_the_method_and_the_parameter_values(width: int) -> None:
    from gate.render.names import column

    w, shown = column(list(JMH), width)
    assert w == width and len(set(shown.values())) == len(JMH)
    for name, short in shown.items():
        assert len(short) <= width and short.startswith("…") and "org.apache" not in short
        assert short[1:].startswith(_method(name)) or short[1:].startswith(name[len(PKG) :].split(".")[0])
        assert _method(name) in short, short
        assert name.endswith(short.rsplit("…", 1)[1])  # the @Param values' end is kept


def test_the_shared_package_goes_first_and_the_class_only_when_needed() -> None:
    from gate.render.names import column, shared_prefix

    assert shared_prefix(JMH) == PKG
    _, shown = column(list(JMH), 80)
    # fits once the package is gone: the class stays
    assert shown[JMH[1]] == "…" + JMH[1][len(PKG) :]
    # does not: the class goes too, the method and the parameters stay whole
    assert shown[JMH[0]] == "…isMixedCase:charSequenceType=STRING_BUILDER,size=1000"


def test_shared_prefix_is_whole_segments_and_never_a_whole_path() -> None:
    from gate.render.names import shared_prefix

    assert shared_prefix(["BenchmarkParse/json/a", "BenchmarkParse/yaml/a"]) == "BenchmarkParse/"
    assert shared_prefix(["BenchmarkParse", "BenchmarkParse/json"]) == ""  # not a whole name
    assert shared_prefix(["pkg.Foo.run:a=1", "pkg.Foo.run:a=2"]) == "pkg.Foo."  # the method stays
    assert shared_prefix(["tests/x.py::test_a[1]", "tests/x.py::test_b[1]"]) == "tests/x.py::"
    assert shared_prefix(["org.a.B.m"]) == ""


def test_the_cli_table_and_the_comment_show_jmh_methods() -> None:
    doc = analyses.analysis([analyses.benchmark(n, "inconclusive", change_pct=1.0) for n in JMH])
    table = benchmark_table(doc)
    comment = render(doc, "comment")
    for name in JMH:
        assert _method(name) in table and _method(name) in comment
    assert "org.apache" not in table and "org.apache" not in comment
