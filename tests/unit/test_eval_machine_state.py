"""eval/eval_machine_state.py: the neighbour covariate takes out noise the benchmarks share in
time and leaves a version's own change; logs without timestamps are left alone; re-dealt A/A
logs keep their trials whole; a folder without a trial log stops with a fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eval.eval_machine_state import (
    adjust_frame,
    main,
    neighbour_covariate,
    parse_variant,
    randomisation_p,
    relabel,
    synthetic_log,
)
from gate.analysis.load import load_trials


def _frame(rng: np.random.Generator, effect: float, timestamps: bool = True) -> pd.DataFrame:
    """6 benchmarks, base and head interleaved at random, every value times a slow shared drift
    (a two-level machine state, 1.6x apart); head of b0 ``effect`` slower."""
    rows = []
    t = 0.0
    for run in (1, 2, 3):
        order = [(b, v) for b in range(6) for v in ("base", "head") for _ in range(5)]
        rng.shuffle(order)
        for pos, (b, v) in enumerate(order, 1):
            state = np.log(1.6) * (np.sin(t / 4.0) > 0)
            lv = np.log(0.05 * (b + 1)) + state + rng.normal(0, 0.01)
            lv += np.log1p(effect) if (b == 0 and v == "head") else 0.0
            rows.append((f"b{b}", v, run, pos, float(np.exp(lv)), t))
            t += 0.2
    df = pd.DataFrame(rows, columns=["benchmark", "version", "suite_run", "position", "value", "t"])
    df["kind"] = "ok"
    df["started_at"] = [
        (pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(seconds=s)).isoformat() if timestamps else ""
        for s in df.pop("t")
    ]
    return df


def _spread(df: pd.DataFrame) -> float:
    lv = np.log(df["value"].astype(float))
    return float((lv - lv.groupby([df["benchmark"], df["version"]]).transform("median")).std())


def test_a_drift_shared_by_the_benchmarks_is_taken_out() -> None:
    df = _frame(np.random.default_rng(1), 0.0)
    adjusted, info = adjust_frame(df, parse_variant("sym:8"))
    assert _spread(df) > 0.15  # the two machine states dominate the raw values
    assert _spread(adjusted) < 0.5 * _spread(df)
    assert info["corr"] > 0.8 and 0.7 < info["beta"] < 1.3


def test_a_version_s_own_change_is_left_intact() -> None:
    changes = []
    for seed in range(5):
        df = _frame(np.random.default_rng(seed), 0.10)
        adjusted, _ = adjust_frame(df, parse_variant("past:8"))
        b0 = adjusted[adjusted["benchmark"] == "b0"]
        med = b0.groupby("version")["value"].median()
        changes.append(med["head"] / med["base"] - 1)
    assert abs(float(np.mean(changes)) - 0.10) < 0.03  # the covariate holds no version: no bias


def test_without_timestamps_nothing_is_adjusted() -> None:
    df = _frame(np.random.default_rng(2), 0.0, timestamps=False)
    adjusted, info = adjust_frame(df, parse_variant("sym:8"))
    assert info == {"skipped": 1.0}
    pd.testing.assert_frame_equal(adjusted, df)


def test_the_covariate_uses_other_benchmarks_and_only_earlier_values_when_asked() -> None:
    t = np.arange(6.0)
    bench = np.array(["a", "a", "b", "a", "a", "b"])
    resid = np.array([1.0, 2.0, 10.0, 3.0, 4.0, 20.0])
    past = neighbour_covariate(t, bench, resid, k=1, mode="past")
    assert np.isnan(past[0]) and np.isnan(past[1])  # no earlier value of another benchmark
    assert past[2:].tolist() == [2.0, 10.0, 10.0, 4.0]
    both = neighbour_covariate(t, bench, resid, k=2, mode="sym")
    assert both[3] == 15.0  # b's values at 2 and 5, never a's own at 4, nearer in time


def test_a_re_dealt_a_a_log_keeps_each_trial_whole_and_the_counts(tmp_path: Path) -> None:
    synthetic_log(tmp_path, 3)
    frame = load_trials([tmp_path / "trials.csv"]).frame
    dealt = relabel(frame, np.random.default_rng(1))
    keys = ["benchmark", "suite_run", "version"]
    assert dealt.groupby(keys).size().equals(frame.groupby(keys).size())
    assert (dealt["version"] != frame["version"]).any()
    assert (dealt.groupby("trial")["version"].nunique() == 1).all()


def test_a_folder_without_a_trial_log_stops_with_a_fix(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"has no trials\.csv; fix:"):
        main([str(tmp_path)])


def test_the_randomisation_test_tells_a_real_change_from_a_dealing_of_the_same_values() -> None:
    df = _frame(np.random.default_rng(4), 0.5)
    df["trial"] = np.arange(len(df))
    assert randomisation_p(df, "b0", "base", "head", "p10", dealings=999) <= 0.002  # +50 %: none as far
    assert randomisation_p(df, "b1", "base", "head", "p10", dealings=999) > 0.05  # the same code
