"""The audit (µOpTime §4.5, RQ4): the paper's verdict rule and the counts of a replayed pair."""

from __future__ import annotations

import numpy as np
import pytest

from gate.calibration.audit import Estimate, audit, uoptime_verdict_and_change
from gate.calibration.audit_rounds import RoundsReplay
from gate.calibration.search import make_plan
from tests.unit.calibration.frames import FULL, dataset


def test_verdict_rule_of_rq4() -> None:
    base = Estimate(100.0, 99.0, 101.0)

    def verdict(head: Estimate, higher_is_better: bool = False) -> str:
        kind, change = uoptime_verdict_and_change(base, head, 3.0, higher_is_better)
        assert change == pytest.approx((head.average / base.average - 1.0) * 100.0)
        return kind

    assert verdict(Estimate(104.0, 103.0, 105.0)) == "regression"
    assert verdict(Estimate(104.0, 101.0, 105.0)) == "regression"  # touching = disjoint
    assert verdict(Estimate(104.0, 100.5, 105.0)) == "unchanged"  # overlap
    assert verdict(Estimate(102.0, 101.5, 102.5)) == "unchanged"  # below 3 %
    assert verdict(Estimate(96.0, 95.0, 97.0)) == "improvement"
    assert verdict(Estimate(96.0, 95.0, 97.0), True) == "regression"  # throughput dropped


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


def test_agreement_counts_only_the_verdicts_the_full_configuration_decides() -> None:
    """Two inconclusive verdicts agree, but say nothing: the agreement over decided verdicts and
    how many were decided are reported beside the plain agreement."""
    rng = np.random.default_rng(5)
    # "wild": 40 % noise, inconclusive with every configuration; "slower": a clear +10 %
    base = {"wild": rng.lognormal(4.6, 0.4, FULL), "slower": rng.normal(100, 0.2, FULL)}
    head = {"wild": rng.lognormal(4.6, 0.4, FULL), "slower": rng.normal(110, 0.2, FULL)}
    # 5 trials: 2 trials per version could not call even the clear +10 % (the randomization test
    # over trials, gate/stats/rank.py trial_guard: its smallest p with 2 + 2 trials is 1/6)
    configs = {"wild": (1, 5, 5), "slower": (1, 5, 5)}
    plan = make_plan(FULL, 1, 2000)
    (pair,) = audit({"v1": dataset(base), "v2": dataset(head)}, configs, "rmad", plan, rule="gate")["pairs"]
    assert pair["verdicts"]["wild"] == {"full": "inconclusive", "minimal": "inconclusive"}
    assert pair["agreement_pct"] == 100.0
    assert (pair["decided"], pair["minimal_decided"], pair["agreement_decided_pct"]) == (1, 1, 100.0)
    (none,) = audit({"v1": dataset({"wild": base["wild"]}), "v2": dataset({"wild": head["wild"]})},
                    {"wild": (1, 2, 5)}, "rmad", plan, rule="gate")["pairs"]  # fmt: skip
    assert none["agreement_pct"] == 100.0 and none["decided"] == 0 and none["agreement_decided_pct"] is None


def test_the_audit_replays_follow_up_rounds_within_the_budget() -> None:
    """A +5 % change under 2 % noise: 10 values per version cannot call it, the full 75 can; with
    a budget the replayed rounds add suite runs as `run --budget` would and reach the full
    configuration's verdict; without one, or with too small a budget, the minimal one stays
    inconclusive."""
    rng = np.random.default_rng(11)
    names = [f"b{i}" for i in range(4)]
    base = {n: rng.normal(100, 2.0, FULL) for n in names}
    head = {n: rng.normal(105, 2.0, FULL) for n in names}
    configs = dict.fromkeys(names, (1, 2, 5))
    plan = make_plan(FULL, 1, 2000)
    datasets = {"v1": dataset(base), "v2": dataset(head)}

    def run(rounds: RoundsReplay | None) -> dict:  # type: ignore[type-arg]
        # the median, whose CI at 10 values per version cannot call +5 % under 2 % noise
        (pair,) = audit(datasets, configs, "rmad", plan, rule="gate", rounds=rounds, statistic="median")[
            "pairs"
        ]
        return pair

    alone = run(None)
    assert all(v["full"] == "regression" for v in alone["verdicts"].values())
    assert alone["minimal_decided"] < 4 and alone["rounds"] is None
    ample = run(RoundsReplay(budget_s=10_000, max_rounds=3))
    assert ample["rounds"]["rounds"] >= 1 and ample["rounds"]["followed"] >= 1
    assert ample["rounds"]["used_s"] <= 10_000
    assert ample["rounds"]["confidence_per_look"] == pytest.approx(1 - 0.01 / 4)
    assert ample["minimal_decided"] > alone["minimal_decided"]
    assert ample["agreement_decided_pct"] > alone["agreement_decided_pct"]
    assert ample["fp"] == 0
    tiny = run(RoundsReplay(budget_s=1, max_rounds=3))
    assert tiny["rounds"]["rounds"] == 0 and tiny["rounds"]["stop"] in ("budget_spent", "no_candidates")


def test_rounds_need_the_gate_rule() -> None:
    from gate.errors import ConfigError

    plan = make_plan(FULL, 1, 2000)
    ds = dataset({"a": np.full(FULL, 1.0)})
    with pytest.raises(ConfigError, match="--audit-rule gate"):
        audit({"v1": ds, "v2": ds}, {"a": (1, 1, 1)}, "cv", plan, rule="uoptime", rounds=RoundsReplay(60))


def test_the_printed_audit_leads_with_the_decided_agreement() -> None:
    from gate.commands.calibrate import audit_pair_words

    pair = {"n": 5, "agreement_pct": 100.0, "full_changes": 0, "min_changes": 0, "fp": 0, "fn": 0}
    none = audit_pair_words({**pair, "decided": 0, "minimal_decided": 0, "agreement_decided_pct": None})
    assert "none decided by the full configuration: no agreement to report" in none and "100" not in none
    some = audit_pair_words({**pair, "decided": 4, "minimal_decided": 3, "agreement_decided_pct": 75.0})
    assert some.startswith("5 benchmarks, 4 decided by the full configuration, agreement 75.0% on those")
    assert audit_pair_words(pair).startswith("5 benchmarks, agreement 100.0%")  # an older file
