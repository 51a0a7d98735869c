"""The nightly's choice of each benchmark's deciding statistic (gate/calibration/statistic_choice.py),
its record in calibration.json (schema 2; an older file means the suite's statistic) and who wins
when a person chose one too (gate/analysis/statistic_source.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gate.analysis.statistic_source import BENCHMARK, CALIBRATION, resolve
from gate.calibration import statistic_choice
from gate.calibration.search import calibrate
from gate.errors import InputError
from gate.files import calibration_json, run_meta
from gate.model import CALIBRATION_SCHEMA
from tests.fakes import analyses
from tests.fakes.metas import meta_of
from tests.unit.calibration.frames import dataset


def _night(kind: str, seed: int, trials: int = 15, m: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """``fast minority``: a fifth of the processes (trials), at random, run 1.3× faster (a host
    running a process at one of two speeds, carry-over from a warming predecessor); ``right-skewed``:
    10 % of the values slowed 1.5–4× (interference)."""
    rng = np.random.default_rng(seed)
    x = 100.0 * (1 + rng.exponential(0.004, (trials, m)))
    if kind == "fast minority":
        fast = rng.permutation(trials) < round(trials / 5)
        x = x / np.where(fast[:, None], 1.3, 1.0)
    else:
        hit = rng.random((trials, m)) < 0.10
        x = np.where(hit, x * rng.uniform(1.5, 4.0, (trials, m)), x)
    return x.ravel(), np.repeat(np.arange(trials), m)


@pytest.mark.parametrize("seed", range(5))
def test_a_fast_minority_gets_the_median_and_interference_keeps_p10(seed: int) -> None:
    fast = statistic_choice.choose(*_night("fast minority", seed), pr_trials=6, pr_values_per_trial=5)
    skewed = statistic_choice.choose(*_night("right-skewed", seed), pr_trials=6, pr_values_per_trial=5)
    assert fast is not None and skewed is not None
    assert fast.statistic == "median", fast.spread_pct
    assert fast.spread_pct["median"] < fast.spread_pct["p10"] / 3
    assert "fast minority" in fast.diagnosis
    assert skewed.statistic in ("p10", "p25"), skewed.spread_pct
    assert skewed.diagnosis[0] == "right-skewed"


def test_p10_stays_unless_another_is_clearly_narrower() -> None:
    values, trials = _night("right-skewed", 3)
    made = statistic_choice.choose(values, trials, 6, 5, margin=0.99)
    assert made is not None and made.statistic == "p10"
    assert made.half_trials == 6 and made.values_per_trial == 5


def test_the_halves_are_pr_sized_but_never_overlap() -> None:
    values, trials = _night("fast minority", 1, trials=8)
    made = statistic_choice.choose(values, trials, pr_trials=20, pr_values_per_trial=3)
    assert made is not None and made.half_trials == 4 and made.values_per_trial == 3


def test_too_few_trials_choose_nothing() -> None:
    values, trials = _night("fast minority", 1, trials=3)
    assert statistic_choice.choose(values, trials, 2, 5) is None


def test_the_choice_is_seeded() -> None:
    values, trials = _night("fast minority", 4)
    assert statistic_choice.choose(values, trials, 6, 5, seed=9) == statistic_choice.choose(
        values, trials, 6, 5, seed=9
    )


def test_calibrate_writes_the_choice_and_the_file_reads_it(tmp_path) -> None:
    fast, _ = _night("fast minority", 2, trials=15, m=3)
    ds = dataset({"bimodal": fast.reshape(3, 5, 3)})
    result = calibrate(ds, "cv", threshold=0.001)  # nothing that noisy is stable: the full configuration
    body = result.to_json()
    statistic_choice.add_to(body, result, seed=1)
    entry = body["benchmarks"]["bimodal"]
    assert entry["statistic"] == "median"
    assert entry["statistic_choice"]["diagnosis"][0] == "fast minority"
    doc = {"schema_version": CALIBRATION_SCHEMA, **body}
    read = calibration_json.write(doc, tmp_path / "c.json")
    assert read.statistic_for("bimodal") == "median" and read.statistic_for("new") is None
    assert read.benchmarks["bimodal"].statistic_choice["spread_pct"]["median"] >= 0


def test_an_old_file_chooses_no_statistic_and_a_bad_one_is_named() -> None:
    old = calibration_json.from_document(analyses.calibration_document(["parse"]))
    assert old.statistic_for("parse") is None
    doc: dict[str, Any] = analyses.calibration_document(["parse"])
    doc["schema_version"] = 2
    doc["benchmarks"]["parse"]["statistic"] = "P05"
    assert calibration_json.from_document(doc).statistic_for("parse") == "p5"
    doc["benchmarks"]["parse"]["statistic"] = "fastest"
    with pytest.raises(InputError) as err:
        calibration_json.from_document(doc)
    assert "benchmarks['parse'].statistic must be median, mean, or pNN" in err.value.message


def _meta(statistic: str | None = None, **extra: Any) -> run_meta.RunMeta:
    doc: dict[str, Any] = {
        "statistics": {"own": "p20"},
        "calibrated_statistics": {"own": "median", "bimodal": "median", "skewed": "p10"},
        **extra,
    }
    if statistic is not None:
        doc["statistic"] = statistic
    return meta_of(doc)


def test_precedence_benchmark_then_flag_then_suite_then_calibration() -> None:
    opted = resolve(None, _meta("calibrated"))
    assert opted.suite == "p10" and opted.calibrated
    assert dict(opted.own) == {"own": "p20", "bimodal": "median", "skewed": "p10"}
    assert opted.sources == {"own": BENCHMARK, "bimodal": CALIBRATION, "skewed": CALIBRATION}
    # an explicit statistic (the flag, or [suite]) is one statistic for every benchmark: the
    # calibrated choices step back, a [[benchmark]] entry does not
    for plan in (resolve("mean", _meta("calibrated")), resolve(None, _meta("p25"))):
        assert not plan.calibrated and dict(plan.own) == {"own": "p20"}
    assert resolve("mean", _meta("calibrated")).suite == "mean"
    # --statistic calibrated opts in over a [suite] statistic, which stays the others' statistic
    flag = resolve("calibrated", _meta("p25"))
    assert flag.suite == "p25" and flag.own["bimodal"] == "median"


def test_without_an_opt_in_the_default_decides_as_the_evaluation_chose() -> None:
    from gate.analysis import statistic_source

    plan = resolve(None, _meta())
    assert plan.calibrated is statistic_source.CALIBRATED_BY_DEFAULT
    assert ("bimodal" in plan.own) is statistic_source.CALIBRATED_BY_DEFAULT


def test_meta_json_keeps_the_calibrated_statistics() -> None:
    meta = _meta("calibrated")
    assert meta.statistic == "calibrated"
    assert dict(meta.calibrated_statistics)["bimodal"] == "median"
    again, problems = run_meta.from_json(meta.to_json(), "meta.json")
    assert problems == [] and again.calibrated_statistics == meta.calibrated_statistics
    # "calibrated" names no statistic for one benchmark: not taken as one
    assert meta_of({"statistics": {"a": "calibrated"}}).statistics == {}
