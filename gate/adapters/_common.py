"""Helpers shared by the adapters: config specs, regex anchoring, number parsing, timeouts.

Conventions every adapter follows (see docs/frameworks.md "Benchmark frameworks (adapters)"):

* ``options`` is the adapter's own table of ``.ordertrap.toml`` (``[go]``, ``[jmh]`` ...); the run
  engine adds ``options["benchmarks"]`` = the raw ``[[benchmark]]`` list (list of dicts).
* ``env`` passed to the runner holds only the variables an adapter *adds*; the driver merges them
  over its secret-scrubbed environment.
* Every JSON/output file goes into ``version.scratch``, never into the worktree.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from gate import safe_regex
from gate.adapters.base import (
    BenchmarkMissing,
    BenchmarkSpec,
    ProcessResult,
    TrialFailure,
    VersionContext,
)
from gate.bidi import show_controls_on_one_line
from gate.errors import ConfigError
from gate.files import bounded
from gate.model import TrialStatus

# Keys of a [[benchmark]] entry that map onto BenchmarkSpec fields; every other key goes to options.
_SPEC_FIELDS = ("name", "command", "unit", "higher_is_better")

# A number as people print it (1, -2.5, 3e-07, .5, "5." ending a sentence) or a non-finite token
# (nan, inf) so that check_finite can reject it instead of silently skipping to an earlier number.
# Dotted runs such as version strings (1.2.3) are not numbers.
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?!\d|\.\d)|(?:nan|inf(?:inity)?)\b)",
    re.IGNORECASE,
)


def configured_specs(
    options: Mapping[str, Any],
    adapter: str,
    *,
    need_command: bool,
    default_unit: str = "s",
    default_higher: bool = False,
) -> list[BenchmarkSpec]:
    """The ``[[benchmark]]`` entries as BenchmarkSpecs, validated (names unique, command present)."""
    raw = options.get("benchmarks") or []
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
        spec_options = {k: v for k, v in entry.items() if k not in _SPEC_FIELDS}
        specs.append(
            BenchmarkSpec(
                name=name,
                unit=unit,
                higher_is_better=hib,
                command=command if isinstance(command, str) else None,
                options=spec_options,
            )
        )
    return specs


def with_configured(
    discovered: Sequence[BenchmarkSpec],
    options: Mapping[str, Any],
    adapter: str,
    *,
    unit: str,
    higher: bool = False,
) -> list[BenchmarkSpec]:
    """The discovered benchmarks plus the ``[[benchmark]]`` entries discovery does not list (Go
    sub-benchmarks, a name outside ``include``). For a discovered name the run engine applies the
    entry's ``unit``/``higher_is_better``/options itself."""
    known = {s.name for s in discovered}
    extra = configured_specs(options, adapter, need_command=False, default_unit=unit, default_higher=higher)
    return [*discovered, *(c for c in extra if c.name not in known)]


def filter_discovered(names: Sequence[str], options: Mapping[str, Any], adapter: str) -> list[str]:
    """Apply the optional ``include`` of the adapter table: one regex or a list of them, as
    ``[suite] include`` takes (a name is kept when one matches), in Python syntax with
    ``re.search`` semantics, in time linear in the name (:mod:`gate.safe_regex`)."""
    include = options.get("include")
    if not include:
        return list(names)
    regexes = [include] if isinstance(include, str) else include
    if not isinstance(regexes, list) or not all(isinstance(r, str) and r for r in regexes):
        raise ConfigError(
            f"[{adapter}] include must be a regex or a list of regexes, got {include!r}",
            f'write [{adapter}] include = "^Parse" or include = ["^Parse", "^Format"]',
        )
    patterns = []
    for regex in regexes:
        try:
            patterns.append(safe_regex.compile_filter(regex))
        except re.error as exc:
            raise ConfigError(
                f"[{adapter}] include {regex!r} is not a valid regex: {exc}", "fix the regex"
            ) from exc
        except safe_regex.UnsafePattern as exc:
            raise ConfigError(f"[{adapter}] include {regex!r}: {exc}", exc.fix) from None
    return [n for n in names if any(p.search(n) for p in patterns)]


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


# Terminal escape sequences: CSI (colours, "\x1b[0m"), OSC ("\x1b]...\x07" or ending in "\x1b\\":
# titles, hyperlinks) and the two-byte ones ("\x1b(B", "\x1b7"/"\x1b8" = save/restore cursor).
# Left in, "\x1b[32m1.5\x1b[0m" would be read as 0 (from "[0m") and "\x1b8" as 8.
_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])")

