"""What a run measures (gate.engine.plan): a pure function of the benchmarks found, the config,
the calibration, the seed and the instance; its warnings are data for the caller to show."""

from __future__ import annotations

import json
from pathlib import Path

from gate.adapters.base import BenchmarkSpec
from gate.config import config_changes, config_files
from gate.config.project_config import ProjectConfig, parse_config
from gate.engine.plan import calibration_line, plan_run
from gate.files import calibration_json
from gate.files.calibration_json import Calibration
from tests.fakes import analyses


def _config(tmp_path: Path, s: int, i: int) -> ProjectConfig:
    text = f"[suite]\nadapter = 'command'\n[full]\nsuite_runs = {s}\niterations = {i}\nmeasurements = 1\n"
    text += "[[benchmark]]\nname = 'a'\ncommand = 'true'\n[[benchmark]]\nname = 'b'\ncommand = 'true'\n"
    return parse_config(text.encode(), tmp_path / ".ordertrap.toml")


def _found(*revisions: str) -> dict[str, dict[str, BenchmarkSpec]]:
    return {rev: {n: BenchmarkSpec(n, command="true") for n in ("b", "a")} for rev in revisions}


def test_the_same_inputs_plan_the_same_trials(tmp_path: Path) -> None:
    config = _config(tmp_path, 3, 5)
    kwargs = {"order_check": False, "revisions": ["main", "HEAD"], "instance": "h", "order_pairs": None}
    one = plan_run(_found("main", "HEAD"), config, None, seed=7, **kwargs)
    again = plan_run(_found("main", "HEAD"), config, None, seed=7, **kwargs)
    other = plan_run(_found("main", "HEAD"), config, None, seed=8, **kwargs)
    assert list(one.names) == ["a", "b"]
    assert [t.as_meta() for t in one.schedule] == [t.as_meta() for t in again.schedule]
    assert [t.as_meta() for t in one.schedule] != [t.as_meta() for t in other.schedule]
    assert len(one.schedule) == 3 * 5 * 2 * 2 and one.warnings == []


def test_too_few_values_is_a_warning_returned_not_printed(tmp_path: Path, capsys) -> None:
    config = _config(tmp_path, 1, 2)
    two = plan_run(
        _found("main", "HEAD"), config, None, order_check=False, revisions=["main", "HEAD"], seed=1,
        instance="h", order_pairs=None,
    )  # fmt: skip
    assert [w["code"] for w in two.warnings] == ["full_too_small"]
    assert capsys.readouterr().err == ""
    one = plan_run(
        _found("HEAD"),
        config,
        None,
        order_check=False,
        revisions=["HEAD"],
        seed=1,
        instance="h",
        order_pairs=None,
    )
    assert one.warnings == []  # one version: nothing is compared


def test_the_order_check_measures_one_iteration_of_the_full_measurements(tmp_path: Path) -> None:
    config = _config(tmp_path, 3, 5)
    p = plan_run(
        _found("main", "HEAD"), config, None, order_check=True, revisions=["main", "HEAD"], seed=1,
        instance="h", order_pairs=2,
    )  # fmt: skip
    assert {(c.suite_runs, c.iterations, c.measurements) for c in p.levels.values()} == {(1, 1, 1)}
    assert {t.order_type for t in p.schedule} == {"fixed", "random"} and p.warnings == []


def _calibration(never: dict[str, bool]) -> Calibration:
    doc = analyses.calibration_document(tuple(never))
    for name, flag in never.items():
        doc["benchmarks"][name].update(never_stable=flag, stable=not flag)
        doc["benchmarks"][name]["config"] = {"suite_run": 1, "iteration": 5, "measurement": 1}
    return calibration_json.from_document(doc, ".ordertrap/calibration.json")


