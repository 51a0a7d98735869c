"""`history report`: one self-contained HTML page with a trend chart per benchmark.

Templates render, this module computes (ARCHITECTURE habit 10): the charts are inline SVG whose
coordinates are computed here as numbers; every text (benchmark names, commits, units) goes
through jinja2's autoescape in ``gate/render/templates/history.html.j2``, and links through
:func:`gate.render.filters.safe_url`. The page has no external URL (no JS, CSS or font fetched),
so it can be published as GitHub Pages or opened from an artifact.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from gate.history import units
from gate.history.changes import MIN_POINTS, Point, Trend, series_of
from gate.history.store import Entry
from gate.model import utc_timestamp
from gate.render import filters
from gate.render.render import _environments

WIDTH, HEIGHT = 760, 220
PAD_L, PAD_R, PAD_T, PAD_B = 84, 12, 12, 34
GROUPS_SHOWN = 20  # newest commit ranges listed at the top; older ones behind a <details>
MAX_MARKED_POINTS = 120  # longer series are drawn as a line without a dot (and link) per commit
X_TICKS = 5
# A hole in the dates is marked (and the line broken) when two neighbouring points are further
# apart than this many days and ten times the series' usual spacing: a nightly that stopped for
# weeks, or a runner replaced (hyper's history has a 17-month hole before a new runner).
GAP_DAYS = 30.0
Y_TICKS = 4


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _days(date: str) -> float:
    return datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp() / 86400.0


def _nice_ticks(lo: float, hi: float, n: int = Y_TICKS) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten) inside [lo, hi]: labels a reader can take in."""
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def _label(value: float, unit: str) -> str:
    """A tick label with its unit: time units scaled so the number reads (32.6 ms, not 3.26e+07
    ns); other large numbers with k/M/G."""
    v, u = units.readable(value, unit)
    if u == unit and abs(v) >= 1e4:
        for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
            if abs(v) >= scale:
                return f"{filters.fmt_number(v / scale)}{suffix} {u}".strip()
    return f"{filters.fmt_number(v)} {u}".strip()


def _gaps(pts: Sequence[Point]) -> list[int]:
    """Indices i where the dates jump between point i-1 and i (see GAP_DAYS)."""
    if len(pts) < 3:
        return []
    days = [_days(p.date) for p in pts]
    steps = [b - a for a, b in itertools.pairwise(days)]
    usual = float(statistics.median(steps))
    limit = max(GAP_DAYS, 10.0 * usual)
    return [i + 1 for i, d in enumerate(steps) if d > limit]


def _chart(
    s: Trend, cps: list[dict[str, Any]], repo_url: str | None, outliers: frozenset[str] = frozenset()
) -> dict[str, Any]:
    pts = s.points
    estimates = [p.estimate for p in pts]
    # The y range follows the values, not their CIs: one night with a wide CI would otherwise
    # squash every other night into a flat line; the band is clipped to the chart.
    lo, hi = min(estimates), max(estimates)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        lo, hi = lo - abs(lo) * 0.05 - 1e-12, hi + abs(hi) * 0.05 + 1e-12
    span = hi - lo
    lo, hi = lo - 0.08 * span, hi + 0.08 * span
    n = len(pts)
    inner_w, inner_h = WIDTH - PAD_L - PAD_R, HEIGHT - PAD_T - PAD_B
    ybottom = HEIGHT - PAD_B

    def x(i: float) -> float:
        return PAD_L + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    def y(v: float) -> float:
        return min(max(PAD_T + inner_h * (1 - (v - lo) / (hi - lo)), PAD_T), ybottom)

    gaps = _gaps(pts)
    pieces = list(itertools.pairwise([0, *gaps, n]))
    band = []
    if any(p.ci for p in pts):
        for a, b in pieces:
            lows = [p.ci[0] if p.ci else p.estimate for p in pts[a:b]]
            highs = [p.ci[1] if p.ci else p.estimate for p in pts[a:b]]
            upper = [f"{_fmt(x(a + j))},{_fmt(y(h))}" for j, h in enumerate(highs)]
            lower = [f"{_fmt(x(a + j))},{_fmt(y(lo_))}" for j, lo_ in reversed(list(enumerate(lows)))]
            band.append(" ".join(upper + lower))
    xy = [(_fmt(x(i)), _fmt(y(p.estimate))) for i, p in enumerate(pts)]
    # the line is broken at each gap: no slope is drawn across months without data
    lines = [" ".join(f"{px},{py}" for px, py in xy[a:b]) for a, b in pieces]
    # a dot, tooltip and commit link per night cost ~300 bytes each: a year of 500 benchmarks
    # would make a page of tens of MB; longer series show the line, band and change points only
    # (and their tooltips, three formatted values each, are not computed)
    points = (
        [
            {
                "x": px,
                "y": py,
                "title": f"{p.commit[:12]} · {p.date} · {_label(p.estimate, s.unit)}"
                + (f" [{_label(p.ci[0], s.unit)}, {_label(p.ci[1], s.unit)}]" if p.ci else ""),
                "href": filters.safe_url(f"{repo_url}/commit/{p.commit}") if repo_url else None,
            }
            for p, (px, py) in zip(pts, xy, strict=True)
        ]
        if n <= MAX_MARKED_POINTS
        else []
    )
    marks = []
    for cp in cps:
        xm = (x(cp["index"] - 1) + x(cp["index"])) / 2
        marks.append(
            {
                "x": _fmt(xm),
                "before": cp["before"],
                "after": cp["after"],
                "change": filters.fmt_pct(cp["change_pct"]),
                "ci": filters.fmt_pct_ci(cp["change_ci"]),
                "direction": cp["direction"],
                "href": filters.safe_url(f"{repo_url}/compare/{cp['before']}...{cp['after']}")
                if repo_url
                else None,
                "together": [b for b in cp["moved_together"] if b != s.name],
            }
        )
    gap_marks = [
        {
            "x": _fmt((x(i - 1) + x(i)) / 2),
            "title": f"no data from {pts[i - 1].date[:10]} to {pts[i].date[:10]} "
            f"({_days(pts[i].date) - _days(pts[i - 1].date):.0f} days)",
        }
        for i in gaps
    ]
    blips = [
        {
            "x": _fmt(x(i)),
            "y": _fmt(y(p.estimate)),
            "title": f"outlier (blip): {p.commit[:12]} · {p.date[:10]}",
        }
        for i, p in enumerate(pts)
        if p.commit in outliers
    ]
    ticks = [{"y": _fmt(y(v)), "label": _label(v, s.unit)} for v in _nice_ticks(lo, hi)]
    xticks = sorted({round(k * (n - 1) / (X_TICKS - 1)) for k in range(X_TICKS)}) if n > 1 else [0]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "lines": lines,
        "bands": band,
        "points": points,
        "marks": marks,
        "gaps": gap_marks,
        "blips": blips,
        "ticks": ticks,
        "xticks": [{"x": _fmt(x(i)), "label": pts[i].date[:10]} for i in xticks],
        "x0": PAD_L,
        "x1": WIDTH - PAD_R,
        "ytop": PAD_T,
        "ybottom": ybottom,
        "first": f"{pts[0].commit[:10]} {pts[0].date[:10]}",
        "last": f"{pts[-1].commit[:10]} {pts[-1].date[:10]}",
    }