# What a number written with digit grouping or a decimal comma is made of: the last number is
# widened over these to the whole token it belongs to ("1,234.5", "1.234,5", "1_234", "1 234.5"
# with a no-break or narrow no-break space; the ASCII space of "(1/3) 0.5" separates numbers).
_DIGITS = "0123456789"
_TOKEN_CHARS = frozenset(_DIGITS + ",._'\u00a0\u202f")
_GROUP_CHARS = "_'\u00a0\u202f"  # never a decimal mark or a list separator
_EXP = r"(?:[eE][-+]?\d+)?"
# A token that reads as one grouped or decimal-comma number is refused, with every reading:
# (pattern, meaning, grouping characters to drop, the decimal mark).
_GROUPED_VALUE: tuple[tuple[re.Pattern[str], str, str, str], ...] = (
    (  # 1,234.5  1,234,567  12,34,567.5 (Indian)
        re.compile(rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d{{1,2}}(?:,\d{{2}})+,\d{{3}})(?:\.\d*)?{_EXP}"),
        "thousands separator",
        ",",
        ".",
    ),
    (re.compile(rf"\d+,\d+{_EXP}"), "decimal comma", "", ","),  # 12,5  1,234
    (re.compile(rf"\d{{1,3}}(?:\.\d{{3}})+,\d+{_EXP}"), "grouping and decimal comma", ".", ","),  # 1.234,5
    (  # 1_234.5  1'234.5  1\u202f234,5
        re.compile(rf"\d{{1,3}}([{_GROUP_CHARS}])\d{{3}}(?:\1\d{{3}})*(?:[.,]\d*)?{_EXP}"),
        "digit grouping",
        _GROUP_CHARS,
        ",",
    ),
)
_OTHER_GROUPING = re.compile(rf"\d[{_GROUP_CHARS}]\d")  # 1_0000, 5'10: grouped, but how?
_LIST_ITEM = rf"(?:\d+(?:\.\d*)?|\.\d+){_EXP}"
_LIST = re.compile(rf"{_LIST_ITEM}(?:,{_LIST_ITEM})+")


class AmbiguousNumber(ValueError):
    """The last number is part of a token written with digit grouping or a decimal comma
    (``1,234.5``, ``1.234,5``, ``12,5``, ``1_234``, ``[1,234]``). ``str()`` and ``token`` are that
    token, ``readings`` what it can mean (``a list ending in 234``, ``1234 (thousands
    separator)``, ``1.234 (decimal comma)``); long tokens are shortened to their end."""

    def __init__(self, token: str, readings: Sequence[str]) -> None:
        super().__init__(token)
        self.token = token
        self.readings = tuple(readings)


def _tail(text: str, size: int = 40) -> str:
    return text if len(text) <= size else "..." + text[-size:]


def _grouped_readings(token: str) -> list[str]:
    """The readings of ``token`` as one number with digit grouping or a decimal comma."""
    readings = [
        f"{_tail(token.translate({ord(c): None for c in drop}).replace(mark, '.'))} ({meaning})"
        for pattern, meaning, drop, mark in _GROUPED_VALUE
        if pattern.fullmatch(token)
    ]
    if not readings and _OTHER_GROUPING.search(token):
        readings.append("digit grouping")
    return readings


# Values the number regex would split into a wrong number (it skips digits glued to letters):
# clock times (1:01.23, 00:01:05, ISO timestamps), glued durations (0m1.234s from bash's `time`,
# 1h2m3s) and hex (0x1F). They are refused, not converted.
_UNREADABLE_FORMS = re.compile(r"\d:\d\d|\d[hm]\d|0[xX][0-9a-fA-F]")
_UNCERTAINTY_MARK = re.compile(r"(?:±|\+/-|\+-)\s*$")


class UnreadableValue(ValueError):
    """The last number printed is not the value: ``str()`` says what it is instead."""


def _word_at(text: str, index: int) -> str:
    """The whitespace-separated word around ``text[index]``."""
    start = index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = index
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def _check_readable(text: str, match: re.Match[str]) -> None:
    # only the few characters before the number can hold the mark (the output may be 32 MiB)
    if _UNCERTAINTY_MARK.search(text, max(0, match.start() - 64), match.start()):
        raise UnreadableValue(
            f"the last number, {match.group()}, follows '±' (an uncertainty, not the value)"
        )
    # the last digits printed, wherever the number regex skipped them (glued to letters or ":")
    last_digit = max(match.start(), *(text.rfind(d, match.end()) for d in _DIGITS))
    for word in {_word_at(text, match.start()), _word_at(text, last_digit)}:
        if _UNREADABLE_FORMS.search(word):
            raise UnreadableValue(f"the last value, {_tail(word)!r}, is a clock time, duration or hex number")