def test_a_calibration_that_saves_nothing_is_not_counted_as_calibrated(tmp_path: Path) -> None:
    # issue: all 12 benchmarks "never stable", yet the run said "12 benchmark(s) calibrated"
    config = _config(tmp_path, 3, 5)
    kwargs = {"order_check": False, "revisions": ["main", "HEAD"], "instance": "h", "order_pairs": None}
    nothing = _calibration({"a": True, "b": True})
    levels = plan_run(_found("main", "HEAD"), config, nothing, seed=7, **kwargs).levels
    line = calibration_line(nothing, levels)
    assert line is not None
    assert line.startswith("0 of 2 benchmark(s) run a calibrated minimal configuration; 2 are never stable")
    assert "saves nothing for them: see docs/calibration.md, 'When nothing is stable'" in line
    partly = _calibration({"a": False})  # b is not in the file
    line = calibration_line(partly, plan_run(_found("main", "HEAD"), config, partly, seed=7, **kwargs).levels)
    assert line == (
        "1 of 2 benchmark(s) run a calibrated minimal configuration; 1 not in the file run the full configuration"
    )
    assert calibration_line(None, levels) is None


def test_a_calibration_with_too_few_trials_is_named(tmp_path: Path) -> None:
    """3 trials of 2 values (6 values, enough for the rank test) cannot pass the test over trials
    at 99 % (gate.model.trial_floor: 5): a file calibrated before that floor says so."""
    text = "[suite]\nadapter = 'command'\n[full]\nsuite_runs = 3\niterations = 5\nmeasurements = 2\n"
    text += "[[benchmark]]\nname = 'a'\ncommand = 'true'\n[[benchmark]]\nname = 'b'\ncommand = 'true'\n"
    config = parse_config(text.encode(), tmp_path / ".ordertrap.toml")
    doc = analyses.calibration_document(("a", "b"))
    doc["benchmarks"]["a"]["config"] = {"suite_run": 1, "iteration": 3, "measurement": 2}
    doc["benchmarks"]["b"]["config"] = {"suite_run": 1, "iteration": 5, "measurement": 2}
    cal = calibration_json.from_document(doc, ".ordertrap/calibration.json")
    kwargs = {"order_check": False, "revisions": ["main", "HEAD"], "instance": "h", "order_pairs": None}
    warnings = plan_run(_found("main", "HEAD"), config, cal, seed=7, **kwargs).warnings
    (small,) = [w for w in warnings if w["code"] == "calibration_too_small"]
    assert (
        "1 benchmark(s) fewer than 5 trials (processes) of several values per version: a (3 trials of 2)"
        in (small["message"])
    )
    assert "b (" not in small["message"] and "5 trials" in small["action"]


def test_a_calibration_pull_request_counts_its_never_stable_benchmarks() -> None:
    doc = analyses.calibration_document(("a", "b", "compress"))  # compress is never stable
    path = ".ordertrap/calibration.json"
    pair = config_files.FilePair(
        "calibration",
        path,
        config_files.Source("base", path, "main", data=None),
        config_files.Source("head", path, "HEAD", data=json.dumps(doc).encode()),
        "base",
    )
    added = config_changes._calibration_pair_changes(pair)
    assert (
        "adds the file (3 benchmark(s) calibrated, 1 of them never stable (they run the full configuration)"
        in added[0]
    )


def test_an_include_that_keeps_nothing_shows_names_as_found(tmp_path: Path) -> None:
    """A JMH @Param name guessed wrong (`:size=1000` where the field is `length`): the error shows
    the names as the adapter spells them."""
    import pytest

    from gate.adapters.base import VersionContext
    from gate.engine.plan import discover
    from gate.errors import ConfigError

    class Listing:
        name = "jmh"

        def discover(self, version, run, options):
            return [BenchmarkSpec(f"p.B.run:length={n},type=S") for n in (10, 1000)] + [
                BenchmarkSpec("p.C.x")
            ]

    text = "[suite]\nadapter = 'jmh'\ninclude = ['B.run:size=1000,type=S$']\n"
    text += "[full]\nsuite_runs = 1\niterations = 2\nmeasurements = 1\n"
    config = parse_config(text.encode(), tmp_path / ".ordertrap.toml")
    contexts = {"main": VersionContext(name="main", workdir=tmp_path)}
    with pytest.raises(ConfigError) as err:
        discover(Listing(), None, contexts, config)  # type: ignore[arg-type]
    assert "found 3, e.g. p.B.run:length=1000,type=S, p.B.run:length=10,type=S, p.C.x" in str(err.value)
