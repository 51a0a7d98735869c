"""Tail changes are not hidden: the shift-function check beside the verdict.

A lower quantile (the default ``p10``) decides because interference cannot move it
(docs/statistics.md). The price is the one Chen & Revels name for the minimum (HPEC 2016): a
change that lives only in the slow values — more frequent GC pauses, a slow path taken one time
in five — leaves the low quantiles where they were. So every benchmark is also compared by an
upper quantile (``AnalysisSettings.tail_statistic``, default ``p90``, Harrell–Davis) with the
same rule as the verdict (disjoint CIs at the same confidence, at least the threshold, the same
bootstrap scheme and small-sample guard): the two ends of Akinshin's shift function (the
differences at several quantiles; "Pro .NET Benchmarking", 2019; perfolizer). A change found
there and not by the deciding statistic is attached as a named finding (``tail`` in
analysis.json, warning ``tail_change``); the verdict and the gate decision stay the deciding
statistic's, so the tail check adds no false `fail` (its A/A rate is in docs/statistics.md).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.analysis.compare import AnalysisSettings, Comparison, Sample, _compare_all
from gate.model import Verdict
from gate.stats.quantile import describe
from gate.warning_codes import WarningCode

CHANGES = (Verdict.REGRESSION, Verdict.IMPROVEMENT)


def tail_finding(decided: Comparison, upper: Comparison) -> dict[str, Any] | None:
    """The finding when the upper quantile shows a change the deciding statistic does not call
    (a different verdict: the deciding one is not the same regression / improvement); else None."""
    if upper.verdict not in CHANGES or decided.verdict == upper.verdict:
        return None
    if decided.verdict in (Verdict.FAILED,) or upper.statistic == decided.statistic:
        return None
    return {
        "statistic": upper.statistic,
        "verdict": str(upper.verdict),
        "change_pct": upper.change_pct,
        "change_ci": list(upper.change_ci) if upper.change_ci else None,
        "base": {"estimate": upper.base.estimate, "ci": list(upper.base.ci) if upper.base.ci else None},
        "head": {"estimate": upper.head.estimate, "ci": list(upper.head.ci) if upper.head.ci else None},
    }


def tail_warning(name: str, decided: Comparison, finding: Mapping[str, Any]) -> dict[str, str]:
    change = finding["change_pct"]
    lo, hi = finding["change_ci"] or (float("nan"), float("nan"))
    kind = "slower" if finding["verdict"] == str(Verdict.REGRESSION) else "faster"
    return {
        "code": WarningCode.TAIL_CHANGE.value,
        "message": (
            f"the slowest values got {kind} — the {describe(finding['statistic'])} changed "
            f"{change:+.1f}% (CI of the change [{lo:+.1f}%, {hi:+.1f}%]; {finding['verdict']} by the "
            f"same rule), while the {describe(decided.statistic)}, which decides, is "
            f"`{decided.verdict}`"
        ),
        "action": (
            "look for a change that shows only in some runs (GC pauses, a slow path, contention); "
            'to let the tail decide, set statistic = "median" or a higher pNN for this benchmark '
            "in its [[benchmark]] entry (docs/statistics.md: Tail changes)"
        ),
    }


def attach_tail_findings(
    items: Sequence[tuple[str, Sample, Sample, bool]],
    decided: list[Comparison],
    settings: AnalysisSettings,
    calibrated: Collection[str],
    thresholds: Mapping[str, float],
    statistics: Mapping[str, str],
) -> list[Comparison]:
    """Compare every benchmark again by ``settings.tail_statistic`` and attach the findings."""
    tail_settings = replace(settings, statistic=settings.tail_statistic, tail_statistic="")
    upper = _compare_all(items, tail_settings, calibrated, thresholds, {})
    out = []
    for (name, *_), c, u in zip(items, decided, upper, strict=True):
        finding = tail_finding(c, u)
        if finding is None:
            out.append(c)
            continue
        out.append(replace(c, tail=finding, warnings=[*c.warnings, tail_warning(name, c, finding)]))
    return out
