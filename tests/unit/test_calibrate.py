"""µOpTime search semantics (§3.1 Algorithm 1), input handling, warm-up, audit verdicts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gate.calibrate import (
    Estimate,
    Series,
    audit,
    build_dataset,
    calibrate,
    enumerate_configs,
    make_plan,
    normalise,
    read_tables,
    search,
    select,
    verdict,
)
from gate.errors import ConfigError, InputError
from gate.model import TRIAL_COLUMNS

FULL = (3, 5, 5)


def tidy(cubes: dict[str, np.ndarray], version: str = "v1", instance: str = "1") -> pd.DataFrame:
    rows = []
    for name, cube in cubes.items():
        for (s, i, m), v in np.ndenumerate(cube):
            if not np.isnan(v):
                rows.append((name, version, instance, s + 1, i + 1, m + 1, v))
    return pd.DataFrame(
        rows, columns=["benchmark", "version", "instance", "suite_run", "iteration", "second", "ns"]
    )


def dataset(cubes: dict[str, np.ndarray], **kw: int):
    table = normalise(tidy(cubes), ["suite_run", "iteration", "second"], "ns")
    return build_dataset(table, **kw)


def noisy(cv: float, seed: int, shape: tuple[int, ...] = FULL) -> np.ndarray:
    return np.random.default_rng(seed).normal(100.0, 100.0 * cv, size=shape)


def test_enumeration_order_and_minimum_repetitions() -> None:
    configs = enumerate_configs(FULL)
    # suite_runs·iterations ≥ 3: (1,3..5), (2,2..5), (3,1..5) = 12 pairs × 5 seconds
    assert len(configs) == 60
    assert configs[:6] == [(1, 3, 1), (1, 3, 2), (1, 3, 3), (1, 3, 4), (1, 3, 5), (1, 4, 1)]
    assert configs[-1] == FULL
    assert all(s * i >= 3 for s, i, _ in configs)
    assert enumerate_configs((5,)) == [(3,), (4,), (5,)]


def test_cheapest_stable_configuration_wins_and_ties_go_to_lower_metric() -> None:
    cube = np.full(FULL, 100.0)
    # cost-3 candidates: (1,3,1) and (3,1,1). Give (1,3,1) CV 0.008 and (3,1,1) CV 0.002.
    cube[0, :3, 0] = [99.0, 100.0, 101.0]
    cube[:, 0, 0] = [99.0, 99.8, 99.6]  # shares cube[0,0,0] = 99
    series = Series("b", cube, None)
    choice = search(series, FULL, "cv", 0.01)
    assert choice is not None
    values_131 = np.array([99.0, 100.0, 101.0])
    values_311 = np.array([99.0, 99.8, 99.6])
    cv131 = values_131.std() / values_131.mean()
    cv311 = values_311.std() / values_311.mean()
    assert cv311 < cv131 < 0.01
    assert choice.config == (3, 1, 1)
    assert choice.instability == pytest.approx(cv311)
    assert choice.cost == 3 and choice.stable and not choice.never_stable


def test_exact_ties_go_to_enumeration_order() -> None:
    cube = np.tile(np.array([99.0, 100.0, 101.0, 100.0, 100.0]), (3, 5, 1))
    # every cost-3 configuration with 1 second has CV 0 -> (1,3,1) comes first in enumeration
    series = Series("b", cube, None)
    choice = search(series, FULL, "cv", 0.01)
    assert choice is not None and choice.config == (1, 3, 1)


def test_threshold_is_strict() -> None:
    pattern = np.array([90.0, 100.0, 110.0])
    # value at (s, i) = pattern[(5s + i) mod 3]: (1,3,1) sees 90,100,110 and (3,1,1) 90,110,100
    cube = np.empty(FULL)
    for s in range(3):
        for i in range(5):
            cube[s, i, :] = pattern[(5 * s + i) % 3]
    exact = pattern.std() / pattern.mean()
    series = Series("b", cube, None)
    at = search(series, FULL, "cv", exact)
    assert at is not None and at.cost > 3  # metric == threshold is not stable
    below = search(series, FULL, "cv", exact * 1.0000001)
    # both cost-3 configurations are stable with the same value: enumeration order decides
    assert below is not None and below.config == (1, 3, 1)


def test_nothing_stable_gives_the_full_configuration_with_advice() -> None:
    ds = dataset({"wild": noisy(0.2, 1)})
    cal = calibrate(ds, "cv")
    doc = cal.to_json()
    entry = doc["benchmarks"]["wild"]
    assert entry["config"] == {"suite_run": 3, "iteration": 5, "second": 5}
    assert entry["never_stable"] is True and entry["stable"] is False
    assert "full configuration" in entry["advice"] and "repetitions" in entry["advice"]
    assert entry["instability"] == pytest.approx(entry["full_instability"])
    assert doc["summary"]["n_never_stable"] == 1
    assert doc["summary"]["saved_pct"] == 0.0


@pytest.mark.parametrize("metric", ["cv", "rmad", "rciw1", "rciw2", "rciw3"])
def test_early_stopping_search_equals_exhaustive_search(metric: str) -> None:
    cubes = {f"b{k}": noisy(cv, k) for k, cv in enumerate([0.001, 0.004, 0.008, 0.012, 0.03])}
    ds = dataset(cubes)
    plan = make_plan(ds.full, 3, 500)
    fast = calibrate(ds, metric, plan=plan)
    slow = calibrate(ds, metric, plan=plan, exhaustive=True)
    assert {n: (c.config, c.instability) for n, c in fast.choices.items()} == {
        n: (c.config, c.instability) for n, c in slow.choices.items()
    }
    assert sum(c.evaluated for c in fast.choices.values()) < sum(c.evaluated for c in slow.choices.values())


def test_noisier_benchmarks_need_larger_configurations() -> None:
    # RCIW shrinks with the number of measurements (CV does not): 1.2 % noise needs ~40 values
    ds = dataset({"quiet": noisy(0.001, 1), "medium": noisy(0.012, 2)})
    cal = calibrate(ds, "rciw1", plan=make_plan(ds.full, 1, 2000))
    assert cal.choices["quiet"].cost == 3
    assert cal.choices["medium"].cost > 3 and cal.choices["medium"].stable
    s = cal.to_json()["summary"]
    assert s["full_cost"] == 150 and s["cost_unit"] == "measurements"
    assert s["minimal_cost"] == cal.choices["quiet"].cost + cal.choices["medium"].cost


def test_gaps_are_judged_on_observed_values() -> None:
    cube = noisy(0.002, 4)
    cube[2, 0, :] = np.nan  # suite run 3, iteration 1 missing (as in the Go data)
    ds = dataset({"gappy": cube})
    assert any(w["code"] == "gaps" for w in ds.warnings)
    choice = calibrate(ds, "cv").choices["gappy"]
    # (3,1,1) now has only 2 values: not eligible; the cheapest eligible is cost 3 with 3 values
    assert choice.config == (1, 3, 1) and choice.n_measurements == 3


def test_bad_benchmarks_are_skipped_and_the_rest_calibrated() -> None:
    bad = noisy(0.002, 5)
    bad[0, 0, 0] = -1.0
    tiny = np.full(FULL, np.nan)
    tiny[0, 0, :2] = [1.0, 1.0]
    all_bad = np.full(FULL, -1.0)
    ds = dataset({"good": noisy(0.002, 6), "one_negative": bad, "all_negative": all_bad, "tiny": tiny})
    cal = calibrate(ds, "cv")
    # one bad value is a gap (calibrated on the rest, with a warning); no usable value is skipped
    assert set(cal.choices) == {"good", "one_negative"}
    assert any(w["code"] == "bad-values-as-gaps" and "one_negative (1)" in w["message"] for w in ds.warnings)
    assert "zero or negative" in ds.skipped["all_negative"]
    assert "only 2 measurement" in ds.skipped["tiny"]
    assert all("; " in reason for reason in ds.skipped.values())  # message; fix


def test_nothing_calibratable_is_an_error_naming_the_fix() -> None:
    bad = np.zeros(FULL)
    with pytest.raises(InputError) as err:
        calibrate(dataset({"zero": bad}), "cv")
    assert err.value.fix


def test_discard_warmup_drops_leading_positions_and_renumbers() -> None:
    cube = noisy(0.001, 7)
    cube[:, :, 0] = np.random.default_rng(8).uniform(100.0, 200.0, size=(3, 5))  # erratic warm-up second
    plain = calibrate(dataset({"b": cube}), "cv").choices["b"]
    warm_ds = dataset({"b": cube}, discard_warmup=1)
    assert warm_ds.full == (3, 5, 4)
    warm = calibrate(warm_ds, "cv").choices["b"]
    assert plain.never_stable
    assert warm.cost == 3 and warm.stable
    with pytest.raises(ConfigError, match="drops every"):
        dataset({"b": cube}, discard_warmup=5)


def test_version_and_instance_selection() -> None:
    frame = pd.concat([tidy({"b": noisy(0.001, 1)}, "v1"), tidy({"b": noisy(0.001, 2)}, "v2")])
    table = normalise(frame, ["suite_run", "iteration", "second"], "ns")
    with pytest.raises(ConfigError) as err:
        select(table, "version", None, "--version")
    assert "--version" in err.value.fix
    with pytest.raises(ConfigError, match="not in the input"):
        select(table, "version", "v9", "--version")
    assert len(select(table, "version", "v2", "--version").frame) == 75


def test_missing_levels_and_bad_positions() -> None:
    frame = tidy({"b": noisy(0.001, 1)})
    with pytest.raises(InputError) as err:
        normalise(frame, None, "ns")  # default levels name 'measurement', absent here
    assert "--levels" in err.value.fix
    broken = frame.assign(second=frame["second"] - 1)
    with pytest.raises(InputError, match="positive integers"):
        normalise(broken, ["suite_run", "iteration", "second"], "ns")


def trial_log(durations: dict[str, float]) -> pd.DataFrame:
    rows = []
    trial = 0
    rng = np.random.default_rng(0)
    for s in (1, 2):
        for name, d in durations.items():
            for i in (1, 2, 3):
                trial += 1
                for m in (1, 2):
                    rows.append(
                        {
                            "trial": trial,
                            "benchmark": name,
                            "version": "main",
                            "instance": "host",
                            "suite_run": s,
                            "order_type": "random",
                            "position": 1,
                            "iteration": i,
                            "measurement": m,
                            "value": 10.0 + rng.normal(0, 0.01),
                            "unit": "s",
                            "higher_is_better": "false",
                            "status": "ok",
                            "reason": "",
                            "started_at": "2026-11-26T00:00:00Z",
                            "elapsed_s": 2 * d,
                            "config": "full",
                        }
                    )
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


def test_trial_log_cost_uses_elapsed_time_per_measurement() -> None:
    table = normalise(trial_log({"fast": 0.5, "slow": 4.0}))
    assert table.is_trial_log and table.has_duration
    ds = build_dataset(table)
    assert ds.cost_unit == "s"
    assert ds.series["fast"].mean_duration == pytest.approx(0.5)  # elapsed_s / 2 rows per trial
    cal = calibrate(ds, "cv").to_json()
    assert cal["benchmarks"]["slow"]["cost"] == pytest.approx(8 * cal["benchmarks"]["fast"]["cost"])
    assert cal["summary"]["full_cost"] == pytest.approx(12 * 0.5 + 12 * 4.0)


def test_trial_log_failed_trials_are_ignored_with_a_warning() -> None:
    log = trial_log({"b": 1.0})
    log.loc[log.index[-1], "status"] = "timeout"
    ds = build_dataset(normalise(log))
    assert any(w["code"] == "failed-trials" for w in ds.warnings)
    assert int((~np.isnan(ds.series["b"].cube)).sum()) == 11


def test_calibrated_rows_are_not_used() -> None:
    log = trial_log({"b": 1.0}).assign(config="calibration")
    with pytest.raises(InputError, match="full configuration"):
        normalise(log)


def test_fixed_order_rows_are_not_used() -> None:
    # A run --order-check log: suite run 2 is OrderSage's fixed baseline order, with wild values.
    log = trial_log({"b": 1.0})
    fixed = log["suite_run"] == 2
    log.loc[fixed, "order_type"] = "fixed"
    log.loc[fixed, "value"] = 1000.0
    table = normalise(log)
    assert any(w["code"] == "fixed-order-rows-ignored" for w in table.warnings)
    ds = build_dataset(table)
    assert int((~np.isnan(ds.series["b"].cube)).sum()) == 6
    assert np.nanmax(ds.series["b"].cube) < 11


def test_verdict_rule_of_rq4() -> None:
    base = Estimate(100.0, 99.0, 101.0)
    assert verdict(base, Estimate(104.0, 103.0, 105.0), 3.0, False)[0] == "regression"
    assert verdict(base, Estimate(104.0, 101.0, 105.0), 3.0, False)[0] == "regression"  # touching = disjoint
    assert verdict(base, Estimate(104.0, 100.5, 105.0), 3.0, False)[0] == "unchanged"  # overlap
    assert verdict(base, Estimate(102.0, 101.5, 102.5), 3.0, False)[0] == "unchanged"  # below 3 %
    assert verdict(base, Estimate(96.0, 95.0, 97.0), 3.0, False)[0] == "improvement"
    assert verdict(base, Estimate(96.0, 95.0, 97.0), 3.0, True)[0] == "regression"  # throughput dropped


def test_audit_counts_false_positives_and_negatives() -> None:
    rng = np.random.default_rng(3)
    base = {n: rng.normal(100, 0.2, FULL) for n in ("same", "slower", "noisy")}
    head = {
        "same": rng.normal(100, 0.2, FULL),
        "slower": rng.normal(110, 0.2, FULL),
        "noisy": rng.normal(100, 0.2, FULL),
    }
    # the minimal configuration (1,3,1) of "noisy" sees an outlier slowdown in the head version
    head["noisy"][0, :3, 0] = [112.0, 112.1, 111.9]
    d1, d2 = dataset(base), dataset(head)
    configs = {"same": (1, 3, 1), "slower": (1, 3, 1), "noisy": (1, 3, 1)}
    plan = make_plan(FULL, 1, 2000)
    result = audit({"v1": d1, "v2": d2}, configs, "cv", plan)
    (pair,) = result["pairs"]
    assert (pair["tp"], pair["fp"], pair["fn"], pair["tn"]) == (1, 1, 0, 1)
    assert pair["fpr"] == 0.5 and pair["fnr"] == 0.0
    assert pair["agreement_pct"] == pytest.approx(200 / 3, abs=0.01)
    assert [d["benchmark"] for d in pair["disagreements"]] == ["noisy"]
    assert result["rule"]["statistic"] == "mean"


def test_costs_are_finite_and_json_has_no_nan() -> None:
    ds = dataset({"b": np.random.default_rng(9).lognormal(3.0, 0.5, FULL)})
    doc = calibrate(ds, "rciw2", plan=make_plan(ds.full, 1, 300)).to_json()
    for entry in doc["benchmarks"].values():
        assert entry["instability"] is None or math.isfinite(entry["instability"])


def test_durations_of_several_runners_logs_are_not_mixed() -> None:
    a = trial_log({"b": 1.0})
    b = trial_log({"b": 3.0}).assign(instance="other")
    table = normalise(pd.concat([a, b], ignore_index=True))
    one = build_dataset(select(table, "instance", "host", "--instance"))
    two = build_dataset(select(table, "instance", "other", "--instance"))
    assert one.series["b"].mean_duration == pytest.approx(1.0)
    assert two.series["b"].mean_duration == pytest.approx(3.0)


# ---- findings F7/F8: failures and bad input name what happened and the real fix ---------------


def test_a_benchmark_whose_every_trial_failed_is_skipped_with_its_failure() -> None:
    log = trial_log({"b": 1.0, "dead": 1.0})
    dead = log["benchmark"] == "dead"
    # a failed trial is one row (measurement 1, empty value, the failure status and reason)
    log = log.loc[~dead | (log["measurement"] == 1)].copy()
    dead = log["benchmark"] == "dead"
    log.loc[dead, ["value", "status", "reason"]] = [np.nan, "error", "boom"]
    log.loc[dead & (log["suite_run"] == 2) & (log["iteration"] == 3), ["status", "reason"]] = ["timeout", ""]
    ds = build_dataset(normalise(log))
    assert set(ds.series) == {"b"}
    reason = ds.skipped["dead"]
    assert "all 6 trials failed" in reason and "error" in reason and "boom" in reason and "timeout" in reason
    assert "; " in reason  # message; fix
    assert any(w["code"] == "not-calibrated" and "dead" in w["message"] for w in ds.warnings)
    doc = calibrate(ds, "cv").to_json()
    assert doc["skipped"]["dead"] == reason and doc["summary"]["n_skipped"] == 1


def test_failures_of_another_version_are_not_listed() -> None:
    ok = trial_log({"b": 1.0, "c": 1.0})
    other = trial_log({"b": 1.0, "c": 1.0}).assign(version="HEAD")
    other.loc[other["benchmark"] == "c", ["value", "status", "reason"]] = [np.nan, "error", "boom"]
    table = normalise(pd.concat([ok, other], ignore_index=True))
    main = build_dataset(select(table, "version", "main", "--version"))
    assert set(main.series) == {"b", "c"} and main.skipped == {}
    head = build_dataset(select(table, "version", "HEAD", "--version"))
    assert set(head.series) == {"b"} and "boom" in head.skipped["c"]


def test_every_trial_failed_is_an_error_that_quotes_the_failures() -> None:
    log = trial_log({"b": 1.0}).assign(value=np.nan, status="timeout", reason="killed after 60 s")
    with pytest.raises(InputError) as err:
        build_dataset(normalise(log))
    assert "b" in err.value.message and "killed after 60 s" in err.value.message
    assert "rerun" in err.value.fix and "reason" in err.value.fix


def _write(frame: pd.DataFrame, path) -> str:  # type: ignore[no-untyped-def]
    frame.to_csv(path, index=False)
    return str(path)


def test_two_logs_of_the_same_run_name_the_real_fix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = trial_log({"b": 1.0, "c": 2.0})
    first = _write(log, tmp_path / "trials.csv")
    second = _write(log.assign(started_at="2027-11-26T00:00:00Z"), tmp_path / "L2.csv")
    table = select(normalise(read_tables([first, second])), "version", "main", "--version")
    ds = build_dataset(table)
    reason = ds.skipped["b"]
    assert (
        "trials.csv" in reason and "L2.csv" in reason and "suite_run 1, iteration 1, measurement 1" in reason
    )
    fix = reason.split("; ", 1)[1]
    assert "one log" in fix and "--instance" in fix and "select one version" not in fix
    with pytest.raises(InputError) as err:
        calibrate(ds, "cv")
    assert "one log" in err.value.fix and "µOpTime needs" not in err.value.fix


def test_one_log_holding_a_run_twice_names_the_real_fix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = trial_log({"b": 1.0})
    both = _write(pd.concat([log, log], ignore_index=True), tmp_path / "trials.csv")
    ds = build_dataset(normalise(read_tables([both])))
    reason = ds.skipped["b"]
    assert "trials.csv" in reason and "trial 1" in reason and "select one version" not in reason


def test_repeated_positions_in_tidy_data_still_point_at_the_selection_flags() -> None:
    frame = tidy({"b": noisy(0.001, 1)})
    frame = pd.concat([frame, frame.assign(ns=frame["ns"] + 1)], ignore_index=True)
    ds = build_dataset(normalise(frame, ["suite_run", "iteration", "second"], "ns"))
    reason = ds.skipped["b"]
    assert "suite_run 1, iteration 1, second 1" in reason and "--levels" in reason


def test_a_cut_off_last_line_is_reported_with_its_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cut.csv"
    log = trial_log({"b": 1.0})
    log.to_csv(path, index=False)
    text = path.read_text()
    lines = len(log) + 1
    for cut in (20, 60, len(text.splitlines()[-1]) - 2):
        body = "\n".join(text.splitlines()[:-1]) + "\n" + text.splitlines()[-1][:cut]
        path.write_text(body)
        table = normalise(read_tables([str(path)]))
        codes = [w["code"] for w in table.warnings]
        assert "calibrated-rows-ignored" not in codes and "failed-trials" not in codes, cut
        (w,) = [w for w in table.warnings if w["code"] == "cut_off_row"]
        assert f"line {lines}" in w["message"] and "cut.csv" in w["message"] and "resume" in w["action"]
        assert len(table.frame) == len(log) - 1


def test_nothing_calibratable_names_the_fix_of_the_problem() -> None:
    with pytest.raises(InputError) as err:
        calibrate(dataset({"zero": np.zeros(FULL)}), "cv")
    assert "--value" in err.value.fix  # the fix of "values are zero or negative"


def test_too_few_values_left_by_failures_name_the_failures() -> None:
    log = trial_log({"b": 1.0, "flaky": 1.0})
    flaky = log["benchmark"] == "flaky"
    kept = flaky & (log["suite_run"] == 1) & (log["iteration"] == 1)  # one ok trial of 2 values
    failing = flaky & ~kept
    log = log.loc[~failing | (log["measurement"] == 1)].copy()
    failing = (log["benchmark"] == "flaky") & ~((log["suite_run"] == 1) & (log["iteration"] == 1))
    log.loc[failing, ["value", "status", "reason"]] = [np.nan, "timeout", "killed after 60 s"]
    reason = build_dataset(normalise(log)).skipped["flaky"]
    assert (
        reason.startswith("only 2 measurement(s)")
        and "5 trials failed (timeout: killed after 60 s ×5)" in reason
    )
    assert "fix the benchmark" in reason.split("; ", 1)[1]


def test_a_floor_on_values_per_version_leaves_out_smaller_configurations() -> None:
    """With fewer than 5 values per version the verdict's rank test cannot call a change at 99 %
    (gate.model.rank_floor), so the CLI's calibration never picks such a configuration."""
    ds = dataset({"stable": noisy(0.001, 1), "tiny_full": noisy(0.001, 2)})
    published = calibrate(ds, "cv").choices["stable"]
    assert math.prod(published.config) == 3  # µOpTime as published: (3, 1, 1) or (1, 3, 1)
    floored = calibrate(ds, "cv", min_values=5).choices["stable"]
    assert math.prod(floored.config) >= 5 and floored.stable
    # the full configuration itself stays a candidate even below the floor
    small = Series("s", noisy(0.001, 3, (1, 3, 1)), None)
    choice = search(small, (1, 3, 1), "cv", min_values=5)
    assert choice is not None and choice.config == (1, 3, 1)


def test_a_full_configuration_below_the_floor_is_named() -> None:
    ds = dataset({"b": noisy(0.001, 4, (3, 1, 1))})
    calibrate(ds, "cv", min_values=5)
    (w,) = [w for w in ds.warnings if w["code"] == "full_too_small"]
    assert "3×1×1" in w["message"] and "[full].iterations" in w["action"]
    ds = dataset({"b": noisy(0.001, 4, (3, 1, 1))})
    calibrate(ds, "cv")  # µOpTime's own floor of 3: nothing to say
    assert not [w for w in ds.warnings if w["code"] == "full_too_small"]
