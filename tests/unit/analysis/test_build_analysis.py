"""build_analysis (gate.analysis.pipeline) from trial logs: the decision it writes, the time summary,
warm-up discard, versions, benchmarks in one version only, suite-wide carry-over warnings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import TrialLogs, load_trials
from gate.analysis.pipeline import build_analysis, resolve_versions, time_summary
from gate.errors import ConfigError
from tests.fakes.metas import meta_of
from tests.fakes.trial_logs import csv_log, csv_row


def frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["source"] = 0
    df["row"] = np.arange(len(df)) + 2
    if "kind" not in df:
        df["kind"] = "ok"
    return df


def _log(tmp_path: Path, rows: list[tuple[str, str, float | str, str]]) -> TrialLogs:
    """A tidy trial log as `run` writes failed trials: status and an empty value."""
    path = tmp_path / f"trials{len(list(tmp_path.iterdir()))}.csv"
    lines = ["benchmark,version,value,status,reason"]
    lines += [f"{b},{v},{x},{st},{'' if st == 'ok' else 'exit status -11'}" for b, v, x, st in rows]
    path.write_text("\n".join(lines) + "\n")
    return load_trials([path])


def test_a_benchmark_that_fails_only_in_head_fails_the_decision(tmp_path: Path) -> None:
    """A head that segfaults in every benchmark fails the decision: `inconclusive` would be a green
    commit status "no regression found"."""
    ok = [(b, v, 1.0 + i / 100, "ok") for b in ("a", "crashes") for v in ("base", "head") for i in range(5)]
    rows = [r for r in ok if not (r[0] == "crashes" and r[1] == "head")]
    rows += [("crashes", "head", "", "error")] * 5
    analysis = build_analysis(
        _log(tmp_path, rows), base="base", head="head", settings=AnalysisSettings(resamples=200)
    )
    s = analysis["summary"]
    assert s["counts"]["failed"] == 1 and s["failed_in_head_only"] == 1
    assert s["decision"] == "fail"
    # the same failure in both versions is a broken benchmark, not this change's doing
    both = [r for r in ok if r[0] != "crashes"] + [("crashes", v, "", "error") for v in ("base", "head")] * 5
    analysis = build_analysis(
        _log(tmp_path, both), base="base", head="head", settings=AnalysisSettings(resamples=200)
    )
    assert (
        analysis["summary"]["failed_in_head_only"] == 0 and analysis["summary"]["decision"] == "inconclusive"
    )


def test_benchmarks_missing_in_head_are_not_a_pass(tmp_path: Path) -> None:
    """A head that renames or loses every benchmark is neither `pass` nor a green `inconclusive`."""
    rows = [(b, "base", 1.0 + i / 100, "ok") for b in ("a", "b") for i in range(5)]
    rows += [(b, "head", "", "skipped") for b in ("a", "b")]
    analysis = build_analysis(
        _log(tmp_path, rows), base="base", head="head", settings=AnalysisSettings(resamples=200)
    )
    s = analysis["summary"]
    assert (s["n_benchmarks"], s["only_in_base"], s["decision"]) == (0, 2, "fail")


def test_time_summary_counts_each_trial_once_and_scales_to_the_full_configuration() -> None:
    rows = []
    for trial, (b, v) in enumerate([("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")], start=1):
        for m in (1, 2):  # 2 measurements per trial; elapsed_s repeats on every row of the trial
            rows.append(
                {
                    "trial": trial,
                    "benchmark": b,
                    "version": v,
                    "value": 1.0,
                    "measurement": m,
                    "elapsed_s": 4.0,
                }
            )
    t = time_summary(frame(rows), meta_of({"full": {"suite_run": 2, "iteration": 2, "measurement": 2}}))
    assert t is not None
    assert t["spent_s"] == 16.0  # 4 trials × 4 s, not 8 rows × 4 s
    # per measurement 2 s; full = 8 measurements × 2 versions × 2 benchmarks × 2 s
    assert t["full_s"] == 64.0 and t["saved_pct"] == 75.0
    assert time_summary(frame(rows), None) is None


def test_versions_default_from_meta_and_must_exist() -> None:
    logs = TrialLogs(
        frame([{"benchmark": "a", "version": "main", "value": 1.0}]),
        metas=[meta_of({"base": "main", "head": "pr"})],
    )
    with pytest.raises(ConfigError, match="head version 'pr'"):
        resolve_versions(logs, None, None)
    with pytest.raises(ConfigError, match="both"):
        resolve_versions(logs, "main", "main")


def test_discard_warmup_drops_the_first_measurements_of_calibrated_benchmarks() -> None:
    rows = []
    for v, scale in (("main", 1.0), ("HEAD", 1.0)):
        for trial in range(6):
            for m in (1, 2, 3):
                value = 50.0 if m == 1 else scale * (1 + 0.001 * trial)  # a huge first (warm-up) value
                rows.append(
                    {
                        "trial": trial + (0 if v == "main" else 10),
                        "benchmark": "a",
                        "version": v,
                        "value": value,
                        "measurement": m,
                    }
                )
    meta = {
        "base": "main",
        "head": "HEAD",
        "benchmark_configs": {
            "a": {
                "suite_run": 1,
                "iteration": 6,
                "measurement": 3,
                "source": "calibration",
                "discard_warmup": 1,
            }
        },
    }
    doc = build_analysis(
        TrialLogs(frame(rows), metas=[meta_of(meta)]),
        base=None,
        head=None,
        settings=AnalysisSettings(resamples=200),
    )
    bench = doc["benchmarks"][0]
    assert bench["base"]["n"] == 12 and max(bench["samples"]["base"]["value"]) < 2
    assert bench["config"]["discard_warmup"] == 1


@pytest.mark.parametrize(("head_run", "warned"), [(1, False), (2, True)])
def test_warns_when_base_and_head_never_shared_a_suite_run(head_run: int, warned: bool) -> None:
    rows = [
        {"benchmark": "a", "version": v, "value": 1.0 + 0.001 * i, "suite_run": run, "instance": "h"}
        for v, run in (("main", 1), ("HEAD", head_run))
        for i in range(5)
    ]
    doc = build_analysis(
        TrialLogs(frame(rows)), base="main", head="HEAD", settings=AnalysisSettings(resamples=200)
    )
    assert ("not_interleaved" in [w["code"] for w in doc["warnings"]]) is warned


def test_order_check_logs_compare_on_random_runs_only() -> None:
    # Fixed-order runs carry a 20% penalty for head (an order artefact); random runs do not.
    rows = []
    trial = 0
    for order_type, head_factor in (("fixed", 1.2), ("random", 1.0)):
        for suite_run in (1, 2):
            for v in ("main", "HEAD"):
                for i in range(6):
                    trial += 1
                    rows.append(
                        {"trial": trial, "benchmark": "a", "version": v, "instance": "h", "position": i + 1,
                         "suite_run": suite_run + (0 if order_type == "fixed" else 2), "order_type": order_type,
                         "value": (head_factor if v == "HEAD" else 1.0) * (1 + 0.001 * i)}
                    )  # fmt: skip
    doc = build_analysis(
        TrialLogs(frame(rows)), base="main", head="HEAD", settings=AnalysisSettings(resamples=500)
    )
    assert doc["settings"]["compared_order"] == "random"
    bench = doc["benchmarks"][0]
    assert bench["base"]["n"] == 12 and bench["verdict"] == "unchanged"


def test_units_or_direction_that_differ_between_versions_are_not_compared(tmp_path: Path) -> None:
    """0.5 s logged as 500 ms in base and 0.5 s in head is not compared (it would read -99.9 %)."""
    path = tmp_path / "u.csv"
    lines = ["benchmark,version,value,unit,higher_is_better"]
    for i in range(20):
        lines.append(f"parse,base,{500 + i % 3},ms,false")
        lines.append(f"parse,head,{0.5 + (i % 3) / 1000},s,false")
        lines.append(f"rate,base,{100 + i % 3},ops/s,true")
        lines.append(f"rate,head,{100 + i % 3},ops/s,false")
        lines.append(f"same,base,{1 + (i % 3) / 100},s,false")
        lines.append(f"same,head,{1 + (i % 3) / 100},s,false")
    path.write_text("\n".join(lines) + "\n")
    analysis = build_analysis(
        load_trials([path]), base="base", head="head", settings=AnalysisSettings(resamples=200)
    )
    by = {b["benchmark"]: b for b in analysis["benchmarks"]}
    assert (
        by["parse"]["verdict"] == "inconclusive" and "units ms and head has units s" in by["parse"]["reason"]
    )
    assert by["rate"]["verdict"] == "inconclusive" and "higher_is_better" in by["rate"]["reason"]
    assert any(w["code"] == "version_mismatch" for w in by["parse"]["warnings"])
    assert by["same"]["verdict"] == "unchanged"


def test_iteration_level_warmup_is_dropped_before_comparing(tmp_path):
    # Iteration 1 of every suite run is a slow warm-up in head only; calibration said to drop one
    # iteration, so the comparison must see two identical distributions.
    rng = np.random.default_rng(0)
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2, 3, 4, 5, 6):
                t += 1
                value = 1.0 + rng.normal(0, 0.002)
                if it == 1 and version == "head":
                    value *= 3.0
                rows.append(csv_row(t, "b", version, run, t, it, 1, value))
    meta = {
        "schema_version": 2,
        "base": "base",
        "head": "head",
        "benchmark_configs": {"b": {"suite_run": 3, "iteration": 5, "measurement": 1, "source": "calibration",
                                    "discard_warmup": 1, "warmup_level": "iteration"}},
    }  # fmt: skip
    settings = AnalysisSettings(resamples=2000, seed=1)
    dropped = build_analysis(
        load_trials([csv_log(tmp_path, rows, meta)]), base="base", head="head", settings=settings
    )
    entry = dropped["benchmarks"][0]
    assert entry["base"]["n"] == 15 and entry["head"]["n"] == 15
    assert max(entry["samples"]["head"]["value"]) < 1.5

    meta["benchmark_configs"]["b"]["discard_warmup"] = 0
    kept = build_analysis(
        load_trials([csv_log(tmp_path, rows, meta)]), base="base", head="head", settings=settings
    )
    assert kept["benchmarks"][0]["head"]["n"] == 18


def test_suite_wide_carryover_reaches_top_level_warnings(tmp_path):
    # Whatever runs right after "leaker" is 30 % faster; every benchmark pools into the suite test.
    rng = np.random.default_rng(3)
    names = ["leaker", "a", "b", "c", "d"]
    rows, t = [], 0
    for run in range(1, 9):
        cells = [(n, v) for n in names for v in ("base", "head")]
        order = rng.permutation(len(cells))
        previous = None
        for position, k in enumerate(order, start=1):
            name, version = cells[k]
            t += 1
            value = 1.0 + rng.normal(0, 0.01)
            if previous == "leaker":
                value *= 0.7
            rows.append(csv_row(t, name, version, run, position, 1, 1, value))
            previous = name
    analysis = build_analysis(
        load_trials([csv_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=1000, seed=1),
    )
    suite = analysis["carryover_suite"]
    assert suite is not None
    codes = [w["code"] for w in analysis["warnings"]]
    assert "carryover_suite" in codes
    assert any("leaker" in w["message"] for w in analysis["warnings"] if w["code"] == "carryover_suite")


def test_a_version_with_only_non_positive_values_fails_instead_of_vanishing(tmp_path):
    # A throughput benchmark whose head reports 0 MB/s everywhere is broken, not "new in base".
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2, 3):
                t += 1
                rows.append(
                    csv_row(t, "tput", version, run, t, it, 1, 100.0 + it if version == "base" else 0.0)
                )
                t += 1
                rows.append(csv_row(t, "ok", version, run, t, it, 1, 1.0 + it / 1000))
    analysis = build_analysis(
        load_trials([csv_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=500, seed=1),
    )
    verdicts = {b["benchmark"]: b["verdict"] for b in analysis["benchmarks"]}
    assert verdicts["tput"] == "failed"
    assert analysis["summary"]["decision"] != "pass"
    assert not any(w["code"] == "one_version_only" for w in analysis["warnings"])


def test_a_benchmark_added_in_head_is_listed_not_failed(tmp_path):
    # run writes status `skipped` for a benchmark that does not exist in a version.
    rows, t = [], 0
    for run in (1, 2, 3):
        for version in ("base", "head"):
            for it in (1, 2):
                t += 1
                rows.append(csv_row(t, "old", version, run, t, it, 1, 1.0 + it / 1000))
                t += 1
                new = csv_row(t, "new", version, run, t, it, 1, 2.0 + it / 1000)
                if version == "base":
                    new.update(
                        value="", status="skipped", reason="benchmark new does not exist in version base"
                    )
                rows.append(new)
    analysis = build_analysis(
        load_trials([csv_log(tmp_path, rows)]),
        base="base",
        head="head",
        settings=AnalysisSettings(resamples=500, seed=1),
    )
    assert [b["benchmark"] for b in analysis["benchmarks"]] == ["old"]
    assert any(w["code"] == "one_version_only" and "new" in w["message"] for w in analysis["warnings"])
