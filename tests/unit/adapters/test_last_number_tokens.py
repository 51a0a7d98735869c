"""``value = "stdout"`` of the command adapter (``last_number``): the last number is read from
the whole token around it, so grouped and decimal-comma values are refused with every reading
instead of being read as their last digit group, and terminal escapes are not taken for numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gate.adapters._common import AmbiguousNumber, last_number
from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, ok


def readings(text: str) -> tuple[str, tuple[str, ...]]:
    with pytest.raises(AmbiguousNumber) as err:
        last_number(text)
    return err.value.token, err.value.readings


@pytest.mark.parametrize(
    ("text", "token", "expected"),
    [
        ("Zeit: 1.234,5 ms\n", "1.234,5", ("a list ending in 5", "1234.5 (grouping and decimal comma)")),
        ("1.234.567,5\n", "1.234.567,5", ("1234567.5 (grouping and decimal comma)",)),
        ("1\u202f234.5 s\n", "1\u202f234.5", ("1234.5 (digit grouping)",)),
        ("1\u00a0234.5 s\n", "1\u00a0234.5", ("1234.5 (digit grouping)",)),
        ("1\u202f234,5 s\n", "1\u202f234,5", ("1234.5 (digit grouping)",)),
        ("1_234.5\n", "1_234.5", ("1234.5 (digit grouping)",)),
        ("1'234.5\n", "1'234.5", ("1234.5 (digit grouping)",)),
        ("1_0000\n", "1_0000", ("digit grouping",)),
        (
            "[1,234]\n",
            "1,234",
            ("a list ending in 234", "1234 (thousands separator)", "1.234 (decimal comma)"),
        ),
        ("10,20\n", "10,20", ("a list ending in 20", "10.20 (decimal comma)")),
        ("12,34,567.5\n", "12,34,567.5", ("a list ending in 567.5", "1234567.5 (thousands separator)")),
        ("took 1,234.5 ms.\n", "1,234.5", ("a list ending in 234.5", "1234.5 (thousands separator)")),
        ("3,5e-3\n", "3,5e-3", ("a list ending in 5e-3", "3.5e-3 (decimal comma)")),
    ],
)
def test_grouped_and_decimal_comma_tokens_are_refused_with_every_reading(
    text: str, token: str, expected: tuple[str, ...]
) -> None:
    assert readings(text) == (token, expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[32m1.5\x1b[0m\n", 1.5),  # the reset "[0m" was read as 0
        ("\x1b[1;31m12.25\x1b[m", 12.25),
        ("\x1b]0;bench 9\x07result 2.5\n", 2.5),  # OSC title ended by BEL
        ("\x1b]8;;https://x/7\x1b\\2.5\x1b]8;;\x1b\\\n", 2.5),  # OSC 8 hyperlink ended by ST
        ("3.0\x1b8", 3.0),  # restore cursor: not the number 8
        ("\x1b(B\x1b[m4.5\n", 4.5),  # tput sgr0
        ("0.5,1.5\n", 1.5),
        ("10,20,30\n", 30.0),
        ("1.5,2\n", 2.0),
        ("1 234.5\n", 234.5),  # ASCII space: two numbers
        ("(1/3) 0.5\n", 0.5),
        ("took 1.5.\n", 1.5),  # sentence end
        ("value: '2.5'\n", 2.5),
        ("[0.5, 1.5]\n", 1.5),
        ("5\u00a0ms\n", 5.0),
        ("result: 7 (v1.2.3 build)\n", 7.0),
        ("x86_64 run: 12ms", 12.0),
    ],
)
def test_plain_values_lists_and_coloured_output(text: str, expected: float) -> None:
    assert last_number(text) == expected


def test_non_finite_after_a_comma_is_still_returned_for_rejection() -> None:
    value = last_number("1,nan\n")
    assert value is not None and math.isnan(value)


def test_a_long_grouped_token_is_shortened_in_the_error() -> None:
    token, found = readings("123," * 10_000 + "456\n")
    assert token.startswith("...") and len(token) < 60 and all(len(r) < 80 for r in found)


def test_command_adapter_reports_the_readings_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "wt").mkdir()
    req = TrialRequest(
        benchmark=BenchmarkSpec(name="a", command="bench"),
        version=VersionContext(name="HEAD", workdir=tmp_path / "wt", scratch=tmp_path / "scratch"),
        measurements=1,
        timeout=60.0,
        options={},
    )
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(req, FakeRunner([ok("Zeit: 1.234,5 ms\n")]))
    assert err.value.status == TrialStatus.INVALID
    assert "'1.234,5'" in err.value.reason and "1234.5 (grouping and decimal comma)" in err.value.reason
    assert (
        "print the value alone, with a decimal point and no digit grouping (e.g. 1234.5)" in err.value.reason
    )
    coloured = FakeRunner([ok("\x1b[32m1.5\x1b[0m\n")])
    assert get_adapter("command").run_trial(req, coloured) == [1.5]
