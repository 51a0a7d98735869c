"""Properties of the pure RMIT / order-check schedule (hyperfine's execution_order_tests habit)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.engine.schedule import LevelConfig, assign_suite_runs, order_check_schedule, rmit_schedule
from gate.errors import ConfigError

VERSIONS = ["main", "HEAD"]


def _full(benchmarks: list[str], s: int = 3, i: int = 2, m: int = 1) -> dict[str, LevelConfig]:
    return {b: LevelConfig(s, i, m) for b in benchmarks}


def _runs(trials):
    out: dict[int, list] = {}
    for t in trials:
        out.setdefault(t.suite_run, []).append(t)
    return out


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n_bench=st.integers(1, 6),
    s=st.integers(1, 4),
    i=st.integers(1, 4),
    m=st.integers(1, 3),
)
def test_every_suite_run_is_a_permutation_of_all_trials(seed, n_bench, s, i, m):
    benchmarks = [f"b{k}" for k in range(n_bench)]
    trials = rmit_schedule(seed, benchmarks, VERSIONS, _full(benchmarks, s, i, m), "host")
    assert [t.trial for t in trials] == list(range(1, len(trials) + 1))
    runs = _runs(trials)
    assert sorted(runs) == list(range(1, s + 1))
    for run in runs.values():
        assert [t.position for t in run] == list(range(1, len(run) + 1))
        cells = Counter((t.benchmark, t.version) for t in run)
        assert cells == Counter({(b, v): i for b in benchmarks for v in VERSIONS})
        # both versions in every run, each iteration number exactly once per cell
        assert {t.version for t in run} == set(VERSIONS)
        for b in benchmarks:
            for v in VERSIONS:
                its = [t.iteration for t in run if (t.benchmark, t.version) == (b, v)]
                assert its == list(range(1, i + 1))  # numbered in order of execution
    assert all(t.measurements == m and t.order_type == "random" and t.instance == "host" for t in trials)


def test_seed_reproducibility_and_sensitivity():
    benchmarks = [f"b{k}" for k in range(5)]
    configs = _full(benchmarks)
    a = rmit_schedule(7, benchmarks, VERSIONS, configs, "x")
    b = rmit_schedule(7, benchmarks, VERSIONS, configs, "x")
    c = rmit_schedule(8, benchmarks, VERSIONS, configs, "x")
    assert a == b
    key = [(t.benchmark, t.version) for t in a]
    assert key != [(t.benchmark, t.version) for t in c]


def test_orders_differ_across_suite_runs():
    benchmarks = [f"b{k}" for k in range(5)]
    trials = rmit_schedule(3, benchmarks, VERSIONS, _full(benchmarks, s=4, i=2), "x")
    orders = {tuple((t.benchmark, t.version) for t in run) for run in _runs(trials).values()}
    assert len(orders) == 4


def test_base_does_not_always_run_first():
    # Over many seeds, the first trial of a run is base about half of the time (no fixed bias).
    firsts = Counter(
        rmit_schedule(seed, ["a"], VERSIONS, _full(["a"], s=1, i=1), "x")[0].version for seed in range(200)
    )
    assert 60 < firsts["main"] < 140


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    needs=st.lists(
        st.tuples(st.integers(1, 5), st.integers(1, 3), st.integers(1, 3)), min_size=2, max_size=12
    ),
)
def test_calibrated_benchmarks_are_spread_across_suite_runs(seed, needs):
    benchmarks = [f"b{k}" for k in range(len(needs))]
    configs = {b: LevelConfig(k, i, m, "calibration") for b, (k, i, m) in zip(benchmarks, needs, strict=True)}
    levels = dict(zip(benchmarks, needs, strict=True))
    needs = [k for k, _, _ in needs]
    trials = rmit_schedule(seed, benchmarks, VERSIONS, configs, "x")
    total = max(needs)
    runs = _runs(trials)
    assert sorted(runs) == list(range(1, total + 1))
    distinct = [len({t.benchmark for t in runs[r]}) for r in sorted(runs)]
    assert max(distinct) - min(distinct) <= 1  # µOpTime §5: no run left with one benchmark
    for b, k in zip(benchmarks, needs, strict=True):
        in_runs = {t.suite_run for t in trials if t.benchmark == b}
        assert len(in_runs) == k
        assert all(t.config_source == "calibration" for t in trials if t.benchmark == b)
        _, i, m = levels[b]
        for r in in_runs:  # its own iterations per suite run and measurements per trial
            cell = Counter(t.version for t in runs[r] if t.benchmark == b)
            assert cell == Counter({v: i for v in VERSIONS})
        assert all(t.measurements == m for t in trials if t.benchmark == b)


def test_short_benchmarks_are_not_packed_into_the_first_runs():
    # 6 benchmarks needing 1 of 3 runs + 1 needing all 3: the naive "runs 1..k" would put all six
    # into run 1 and leave runs 2 and 3 with a single benchmark.
    benchmarks = [f"b{k}" for k in range(7)]
    configs = {b: LevelConfig(1, 1, 1, "calibration") for b in benchmarks[:6]}
    configs["b6"] = LevelConfig(3, 1, 1)
    runs = _runs(rmit_schedule(1, benchmarks, VERSIONS, configs, "x"))
    assert [len({t.benchmark for t in runs[r]}) for r in (1, 2, 3)] == [3, 3, 3]


def test_assignment_depends_on_seed():
    import random

    needs = {f"b{k}": 1 for k in range(6)}
    a = assign_suite_runs(list(needs), needs, 3, random.Random(1))
    b = assign_suite_runs(list(needs), needs, 3, random.Random(2))
    assert a != b


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n_bench=st.integers(1, 5), pairs=st.integers(1, 4))
def test_order_check_alternates_one_fixed_order_with_random_orders(seed, n_bench, pairs):
    benchmarks = [f"b{k}" for k in range(n_bench)]
    trials = order_check_schedule(seed, benchmarks, VERSIONS, pairs, 2, "x")
    runs = _runs(trials)
    assert sorted(runs) == list(range(1, 2 * pairs + 1))
    fixed_orders = set()
    for r, run in runs.items():
        order_type = run[0].order_type
        assert all(t.order_type == order_type for t in run)
        assert order_type == ("fixed" if r % 2 == 1 else "random")
        assert Counter((t.benchmark, t.version) for t in run) == Counter(
            {(b, v): 1 for b in benchmarks for v in VERSIONS}
        )
        assert all(t.iteration == 1 and t.measurements == 2 for t in run)
        if order_type == "fixed":
            fixed_orders.add(tuple((t.benchmark, t.version) for t in run))
    assert len(fixed_orders) == 1


def test_order_check_random_runs_are_fresh_permutations():
    benchmarks = [f"b{k}" for k in range(6)]
    trials = order_check_schedule(5, benchmarks, VERSIONS, 4, 1, "x")
    random_orders = {
        tuple((t.benchmark, t.version) for t in run)
        for run in _runs(trials).values()
        if run[0].order_type == "random"
    }
    assert len(random_orders) == 4


def test_invalid_inputs_name_the_fix():
    with pytest.raises(ConfigError, match="no benchmarks"):
        rmit_schedule(1, [], VERSIONS, {}, "x")
    with pytest.raises(ConfigError) as exc:
        rmit_schedule(1, ["a"], ["main", "main"], _full(["a"]), "x")
    assert "--base" in exc.value.fix
    with pytest.raises(ConfigError):
        order_check_schedule(1, ["a"], VERSIONS, 0, 1, "x")


def test_meta_entry_has_the_contract_fields():
    t = rmit_schedule(1, ["a"], ["HEAD"], _full(["a"], s=1, i=1), "host")[0]
    assert t.as_meta() == {
        "trial": 1,
        "instance": "host",
        "suite_run": 1,
        "order_type": "random",
        "position": 1,
        "benchmark": "a",
        "version": "HEAD",
        "iteration": 1,
        "measurements": 1,
    }
