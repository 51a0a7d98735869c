"""Advice for an inconclusive benchmark that more values cannot resolve within one run's limit.

``[full]`` and calibrations are held to ``MAX_VALUES`` values per benchmark and version, so telling
the user to raise ``[full].iterations`` (or to recalibrate with ``--min-values`` above the limit)
when the noise would need more than that names an option the gate then refuses."""

from __future__ import annotations

import numpy as np
import pytest

from gate.analysis.compare import AnalysisSettings, Sample, compare_one
from gate.model import MAX_VALUES, Verdict

FAST = AnalysisSettings(resamples=2000, seed=3)


def spread(n: int, sigma: float, seed: int) -> np.ndarray:
    # Log-normal values: the shape of a Python benchmark timed on a loaded machine.
    return np.exp(np.random.default_rng(seed).normal(0.0, sigma, size=n))


@pytest.mark.parametrize("calibrated", [False, True])
def test_noise_needing_more_than_one_run_may_collect_points_at_the_noise_and_the_threshold(calibrated):
    c = compare_one(
        "b",
        Sample(spread(75, 1.0, 1)),
        Sample(spread(75, 1.0, 2)),
        False,
        FAST,
        np.random.default_rng(0),
        calibrated,
    )
    assert c.verdict is Verdict.INCONCLUSIVE
    assert c.samples_needed is not None and c.samples_needed > MAX_VALUES
    assert f"more than the {MAX_VALUES:,} values one run may collect" in c.reason
    assert "threshold_pct" in c.reason and "reduce the noise" in c.reason
    assert "raise [full]" not in c.reason and "--min-values" not in c.reason


def test_noise_within_the_limit_still_names_the_levels_to_raise():
    c = compare_one(
        "b",
        Sample(spread(45, 0.05, 1)),
        Sample(spread(45, 0.05, 2) * 1.02),
        False,
        FAST,
        np.random.default_rng(0),
    )
    assert c.verdict is Verdict.INCONCLUSIVE
    assert c.samples_needed is not None and c.samples_needed <= MAX_VALUES
    assert "raise [full].iterations" in c.reason
