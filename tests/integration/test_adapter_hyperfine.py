"""The hyperfine adapter against the real hyperfine (Debian package `hyperfine`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial


def test_runs_and_failures(tmp_path: Path) -> None:
    require_tool("hyperfine")
    adapter = get_adapter("hyperfine")
    settings = {
        "shell": "none",
        "benchmarks": [
            {"name": "sleep", "command": "sleep 0.02"},
            {"name": "fails", "command": "false"},
        ],
    }
    version = context(tmp_path, tmp_path / "scratch")
    sleep, fails = adapter.discover(version, real_runner(), settings)
    values = adapter.run_trial(trial(sleep, version, 3, settings), real_runner())
    assert len(values) == 3 and all(0.02 <= v < 30 for v in values)
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(fails, version, 2, settings), real_runner())
    assert err.value.status == TrialStatus.ERROR and "non-zero exit code" in err.value.reason
    assert [p.name for p in tmp_path.iterdir()] == ["scratch"]  # exports went to scratch only
