"""Number formatting and URL filters."""

from __future__ import annotations

import math

import pytest

from gate.render.filters import (
    fmt_duration,
    fmt_fraction_pct,
    fmt_number,
    fmt_pct,
    fmt_pct_ci,
    safe_url,
    shorten_reason,
    split_quantity,
)


@pytest.mark.parametrize(
    ("x", "out"),
    [(20.31, "+20.3%"), (-4.0, "-4.0%"), (0.01, "±0.0%"), (-0.04, "±0.0%"), (None, "—"), (math.nan, "—")],
)
def test_pct(x: float | None, out: str) -> None:
    assert fmt_pct(x) == out


def test_pct_ci() -> None:
    assert fmt_pct_ci([17.94, 22.8]) == "[+17.9%, +22.8%]"
    assert fmt_pct_ci(None) == "—"
    assert fmt_pct_ci([1.0]) == "—"


@pytest.mark.parametrize(
    ("x", "unit", "out"),
    [
        (0.0123, "s", ("12.3", "ms")),
        (1.5e-7, "s", ("150", "ns")),
        (2.5, "s", ("2.50", "s")),
        (950.0, "ns", ("950", "ns")),
        (1500.0, "ns", ("1.50", "µs")),
        (812.0, "ns/op", ("812", "ns/op")),
        (1234.5, "MB/s", ("1,234", "MB/s")),
        (None, "s", ("—", "")),
    ],
)
def test_split_quantity(x: float | None, unit: str, out: tuple[str, str]) -> None:
    assert split_quantity(x, unit) == out


def test_number_extremes() -> None:
    assert fmt_number(0) == "0"
    assert fmt_number(1.234e-5) == "1.23e-05"
    assert fmt_number(2.5e7) == "2.50e+07"


@pytest.mark.parametrize(
    ("s", "out"), [(5.04, "5.0 s"), (41.2, "41 s"), (240.0, "4.0 min"), (14400.0, "4.0 h")]
)
def test_duration(s: float, out: str) -> None:
    assert fmt_duration(s) == out


def test_fraction_pct() -> None:
    assert fmt_fraction_pct(0.0123) == "1.2%"
    assert fmt_fraction_pct(0.0004) == "0.04%"


def test_safe_url() -> None:
    assert safe_url("https://github.com/o/r/actions/runs/1") == "https://github.com/o/r/actions/runs/1"
    assert safe_url("javascript:alert(1)") == "#"
    assert safe_url("data:text/html,x") == "#"
    assert safe_url("report (1).html") == "report%20%281%29.html"
    assert safe_url('x"><b>') == "x%22%3E%3Cb%3E"


def test_a_reason_is_cut_in_its_message_and_keeps_its_fix() -> None:
    reason = "a" * 50 + "MIDDLE" + "z" * 50 + " — raise [full].iterations"
    assert shorten_reason(reason, 500) == reason
    cut = shorten_reason(reason, 25)
    assert cut == "a" * 12 + "…" + "z" * 12 + " — raise [full].iterations"
    # the fix is what follows the last " — "
    assert shorten_reason("a — b — " + "c" * 40, 10) == "a — b — " + "c" * 9 + "…"
    assert shorten_reason("x" * 40, 11) == "x" * 5 + "…" + "x" * 5  # no fix: the middle goes
