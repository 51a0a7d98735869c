"""Bidirectional control characters in untrusted text are shown, not obeyed.

A benchmark name, unit or message comes from the code under test. A right-to-left override
(U+202E) or isolate in it reorders what a person sees: ``"fast\\u202eesolc"`` displays as
``fastclose``, and a name can be made to look like another one in the PR comment, the job summary,
the HTML report or a terminal ("Trojan Source", N. Boucher and R. Anderson, 2021; CVE-2021-42574).
Every place that shows such text to a person passes it through :func:`show_bidi`, which replaces
each character of Unicode's ``Bidi_Control`` property (PropList.txt: U+061C, U+200E, U+200F,
U+202A–U+202E, U+2066–U+2069) by a visible ``<U+202E>``. Data files (trials.csv,
analysis.json, calibration.json) keep the raw name, so versions and runs still match it.
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


def show_bidi(text: str) -> str:
    """``text`` with every bidirectional control character written as ``<U+XXXX>``."""
    if text.isascii() or not _BIDI.search(text):  # isascii: the common case, in C at memory speed
        return text
    return text.translate(_SHOWN)


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def show_controls(text: str) -> str:
    """``text`` on one line with nothing a terminal obeys: C0/C1 control characters (ESC starts
    a colour or cursor sequence, a newline or carriage return would start a line a log reader
    such as the GitHub runner parses as a command) and bidirectional controls are written as
    ``<U+XXXX>``. For a short untrusted label printed within a line, e.g. a version name."""
    return show_bidi(_CONTROLS.sub(lambda m: f"<U+{ord(m.group()):04X}>", text))


class VisibleText:
    """A text stream that writes bidirectional controls visibly (:func:`show_bidi`). Each control
    is one code point, so a write can be converted on its own."""

    def __init__(self, underlying: TextIO) -> None:
        self.underlying = underlying

    def write(self, text: str) -> int:
        self.underlying.write(show_bidi(text))
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
    """Route sys.stdout and sys.stderr through :class:`VisibleText` for the duration. What the
    gate writes to stdout as data (``calibrate --out -``: JSON, whose encoder escapes non-ASCII;
    ``report``: already shown visibly) holds no raw control to change."""
    with stdio_through(VisibleText, VisibleText):
        yield
