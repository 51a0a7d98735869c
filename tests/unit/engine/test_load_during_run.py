"""The load is sampled at every trial end and reported as a range, per suite run where it matters
(gate/engine/load.py); meta.json keeps it (``load``), and the load warning made from it replaces
the one taken before the builds."""

from __future__ import annotations

import json
from pathlib import Path

from gate.engine.load import LoadSampler, load_warning, with_measured_load
from gate.engine.schedule import Trial
from gate.files import run_meta
from gate.files.run_meta import RunMeta


def _trial(suite_run: int) -> Trial:
    return Trial(
        trial=suite_run, instance="h", version="HEAD", benchmark="b", suite_run=suite_run,
        order_type="random", position=1, iteration=1, measurements=1, config_source="full",
    )  # fmt: skip


def _sampled(loads: list[tuple[int, float]], previous=None) -> LoadSampler:
    values = iter(x for _, x in loads)
    sampler = LoadSampler(previous, read=lambda: next(values))
    for suite_run, _ in loads:
        sampler.sample(_trial(suite_run))
    return sampler


START_WARNING = {"code": "load", "message": "system load is 2.25 on 2 cores", "action": "stop other jobs"}
ENV = {"cores": 2, "loadavg": [2.25, 2.0, 1.5]}


def test_the_warning_reports_the_range_while_the_trials_ran_per_suite_run() -> None:
    record = _sampled([(1, 0.4), (1, 0.6), (2, 3.5), (2, 6.97), (3, 0.5)]).record()
    assert record is not None
    assert (record.overall.samples, record.overall.min, record.overall.max) == (5, 0.4, 6.97)
    assert record.suite_runs["2"].min == 3.5 and record.suite_runs["1"].max == 0.6
    (w,) = with_measured_load([START_WARNING], record, ENV)
    assert w["message"].startswith("system load was 0.40–6.97 on 2 cores while the trials ran (5 samples")
    assert "above 1 in 1 of 3 suite runs, highest in suite run 2 (3.50–6.97)" in w["message"]
    assert "2.25 at the start, before the builds" in w["message"]
    assert "system load is 2.25" not in json.dumps(w)  # the start-time warning is replaced


def test_a_busy_build_but_a_quiet_run_leaves_no_load_warning() -> None:
    record = _sampled([(1, 0.3), (2, 0.5)]).record()
    other = {"code": "governor", "message": "m", "action": "a"}
    assert with_measured_load([START_WARNING, other], record, ENV) == [other]
    assert load_warning(record, 2, 2.25) is None


def test_a_resumed_run_continues_the_record_and_meta_json_round_trips(tmp_path: Path) -> None:
    first = _sampled([(1, 1.0), (2, 2.0)]).record()
    resumed = _sampled([(2, 5.0), (3, 0.5)], previous=first).record()
    assert resumed is not None and resumed.overall.samples == 4 and resumed.overall.max == 5.0
    assert resumed.suite_runs["2"].samples == 2 and list(resumed.suite_runs) == ["1", "2", "3"]
    path = tmp_path / "meta.json"
    run_meta.write(path, RunMeta(seed=1).with_load(resumed, []))
    assert run_meta.read(path).load == resumed
    assert json.loads(path.read_text())["load"]["suite_runs"]["3"] == {"samples": 1, "min": 0.5, "max": 0.5}
    run_meta.write(path, RunMeta(seed=1))  # no load recorded: no key (older readers see nothing new)
    assert "load" not in json.loads(path.read_text()) and run_meta.read(path).load is None


def test_without_a_load_average_nothing_is_recorded_and_the_start_warning_stays() -> None:
    sampler = LoadSampler(read=lambda: None)
    sampler.sample(_trial(1))
    assert sampler.record() is None
    assert with_measured_load([START_WARNING], None, ENV) == [START_WARNING]


def test_the_planned_over_budget_advice_does_not_offer_a_calibration_that_saves_nothing() -> None:
    # docs/running.md "Choosing a budget": with every benchmark never stable, a calibration is no fix
    from gate.adaptive.stage import planned_over_budget_action
    from gate.files.run_meta import BenchmarkConfig

    never = BenchmarkConfig(1, 5, 1, "calibration", never_stable=True)
    meta = RunMeta(seed=1, calibration={"path": "c.json"}, benchmark_configs={"a": never, "b": never})
    action = planned_over_budget_action(meta)
    assert "saves nothing here" in action and "with a calibration" not in action
    assert "with a calibration" in planned_over_budget_action(RunMeta(seed=1))
