"""A benchmark renamed by the change leaves one name skipped in each version: the analysis says it
looks like a rename (criterion's ``nth`` → ``nth/8``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis, likely_renames


def test_a_name_extended_by_a_level_or_a_close_spelling_is_a_likely_rename() -> None:
    assert likely_renames(["nth", "fold"], ["nth/8", "zip"]) == [("nth", "nth/8")]
    # a level or suffix added comes before a mere likeness; each name is paired once
    assert likely_renames(["parse_json"], ["parse_jsonl", "parse_json_fast"]) == [
        ("parse_json", "parse_json_fast")
    ]
    assert likely_renames(["BenchmarkParseJSON"], ["BenchmarkParseJson"]) == [
        ("BenchmarkParseJSON", "BenchmarkParseJson")
    ]
    assert likely_renames(["Bench.add"], ["Bench.add:size=10", "Bench.add:size=100"]) == [
        ("Bench.add", "Bench.add:size=10")
    ]
    assert likely_renames(["encode"], ["decode_all"]) == []  # unrelated: said as added and removed only
    assert likely_renames([], ["new"]) == []


def test_the_analysis_warns_that_a_benchmark_looks_renamed(tmp_path: Path) -> None:
    rows = []
    plan = [
        ("kept", "base"),
        ("kept", "head"),
        ("nth", "base"),
        ("nth", "head"),
        ("nth/8", "base"),
        ("nth/8", "head"),
    ]
    for t, (name, version) in enumerate(plan * 3, 1):
        skipped = (name, version) in {("nth", "head"), ("nth/8", "base")}
        rows.append(
            {"trial": t, "benchmark": name, "version": version, "instance": "h", "suite_run": 1,
             "order_type": "random", "position": t, "iteration": t, "measurement": 1,
             "value": "" if skipped else 1.0 + t / 1000, "unit": "s", "higher_is_better": False,
             "status": "skipped" if skipped else "ok", "reason": "no such benchmark" if skipped else "",
             "started_at": "", "elapsed_s": 0.1, "config": "full", "round": 0}
        )  # fmt: skip
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    analysis = build_analysis(
        load_trials([path]), base="base", head="head", settings=AnalysisSettings(resamples=200, seed=1)
    )
    (w,) = [w for w in analysis["warnings"] if w["code"] == "likely_rename"]
    assert "nth → nth/8" in w["message"] and "next pull request" in w["action"]
