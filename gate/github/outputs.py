"""Step outputs, the job summary and annotations, written as the runner expects.

* ``GITHUB_OUTPUT``: ``key=value`` lines; a multi-line value uses the heredoc form
  ``key<<DELIM`` … ``DELIM`` with a random delimiter that does not occur in the value
  (actions/toolkit ``file-command.ts`` ``prepareKeyValueMessage``).
* ``GITHUB_STEP_SUMMARY``: Markdown appended to the file (1 MiB per step at most).
* Annotations: at most :data:`MAX_ANNOTATIONS` ``::error::`` lines through
  :mod:`gate.workflow_commands` (GitHub shows 10 error annotations per step).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, TextIO

from gate import workflow_commands
from gate.errors import GitHubError

MAX_ANNOTATIONS: Final = 10
SUMMARY_LIMIT: Final = 1024 * 1024


def format_output(key: str, value: str) -> str:
    if not key or "=" in key or "\n" in key or "<<" in key:
        raise ValueError(f"invalid output name {key!r}")
    if "\n" not in value and "\r" not in value:
        return f"{key}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:  # pragma: no cover - 128 random bits
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{key}<<{delimiter}\n{value}\n{delimiter}\n"


def _append(path: Path, text: str, what: str) -> None:
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise GitHubError(
            f"cannot write the {what} file {path}: {exc.strerror}",
            fix=f"GITHUB_{what.upper().replace(' ', '_')} must name a writable file (the runner sets it); "
            "unset it for a local run",
        ) from exc


def write_outputs(path: Path | None, values: Mapping[str, object]) -> None:
    """Append step outputs; without ``GITHUB_OUTPUT`` (a local run) nothing is written."""
    if path is None:
        return
    text = "".join(format_output(key, "" if value is None else str(value)) for key, value in values.items())
    _append(path, text, "output")


def write_summary(path: Path | None, markdown: str) -> None:
    if path is None:
        return
    if len(markdown.encode("utf-8")) > SUMMARY_LIMIT:
        cut = markdown.encode("utf-8")[: SUMMARY_LIMIT - 200].decode("utf-8", "ignore")
        markdown = cut + "\n\n_Summary truncated at GitHub's 1 MiB limit; the HTML report has everything._\n"
    _append(path, markdown if markdown.endswith("\n") else markdown + "\n", "step summary")


def annotate_errors(
    messages: Sequence[tuple[str, str]], stream: TextIO | None = None, limit: int = MAX_ANNOTATIONS
) -> int:
    """Emit ``(title, message)`` pairs as ``::error::``; past ``limit`` the last one counts the rest."""
    shown = list(messages)
    if len(shown) > limit:
        rest = len(shown) - (limit - 1)
        shown = [*shown[: limit - 1], ("more regressions", f"{rest} more regressions: see the job summary")]
    for title, message in shown:
        workflow_commands.emit("error", message, {"title": title}, stream=stream)
    return len(shown)


def notice(message: str, title: str | None = None, stream: TextIO | None = None) -> None:
    workflow_commands.emit("notice", message, {"title": title} if title else None, stream=stream)


def warning(message: str, title: str | None = None, stream: TextIO | None = None) -> None:
    workflow_commands.emit("warning", message, {"title": title} if title else None, stream=stream)
