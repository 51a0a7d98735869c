"""Walks a schedule: one process per trial (:mod:`gate.engine.process`), the trial log
(:mod:`gate.files.trial_log`) appended after every trial.

:func:`run_schedule` skips finished trials, runs ``reset`` before each suite run (OrderSage §3
step 2), records failures as rows with a status and a reason, and stops cleanly after the current
trial on the first Ctrl-C/SIGTERM (:class:`StopFlag`), and does not run the remaining trials of a
benchmark × version whose first trials all failed (:mod:`gate.engine.give_up`). A full disk is not a failure of the
benchmark: it stops the run with :class:`~gate.errors.DiskFullError`, the trial unlogged.
"""

from __future__ import annotations

import math
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from gate.adapters.base import (
    Adapter,
    BenchmarkSpec,
    ProcessRunner,
    TrialFailure,
    TrialRequest,
    VersionContext,
)
from gate.engine.give_up import GiveUp
from gate.engine.layout import Layout
from gate.engine.schedule import Trial
from gate.errors import RunError
from gate.model import TrialStatus
from gate.workflow_commands import print_untrusted

if TYPE_CHECKING:
    pass

from gate.engine.process import low_space
from gate.errors import disk_full_error, is_disk_full
from gate.files.trial_log import TrialLog, TrialRow, _clean


# ---- Ctrl-C ---------------------------------------------------------------------------------------
class StopFlag:
    """First SIGINT/SIGTERM: finish the current trial, then stop. Second: abort now. Outside a
    trial (:meth:`abortable`, e.g. the reset) the first one aborts: there is nothing to finish."""

    def __init__(self) -> None:
        self.requested = False
        self.stream: TextIO = sys.stderr
        self._abortable = False

    @contextmanager
    def abortable(self) -> Iterator[None]:
        self._abortable = True
        try:
            yield
        finally:
            self._abortable = False

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.requested or self._abortable:
            self.requested = True
            raise KeyboardInterrupt
        self.requested = True
        print(
            "ordertrap-gate: stopping after the current trial (press Ctrl-C again to abort it)",
            file=self.stream,
            flush=True,
        )

    @contextmanager
    def installed(self) -> Iterator[StopFlag]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        old: dict[signal.Signals, Any] = {}
        try:
            # one at a time inside the try: a signal between the two installs (its handler
            # raises) must not leave the first one installed for good
            for s in (signal.SIGINT, signal.SIGTERM):
                old[s] = signal.getsignal(s)
                signal.signal(s, self._handler)
            yield self
        finally:
            for s, h in old.items():
                signal.signal(s, h)


# ---- the driver loop ------------------------------------------------------------------------------
@dataclass
class DriverResult:
    total: int
    ran: int = 0  # trials executed in this invocation
    failed: int = 0
    skipped_done: int = 0  # already in the log (resume)
    interrupted: bool = False
    out_of_budget: bool = False  # ``may_start`` refused the next trial (follow-up rounds)
    elapsed_s: float = 0.0
    statuses: dict[str, int] = field(default_factory=dict)
    not_run: int = 0  # trials of given-up benchmark × versions (gate/engine/give_up.py), not logged