def last_number(text: str) -> float | None:
    """The last number printed (``nan``/``inf`` included, so that they are rejected, not skipped),
    after removing terminal escape sequences (colours).

    The number is widened to the token of digits, ``,``, ``.``, ``_``, ``'`` and no-break spaces
    around it. A token that reads as one number with digit grouping or a decimal comma raises
    :class:`AmbiguousNumber` (``1,234.5``, ``1.234,5``, ``12,5``, ``1_234``; also ``10,20`` and
    ``[1,234]``, which may be lists as well); any other token is a comma-separated list whose
    last element is the value (``0.5,1.5``, ``10,20,30``)."""
    if "\x1b" in text:
        text = _ANSI_ESCAPE.sub("", text)
    match = None
    for match in _NUMBER.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    if match is None:
        return None
    _check_readable(text, match)
    start, end = match.span()
    while start > 0 and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    while end < len(text) and text[end] in _TOKEN_CHARS:
        end += 1
    # punctuation at the token's edges belongs to the text around it: "(1,234)." "'5'" "7, then"
    while start < match.start() and text[start] not in _DIGITS:
        start += 1
    while end > match.end() and text[end - 1] not in _DIGITS:
        end -= 1
    token = text[start:end]
    if token != match.group():
        readings = _grouped_readings(token)
        if readings:
            if _LIST.fullmatch(token):
                readings.insert(0, f"a list ending in {match.group()}")
            raise AmbiguousNumber(_tail(token), readings)
    return float(match.group())


def scratch_file(version: VersionContext, stem: str, suffix: str) -> Path:
    """A fresh file name in the version's scratch dir (created if needed)."""
    version.scratch.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)[:60]
    return version.scratch / f"{safe}-{uuid.uuid4().hex[:12]}{suffix}"


def positive_int(options: Mapping[str, Any], key: str, adapter: str, default: int | None) -> int | None:
    value = options.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"[{adapter}] {key} must be a positive integer, got {value!r}", f"write [{adapter}] {key} = 1"
        )
    return value


def string_option(options: Mapping[str, Any], key: str, adapter: str, default: str) -> str:
    value = options.get(key, default)
    if not isinstance(value, str):
        raise ConfigError(
            f"[{adapter}] {key} must be a string, got {value!r}", f'write [{adapter}] {key} = "{default}"'
        )
    return value


def string_list(options: Mapping[str, Any], key: str, adapter: str) -> list[str]:
    value = options.get(key, [])
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"[{adapter}] {key} must be a list of strings, got {value!r}",
            f'write [{adapter}] {key} = ["--flag"]',
        )
    return list(value)


def read_text(path: Path, what: str, root: Path | None = None) -> str:
    """A result file the benchmark wrote into its scratch directory, read within the bounds of
    :mod:`gate.files.bounded` (no link below ``root``, regular file, size cap, deadline): anything
    else is a failed trial with the reason."""
    try:
        return bounded.read_text(path, root=root)
    except FileNotFoundError:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what} wrote no output file {path.name}; check that the benchmark ran"
        ) from None
    except bounded.UnsafeFile as exc:
        raise TrialFailure(TrialStatus.INVALID, f"{what}: {exc.reason}") from None


class NoBenchmarkMatched(TrialFailure):
    """No result at all for the requested name. Status ``invalid``: an adapter whose framework
    can tell "no such benchmark in this version" apart (a listing, a message of its own) catches
    this and raises :class:`BenchmarkMissing` instead when that is the case."""

    def __init__(self, requested: str, what: str) -> None:
        super().__init__(
            TrialStatus.INVALID,
            f"{what}: no benchmark matched {requested!r}; check the name (it may be missing in this version)",
        )


def benchmark_missing(what: str, evidence: str) -> BenchmarkMissing:
    """The ``skipped`` trial of a benchmark that this version does not have; ``evidence`` is what
    the framework said."""
    return BenchmarkMissing(
        f"{what}: no such benchmark in this version ({evidence}); expected when the change adds or "
        "removes it, otherwise check the name"
    )