def history_view(
    entries: Sequence[Entry],
    changes: dict[str, Any],
    *,
    repo_url: str | None = None,
    title: str | None = None,
    series: Sequence[Trend] | None = None,
) -> dict[str, Any]:
    """The page's data; ``series`` are ``series_of(entries)`` when the caller has them already."""
    by_series: dict[str, list[dict[str, Any]]] = {}
    for cp in changes["change_points"]:
        by_series.setdefault(cp.get("series") or cp["benchmark"], []).append(cp)
    pending = {p["series"]: p for p in changes.get("pending", [])}
    outliers: dict[str, set[str]] = {}
    for o in changes.get("outliers", []):
        outliers.setdefault(o["series"], set()).add(o["commit"])
    benches: list[dict[str, Any]] = []
    for s in series_of(entries) if series is None else series:
        if not s.points:
            continue
        cps = by_series.get(s.name, [])
        p = pending.get(s.name)
        benches.append(
            {
                "name": s.name,
                "short": filters.shorten_middle(s.name, 100),
                "nights": len(s.points),
                "n_changes": len(cps),
                "chart": _chart(s, cps, repo_url, frozenset(outliers.get(s.name, ()))),
                "latest": _label(s.points[-1].estimate, s.unit),
                "outliers": len(outliers.get(s.name, ())),
                "pending": f"a step at {p['after'][:10]} ({p['after_date'][:10]}) waits for confirmation "
                f"({p['points_since']} of {changes['detector'].get('min_segment', 3)} points at the new level)"
                if p
                else None,
            }
        )
    benches.sort(key=lambda b: (-b["n_changes"], b["name"]))
    groups = [
        {
            "before": g["before"],
            "after": g["after"],
            "benchmarks": g["benchmarks"],
            "date": str(g.get("after_date", ""))[:10],
            "href": filters.safe_url(f"{repo_url}/compare/{g['before']}...{g['after']}")
            if repo_url
            else None,
        }
        for g in changes["groups"]
    ]
    return {
        "title": title or "ordertrap-gate: benchmark history",
        "created_at": utc_timestamp(),
        "benchmarks": benches,
        "groups": groups[:GROUPS_SHOWN],
        "groups_more": groups[GROUPS_SHOWN:],
        "n_changes": len(changes["change_points"]),
        "detector": changes["detector"],
        "short_series": [
            {"name": x.get("series") or x["benchmark"], "points": x["points"]}
            for x in changes.get("short_series", [])
        ],
        "min_points": MIN_POINTS,
        "n_outliers": len(changes.get("outliers", [])),
        "warnings": changes.get("warnings", []),
    }


def render_history(view: dict[str, Any]) -> str:
    _, html_env = _environments(None)
    return html_env.get_template("history.html.j2").render(v=view)
