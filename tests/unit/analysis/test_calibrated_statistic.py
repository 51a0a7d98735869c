"""The statistic the nightly calibration chose decides its benchmark in analyze, the run's
follow-up looks and history entries when the suite opts in, and every report says who chose it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import TrialLogs
from gate.analysis.pipeline import build_analysis
from gate.analysis.statistic_source import resolve
from gate.files import analysis_json
from gate.history.add import entries_from_trials
from gate.render.terminal import benchmark_table
from gate.render.view import statistic_label
from tests.fakes.metas import meta_of


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for bench in ("bimodal", "skewed"):
        for version in ("base", "head"):
            for trial in range(8):
                fast = bench == "bimodal" and trial % 4 == 0
                for m in range(4):
                    value = 100.0 * (1 + rng.exponential(0.003)) / (1.3 if fast else 1.0)
                    rows.append(
                        {"benchmark": bench, "version": version, "value": value, "status": "ok",
                         "suite_run": 1, "iteration": trial + 1, "measurement": m + 1}
                    )  # fmt: skip
    return pd.DataFrame(rows).assign(source=0, row=range(2, 2 + len(rows)), kind="ok")


def _meta(**extra: Any) -> dict[str, Any]:
    return {"base": "base", "head": "head", "calibrated_statistics": {"bimodal": "median"}, **extra}


def _doc(meta: dict[str, Any], requested: str | None = None) -> analysis_json.Analysis:
    logs = TrialLogs(_frame(), metas=[meta_of(meta)])
    plan = resolve(requested, logs.meta)
    return build_analysis(
        logs,
        base=None,
        head=None,
        settings=AnalysisSettings(resamples=500, statistic=plan.suite),
        statistics=plan,
    )


def test_the_calibrated_statistic_decides_and_every_report_says_who_chose_it() -> None:
    doc = _doc(_meta(statistic="calibrated"))
    by = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert by["bimodal"]["statistic"] == "median" and by["bimodal"]["statistic_source"] == "calibration"
    assert by["skewed"]["statistic"] == "p10" and "statistic_source" not in by["skewed"]
    back = analysis_json.parse(analysis_json.dumps(doc))  # the file keeps it
    assert {b["benchmark"]: b.get("statistic_source") for b in back["benchmarks"]}["bimodal"] == "calibration"
    assert "bimodal: median, chosen by the nightly calibration" in benchmark_table(doc)
    assert "by the statistic chosen by the nightly calibration: bimodal (median)" in statistic_label(doc)


def test_an_explicit_statistic_beats_the_calibrated_one() -> None:
    for doc in (_doc(_meta(statistic="calibrated"), requested="p25"), _doc(_meta(statistic="p25"))):
        assert {b["statistic"] for b in doc["benchmarks"]} == {"p25"}
        assert not any("statistic_source" in b for b in doc["benchmarks"])
        assert "nightly calibration" not in statistic_label(doc)


def test_history_entries_carry_the_statistic_that_decided(tmp_path) -> None:
    frame = _frame().drop(columns=["source", "row", "kind"])
    log = tmp_path / "trials.csv"
    full = frame.assign(
        instance="box", order_type="random", position=1, unit="ns", higher_is_better=False,
        started_at="2026-01-01T00:00:00Z", elapsed_s=0.1,
    )  # fmt: skip
    full.to_csv(log, index=False)
    from gate.files import run_meta

    run_meta.write(tmp_path / "meta.json", meta_of(_meta(statistic="calibrated")))
    entries = entries_from_trials([log], versions=["base", "head"])
    by = {(e.benchmark, e.seq): e.statistic for e in entries}
    assert by[("bimodal", 1)] == "median" and by[("skewed", 1)] == "p10"


def test_the_run_s_follow_up_looks_use_the_calibrated_statistic(tmp_path) -> None:
    # Rounds.look reads only the log, the budget's rounds and meta.json: the "values needed" of
    # the next round come from the CIs of the statistic that decides
    from types import SimpleNamespace

    from gate.adaptive.loop import Rounds
    from gate.files import run_meta

    frame = _frame().drop(columns=["source", "row", "kind"])
    log = tmp_path / "trials.csv"
    frame.assign(
        instance="box", order_type="random", position=1, unit="ns", higher_is_better=False,
        started_at="2026-01-01T00:00:00Z", elapsed_s=0.1,
    ).to_csv(log, index=False)  # fmt: skip
    meta = meta_of(_meta(statistic="calibrated"))
    run_meta.write(tmp_path / "meta.json", meta)
    owner = SimpleNamespace(log_path=log, budget=SimpleNamespace(max_rounds=2), meta=meta)
    doc, _ = Rounds.look(owner)  # type: ignore[arg-type]
    by = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert by["bimodal"]["statistic"] == "median" and by["bimodal"]["statistic_source"] == "calibration"
    assert by["skewed"]["statistic"] == "p10"


def test_history_entries_of_a_sharded_night_take_each_shard_s_calibrated_statistic(tmp_path) -> None:
    # every shard's meta.json lists the calibrated choices of its own benchmarks only, so the
    # entries must read them from all the shards, as analyze does (gate/analysis/shards.py)
    from gate.files import run_meta

    frame = _frame().drop(columns=["source", "row", "kind"])
    split = {"skewed": 1, "bimodal": 2}
    logs = []
    for index in (1, 2):
        out = tmp_path / f"shard{index}"
        out.mkdir()
        mine = [n for n, k in split.items() if k == index]
        frame.loc[frame["benchmark"].isin(mine)].assign(
            instance="box", order_type="random", position=1, unit="ns", higher_is_better=False,
            started_at="2026-01-01T00:00:00Z", elapsed_s=0.1,
        ).to_csv(out / "trials.csv", index=False)  # fmt: skip
        shard = {"index": index, "count": 2, "method": "lpt", "seed": 0, "cost_unit": "values",
                 "suite": sorted(split), "assignment": split, "expected": [1.0, 1.0]}  # fmt: skip
        chosen = {"bimodal": "median"} if index == 2 else {}
        meta = meta_of(_meta(statistic="calibrated", calibrated_statistics=chosen, shard=shard))
        run_meta.write(out / "meta.json", meta)
        logs.append(out / "trials.csv")
    entries = entries_from_trials(logs, versions=["base", "head"])
    by = {(e.benchmark, e.seq): e.statistic for e in entries}
    assert by[("bimodal", 1)] == "median" and by[("skewed", 1)] == "p10"


def test_asking_for_calibrated_statistics_the_run_never_recorded_is_a_warning() -> None:
    # a run without --calibration (or with a schema-1 calibration.json) records no choice: p10
    # decides every benchmark, and the analysis says so instead of passing it over in silence
    for meta, requested in ((_meta(statistic="calibrated", calibrated_statistics={}), None),
                            (_meta(calibrated_statistics={}), "calibrated")):  # fmt: skip
        doc = _doc(meta, requested)
        assert {b["statistic"] for b in doc["benchmarks"]} == {"p10"}
        (w,) = [w for w in doc["warnings"] if w["code"] == "no_calibrated_statistic"]
        assert "--calibration" in w["action"]
    quiet = _doc(_meta(statistic="calibrated"))  # choices recorded
    assert not [w for w in quiet["warnings"] if w["code"] == "no_calibrated_statistic"]
