"""The one module that writes GitHub Actions workflow commands.

Everything that reaches the runner's stdout as a workflow command goes through here, escaped as
the runner's own toolkit does (actions/toolkit ``command.ts``: ``escapeData``/``escapeProperty``),
so a benchmark name or message cannot smuggle in a second command. Untrusted output (benchmark
stdout/stderr) is printed between ``::stop-commands::TOKEN`` and ``::TOKEN::`` with a fresh
random token, which makes the runner ignore any ``::`` command inside it
(docs.github.com, "Workflow commands for GitHub Actions", Stopping and starting workflow commands).
The fence and ``::group::`` lines are written only on GitHub Actions (:func:`on_github`): in a
terminal there is no runner to stop, and the lines would only bury the output they frame.

Everything else the gate prints (progress lines, errors, warnings, tables: all may quote a
benchmark name or a framework's message) goes through :class:`InertText` while the gate runs on
GitHub (:func:`inert_output`): the runner reads a ``::`` command only at the start of a line, but
the older ``##[command]`` form anywhere in one (actions/runner ``ActionCommand.TryParse``), so a
zero-width space is put inside each of them. Only this module writes past that filter.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

from gate.bidi import stdio_through

ZERO_WIDTH_SPACE = "\u200b"
# "##[" anywhere; "::" at a line start (after blanks: the runner trims the line first). The runner
# splits lines at "\r" as well as "\n".
_COMMAND_START = re.compile(r"##\[|(?<=[\n\r])[^\S\n\r]*::")
_CONTEXT_LINE = 64  # a line tail this short is kept whole as context for the next write


class InertText:
    """A text stream that cannot issue a workflow command: a zero-width space goes inside every
    ``##[`` and every line-leading ``::``, also when one is split across two writes."""

    def __init__(self, underlying: TextIO) -> None:
        self.underlying = underlying
        self._context = "\n"  # the end of what was written: the current line if short, else 2 chars

    def write(self, text: str) -> int:
        if not text:
            return 0
        full = self._context + text
        base = len(self._context)
        # between the two "#" or the two ":"; a sequence begun in the previous write is cut where
        # this write starts (still inside it); one that ended there was cut then
        cuts = sorted(
            {
                max(m.end() - 1 if m.group().endswith("::") else m.start() + 1, base)
                for m in _COMMAND_START.finditer(full)
                if m.end() > base
            }
        )
        pieces, last = [], base
        for cut in cuts:
            pieces += [full[last:cut], ZERO_WIDTH_SPACE]
            last = cut
        pieces.append(full[last:])
        self.underlying.write("".join(pieces))
        brk = max(full.rfind("\n"), full.rfind("\r"))
        tail = full[brk + 1 :]
        if brk < 0:
            self._context = full[-2:]
        elif len(tail) <= _CONTEXT_LINE:
            self._context = full[brk:]
        elif not tail.rstrip(":").strip():  # a long blank line start: keep it a line start
            self._context = full[brk] + tail[-3:]
        else:
            self._context = full[-2:]
        return len(text)

    def flush(self) -> None:
        self.underlying.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, ...
        return getattr(self.underlying, name)


def on_github(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the output goes to a GitHub Actions runner: the runner sets ``GITHUB_ACTIONS`` to
    ``true`` for every step (docs.github.com, "Variables", Default environment variables)."""
    return (environ if environ is not None else os.environ).get("GITHUB_ACTIONS") == "true"


def _raw(stream: TextIO | None) -> TextIO:
    """The stream below any :class:`InertText`: only this module's own commands are written there."""
    out = stream or sys.stdout
    return out.underlying if isinstance(out, InertText) else out


@contextmanager
def inert_output(environ: Mapping[str, str] | None = None) -> Iterator[None]:
    """On GitHub Actions, route sys.stdout and sys.stderr through :class:`InertText` (elsewhere,
    print as is: there is no runner to fool)."""
    if not on_github(environ):
        yield
        return
    with stdio_through(InertText, InertText):
        yield


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str = "", properties: Mapping[str, object] | None = None) -> str:
    """Format one workflow command line, e.g. ``::error title=x::message``."""
    props = ""
    if properties:
        parts = [
            f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None
        ]
        if parts:
            props = " " + ",".join(parts)
    return f"::{name}{props}::{escape_data(message)}"


def emit(
    name: str, message: str = "", properties: Mapping[str, object] | None = None, stream: TextIO | None = None
) -> None:
    print(command(name, message, properties), file=_raw(stream), flush=True)


@contextmanager
def stop_commands(stream: TextIO | None = None) -> Iterator[None]:
    """Fence untrusted output: nothing printed inside can issue a workflow command. Off GitHub
    Actions nothing reads workflow commands, so nothing is printed around the output."""
    out = _raw(stream)
    if not on_github():
        yield
        return
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", file=out, flush=True)
    try:
        yield
    finally:
        print(f"::{token}::", file=out, flush=True)


def print_untrusted(text: str, stream: TextIO | None = None) -> None:
    """Print benchmark output so the runner treats it as plain text."""
    out = _raw(stream)
    with stop_commands(out):
        out.write(text if text.endswith("\n") or not text else text + "\n")
        out.flush()


@contextmanager
def group(title: str, stream: TextIO | None = None) -> Iterator[None]:
    """A collapsible group in the GitHub log; off GitHub Actions the output is printed as is."""
    out = _raw(stream)
    if not on_github():
        yield
        return
    print(f"::group::{escape_data(title)}", file=out, flush=True)
    try:
        yield
    finally:
        print("::endgroup::", file=out, flush=True)
