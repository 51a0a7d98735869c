"""Each setting a person chooses, declared once: its name, its domain, and how its text is read.

A setting reaches the gate up to four ways: a key of ``.ordertrap.toml`` (gate/config/), a flag of
the command line (gate/commands/, argparse ``type=``), an input of an action (gate/github/context.py,
gate/action/run_inputs.py) and a field of meta.json, where a run records what it obeyed
(gate/files/run_meta.py). Every one of those readers asks the :class:`Setting` here, so a value one
of them accepts the others accept too; tests/unit/files/test_settings_agree.py feeds the same
values through all four. A reader only words the outcome: its key or flag, its fix.

A setting's domain is a decoder of :mod:`gate.files.schema` over the typed value (a TOML or JSON
number, string or boolean). Text (a flag, an action input) is first read into such a value by
``from_text`` — one grammar per kind: a number as Python's ``float`` reads it, a whole number as
ASCII digits with an optional minus, a duration as :func:`duration_seconds` — and then decoded by
the same domain. A value of the right type outside the domain is said by ``outside``
(``"outside [0.5, 1)"``), a value of another type by what was expected (``"not a number"``).
docs/development.md, "One schema layer", says how to add a setting.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from gate.files.schema import Decoder, Invalid, integer, is_number
from gate.statistic import CALIBRATED, STATISTIC_FORMS, STATISTIC_SETTING_FORMS, parse_statistic

T = TypeVar("T")


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One setting: ``name`` as a file and an action write it (``threshold_pct``), its domain
    (``decode``: typed value → T, or :class:`Invalid`), the text grammar of its flag and input
    (``from_text``: text → a typed value for ``decode``, or :class:`Invalid`) and a good value as
    a person writes it (``example``), for fixes."""

    name: str
    decode: Decoder[T]
    expected: str  # what ``decode`` accepts, as a noun phrase: "a percentage above 0 and below 1000"
    example: str
    from_text: Decoder[Any]
    outside: str = ""  # a value of the right type outside the domain: "is <outside>" ("" = "not <expected>")
    text_in_files: bool = False  # a file may write it as text too (``budget = "15m"``)
    forms: str = ""  # the accepted forms for a fix, where ``expected`` does not list them

    def value(self, value: Any, where: str = "") -> T:
        """A typed value (TOML, JSON) in the domain, or :class:`Invalid` naming ``where``."""
        if self.text_in_files and isinstance(value, str):
            return self.text(value, where)
        return self.decode(value, where or self.name)

    def text(self, text: str, where: str = "") -> T:
        """A flag's or an input's text in the domain (blanks around are not part of it)."""
        where = where or self.name
        return self.decode(self.from_text(text.strip(), where), where)

    def problem(self, bad: Invalid) -> str:
        """How a reader says what is wrong with the value: ``not a number``, ``outside [0.5, 1)``."""
        if bad.said:
            return bad.said
        if bad.expected == self.expected and self.outside:
            return self.outside
        return f"not {bad.expected}"

    def problem_of(self, value: Any) -> str | None:
        """Why a typed value is outside the domain (None: it is inside)."""
        try:
            self.decode(value, self.name)
        except Invalid as bad:
            return self.problem(bad)
        return None

    def argument(self, flag: str, *, as_text: bool = False) -> Callable[[str], Any]:
        """argparse's ``type=`` for the flag that sets it: the same domain, an error naming the fix.
        ``as_text``: the flag's value stays the text (checked), for a core that reads it itself."""

        def parse(text: str) -> Any:
            try:
                value = self.text(text, flag)
                return text.strip() if as_text else value
            except Invalid as bad:
                fix = f"use {self.forms}, e.g." if self.forms else "pass e.g."
                raise argparse.ArgumentTypeError(
                    f"{text!r} is {self.problem(bad)}; fix: {fix} {flag} {self.example}"
                ) from None

        parse.__name__ = self.name  # argparse names the type in some of its messages
        return parse


# ---- text grammars (a flag, an action input) ----------------------------------------------------
def number_text(text: str, where: str) -> float:
    """A number as ``float`` reads it (``3``, ``0.99``, ``1e2``; ``nan`` is read, the domain refuses it)."""
    try:
        return float(text)
    except ValueError:
        raise Invalid(where, text, "a number") from None


_WHOLE = re.compile(r"-?[0-9]+")


def whole_text(text: str, where: str) -> int:
    """ASCII digits with an optional minus: not ``+3``, ``1_000``, ``3.0`` or other scripts' digits."""
    if not _WHOLE.fullmatch(text):
        raise Invalid(where, text, "a whole number")
    return int(text)


