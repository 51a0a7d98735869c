"""A predecessor without an adjusted p is shown as "not tested", with the reason, never as a bare
"p_adj —": real `analyze` and `report --format html` processes on a log without carry-over."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_analyze_cli import analyze, make_log


@pytest.mark.slow
def test_the_html_report_says_why_predecessors_were_not_tested(tmp_path: Path) -> None:
    log = make_log(tmp_path / "run")
    assert analyze(log, "--json", tmp_path / "a.json", "--resamples", "500").returncode == 0
    doc = json.loads((tmp_path / "a.json").read_text())
    untested = [
        b for b in doc["benchmarks"] if any(p["p_adj"] is None for p in b["carryover"]["predecessors"])
    ]
    assert untested  # no carry-over in this log: the overall test is not significant anywhere
    report = tmp_path / "r.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gate",
            "report",
            str(tmp_path / "a.json"),
            "--format",
            "html",
            "--out",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    page = report.read_text()
    assert "p_adj —" not in page and "p_adj" not in page
    lines = re.findall(r"<p>Carry-over: (.*?)</p>", page)
    assert len(lines) == len(untested)
    for b in untested:
        p_overall = b["carryover"]["predecessor_test"]["p_adj"]
        expected = "1.000" if p_overall == 1.0 else f"{p_overall:.3f}"
        assert any(
            "(not tested)" in line
            and f"Kruskal-Wallis, Holm-adjusted p = {expected}) finds no difference" in line
            for line in lines
        ), (b["benchmark"], lines)


def test_each_reason_for_a_missing_adjusted_p_is_named() -> None:
    from gate.files.analysis_model import carryover_record
    from gate.render.view import carryover_note

    tested = {"predecessor": "a", "effect_pct": 9.0, "p_adj": 0.001, "significant": True}
    rest = {"predecessor": "b", "effect_pct": 0.4, "p_adj": None, "significant": False}

    def note(predecessors: list[dict[str, Any]], test: dict[str, Any]) -> str:
        c = carryover_record({"predecessors": predecessors, "predecessor_test": test})
        return carryover_note(c.predecessors, c.predecessor_test)

    assert note([tested], {"p": 1e-5, "p_adj": 1e-4, "significant": True}) == ""
    assert "Holm's step-down" in note([tested, rest], {"p": 1e-5, "p_adj": 1e-4, "significant": True})
    few = note([rest], {"p": None, "note": "needs ≥ 2 predecessor groups of ≥ 3 trials"})
    assert "could not run (needs ≥ 2 predecessor groups of ≥ 3 trials)" in few
