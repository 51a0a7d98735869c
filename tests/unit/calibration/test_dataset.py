"""Calibration input: trial logs and tidy files, selection, warm-up, failures, gaps, repeated positions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gate.calibration.dataset import build_dataset, normalise, read_tables, select
from gate.calibration.search import calibrate
from gate.errors import ConfigError, InputError
from tests.unit.calibration.frames import FULL, dataset, noisy, tidy, trial_log, write_csv


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


def test_two_logs_of_the_same_run_name_the_real_fix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = trial_log({"b": 1.0, "c": 2.0})
    first = write_csv(log, tmp_path / "trials.csv")
    second = write_csv(log.assign(started_at="2027-11-26T00:00:00Z"), tmp_path / "L2.csv")
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
    both = write_csv(pd.concat([log, log], ignore_index=True), tmp_path / "trials.csv")
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
