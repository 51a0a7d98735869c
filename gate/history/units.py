"""Units of a history series: time units converted, anything else kept apart.

The tools write a unit per value (github-action-benchmark's ``unit`` per bench, ``ns/iter`` from
cargo, ``us``/``ms`` from custom scripts): a benchmark whose unit switches from ns to µs must not
read as a 99.9 % improvement. A unit is split into a time prefix and a rest (``ns/iter`` = ns +
``/iter``; ``iter/sec`` = ``iter/`` + s); two units are the same family when the rests match, and
the values of a family convert by the time factor. Units of different families (``ns`` and
``bytes``) cannot be converted: the series is split by unit, with a message.
"""

from __future__ import annotations

import functools
import math
import re

# seconds per unit; µ (micro sign U+00B5) and μ (Greek mu U+03BC) both occur in the wild
TIME_UNITS: dict[str, float] = {
    "ps": 1e-12,
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "h": 3600.0,
}
_DISPLAY = (("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0))
_TIME_FIRST = re.compile(r"^\s*([a-zµμ]+)\s*(/.*)?$", re.IGNORECASE)  # ns, ns/iter, ms/op
_TIME_LAST = re.compile(r"^(.*/)\s*([a-zµμ]+)\s*$", re.IGNORECASE)  # iter/sec, ops/s


@functools.lru_cache(maxsize=1024)  # a history has a handful of units and ~10^5 values to label
def parse(unit: str) -> tuple[str, float, bool]:
    """(family, factor to the family's base, whether the unit is a time per thing).

    ``family`` names what can be compared: ``time/iter`` for ns/iter and ms/iter, ``iter/time``
    for iter/sec and iter/ms (a rate: the factor divides); any other unit is its own family."""
    u = unit.strip()
    m = _TIME_FIRST.match(u)
    factor = _factor(m.group(1)) if m else None
    if m and factor is not None:
        return f"time{(m.group(2) or '').strip()}", factor, True
    m = _TIME_LAST.match(u)
    factor = _factor(m.group(2)) if m else None
    if m and factor is not None:
        return f"{m.group(1).strip()}time", 1.0 / factor, False
    return f"unit:{u}", 1.0, False


def _factor(name: str) -> float | None:
    return TIME_UNITS.get(name, TIME_UNITS.get(name.lower()))


def convert(value: float, unit: str, target: str) -> float:
    """``value`` in ``unit`` expressed in ``target`` (same family: see :func:`parse`)."""
    fam_a, fa, _ = parse(unit)
    fam_b, fb, _ = parse(target)
    if fam_a != fam_b:
        raise ValueError(f"{unit!r} and {target!r} cannot be converted")
    return value * fa / fb


def readable(value: float, unit: str) -> tuple[float, str]:
    """``value`` in the time unit of its family that makes it 1-1000 (32,600,000 ns → 32.6 ms);
    units that are not a time per thing are returned as they are."""
    family, factor, per_thing = parse(unit)
    if not per_thing or not math.isfinite(value) or value == 0:
        return value, unit
    seconds = abs(value) * factor
    rest = family[len("time") :]
    name, scale = _DISPLAY[0]
    for n, sc in _DISPLAY:
        if seconds >= sc:
            name, scale = n, sc
    return value * factor / scale, f"{name}{rest}"