def as_written(text: str, where: str) -> str:
    return text


# ---- domains ------------------------------------------------------------------------------------
def _numeric(value: Any, where: str) -> float:
    """A JSON/TOML number, not a boolean (range and finiteness are the domain's)."""
    if value.__class__ is bool or not isinstance(value, int | float):
        raise Invalid(where, value, "a number")
    return value


def _bounded(expected: str, inside: Callable[[float], bool]) -> Decoder[float]:
    def decode(value: Any, where: str) -> float:
        if not (math.isfinite(_numeric(value, where)) and inside(value)):
            raise Invalid(where, value, expected)
        return float(value)

    return decode


def _whole_in(low: int, high: int | None, expected: str) -> Decoder[int]:
    """A whole number in [low, high] (no upper bound for None), not a boolean."""

    def decode(value: Any, where: str) -> int:
        if value.__class__ is not int or value < low or (high is not None and value > high):
            raise Invalid(where, value, expected)
        return int(value)

    return decode


def _choice(choices: tuple[str, ...], *, any_case: bool) -> tuple[Decoder[str], str]:
    expected = f"one of {', '.join(choices)}"

    def decode(value: Any, where: str) -> str:
        chosen = value.lower() if any_case and isinstance(value, str) else value
        if chosen not in choices:
            raise Invalid(where, value, expected)
        return str(chosen)

    return decode, expected


# threshold_pct: the relevant change in % (gate/analysis/compare.py: the verdict's threshold). At
# 1000 % or more no slowdown short of 11× is a regression.
MAX_THRESHOLD_PCT: Final = 1000.0
THRESHOLD_PCT: Final = Setting[float](
    "threshold_pct",
    _bounded("a percentage above 0 and below 1000", lambda x: 0 < x < MAX_THRESHOLD_PCT),
    "a percentage above 0 and below 1000",
    "3",
    number_text,
)

# confidence: the CI level. Below 0.5 an interval says less than a coin toss; 1 has no interval.
CONFIDENCE: Final = Setting[float](
    "confidence",
    _bounded("a confidence level in [0.5, 1)", lambda x: 0.5 <= x < 1.0),
    "a confidence level in [0.5, 1)",
    "0.99",
    number_text,
    outside="outside [0.5, 1)",
)


def _statistic(value: Any, where: str) -> str:
    """A statistic name (gate/statistic.py), canonical: ``P05`` → ``p5``; or ``calibrated``."""
    try:
        if isinstance(value, str):
            if value.strip().lower() == CALIBRATED:
                return CALIBRATED
            return parse_statistic(value)
    except ValueError:
        pass
    raise Invalid(where, value, "a statistic the gate knows")


STATISTIC: Final = Setting[str](
    "statistic", _statistic, "a statistic the gate knows", "p10", as_written, forms=STATISTIC_SETTING_FORMS
)

# bootstrap: the resampling scheme (gate/analysis/compare.py); any case, as the inputs take choices
BOOTSTRAPS: Final = ("flat", "two-level", "auto")
_bootstrap, _bootstrap_expected = _choice(BOOTSTRAPS, any_case=True)
BOOTSTRAP: Final = Setting[str]("bootstrap", _bootstrap, _bootstrap_expected, "auto", as_written)

# sandbox: exactly as written: `off` is a decision, not a guess (gate/engine/sandbox.py)
SANDBOX_MODES: Final = ("auto", "on", "off")
_sandbox, _sandbox_expected = _choice(SANDBOX_MODES, any_case=False)
SANDBOX: Final = Setting[str]("sandbox", _sandbox, _sandbox_expected, "auto", as_written)

# seed: any whole number (the schedule's and the bootstrap's random generator)
SEED: Final = Setting[int]("seed", integer, "an integer", "1", whole_text)

# [full] suite_runs × iterations × measurements (meta.json ``full`` and ``benchmark_configs``): each a
# whole number ≥ 1, their product at most MAX_VALUES (gate/model.py says why)
LEVEL_COUNT_EXPECTED: Final = "a positive integer"
SUITE_RUNS: Final = Setting[int](
    "suite_runs", _whole_in(1, None, LEVEL_COUNT_EXPECTED), LEVEL_COUNT_EXPECTED, "3", whole_text
)
ITERATIONS: Final = Setting[int](
    "iterations", _whole_in(1, None, LEVEL_COUNT_EXPECTED), LEVEL_COUNT_EXPECTED, "5", whole_text
)
MEASUREMENTS: Final = Setting[int](
    "measurements", _whole_in(1, None, LEVEL_COUNT_EXPECTED), LEVEL_COUNT_EXPECTED, "1", whole_text
)


