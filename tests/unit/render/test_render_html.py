"""The HTML report: self-contained, plots capped, every view present when its data is."""

from __future__ import annotations

import re

import pytest

from gate.files import calibration_json
from gate.files.analysis_model import Samples, VersionStats
from gate.render import RenderContext, plots, render
from tests.fakes import analyses


def _external_refs(page: str) -> list[str]:
    """src/href values and CSS url()s that would make the browser fetch something."""
    refs = re.findall(r'\b(?:src|href)="([^"]*)"', page) + re.findall(r"url\(([^)]*)\)", page)
    return [r for r in refs if not r.startswith(("data:", "#"))]


def test_self_contained_with_all_views() -> None:
    a = analyses.order_effects()
    cal = analyses.calibration(["alloc_big", "gc_heavy", "hash"])
    page = render(a, "html", RenderContext(calibration=cal))
    assert _external_refs(page) == []
    assert "<link" not in page and "@import" not in page
    assert page.count('<section class="bench') == 3
    assert page.count("<svg") == 3  # one violin-scatter + execution-order figure per benchmark
    assert "Order check: fixed vs random order" in page
    assert "Carry-over: predecessor × benchmark" in page
    assert "Calibration: instability vs cost" in page
    assert "join each benchmark's chosen configuration to its full configuration" in page
    assert page.count('src="data:image/png;base64,') == 3  # order, heatmap, calibration
    assert 'data-name="alloc_big" data-verdict="unchanged" data-warn="2"' in page


def test_views_absent_without_their_data() -> None:
    page = render(analyses.all_unchanged(), "html")
    assert "Order check: fixed vs random order" not in page
    assert "Carry-over: predecessor" not in page
    assert "Calibration:" not in page


def test_calibration_without_full_points() -> None:
    doc = analyses.calibration_document()
    for entry in doc["benchmarks"].values():
        del entry["n_measurements"], entry["full_instability"]
    cal = calibration_json.from_document(doc)
    page = render(analyses.all_unchanged(), "html", RenderContext(calibration=cal))
    assert "no per-configuration curve, so only the chosen configurations are shown" in page


def test_calibration_curve_is_drawn_when_present() -> None:
    doc = analyses.calibration_document()
    for entry in doc["benchmarks"].values():
        entry["curve"] = [{"cost": c, "instability": 0.05 / c} for c in (1.0, 2.0, 4.0, 8.0)]
    cal = calibration_json.from_document(doc)
    page = render(analyses.all_unchanged(), "html", RenderContext(calibration=cal))
    assert "Grey lines connect the configurations" in page


def test_plots_are_capped_and_the_table_lists_all() -> None:
    a = analyses.large(300)
    page = render(a, "html", RenderContext(max_plots=7))
    assert page.count('<section class="bench') == 7
    assert page.count("<tr data-name=") == 300
    assert "Plots are drawn for the first 7 benchmarks" in page
    first = re.findall(r'<section class="bench (\w+)"', page)
    attention = [b["verdict"] for b in a["benchmarks"][:7]]
    assert first == attention  # interesting benchmarks first, in the analysis order


def test_benchmark_figure_draws_every_sample() -> None:
    b = analyses.benchmark("x", "regression", change_pct=10.0, n=12)
    svg = plots.benchmark_figure(b["samples"], b["base"], b["head"])
    assert svg is not None and svg.startswith("<svg") and svg.endswith("</svg>")
    # each sample twice (violin-scatter and execution order) + two legend dots
    assert svg.count("<circle") == 2 * 24 + 2
    assert svg.count("<polygon") == 2  # one violin per version


def test_benchmark_figure_without_samples() -> None:
    none: VersionStats = {"estimate": None, "ci": None, "n": 0, "n_failed": 0}
    empty: Samples = {"value": [], "seq": []}
    assert plots.benchmark_figure({"base": empty, "head": empty}, none, none) is None
    one = plots.benchmark_figure({"base": {"value": [1.0], "seq": [3]}, "head": empty}, none, none)
    assert one is not None and "<polygon" not in one  # no violin from a single value


@pytest.mark.parametrize(
    "matrix", [[[None, 1.0], [2.0, None]], [[0.5]], [[None, None]]], ids=["sparse", "single", "empty"]
)
def test_heatmap(matrix: list[list[float | None]]) -> None:
    image = plots.carryover_heatmap(matrix)
    if all(v is None for row in matrix for v in row):
        assert image is None
    else:
        assert image is not None and image.startswith("data:image/png;base64,")


def test_heatmap_is_capped() -> None:
    names = [f"b{i}" for i in range(60)]
    a = analyses.all_unchanged()
    a["carryover_matrix"] = {
        "benchmarks": names,
        "predecessors": names,
        "effect_pct": [[float((i * 7 + j) % 11 - 5) for j in range(60)] for i in range(60)],
    }
    page = render(a, "html")
    assert "Showing the 40 × 40 with the largest effects (of 60 × 60" in page
