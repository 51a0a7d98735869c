"""A stop request (SIGTERM, Ctrl-C) is kept for the whole run (gate/engine/measure.py): one
during the last trial of the planned schedule stops the run before any follow-up round, where a
fresh flag per schedule used to forget it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from gate.adapters.base import BenchmarkSpec, VersionContext
from gate.config.project_config import parse_config
from gate.engine.layout import Layout
from gate.engine.measure import Session
from gate.engine.schedule import Trial
from gate.files.trial_log import TrialLog

CONFIG = b'[suite]\nadapter = "command"\n[[benchmark]]\nname = "a"\ncommand = "true"\n'


class SignalsOnTrial:
    """An adapter whose ``at``-th trial sends this process SIGTERM while it runs."""

    name = "command"

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0

    def run_trial(self, request, runner) -> list[float]:
        self.calls += 1
        if self.calls == self.at:
            os.kill(os.getpid(), signal.SIGTERM)
        return [1.0] * request.measurements


def _trials(first: int, n: int) -> list[Trial]:
    return [Trial(i, "box", 1, "random", i, "a", "HEAD", i, 1, "full") for i in range(first, first + n)]


def test_a_sigterm_in_the_last_trial_of_a_schedule_stops_the_next_one(tmp_path: Path) -> None:
    adapter = SignalsOnTrial(at=3)
    context = VersionContext(name="HEAD", workdir=tmp_path)
    session = Session(
        config=parse_config(CONFIG, tmp_path / ".ordertrap.toml"),
        adapter=adapter,  # type: ignore[arg-type]
        runner=None,  # type: ignore[arg-type]
        contexts={"HEAD": context},
        benchmarks={"HEAD": {"a": BenchmarkSpec(name="a")}},
        repo=tmp_path,
        log=TrialLog(tmp_path / "trials.csv"),
        finished=set(),
        layout=Layout(1, enabled=False),
    )
    planned = session.drive(_trials(1, 3))
    assert planned.ran == 3 and planned.interrupted  # the request came during the last trial
    round_ = session.drive(_trials(4, 3))  # what a follow-up round would run next
    assert round_.interrupted and round_.ran == 0 and adapter.calls == 3