def values_problem(suite_runs: int, iterations: int, measurements: int, most: int) -> str | None:
    """Why a level configuration asks for too many values per benchmark and version (None: it does not)."""
    if suite_runs * iterations * measurements <= most:
        return None
    return f"{suite_runs} × {iterations} × {measurements} values, more than {most:,}"


# budget: follow-up rounds' wall time (gate/rounds/config.py). Text is a duration: 900, 900s, 15m,
# 1h30m; a number is seconds.
MAX_BUDGET_S: Final = 7 * 24 * 3600.0
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?")
BUDGET_OUTSIDE: Final = f"outside 0 s … {MAX_BUDGET_S / 86400:g} days"


def duration_seconds(text: str, where: str) -> float:
    """Seconds in ``900``, ``900s``, ``15m``, ``1h30m`` (case and blanks ignored)."""
    s = text.strip().lower().replace(" ", "")
    m = _DURATION.fullmatch(s)
    if s and re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s)
    if s and m is not None and any(m.groups()):
        h, mi, sec = (float(g) if g else 0.0 for g in m.groups())
        return h * 3600 + mi * 60 + sec
    raise Invalid(where, text, "a duration")


def _seconds(value: Any, where: str) -> float:
    """Seconds of budget, as written (meta.json's ``budget_s`` round-trips)."""
    if not (math.isfinite(_numeric(value, where)) and 0 <= value <= MAX_BUDGET_S):
        raise Invalid(where, value, "seconds from 0 to 7 days")
    return value


BUDGET: Final = Setting[float](
    "budget",
    _seconds,
    "seconds from 0 to 7 days",
    "15m",
    duration_seconds,
    BUDGET_OUTSIDE,
    text_in_files=True,
    forms="seconds or a duration such as 900s, 15m, 1h30m (0 turns follow-up rounds off)",
)

# max_rounds: each round is one more look; 20 already asks c_look = 1 - (1 - c)/21
DEFAULT_MAX_ROUNDS: Final = 3
MAX_ROUNDS_LIMIT: Final = 20
_MAX_ROUNDS_EXPECTED = f"a whole number from 1 to {MAX_ROUNDS_LIMIT}"
MAX_ROUNDS: Final = Setting[int](
    "max_rounds",
    _whole_in(1, MAX_ROUNDS_LIMIT, _MAX_ROUNDS_EXPECTED),
    _MAX_ROUNDS_EXPECTED,
    str(DEFAULT_MAX_ROUNDS),
    whole_text,
    forms=f"a whole number from 1 to {MAX_ROUNDS_LIMIT} (a budget of 0 turns follow-up rounds off)",
)

# shard: K of N (gate/engine/shard.py); a GitHub Actions matrix holds at most 256 jobs per run
MAX_SHARDS: Final = 256
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
SHARD_EXPECTED: Final = f"K/N with 1 ≤ K ≤ N ≤ {MAX_SHARDS}"


def shard_text(text: str, where: str) -> tuple[int, int]:
    m = _SHARD.fullmatch(str(text))
    if m is None:
        raise Invalid(where, text, "K/N")
    return int(m.group(1)), int(m.group(2))


def _shard(value: Any, where: str) -> tuple[int, int]:
    """(K, N): this runner's shard K of N."""
    if not (isinstance(value, tuple | list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise Invalid(where, value, "K/N")
    index, count = value
    if not 1 <= index <= count <= MAX_SHARDS:
        raise Invalid(where, value, SHARD_EXPECTED)
    return index, count


SHARD: Final = Setting[tuple[int, int]](
    "shard",
    _shard,
    SHARD_EXPECTED,
    "2/4",
    shard_text,
    f"outside 1 ≤ K ≤ N ≤ {MAX_SHARDS}",
    forms=f"K/N, this runner's shard K of N (1 ≤ K ≤ N ≤ {MAX_SHARDS})",
)

__all__ = [
    "BOOTSTRAP",
    "BUDGET",
    "CONFIDENCE",
    "ITERATIONS",
    "MAX_ROUNDS",
    "MEASUREMENTS",
    "SANDBOX",
    "SEED",
    "SHARD",
    "STATISTIC",
    "STATISTIC_FORMS",
    "SUITE_RUNS",
    "THRESHOLD_PCT",
    "Setting",
    "is_number",
]
