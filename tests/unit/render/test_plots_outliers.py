"""Plots that survive outliers, tested by their data: the value axis of the per-benchmark figure
(limits, clipped points drawn on its edge, numbered execution-order axis) and the carry-over
heatmap's colour scale and significance marks (on the matplotlib objects)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from gate.render import plots, render
from gate.render.filters import split_quantity
from tests.fakes import analyses

SVG = "{http://www.w3.org/2000/svg}"


def _with_outlier(factor: float = 40.0) -> dict:
    b = analyses.benchmark("BenchmarkSum64/4KB", "regression", change_pct=5.0, base_estimate=250e-9, n=15)
    b["samples"]["head"]["value"][3] *= factor  # one slow trial (a page fault, a GC pause)
    return b


def _figure(b: dict) -> ET.Element:
    svg = plots.benchmark_figure(b["samples"], b["base"], b["head"], b["unit"])
    assert svg is not None
    return ET.fromstring(svg)


def _plot_area(root: ET.Element) -> tuple[float, float]:
    rect = root.find(f"{SVG}rect")
    assert rect is not None
    top = float(rect.get("y", "nan"))
    return top, top + float(rect.get("height", "nan"))


def test_value_axis_keeps_the_bulk_and_counts_what_it_leaves_out() -> None:
    rng = np.random.default_rng(3)
    base = 100 * (1 + rng.normal(0, 0.01, 15))
    head = 105 * (1 + rng.normal(0, 0.01, 15))
    head[3] = 4000.0
    axis = plots.value_axis([base, head], keep=[99.0, 101.0, 104.0, 106.0])
    assert (axis.above, axis.below) == (1, 0)
    assert axis.lo < min(base.min(), 99.0) and axis.hi > max(np.delete(head, 3).max(), 106.0)
    assert axis.hi < 200  # the 4000 does not stretch the axis
    assert axis.clip(4000.0) == 1 and axis.clip(100.0) == 0


def test_value_axis_keeps_every_value_of_a_tiny_sample_and_both_modes_of_a_bimodal_one() -> None:
    assert plots.value_axis([np.array([1.0, 1.1, 50.0])]).above == 0  # 3 values: no quartiles
    bimodal = np.array([100.0] * 8 + [130.0] * 8)
    axis = plots.value_axis([bimodal])
    assert (axis.above, axis.below) == (0, 0) and axis.lo < 100 and axis.hi > 130


def test_the_estimates_and_cis_are_always_on_the_axis() -> None:
    values = np.array([1.0] * 10 + [1.001] * 5)
    axis = plots.value_axis([values], keep=[0.5, 1.7])  # a CI far wider than the values
    assert axis.lo < 0.5 and axis.hi > 1.7


def test_one_outlier_no_longer_squashes_the_figure() -> None:
    b = _with_outlier()
    root = _figure(b)
    top, bottom = _plot_area(root)
    dots = [float(c.get("cy", "nan")) for c in root.iter(f"{SVG}circle") if c.get("r") == "2.3"]
    assert len(dots) == 2 * (30 - 1)  # every value but the outlier, in both panels
    assert all(top <= y <= bottom for y in dots)
    # the 29 ordinary values use most of the height, not a sliver at the bottom
    assert max(dots) - min(dots) > 0.5 * (bottom - top)
    clipped = [p for p in root.iter(f"{SVG}path") if p.get("class") == "clipped"]
    assert len(clipped) == 2  # the outlier, on the top edge of both panels, with its value
    shown = " ".join(split_quantity(b["samples"]["head"]["value"][3], "s"))  # "10.5 µs"
    for p in clipped:
        title = p.find(f"{SVG}title")
        assert title is not None and (title.text or "").endswith(shown)
    counts = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "clipped-count"]
    assert counts == ["▲ 1 above the axis (its value in the tooltip)"]


def test_the_execution_order_axis_is_numbered() -> None:
    b = _with_outlier()
    seqs = b["samples"]["base"]["seq"] + b["samples"]["head"]["seq"]
    root = _figure(b)
    ticks = [int(t.text or "") for t in root.iter(f"{SVG}text") if t.get("class") == "trial-tick"]
    assert len(ticks) >= 3 and ticks == sorted(ticks)
    assert min(seqs) <= ticks[0] and ticks[-1] <= max(seqs)
    assert any(t.text == "trial # (execution order)" for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize(("first", "last"), [(1, 1), (1, 3), (3, 120), (1000, 1012)])
def test_execution_ticks_are_whole_trials_inside_the_range(first: int, last: int) -> None:
    ticks = plots.execution_ticks(first, last)
    assert ticks and all(isinstance(t, int) and first <= t <= last for t in ticks)
    assert len(set(ticks)) == len(ticks)


def _clim(fig) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    return fig.axes[0].images[0].get_clim()


def test_small_carryover_effects_are_drawn_pale_on_a_scale_of_at_least_the_threshold() -> None:
    fig = plots.carryover_figure([[0.1, -0.08], [0.05, None]], threshold_pct=3.0)
    assert fig is not None
    assert _clim(fig) == (-3.0, 3.0)
    image = fig.axes[0].images[0]
    r, g, b, _ = image.cmap(image.norm(0.1))
    assert min(r, g, b) > 0.9  # nearly white, not the full red of the scale's end
    big = plots.carryover_figure([[12.0, -1.0]], threshold_pct=3.0)
    assert big is not None and _clim(big) == (-12.0, 12.0)  # the scale follows larger effects


def test_significant_cells_are_outlined_and_the_rest_hatched() -> None:
    fig = plots.carryover_figure([[9.0, 0.4], [0.2, None]], [[True, False], [False, None]], 3.0)
    assert fig is not None
    ax = fig.axes[0]
    marks = sorted((p.get_gid(), p.get_xy()) for p in ax.patches)
    assert marks == [
        ("not-significant", (-0.5, 0.5)),
        ("not-significant", (0.5, -0.5)),
        ("significant", (-0.5, -0.5)),
    ]
    assert ax.get_title() == "outlined: significant · hatched: not"
    none = plots.carryover_figure([[0.3, 0.4]], [[False, False]], 3.0)
    assert none is not None and none.axes[0].get_title() == "no effect is significant (all hatched)"


def test_the_report_takes_significance_from_the_analysis() -> None:
    a = analyses.order_effects()
    for b in a["benchmarks"]:
        for p in b["carryover"]["predecessors"]:
            p["significant"] = False
    page = render(a, "html")
    assert "<b>No effect is significant</b>" in page and "colour scale runs to ±11.5%" in page


def test_effects_near_the_largest_float_are_drawn_on_a_finite_scale() -> None:
    # a finite effect is a valid analysis.json value; the scale's width (2 × limit) stays finite
    matrix: list[list[float | None]] = [[1.5e308, None], [-1e308, 2.0]]
    lim = plots.heatmap_limit(matrix, 3.0)
    assert math.isfinite(2 * lim) and lim > 1e299
    image = plots.carryover_heatmap(matrix, None, 3.0)
    assert image is not None and image.startswith("data:image/png;base64,")
