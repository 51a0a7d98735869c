from __future__ import annotations

import pytest

from gate.adapters.base import ProcessResult, TrialFailure, raise_for_process, telling_line

GO_PANIC = """goroutine 6 [running]:
panic: boom

goroutine 6 [running]:
example.com/m.BenchmarkX(0xc000128000)
\t/tmp/m/x_test.go:9 +0x27
testing.(*B).runN(0xc000128000, 0x1)
\t/usr/lib/go-1.19/src/testing/benchmark.go:193 +0x102
"""

PY_TRACEBACK = """Traceback (most recent call last):
  File "bench.py", line 3, in <module>
    run()
  File "bench.py", line 2, in run
    raise ValueError("bad input size")
ValueError: bad input size
"""


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (GO_PANIC, "panic: boom"),
        (PY_TRACEBACK, "ValueError: bad input size"),
        ("warming up\nall good until here\n", "all good until here"),
        ("", "(no output)"),
    ],
)
def test_the_telling_line_is_the_error_not_the_last_frame(output, expected):
    assert telling_line(output) == expected


def test_a_failed_process_reason_names_the_error_and_a_fix():
    with pytest.raises(TrialFailure) as exc:
        raise_for_process(ProcessResult(2, "", GO_PANIC, 0.1), "go test")
    assert "status 2: panic: boom" in exc.value.reason and "by hand" in exc.value.reason
