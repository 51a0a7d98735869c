"""The "is noisy" warning shows every spread it names as larger than the threshold it names: a
value just above the threshold gets the decimals that tell them apart."""

from __future__ import annotations

import re

from gate.analysis.entries import UNSTABLE_RMAD, _noise_warning

NUMBERS = re.compile(r"typically lie (.*) from their median \(RMAD\), above ([\d.]+)%")


def _shown(base_rmad: float, head_rmad: float) -> tuple[list[float], float, str]:
    w = _noise_warning("b", {"base": {"rmad": base_rmad}, "head": {"rmad": head_rmad}})
    assert w is not None
    m = NUMBERS.search(w["message"])
    assert m is not None, w["message"]
    values = [float(v) for v in re.findall(r"([\d.]+)% in (?:base|head)", m[1])]
    return values, float(m[2]), w["message"]


def test_a_spread_just_above_the_threshold_does_not_read_as_equal_to_it():
    for above in (UNSTABLE_RMAD + 1e-5, UNSTABLE_RMAD + 4e-5, UNSTABLE_RMAD + 4e-4):
        values, threshold, message = _shown(0.231, above)
        assert len(values) == 2 and all(v > threshold for v in values), message


def test_usual_spreads_keep_one_decimal():
    values, threshold, message = _shown(0.231, 0.0)
    assert "23.1% in base" in message and "above 6.7%" in message
    assert values == [23.1] and threshold == 6.7