def exit_status(value: Any, benchmark: str) -> int | None:
    """A ``[[benchmark]] missing_exit_code`` (command, hyperfine): the exit status by which the
    command says "this benchmark does not exist in this version", or None when not set."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 255:
        raise ConfigError(
            f"[[benchmark]] {benchmark!r}: missing_exit_code must be an exit status from 1 to 255, got {value!r}",
            "write missing_exit_code = 77 (the status Automake and Meson use for a skipped test) "
            "and make the command exit with it when the benchmark does not exist",
        )
    return value


def one_match(names: Sequence[str], requested: str, what: str) -> None:
    """Exactly one benchmark must have run: 0 = wrong name, >1 = an unanchored/parent filter."""
    distinct = sorted(set(names))
    if not distinct:
        raise NoBenchmarkMatched(requested, what)
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


# the steps started and not done, oldest first (weak: a step dropped by an exception leaves)
_ACTIVE: list[weakref.ref[StepProgress]] = []
_ACTIVE_LOCK = threading.Lock()


class StepProgress:
    """What a long step (a build, a discovery that compiles) is doing, on stderr: one line when it
    starts, then the step's own output as it runs — the latest complete line at most once every
    ``interval`` seconds, so a build printing thousands of lines shows a few — and its time at the
    end. Pass it as the runner's ``progress``. The lines are the build's untrusted output: shown
    with control characters made visible, on one line each, cut to 160 characters (on GitHub
    Actions every line also goes through the gate's inert output: no workflow command).

    A step can be silent for many minutes (rustc compiling one large bench target prints nothing
    after cargo's last ``Compiling`` line; ``mvn -q`` prints nothing while it downloads): a watcher
    thread shows a line held back by ``interval`` when nothing follows it, and after ``quiet``
    seconds without a line says the step still runs and for how long it printed nothing, until
    ``done`` — or until the step is dropped without it (an exception), as the watcher holds it
    only weakly."""

    def __init__(
        self,
        what: str,
        *,
        interval: float = 5.0,
        quiet: float = 60.0,
        hide: Callable[[str], bool] = lambda line: False,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what, self.interval, self.quiet, self.hide, self.clock = what, interval, quiet, hide, clock
        self.stream = stream
        self._partial = ""
        self._start = clock()
        self._last_shown = -math.inf
        self._latest = ""  # the latest complete line, shown or held back
        self._latest_at = self._start
        self._held = False  # _latest was held back by the interval
        self._lock = threading.Lock()  # the runner's thread and the watcher both print
        self._finished = threading.Event()
        self.shown = 0
        self._say(f"{what} …")
        with _ACTIVE_LOCK:
            _ACTIVE.append(weakref.ref(self))
        threading.Thread(
            target=_watch_step,
            args=(weakref.ref(self), self._finished),
            name=f"step-progress: {what}",
            daemon=True,
        ).start()

    def _say(self, text: str) -> None:
        print(f"ordertrap-gate run: {text}", file=self.stream or sys.stderr, flush=True)

    def _show(self, line: str, now: float) -> None:
        self._last_shown = now
        self.shown += 1
        line = show_controls_on_one_line(line)
        line = line if len(line) <= 160 else line[:157] + "..."
        self._say(f"  {self.what} [{now - self._start:.0f} s]: {line}")

    def __call__(self, chunk: str) -> None:
        with self._lock:
            lines = re.split(r"[\r\n]", self._partial + chunk)
            self._partial = lines.pop()[-4096:]  # the start of a line still being written
            complete = [ln.strip() for ln in lines if ln.strip() and not self.hide(ln.strip())]
            now = self.clock()
            if complete:
                self._latest, self._latest_at, self._held = complete[-1], now, True
            if complete and now - self._last_shown >= self.interval:
                self._show(complete[-1], now)
                self._held = False

    def tick(self) -> None:
        """What the watcher does every few seconds while the step runs (see the class)."""
        with self._lock:
            if self._finished.is_set():
                return
            now = self.clock()
            if self._held and now - self._last_shown >= self.interval:
                self._show(self._latest, now)
                self._held = False
            elif now - max(self._last_shown, self._start) >= self.quiet and self._innermost():
                silent = now - max(self._latest_at, self._start)
                last = f"; last: {self._latest}" if self._latest else ""
                self._show(f"still running, no output for {silent:.0f} s{last}", now)

    def _innermost(self) -> bool:
        """Whether no step started within this one still runs (discovery wraps the build it
        starts): one "still running" line at a time, from the step that is really waiting."""
        with _ACTIVE_LOCK:
            live = [step for ref in _ACTIVE if (step := ref()) is not None and not step._finished.is_set()]
        return not live or live[-1] is self

    def done(self, outcome: str = "done") -> None:
        with self._lock:
            self._finished.set()
        with _ACTIVE_LOCK:
            _ACTIVE[:] = [ref for ref in _ACTIVE if (step := ref()) is not None and step is not self]
        self._say(f"{self.what}: {outcome} in {self.clock() - self._start:.1f} s")


def _watch_step(step: weakref.ref[StepProgress], finished: threading.Event) -> None:
    """The watcher of one step: ticks it every few seconds until it is done or gone."""
    while True:
        current = step()
        if current is None:
            return
        wait = min(current.interval, current.quiet)
        del current  # not kept alive while waiting
        if finished.wait(wait):
            return
        current = step()
        if current is None:
            return
        current.tick()
        del current
