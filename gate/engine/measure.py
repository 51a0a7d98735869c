"""Measure a planned run: its schedule, then what the caller hands in to run after it (with a
budget, the follow-up rounds of :mod:`gate.adaptive.stage`: the engine runs the trials it is given).

Every trial goes through :func:`gate.engine.driver.run_schedule`, which appends it to the trial
log as it ends; trials the log already holds (``finished``) are skipped, so a rerun resumes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gate.adapters.base import Adapter, BenchmarkSpec, ProcessRunner, VersionContext
from gate.config.project_config import ProjectConfig
from gate.engine.driver import DriverResult, StopFlag, run_reset, run_schedule
from gate.engine.give_up import GiveUp, not_run_line
from gate.engine.layout import Layout
from gate.engine.load import LoadSampler, with_measured_load
from gate.engine.schedule import Trial
from gate.errors import DiskFullError, RunError
from gate.files import run_meta
from gate.files.run_meta import GiveUpRecord, RunMeta
from gate.files.trial_log import TrialLog, _clean


@dataclass(frozen=True)
class Session:
    """What the trials run with: the adapter and process runner, the checked-out versions, the
    benchmarks per version, the trial log and the trials it already holds."""

    config: ProjectConfig
    adapter: Adapter
    runner: ProcessRunner
    contexts: Mapping[str, VersionContext]
    benchmarks: Mapping[str, Mapping[str, BenchmarkSpec]]
    repo: Path  # where [suite].reset runs
    log: TrialLog
    finished: set[int]
    layout: Layout
    # set by :func:`measure` (docs/running.md "Giving up on a failing benchmark")
    give_up: GiveUp | None = None
    load: LoadSampler | None = None  # set by :func:`measure`: the load at every trial end
    # one for the whole run, planned trials and follow-up rounds alike: a stop request during the
    # last trial of one schedule stops the run, it is not forgotten by the next schedule's flag
    stop: StopFlag = field(default_factory=StopFlag)

    def drive(self, trials: Sequence[Trial], may_start: Any = None) -> DriverResult:
        reset = None
        if self.config.suite.reset:
            reset_cmd = self.config.suite.reset
            reset_timeout = self.config.suite.reset_timeout or self.config.suite.timeout

            def reset() -> None:
                run_reset(reset_cmd, self.runner, self.repo, reset_timeout)

        return run_schedule(
            trials,
            adapter=self.adapter,
            runner=self.runner,
            versions=self.contexts,
            benchmarks=self.benchmarks,
            adapter_options=self.config.adapter_options(),
            timeout=self.config.suite.timeout,
            log=self.log,
            finished=self.finished,
            reset=reset,
            progress=sys.stderr,
            stop=self.stop,
            layout=self.layout,
            may_start=may_start,
            give_up=self.give_up,
            on_trial_end=None if self.load is None else self.load.sample,
        )


class MetaFile:
    """meta.json as last written. The follow-up rounds rewrite it from their own copy of the
    document; the give-up records written meanwhile are kept in every later write."""

    def __init__(self, path: Path, meta: RunMeta) -> None:
        self.path, self.meta = path, meta

    def write(self, meta: RunMeta) -> None:
        meta = meta.with_given_up(self.meta.given_up)
        run_meta.write(self.path, meta)
        self.meta = meta

    def add_load(self, sampler: LoadSampler) -> None:
        """The load measured while the trials ran, and the load warning made from it (replacing
        the one taken before the builds)."""
        record = sampler.record()
        warnings = with_measured_load(self.meta.warnings, record, self.meta.environment)
        meta = self.meta.with_load(record, warnings)
        run_meta.write(self.path, meta)
        self.meta = meta

    def add_given_up(self, record: GiveUpRecord) -> None:
        """Written before the next trial starts: a resumed run does not run the given-up trials."""
        meta = self.meta.with_given_up([*self.meta.given_up, record])
        run_meta.write(self.path, meta)
        self.meta = meta


def done_line(result: DriverResult, log_path: Path, given_up: Sequence[GiveUpRecord] = ()) -> str:
    """The run's last progress line. The statuses and the time count only the trials of this
    invocation, so a resumed run says how many were in the log before: "ok 160" of 180 is then not
    20 lost trials. Trials of given-up benchmarks (``given_up``) are counted apart, as not run."""
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(result.statuses.items()))
    done = f"{result.total - result.not_run} trials done"
    if result.skipped_done:
        done += f": {result.skipped_done} before the resume, {result.ran} now"
    not_run = f"; {not_run_line(given_up, result.not_run, _clean)}" if result.not_run else ""
    if not statuses:  # a resume of a finished run (e.g. to add a budget) ran nothing now
        return f"ordertrap-gate run: {done}{not_run}; log: {log_path}"
    return f"ordertrap-gate run: {done} ({statuses}) in {result.elapsed_s:.1f} s{not_run}; log: {log_path}"


# What runs after the planned trials, on the same session and meta.json, given the planned
# schedule; False when interrupted. With a budget: gate.adaptive.stage.after_planned.
Then = Callable[[Session, MetaFile, Sequence[Trial]], bool]


def measure(
    session: Session,
    meta: RunMeta,
    *,
    meta_path: Path,
    schedule: Sequence[Trial],
    then: Then | None = None,
) -> bool:
    """Run the planned trials, then ``then`` (with a budget, the follow-up rounds built by
    gate.adaptive.stage: they live above the analysis they run, so the engine is handed them;
    docs/running.md). False when interrupted (Ctrl-C/SIGTERM): every finished trial is in the log."""
    meta_file = MetaFile(meta_path, meta)
    give_up = GiveUp(session.config.suite.give_up_after, list(meta.given_up), meta_file.add_given_up)
    load = LoadSampler(meta.load)
    session = replace(session, give_up=give_up, load=load)
    # also when interrupted or stopped: the trials that ran were measured under that load
    try:
        completed = _measure(session, meta_file, schedule, then)
    except BaseException:
        # The load record is secondary: failing to write it (on the disk that just filled and
        # stopped the run) must not replace the error that says why the run stopped and how to go on.
        with suppress(DiskFullError, OSError):
            meta_file.add_load(load)
        raise
    meta_file.add_load(load)
    return completed


def _measure(session: Session, meta_file: MetaFile, schedule: Sequence[Trial], then: Then | None) -> bool:
    log_path = session.log.path
    give_up = session.give_up
    assert give_up is not None
    result = session.drive(schedule)
    if result.interrupted:
        return False
    print(done_line(result, log_path, give_up.records), file=sys.stderr)
    if result.ran and result.failed == result.ran:
        raise RunError(
            f"all {result.ran} trials failed",
            f"read the reasons in {log_path} (column reason) and run one benchmark by hand in its worktree (kept in OUT/worktrees)",
        )
    return True if then is None else then(session, meta_file, schedule)
