"""A trial log with follow-up rounds through the real CLI: `ordertrap-gate analyze` then
`ordertrap-gate report` as processes, on a hand-made log and meta.json that follow the contract
(the ``round`` column of trials.csv and ``adaptive`` of meta.json, docs/contracts.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.analysis.test_followup_analysis import adaptive_meta, rows_with_rounds, write_log

REPO = Path(__file__).resolve().parents[2]


def _gate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gate", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.slow
def test_analyze_then_report_a_run_with_follow_up_rounds(tmp_path: Path) -> None:
    rows = [r for r in rows_with_rounds() if r["status"] == "ok"]
    write_log(tmp_path, rows, adaptive_meta())
    analyzed = _gate(tmp_path, "analyze", "trials.csv", "--json", "analysis.json", "--resamples", "1000")
    assert analyzed.returncode == 0, analyzed.stderr
    assert "follow-up rounds: planned 75 s + follow-up 56 s of a 2.5 min budget" in analyzed.stdout
    doc = json.loads((tmp_path / "analysis.json").read_text(encoding="utf-8"))
    assert doc["adaptive"]["stop_reason"] == "budget_spent" and doc["adaptive"]["rounds"] == 2
    # The comment: the time line once, and for the benchmark still inconclusive its one next step,
    # the budget the rounds priced (docs/reports.md); what the rounds did per benchmark is the
    # summary's and the HTML report's.
    comment = _gate(tmp_path, "report", "analysis.json")
    assert comment.returncode == 0, comment.stderr
    assert "planned 75 s + follow-up 56 s of a 2.5 min budget" in comment.stdout
    assert "`noisy` **inconclusive**" in comment.stdout
    assert "about 10 min more would resolve it (about 1,544 values per version): `--budget 13m`" in (
        comment.stdout
    )
    summary = _gate(tmp_path, "report", "analysis.json", "--format", "summary")
    assert summary.returncode == 0, summary.stderr
    assert "`steady`: unchanged after 1 follow-up round, +4 values per version" in summary.stdout
    assert (
        "after 2 follow-up rounds (+8 base / +7 head values) the budget ran out → **next:** about 10 min "
        "more would resolve it (about 1,544 values per version): `--budget 13m`"
    ) in summary.stdout
    html = _gate(tmp_path, "report", "analysis.json", "--format", "html", "--out", "report.html")
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<table id="followup">' in page and "<code>--budget 13m</code>" in page
    assert "unchanged after 1 follow-up round, +4 values per version" in page
