"""What :class:`gate.bidi.VisibleText` lets through to a terminal: text, tabs and line ends as
they are; every other control character and every bidirectional control as ``<U+XXXX>``."""

from __future__ import annotations

import io
import json

import pytest

from gate.bidi import BIDI_CONTROLS, TERMINAL_CONTROLS, VisibleText, json_for_terminal, show_controls


def _through(*writes: str) -> str:
    out = io.StringIO()
    stream = VisibleText(out)
    for text in writes:
        stream.write(text)
    return out.getvalue()


def test_text_tabs_and_line_ends_pass_unchanged() -> None:
    text = "[trial 3/12] elapsed 00:01 ETA 00:03 parse@HEAD\n\tµs ±2 %\r\nnext\n"
    assert _through(text) == text


@pytest.mark.parametrize("char", [*TERMINAL_CONTROLS, *BIDI_CONTROLS])
def test_every_control_is_shown_as_its_code_point(char: str) -> None:
    assert _through(f"a{char}b\n") == f"a<U+{ord(char):04X}>b\n"


def test_the_controls_are_c0_but_tab_and_newline_del_and_c1() -> None:
    assert sorted(map(ord, TERMINAL_CONTROLS)) == [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]


def test_a_carriage_return_is_shown_unless_it_ends_a_line_in_the_same_write() -> None:
    assert _through("verdict: fail\rpass\n") == "verdict: fail<U+000D>pass\n"
    assert _through("name\r", "\n") == "name<U+000D>\n"  # the next write might have been text
    assert show_controls("a\r\r\n") == "a<U+000D>\r\n"


def test_json_printed_to_a_terminal_keeps_its_value_and_has_nothing_to_show() -> None:
    doc = {"benchmarks": [{"name": "del\x7f esc\x1b csi\x9b rlo\u202e"}]}
    text = json_for_terminal(json.dumps(doc, indent=2))
    assert json.loads(text) == doc
    assert show_controls(text) == text
