"""The system load while measuring: sampled at every trial end, reported as a range.

The host check before the run (gate/engine/environment.py) reads the load once, before the
checkouts and builds; a build of many minutes can end on an idle machine, and other jobs can start
after it (issue: 2.25 at the start, 6.97 during the run). So the load that matters for the values
is read where they are taken: ``os.getloadavg()`` (a read of /proc/loadavg, microseconds) after
every trial, kept as min–max per suite run and over the run (meta.json ``load``), and the load
warning recorded for the reports is made from that range, replacing the one taken at the start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gate.engine.schedule import Trial
from gate.files.run_meta import LoadRange, LoadRecord
from gate.warning_codes import WarningCode

# More runnable processes than half the cores competes with a benchmark for a core (the same
# level as the start-time check in gate/engine/environment.py).
BUSY_PER_CORE = 0.5


def _one_minute_load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not available on this platform
        return None


def _widen(r: LoadRange | None, x: float) -> LoadRange:
    if r is None:
        return LoadRange(1, x, x)
    return LoadRange(r.samples + 1, min(r.min, x), max(r.max, x))


class LoadSampler:
    """Collects the load at trial ends; a resumed run continues the record it read."""

    def __init__(
        self, previous: LoadRecord | None = None, read: Callable[[], float | None] = _one_minute_load
    ) -> None:
        self._read = read
        self.overall: LoadRange | None = previous.overall if previous is not None else None
        self.suite_runs: dict[str, LoadRange] = dict(previous.suite_runs) if previous is not None else {}

    def sample(self, trial: Trial) -> None:
        x = self._read()
        if x is None:
            return
        self.overall = _widen(self.overall, x)
        key = str(trial.suite_run)
        self.suite_runs[key] = _widen(self.suite_runs.get(key), x)

    def record(self) -> LoadRecord | None:
        if self.overall is None:
            return None
        return LoadRecord(self.overall, dict(sorted(self.suite_runs.items(), key=lambda kv: int(kv[0]))))


def load_warning(record: LoadRecord | None, cores: int, at_start: float | None) -> dict[str, str] | None:
    """The load warning from the range measured during the trials (None when it stayed low)."""
    if record is None or record.overall.max <= BUSY_PER_CORE * cores:
        return None
    busy = [(k, r) for k, r in record.suite_runs.items() if r.max > BUSY_PER_CORE * cores]
    worst_key, worst = max(busy, key=lambda kr: kr[1].max)
    where = (
        f"; above {BUSY_PER_CORE * cores:g} in {len(busy)} of {len(record.suite_runs)} suite runs, highest in "
        f"suite run {worst_key} ({worst.min:.2f}–{worst.max:.2f})"
        if len(record.suite_runs) > 1
        else ""
    )
    start = f"; {at_start:.2f} at the start, before the builds" if at_start is not None else ""
    low, high = record.overall.min, record.overall.max
    shown = f"{high:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"
    return {
        "code": WarningCode.LOAD.value,
        "message": f"system load was {shown} on {cores} cores while "
        f"the trials ran ({record.overall.samples} samples, one per trial){where}{start}: other processes "
        "competed with the benchmarks",
        "action": "run on an idle (self-hosted, bare-metal) runner; stop other jobs on this machine",
    }


def with_measured_load(
    warnings: Sequence[Mapping[str, str]], record: LoadRecord | None, environment: Mapping[str, Any] | None
) -> list[Mapping[str, str]]:
    """``warnings`` with the start-time load warning replaced by the one measured during the run
    (dropped when the load stayed low while the trials ran)."""
    env = environment or {}
    cores = env.get("cores") if isinstance(env.get("cores"), int) else None
    start = env.get("loadavg")
    at_start = (
        float(start[0]) if isinstance(start, list) and start and isinstance(start[0], int | float) else None
    )
    kept = [w for w in warnings if w.get("code") != WarningCode.LOAD.value]
    if record is None:  # nothing measured (no trial ran, or no load average): keep what was said
        return list(warnings)
    w = load_warning(record, cores or os.cpu_count() or 1, at_start)
    return kept + ([w] if w is not None else [])
