"""The command adapter with real /bin/sh processes through the driver's runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.integration.adapter_helpers import context, real_runner, trial


def test_stdout_values_wall_values_and_prefix(tmp_path: Path) -> None:
    (tmp_path / "count").write_text("0")
    # each run prints a different number, so the values prove that N processes ran in the worktree
    command = 'n=$(cat count); n=$((n+1)); echo $n > count; echo "run $n"; echo "0.$n"'
    settings = {
        "benchmarks": [
            {"name": "counter", "command": command},
            {"name": "sleepy", "command": "sleep 0.05", "value": "wall"},
        ]
    }
    version = context(tmp_path, tmp_path / "scratch", prefix=("nice", "-n", "0"))
    adapter = get_adapter("command")
    counter, sleepy = adapter.discover(version, real_runner(), settings)
    assert adapter.run_trial(trial(counter, version, 3), real_runner()) == [0.1, 0.2, 0.3]
    walls = adapter.run_trial(trial(sleepy, version, 2), real_runner())
    assert len(walls) == 2 and all(0.05 <= w < 30 for w in walls)


@pytest.mark.parametrize(
    ("command", "status", "words"),
    [
        ("echo no number here", TrialStatus.INVALID, "no number"),
        ("echo nan", TrialStatus.INVALID, "non-finite"),
        ("echo 1; echo oops >&2; exit 3", TrialStatus.ERROR, "status 3: oops"),
        ("sleep 5", TrialStatus.TIMEOUT, "timeout"),
    ],
)
def test_failures(tmp_path: Path, command: str, status: TrialStatus, words: str) -> None:
    version = context(tmp_path, tmp_path / "scratch")
    spec = BenchmarkSpec(name="bad", command=command)
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(trial(spec, version, 1, timeout=0.5), real_runner())
    assert err.value.status == status and words in err.value.reason
