"""`history report`: one self-contained HTML page with a trend chart per benchmark.

Templates render, this module computes (ARCHITECTURE habit 10): the charts are inline SVG whose
coordinates are computed here as numbers; every text (benchmark names, commits, units) goes
through jinja2's autoescape in ``gate/render/templates/history.html.j2``, and links through
:func:`gate.render.filters.safe_url`. The page has no external URL (no JS, CSS or font fetched),
so it can be published as GitHub Pages or opened from an artifact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gate.history.changes import Trend, series_of
from gate.history.store import Entry
from gate.model import utc_timestamp
from gate.render import filters
from gate.render.render import _environments

WIDTH, HEIGHT = 760, 220
PAD_L, PAD_R, PAD_T, PAD_B = 64, 12, 12, 28
GROUPS_SHOWN = 20  # newest commit ranges listed at the top; older ones behind a <details>
MAX_MARKED_POINTS = 120  # longer series are drawn as a line without a dot (and link) per commit


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _chart(s: Trend, cps: list[dict[str, Any]], repo_url: str | None) -> dict[str, Any]:
    pts = s.points
    lows = [p.ci[0] if p.ci else p.estimate for p in pts]
    highs = [p.ci[1] if p.ci else p.estimate for p in pts]
    lo, hi = min(lows), max(highs)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        lo, hi = lo - abs(lo) * 0.05 - 1e-12, hi + abs(hi) * 0.05 + 1e-12
    span = hi - lo
    lo, hi = lo - 0.05 * span, hi + 0.05 * span
    n = len(pts)
    inner_w, inner_h = WIDTH - PAD_L - PAD_R, HEIGHT - PAD_T - PAD_B

    def x(i: int) -> float:
        return PAD_L + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    def y(v: float) -> float:
        return PAD_T + inner_h * (1 - (v - lo) / (hi - lo))

    band = None
    if any(p.ci for p in pts):
        upper = [f"{_fmt(x(i))},{_fmt(y(highs[i]))}" for i in range(n)]
        lower = [f"{_fmt(x(i))},{_fmt(y(lows[i]))}" for i in reversed(range(n))]
        band = " ".join(upper + lower)
    points = [
        {
            "x": _fmt(x(i)),
            "y": _fmt(y(p.estimate)),
            "title": f"{p.commit[:12]} · {p.date} · {filters.fmt_number(p.estimate)} {s.unit}"
            + (f" [{filters.fmt_number(p.ci[0])}, {filters.fmt_number(p.ci[1])}]" if p.ci else ""),
            "href": filters.safe_url(f"{repo_url}/commit/{p.commit}") if repo_url else None,
        }
        for i, p in enumerate(pts)
    ]
    line = " ".join(f"{q['x']},{q['y']}" for q in points)
    if n > MAX_MARKED_POINTS:
        # a dot, tooltip and commit link per night cost ~300 bytes each: a year of 500 benchmarks
        # would make a page of tens of MB; the line, band and change points carry the trend
        points = []
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
                "together": [b for b in cp["moved_together"] if b != s.benchmark],
            }
        )
    ticks = [
        {"y": _fmt(y(v)), "label": filters.fmt_number(v)}
        for v in (lo + span * 0.05, (lo + hi) / 2, hi - span * 0.05)
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "line": line,
        "band": band,
        "points": points,
        "marks": marks,
        "ticks": ticks,
        "x0": PAD_L,
        "x1": WIDTH - PAD_R,
        "ybottom": HEIGHT - PAD_B,
        "first": f"{pts[0].commit[:10]} {pts[0].date[:10]}",
        "last": f"{pts[-1].commit[:10]} {pts[-1].date[:10]}",
    }


def history_view(
    entries: Sequence[Entry],
    changes: dict[str, Any],
    *,
    repo_url: str | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    by_bench: dict[str, list[dict[str, Any]]] = {}
    for cp in changes["change_points"]:
        by_bench.setdefault(cp["benchmark"], []).append(cp)
    benches: list[dict[str, Any]] = []
    for s in series_of(entries):
        if not s.points:
            continue
        cps = by_bench.get(s.benchmark, [])
        benches.append(
            {
                "name": s.benchmark,
                "short": filters.shorten_middle(s.benchmark, 80),
                "unit": s.unit,
                "nights": len(s.points),
                "n_changes": len(cps),
                "chart": _chart(s, cps, repo_url),
                "latest": filters.fmt_number(s.points[-1].estimate),
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
    }


def render_history(view: dict[str, Any]) -> str:
    _, html_env = _environments(None)
    return html_env.get_template("history.html.j2").render(v=view)
