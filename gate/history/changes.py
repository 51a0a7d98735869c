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

import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gate.errors import ConfigError, InputError
from gate.history.series import Point, Trend, series_of, series_with_warnings
from gate.history.store import Entry

__all__ = ["Point", "Trend", "find_changes", "series_of"]

CHANGES_SCHEMA = 1
# Otava's defaults are window 50 and p 0.001; 30 nights is a month of nightly runs, the window
# used in the comparison behind docs/history.md.
WINDOW = 30
MAX_PVALUE = 0.001
MIN_POINTS = 6  # fewer nights cannot hold two segments Otava would test
# A level must hold this many consecutive points to be a level (docs/history.md, "Blips"): a
# stretch of one or two outlying nights between change points is named as outliers and the series
# is tested again without them; a step in the newest nights is `pending` until it has held this
# long. 3 is the smallest length that separates the 1-2 night blips seen on real histories
# (django-asv, hyper) from steps; eval/history_blips.py measures what it costs in detection.
MIN_SEGMENT = 3
BLIP_PASSES = 3  # detect → drop blips → detect again, at most this often
# Points further than this many robust standard deviations from the median of their
# neighbourhood (MIN_SEGMENT - 1 points on each side) are outliers before Otava sees them: a
# Hampel filter (Hampel 1974, JASA 69:383; Pearson et al. 2016, "Generalized Hampel filters",
# EURASIP J. Adv. Signal Process.). A single night 40 % off hides a lasting 8 % step from
# E-Divisive on the same series (tests/unit/history/test_blips.py); with a half-width of
# MIN_SEGMENT - 1, a run of MIN_SEGMENT points is the majority of its window and is never taken.
HAMPEL_SIGMAS = 5.0
# --no-deps: only otava.analysis is used, which needs numpy and scipy (already the gate's); the
# package's metadata would pin numpy 2.2.0 and install ~40 service clients (docs/history.md)
INSTALL_FIX = "pip install --no-deps apache-otava==0.8.0"


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


@dataclass(frozen=True)
class _Found:
    """The change points of one series (indices into its points), its outliers and a pending step."""

    index: list[int]
    outliers: list[int]
    pending: int | None
    pvalues: dict[int, float]


def _segments(n: int, idx: list[int]) -> list[tuple[int, int]]:
    bounds = [0, *idx, n]
    return list(itertools.pairwise(bounds))


def _short_segments(v: np.ndarray, idx: list[int]) -> tuple[list[int], list[int]]:
    """(points of blips, change points to drop) for the segments shorter than MIN_SEGMENT before
    the last one. A short segment whose neighbours sit at about one level (the series returns:
    it is nearer to neither side than they are to each other) is a blip: its points are
    outliers. A short segment between two different levels is a step taken in two nights: it is
    merged into the neighbour it is nearer to, so one change point remains."""
    blips: list[int] = []
    drop: list[int] = []
    segs = _segments(v.size, idx)
    for k, (a, b) in enumerate(segs[:-1]):
        if b - a >= MIN_SEGMENT:
            continue
        mid = float(np.median(v[a:b]))
        after = float(np.median(v[slice(*segs[k + 1])]))
        if k == 0:
            blips.extend(range(a, b))  # the first night or two differ from all that follows
            drop.append(b)
            continue
        before = float(np.median(v[slice(*segs[k - 1])]))
        if abs(after - before) < min(abs(mid - before), abs(mid - after)):
            # its start goes; its end stays, measured without the blip's points, and is dropped
            # by the step test (:func:`_steps`) when the series came back to where it was
            blips.extend(range(a, b))
            drop.append(a)
        else:
            drop.append(a if abs(mid - before) < abs(mid - after) else b)
    return blips, drop


def _hampel(values: np.ndarray) -> list[int]:
    """Indices of the points the Hampel filter (HAMPEL_SIGMAS) names as outliers."""
    half = MIN_SEGMENT - 1
    if values.size < 2 * half + 1:
        return []
    padded = np.pad(values, half, mode="edge")
    local = np.median(np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1), axis=1)
    resid = values - local
    # the noise's sd from the MAD of the night-to-night differences (/√2), which a step barely
    # moves; the residuals' own MAD would be shrunk by the local median and flag ordinary nights
    diffs = np.diff(values)
    scale = 1.4826 * float(np.median(np.abs(diffs - np.median(diffs)))) / math.sqrt(2.0)
    if not scale > 0:
        return []
    return [int(i) for i in np.flatnonzero(np.abs(resid) > HAMPEL_SIGMAS * scale)]


