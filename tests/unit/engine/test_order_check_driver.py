"""order_check_from_trials on a log written by the real order-check schedule and driver.

In the fixed baseline order the same benchmark always follows `load`, so the leak makes that
benchmark look faster in every fixed run and only sometimes in random runs: OrderSage's test
must flag exactly that (benchmark, version) test.
"""

from __future__ import annotations

from pathlib import Path

from gate.analysis.order import order_check_from_trials
from gate.engine.schedule import order_check_schedule
from tests.unit.engine.test_carryover_driver import BENCHES, LeakyMachine, run_log


def test_order_check_flags_the_benchmarks_behind_the_leaker_in_the_fixed_order(tmp_path: Path) -> None:
    schedule = order_check_schedule(
        5, list(BENCHES), ["main", "HEAD"], pairs=20, measurements=1, instance="r"
    )
    fixed = [t for t in schedule if t.suite_run == 1]
    # The trials right after a `load` trial (either version) in the fixed baseline order: the
    # same in every fixed run.
    behind = {
        (fixed[i + 1].version, fixed[i + 1].benchmark)
        for i in range(len(fixed) - 1)
        if fixed[i].benchmark == "load"
    }
    assert behind, "choose a seed where load is not last in the baseline"
    df = run_log(tmp_path, schedule, LeakyMachine(5, leaker="load", factor=0.9))
    out = order_check_from_trials(df)
    assert out is not None
    tests = {(e["experiment"], t["test"]): t for e in out["experiments"] for t in e["tests"]}
    assert {k for k, t in tests.items() if t["significant"]} == behind
    for key in behind:
        # Δ% = (mean_fixed − mean_random)/mean_fixed: faster in the fixed order → negative.
        assert tests[key]["delta_pct"] < -5.0
