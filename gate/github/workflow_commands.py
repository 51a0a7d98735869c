"""The one module that writes GitHub Actions workflow commands.

Everything that reaches the runner's stdout as a workflow command goes through here, escaped as
the runner's own toolkit does (actions/toolkit ``command.ts``: ``escapeData``/``escapeProperty``),
so a benchmark name or message cannot smuggle in a second command. Untrusted output (benchmark
stdout/stderr) is printed between ``::stop-commands::TOKEN`` and ``::TOKEN::`` with a fresh
random token, which makes the runner ignore any ``::`` command inside it
(docs.github.com, "Workflow commands for GitHub Actions", Stopping and starting workflow commands).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TextIO


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
    print(command(name, message, properties), file=stream or sys.stdout, flush=True)


@contextmanager
def stop_commands(stream: TextIO | None = None) -> Iterator[None]:
    """Fence untrusted output: nothing printed inside can issue a workflow command."""
    out = stream or sys.stdout
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", file=out, flush=True)
    try:
        yield
    finally:
        print(f"::{token}::", file=out, flush=True)


def print_untrusted(text: str, stream: TextIO | None = None) -> None:
    """Print benchmark output so the runner treats it as plain text."""
    out = stream or sys.stdout
    with stop_commands(out):
        out.write(text if text.endswith("\n") or not text else text + "\n")
        out.flush()


@contextmanager
def group(title: str, stream: TextIO | None = None) -> Iterator[None]:
    out = stream or sys.stdout
    print(f"::group::{escape_data(title)}", file=out, flush=True)
    try:
        yield
    finally:
        print("::endgroup::", file=out, flush=True)
