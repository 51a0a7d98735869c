"""The names of the statistics a benchmark can be summarised by (``median``, ``mean``, ``pNN``): the
grammar every setting, file and report uses, without numpy, so that the configuration readers and
the fork guard (which runs in a venv without the analysis stack) parse them. The estimators are in
gate/stats/quantile.py."""

from __future__ import annotations

import re

_PERCENTILE = re.compile(r"p([1-9][0-9]?)")
STATISTIC_FORMS = "median, mean, or pNN (p1 … p99: the NN-th percentile, Harrell–Davis)"
# Not a statistic: "each benchmark by the statistic the nightly calibration chose for it"
# ([suite] statistic, analyze --statistic; gate/analysis/statistic_source.py)
CALIBRATED = "calibrated"
# The default statistic (analyze's, gate/analysis/compare.py), chosen on the µOpTime Go data
# (eval/eval_verdicts.py; docs/statistics.md "Which statistic"): interference only slows a process,
# and the 10th percentile (Harrell–Davis) sits near the floor it cannot move. An analysis.json
# records the statistic it used. Declared here so that the readers below the analysis know it too:
# a calibration.json benchmark without a calibrated statistic is decided by it.
DEFAULT_STATISTIC = "p10"
STATISTIC_SETTING_FORMS = STATISTIC_FORMS + ", or calibrated (each benchmark's, as calibration.json chose it)"


def parse_statistic(text: str) -> str:
    """The canonical name of a statistic (``"median"``, ``"mean"``, ``"p10"``), or ``ValueError``
    naming the accepted forms. Leading zeros and case are normalised (``"P05"`` → ``"p5"``)."""
    name = str(text).strip().lower()
    if name in ("median", "mean"):
        return name
    m = _PERCENTILE.fullmatch(name.replace("p0", "p", 1) if name.startswith("p0") else name)
    if m is None:
        raise ValueError(f"unknown statistic {text!r}; fix: use {STATISTIC_FORMS}")
    return f"p{int(m.group(1))}"


def is_statistic(text: str) -> bool:
    try:
        parse_statistic(text)
    except ValueError:
        return False
    return True


def quantile_of(statistic: str) -> float | None:
    """The quantile level of a ``pNN`` statistic (``"p10"`` → 0.1); ``None`` for median and mean."""
    name = parse_statistic(statistic)
    return int(name[1:]) / 100.0 if name.startswith("p") else None


def describe(statistic: str) -> str:
    """How a report names the statistic: ``"10th percentile (Harrell–Davis)"``."""
    q = quantile_of(statistic)
    if q is None:
        return parse_statistic(statistic)
    k = round(q * 100)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix} percentile (Harrell–Davis)"
