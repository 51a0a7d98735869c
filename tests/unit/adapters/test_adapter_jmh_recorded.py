"""The ``jmh`` adapter on JSON that a real JMH 1.37 wrote (``tests/testdata/jmh/SOURCE.md``):
one fork, two forks, ``-prof gc``, and ``-Djmh.json.rawData=false`` given to the launcher JVM
(which empties ``rawData``) and to the forked JVM only (which does not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner
from tests.unit.adapters.test_adapter_argv_and_output import TESTDATA, request, writes

SUM = BenchmarkSpec(name="bench.Sum.sum", unit="ns/op", options={"params": {"n": "1000"}})


def trial(
    tmp_path: Path, file: str, measurements: int, settings: dict[str, object] | None = None
) -> list[float]:
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / file)])
    return get_adapter("jmh").run_trial(request(tmp_path, SUM, measurements, settings), runner)


def test_one_fork_gives_one_value_per_measurement_iteration(tmp_path: Path) -> None:
    assert trial(tmp_path, "real-avgt-1fork.json", 3) == [
        40131.847160007164,
        20872.721903199345,
        16810.235438833875,
    ]


def test_prof_gc_adds_secondary_metrics_and_leaves_the_primary_one(tmp_path: Path) -> None:
    assert trial(tmp_path, "real-avgt-prof-gc.json", 2, {"args": ["-prof", "gc"]}) == [
        60508.55990453461,
        89267.00992966487,
    ]


def test_two_forks_are_refused_with_the_flag_to_remove(tmp_path: Path) -> None:
    """``-f 2`` in ``[jmh] args`` overrides the adapter's ``-f 1``: JMH then writes one rawData
    list per fork, twice the values asked for."""
    with pytest.raises(TrialFailure) as err:
        trial(tmp_path, "real-avgt-2forks.json", 2, {"args": ["-f", "2"]})
    assert err.value.status == TrialStatus.INVALID
    assert "got 4 iterations, wanted 2" in err.value.reason and "-f" in err.value.reason


def test_raw_data_property_on_the_launcher_empties_raw_data(tmp_path: Path) -> None:
    with pytest.raises(TrialFailure) as err:
        trial(tmp_path, "real-rawdata-false.json", 2, {"java_args": ["-Djmh.json.rawData=false"]})
    assert err.value.status == TrialStatus.INVALID and "-Djmh.json.rawData=false" in err.value.reason


def test_raw_data_property_on_the_fork_only_changes_nothing(tmp_path: Path) -> None:
    settings = {"mode": "thrpt", "args": ["-jvmArgsAppend", "-Djmh.json.rawData=false"]}
    spec_unit = "ops/s"
    runner = FakeRunner([writes("-rff", TESTDATA / "jmh" / "real-thrpt-fork-rawdata-false.json")])
    spec = BenchmarkSpec(name=SUM.name, unit=spec_unit, higher_is_better=True, options=SUM.options)
    values = get_adapter("jmh").run_trial(request(tmp_path, spec, 2, settings), runner)
    assert values == [64459.99641142644, 78046.15277901934]
