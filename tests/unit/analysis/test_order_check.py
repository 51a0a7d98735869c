"""gate.analysis.order: the order-check JSON on synthetic data, bad input, the trial-log path."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gate.analysis.order import order_check_frame, order_check_from_trials, trials_to_tidy
from gate.errors import InputError
from gate.model import ORDER_CHECK_SCHEMA, TRIAL_COLUMNS

TEST_KEYS = {
    "test",
    "n_fixed",
    "n_random",
    "kw_h",
    "kw_p",
    "eta2",
    "delta_pct",
    "alpha_bc",
    "significant",
    "fixed_median",
    "fixed_ci_low",
    "fixed_ci_high",
    "random_median",
    "random_ci_low",
    "random_ci_high",
    "ci_case",
}


def tidy_frame(seed: int, runs: int = 60, shift: dict[str, float] | None = None) -> pd.DataFrame:
    """OrderSage-style experiment: fixed and random runs interleaved; ``shift`` multiplies the
    fixed-order values of a test (a planted order effect)."""
    rng = np.random.default_rng(seed)
    tests = ["a", "b", "c", "d"]
    shift = shift or {}
    rows = []
    for run in range(runs):
        order_type = "fixed" if run % 2 == 0 else "random"
        order = tests if order_type == "fixed" else list(rng.permutation(tests))
        for pos, t in enumerate(order):
            factor = shift.get(t, 1.0) if order_type == "fixed" else 1.0
            rows.append(("exp1", run, order_type, pos, t, 100.0 * factor * rng.lognormal(0, 0.01)))
    return pd.DataFrame(
        rows, columns=["experiment", "run_index", "order_type", "position_in_run", "test", "value"]
    )


def test_planted_order_effect_is_found_and_only_there() -> None:
    out = order_check_frame(tidy_frame(1, shift={"b": 1.03}))
    assert out["schema_version"] == ORDER_CHECK_SCHEMA
    (exp,) = out["experiments"]
    assert exp["alpha_bc"] == pytest.approx(0.05 / 4)
    by_test = {t["test"]: t for t in exp["tests"]}
    assert set(by_test) == {"a", "b", "c", "d"}
    assert all(set(t) == TEST_KEYS for t in exp["tests"])
    assert by_test["b"]["significant"] and by_test["b"]["ci_case"] == 1
    assert by_test["b"]["delta_pct"] == pytest.approx(100 * (1 - 1 / 1.03), abs=0.5)
    assert exp["order_matters"] is True
    assert not any(by_test[t]["significant"] for t in "acd")
    json.dumps(out, allow_nan=False)  # strict JSON: no NaN sneaks in


def test_null_experiments_rarely_say_order_matters() -> None:
    # Bonferroni keeps the family-wise error near alpha = 0.05 (binomial sd ≈ 0.03 at 60 seeds).
    hits = sum(order_check_frame(tidy_frame(seed))["experiments"][0]["order_matters"] for seed in range(60))
    assert hits / 60 <= 0.15


def test_missing_columns_named() -> None:
    df = tidy_frame(1).drop(columns=["order_type"])
    with pytest.raises(InputError, match="order_type") as exc:
        order_check_frame(df)
    assert "experiment, run_index, order_type" in exc.value.fix


def test_one_order_type_only() -> None:
    df = tidy_frame(1)
    df = df.loc[df["order_type"] == "random"]
    with pytest.raises(InputError, match="only random-order runs") as exc:
        order_check_frame(df)
    assert "--order-check" in exc.value.fix


def test_non_numeric_values_named_with_rows() -> None:
    df = tidy_frame(1).astype({"value": object})
    df.loc[3, "value"] = "12 ms"
    with pytest.raises(InputError, match=r"non-numeric.*'12 ms'") as exc:
        order_check_frame(df)
    assert "plain numbers" in exc.value.fix


def test_unknown_order_type() -> None:
    df = tidy_frame(1)
    df.loc[0, "order_type"] = "shuffled"
    with pytest.raises(InputError, match="shuffled"):
        order_check_frame(df)


def test_infinite_values_rejected_and_empty_values_warned() -> None:
    df = tidy_frame(1)
    df.loc[0, "value"] = np.inf
    with pytest.raises(InputError, match="infinite"):
        order_check_frame(df)
    df.loc[0, "value"] = np.nan
    out = order_check_frame(df)
    assert [w["code"] for w in out["warnings"]] == ["empty_values"]
    assert sum(t["n_fixed"] + t["n_random"] for t in out["experiments"][0]["tests"]) == len(df) - 1


def test_identical_values_give_null_statistics_and_a_warning() -> None:
    df = tidy_frame(1)
    df.loc[df["test"] == "c", "value"] = 5.0
    exp = order_check_frame(df)["experiments"][0]
    c = next(t for t in exp["tests"] if t["test"] == "c")
    assert c["kw_p"] is None and c["significant"] is False
    assert any(w["code"] == "order_untestable" and "identical" in w["message"] for w in exp["warnings"])


def test_bad_alpha() -> None:
    with pytest.raises(InputError, match="alpha"):
        order_check_frame(tidy_frame(1), alpha=5.0)


def trial_log(seed: int, shift: float = 1.0, measurements: int = 3) -> pd.DataFrame:
    """A gate trial log from `run --order-check`: fixed and random suite runs alternate."""
    rng = np.random.default_rng(seed)
    rows = []
    trial = 0
    benches = ["x", "y", "z"]
    for sr in range(1, 41):
        order_type = "fixed" if sr % 2 else "random"
        sched = [(b, v) for b in benches for v in ("main", "HEAD")]
        if order_type == "random":
            sched = [sched[i] for i in rng.permutation(len(sched))]
        for pos, (b, v) in enumerate(sched, start=1):
            trial += 1
            f = shift if (order_type == "fixed" and b == "y") else 1.0
            for m in range(1, measurements + 1):
                row = dict.fromkeys(TRIAL_COLUMNS, "")
                row.update(
                    trial=trial, benchmark=b, version=v, instance="h", suite_run=sr, order_type=order_type,
                    position=pos, iteration=1, measurement=m, value=f * rng.lognormal(0, 0.01), status="ok",
                )  # fmt: skip
                rows.append(row)
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


def test_from_trials_none_without_fixed_runs() -> None:
    log = trial_log(1)
    assert order_check_from_trials(log.loc[log["order_type"] == "random"]) is None


def test_from_trials_one_value_per_trial_and_effect_found() -> None:
    log = trial_log(2, shift=1.04)
    tidy = trials_to_tidy(log)
    assert len(tidy) == log["trial"].nunique()
    out = order_check_from_trials(log)
    assert out is not None
    exps = {e["experiment"]: e for e in out["experiments"]}
    assert set(exps) == {"main", "HEAD"}
    for e in exps.values():
        sig = {t["test"] for t in e["tests"] if t["significant"]}
        assert sig == {"y"}
        assert all(t["n_fixed"] == 20 and t["n_random"] == 20 for t in e["tests"])


def test_from_trials_failed_rows_dropped_and_instances_split() -> None:
    log = trial_log(3)
    log.loc[log["trial"] == 1, ["status", "value"]] = ["error", np.nan]
    log2 = trial_log(4).assign(instance="other")
    out = order_check_from_trials(pd.concat([log, log2], ignore_index=True))
    assert out is not None
    names = {e["experiment"] for e in out["experiments"]}
    assert names == {"main@h", "HEAD@h", "main@other", "HEAD@other"}
    first = trial_log(3).iloc[0]
    exp = next(e for e in out["experiments"] if e["experiment"] == f"{first['version']}@h")
    n = next(t for t in exp["tests"] if t["test"] == first["benchmark"])
    assert n["n_fixed"] == 19  # the failed fixed trial is left out


def test_from_trials_version_with_one_order_type_is_skipped_with_warning() -> None:
    log = trial_log(5)
    log = log.loc[~((log["version"] == "HEAD") & (log["order_type"] == "fixed"))]
    out = order_check_from_trials(log)
    assert out is not None
    assert [e["experiment"] for e in out["experiments"]] == ["main"]
    assert out["warnings"][0]["code"] == "order_check_incomplete"


def test_from_trials_with_only_the_required_columns() -> None:
    # analyze requires only benchmark, version, value (+ order_type for this check).
    log = trial_log(6, shift=1.05)[["benchmark", "version", "order_type", "value"]]
    assert order_check_from_trials(log.loc[log["order_type"] == "random"]) is None
    out = order_check_from_trials(log)
    assert out is not None
    # Without trial ids every row is its own trial: 3 measurements × 20 runs per order type.
    assert all(t["n_fixed"] == 60 for e in out["experiments"] for t in e["tests"])
