"""Plots for the HTML report: matplotlib's Agg canvas → inline ``data:image/png;base64`` URIs.

* (inline SVG, see :func:`benchmark_figure`) violin-scatter of the raw samples per version — the hybrid plot of NIST TN 1855 (Figures 2-3):
  the violin shows the shape, the dots show every sample, so sparse long tails stay visible;
* values in execution order coloured by version — drift and warm-up show as trends;
* fixed vs random order: medians (diamonds) and CIs (bars) like OrderSage Figure 5;
* carry-over heatmap: predecessor × benchmark effect in %;
* calibration: instability against cost.

No user text is drawn into a figure: axes are labelled by index and the HTML around the image
names them. That keeps hostile names inert and avoids matplotlib's mathtext (``$``) and
missing-glyph warnings (which pytest turns into errors). Figures are built with the
object-oriented API (``Figure`` + Agg, no pyplot global state) and fixed margins instead of
``tight_layout`` (which costs more than the drawing itself).
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from gate.bidi import show_bidi

BASE_COLOR = "#4c72b0"
HEAD_COLOR = "#dd8452"
DPI = 80


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _finite(values: Any) -> np.ndarray:
    arr = np.asarray([v for v in (values or []) if isinstance(v, int | float)], dtype=float)
    return arr[np.isfinite(arr)]


def _ci(ci: Any) -> tuple[float, float] | None:
    if isinstance(ci, Sequence) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci):
        return float(ci[0]), float(ci[1])
    return None


def _ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    """About ``n`` round tick values covering [lo, hi] (1-2-5 steps)."""
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _kde(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density with Scott's bandwidth (what matplotlib's violinplot uses)."""
    h = float(np.std(values, ddof=1)) * len(values) ** (-1 / 5)
    if not math.isfinite(h) or h <= 0:
        return np.zeros_like(grid)
    z = (grid[:, None] - values[None, :]) / h
    return np.exp(-0.5 * z * z).sum(axis=1)


