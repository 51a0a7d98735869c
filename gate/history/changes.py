"""Change points of each benchmark's nightly series, found with Apache Otava.

Otava (``apache-otava`` on PyPI) implements E-Divisive means (Matteson & James, JASA 2014,
doi:10.1080/01621459.2013.849605) with the windowed split/merge of Hunter (Fleming et al., ICPE
2023, doi:10.1145/3578244.3583719), made for performance-test series. It was chosen over MongoDB's
``signal-processing-algorithms`` by the comparison in ``eval/changepoint_compare.py`` (table and
reasons in docs/history.md). The detection is Otava's; this module only builds the series, names
the commit range of each change point, bootstraps a CI for the step and groups the benchmarks
that moved in the same commit range.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gate.errors import ConfigError, InputError
from gate.history.store import Entry, branch_entries

CHANGES_SCHEMA = 1
# Otava's defaults are window 50 and p 0.001; 30 nights is a month of nightly runs, the window
# used in the comparison behind docs/history.md.
WINDOW = 30
MAX_PVALUE = 0.001
MIN_POINTS = 6  # fewer nights cannot hold two segments Otava would test
# --no-deps: only otava.analysis is used, which needs numpy and scipy (already the gate's); the
# package's metadata would pin numpy 2.2.0 and install ~40 service clients (docs/history.md)
INSTALL_FIX = "pip install --no-deps apache-otava==0.8.0"


@dataclass(frozen=True)
class Point:
    commit: str
    date: str
    run: str
    estimate: float
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class Trend:
    benchmark: str
    unit: str
    higher_is_better: bool
    points: tuple[Point, ...]


def series_of(entries: Sequence[Entry], include_pr: bool = False) -> list[Trend]:
    """One series per benchmark, one point per commit in branch order.

    A nightly run measures the previous commit again as its base; the point of a commit is its
    first measurement (as head the night it was new), later ones stay in the store but would
    count one commit twice in the series."""
    by_bench: dict[str, list[Entry]] = {}
    for e in branch_entries(entries, include_pr=include_pr):
        if e.estimate is not None:
            by_bench.setdefault(e.benchmark, []).append(e)
    out = []
    for name in sorted(by_bench):
        seen: set[str] = set()
        points = []
        for e in by_bench[name]:
            if e.commit in seen:
                continue
            seen.add(e.commit)
            assert e.estimate is not None
            points.append(Point(e.commit, e.date, e.run, e.estimate, e.ci))
        last = by_bench[name][-1]
        out.append(Trend(name, last.unit, last.higher_is_better, tuple(points)))
    return out


def _otava() -> Any:
    try:
        from otava.analysis import compute_change_points
    except ImportError as exc:
        raise ConfigError(
            f"change-point detection needs Apache Otava, which is not installed ({exc})", INSTALL_FIX
        ) from exc
    return compute_change_points


def _step_ci(
    before: np.ndarray, after: np.ndarray, confidence: float, rng: np.random.Generator, resamples: int = 2000
) -> tuple[float, float]:
    """Percentile bootstrap of median(after)/median(before) - 1 in %, each segment resampled on
    its own (the nights are the units: Efron & Tibshirani 1993, ch. 8, two-sample problem)."""
    b = rng.choice(before, size=(resamples, before.size), replace=True)
    a = rng.choice(after, size=(resamples, after.size), replace=True)
    ratio = (np.median(a, axis=1) / np.median(b, axis=1) - 1.0) * 100.0
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(ratio, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def find_changes(
    entries: Sequence[Entry],
    *,
    window: int = WINDOW,
    max_pvalue: float = MAX_PVALUE,
    confidence: float = 0.95,
    seed: int = 1,
    include_pr: bool = False,
) -> dict[str, Any]:
    """The changes document: every change point, and the groups of benchmarks per commit range."""
    compute = _otava()
    rng = np.random.default_rng(seed)
    found: list[dict[str, Any]] = []
    all_series = series_of(entries, include_pr=include_pr)
    for s in all_series:
        if len(s.points) < MIN_POINTS:
            continue
        values = np.array([p.estimate for p in s.points], dtype=float)
        cps, _ = compute(values.tolist(), window_len=window, max_pvalue=max_pvalue)
        idx = sorted(int(c.index) for c in cps)
        pvalues = {int(c.index): float(c.stats.pvalue) for c in cps}
        bounds = [0, *idx, len(values)]
        for k, i in enumerate(idx):
            seg_b, seg_a = values[bounds[k] : i], values[i : bounds[k + 2]]
            med_b, med_a = float(np.median(seg_b)), float(np.median(seg_a))
            change = (med_a / med_b - 1.0) * 100.0 if med_b else None
            lo, hi = _step_ci(seg_b, seg_a, confidence, rng) if med_b else (None, None)
            worse = (change or 0.0) < 0 if s.higher_is_better else (change or 0.0) > 0
            found.append(
                {
                    "benchmark": s.benchmark,
                    "unit": s.unit,
                    "higher_is_better": s.higher_is_better,
                    "before": s.points[i - 1].commit,
                    "after": s.points[i].commit,
                    "before_date": s.points[i - 1].date,
                    "after_date": s.points[i].date,
                    "index": i,
                    "change_pct": change,
                    "change_ci": [lo, hi] if lo is not None else None,
                    "confidence": confidence,
                    "direction": "regression" if worse else "improvement",
                    "median_before": med_b,
                    "median_after": med_a,
                    "nights_before": int(seg_b.size),
                    "nights_after": int(seg_a.size),
                    "pvalue": pvalues[i],
                }
            )
    groups: dict[tuple[str, str], list[str]] = {}
    dates: dict[tuple[str, str], str] = {}
    for cp in found:
        groups.setdefault((cp["before"], cp["after"]), []).append(cp["benchmark"])
        dates[(cp["before"], cp["after"])] = cp["after_date"]
    for cp in found:
        cp["moved_together"] = sorted(groups[(cp["before"], cp["after"])])
    found.sort(key=lambda cp: (cp["after_date"], cp["benchmark"]))
    return {
        "schema_version": CHANGES_SCHEMA,
        "detector": {"library": "apache-otava", "window": window, "max_pvalue": max_pvalue},
        "n_series": len(all_series),
        "change_points": found,
        # newest commit range first: the one a reader (and the issue) looks at
        "groups": [
            {"before": b, "after": a, "after_date": dates[(b, a)], "benchmarks": sorted(names)}
            for (b, a), names in sorted(groups.items(), key=lambda kv: (dates[kv[0]], kv[0]), reverse=True)
        ],
    }


def changes_json_text(doc: dict[str, Any]) -> str:
    """The change-point document as ``history changes --json`` writes it (read by
    :func:`read_changes_json`; docs/history.md)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def read_changes_json(path: str | Path) -> dict[str, Any]:
    """The document ``history changes --json`` wrote; refused with the fix when it is not one."""
    fix = "pass the file written by `ordertrap-gate history changes --json`"
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: unreadable ({exc})", fix) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("change_points"), list):
        raise InputError(f"{path} has no change_points list", fix)
    version = doc.get("schema_version")
    if version != CHANGES_SCHEMA:
        raise InputError(
            f"{path} has schema_version {version!r}; this gate reads {CHANGES_SCHEMA}",
            "write it again with this gate's `ordertrap-gate history changes --json`",
        )
    return doc
