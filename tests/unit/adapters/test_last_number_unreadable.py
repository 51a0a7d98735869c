"""Outputs whose last number is not the value: refused with a reason, never read as
a wrong number with status ok."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters._common import UnreadableValue, last_number
from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, ok
from tests.unit.adapters.test_adapter_parsing import reason_of, request


@pytest.mark.parametrize(
    "text",
    [
        "real\t0m1.234s\nuser\t0m0.1s\nsys\t0m0.010s\n",  # bash `time` (was read as 0.0)
        "Elapsed: 1:01.23",  # was 1.23
        "00:01:05",  # was 5.0
        "1m30.5s",  # was 1.0
        "1h2m3s",
        "0x1F",  # was 0.0
        "0.5 at 2026-11-26T06:51:00",  # a timestamp after the value
        "took 3 ms (±0.1)",  # was 0.1
        "1.5 ± 0.1",
        "took 3 ms (+/- 0.1)",
    ],
)
def test_durations_clock_times_hex_and_uncertainties_are_refused(text: str) -> None:
    with pytest.raises(UnreadableValue):
        last_number(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x86_64 run: 12ms", 12.0),
        ("result: 7 (v1.2.3 build)\n", 7.0),
        ('{"t":1.5}', 1.5),
        ("12.5%", 12.5),
        ("at 2026-11-26T06:51:00 took 0.5", 0.5),
        ("python3 bench 0.5\n", 0.5),
    ],
)
def test_ordinary_outputs_still_read(text: str, expected: float) -> None:
    assert last_number(text) == expected


def test_the_command_adapter_says_what_to_print(tmp_path: Path) -> None:
    spec = BenchmarkSpec(name="a", command="bench")
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(request(tmp_path, spec, 1), FakeRunner([ok("real\t0m1.234s\n")]))
    assert err.value.status == TrialStatus.INVALID
    assert "0m1.234s" in reason_of(err) and 'value = "wall"' in reason_of(err)
