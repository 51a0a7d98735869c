"""What reports say about calibration: which benchmarks really ran a minimal configuration, what
was saved, and which advice can help an inconclusive benchmark that ran a calibrated one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.analysis.load import TrialLogs
from gate.analysis.pipeline import build_analysis, time_summary
from gate.config.project_config import load_config
from gate.engine.plan import level_configs
from gate.files import calibration_json
from gate.files.calibration_json import Calibration
from gate.render import render
from tests.fakes import analyses
from tests.fakes.metas import meta_of

FULL = {"suite_run": 3, "iteration": 5, "measurement": 3}


def _calibration(tmp_path: Path, never: set[str]) -> Calibration:
    minimal = {"suite_run": 1, "iteration": 3, "measurement": 2}
    doc = {
        "schema_version": 1,
        "metric": "cv",
        "threshold": 0.01,
        "levels": ["suite_run", "iteration", "measurement"],
        "full": FULL,
        "benchmarks": {
            n: {"config": dict(FULL if n in never else minimal), "never_stable": n in never}
            for n in ("a", "b", "c")
        },
    }
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(doc))
    return calibration_json.read(path)


def test_a_never_stable_benchmark_runs_and_is_labelled_as_the_full_configuration(tmp_path: Path) -> None:
    cfg = tmp_path / ".ordertrap.toml"
    cfg.write_text(
        '[suite]\nadapter = "command"\n[full]\nsuite_runs = 3\niterations = 5\nmeasurements = 3\n'
        '[[benchmark]]\nname = "a"\ncommand = "true"\n'
    )
    config = load_config(cfg)
    levels = level_configs(["a", "b", "c"], config, _calibration(tmp_path, never={"c"}))
    assert levels["a"].config_source == "calibration" and levels["b"].config_source == "calibration"
    # never stable: the full configuration, and said so — not "minimal 3×5×3"
    assert levels["c"].config_source == "full"
    assert (levels["c"].suite_runs, levels["c"].iterations, levels["c"].measurements) == (3, 5, 3)


def _configs_note(configs: dict[str, dict[str, object]]) -> str:
    benchmarks = [analyses.benchmark(n, "unchanged", config=c) for n, c in configs.items()]
    doc = analyses.analysis(benchmarks, time={"spent_s": 41.0, "full_s": 42.5, "saved_pct": 3.6})
    return render(doc, "comment")


def test_the_comment_counts_only_minimal_configurations_and_names_the_never_stable() -> None:
    minimal = analyses.calibration_config()
    never = {**analyses.full_config(), "never_stable": True}
    text = _configs_note({f"m{i}": minimal for i in range(6)} | {"n1": never, "n2": never})
    assert "6 of 8 benchmarks ran a calibrated minimal configuration" in text
    assert "2 ran the full configuration because calibration found no stable configuration" in text
    assert "full 3×5×1 (never stable)" in text


def test_a_full_run_claims_no_saving() -> None:
    text = _configs_note({n: analyses.full_config() for n in ("a", "b", "c")})
    assert "saved" not in text and "3.6" not in text
    assert "every benchmark ran the full configuration" in text
    assert "0 of 3" not in text


def test_time_summary_of_a_full_run_has_no_saving() -> None:
    rows = [
        {"trial": t, "benchmark": "a", "version": v, "value": 1.0, "measurement": 1, "elapsed_s": e}
        for t, (v, e) in enumerate([("x", 4.0), ("y", 1.0)], start=1)  # y's trial failed fast
    ]
    df = pd.DataFrame(rows).assign(source=0, row=range(2, 4), kind="ok")
    meta = {
        "full": {"suite_run": 1, "iteration": 1, "measurement": 1},
        "benchmark_configs": {"a": {"source": "full", "suite_run": 1, "iteration": 1, "measurement": 1}},
    }
    t = time_summary(df, meta_of(meta))
    assert t is not None and t["spent_s"] == 5.0
    assert t["saved_pct"] is None and t["full_s"] is None
    # a calibration entry that was never stable ran the full configuration too
    meta["benchmark_configs"]["a"] = {
        "source": "calibration",
        "never_stable": True,
        "suite_run": 1,
        "iteration": 1,
        "measurement": 1,
    }
    t = time_summary(df, meta_of(meta))
    assert t is not None and t["saved_pct"] is None


def _inconclusive_items() -> list[tuple[str, Sample, Sample, bool]]:
    rng = np.random.default_rng(5)
    base = rng.normal(100.0, 4.0, 6)
    head = rng.normal(103.0, 4.0, 6)
    return [(n, Sample(base.copy()), Sample(head.copy()), False) for n in ("cal", "full")]


def test_an_inconclusive_calibrated_benchmark_is_pointed_to_recalibration_not_to_full() -> None:
    out = {
        c.benchmark: c for c in compare_many(_inconclusive_items(), AnalysisSettings(resamples=500), {"cal"})
    }
    assert out["cal"].verdict == "inconclusive" and out["full"].verdict == "inconclusive"
    assert "raise [full]" not in out["cal"].reason
    assert "ordertrap-gate calibrate" in out["cal"].reason and "--min-values" in out["cal"].reason
    assert f"--min-values {out['cal'].samples_needed}" in out["cal"].reason
    assert "[full].iterations" in out["full"].reason


def test_the_analysis_gives_calibration_advice_for_what_ran_calibrated(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    rows = [
        {"benchmark": b, "version": v, "value": float(rng.normal(mu, 4.0)), "status": "ok"}
        for b in ("cal", "never")
        for v, mu in (("base", 100.0), ("head", 103.0))
        for _ in range(6)
    ]
    df = pd.DataFrame(rows).assign(source=0, row=range(2, 2 + len(rows)), kind="ok")
    meta = {
        "base": "base",
        "head": "head",
        "benchmark_configs": {
            "cal": {"source": "calibration", "suite_run": 1, "iteration": 2, "measurement": 3},
            "never": {
                "source": "full",
                "suite_run": 1,
                "iteration": 2,
                "measurement": 3,
                "never_stable": True,
            },
        },
    }
    doc = build_analysis(
        TrialLogs(df, metas=[meta_of(meta)]), base=None, head=None, settings=AnalysisSettings(resamples=500)
    )
    by = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert by["cal"]["verdict"] == by["never"]["verdict"] == "inconclusive"
    assert "ordertrap-gate calibrate" in by["cal"]["reason"] and "raise [full]" not in by["cal"]["reason"]
    assert "raise [full].iterations" in by["never"]["reason"]


def test_the_html_calibration_view_does_not_call_a_never_stable_choice_minimal() -> None:
    from gate.render import RenderContext

    doc = analyses.calibration_document(["parse", "compress"])  # compress: never stable
    doc["benchmarks"]["compress"]["config"] = {"suite_run": 3, "iteration": 5, "measurement": 1}
    cal = calibration_json.from_document(doc)
    page = render(analyses.all_unchanged(), "html", RenderContext(calibration=cal))
    assert "full 3×5×1 (never stable)" in page and "minimal 3×5×1" not in page
