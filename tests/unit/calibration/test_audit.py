"""The audit (µOpTime §4.5, RQ4): the paper's verdict rule and the counts of a replayed pair."""

from __future__ import annotations

import numpy as np
import pytest

from gate.calibration.audit import Estimate, audit, verdict
from gate.calibration.search import make_plan
from tests.unit.calibration.frames import FULL, dataset


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
