"""Does a chosen configuration hold beyond the suite runs it was chosen from?

µOpTime judges a configuration on the values "that would have been collected in this scenario"
(Japke et al., TOSEM 2025, §3.1, Algorithm 1 lines 7-14): a configuration of ``s`` suite runs is
judged on the *first* ``s`` suite runs of the full log (gate/calibration/dataset.py ``Series.values``).
On a machine whose noise comes and goes, a quiet first suite run can make a small configuration
look stable that the rest of the night contradicts (issue: RMAD 0.038 in the first suite run,
CV 0.43 over the run). The full log has more suite runs than the chosen configuration uses, so
the same configuration can be replayed on them: the suite runs ``s+1 … 2s``, ``2s+1 … 3s`` and so
on (disjoint windows of the same size, each with the chosen iterations and measurements), each
judged by the same metric. A configuration holds when every later window stays below
:data:`HOLD_FACTOR` × the threshold. Not the threshold itself: the search picks the cheapest
configuration whose metric came out below it, which favours first suite runs that happened to be
low, so a replay often lands a little above it (µOpTime Go data, RMAD < 0.01: 8 of 64 chosen
configurations above the threshold on a later suite run, none at twice it); one that does not hold
is off by far more (the same data with CV < 0.01: 28 of 60 at twice the threshold or more, up to
12.7×, nearly all of prometheus-common, whose later suite runs are far noisier than its first; the
issue's machine: RMAD 0.038 chosen, CV 0.43 over the run). Measured with
``python -m eval.eval_calibration_thresholds`` (docs/calibration.md). It is a check, not a second search: the chosen configuration is kept, the file says whether
it held (``later_suite_runs`` per benchmark) and a warning names those that did not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gate.calibration.dataset import MIN_VALUES, Series
from gate.calibration.search import SearchResult
from gate.model import warning
from gate.stats.stability import BootstrapPlan, FloatArray, metric_batch
from gate.warning_codes import WarningCode

SHOWN = 10  # benchmarks named in the warning
HOLD_FACTOR = 2.0  # a later window's metric below this × the threshold still holds (module doc)


@dataclass(frozen=True)
class LaterCheck:
    windows: int  # later windows of the chosen size with enough values (0: none to check)
    worst: float | None  # the largest metric among them (None: none, or unbounded)
    holds: bool | None  # every window stable; None when there was no window to check

    def as_json(self) -> dict[str, Any]:
        worst = None if self.worst is None or not np.isfinite(self.worst) else round(self.worst, 6)
        return {"windows": self.windows, "worst": worst, "holds": self.holds}


def later_windows(series: Series, config: tuple[int, ...]) -> list[FloatArray]:
    """The values of ``config`` in each later block of ``config[0]`` outer positions (suite runs)."""
    size, total = config[0], series.cube.shape[0]
    inner = tuple(slice(0, c) for c in config[1:])
    out = []
    for k in range(1, total // size):
        block = series.cube[(slice(k * size, (k + 1) * size), *inner)].ravel()
        values = block[~np.isnan(block)]
        if values.size >= MIN_VALUES:
            out.append(values)
    return out


def check(
    series: Series,
    config: tuple[int, ...],
    metric: str,
    threshold: float,
    plan: BootstrapPlan | None,
    confidence: float,
) -> LaterCheck:
    windows = later_windows(series, config)
    if not windows:
        return LaterCheck(0, None, None)
    metrics = []
    for values in windows:  # sizes can differ (gaps): one batch per window
        metrics.append(float(metric_batch(values[None, :], metric, plan, confidence)[0]))
    worst = max(metrics, key=lambda m: np.inf if not np.isfinite(m) else m)
    holds = all(np.isfinite(m) and m < HOLD_FACTOR * threshold for m in metrics)
    return LaterCheck(len(windows), worst, holds)


def check_all(result: SearchResult, plan: BootstrapPlan | None) -> dict[str, LaterCheck]:
    """The check for every benchmark with a stable, chosen configuration (a never-stable one
    runs the full configuration: nothing to replay)."""
    confidence = float(result.settings.get("confidence", 0.99))
    out = {}
    for name, choice in result.choices.items():
        if choice.never_stable:
            continue
        out[name] = check(
            result.dataset.series[name], choice.config, result.metric, result.threshold, plan, confidence
        )
    return out


def add_to(body: dict[str, Any], checks: Mapping[str, LaterCheck], metric: str, threshold: float) -> None:
    """Record the checks in a calibration.json body: ``later_suite_runs`` per benchmark and one
    warning naming the configurations that did not hold."""
    for name, c in checks.items():
        body["benchmarks"][name]["later_suite_runs"] = c.as_json()
    failed = [n for n, c in checks.items() if c.holds is False]
    checked = sum(1 for c in checks.values() if c.holds is not None)
    body["summary"]["later_suite_runs"] = {"checked": checked, "not_holding": len(failed)}
    if failed:
        shown = ", ".join(failed[:SHOWN]) + (
            f" and {len(failed) - SHOWN} more" if len(failed) > SHOWN else ""
        )
        body["warnings"].append(
            warning(
                WarningCode.CALIBRATION_NOT_HOLDING,
                f"{len(failed)} of {checked} chosen configurations are stable ({metric} < {threshold}) only "
                f"on the first suite runs they were chosen from (µOpTime §3.1): on a later suite run of "
                f"the same log their {metric} reaches {HOLD_FACTOR:g}× the threshold or more: {shown}",
                "calibrate from a quieter full run, or use a looser --threshold only if the audit's "
                "decided verdicts agree (docs/calibration.md, 'When nothing is stable'); until then "
                "these benchmarks' minimal configurations may be noisier than the calibration says",
            )
        )
