"""Reading ``analysis.json`` back (``report``, ``publish``): its JSON text, and the summary checked
against the benchmarks it summarises.

``analyze`` writes the file, but ``report`` and ``publish`` get it from a path the workflow hands
over, so it is input like any other: a malformed or inconsistent file is refused with a clear
error (``publish`` then sets the commit status ``error``), never rendered into a verdict.

* Integers must lie within ±(2**53 - 1). RFC 8259 §6 calls numbers outside IEEE 754 double
  precision not interoperable; ``analyze`` never writes one, and a 400-digit integer would raise
  OverflowError wherever a float is made of it. Nesting deeper than the parser's recursion limit
  is refused too (``json`` raises RecursionError there).
* The decision is made from the benchmarks: ``summary.counts`` must hold whole numbers ≥ 0 equal
  to the benchmarks' verdicts counted again, and ``summary.failed_in_head_only`` must equal the
  benchmarks that fail in head only. A summary that disagrees with its own benchmarks (say, no
  ``counts.regression`` beside a listed regression) is refused rather than published as a pass.
* ``summary.n_benchmarks``, ``only_in_base`` and ``only_in_head`` are whole numbers ≥ 0 (the
  benchmarks that ran in one version only are not listed, so ``only_in_base`` is taken as
  written); ``environment`` is an object or null.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from gate.decision import fails_in_head_only
from gate.errors import InputError
from gate.model import Verdict

MAX_SAFE_INTEGER: Final = 2**53 - 1  # RFC 8259 §6 (and JavaScript's Number.MAX_SAFE_INTEGER)
_SAFE_DIGITS: Final = len(str(MAX_SAFE_INTEGER))
FIX: Final = (
    "re-run `ordertrap-gate analyze TRIALS.csv --json analysis.json` and pass the file it writes "
    "unchanged (an edited, truncated or foreign analysis.json is not published)"
)
SUMMARY_WHOLE_NUMBERS: Final = ("n_benchmarks", "failed_in_head_only", "only_in_base", "only_in_head")


class _UnsafeInteger(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _bounded_int(token: str) -> int:
    # the length test first: int() of a very long token is slow, and refused past 4,300 digits
    if len(token.lstrip("-")) > _SAFE_DIGITS:
        raise _UnsafeInteger(token)
    value = int(token)
    if abs(value) > MAX_SAFE_INTEGER:
        raise _UnsafeInteger(token)
    return value


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def loads(text: str, source: str) -> Any:
    """Parse ``text`` as JSON, refusing unsafe integers and excessive nesting (InputError)."""
    try:
        return json.loads(text, parse_int=_bounded_int)
    except _UnsafeInteger as exc:
        digits = len(exc.token.lstrip("-"))
        shown = exc.token if len(exc.token) <= 24 else exc.token[:20] + "…"
        raise InputError(
            f"{source} holds a {digits}-digit integer, outside ±(2^53 - 1) where JSON numbers are "
            f"exact (RFC 8259 §6): {shown}",
            FIX,
        ) from None
    except RecursionError:
        raise InputError(f"{source} is nested too deeply to be an analysis.json", FIX) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} is not valid JSON ({exc}), so it is not an analysis.json", FIX) from None


def derived_counts(benchmarks: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Benchmarks per verdict, counted from the benchmarks themselves (every verdict present)."""
    counts = {str(v): 0 for v in Verdict}
    for b in benchmarks:
        counts[str(b["verdict"])] += 1
    return counts


def derived_failed_in_head_only(benchmarks: Sequence[Mapping[str, Any]]) -> int:
    return sum(fails_in_head_only(b) for b in benchmarks)


def _whole(value: object, where: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{source}: {where} is {_short(value)}, not a whole number ≥ 0", FIX)
    return value


def check(data: Mapping[str, Any], source: str) -> None:
    """The checks above, on a document whose ``summary`` is an object and whose ``benchmarks``
    are objects with ``benchmark`` and ``verdict`` (the renderer's structural check)."""
    benchmarks: list[Mapping[str, Any]] = data["benchmarks"]
    known = {str(v) for v in Verdict}
    for i, b in enumerate(benchmarks):
        if not isinstance(b["verdict"], str) or b["verdict"] not in known:
            raise InputError(
                f"{source}: benchmarks[{i}] has verdict {_short(b['verdict'])}, not one of "
                f"{', '.join(sorted(known))}",
                FIX,
            )
    summary: Mapping[str, Any] = data["summary"]
    counts = summary.get("counts")
    if not isinstance(counts, Mapping):
        raise InputError(f"{source} has no summary.counts object", FIX)
    for key, value in counts.items():
        if key not in known:
            raise InputError(f"{source}: summary.counts has an unknown verdict {_short(key)}", FIX)
        _whole(value, f"summary.counts.{key}", source)
    for key in SUMMARY_WHOLE_NUMBERS:
        if summary.get(key) is not None:
            _whole(summary[key], f"summary.{key}", source)
    derived = derived_counts(benchmarks)
    differ = [f"{v} {counts.get(v, 0)} vs {n}" for v, n in derived.items() if counts.get(v, 0) != n]
    if differ:
        raise InputError(
            f"{source}: summary.counts disagree with the verdicts of its benchmarks (summary vs "
            f"benchmarks: {'; '.join(differ)})",
            FIX,
        )
    n = summary.get("n_benchmarks")
    if n is not None and n != len(benchmarks):
        raise InputError(
            f"{source}: summary.n_benchmarks is {n} but {len(benchmarks)} benchmarks are listed", FIX
        )
    head_only = derived_failed_in_head_only(benchmarks)
    stated = summary.get("failed_in_head_only")
    if stated is not None and stated != head_only:
        raise InputError(
            f"{source}: summary.failed_in_head_only is {stated} but {head_only} listed benchmark(s) "
            "fail in head only",
            FIX,
        )
    environment = data.get("environment")
    if environment is not None and not isinstance(environment, Mapping):
        raise InputError(
            f"{source}: environment is {_short(environment)}, not an object (or null)",
            FIX,
        )