def _detect(values: np.ndarray, compute: Callable[..., Any], window: int, max_pvalue: float) -> _Found:
    """Otava's change points, with blips taken out: the Hampel filter's outliers first; then each
    short segment Otava still makes (:func:`_short_segments`): its points become outliers and the
    series is tested again without them. A short last segment is a step not yet confirmed
    (``pending``)."""
    outliers = _hampel(values)
    kept = np.delete(np.arange(values.size), outliers)
    idx: list[int] = []
    pvalues: dict[int, float] = {}
    for attempt in range(BLIP_PASSES):
        v = values[kept]
        if v.size < MIN_POINTS:
            idx = []
            break
        cps, _ = compute(v.tolist(), window_len=window, max_pvalue=max_pvalue)
        idx = sorted(int(c.index) for c in cps)
        pvalues = {int(c.index): float(c.stats.pvalue) for c in cps}
        blips, drop = _short_segments(v, idx)
        if blips and attempt < BLIP_PASSES - 1:
            outliers.extend(int(kept[i]) for i in blips)
            kept = np.delete(kept, blips)
            continue
        # the last pass: what is still short is taken out without testing again
        outliers.extend(int(kept[i]) for i in blips)
        idx = [i for i in idx if i not in set(drop)]
        break
    pending = None
    if idx and v.size - idx[-1] < MIN_SEGMENT:
        pending = int(kept[idx[-1]])
        idx = idx[:-1]
    return _Found(
        [int(kept[i]) for i in idx], sorted(outliers), pending, {int(kept[i]): p for i, p in pvalues.items()}
    )


