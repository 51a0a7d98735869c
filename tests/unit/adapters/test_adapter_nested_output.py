"""A framework's JSON output comes from the code under test: nesting too deep for the parser is
an `invalid` trial with a reason, like any other malformed output, not an internal error."""

from __future__ import annotations

import pytest

from gate.adapters import gbench, hyperfine, jmh, pytest_benchmark
from gate.adapters.base import TrialFailure
from gate.model import TrialStatus

NESTED = '{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize(
    "parse",
    [
        lambda: pytest_benchmark.parse_json(NESTED, "test_x", 1, "trial"),
        lambda: hyperfine.parse_export(NESTED, "cmd", 1, "trial"),
        lambda: gbench.parse_json(NESTED, "BM_x", "real_time", "ns", "trial"),
        lambda: jmh.parse_json("[" * 100_000 + "]" * 100_000, "a.B.c", "ns/op", "trial"),
    ],
    ids=["pytest-benchmark", "hyperfine", "gbench", "jmh"],
)
def test_deeply_nested_framework_output_is_an_invalid_trial(parse):
    with pytest.raises(TrialFailure) as exc:
        parse()
    assert exc.value.status == TrialStatus.INVALID
    assert "nested too deeply" in str(exc.value)