def benchmark_figure(
    samples: Mapping[str, Any] | None,
    base: Mapping[str, Any] | None,
    head: Mapping[str, Any] | None,
    unit: str = "",
) -> str | None:
    """Violin-scatter per version (left) and values in execution order (right), as inline SVG.

    Hand-drawn SVG rather than matplotlib: a report shows up to ``max_plots`` of these and
    matplotlib spends 50-250 ms per figure on tick and text layout on a shared 2-core runner,
    which alone would break the 2 s budget for 5,000 benchmarks. The SVG contains only numbers
    formatted here and fixed labels, never user text."""
    from gate.render.filters import split_quantity

    samples = samples or {}
    series = []
    for key, color, summary in (("base", BASE_COLOR, base), ("head", HEAD_COLOR, head)):
        s = samples.get(key) or {}
        values = _finite(s.get("value"))
        seq = s.get("seq") or []
        if len(seq) >= len(values):
            seq_arr = np.asarray(seq[: len(values)], dtype=float)
        else:
            seq_arr = np.arange(1, len(values) + 1, dtype=float)
        series.append((key, values, seq_arr, color, summary or {}))
    if not any(len(v) for _, v, _, _, _ in series):
        return None
    ys = np.concatenate([v for _, v, _, _, _ in series])
    for *_, summary in series:
        ci = _ci(summary.get("ci"))
        if ci:
            ys = np.concatenate([ys, np.asarray(ci)])
    lo, hi = float(ys.min()), float(ys.max())
    pad = (hi - lo) * 0.08 or abs(hi) * 0.01 or 1.0
    lo, hi = lo - pad, hi + pad
    width, height, top, bottom = 620, 190, 22, 24
    panels = ((78, 310), (372, 610))  # x ranges of the two panels

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="samples per version and in execution order" '
        'font-family="sans-serif" font-size="10">'
    ]
    for x0, x1 in panels:
        out.append(
            f'<rect x="{x0}" y="{top}" width="{x1 - x0}" height="{height - top - bottom}" fill="none" stroke="#999"/>'
        )
    for t in _ticks(lo, hi):
        number, tick_unit = split_quantity(t, unit)
        label = html.escape(show_bidi(f"{number} {tick_unit}".strip()))  # the unit comes from the analysis
        out.append(f'<text x="{panels[0][0] - 4}" y="{y(t) + 3:.1f}" text-anchor="end">{label}</text>')
        out.append(
            f'<line x1="{panels[0][0] - 2}" x2="{panels[0][0]}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#999"/>'
        )
    out.append(f'<text x="{sum(panels[0]) / 2}" y="14" text-anchor="middle">samples per version</text>')
    out.append(
        f'<text x="{sum(panels[1]) / 2}" y="14" text-anchor="middle">in execution order (trial)</text>'
    )
    rng = np.random.default_rng(0)  # jitter only; a fixed seed keeps the report deterministic
    slot = (panels[0][1] - panels[0][0]) / 2
    for i, (key, values, _seq, color, summary) in enumerate(series):
        cx = panels[0][0] + slot * (i + 0.5)
        out.append(f'<text x="{cx:.1f}" y="{height - 8}" text-anchor="middle">{key}</text>')
        if len(values) >= 2 and np.ptp(values) > 0:
            grid = np.linspace(values.min(), values.max(), 40)
            dens = _kde(values, grid)
            if dens.max() > 0:
                half = dens / dens.max() * slot * 0.38
                pts = [f"{cx + w:.1f},{y(g):.1f}" for g, w in zip(grid, half, strict=True)]
                pts += [f"{cx - w:.1f},{y(g):.1f}" for g, w in zip(grid[::-1], half[::-1], strict=True)]
                out.append(
                    f'<polygon points="{" ".join(pts)}" fill="{color}" fill-opacity="0.25" stroke="none"/>'
                )
        for v, j in zip(values, rng.uniform(-0.12, 0.12, len(values)), strict=True):
            out.append(f'<circle cx="{cx + j * slot:.1f}" cy="{y(v):.1f}" r="2.3" fill="{color}"/>')
        ci = _ci(summary.get("ci"))
        est = summary.get("estimate")
        bx = cx + slot * 0.42
        if ci:
            out.append(
                f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{y(ci[0]):.1f}" y2="{y(ci[1]):.1f}" stroke="#000"/>'
            )
            for c in ci:
                out.append(
                    f'<line x1="{bx - 3:.1f}" x2="{bx + 3:.1f}" y1="{y(c):.1f}" y2="{y(c):.1f}" stroke="#000"/>'
                )
        if isinstance(est, int | float) and math.isfinite(est):
            ey = y(est)
            out.append(f'<path d="M{bx:.1f},{ey - 4:.1f}l4,4l-4,4l-4,-4z" fill="#000"/>')
    seqs = np.concatenate([s for _, v, s, _, _ in series if len(v)])
    s_lo, s_hi = float(seqs.min()), float(seqs.max())
    s_span = (s_hi - s_lo) or 1.0
    x0, x1 = panels[1]
    for key, values, seq, color, _ in series:
        for sx, v in zip(seq, values, strict=True):
            px = x0 + 6 + (sx - s_lo) / s_span * (x1 - x0 - 12)
            out.append(
                f'<circle cx="{px:.1f}" cy="{y(v):.1f}" r="2.3" fill="{color}"><title>{key}</title></circle>'
            )
    for i, (key, _v, _s, color, _) in enumerate(series):
        lx = x1 - 70 + i * 36
        out.append(f'<circle cx="{lx}" cy="{height - 11}" r="3" fill="{color}"/>')
        out.append(f'<text x="{lx + 6}" y="{height - 8}">{key}</text>')
    out.append(f'<text x="{x0}" y="{height - 8}">{s_lo:.0f}</text>')
    out.append(f'<text x="{x1 - 80}" y="{height - 8}" text-anchor="end">{s_hi:.0f}</text>')
    out.append("</svg>")
    return "".join(out)


def order_figure(tests: Sequence[Mapping[str, Any]]) -> str | None:
    """Fixed vs random medians and CIs per benchmark, in % of the fixed-order median, so
    benchmarks of different scales share one axis (OrderSage Figure 5 draws one panel each)."""
    rows = []
    for t in tests:
        fm = t.get("fixed_median")
        if not isinstance(fm, int | float) or fm == 0:
            continue

        def rel(x: Any, fm: float = fm) -> float:
            return (x / fm - 1) * 100 if isinstance(x, int | float) else math.nan

        rows.append(
            (
                rel(t.get("fixed_ci_low")),
                0.0,
                rel(t.get("fixed_ci_high")),
                rel(t.get("random_ci_low")),
                rel(t.get("random_median")),
                rel(t.get("random_ci_high")),
                bool(t.get("significant")),
            )
        )
    if not rows:
        return None
    n = len(rows)
    fig = Figure(figsize=(max(6.0, min(0.45 * n + 1.5, 12.0)), 2.8), dpi=DPI)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.86)
    ax = fig.subplots()
    x = np.arange(1, n + 1)
    for i, (flo, fmed, fhi, rlo, rmed, rhi, sig) in enumerate(rows):
        xi = x[i]
        ax.vlines(xi - 0.15, flo, fhi, color=BASE_COLOR, linewidth=4, alpha=0.6)
        ax.plot([xi - 0.15], [fmed], "D", color=BASE_COLOR, markersize=4)
        ax.vlines(xi + 0.15, rlo, rhi, color=HEAD_COLOR, linewidth=4, alpha=0.6)
        ax.plot([xi + 0.15], [rmed], "D", color=HEAD_COLOR, markersize=4)
        if sig:
            ax.axvspan(xi - 0.45, xi + 0.45, color="#d62728", alpha=0.08, linewidth=0)
    ax.axhline(0, color="grey", linewidth=0.6, linestyle="--")
    ax.set_xticks(x, [str(i) for i in x])
    ax.set_xlim(0.4, n + 0.6)
    ax.set_ylabel("% of fixed-order median", fontsize=8)
    ax.set_xlabel("benchmark # (table below)", fontsize=8)
    ax.set_title("blue: fixed order · orange: random order · shaded: order matters", fontsize=9)
    ax.tick_params(labelsize=7)
    return _png(fig)


