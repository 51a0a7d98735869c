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
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from gate.bidi import show_bidi
from gate.files.analysis_model import Samples, VersionStats

BASE_COLOR = "#4c72b0"
HEAD_COLOR = "#dd8452"
DPI = 80


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


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


def _iqr(values: np.ndarray) -> tuple[float, float]:
    q1, q3 = np.percentile(values, [25, 75])
    return float(q1), float(q3)


def _kde(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density with Silverman's rule-of-thumb bandwidth, 0.9 · min(sd, IQR/1.34) ·
    n^(-1/5) (Silverman 1986, eq. 3.31): the IQR keeps one outlier from smoothing the bulk flat,
    which the standard deviation alone (Scott's rule) does not."""
    sd = float(np.std(values, ddof=1))
    q1, q3 = _iqr(values)
    spread = min(sd, (q3 - q1) / 1.34) or sd
    h = 0.9 * spread * len(values) ** (-1 / 5)
    if not math.isfinite(h) or h <= 0:
        return np.zeros_like(grid)
    z = (grid[:, None] - values[None, :]) / h
    return np.exp(-0.5 * z * z).sum(axis=1)


FENCE_IQR = 3.0  # Tukey's "far out" fences: beyond Q1 − 3·IQR or Q3 + 3·IQR (EDA, 1977, ch. 2)
MIN_FENCED = 5  # fewer values per version: quartiles mean little, the axis shows every value
MIN_SPREAD = 0.005  # of the median: fences never closer than 1.5 % beyond the quartiles (ties)


@dataclass(frozen=True)
class ValueAxis:
    """The value range a benchmark figure shows, and how many values lie beyond each end."""

    lo: float
    hi: float
    below: int = 0
    above: int = 0

    def clip(self, v: float) -> int:
        """-1 below the axis, 1 above it, 0 on it."""
        return -1 if v < self.lo else 1 if v > self.hi else 0


def value_axis(samples: Sequence[np.ndarray], keep: Sequence[float] = ()) -> ValueAxis:
    """A value range that survives outliers: per version, the values inside Tukey's far-out fences
    (for samples of at least MIN_FENCED), together with every value in ``keep`` (estimates and CI
    bounds: what the verdict is about), padded by 8 %. Values outside are counted, to be drawn
    at the edge; one slow trial then no longer squashes the bulk of the values into a line."""
    inside: list[np.ndarray] = []
    for values in samples:
        if len(values) == 0:
            continue
        if len(values) < MIN_FENCED:
            inside.append(values)
            continue
        q1, q3 = _iqr(values)
        spread = max(q3 - q1, MIN_SPREAD * abs(float(np.median(values))))
        lo_fence, hi_fence = q1 - FENCE_IQR * spread, q3 + FENCE_IQR * spread
        inside.append(values[(values >= lo_fence) & (values <= hi_fence)])
    shown = np.concatenate([*inside, np.asarray([k for k in keep if math.isfinite(k)], dtype=float)])
    if shown.size == 0:
        return ValueAxis(0.0, 1.0)
    lo, hi = float(shown.min()), float(shown.max())
    pad = (hi - lo) * 0.08 or abs(hi) * 0.01 or 1.0
    lo, hi = lo - pad, hi + pad
    every = np.concatenate([np.asarray(v, dtype=float) for v in samples]) if samples else np.zeros(0)
    return ValueAxis(lo, hi, int((every < lo).sum()), int((every > hi).sum()))


def benchmark_figure(
    samples: Mapping[str, Samples], base: VersionStats, head: VersionStats, unit: str = ""
) -> str | None:
    """Violin-scatter per version (left) and values in execution order (right), as inline SVG.

    The value axis is :func:`value_axis`: values beyond it are drawn as triangles on its edge
    (``class="clipped"``, the value in a tooltip) and counted in the corner. The execution-order
    axis is numbered by trial.

    Hand-drawn SVG rather than matplotlib: a report shows up to ``max_plots`` of these and
    matplotlib spends 50-250 ms per figure on tick and text layout on a shared 2-core runner,
    which alone would break the 2 s budget for 5,000 benchmarks. The SVG contains only numbers
    formatted here and fixed labels, never user text."""
    from gate.render.filters import split_quantity

    # gate/files/analysis_json.py guarantees both versions, finite values with one trial number
    # each, and estimates and CIs that are finite or null: they are drawn as they are.
    series = []
    for key, color, summary in (("base", BASE_COLOR, base), ("head", HEAD_COLOR, head)):
        s = samples[key]
        values = np.asarray(s["value"], dtype=float)
        series.append((key, values, np.asarray(s["seq"], dtype=float), color, summary))
    if not any(len(v) for _, v, _, _, _ in series):
        return None
    keep: list[float] = []
    for *_, summary in series:
        keep += (summary["ci"] or []) + ([summary["estimate"]] if summary["estimate"] is not None else [])
    axis = value_axis([v for _, v, _, _, _ in series], keep)
    lo, hi = axis.lo, axis.hi
    width, height, top, bottom = 620, 206, 22, 42
    plot_bottom = height - bottom
    panels = ((78, 310), (372, 610))  # x ranges of the two panels

    def y(v: float) -> float:
        return top + (hi - min(max(v, lo), hi)) / (hi - lo) * (plot_bottom - top)

    def point(cx: float, v: float, color: str, title: str = "") -> str:
        side = axis.clip(v)
        if side == 0:
            tip = f"<title>{title}</title>" if title else ""
            return f'<circle cx="{cx:.1f}" cy="{y(v):.1f}" r="2.3" fill="{color}">{tip}</circle>'
        number, u = split_quantity(v, unit)
        tip = html.escape(f"{title + ': ' if title else ''}{number} {u}".strip())
        # a triangle on the edge, its apex on the axis limit pointing out of the plot
        edge, d = (top, 1) if side > 0 else (plot_bottom, -1)
        return (
            f'<path class="clipped" d="M{cx - 3:.1f},{edge + d * 5}l3,{-d * 5}l3,{d * 5}z" '
            f'fill="{color}" stroke="#000" stroke-width="0.5"><title>{tip}</title></path>'
        )

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="samples per version and in execution order" '
        'font-family="sans-serif" font-size="10">'
    ]
    for x0, x1 in panels:
        out.append(
            f'<rect x="{x0}" y="{top}" width="{x1 - x0}" height="{plot_bottom - top}" fill="none" stroke="#999"/>'
        )
    for t in _ticks(lo, hi):
        number, tick_unit = split_quantity(t, unit)
        label = html.escape(show_bidi(f"{number} {tick_unit}".strip()))  # the unit comes from the analysis
        out.append(f'<text x="{panels[0][0] - 4}" y="{y(t) + 3:.1f}" text-anchor="end">{label}</text>')
        out.append(
            f'<line x1="{panels[0][0] - 2}" x2="{panels[0][0]}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#999"/>'
        )
    out.append(f'<text x="{sum(panels[0]) / 2}" y="14" text-anchor="middle">samples per version</text>')
    out.append(f'<text x="{sum(panels[1]) / 2}" y="14" text-anchor="middle">in execution order</text>')
    clipped = [
        f"{mark} {n} {where}"
        for mark, n, where in (("▲", axis.above, "above"), ("▼", axis.below, "below"))
        if n
    ]
    if clipped:  # in the caption line under the left panel, where no data is drawn
        n_all = axis.above + axis.below
        out.append(
            f'<text class="clipped-count" x="{panels[0][0]}" y="{height - 6}" fill="#555">'
            f"{', '.join(clipped)} the axis ({'its value' if n_all == 1 else 'values'} in the tooltip)</text>"
        )
    rng = np.random.default_rng(0)  # jitter only; a fixed seed keeps the report deterministic
    slot = (panels[0][1] - panels[0][0]) / 2
    for i, (key, values, _seq, color, summary) in enumerate(series):
        cx = panels[0][0] + slot * (i + 0.5)
        out.append(f'<text x="{cx:.1f}" y="{plot_bottom + 13}" text-anchor="middle">{key}</text>')
        if len(values) >= 2 and np.ptp(values) > 0:
            g_lo, g_hi = max(float(values.min()), lo), min(float(values.max()), hi)
            grid = np.linspace(g_lo, g_hi, 40) if g_hi > g_lo else np.zeros(0)
            dens = _kde(values, grid) if grid.size else grid
            if dens.size and dens.max() > 0:
                half = dens / dens.max() * slot * 0.38
                pts = [f"{cx + w:.1f},{y(g):.1f}" for g, w in zip(grid, half, strict=True)]
                pts += [f"{cx - w:.1f},{y(g):.1f}" for g, w in zip(grid[::-1], half[::-1], strict=True)]
                out.append(
                    f'<polygon points="{" ".join(pts)}" fill="{color}" fill-opacity="0.25" stroke="none"/>'
                )
        for v, j in zip(values, rng.uniform(-0.12, 0.12, len(values)), strict=True):
            out.append(point(cx + j * slot, float(v), color))
        ci, est = summary["ci"], summary["estimate"]
        bx = cx + slot * 0.42
        if ci:
            out.append(
                f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{y(ci[0]):.1f}" y2="{y(ci[1]):.1f}" stroke="#000"/>'
            )
            for c in ci:
                out.append(
                    f'<line x1="{bx - 3:.1f}" x2="{bx + 3:.1f}" y1="{y(c):.1f}" y2="{y(c):.1f}" stroke="#000"/>'
                )
        if est is not None:
            ey = y(est)
            out.append(f'<path d="M{bx:.1f},{ey - 4:.1f}l4,4l-4,4l-4,-4z" fill="#000"/>')
    seqs = np.concatenate([s for _, v, s, _, _ in series if len(v)])
    s_lo, s_hi = float(seqs.min()), float(seqs.max())
    s_span = (s_hi - s_lo) or 1.0
    x0, x1 = panels[1]

    def sx(t: float) -> float:
        return x0 + 6 + (t - s_lo) / s_span * (x1 - x0 - 12)

    for key, values, seq, color, _ in series:
        for t, v in zip(seq, values, strict=True):
            out.append(point(sx(t), float(v), color, f"{key}, trial {t:.0f}"))
    for t in execution_ticks(s_lo, s_hi):
        out.append(
            f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{plot_bottom}" y2="{plot_bottom + 3}" stroke="#999"/>'
        )
        out.append(
            f'<text class="trial-tick" x="{sx(t):.1f}" y="{plot_bottom + 13}" text-anchor="middle">{t}</text>'
        )
    out.append(f'<text x="{x0}" y="{height - 6}">trial # (execution order)</text>')
    for i, (key, _v, _s, color, _) in enumerate(series):
        lx = x1 - 70 + i * 36
        out.append(f'<circle cx="{lx}" cy="{height - 9}" r="3" fill="{color}"/>')
        out.append(f'<text x="{lx + 6}" y="{height - 6}">{key}</text>')
    out.append("</svg>")
    return "".join(out)


def execution_ticks(first: float, last: float, n: int = 6) -> list[int]:
    """Whole trial numbers for the execution-order axis: about ``n`` round values in [first, last]."""
    ticks = sorted({round(t) for t in _ticks(first, last, n) if first <= round(t) <= last})
    return ticks or [round(first)]


def order_figure(tests: Sequence[Mapping[str, Any]]) -> str | None:
    """Fixed vs random medians and CIs per benchmark, in % of the fixed-order median, so
    benchmarks of different scales share one axis (OrderSage Figure 5 draws one panel each)."""
    # ``tests``: gate.render.view.order_tests rows, every field present; the numbers are finite or
    # null (gate/files/analysis_json.py ORDER_TEST_NUMBERS), null where the order check had too few
    # values, so null is drawn as a gap rather than refused.
    rows = []
    for t in tests:
        fm = t["fixed_median"]
        if fm is None or fm == 0:
            continue

        def rel(x: float | None, fm: float = fm) -> float:
            return math.nan if x is None else (x / fm - 1) * 100

        rows.append(
            (
                rel(t["fixed_ci_low"]),
                0.0,
                rel(t["fixed_ci_high"]),
                rel(t["random_ci_low"]),
                rel(t["random_median"]),
                rel(t["random_ci_high"]),
                bool(t["significant"]),
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


def _effects(matrix: Sequence[Sequence[float | None]]) -> np.ndarray:
    # cells are finite numbers or null (a pair never observed): gate/files/analysis_json.py
    return np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)


# The colour scale runs from −limit to +limit; its width must stay a finite float.
MAX_HEATMAP_LIMIT = 1e300


def heatmap_limit(matrix: Sequence[Sequence[float | None]], threshold_pct: float | None) -> float:
    """Half-range of the heatmap's colour scale: the largest effect, but at least the gate's
    threshold, so effects the gate would not count as a change (a 0.1 % carry-over when changes
    under 3 % are ignored) are drawn pale instead of fully saturated."""
    data = _effects(matrix)
    largest = float(np.nanmax(np.abs(data))) if np.isfinite(data).any() else 0.0
    floor = threshold_pct if threshold_pct is not None and threshold_pct > 0 else 1.0
    return min(max(largest, float(floor)), MAX_HEATMAP_LIMIT)


def carryover_figure(
    matrix: Sequence[Sequence[float | None]],
    significant: Sequence[Sequence[bool | None]] | None = None,
    threshold_pct: float | None = None,
) -> Figure | None:
    """Rows = benchmarks, columns = predecessors, colour = effect in % (missing cells blank) on a
    symmetric scale of :func:`heatmap_limit`. Significant cells are outlined in black; cells
    known not to be significant are hatched, and the title says when no cell is significant."""
    data = _effects(matrix)
    if data.size == 0 or not np.isfinite(data).any():
        return None
    n_rows, n_cols = data.shape
    lim = heatmap_limit(matrix, threshold_pct)
    fig = Figure(
        figsize=(max(3.0, min(0.35 * n_cols + 2.0, 12.0)), max(2.2, min(0.3 * n_rows + 1.2, 12.0))), dpi=DPI
    )
    fig.subplots_adjust(left=0.14, right=0.86, bottom=0.2, top=0.88)
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid(data), cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    n_sig = n_known = 0
    if significant is not None:
        for i, row in enumerate(significant[:n_rows]):
            for j, sig in enumerate(row[:n_cols]):
                if not math.isfinite(data[i, j]) or sig is None:
                    continue
                n_sig += bool(sig)
                n_known += 1
                ax.add_patch(
                    Rectangle(
                        (j - 0.5, i - 0.5),
                        1,
                        1,
                        fill=False,
                        edgecolor="black" if sig else "#8c959f",
                        linewidth=1.6 if sig else 0.0,
                        hatch=None if sig else "///",
                        gid="significant" if sig else "not-significant",
                    )
                )
    if n_known:
        title = "outlined: significant · hatched: not" if n_sig else "no effect is significant (all hatched)"
        ax.set_title(title, fontsize=8)
    cbar = fig.colorbar(image, ax=ax, fraction=0.05)
    cbar.set_label("effect %", fontsize=8)
    cbar.ax.tick_params(labelsize=7)
    ax.set_xticks(np.arange(n_cols), [f"P{i + 1}" for i in range(n_cols)])
    ax.set_yticks(np.arange(n_rows), [f"B{i + 1}" for i in range(n_rows)])
    ax.set_xlabel("predecessor", fontsize=8)
    ax.set_ylabel("benchmark", fontsize=8)
    ax.tick_params(labelsize=7)
    return fig


def carryover_heatmap(
    matrix: Sequence[Sequence[float | None]],
    significant: Sequence[Sequence[bool | None]] | None = None,
    threshold_pct: float | None = None,
) -> str | None:
    """:func:`carryover_figure` as a PNG data URI."""
    fig = carryover_figure(matrix, significant, threshold_pct)
    return None if fig is None else _png(fig)


def calibration_figure(points: Sequence[Mapping[str, Any]], threshold: float | None) -> str | None:
    """Instability against cost. ``points``: [{"cost", "instability", "stable", "curve"}] where
    ``curve`` is a (possibly empty) list of {"cost", "instability"} per configuration tried.

    cost and instability are numbers or None (gate/files/calibration_json.py: None when unbounded);
    the curve's points are kept as calibration.json has them, so each is checked here."""
    usable = [p for p in points if p["cost"] is not None and p["instability"] is not None]
    if not usable:
        return None
    fig = Figure(figsize=(5.6, 3.0), dpi=DPI)
    fig.subplots_adjust(left=0.14, right=0.97, bottom=0.17, top=0.92)
    ax = fig.subplots()
    segments: list[list[tuple[float, float]]] = []
    for p in usable:
        pairs = sorted(
            (float(c["cost"]), float(c["instability"]))
            for c in p["curve"]
            if isinstance(c, Mapping)  # curve points are dicts; their fields as written
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
    stable = [p for p in usable if p["stable"]]
    unstable = [p for p in usable if not p["stable"]]
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
    if threshold is not None:  # a positive number (calibration_json checks it), or None
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=0.8, label="threshold")
    costs = [c for p in usable for c in [p["cost"]] + [q.get("cost") for q in p["curve"]]]
    if all(isinstance(c, int | float) and c > 0 for c in costs):
        ax.set_xscale("log")  # full configurations cost many times the chosen ones
    ax.set_xlabel("cost (dot: chosen configuration; grey line: towards the full configuration)", fontsize=8)
    ax.set_ylabel("instability", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, frameon=False)
    return _png(fig)
