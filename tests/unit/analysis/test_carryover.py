"""gate.analysis.carryover on generated RMIT trial logs with planted (or no) carry-over."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from gate.analysis.carryover import START, CarryoverResult, analyze_carryover, holm
from gate.model import TRIAL_COLUMNS


def make_trial_log(
    seed: int,
    benchmarks: Sequence[str] = ("load", "parse", "render", "save"),
    versions: Sequence[str] = ("main", "HEAD"),
    suite_runs: int = 10,
    iterations: int = 3,
    measurements: int = 3,
    noise: float = 0.02,
    effects: dict[tuple[str | None, str], float] | None = None,
    drift: dict[str, float] | None = None,
    instances: Sequence[str] = ("r1",),
    higher_is_better: bool = False,
) -> pd.DataFrame:
    """A trial log like `run` writes: per instance and suite run, every (benchmark, version,
    iteration) trial once in a fresh random order. ``effects[(pred, bench)]`` multiplies
    ``bench`` by (1 + effect) when ``pred`` ran right before it (``None`` = first in the run);
    ``drift[bench]`` adds a trend of that size from the first to the last position."""
    rng = np.random.default_rng(seed)
    effects = effects or {}
    drift = drift or {}
    rows = []
    trial = 0
    base = {b: 1.0 + i for i, b in enumerate(benchmarks)}
    for inst in instances:
        for sr in range(1, suite_runs + 1):
            sched = [(b, v, it) for b in benchmarks for v in versions for it in range(1, iterations + 1)]
            prev: str | None = None
            for pos, k in enumerate(rng.permutation(len(sched)), start=1):
                b, v, it = sched[k]
                trial += 1
                f = 1.0 + effects.get((prev, b), 0.0) + drift.get(b, 0.0) * (pos - 1) / (len(sched) - 1)
                for m in range(1, measurements + 1):
                    rows.append(
                        {
                            "trial": trial, "benchmark": b, "version": v, "instance": inst, "suite_run": sr,
                            "order_type": "random", "position": pos, "iteration": it, "measurement": m,
                            "value": base[b] * f * rng.lognormal(0, noise), "unit": "s",
                            "higher_is_better": higher_is_better, "status": "ok", "reason": "",
                            "started_at": "", "elapsed_s": 0.1, "config": "full", "round": 0,
                        }
                    )  # fmt: skip
                prev = b
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


def test_planted_predecessor_effect_is_named_with_its_size() -> None:
    res = analyze_carryover(make_trial_log(1, effects={("load", "parse"): -0.07}))
    assert isinstance(res, CarryoverResult)
    parse = res.per_benchmark["parse"]
    assert parse["predecessor_test"]["significant"]
    culprits = [e for e in parse["predecessors"] if e["significant"]]
    assert [e["predecessor"] for e in culprits] == ["load"]
    assert culprits[0]["effect_pct"] == pytest.approx(-7.0, abs=1.5)
    assert culprits[0]["p_adj"] < 0.05 and culprits[0]["n"] >= 5
    assert set(culprits[0]["effect_pct_by_version"]) == {"main", "HEAD"}
    (w,) = res.warnings["parse"]
    assert w["code"] == "carryover"
    assert w["message"].startswith("parse is 7.") and "faster right after load" in w["message"]
    assert "reset" in w["action"]
    assert set(res.warnings) == {"parse"}  # nobody else is blamed


def test_direction_follows_higher_is_better() -> None:
    log = make_trial_log(2, effects={("load", "parse"): -0.07}, higher_is_better=True)
    (w,) = analyze_carryover(log).warnings["parse"]
    assert "slower right after load" in w["message"]  # lower throughput = slower


def test_start_of_run_effect() -> None:
    # A cold first trial: every benchmark is 10 % slower when it opens the run.
    benches = ("a", "b", "c")
    log = make_trial_log(3, benchmarks=benches, suite_runs=40, effects={(None, b): 0.10 for b in benches})
    res = analyze_carryover(log)
    for b in benches:
        culprits = [e["predecessor"] for e in res.per_benchmark[b]["predecessors"] if e["significant"]]
        assert culprits == [START], b
    assert any("as the first benchmark of a run" in w["message"] for w in res.warnings["a"])


def test_position_drift_is_found() -> None:
    res = analyze_carryover(make_trial_log(4, drift={"render": 0.06}))
    pos = res.per_benchmark["render"]["position"]
    assert pos["significant"] and pos["effect_pct"] == pytest.approx(6.0, abs=2.0)
    assert [w["code"] for w in res.warnings["render"]] == ["position_drift"]
    assert not res.per_benchmark["load"]["position"]["significant"]


def test_null_data_stays_quiet_across_seeds() -> None:
    # Three families (position, predecessor per benchmark, predecessor suite-wide), each
    # corrected at alpha = 0.05: the chance of any warning on null data is at most ~0.15.
    seeds = 60
    noisy = 0
    for s in range(seeds):
        res = analyze_carryover(make_trial_log(1000 + s, suite_runs=6))
        assert res.suite is not None
        noisy += bool(res.warnings) or bool(res.suite["warnings"])
    assert noisy / seeds <= 0.2


def test_suite_level_finds_a_leak_that_hits_every_follower() -> None:
    # Like the demo's warm-start file: whatever runs right after `save` is 15 % faster. Six
    # benchmarks, 4 suite runs, very noisy values: per benchmark there are about 4 trials after
    # `save` (not testable), pooled about 24.
    benches = ("a", "b", "c", "d", "e", "save")
    log = make_trial_log(
        41, benchmarks=benches, versions=("main",), suite_runs=4, iterations=6, measurements=1, noise=0.1,
        effects={("save", b): -0.15 for b in benches},
    )  # fmt: skip
    res = analyze_carryover(log)
    assert res.suite is not None
    named = [e for e in res.suite["predecessors"] if e["significant"]]
    assert [e["predecessor"] for e in named] == ["save"]
    assert named[0]["effect_pct"] == pytest.approx(-15.0, abs=5.0)
    (w,) = res.suite["warnings"]
    assert (
        w["code"] == "carryover_suite" and "right after save are" in w["message"] and "faster" in w["message"]
    )


def test_matrix_shape_for_heatmap() -> None:
    res = analyze_carryover(make_trial_log(5, effects={("load", "parse"): -0.07}))
    m = res.matrix
    assert m is not None
    assert m["benchmarks"] == sorted(m["benchmarks"])
    assert len(m["effect_pct"]) == len(m["benchmarks"])
    assert all(len(row) == len(m["predecessors"]) for row in m["effect_pct"])
    i, j = m["benchmarks"].index("parse"), m["predecessors"].index("load")
    assert m["effect_pct"][i][j] == pytest.approx(-7.0, abs=1.5)


def test_small_groups_are_not_tested_and_say_why() -> None:
    # One suite run, one iteration: every predecessor group has one or two trials.
    res = analyze_carryover(make_trial_log(6, suite_runs=1, iterations=1))
    assert res.warnings == {}
    assert res.matrix is None
    for entry in res.per_benchmark.values():
        assert entry["predecessor_test"]["p"] is None and "needs" in entry["predecessor_test"]["note"]
        assert entry["position"]["p"] is None


def test_failed_trials_still_count_as_predecessors() -> None:
    log = make_trial_log(7, effects={("load", "parse"): -0.07}, suite_runs=12)
    # Fail every `load` trial: they still ran, so `parse` after them is still affected.
    load = log["benchmark"] == "load"
    log.loc[load, "status"] = "error"
    log.loc[load, "value"] = np.nan
    res = analyze_carryover(log)
    assert "load" not in res.per_benchmark
    assert [e["predecessor"] for e in res.per_benchmark["parse"]["predecessors"] if e["significant"]] == [
        "load"
    ]


def test_fixed_runs_ignored_and_missing_columns_give_empty_result() -> None:
    log = make_trial_log(8).assign(order_type="fixed")
    assert analyze_carryover(log) == CarryoverResult({}, {}, None)
    assert analyze_carryover(make_trial_log(8).drop(columns=["position"])).per_benchmark == {}


def test_result_is_frozen() -> None:
    res = analyze_carryover(make_trial_log(9))
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.matrix = None  # type: ignore[misc]


def test_holm_matches_definition() -> None:
    p = np.array([0.01, 0.04, np.nan, 0.03, 0.5])
    adj = holm(p)
    # sorted 0.01, 0.03, 0.04, 0.5 with m = 4: 0.04, 0.09, max(0.09, 0.08), 0.5
    assert adj[0] == pytest.approx(0.04)
    assert adj[3] == pytest.approx(0.09)
    assert adj[1] == pytest.approx(0.09)
    assert adj[4] == pytest.approx(0.5)
    assert np.isnan(adj[2])


def test_a_real_culprit_does_not_drag_in_wrong_ones() -> None:
    # `load` slows nobody down but makes every benchmark 10 % faster right after it. The
    # step-down reference (trials not after a culprit) and Bonferroni across benchmarks keep
    # the chance of naming any other predecessor anywhere near alpha = 0.05; "not after load"
    # as the reference made every other group look ~3 % slower and named them.
    benches = ("load", "parse", "render", "save")
    seeds = 40
    wrong = missed = 0
    for s in range(seeds):
        log = make_trial_log(
            2000 + s,
            benchmarks=benches,
            suite_runs=8,
            measurements=1,
            effects={("load", b): -0.10 for b in benches},
        )
        res = analyze_carryover(log)
        named = {
            (b, e["predecessor"])
            for b in benches
            for e in res.per_benchmark[b]["predecessors"]
            if e["significant"]
        }
        wrong += any(p != "load" for _, p in named)
        missed += sum((b, "load") not in named for b in benches)
    assert wrong / seeds <= 0.15  # binomial sd at p = 0.05, n = 40: 0.034
    assert missed == 0


def test_minimal_columns_give_an_empty_result() -> None:
    # Without suite_run and position there is no predecessor to speak of.
    assert analyze_carryover(make_trial_log(10)[["benchmark", "version", "value"]]) == CarryoverResult(
        {}, {}, None
    )


@pytest.mark.parametrize("higher_is_better", [False, True])
def test_zero_values_do_not_break_percentages(higher_is_better: bool) -> None:
    # A benchmark that reports 0 for half its trials: no division by zero, strict JSON out.
    log = make_trial_log(11, suite_runs=8, higher_is_better=higher_is_better)
    log.loc[(log["benchmark"] == "parse") & (log["position"] % 2 == 0), "value"] = 0.0
    res = analyze_carryover(log)
    json.dumps([res.per_benchmark, res.warnings, res.matrix, res.suite], allow_nan=False)
    assert "load" in res.per_benchmark