def carryover_heatmap(matrix: Sequence[Sequence[Any]]) -> str | None:
    """Rows = benchmarks, columns = predecessors, colour = effect in % (missing cells blank)."""
    data = np.array(
        [[v if isinstance(v, int | float) else np.nan for v in row] for row in matrix], dtype=float
    )
    if data.size == 0 or not np.isfinite(data).any():
        return None
    n_rows, n_cols = data.shape
    lim = float(np.nanmax(np.abs(data))) or 1.0
    fig = Figure(
        figsize=(max(3.0, min(0.35 * n_cols + 2.0, 12.0)), max(2.2, min(0.3 * n_rows + 1.2, 12.0))), dpi=DPI
    )
    fig.subplots_adjust(left=0.14, right=0.86, bottom=0.16, top=0.92)
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid(data), cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    cbar = fig.colorbar(image, ax=ax, fraction=0.05)
    cbar.set_label("effect %", fontsize=8)
    cbar.ax.tick_params(labelsize=7)
    ax.set_xticks(np.arange(n_cols), [f"P{i + 1}" for i in range(n_cols)])
    ax.set_yticks(np.arange(n_rows), [f"B{i + 1}" for i in range(n_rows)])
    ax.set_xlabel("predecessor", fontsize=8)
    ax.set_ylabel("benchmark", fontsize=8)
    ax.tick_params(labelsize=7)
    return _png(fig)


def calibration_figure(points: Sequence[Mapping[str, Any]], threshold: float | None) -> str | None:
    """Instability against cost. ``points``: [{"cost", "instability", "stable", "curve"}] where
    an optional ``curve`` is a list of {"cost", "instability"} per configuration tried."""
    usable = [
        p
        for p in points
        if isinstance(p.get("cost"), int | float) and isinstance(p.get("instability"), int | float)
    ]
    if not usable:
        return None
    fig = Figure(figsize=(5.6, 3.0), dpi=DPI)
    fig.subplots_adjust(left=0.14, right=0.97, bottom=0.17, top=0.92)
    ax = fig.subplots()
    segments: list[list[tuple[float, float]]] = []
    for p in usable:
        pairs = sorted(
            (float(c["cost"]), float(c["instability"]))
            for c in p.get("curve") or []
            if isinstance(c, Mapping)
            and isinstance(c.get("cost"), int | float)
            and isinstance(c.get("instability"), int | float)
        )
        if len(pairs) >= 2:
            segments.append(pairs)
    if segments:
        # one artist for all curves: a Line2D per benchmark costs ~1 ms each to build and draw
        ax.add_collection(
            LineCollection(
                [np.asarray(seg, dtype=float) for seg in segments], colors="grey", alpha=0.35, linewidths=0.8
            )
        )
        ax.update_datalim(np.asarray([xy for seg in segments for xy in seg], dtype=float))
    stable = [p for p in usable if p.get("stable", True)]
    unstable = [p for p in usable if not p.get("stable", True)]
    if stable:
        ax.plot(
            [p["cost"] for p in stable],
            [p["instability"] for p in stable],
            "o",
            color=BASE_COLOR,
            markersize=4,
            label="stable",
        )
    if unstable:
        ax.plot(
            [p["cost"] for p in unstable],
            [p["instability"] for p in unstable],
            "x",
            color="#d62728",
            markersize=5,
            label="never stable",
        )
    if isinstance(threshold, int | float):
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=0.8, label="threshold")
    costs = [c for p in usable for c in [p["cost"]] + [q.get("cost") for q in p.get("curve") or []]]
    if all(isinstance(c, int | float) and c > 0 for c in costs):
        ax.set_xscale("log")  # full configurations cost many times the chosen ones
    ax.set_xlabel("cost (dot: chosen configuration; grey line: towards the full configuration)", fontsize=8)
    ax.set_ylabel("instability", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, frameon=False)
    return _png(fig)
