"""Untrusted text the renderers must neutralise beyond Markdown/HTML escaping: link targets that
a browser reads as another scheme, and bidirectional control characters in names."""

from __future__ import annotations

import re

import pytest

from gate.render import RenderContext, render
from gate.render.filters import make_filters, safe_url
from tests.fakes import analyses

# Browsers strip leading C0 controls/spaces and remove tabs and newlines before reading the
# scheme (WHATWG URL Standard, basic URL parser): each of these is a javascript: URL.
SCHEME_TRICKS = [
    "\x01javascript:alert(1)",
    "\x00javascript:alert(1)",
    "\x1f \x0bjavascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "javascript\r:alert(1)",
    "\x7fjavascript:alert(1)",
    "\x85javascript:alert(1)",
    " \x0cDATA:text/html,<b>x</b>",
]


@pytest.mark.parametrize("url", SCHEME_TRICKS)
def test_control_characters_cannot_hide_a_scheme(url):
    assert safe_url(url) == "#"
    assert make_filters("md")["url"](url) == "#"
    assert make_filters("html")["url"](url) == "#"


def test_control_characters_are_removed_from_an_allowed_link():
    assert safe_url("https://example.com/\x01run\t/1\n") == "https://example.com/run/1"


def test_a_markdown_link_cannot_spell_its_scheme_with_an_entity():
    # CommonMark decodes entity references in link destinations: "&#106;" would become "j"
    assert make_filters("md")["url"]("&#106;avascript:alert(1)") == "&amp;#106;avascript:alert%281%29"
    assert make_filters("md")["url"]("https://x/?a=1&b=2") == "https://x/?a=1&amp;b=2"


@pytest.mark.parametrize("fmt", ["comment", "summary", "html"])
def test_rendered_links_use_the_filtered_target(fmt):
    ctx = RenderContext(run_url="\x01javascript:alert(document.domain)", report_url="java\tscript:alert(2)")
    text = render(analyses.mixed(), fmt, ctx)
    assert not re.search(r"java\W*script\s*:", text, re.IGNORECASE)
    assert ("(#)" in text) if fmt != "html" else ('href="#"' in text)


# ---- bidirectional controls ---------------------------------------------------------------------

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _bidi_analysis() -> dict:
    names = [f"fast{c}esolc" for c in BIDI]
    benches = [
        analyses.benchmark(
            name,
            ("regression", "inconclusive", "unchanged")[i % 3],
            change_pct=(8.0, 3.5, 0.1)[i % 3],
            unit="ms\u202e",
            reason=f"reason for {name}",
            warnings=[{"code": "carryover", "message": f"after {name}", "action": f"look at {name}"}],
            seed=i,
        )
        for i, name in enumerate(names)
    ]
    return analyses.analysis(
        benches,
        base="main\u202e",
        head="HEAD\u2067x",
        warnings=[{"code": "x", "message": "suite \u202ewarning", "action": "act \u2066now"}],
    )


@pytest.mark.parametrize("fmt", ["comment", "summary", "html"])
def test_bidi_controls_are_shown_visibly_in_every_report(fmt):
    text = render(_bidi_analysis(), fmt, RenderContext())
    assert not set(text) & set(BIDI), sorted({f"U+{ord(c):04X}" for c in set(text) & set(BIDI)})
    for c in BIDI:
        shown = f"U+{ord(c):04X}"
        assert f"&lt;{shown}&gt;" in text or f"<{shown}>" in text, shown
