"""The one protocol every framework adapter implements (github-action-benchmark's ``extract.ts``
habit: one module per external format, no ``if framework ==`` outside ``gate/adapters``).

Division of labour:

* The **driver** owns processes: it gives the adapter a :class:`ProcessRunner` that applies the
  timeout, kills the whole process group, scrubs secrets from the environment and captures
  output. Tests pass a fake runner (hyperfine's ``MockExecutor`` habit).
* The **adapter** knows one framework: which benchmarks exist (``discover``), how to run exactly
  one of them for ``measurements`` values (``run_trial``), and how to parse what it printed.
  It raises :class:`TrialFailure` for anything that is not a clean list of finite values; the
  driver records that as a failed trial and goes on. "There is no such benchmark in this
  version" is not a failure but the normal effect of a change that adds or removes one: the
  adapter raises :class:`BenchmarkMissing` for it (the trial is logged ``skipped``), and only
  when the framework itself says so — a benchmark that ran and printed no value stays
  ``invalid``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gate.model import TrialStatus


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark as configured or discovered. ``options`` holds adapter-specific keys."""

    name: str
    unit: str = "s"
    higher_is_better: bool = False
    command: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VersionContext:
    """Where and how one version (base or head) runs."""

    name: str  # the revision exactly as given on the command line, e.g. "HEAD~1"
    workdir: Path  # that version's git worktree (or the plain directory for a no-git run)
    # Interpreter or command prefix for this version, e.g. ["/wt/base/.venv/bin/python"] or
    # ["nice", "-n", "0"]; adapters put it in front of the framework's own command.
    prefix: tuple[str, ...] = ()
    # Interpreter for Python-based adapters (pytest-benchmark): e.g. the venv that the build step
    # created inside this version's worktree, so base and head can have different dependencies.
    python: str = "python3"
    scratch: Path = Path("/tmp")  # per-version directory OUTSIDE the worktree for JSON outputs
    # per-version directory the sandbox cannot write (OUT/cache/<v>): the gate's own caches, such
    # as the Go listing; None: nothing is cached
    gate_cache: Path | None = None


@dataclass(frozen=True)
class ProcessResult:
    returncode: int
    stdout: str
    stderr: str
    elapsed_s: float  # wall time of the process, measured by the runner
    timed_out: bool = False


class ProcessRunner(Protocol):
    """Runs one process for an adapter. ``argv`` is a list (no shell) or a string (run by
    ``/bin/sh -c``, for user commands from the config file). ``progress``, when given, is called
    with the process's output (stdout and stderr, as it arrives, in pieces of no particular size)
    while it runs: long steps (builds) show what they are doing (:class:`gate.adapters._common.StepProgress`)."""

    def __call__(
        self,
        argv: Sequence[str] | str,
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ProcessResult: ...


@dataclass(frozen=True)
class TrialRequest:
    benchmark: BenchmarkSpec
    version: VersionContext
    measurements: int  # values wanted from this trial (go -count, pytest-benchmark rounds, ...)
    timeout: float  # seconds for the whole trial
    options: Mapping[str, Any] = field(default_factory=dict)  # the [suite] table + adapter keys


@dataclass(frozen=True)
class SourceHint:
    """Where a benchmark is defined, as far as its adapter can tell from its name: a changed file
    (``git diff --name-only`` of base and head) is its source when its path equals ``path`` or
    ends with ``suffix``, and, with ``needles``, base's or head's text of it holds one of them
    (``func BenchmarkX(``, a Criterion id in quotes). Adapters offer it as ``source_hint(name)``
    (optional: without it no source change is reported)."""

    path: str | None = None
    suffix: str = ""
    needles: tuple[str, ...] = ()


class TrialFailure(Exception):
    """The trial did not yield clean values. ``reason`` is short and names the fix."""

    def __init__(self, status: TrialStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class BenchmarkMissing(TrialFailure):
    """The framework says this version has no benchmark of that name (Go runs nothing for the
    filter, pytest reports the node id "not found", Google Benchmark "Failed to match any
    benchmarks", JMH "No matching benchmarks", a command exits with its configured
    ``missing_exit_code``). Logged as ``skipped``: ``analyze`` then lists the benchmark as
    present in one version only instead of failing it (docs/statistics.md "How the gate decides")."""

    def __init__(self, reason: str) -> None:
        super().__init__(TrialStatus.SKIPPED, reason)


class Adapter(Protocol):
    name: str
    # its keys in .ordertrap.toml, declared beside each class: its own table's ([go], [jmh], …),
    # and a [[benchmark]] entry's besides the core keys (gate/config/project_config.py)
    table_keys: tuple[str, ...]
    benchmark_keys: tuple[str, ...]

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        """Benchmarks available in this version (configured ones for adapters that cannot list)."""
        ...

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        """Run exactly one benchmark once (one process where the framework allows) and return
        ``request.measurements`` finite values, or raise :class:`TrialFailure` (its subclass
        :class:`BenchmarkMissing` when the benchmark does not exist in this version)."""
        ...


def check_finite(values: Sequence[float], source: str) -> list[float]:
    """Reject NaN/inf/empty: a benchmark that prints them has failed, it has not measured."""
    if not values:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{source}: no value found in the output; make the benchmark print its measurement "
            '(command adapter: the last number on stdout) or use value = "wall"',
        )
    bad = [v for v in values if not math.isfinite(v)]
    if bad:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{source}: non-finite value {bad[0]!r} in the output; a NaN/inf is a failed measurement: "
            "check the benchmark's timing code (division by zero, an empty loop)",
        )
    return [float(v) for v in values]


def raise_for_process(result: ProcessResult, what: str) -> None:
    """Map a failed process to the trial status the driver records."""
    if result.timed_out:
        raise TrialFailure(
            TrialStatus.TIMEOUT,
            f"{what} did not finish within the timeout; raise [suite].timeout or shorten the benchmark",
        )
    if result.returncode != 0:
        raise TrialFailure(
            TrialStatus.ERROR,
            f"{what} exited with status {result.returncode}: {telling_line(result.stderr or result.stdout)}; "
            "run it by hand in its worktree (OUT/worktrees/...) to see the whole output",
        )


_TELLING = re.compile(r"panic:|fatal error:|Traceback|Error|error:|Exception|FAIL|Segmentation fault|Killed")


def telling_line(output: str) -> str:
    """The line of a failed process's output that says what went wrong: the last one naming an
    error (a Go panic's message, not the stack frame printed after it; a Python exception, not the
    traceback's file line), else the last line. Cut to 200 characters."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return "(no output)"
    named = [line for line in lines if _TELLING.search(line)]
    # Python puts the exception last, after "Traceback": prefer a line that is not the header.
    best = next((line for line in reversed(named) if not line.startswith("Traceback")), None)
    return (best or lines[-1])[:200]
