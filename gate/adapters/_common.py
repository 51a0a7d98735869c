"""Helpers shared by the adapters: config specs, regex anchoring, number parsing, timeouts.

Conventions every adapter follows (see README "Benchmark frameworks (adapters)"):

* ``settings`` is the adapter's own table of ``.ordertrap.toml`` (``[go]``, ``[jmh]`` ...); the run
  engine adds ``settings["benchmarks"]`` = the raw ``[[benchmark]]`` list (list of dicts).
* ``env`` passed to the runner holds only the variables an adapter *adds*; the driver merges them
  over its secret-scrubbed environment.
* Every JSON/output file goes into ``version.scratch``, never into the worktree.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gate.adapters.base import BenchmarkSpec, ProcessResult, TrialFailure, VersionContext
from gate.errors import ConfigError
from gate.model import TrialStatus

# Keys of a [[benchmark]] entry that map onto BenchmarkSpec fields; every other key goes to options.
_SPEC_FIELDS = ("name", "command", "unit", "higher_is_better")

# A number as people print it (1, -2.5, 3e-07, .5) or a non-finite token (nan, inf) so that
# check_finite can reject it instead of silently skipping to an earlier number.
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?![\d.])|(?:nan|inf(?:inity)?)\b)",
    re.IGNORECASE,
)


def configured_specs(
    settings: Mapping[str, Any],
    adapter: str,
    *,
    need_command: bool,
    default_unit: str = "s",
    default_higher: bool = False,
) -> list[BenchmarkSpec]:
    """The ``[[benchmark]]`` entries as BenchmarkSpecs, validated (names unique, command present)."""
    raw = settings.get("benchmarks") or []
    if not isinstance(raw, list):
        raise ConfigError(
            "[[benchmark]] must be an array of tables",
            "write each benchmark as its own [[benchmark]] table with name = ... and command = ...",
        )
    specs: list[BenchmarkSpec] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, Mapping):
            raise ConfigError(
                f"[[benchmark]] entry {i} is not a table", "write it as [[benchmark]] name = ..."
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"[[benchmark]] entry {i} has no name", 'add name = "..." to it')
        if name in seen:
            raise ConfigError(
                f"benchmark name {name!r} is configured twice", "give every [[benchmark]] a unique name"
            )
        seen.add(name)
        command = entry.get("command")
        if need_command and (not isinstance(command, str) or not command.strip()):
            raise ConfigError(
                f"[[benchmark]] {name!r} has no command (adapter {adapter!r} runs configured commands)",
                'add command = "..." to it',
            )
        unit = entry.get("unit", default_unit)
        hib = entry.get("higher_is_better", default_higher)
        if not isinstance(unit, str) or not isinstance(hib, bool):
            raise ConfigError(
                f"[[benchmark]] {name!r}: unit must be a string and higher_is_better a boolean",
                'write unit = "s" and higher_is_better = false (TOML booleans are unquoted)',
            )
        options = {k: v for k, v in entry.items() if k not in _SPEC_FIELDS}
        specs.append(
            BenchmarkSpec(
                name=name,
                unit=unit,
                higher_is_better=hib,
                command=command if isinstance(command, str) else None,
                options=options,
            )
        )
    return specs


def with_configured(
    discovered: Sequence[BenchmarkSpec],
    settings: Mapping[str, Any],
    adapter: str,
    *,
    unit: str,
    higher: bool = False,
) -> list[BenchmarkSpec]:
    """The discovered benchmarks plus the ``[[benchmark]]`` entries discovery does not list (Go
    sub-benchmarks, a name outside ``include``). For a discovered name the run engine applies the
    entry's ``unit``/``higher_is_better``/options itself."""
    known = {s.name for s in discovered}
    extra = configured_specs(settings, adapter, need_command=False, default_unit=unit, default_higher=higher)
    return [*discovered, *(c for c in extra if c.name not in known)]


def filter_discovered(names: Sequence[str], settings: Mapping[str, Any], adapter: str) -> list[str]:
    """Apply the optional ``include`` regex (Python syntax, ``re.search``) of the adapter table."""
    include = settings.get("include")
    if not include:
        return list(names)
    if not isinstance(include, str):
        raise ConfigError(
            f"[{adapter}] include must be a string regex", f'write [{adapter}] include = "^Parse"'
        )
    try:
        pattern = re.compile(include)
    except re.error as exc:
        raise ConfigError(f"[{adapter}] include is not a valid regex: {exc}", "fix the regex") from exc
    return [n for n in names if pattern.search(n)]


def require_nonempty(names: Sequence[str], adapter: str, where: str) -> None:
    if not names:
        raise ConfigError(
            f"adapter {adapter!r} found no benchmarks in {where}",
            f"check the [{adapter}] table (path/package/binary, include) or list them as [[benchmark]] entries",
        )


def escape_regex(text: str) -> str:
    """Escape the metacharacters shared by RE2 (Go), POSIX ERE (Google Benchmark) and Java regex.

    Python's ``re.escape`` also escapes spaces and ``-``, which Go's RE2 rejects (``\\ `` is not
    a valid escape there), so use a narrow, portable set."""
    return re.sub(r"([\\.^$|?*+()\[\]{}])", r"\\\1", text)


