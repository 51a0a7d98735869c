"""The budget clock of follow-up rounds: the time used so far and what one trial is expected to
take (docs/running.md, "Follow-up rounds"). :class:`WallClock` is the run's; an evaluation passes
a clock that replays recorded durations in simulated time."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gate.files.trial_log import elapsed_by_trial

if TYPE_CHECKING:
    import pandas as pd


class BudgetClock(Protocol):
    def used_s(self) -> float:
        """Budget seconds used so far (the measuring phase)."""
        ...

    def trial_s(self, benchmark: str, version: str, rows: pd.DataFrame) -> float:
        """Expected seconds of one trial of ``benchmark``@``version`` (``rows``: its rows in the log)."""
        ...


def mean_trial_elapsed(rows: pd.DataFrame) -> float:
    """Mean ``elapsed_s`` of the trials in ``rows`` (all rows of a trial share it)."""
    import pandas as pd

    if rows.empty or "elapsed_s" not in rows.columns:
        return 0.0
    per_trial = rows.drop_duplicates(["trial"]) if "trial" in rows.columns else rows
    value = pd.to_numeric(per_trial["elapsed_s"], errors="coerce").mean()
    return float(value) if math.isfinite(value) else 0.0


class WallClock:
    """Wall time since the first planned trial of this invocation, plus ``prior_s`` (the summed
    ``elapsed_s`` of trials logged by earlier, interrupted invocations: their gaps are unknown).

    :meth:`trial_s` adds to a benchmark's mean trial time the gate's mean overhead per trial
    (process start-up, resets, layout, the in-process analyses): the wall time used minus the
    trials' own ``elapsed_s``, over the trials in ``log``."""

    def __init__(self, log: Path | None = None, prior_s: float = 0.0) -> None:
        self._start = time.monotonic()
        self.prior_s = prior_s
        self._log = log
        self._cache: tuple[int, float, int] = (-1, 0.0, 0)

    def used_s(self) -> float:
        return self.prior_s + time.monotonic() - self._start

    def _logged(self) -> tuple[float, int]:
        if self._log is None or not self._log.exists():
            return 0.0, 0
        size = self._log.stat().st_size
        if size != self._cache[0]:  # read again only when trials were added
            seen = elapsed_by_trial(self._log)
            self._cache = (size, sum(seen.values()), len(seen))
        return self._cache[1], self._cache[2]

    def overhead_s(self) -> float:
        elapsed, trials = self._logged()
        return max(0.0, self.used_s() - elapsed) / trials if trials else 0.0

    def trial_s(self, benchmark: str, version: str, rows: pd.DataFrame) -> float:
        return mean_trial_elapsed(rows) + self.overhead_s()


def prior_elapsed_s(log_path: Path, finished: set[int]) -> float:
    """Summed ``elapsed_s`` of the finished trials in the log: the budget used by earlier,
    interrupted invocations (their gaps between trials were not recorded)."""
    if not finished:
        return 0.0
    return sum(s for trial, s in elapsed_by_trial(log_path).items() if trial in finished)
