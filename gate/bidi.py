"""Bidirectional control characters in untrusted text are shown, not obeyed.

A benchmark name, unit or message comes from the code under test. A right-to-left override
(U+202E) or isolate in it reorders what a person sees: ``"fast\\u202eesolc"`` displays as
``fastclose``, and a name can be made to look like another one in the PR comment, the job summary,
the HTML report or a terminal ("Trojan Source", N. Boucher and R. Anderson, 2021; CVE-2021-42574).
Every place that shows such text to a person passes it through :func:`show_bidi`, which replaces
each character of Unicode's ``Bidi_Control`` property (PropList.txt: U+061C, U+200E, U+200F,
U+202A–U+202E, U+2066–U+2069) by a visible ``<U+202E>``. Data files (trials.csv,
analysis.json, calibration.json) keep the raw name, so versions and runs still match it.

What the CLI prints also shows the other control characters (:func:`show_controls`): C0 except
``\\n`` and ``\\t``, DEL and C1 (U+0080–U+009F). ESC (U+001B) and CSI (U+009B) start ANSI/OSC
sequences (ECMA-48 §5.3-5.4; xterm "Control Sequences") that recolour or hide text, move the
cursor, retitle the window or write hyperlinks; a carriage return (``\\r``) or backspace lets a
name overwrite the verdict printed before it. GitHub's log viewer interprets ANSI colours too, so
they are shown in a pipe as well as on a TTY. The gate's own lines contain none of them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_SHOWN = {ord(c): f"<U+{ord(c):04X}>" for c in BIDI_CONTROLS}
# C0 except \t and \n, DEL, C1; a \r directly before \n is a Windows line end, harmless.
TERMINAL_CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n")
_ANY_CONTROL = re.compile(f"[{re.escape(TERMINAL_CONTROLS)}{BIDI_CONTROLS}]")
_TERMINAL = re.compile(f"\r(?!\n)|[{re.escape(TERMINAL_CONTROLS.replace(chr(13), ''))}{BIDI_CONTROLS}]")


def show_bidi(text: str) -> str:
    """``text`` with every bidirectional control character written as ``<U+XXXX>``."""
    if text.isascii() or not _BIDI.search(text):  # isascii: the common case, in C at memory speed
        return text
    return text.translate(_SHOWN)


def show_controls(text: str) -> str:
    """``text`` with every control character that a terminal obeys (:data:`TERMINAL_CONTROLS`,
    except ``\\r`` directly before ``\\n``) and every bidirectional control written as ``<U+XXXX>``."""
    if not _ANY_CONTROL.search(text):  # the common case: one scan of a character class, in C
        return text
    return _TERMINAL.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


_LINE_BREAKS = {ord("\t"): "<U+0009>", ord("\n"): "<U+000A>"}


def show_controls_on_one_line(text: str) -> str:
    """:func:`show_controls`, with tabs and newlines shown too, so the text stays on one line (a
    newline would start a line a log reader such as the GitHub runner parses as a command). For a
    short untrusted label printed within a line, e.g. a version name."""
    return show_controls(text.translate(_LINE_BREAKS))


class VisibleText:
    """A text stream that writes control characters visibly (:func:`show_controls`). Each control
    is one code point, so a write can be converted on its own (a ``\\r`` ending one write is shown:
    the next write might not start with ``\\n``)."""

    def __init__(self, underlying: TextIO) -> None:
        self.underlying = underlying

    def write(self, text: str) -> int:
        self.underlying.write(show_controls(text))
        return len(text)

    def flush(self) -> None:
        self.underlying.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, ...
        return getattr(self.underlying, name)


@contextmanager
def stdio_through(wrap: Callable[[TextIO], Any], kind: type) -> Iterator[None]:
    """sys.stdout and sys.stderr written through ``wrap`` for the duration; already wrapped in
    ``kind`` (a nested use), they stay as they are."""
    if isinstance(sys.stdout, kind):
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = wrap(sys.stdout), wrap(sys.stderr)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved


@contextmanager
def visible_output() -> Iterator[None]:
    """Route sys.stdout and sys.stderr through :class:`VisibleText` for the duration. JSON the
    gate writes to stdout (``calibrate --out -``, ``history changes``) passes unchanged: its
    encoder escapes C0, C1 and non-ASCII, and :func:`json_for_terminal` escapes DEL."""
    with stdio_through(VisibleText, VisibleText):
        yield


def json_for_terminal(text: str) -> str:
    """JSON text with DEL written ``\\u007f``: the same value (RFC 8259 §7: a raw DEL can only be
    inside a string, where any character may be escaped), but nothing for :class:`VisibleText`
    to change, unlike a raw DEL, which Python's encoder leaves as it is (it is ASCII)."""
    return text.replace("\x7f", "\\u007f")
