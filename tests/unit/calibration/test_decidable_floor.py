"""calibrate never picks a configuration with which a pull request's verdict cannot decide: the
floors of the analysis's own small-sample guards (gate/calibration/decidable.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gate.analysis.compare import AnalysisSettings, Sample, compare_one
from gate.calibration.dataset import Series
from gate.calibration.decidable import Floor, floor_for
from gate.calibration.search import calibrate, search
from gate.model import Verdict
from tests.unit.calibration.frames import FULL, dataset


def _separated(trials: int, per_trial: int, change: float = 1.2) -> tuple[Sample, Sample]:
    """A clear +20 % change, every head value above every base value, ``trials`` trials of
    ``per_trial`` values per version (a little noise inside and between trials)."""
    rng = np.random.default_rng(trials * 100 + per_trial)

    def version(level: float) -> Sample:
        values = level * (1.0 + 0.002 * rng.standard_normal((trials, per_trial)))
        return Sample(values.ravel(), unit_id=np.repeat(np.arange(trials), per_trial))

    return version(100.0), version(100.0 * change)


@pytest.mark.parametrize(
    ("confidence", "rounds", "values", "trials"),
    [(0.99, 0, 5, 5), (0.99, 3, 6, 6), (0.95, 0, 4, 4)],
)
def test_the_floor_is_derived_from_the_first_look(confidence, rounds, values, trials) -> None:  # type: ignore[no-untyped-def]
    floor = floor_for(confidence, rounds)
    assert (floor.values, floor.trials, floor.max_rounds) == (values, trials, rounds)


@pytest.mark.parametrize("rounds", [0, 3])
def test_the_floor_is_where_the_analysis_starts_to_decide(rounds: int) -> None:
    """Below the floor even a +20 % change with every head value above every base value stays
    inconclusive at the first look's confidence; at the floor it is a regression — so the floor
    is the analysis's own, not a copy of its numbers."""
    floor = floor_for(0.99, rounds)
    assert floor.confidence is not None
    settings = AnalysisSettings(confidence=floor.confidence, resamples=2000)

    def verdict(trials: int, per_trial: int) -> Verdict:
        base, head = _separated(trials, per_trial)
        return compare_one("b", base, head, False, settings, np.random.default_rng(1)).verdict

    # several values per trial: the test over trials sets the floor
    assert verdict(floor.trials - 1, 3) == Verdict.INCONCLUSIVE
    assert verdict(floor.trials, 3) == Verdict.REGRESSION
    assert (
        floor.shortfall((1, floor.trials - 1, 3)) is not None
        and floor.shortfall((1, floor.trials, 3)) is None
    )
    # one value per trial: the exact rank test over values sets it
    assert verdict(floor.values - 1, 1) == Verdict.INCONCLUSIVE
    assert verdict(floor.values, 1) == Verdict.REGRESSION
    assert (
        floor.shortfall((1, floor.values - 1, 1)) is not None
        and floor.shortfall((1, floor.values, 1)) is None
    )


def _stable_with_few_trials() -> np.ndarray:
    """Every trial's first measurement is 2 % off (alternating sign), the others exact: the CV is
    about 2 %/√m for m measurements per trial, so trials of 4-5 measurements are stable at 1 % —
    already with 3 or 4 trials, which cannot decide a verdict."""
    cube = np.full(FULL, 100.0)
    signs = np.resize([1.0, -1.0], FULL[0] * FULL[1]).reshape(FULL[:2])
    cube[:, :, 0] = 100.0 + 2.0 * signs
    return cube


def test_calibrate_picks_the_decidable_floor_where_stability_allows_fewer_trials() -> None:
    ds = dataset({"b": _stable_with_few_trials()})
    published = calibrate(ds, "cv").choices["b"]
    trials = math.prod(published.config[:-1])
    assert published.config == (1, 3, 4) and trials < 5  # µOpTime alone: 3 trials of 4 values

    floor = floor_for(0.99, 0)
    chosen = calibrate(ds, "cv", floor=floor)
    choice = chosen.choices["b"]
    assert choice.stable and math.prod(choice.config[:-1]) >= floor.trials and choice.config[-1] >= 2
    assert choice.config == (1, 5, 4)  # the cheapest stable one with 5 trials
    assert choice.below_floor is not None and choice.below_floor[0] == published.config
    entry = chosen.to_json()["benchmarks"]["b"]
    assert entry["below_floor"]["config"] == {"suite_run": 1, "iteration": 3, "second": 4}
    assert "3 trials of 4 values per version, fewer than 5" in entry["below_floor"]["reason"]
    assert chosen.to_json()["settings"]["floor"]["trials"] == 5

    # and the chosen configuration can decide: a clear change on it is a regression
    base, head = _separated(math.prod(choice.config[:-1]), choice.config[-1])
    settings = AnalysisSettings(confidence=0.99, resamples=2000)
    assert (
        compare_one("b", base, head, False, settings, np.random.default_rng(1)).verdict == Verdict.REGRESSION
    )


def test_no_floor_note_where_stability_alone_reaches_it() -> None:
    series = Series("b", _stable_with_few_trials(), None)
    choice = search(series, FULL, "cv", floor=Floor(values=12, trials=3))
    assert choice is not None and choice.config == (1, 3, 4) and choice.below_floor is None


def test_a_hand_floor_on_values_leaves_trials_alone() -> None:
    """--min-values N (3: µOpTime as published) sets no floor on trials."""
    series = Series("b", _stable_with_few_trials(), None)
    choice = search(series, FULL, "cv", floor=Floor(3))
    assert choice is not None and choice.config == (1, 3, 4) and choice.below_floor is None


def test_a_full_configuration_with_too_few_trials_is_named() -> None:
    ds = dataset({"b": _stable_with_few_trials()[:1, :4]})
    result = calibrate(ds, "cv", floor=floor_for(0.99, 0))
    assert result.choices["b"].config == (1, 4, 5)  # the full one still runs
    (w,) = [w for w in ds.warnings if w["code"] == "full_too_small"]
    assert "4 trials of 5 values" in w["message"] and "suite_runs × iterations at least 5" in w["action"]