def _steps(
    s: Trend, values: np.ndarray, found: _Found, confidence: float, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """The change points with their steps; a change point whose step CI holds 0 (no level
    change to speak of: |change| ≈ 0) is dropped and its neighbours' segments merged."""
    keep = np.ones(values.size, dtype=bool)
    keep[found.outliers] = False
    idx = list(found.index)
    while True:
        rows: list[
            tuple[int, np.ndarray, np.ndarray, float, float, float | None, tuple[float, float] | None]
        ] = []
        bounds = [0, *idx, values.size]
        for k, i in enumerate(idx):
            lo_i, hi_i = bounds[k], bounds[k + 2]
            seg_b = values[lo_i:i][keep[lo_i:i]]
            seg_a = values[i:hi_i][keep[i:hi_i]]
            if not (seg_b.size and seg_a.size):
                rows.append((i, seg_b, seg_a, 0.0, 0.0, None, None))
                continue
            med_b, med_a = float(np.median(seg_b)), float(np.median(seg_a))
            change = (med_a / med_b - 1.0) * 100.0 if med_b else None
            ci = _step_ci(seg_b, seg_a, confidence, rng) if med_b else None
            rows.append((i, seg_b, seg_a, med_b, med_a, change, ci))
        flat = [r for r in rows if r[5] is None or r[6] is None or r[6][0] <= 0.0 <= r[6][1]]
        if not flat:
            break
        weakest = min(flat, key=lambda r: abs(r[5] or 0.0))
        idx.remove(weakest[0])
    out = []
    for i, seg_b, seg_a, med_b, med_a, change, ci in rows:
        worse = (change or 0.0) < 0 if s.higher_is_better else (change or 0.0) > 0
        before = max(j for j in range(i) if keep[j])  # the last kept point before the step
        out.append(
            {
                **_series_fields(s),
                "before": s.points[before].commit,
                "after": s.points[i].commit,
                "before_date": s.points[before].date,
                "after_date": s.points[i].date,
                "index": i,
                "change_pct": change,
                "change_ci": list(ci) if ci else None,
                "confidence": confidence,
                "direction": "regression" if worse else "improvement",
                "median_before": med_b,
                "median_after": med_a,
                "nights_before": int(seg_b.size),
                "nights_after": int(seg_a.size),
                "pvalue": found.pvalues.get(i),
            }
        )
    return out


def _series_fields(s: Trend) -> dict[str, Any]:
    return {
        "series": s.name,
        "benchmark": s.benchmark,
        "machine": s.machine,
        "environment": s.environment,
        "unit": s.unit,
        "higher_is_better": s.higher_is_better,
    }


def find_changes(
    entries: Sequence[Entry],
    *,
    window: int = WINDOW,
    max_pvalue: float = MAX_PVALUE,
    confidence: float = 0.95,
    seed: int = 1,
    include_pr: bool = False,
) -> dict[str, Any]:
    """The changes document: every change point, and the groups of series per commit range;
    the series too short to test, the outliers (blips) and the steps awaiting confirmation."""
    compute = _otava()
    rng = np.random.default_rng(seed)
    found: list[dict[str, Any]] = []
    short: list[dict[str, Any]] = []
    outliers: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    all_series, warnings = series_with_warnings(entries, include_pr=include_pr)
    for s in all_series:
        if len(s.points) < MIN_POINTS:
            short.append({**_series_fields(s), "points": len(s.points)})
            continue
        values = np.array([p.estimate for p in s.points], dtype=float)
        detected = _detect(values, compute, window, max_pvalue)
        found.extend(_steps(s, values, detected, confidence, rng))
        for i in detected.outliers:
            p = s.points[i]
            outliers.append({**_series_fields(s), "commit": p.commit, "date": p.date, "estimate": p.estimate})
        if detected.pending is not None:
            p = s.points[detected.pending]
            pending.append(
                {
                    **_series_fields(s),
                    "after": p.commit,
                    "after_date": p.date,
                    "points_since": len(s.points) - detected.pending,
                }
            )
    groups: dict[tuple[str, str], list[str]] = {}
    dates: dict[tuple[str, str], str] = {}
    for cp in found:
        groups.setdefault((cp["before"], cp["after"]), []).append(cp["series"])
        dates[(cp["before"], cp["after"])] = cp["after_date"]
    for cp in found:
        cp["moved_together"] = sorted(groups[(cp["before"], cp["after"])])
    found.sort(key=lambda cp: (cp["after_date"], cp["series"]))
    newest = max((p.date for s in all_series for p in s.points), default=None)
    return {
        "schema_version": CHANGES_SCHEMA,
        "detector": {
            "library": "apache-otava",
            "window": window,
            "max_pvalue": max_pvalue,
            "min_segment": MIN_SEGMENT,
        },
        "n_series": len(all_series),
        # the newest night in the history: "recent" in the issue is counted back from here
        "newest_date": newest,
        "change_points": found,
        # newest commit range first: the one a reader (and the issue) looks at
        "groups": [
            {"before": b, "after": a, "after_date": dates[(b, a)], "benchmarks": sorted(names)}
            for (b, a), names in sorted(groups.items(), key=lambda kv: (dates[kv[0]], kv[0]), reverse=True)
        ],
        "short_series": short,
        "outliers": outliers,
        "pending": pending,
        "warnings": warnings,
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


def check_changes_match(doc: dict[str, Any], series: Sequence[Trend], path: str | Path) -> None:
    """Refuse a change-point document that was not found on these series (``history report
    --changes``): a stale file would mark its steps at the wrong commits of a grown history. It
    matches when its newest night is the history's and every change point sits at its ``after``
    commit in its series."""
    fix = "write it again from this store: `ordertrap-gate history changes --store DIR --json FILE`"
    newest = max((p.date for s in series for p in s.points), default=None)
    if doc.get("newest_date") != newest:
        raise InputError(
            f"{path} was written for a history whose newest night is {doc.get('newest_date')!r}; "
            f"the store's newest is {newest!r}",
            fix,
        )
    by_name = {s.name: s for s in series}
    for cp in doc["change_points"]:
        name = cp.get("series") or cp.get("benchmark")
        s = by_name.get(str(name))
        index = cp.get("index")
        if (
            s is None
            or not isinstance(index, int)
            or not 0 < index < len(s.points)
            or s.points[index].commit != cp.get("after")
        ):
            raise InputError(
                f"{path}: the change point of {name!r} at {str(cp.get('after'))[:12]} is not in this store's "
                "series at that place",
                fix,
            )
