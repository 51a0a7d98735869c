"""µOpTime search semantics (§3.1 Algorithm 1): enumeration, the stable choice, ties, the floor on values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gate.calibration.dataset import Series
from gate.calibration.search import calibrate, enumerate_configs, make_plan, search
from gate.errors import InputError
from tests.unit.calibration.frames import FULL, dataset, noisy


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


def test_nothing_calibratable_is_an_error_naming_the_fix() -> None:
    bad = np.zeros(FULL)
    with pytest.raises(InputError) as err:
        calibrate(dataset({"zero": bad}), "cv")
    assert err.value.fix


def test_costs_are_finite_and_json_has_no_nan() -> None:
    ds = dataset({"b": np.random.default_rng(9).lognormal(3.0, 0.5, FULL)})
    doc = calibrate(ds, "rciw2", plan=make_plan(ds.full, 1, 300)).to_json()
    for entry in doc["benchmarks"].values():
        assert entry["instability"] is None or math.isfinite(entry["instability"])


def test_nothing_calibratable_names_the_fix_of_the_problem() -> None:
    with pytest.raises(InputError) as err:
        calibrate(dataset({"zero": np.zeros(FULL)}), "cv")
    assert "--value" in err.value.fix  # the fix of "values are zero or negative"


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