def anchored(name: str) -> str:
    return f"^{escape_regex(name)}$"


# A value written with a thousands separator ("1,234.5") or a decimal comma ("12,5"): read
# naively, the last number would be 234.5 or 5. Which one is meant cannot always be told ("1,234"),
# so such a value is refused, not guessed. Comma-separated lists ("0.5,1.5", "10,20,30") are not.
_GROUPED_VALUE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+,\d+")


class AmbiguousNumber(ValueError):
    """The last number is part of ``1,234.5`` or ``12,5``; the message is that text."""


def last_number(text: str) -> float | None:
    """The last number printed (``nan``/``inf`` included, so that they are rejected, not skipped).
    Raises :class:`AmbiguousNumber` when it ends a grouped or decimal-comma value."""
    match = None
    for match in _NUMBER.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    if match is None:
        return None
    start = match.start()
    while start > 0 and text[start - 1] in "0123456789,.":
        start -= 1
    if start < match.start() and _GROUPED_VALUE.fullmatch(text, start, match.end()):
        raise AmbiguousNumber(text[start : match.end()])
    return float(match.group())


def scratch_file(version: VersionContext, stem: str, suffix: str) -> Path:
    """A fresh file name in the version's scratch dir (created if needed)."""
    version.scratch.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)[:60]
    return version.scratch / f"{safe}-{uuid.uuid4().hex[:12]}{suffix}"


def positive_int(settings: Mapping[str, Any], key: str, adapter: str, default: int | None) -> int | None:
    value = settings.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"[{adapter}] {key} must be a positive integer, got {value!r}", f"write [{adapter}] {key} = 1"
        )
    return value


def string_setting(settings: Mapping[str, Any], key: str, adapter: str, default: str) -> str:
    value = settings.get(key, default)
    if not isinstance(value, str):
        raise ConfigError(
            f"[{adapter}] {key} must be a string, got {value!r}", f'write [{adapter}] {key} = "{default}"'
        )
    return value


def string_list(settings: Mapping[str, Any], key: str, adapter: str) -> list[str]:
    value = settings.get(key, [])
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"[{adapter}] {key} must be a list of strings, got {value!r}",
            f'write [{adapter}] {key} = ["--flag"]',
        )
    return list(value)


def read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what} wrote no output file {path.name}; check that the benchmark ran"
        ) from None


def one_match(names: Sequence[str], requested: str, what: str) -> None:
    """Exactly one benchmark must have run: 0 = wrong name, >1 = an unanchored/parent filter."""
    distinct = sorted(set(names))
    if not distinct:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: no benchmark matched {requested!r}; check the name (it may be missing in this version)",
        )
    if len(distinct) > 1:
        shown = ", ".join(distinct[:3]) + (" ..." if len(distinct) > 3 else "")
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: {len(distinct)} benchmarks matched {requested!r} ({shown}); "
            "name exactly one (e.g. the full sub-benchmark name) so the filter matches one",
        )


class Deadline:
    """The trial's timeout shared by the processes of one trial (command adapter: N processes)."""

    def __init__(self, timeout: float) -> None:
        self.end = time.monotonic() + timeout

    def remaining(self, what: str) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TrialFailure(
                TrialStatus.TIMEOUT,
                f"{what} did not finish within the timeout; raise [suite].timeout or lower measurements",
            )
        return left


def worktree_binary(version: VersionContext, binary: str) -> tuple[str, Path]:
    """A ``binary`` setting as (the argv word to run, the file it names).

    A relative path, with or without a slash, names a file in the version's worktree; an absolute
    path is used as is. The adapters run it with the worktree as working directory, so the argv
    word stays as written (``[suite] prefix`` commands such as ``nice`` or ``taskset`` run it from
    there too), except that a bare name gets ``./``: ``execvp`` would look ``bench`` up on ``PATH``
    and might silently benchmark another program of that name."""
    path = Path(binary)
    if path.is_absolute():
        return binary, path
    return (binary if "/" in binary else f"./{binary}"), version.workdir / path


def missing_binary(
    result: ProcessResult, version: VersionContext, binary: str, path: Path, table: str
) -> tuple[str, str] | None:
    """(message, fix) when a process failed because the configured binary is not there.

    Checked after a failed start rather than before: a ``[suite] prefix`` may run the command
    somewhere the gate cannot look (a container, a remote host)."""
    if result.returncode == 0 or result.timed_out:
        return None
    if not path.exists():
        problem = "does not exist"
    elif not path.is_file():
        problem = "is not a file"
    elif not os.access(path, os.X_OK):
        problem = "is not executable"
    else:
        return None
    return (
        f"[{table}] binary {binary!r} is {path} in {version.name}'s worktree, which {problem}",
        f"build it in [suite] build, or correct [{table}] binary (a relative path is relative to "
        "the worktree, an absolute path is used as is)",
    )
