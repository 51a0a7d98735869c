"""The split of a suite over N runners (gate.engine.shard, gate.engine.plan): a pure function
of the names found, their expected cost and the seed; balanced by time, not by count."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.adapters.base import BenchmarkSpec
from gate.config.project_config import parse_config
from gate.engine.plan import plan_run
from gate.engine.shard import assign, loads, parse_shard
from gate.errors import ConfigError
from gate.files.calibration_json import from_document


def test_parse_shard_accepts_k_of_n_and_names_the_fix() -> None:
    assert str(parse_shard(" 2 / 4 ")) == "2/4"
    for bad in ("0/4", "5/4", "2", "a/b", "1/300", "-1/2"):
        with pytest.raises(ConfigError) as err:
            parse_shard(bad)
        assert "K/N" in err.value.fix


@given(
    costs=st.lists(st.floats(0.01, 100.0), min_size=1, max_size=40),
    count=st.integers(1, 8),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=200, deadline=None)
def test_every_benchmark_lands_on_one_shard_whatever_the_order_of_the_names(costs, count, seed) -> None:
    names = [f"B{i}" for i in range(len(costs))]
    cost = dict(zip(names, costs, strict=True))
    one = assign(names, cost, count, seed)
    shuffled = list(reversed(names))
    assert assign(shuffled, cost, count, seed) == one
    assert sorted(one) == sorted(names) and set(one.values()) <= set(range(1, count + 1))
    # a list-scheduling bound LPT meets: no shard exceeds the mean load by more than one benchmark
    assert max(loads(one, cost, count)) <= sum(costs) / count + max(costs) + 1e-9


def _optimal_makespan(costs: list[float], count: int) -> float:
    best = float("inf")
    for choice in itertools.product(range(count), repeat=len(costs)):
        load = [0.0] * count
        for c, k in zip(costs, choice, strict=True):
            load[k] += c
        best = min(best, max(load))
    return best


def test_lpt_stays_within_graham_s_bound_of_the_optimum() -> None:
    rng = random.Random(5)
    for _ in range(60):
        count = rng.randint(2, 3)
        costs = [rng.uniform(1, 20) for _ in range(rng.randint(count, 8))]
        names = [f"b{i}" for i in range(len(costs))]
        got = max(
            loads(
                assign(names, dict(zip(names, costs, strict=True)), count, 1),
                dict(zip(names, costs, strict=True)),
                count,
            )
        )
        assert got <= (4 / 3 - 1 / (3 * count)) * _optimal_makespan(costs, count) + 1e-9


def test_equal_costs_spread_a_family_of_sub_benchmarks_over_the_shards() -> None:
    names = [f"BenchmarkSum/size={i}" for i in range(8)] + [f"BenchmarkXor/size={i}" for i in range(8)]
    split = assign(names, dict.fromkeys(names, 1.0), 2, seed=3)
    sums = [split[n] for n in names[:8]]
    assert sorted(sums) != [1] * 8 and sorted(sums) != [2] * 8
    assert sorted(split.values()).count(1) == 8  # equal costs: equal counts


def _config(tmp_path: Path):
    text = "[suite]\nadapter = 'command'\n[full]\nsuite_runs = 3\niterations = 5\nmeasurements = 5\n"
    text += "[[benchmark]]\nname = 'x'\ncommand = 'true'\n"
    return parse_config(text.encode(), tmp_path / ".ordertrap.toml")


def _found(names, revisions=("main", "HEAD")):
    return {rev: {n: BenchmarkSpec(n, command="true") for n in names} for rev in revisions}


def _calibration(costs: dict[str, float]):
    return from_document(
        {
            "schema_version": 1,
            "metric": "cv",
            "threshold": 0.01,
            "levels": ["suite_run", "iteration", "measurement"],
            "full": {"suite_run": 3, "iteration": 5, "measurement": 5},
            "benchmarks": {
                n: {"config": {"suite_run": 1, "iteration": 5, "measurement": 5}, "cost": c}
                for n, c in costs.items()
            },
            "summary": {"cost_unit": "s"},
        }
    )


def _plan(tmp_path, names, shard, calibration=None, revisions=("main", "HEAD"), order_check=False):
    return plan_run(
        _found(names, revisions), _config(tmp_path), calibration, order_check=order_check,
        revisions=list(revisions), seed=11, instance="h", order_pairs=2 if order_check else None,
        shard=parse_shard(shard),
    )  # fmt: skip


def test_the_split_follows_the_calibrated_cost_not_the_count(tmp_path: Path) -> None:
    # one benchmark as slow as the nine others together: by time it is alone on its shard
    costs = {"slow": 90.0, **{f"quick{i}": 10.0 for i in range(9)}}
    plans = [_plan(tmp_path, costs, f"{k}/2", _calibration(costs)) for k in (1, 2)]
    shares = sorted(sorted(p.names) for p in plans)
    assert shares == [sorted(f"quick{i}" for i in range(9)), ["slow"]]
    assert plans[0].shard is not None and plans[0].shard.cost_unit == "s"
    assert list(plans[0].shard.expected) == list(plans[1].shard.expected)
    # the schedule holds only the shard's benchmarks, both versions each
    for p in plans:
        assert {t.benchmark for t in p.schedule} == set(p.names)
        assert {(t.benchmark, t.version) for t in p.schedule} == {
            (n, v) for n in p.names for v in ("main", "HEAD")
        }


def test_a_benchmark_found_in_one_version_only_is_on_one_shard_and_every_runner_agrees(tmp_path) -> None:
    found = {"main": {"a": 1, "b": 1, "old": 1}, "HEAD": {"a": 1, "b": 1, "new": 1}}
    per_version = {rev: {n: BenchmarkSpec(n, command="true") for n in ns} for rev, ns in found.items()}
    plans = [
        plan_run(
            per_version,
            _config(tmp_path),
            None,
            order_check=False,
            revisions=["main", "HEAD"],
            seed=11,
            instance="h",
            order_pairs=None,
            shard=parse_shard(f"{k}/2"),
        )
        for k in (1, 2)
    ]
    assert sorted(n for p in plans for n in p.names) == ["a", "b", "new", "old"]
    assert plans[0].shard is not None and plans[1].shard is not None
    assert plans[0].shard.assignment == plans[1].shard.assignment


def test_the_order_check_splits_the_same_way(tmp_path: Path) -> None:
    names = [f"b{i}" for i in range(6)]
    rmit = [_plan(tmp_path, names, f"{k}/3").names for k in (1, 2, 3)]
    order = [_plan(tmp_path, names, f"{k}/3", order_check=True) for k in (1, 2, 3)]
    assert [list(p.names) for p in order] == [list(n) for n in rmit]
    for p in order:
        assert {t.benchmark for t in p.schedule} == set(p.names)
        assert {t.order_type for t in p.schedule} == {"fixed", "random"}


def test_a_shard_without_benchmark_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        _plan(tmp_path, ["a", "b"], "3/3")
    assert "at most 2 shards" in err.value.fix
