"""gate.analysis.similarity: odd suite runs and odd runners in generated trial logs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gate.analysis.similarity import MIN_VALUES, SimilarityResult, analyze_similarity
from tests.unit.analysis.test_carryover import make_trial_log


def log(seed: int, **kw: object) -> pd.DataFrame:
    # 10 iterations × 6 measurements = 60 values per benchmark, version and suite run (≥ MIN_VALUES).
    args: dict[str, object] = {
        "suite_runs": 5,
        "iterations": 10,
        "measurements": 6,
        "benchmarks": ("load", "parse"),
    }
    args.update(kw)
    return make_trial_log(seed, **args)  # type: ignore[arg-type]


def test_an_odd_suite_run_is_named() -> None:
    df = log(1)
    odd = (df["benchmark"] == "parse") & (df["version"] == "main") & (df["suite_run"] == 3)
    df.loc[odd, "value"] *= 1.05
    res = analyze_similarity(df)
    assert res.per_benchmark["parse"]["dissimilar_runs"] == ["main/run 3"]
    assert res.per_benchmark["load"]["dissimilar_runs"] == []
    (w,) = res.warnings["parse"]
    assert w["code"] == "runs_dissimilar" and "main/run 3" in w["message"]
    assert res.suite is None  # one runner: no runner-level verdict


def test_an_odd_runner_is_flagged_per_benchmark_and_for_the_suite() -> None:
    df = log(2, instances=("a", "b", "c", "d"), suite_runs=2)
    df.loc[df["instance"] == "c", "value"] *= 1.05
    res = analyze_similarity(df)
    for bench in ("load", "parse"):
        assert res.per_benchmark[bench]["dissimilar_instances"] == ["c"]
        # Runs are compared within a runner, so runner c's runs are not blamed one by one.
        assert res.per_benchmark[bench]["dissimilar_runs"] == []
    assert res.suite is not None
    assert res.suite["dissimilar_instances"] == ["c"]
    assert res.suite["instances"]["c"] == {"assessed": 4, "flagged": 4, "fraction": 1.0}
    assert [w["code"] for w in res.suite["warnings"]] == ["runner_dissimilar"]


def test_two_runners_that_differ_get_a_pair_warning() -> None:
    df = log(3, instances=("a", "b"), suite_runs=2)
    df.loc[df["instance"] == "b", "value"] *= 1.05
    res = analyze_similarity(df)
    assert res.per_benchmark["load"]["dissimilar_instances"] == []
    assert any("two runners" in w["message"] for w in res.warnings["load"])


def test_null_logs_rarely_flag_runs_or_runners() -> None:
    # At the length threshold the share of runs flagged on pure noise is about 1 % (module docs).
    flagged = judged = 0
    runners = 0
    for seed in range(15):
        res = analyze_similarity(log(100 + seed, instances=("a", "b", "c")))
        for entry in res.per_benchmark.values():
            flagged += len(entry["dissimilar_runs"])
            for v in entry["versions"].values():
                judged += sum(r["n"] for r in v["runs"].values())
        assert res.suite is not None
        runners += len(res.suite["dissimilar_instances"])
    assert judged == 15 * 2 * 2 * 3 * 5
    assert flagged / judged <= 0.04
    assert runners == 0


def test_short_runs_are_not_judged_and_say_so() -> None:
    df = log(4, iterations=3, measurements=3)  # 9 values per run
    df.loc[(df["benchmark"] == "parse") & (df["suite_run"] == 2), "value"] *= 1.5
    res = analyze_similarity(df)
    entry = res.per_benchmark["parse"]
    assert entry["dissimilar_runs"] == []
    assert any(f"fewer than {MIN_VALUES}" in n for n in entry["notes"])
    assert res.warnings == {}


def test_all_runs_unlike_each_other_is_reported_as_an_unstable_benchmark() -> None:
    df = log(5)
    sel = df["benchmark"] == "load"
    df.loc[sel, "value"] *= 1.0 + 0.05 * df.loc[sel, "suite_run"]  # every run on its own level
    res = analyze_similarity(df)
    assert len(res.per_benchmark["load"]["dissimilar_runs"]) == 10
    assert all("no typical run" in w["message"] for w in res.warnings["load"])


def test_failed_trials_and_missing_columns() -> None:
    df = log(6)
    df.loc[df.index[:5], "status"] = "error"
    df.loc[df.index[:5], "value"] = np.nan
    assert set(analyze_similarity(df).per_benchmark) == {"load", "parse"}
    assert analyze_similarity(df.drop(columns=["value"])) == SimilarityResult({}, {}, None)


def test_minimal_columns_are_enough() -> None:
    # analyze requires only benchmark, version, value: one run per version, nothing to compare.
    df = log(7)[["benchmark", "version", "value"]]
    res = analyze_similarity(df)
    assert set(res.per_benchmark) == {"load", "parse"}
    assert res.warnings == {} and res.suite is None
