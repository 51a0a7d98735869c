"""Carry-over found in a trial log written by the real run engine (schedule → driver → CSV).

The benchmark "machine" is a stateful ProcessRunner: every `bench NAME` process prints its
time, and a process that starts right after `load` finishes faster because `load` left its
cache behind — the demo project's warm-start leak in miniature, without spawning processes.
The schedule (`rmit_schedule`), the command adapter, the driver and the CSV writer are the
product's own, so this is the log `ordertrap-gate run` writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from gate.adapters.base import BenchmarkSpec, ProcessResult, VersionContext
from gate.adapters.command import CommandAdapter
from gate.analysis.carryover import analyze_carryover
from gate.engine.driver import run_schedule
from gate.engine.schedule import LevelConfig, Trial, order_check_schedule, rmit_schedule
from gate.files.trial_log import TrialLog
from gate.model import TRIAL_COLUMNS

BENCHES = ("load", "parse", "render", "save")
BASE_S = {"load": 0.30, "parse": 0.10, "render": 0.20, "save": 0.05}


class LeakyMachine:
    """ProcessRunner: `bench NAME` prints a noisy time; right after `leaker` it is `factor` ×."""

    def __init__(self, seed: int, leaker: str | None = "load", factor: float = 0.9) -> None:
        self.rng = np.random.default_rng(seed)
        self.leaker, self.factor = leaker, factor
        self.previous: str | None = None

    def __call__(
        self,
        argv: Sequence[str] | str,
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ProcessResult:
        name = str(argv).split()[-1]
        value = BASE_S[name] * self.rng.lognormal(0.0, 0.02)
        if self.leaker is not None and self.previous == self.leaker:
            value *= self.factor
        self.previous = name
        return ProcessResult(returncode=0, stdout=f"{name}: {value!r}\n", stderr="", elapsed_s=value)


def run_log(tmp_path: Path, schedule: list[Trial], machine: LeakyMachine) -> pd.DataFrame:
    versions = ("main", "HEAD")
    ctx = {v: VersionContext(name=v, workdir=tmp_path, scratch=tmp_path) for v in versions}
    specs = {v: {b: BenchmarkSpec(b, command=f"bench {b}") for b in BENCHES} for v in versions}
    path = tmp_path / "trials.csv"
    log = TrialLog(path, fsync=False)
    log.recover(schedule)
    result = run_schedule(
        schedule,
        adapter=CommandAdapter(),
        runner=machine,
        versions=ctx,
        benchmarks=specs,
        adapter_options={},
        timeout=10.0,
        log=log,
        progress=None,
    )
    assert result.ran == len(schedule) and result.failed == 0
    df = pd.read_csv(path)
    assert tuple(df.columns) == TRIAL_COLUMNS
    return df


def rmit(seed: int) -> list[Trial]:
    configs = {b: LevelConfig(suite_runs=8, iterations=3, measurements=1) for b in BENCHES}
    return rmit_schedule(seed, list(BENCHES), ["main", "HEAD"], configs, "runner-1")


def test_real_trial_log_with_planted_carryover(tmp_path: Path) -> None:
    df = run_log(tmp_path, rmit(11), LeakyMachine(11, leaker="load", factor=0.9))
    res = analyze_carryover(df)
    # Every benchmark that can follow `load` is hit, `load` itself included (two load trials
    # in a row); nothing else is named.
    for bench in BENCHES:
        culprits = [e for e in res.per_benchmark[bench]["predecessors"] if e["significant"]]
        assert [e["predecessor"] for e in culprits] == ["load"], bench
        assert -13.0 < culprits[0]["effect_pct"] < -7.0
    assert all(w["code"] == "carryover" for ws in res.warnings.values() for w in ws)
    assert "parse" in res.warnings and "faster right after load" in res.warnings["parse"][0]["message"]


def test_real_trial_log_without_carryover_is_quiet(tmp_path: Path) -> None:
    noisy = 0
    for seed in range(5):
        sub = tmp_path / str(seed)
        sub.mkdir()
        res = analyze_carryover(run_log(sub, rmit(seed), LeakyMachine(seed, leaker=None)))
        noisy += bool(res.warnings)
    assert noisy <= 1


def test_fixed_order_runs_are_left_out(tmp_path: Path) -> None:
    # An order-check log: fixed runs always have the same predecessors; only its random runs
    # inform the carry-over analysis, and they still reveal the leak.
    schedule = order_check_schedule(
        3, list(BENCHES), ["main", "HEAD"], pairs=12, measurements=1, instance="r"
    )
    df = run_log(tmp_path, schedule, LeakyMachine(3, leaker="load", factor=0.85))
    res = analyze_carryover(df)
    n_random = int((df["order_type"] == "random").sum())
    assert sum(e["n"] for e in res.per_benchmark["parse"]["predecessors"]) <= n_random
    assert any(
        e["predecessor"] == "load" and e["significant"] for e in res.per_benchmark["parse"]["predecessors"]
    )
