"""Giving up on a benchmark that fails every time (docs/running.md "Giving up on a failing benchmark").

The rule, per benchmark × version: **when its first ``[suite] give_up_after`` trials (default 2)
all failed, or its first trial timed out, its remaining trials in that version are not run.**

* Failed means ``error``, ``timeout`` or ``invalid``. ``skipped`` (no such benchmark in that
  version) neither counts nor settles anything: it costs nothing to record.
* Only the *first* trials count: one ``ok`` trial settles the pair for the rest of the run, so a
  benchmark that fails now and then is measured in full (and its verdict is ``failed`` by the
  analysis' rule that a failing trial is a failure, not a value).
* Per version: a benchmark that the change broke gives up in head only; base is measured in full,
  and the verdict is ``failed`` as before, with a couple of trials instead of every planned one.
* A timeout costs the whole ``[suite] timeout``; a benchmark whose first trial hangs is taken to
  hang every time (the cost without the rule: trials × timeout, hours for a hang of 300 s).
* ``give_up_after = 0`` turns the rule off (a suite that fails by design now and then at start).

The same rule holds in every kind of run (two versions, one version for calibration data,
``--order-check``) because it lives in the driver; the follow-up rounds of ``--budget`` never
choose a given-up benchmark (its verdict is ``failed``, rounds follow ``inconclusive`` ones), and
the driver would not run it anyway.

Each decision is a :class:`~gate.files.run_meta.GiveUpRecord`, passed to ``on_record`` (which
writes meta.json) before the next trial starts, so a killed run resumes without running them.
The trial log gets no rows for the trials not run: it holds only what was measured.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gate.engine.schedule import Trial
from gate.files.run_meta import GiveUpRecord
from gate.model import TrialStatus, utc_timestamp

DEFAULT_AFTER = 2
FAILED = frozenset({TrialStatus.ERROR.value, TrialStatus.TIMEOUT.value, TrialStatus.INVALID.value})

Pair = tuple[str, str]  # (benchmark, version)


@dataclass
class GiveUp:
    """The rule's state over one run (all schedules the driver runs: planned and rounds)."""

    after: int = DEFAULT_AFTER  # 0: never give up
    records: list[GiveUpRecord] = field(default_factory=list)  # given up so far (a resume's, then new)
    on_record: Callable[[GiveUpRecord], None] | None = None
    _failed: dict[Pair, int] = field(default_factory=dict)  # failed trials so far, while all failed
    _timeouts_only: dict[Pair, bool] = field(default_factory=dict)
    _settled: set[Pair] = field(default_factory=set)  # an ok trial: never given up
    _seen: set[int] = field(default_factory=set)

    def given_up(self) -> set[Pair]:
        return {(r.benchmark, r.version) for r in self.records}

    def skips(self, trial: Trial) -> bool:
        return (trial.benchmark, trial.version) in self.given_up()

    def observe(
        self, trial: Trial, status: str, reason: str, later: Iterable[Trial] = ()
    ) -> GiveUpRecord | None:
        """Account a finished trial (once per trial number); the new record when the pair is
        given up now. ``later``: the trials still to run, of which the pair's are counted as not run."""
        if self.after <= 0 or trial.trial in self._seen:
            return None
        self._seen.add(trial.trial)
        pair = (trial.benchmark, trial.version)
        if pair in self._settled or pair in self.given_up() or status == TrialStatus.SKIPPED.value:
            return None
        if status not in FAILED:
            self._settled.add(pair)
            return None
        failed = self._failed.get(pair, 0) + 1
        self._failed[pair] = failed
        timeouts_only = self._timeouts_only.get(pair, True) and status == TrialStatus.TIMEOUT.value
        self._timeouts_only[pair] = timeouts_only
        if failed < self.after and not timeouts_only:
            return None
        record = GiveUpRecord(
            benchmark=trial.benchmark,
            version=trial.version,
            failed=failed,
            status=status,
            reason=reason,
            trial=trial.trial,
            at=utc_timestamp(),
            not_run=sum(1 for t in later if (t.benchmark, t.version) == pair),
        )
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)
        return record


def not_run_line(records: Iterable[GiveUpRecord], count: int, clean: Callable[[str], str]) -> str:
    """ "12 trials not run: BenchmarkX@HEAD failed in every trial (given up after 2)" for the run's
    last line; ``clean`` makes a benchmark name safe to print."""
    named = [f"{clean(r.benchmark)}@{clean(r.version)}" for r in records]
    shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    verb = "fails" if len(named) == 1 else "fail"
    return f"{count} trials not run: {shown} {verb} in every trial ([suite] give_up_after, docs/running.md)"
