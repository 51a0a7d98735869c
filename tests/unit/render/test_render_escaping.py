"""Hostile names, units and messages are shown literally and inertly."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from gate.render import COMMENT_MARKER, RenderContext, render
from gate.render.filters import ZWSP, md_code, md_escape, shorten_middle
from tests.fakes.analyses import HOSTILE, hostile_names
from tests.unit.mdcheck import split_cells, strip_code_spans, tables

ALLOWED_TAGS = {"details", "/details", "summary", "/summary", "sub", "/sub"}


@pytest.fixture(scope="module")
def markdown() -> dict[str, str]:
    analysis = hostile_names()
    return {fmt: render(analysis, fmt, RenderContext()) for fmt in ("comment", "summary")}


# ---- unit: the two Markdown escapes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a|b", "a\\|b"),
        ("`x`", "\\`x\\`"),
        ("<b>&", "&lt;b&gt;&amp;"),
        ("@octocat", f"@{ZWSP}octocat"),
        ("fixes #123", f"fixes #{ZWSP}123"),
        ("GH-7", f"GH-{ZWSP}7"),
        ("**b** _i_ ~s~", "\\*\\*b\\*\\* \\_i\\_ \\~s\\~"),
        ("[l](u) ![i](u)", "\\[l\\](u) \\!\\[i\\](u)"),
        ("see https://x.example", f"see https:{ZWSP}//x.example"),
        ("$x$", "\\$x\\$"),
        (":smile:", f":{ZWSP}smile:"),
        ("a\nb\r\nc", "a b c"),
        ("12:30:00", "12:30:00"),
        ("plain_name", "plain\\_name"),
    ],
)
def test_md_escape(raw: str, escaped: str) -> None:
    assert md_escape(raw) == escaped


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("parse", "`parse`"),
        ("a|b", "`a\\|b`"),
        ("a`b", "``a`b``"),
        ("`x`", "`` `x` ``"),
        ("x``y", "```x``y```"),
        ("a\\|b", "a\\\\\\|b"),  # cannot be a code span inside a table: escaped text instead
    ],
)
def test_md_code_in_table(raw: str, code: str) -> None:
    assert md_code(raw) == code


def test_md_code_outside_table_keeps_pipes() -> None:
    assert md_code("a|b", table=False) == "`a|b`"


# ---- the rendered comment and summary ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["comment", "summary"])
def test_tables_keep_their_shape(markdown: dict[str, str], fmt: str) -> None:
    found = tables(markdown[fmt])
    assert found, "the hostile analysis renders at least one table"
    for table in found:
        width = len(split_cells(table[0]))
        for row in table:
            assert len(split_cells(row)) == width, row


@pytest.mark.parametrize("fmt", ["comment", "summary"])
def test_no_markup_outside_code_spans(markdown: dict[str, str], fmt: str) -> None:
    text = strip_code_spans(markdown[fmt])
    if fmt == "comment":
        assert text.startswith(COMMENT_MARKER)
        text = text[len(COMMENT_MARKER) :]
    assert COMMENT_MARKER not in text
    tags = {m.lower() for m in re.findall(r"<(/?[a-zA-Z!][\w-]*)", text)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    shown = html.unescape(text)  # what GitHub's mention/reference filters see
    assert not re.search(r"@\w", shown), "an @mention would notify someone"
    assert not re.search(r"#\d", shown), "#123 would link an issue"
    assert not re.search(r"GH-\d", shown)
    assert not re.search(r"(?<!\\)\]\(", text.replace("](https://github.com/example", "")), "a link"
    assert "://" not in re.sub(r"\]\(https?://[^)]*\)", "]()", text), "a bare URL would autolink"


@pytest.mark.parametrize(("fmt", "width"), [("comment", 80), ("summary", 200)])
def test_every_hostile_name_is_shown(markdown: dict[str, str], fmt: str, width: int) -> None:
    for name in HOSTILE:
        shown = shorten_middle(name, width)
        assert md_code(shown) in markdown[fmt] or md_code(shown, table=False) in markdown[fmt], name


def test_long_names_are_cut_in_the_comment(markdown: dict[str, str]) -> None:
    assert "x" * 400 not in markdown["comment"]
    assert "x" * 39 + "…" + "x" * 40 + "`" in markdown["comment"]  # cut in the middle
    rows = [row for table in tables(markdown["summary"]) for row in table]
    assert not [row for row in rows if "x" * 200 in row]  # the summary table cuts names at 200


# ---- HTML ----------------------------------------------------------------------------------------


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_shows_hostile_text_as_text() -> None:
    page = render(hostile_names(), "html", RenderContext(max_plots=3))
    parser = _Collector()
    parser.feed(page)
    assert parser.tags.count("script") == 2  # ours: the error hook and the filter/sort code
    assert "img" not in parser.tags or all(
        v and v.startswith("data:image/png;base64,") for k, v in parser.attrs if k == "src"
    )
    assert not [k for k, _ in parser.attrs if k.startswith("on")], "no event-handler attributes"
    text = "".join(parser.text)
    for name in (
        "<script>alert(1)</script>",
        "</details><img src=x onerror=alert(2)>",
        "a|b|c",
        "@octocat please look",
    ):
        assert name in text
