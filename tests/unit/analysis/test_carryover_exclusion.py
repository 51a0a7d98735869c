"""gate.analysis.carryover_exclusion through build_analysis: the trials right after a disturbing
predecessor are left out of the comparison, with the error control of the module's docstring."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from gate.analysis import carryover_exclusion as ex
from gate.analysis.carryover import analyze_carryover
from gate.analysis.compare import AnalysisSettings, Comparison
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.files.analysis_json import Analysis
from gate.model import Verdict
from gate.render.render import render
from gate.render.view import carryover_taken_out
from tests.unit.analysis.test_carryover import make_trial_log

BENCHES = ("load", "parse", "render", "save")
# The median: the statistic whose CI the planted bimodality widens (a lower quantile reads the
# fast mode alone); the exclusion itself does not depend on the statistic.
SETTINGS = AnalysisSettings(resamples=2000, statistic="median")


def _planted(seed: int, carry: float = -0.2, slowdown: float = 1.08, **kw: int) -> pd.DataFrame:
    """Every trial right after ``load`` is ``carry`` faster (the demo's warm-start leak); head's
    ``parse`` is ``slowdown`` slower; 1 % noise, one value per trial."""
    log = make_trial_log(
        seed,
        benchmarks=BENCHES,
        suite_runs=kw.get("suite_runs", 6),
        iterations=3,
        measurements=1,
        noise=0.01,
        effects={("load", b): carry for b in BENCHES} if carry else None,
    )
    log.loc[(log["benchmark"] == "parse") & (log["version"] == "HEAD"), "value"] *= slowdown
    return log


def _analyze(tmp_path: Path, log: pd.DataFrame, mode: str) -> Analysis:
    path = tmp_path / "trials.csv"
    log.to_csv(path, index=False)
    return build_analysis(load_trials([path]), base="main", head="HEAD", settings=SETTINGS, carryover=mode)


def _width(b: dict) -> float:  # type: ignore[type-arg]
    lo, hi = b["change_ci"]
    return float(hi - lo)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_planted_carryover_is_taken_out_and_the_verdicts_come_right(tmp_path: Path, seed: int) -> None:
    log = _planted(seed)
    kept = {b["benchmark"]: b for b in _analyze(tmp_path, log, "report")["benchmarks"]}
    doc = _analyze(tmp_path, log, "exclude")
    out = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert doc["settings"]["carryover"] == "exclude"
    # with every trial the bimodal noise hides the +8 % regression
    assert kept["parse"]["verdict"] == "inconclusive"
    assert all("carryover_exclusion" not in b for b in kept.values())
    assert out["parse"]["verdict"] == "regression"
    assert out["parse"]["change_pct"] == pytest.approx(8.0, abs=2.0)
    for name in ("load", "render", "save"):
        assert out[name]["verdict"] in ("unchanged", "inconclusive")  # never a false verdict
    assert sum(out[n]["verdict"] == "unchanged" for n in ("load", "render", "save")) >= 2
    for name, b in out.items():
        rec = b["carryover_exclusion"]
        assert rec["applied"], rec["reason"]
        assert {p["predecessor"] for p in rec["predecessors"]} == {"load"}
        assert rec["predecessors"][0]["effect_pct"] == pytest.approx(-20.0, abs=3.0)
        assert rec["predecessors"][0]["p_adj"] < ex.EXCLUDE_ALPHA
        assert all(rec["excluded_trials"][r] > 0 for r in ("base", "head"))
        assert all(rec["kept_trials"][r] >= ex.MIN_KEPT_TRIALS for r in ("base", "head"))
        assert b["base"]["n"] == rec["kept_trials"]["base"]  # one value per trial
        assert rec["all_trials"]["verdict"] == kept[name]["verdict"]
        assert rec["all_trials"]["change_ci"] == kept[name]["change_ci"]
        assert _width(b) < _width(kept[name]), name  # the CI of the change narrows
        if kept[name]["verdict"] == "inconclusive":
            assert _width(b) < 0.5 * _width(kept[name]), name  # … to less than half where it mattered
    line = carryover_taken_out(doc["benchmarks"])
    assert line is not None and "right after load (" in line and "faster" in line
    assert "left out of 4 benchmark(s)" in line
    for fmt in ("comment", "summary", "html"):
        assert "Carry-over taken out: the trials right after load (" in render(doc, fmt), fmt  # type: ignore[arg-type]
    assert "With all trials: inconclusive" in render(doc, "html")


def test_without_carryover_nothing_is_left_out(tmp_path: Path) -> None:
    log = _planted(1, carry=0.0)
    doc = _analyze(tmp_path, log, "exclude")
    plain = _analyze(tmp_path, log, "report")
    assert all("carryover_exclusion" not in b for b in doc["benchmarks"])
    assert [(b["benchmark"], b["verdict"], b["change_ci"]) for b in doc["benchmarks"]] == [
        (b["benchmark"], b["verdict"], b["change_ci"]) for b in plain["benchmarks"]
    ]
    assert carryover_taken_out(doc["benchmarks"]) is None


@pytest.mark.parametrize("noise", [0.02, 0.3])
def test_on_logs_without_carryover_trials_are_rarely_left_out(noise: float) -> None:
    """Two families at 1 % each: at most ~2 % of null logs name a predecessor to take out."""
    named = 0
    seeds = 60
    for seed in range(seeds):
        log = make_trial_log(
            1000 + seed, benchmarks=BENCHES, suite_runs=6, iterations=3, measurements=1, noise=noise
        )
        if any(ex.culprits(analyze_carryover(log)).values()):
            named += 1
    assert named <= 4, f"{named} of {seeds} null logs would leave trials out"


def _one(compare: list[Comparison], name: str) -> Comparison:
    return next(c for c in compare if c.benchmark == name)


@pytest.mark.parametrize(
    ("full_verdict", "full_ci", "new_verdict", "applied"),
    [
        ("unchanged", (-1.0, 1.0), Verdict.REGRESSION, False),  # a decided verdict stands
        ("regression", (4.0, 12.0), Verdict.UNCHANGED, False),  # a regression never turns green
        ("inconclusive", (-10.0, 2.0), Verdict.REGRESSION, False),  # all trials rule out ≥ +3 %
        ("inconclusive", (-10.0, 20.0), Verdict.REGRESSION, True),
        ("inconclusive", (4.0, 20.0), Verdict.UNCHANGED, False),  # all trials rule out ±3 %
        ("inconclusive", (-10.0, 20.0), Verdict.UNCHANGED, True),
    ],
)
def test_the_full_data_is_never_contradicted(
    tmp_path: Path, full_verdict: str, full_ci: tuple[float, float], new_verdict: Verdict, applied: bool
) -> None:
    log = _planted(1)
    path = tmp_path / "trials.csv"
    log.to_csv(path, index=False)
    logs = load_trials([path])
    frame = logs.frame.loc[logs.frame["kind"] == "ok"]
    carry = analyze_carryover(log)
    real = build_analysis(logs, base="main", head="HEAD", settings=SETTINGS, carryover="report")
    template = _comparison(real)
    full = [dataclasses.replace(template, verdict=Verdict(full_verdict), change_ci=full_ci)]

    def compare_rows(rows: pd.DataFrame, which: list[str]) -> list[Comparison]:
        assert set(which) == {"parse"}
        assert len(rows) < len(frame)  # the trials after load are gone
        return [dataclasses.replace(template, verdict=new_verdict, change_ci=(5.0, 9.0))]

    out, records = ex.take_out(
        frame,
        frame.drop(columns=["kind", "row"]),
        full,
        carry,
        compare_rows,  # type: ignore[arg-type]
        base="main",
        head="HEAD",
        thresholds={"parse": 3.0},
        higher_is_better={"parse": False},
    )
    assert records["parse"]["applied"] is applied, records["parse"]["reason"]
    assert out[0].verdict is (new_verdict if applied else Verdict(full_verdict))
    assert records["parse"]["without"]["verdict"] == str(new_verdict)


def _comparison(doc: Analysis) -> Comparison:
    from gate.analysis.compare import VersionResult

    b = next(b for b in doc["benchmarks"] if b["benchmark"] == "parse")
    v = VersionResult(1.0, (0.9, 1.1), 10, 0)
    return Comparison("parse", Verdict(b["verdict"]), "", 1.0, (0.0, 2.0), v, v, False)


def test_too_few_trials_left_keeps_them_all(tmp_path: Path) -> None:
    """Two suite runs: each version has 6 trials of a benchmark, so leaving out the ones after
    load would keep fewer than MIN_KEPT_TRIALS in some version."""
    doc = _analyze(tmp_path, _planted(4, suite_runs=2), "exclude")
    records = [b["carryover_exclusion"] for b in doc["benchmarks"] if "carryover_exclusion" in b]
    assert records, "the planted carry-over is named"
    short = [r for r in records if min(r["kept_trials"].values()) < ex.MIN_KEPT_TRIALS]
    assert short
    for r in short:
        assert not r["applied"] and r["reason"].startswith("not taken out:") and r["without"] is None
    for r in records:
        if r["applied"]:
            assert min(r["kept_trials"].values()) >= ex.MIN_KEPT_TRIALS
    for b in doc["benchmarks"]:
        if not b["carryover_exclusion"]["applied"]:
            assert b["base"]["n"] == b["head"]["n"] == 6  # every trial compared
