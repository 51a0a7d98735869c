"""The adaptive replay harness's bookkeeping (eval/adaptive_replay.py), not its verdict rates.

A reduced case on the real µOpTime data (toml, 2 benchmarks, one version, an A/A and a 10 %
pull request) through the real run engine: the values in the trial log are exactly the values
served, the served values come from the recorded pool of that version in whole blocks, base's
and head's pools are disjoint halves of the recorded blocks, only head is slowed, and the time
accounting counts one simulated second per measurement.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from gate.files import run_meta
from tests.conftest import require_shared_data

PROJECT, VERSION = "toml", "v2.0.2"


def _replay() -> ModuleType:
    return importlib.import_module("eval.adaptive_replay")


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[float, tuple[Any, Path, dict[str, Any]]]:
    data = require_shared_data("uoptime_go")
    ar = _replay()
    work = tmp_path_factory.mktemp("replay")
    args = argparse.Namespace(
        data=data, projects=[PROJECT], versions=[VERSION], benchmarks=2, schemes=["a"],
        slowdowns=[0.0, 10.0], budget_fraction=0.25, max_rounds=3, metric="cv", seed=7, instances=(1, 2, 3),
    )  # fmt: skip
    out = {}
    for case in ar.build_cases(args, work):
        result = ar.run_case(case, data, work)
        out[case.slowdown] = (case, work / "cases" / case.key.replace("/", "_"), result)
    return out


def _recorded(bench: str) -> pd.DataFrame:
    df = pd.read_csv(require_shared_data("uoptime_go", PROJECT, "measurements.csv"))
    return df[(df["version"] == VERSION) & (df["benchmark"] == bench)]


def _served(root: Path, side: str, i: int) -> list[float]:
    path = root / "served" / side / f"b{i:03d}.txt"
    return [float(x) for x in path.read_text().split()]


def test_logged_values_are_the_served_values_in_order(cases: dict[float, Any]) -> None:
    for case, root, _ in cases.values():
        log = pd.read_csv(root / "out" / "trials.csv")
        assert (log["status"] == "ok").all()
        for i, bench in enumerate(case.benchmarks):
            for side in ("base", "head"):
                rows = log[(log["benchmark"] == bench) & (log["version"] == side)].sort_values(
                    ["trial", "measurement"]
                )
                served = _served(root, side, i)
                assert len(served) > 0
                assert rows["value"].tolist() == served


def test_every_trial_is_the_start_of_one_recorded_block_of_its_side(cases: dict[float, Any]) -> None:
    """A trial of m measurements = the first m values of one recorded process of that version,
    base's from base's half of the blocks, head's from the other half; no block twice while the
    pool lasts."""
    ar = _replay()
    for slowdown, (case, root, _) in cases.items():
        log = pd.read_csv(root / "out" / "trials.csv")
        per_trial = ar.measurements_per_trial(case.benchmarks, case.calibration)
        for bench in case.benchmarks:
            blocks = ar.blocks_of(_recorded(bench))
            base, head = ar.split_pools(blocks, case.seed, case.project, case.version, bench)
            # disjoint halves of the recorded blocks, together all of them
            assert Counter(tuple(b) for b in base) + Counter(tuple(b) for b in head) == Counter(
                tuple(b) for b in blocks
            )
            assert not {tuple(b) for b in base} & {tuple(b) for b in head}
            assert abs(len(base) - len(head)) <= 1
            factor = {"base": 1.0, "head": 1 + slowdown / 100}
            for side, pool in (("base", base), ("head", head)):
                rows = log[(log["benchmark"] == bench) & (log["version"] == side)]
                trials = [g.sort_values("measurement")["value"].to_numpy() for _, g in rows.groupby("trial")]
                assert trials and all(len(t) == per_trial[bench] for t in trials)
                used: list[int] = []
                for t in trials:
                    match = [
                        j
                        for j, b in enumerate(pool)
                        if np.allclose(t, b[: len(t)] * factor[side], rtol=1e-12, atol=0)
                    ]
                    assert match, f"{bench} {side}: a trial is not the start of a recorded block of its side"
                    used.append(match[0])
                assert len(set(used)) == len(used) or len(used) > len(pool)


def test_slowdown_multiplies_head_only(cases: dict[float, Any]) -> None:
    aa_case, aa_root, _ = cases[0.0]
    slow_case, slow_root, _ = cases[10.0]
    assert aa_case.benchmarks == slow_case.benchmarks
    for i, _bench in enumerate(aa_case.benchmarks):
        base_aa = np.loadtxt(aa_root / "data" / "base" / f"b{i:03d}.txt")
        base_slow = np.loadtxt(slow_root / "data" / "base" / f"b{i:03d}.txt")
        head_aa = np.loadtxt(aa_root / "data" / "head" / f"b{i:03d}.txt")
        head_slow = np.loadtxt(slow_root / "data" / "head" / f"b{i:03d}.txt")
        assert np.array_equal(base_aa, base_slow)
        assert np.allclose(head_slow, head_aa * 1.10, rtol=1e-12, atol=0)
        assert not np.allclose(head_slow, head_aa)


def test_time_accounting_is_one_simulated_second_per_measurement(cases: dict[float, Any]) -> None:
    ar = _replay()
    for case, root, result in cases.values():
        log = root / "out" / "trials.csv"
        rows = pd.read_csv(log)
        served = sum(len(_served(root, s, i)) for s in ("base", "head") for i in range(len(case.benchmarks)))
        assert result["simulated_s"] == len(rows) == served
        clock = ar.SimulatedClock(log)
        assert clock.used_s() == len(rows)
        for (bench, version), g in rows.groupby(["benchmark", "version"]):
            per_trial = g.groupby("trial").size()
            assert clock.trial_s(bench, version, g) == per_trial.mean()
        # the calibrated minimal configuration costs less than the full one of the same case
        assert 0 < result["simulated_s"] < case.full_s == 75 * 2 * len(case.benchmarks)


def test_simulated_clock_counts_appended_rows_and_a_truncated_log(tmp_path: Path) -> None:
    ar = _replay()
    log = tmp_path / "trials.csv"
    clock = ar.SimulatedClock(log)
    assert clock.used_s() == 0
    log.write_text("trial,benchmark\n1,a\n1,a\n")
    assert clock.used_s() == 2
    with log.open("a") as fh:
        fh.write("2,a\n2,a\n2,a\n3,")  # the last row is still being written: not counted yet
    assert clock.used_s() == 5
    with log.open("a") as fh:
        fh.write("a\n")
    assert clock.used_s() == 6
    log.write_text("trial,benchmark\n1,a\n")  # a resume cut the log back
    assert clock.used_s() == 1


def test_budget_scheme_serves_follow_ups_and_stays_within_the_budget(tmp_path: Path) -> None:
    """(b) on the same reduced case: follow-up rows are ordinary served values and the simulated
    budget is exceeded by at most one trial."""
    import inspect

    from gate.commands import run as run_command

    if "clock" not in inspect.signature(run_command.run).parameters:
        pytest.skip("this gate's run has no --budget (follow-up rounds)")
    data = require_shared_data("uoptime_go")
    ar = _replay()
    args = argparse.Namespace(
        data=data, projects=[PROJECT], versions=[VERSION], benchmarks=4, schemes=["b"],
        slowdowns=[0.0], budget_fraction=0.4, max_rounds=3, metric="cv", seed=7, instances=(1, 2, 3),
    )  # fmt: skip
    (case,) = ar.build_cases(args, tmp_path)
    result = ar.run_case(case, data, tmp_path)
    root = tmp_path / "cases" / case.key.replace("/", "_")
    log = pd.read_csv(root / "out" / "trials.csv")
    # 40 % of the full configuration's time: the planned look at the calibrated minimal
    # configuration (never below the floor a verdict needs) takes 30 %, so a round fits
    assert case.budget_s == 0.4 * 75 * 2 * 4
    assert result["followup_s"] == (log["round"] > 0).sum() > 0  # this case needs a follow-up round
    for i, bench in enumerate(case.benchmarks):
        for side in ("base", "head"):
            rows = log[(log["benchmark"] == bench) & (log["version"] == side)].sort_values(
                ["trial", "measurement"]
            )
            assert rows["value"].tolist() == _served(root, side, i)
    # the engine's budget clock is the simulated one: what it recorded before each round is the
    # measurements logged before it, and its estimate of a round is that round's simulated cost
    meta = json.loads((root / "out" / "meta.json").read_text())
    for r in meta["adaptive"]["rounds"]:
        assert r["used_before_s"] == (log["round"] < r["round"]).sum()
        assert r["estimated_s"] == sum(t["measurements"] for t in r["schedule"])
        assert (log["round"] == r["round"]).sum() <= r["estimated_s"]
    assert meta["adaptive"]["final"]["used_s"] == len(log)
    assert result["stop_reason"] == meta["adaptive"]["final"]["stop_reason"]
    # the run's meta.json reads strictly (as a resume does) and writes back byte for byte
    again = root / "out" / "again.json"
    run_meta.write(again, run_meta.read(root / "out" / "meta.json"))
    assert again.read_bytes() == (root / "out" / "meta.json").read_bytes()
    longest = log.groupby("trial").size().max()
    planned = float((log["round"] == 0).sum())
    assert result["simulated_s"] == len(log) <= max(case.budget_s, planned) + longest
