"""``last_number``, which reads ``value = "stdout"`` of the command adapter: the last number of
the output, read from the whole token around it. Grouped and decimal-comma values are refused with
every reading instead of being read as their last digit group; durations, clock times, hex and
uncertainties are refused as unreadable instead of read as a wrong number with status ok;
terminal escapes are not taken for numbers; non-finite tokens are returned so they are rejected."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gate.adapters._common import AmbiguousNumber, UnreadableValue, last_number
from gate.adapters.base import BenchmarkSpec, TrialFailure, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, ok


def _request(tmp_path: Path, spec: BenchmarkSpec) -> TrialRequest:
    (tmp_path / "wt").mkdir(exist_ok=True)
    return TrialRequest(
        benchmark=spec,
        version=VersionContext(name="HEAD", workdir=tmp_path / "wt", scratch=tmp_path / "scratch"),
        measurements=1,
        timeout=60.0,
        options={},
    )


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


# ---- unreadable outputs -------------------------------------------------------------------------


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
        get_adapter("command").run_trial(_request(tmp_path, spec), FakeRunner([ok("real\t0m1.234s\n")]))
    assert err.value.status == TrialStatus.INVALID
    assert "0m1.234s" in err.value.reason and 'value = "wall"' in err.value.reason


# ---- more readings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parse took 0.0123 s\n", 0.0123),
        ("1\n2\n3.5e-3\n", 0.0035),
        ("x86_64 run: 12ms", 12.0),
        ("-4.5", -4.5),
        (".25\n", 0.25),
        ("result: 7 (v1.2.3 build)\n", 7.0),
        ("no digits at all", None),
        ("", None),
    ],
)
def test_last_number(text: str, expected: float | None) -> None:
    assert last_number(text) == expected


@pytest.mark.parametrize("token", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_last_number_returns_non_finite_tokens_so_they_are_rejected(token: str) -> None:
    value = last_number(f"12.5\n{token}\n")
    assert value is not None and value != 12.5


@pytest.mark.parametrize(
    "text",
    [
        "took 1,234.5 ms\n",
        "1,234\n",
        "Zeit: 12,5 s\n",
        "1,234,567.0",
        "Zeit: 1.234,5 ms\n",
        "1\u202f234.5\n",
        "1\u00a0234.5\n",
        "1_234.5\n",
        "1'234.5\n",
        "10,20\n",
        "[1,234]\n",
    ],
)
def test_last_number_refuses_thousands_separators_and_decimal_commas(text: str) -> None:
    with pytest.raises(AmbiguousNumber):
        last_number(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.5,1.5\n", 1.5), ("10,20,30", 30.0), ("a, 7", 7.0), ("1 234.5", 234.5), ("(1/3) 0.5", 0.5)],
)
def test_last_number_reads_comma_separated_lists_and_ascii_spaced_numbers(text: str, expected: float) -> None:
    assert last_number(text) == expected


def test_last_number_ignores_ansi_colours() -> None:
    assert last_number("\x1b[32m1.5\x1b[0m\n") == 1.5


@pytest.mark.parametrize(
    ("stdout", "token", "readings"),
    [
        ("1,234.5\n", "'1,234.5'", ["a list ending in 234.5", "1234.5 (thousands separator)"]),
        (
            "[1,234]\n",
            "'1,234'",
            ["a list ending in 234", "1234 (thousands separator)", "1.234 (decimal comma)"],
        ),
        ("10,20\n", "'10,20'", ["a list ending in 20", "10.20 (decimal comma)"]),
        ("1.234,5\n", "'1.234,5'", ["1234.5 (grouping and decimal comma)"]),
        ("1_234.5\n", "'1_234.5'", ["1234.5 (digit grouping)"]),
    ],
)
def test_command_with_a_grouped_value_is_invalid_and_says_how_to_print_it(
    tmp_path: Path, stdout: str, token: str, readings: list[str]
) -> None:
    spec = BenchmarkSpec(name="a", command="bench")
    with pytest.raises(TrialFailure) as err:
        get_adapter("command").run_trial(_request(tmp_path, spec), FakeRunner([ok(stdout)]))
    assert err.value.status == TrialStatus.INVALID
    assert token in err.value.reason and all(r in err.value.reason for r in readings)
    assert "decimal point and no digit grouping (e.g. 1234.5)" in err.value.reason


def test_info_is_not_inf() -> None:
    assert last_number("3.0\ninfo: done\n") == 3.0