def _mmss(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _utc_now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def run_schedule(
    schedule: Sequence[Trial],
    *,
    adapter: Adapter,
    runner: ProcessRunner,
    versions: Mapping[str, VersionContext],
    benchmarks: Mapping[str, Mapping[str, BenchmarkSpec]],
    adapter_options: Mapping[str, Any],
    timeout: float,
    log: TrialLog,
    finished: set[int] | frozenset[int] = frozenset(),
    reset: Callable[[], None] | None = None,
    progress: TextIO | None = sys.stderr,
    progress_interval: float = 1.0,
    stop: StopFlag | None = None,
    layout: Layout | None = None,
    may_start: Callable[[], bool] | None = None,
    give_up: GiveUp | None = None,
    on_trial_end: Callable[[Trial], None] | None = None,
) -> DriverResult:
    """Run every trial of ``schedule`` not in ``finished``, appending its rows to ``log``.

    ``benchmarks[version][name]`` is the spec of a benchmark in that version; a benchmark absent
    from a version is recorded as ``skipped`` without running anything. ``layout``: every process
    of a trial gets that trial's environment padding (gate/engine/layout.py). ``may_start`` is
    asked before every trial; once it says no, no further trial starts (the time budget of
    follow-up rounds: it is exceeded by at most the trial already running). ``give_up``: the
    rule that stops running a benchmark × version whose first trials all failed; it learns the
    statuses of ``finished`` trials from the log (a resumed run goes on counting), and a decision
    reaches its ``on_record`` (meta.json) before the next trial starts. ``on_trial_end`` is called
    after each trial's rows are logged (the load sampler, gate/engine/load.py).
    """
    stop = stop or StopFlag()
    total = len(schedule)
    # progress counts within this schedule: a follow-up round's trial numbers continue the log's
    # (trial 97 is the round's first), so "trial i/N" is the position, not the number
    position = {t.trial: i for i, t in enumerate(schedule, start=1)}
    todo = [t for t in schedule if t.trial not in finished]
    result = DriverResult(total=total, skipped_done=total - len(todo))
    if give_up is not None:  # a resumed run: the finished trials count, in the order they ran
        for t in schedule:
            if t.trial in finished and t.trial in log.statuses:
                give_up.observe(t, *log.statuses[t.trial], later=todo)
        result.not_run = sum(give_up.skips(t) for t in todo)
    if not todo or result.not_run == len(todo):
        result.interrupted = stop.requested  # asked to stop during an earlier schedule of the run
        return result
    started = time.monotonic()
    last_print = -math.inf
    last_suite_run: int | None = None
    owns_log = not log.is_open  # a caller that opened the log closes it (benchmarks/bench_driver.py)
    # a reason is printed once; a trial that fails the same way points to the first (a wrong
    # command fails every trial alike, and one copy of its error is what the reader needs)
    first_with_reason: dict[str, int] = {}
    log.open()
    try:
        with stop.installed():
            for index, trial in enumerate(todo):
                if stop.requested:
                    result.interrupted = True
                    break
                if give_up is not None and give_up.skips(trial):
                    continue  # counted in result.not_run
                if may_start is not None and not may_start():
                    result.out_of_budget = True
                    break
                if reset is not None and trial.suite_run != last_suite_run:
                    with stop.abortable():  # a stop request kills the reset (its group) at once
                        reset()  # OrderSage §3 ·: every run starts from the same clean state
                    if stop.requested:
                        result.interrupted = True
                        break
                last_suite_run = trial.suite_run
                trial_runner = runner if layout is None else layout.runner(trial.trial, runner)
                rows, status, reason = _run_one(
                    trial, adapter, trial_runner, versions, benchmarks, adapter_options, timeout
                )
                if status not in (TrialStatus.OK.value, TrialStatus.SKIPPED.value):
                    _stop_if_disk_full(trial, reason, log, versions)
                log.append(rows)
                if on_trial_end is not None:
                    on_trial_end(trial)
                result.ran += 1
                result.statuses[status] = result.statuses.get(status, 0) + 1
                now = time.monotonic()
                if progress is not None:
                    failed = status != TrialStatus.OK.value
                    if failed or now - last_print >= progress_interval or index == len(todo) - 1:
                        last_print = now
                        spent = now - started
                        eta = spent / (index + 1) * (len(todo) - index - 1)
                        here = position[trial.trial]
                        first = first_with_reason.setdefault(reason, here) if failed else here
                        print(
                            f"[trial {here}/{total}] elapsed {_mmss(spent)} ETA {_mmss(eta)} "
                            f"{_clean(trial.benchmark)}@{_clean(trial.version)}"
                            + (f": {status}" if failed else "")
                            + (f" (the reason printed for trial {first})" if first != here else ""),
                            file=progress,
                            flush=True,
                        )
                        if failed and first == here:
                            print_untrusted(reason, stream=progress)
                if status != TrialStatus.OK.value:
                    result.failed += 1
                if give_up is not None:
                    record = give_up.observe(trial, status, reason, later=todo[index + 1 :])
                    if record is not None:
                        result.not_run += record.not_run
                        if progress is not None:
                            print(
                                f"ordertrap-gate run: giving up on {_clean(trial.benchmark)}@"
                                f"{_clean(trial.version)}: its first {record.failed} trial(s) failed "
                                f"({status}); its {record.not_run} remaining trial(s) are not run "
                                "(set [suite] give_up_after = 0 to run them)",
                                file=progress,
                                flush=True,
                            )
            # a request during the last trial: nothing was left to skip, but the run stops here
            # (the caller must not go on to follow-up rounds)
            result.interrupted = result.interrupted or stop.requested
    except BaseException:
        if owns_log:
            with suppress(RunError):  # the error on its way out (a full disk, Ctrl-C) says more
                log.close()
        raise
    finally:
        if owns_log:
            log.close()
        result.elapsed_s = time.monotonic() - started
    return result


def _stop_if_disk_full(
    trial: Trial, reason: str, log: TrialLog, versions: Mapping[str, VersionContext]
) -> None:
    """A failed trial on a (nearly) full disk is not logged: it says nothing about the benchmark,
    and logged it would count as done on resume (and fail the benchmark's verdict)."""
    ctx = versions.get(trial.version)
    places = [log.path.parent, *((ctx.workdir, ctx.scratch) if ctx else ()), tempfile.gettempdir()]
    full = low_space(places)
    if full is not None:
        path, free = full
        raise disk_full_error(
            f"running trial {trial.trial} ({_clean(trial.benchmark)}@{_clean(trial.version)})",
            f"{path} has {free // 1024} KiB left and the trial failed ({_clean(reason)[:300]})",
            path,
        )


def _run_one(
    trial: Trial,
    adapter: Adapter,
    runner: ProcessRunner,
    versions: Mapping[str, VersionContext],
    benchmarks: Mapping[str, Mapping[str, BenchmarkSpec]],
    adapter_options: Mapping[str, Any],
    timeout: float,
) -> tuple[list[TrialRow], str, str]:
    spec = benchmarks.get(trial.version, {}).get(trial.benchmark)
    started_at = _utc_now()
    t0 = time.perf_counter()
    values: list[float] = []
    if spec is None:
        status = TrialStatus.SKIPPED.value
        reason = (
            f"benchmark {trial.benchmark} does not exist in version {trial.version}; "
            "expected when a change adds or removes it, otherwise check [suite].include/exclude"
        )
        unit, hib = "", ""
    else:
        unit, hib = spec.unit, "true" if spec.higher_is_better else "false"
        request = TrialRequest(
            benchmark=spec,
            version=versions[trial.version],
            measurements=trial.measurements,
            timeout=timeout,
            options=adapter_options,
        )
        try:
            values = adapter.run_trial(request, runner)
            if len(values) != trial.measurements or not all(math.isfinite(v) for v in values):
                raise TrialFailure(
                    TrialStatus.INVALID,
                    f"adapter {adapter.name} returned {len(values)} values, expected {trial.measurements} "
                    "finite values; check the benchmark's output format",
                )
            status, reason = TrialStatus.OK.value, ""
        except TrialFailure as exc:
            status, reason = str(exc.status), exc.reason
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # an adapter bug must not lose the run
            if is_disk_full(exc):  # not the benchmark's fault, nor a bug: stop, log nothing
                raise disk_full_error(
                    f"running trial {trial.trial} ({_clean(trial.benchmark)}@{_clean(trial.version)})",
                    f"{type(exc).__name__}: {exc}",
                    getattr(exc, "filename", None),
                ) from None
            status = TrialStatus.ERROR.value
            reason = f"adapter {adapter.name} raised {type(exc).__name__}: {exc}; please report this as a bug"
    elapsed = time.perf_counter() - t0
    hib_flag = None if hib == "" else hib == "true"

    def row(measurement: int, value: float | None, reason: str) -> TrialRow:
        return TrialRow(
            trial.trial, trial.benchmark, trial.version, trial.instance, trial.suite_run,
            trial.order_type, trial.position, trial.iteration, measurement, value, unit, hib_flag,
            status, reason, started_at, elapsed, trial.config_source, trial.round,
        )  # fmt: skip

    if status == TrialStatus.OK.value:
        rows = [row(m, v, "") for m, v in enumerate(values, start=1)]
    else:
        rows = [row(1, None, reason)]
    return rows, status, reason


def run_reset(command: str, runner: ProcessRunner, cwd: Path, timeout: float) -> None:
    """Run ``[suite].reset``; a failed reset stops the run (the state is unknown)."""
    result = runner(command, cwd=cwd, timeout=timeout)
    if result.timed_out or result.returncode != 0:
        print_untrusted((result.stdout + result.stderr)[-2000:], stream=sys.stderr)
        raise RunError(
            f"[suite].reset {'timed out' if result.timed_out else f'exited with status {result.returncode}'}",
            "fix the reset command (run it by hand in the repository), raise [suite].reset_timeout, "
            "or remove reset",
        )
