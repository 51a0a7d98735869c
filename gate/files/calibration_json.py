"""``.ordertrap/calibration.json``: the one reader and writer (docs/contracts.md).

``calibrate`` writes it; ``run --calibration`` runs what it says; the run's change report
(gate/config/config_files.py), ``calibration-diff``, ``report`` and ``publish`` show it. They all
read it through :func:`read` / :func:`parse`, so a file one of them accepts means the same to the
others, and :func:`write` refuses to write what :func:`parse` would refuse.

Every field the run engine uses is checked for the type and range ``calibrate`` writes (an
:class:`~gate.errors.InputError` names the field and how to regenerate the file); the
descriptive fields (``summary``, ``settings``, ``audit``, …) must be JSON objects or lists where
docs/contracts.md says so and are kept as written. Unknown fields are kept in
:attr:`Calibration.document`, so a newer file read and written again loses nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.errors import InputError
from gate.files.schema import Decoder, Invalid, Obj, nullable, text
from gate.model import CALIBRATION_SCHEMA
from gate.statistic import STATISTIC_FORMS, parse_statistic


@dataclass(frozen=True)
class BenchmarkChoice:
    """One benchmark's entry under ``benchmarks``: its configuration and how it was chosen."""

    config: Mapping[str, int]  # level -> count
    instability: float | None = None  # metric of the chosen configuration; None when unbounded
    cost: float | None = None
    stable: bool = True
    never_stable: bool = False  # no stable configuration: ``config`` is the full one (µOpTime §5)
    advice: str | None = None
    n_measurements: int | None = None
    full_instability: float | None = None
    # per-configuration (cost, instability) points when a producer records them (the HTML view
    # draws them); calibrate records the chosen and the full configuration only
    curve: tuple[Mapping[str, Any], ...] = ()
    # the statistic the nightly chose for this benchmark's PRs (schema 2; gate/calibration/
    # statistic_choice.py), None in an older file or where the night had too few trials: the
    # suite's statistic then decides
    statistic: str | None = None
    # why: diagnosis, the candidates' A/A spread, the PR size it was chosen for (descriptive)
    statistic_choice: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Calibration:
    path: str
    metric: str
    threshold: float
    levels: tuple[str, ...]
    full: Mapping[str, int]
    benchmarks: Mapping[str, BenchmarkChoice]
    discard_warmup: Mapping[str, Any] = field(default_factory=dict)  # {"level": ..., "count": N} or {}
    skipped: Mapping[str, str] = field(default_factory=dict)  # benchmark -> why it was not calibrated
    summary: Mapping[str, Any] = field(default_factory=dict)
    audit: Mapping[str, Any] | None = None
    document: Mapping[str, Any] = field(default_factory=dict, repr=False)  # the whole JSON object

    @property
    def configs(self) -> dict[str, Mapping[str, int]]:
        """benchmark -> its configuration (level -> count)."""
        return {name: entry.config for name, entry in self.benchmarks.items()}

    def config_for(self, benchmark: str) -> Mapping[str, int] | None:
        """The benchmark's minimal configuration, or None for a benchmark the file does not know
        (a new benchmark): the caller then uses the full configuration."""
        entry = self.benchmarks.get(benchmark)
        return None if entry is None else entry.config

    def never_stable(self, benchmark: str) -> bool:
        """Whether calibration found no stable configuration for it: its config is then the full
        one (µOpTime §5), and runs label it so rather than as a minimal configuration."""
        entry = self.benchmarks.get(benchmark)
        return entry is not None and entry.never_stable

    def statistic_for(self, benchmark: str) -> str | None:
        """The statistic the calibration chose for the benchmark's PRs, None when it chose none."""
        entry = self.benchmarks.get(benchmark)
        return None if entry is None else entry.statistic

    @property
    def never_stable_names(self) -> frozenset[str]:
        return frozenset(name for name, entry in self.benchmarks.items() if entry.never_stable)


def fix_for(path: str | Path) -> str:
    return f"regenerate it with `ordertrap-gate calibrate TRIALS.csv --metric cv --out {path}`"


def read(path: str | Path, text: str | None = None) -> Calibration:
    """Read and check the file at ``path``; ``text``: its content when it does not come from disk
    (a file committed in the base revision, gate/config/config_files.py), ``path`` then only names it."""
    p = Path(path)
    if text is None:
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(
                f"calibration file {p} does not exist",
                "pass the path of an existing file to --calibration, or drop the flag to run "
                "the full configuration",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"calibration file {p} cannot be read: {exc}", fix_for(p)) from None
    return parse(text, p)


def load_document(text: str, path: str | Path) -> dict[str, Any]:
    """The JSON object of a calibration file, unchecked beyond being one (for comparing a copy
    that :func:`parse` refuses with the one in use)."""
    try:
        data = jsontext.loads(text)
    except ValueError as exc:  # bad JSON, nesting too deep
        raise InputError(f"calibration file {path} is not valid JSON: {exc}", fix_for(path)) from None
    if not isinstance(data, dict):
        raise InputError(f"calibration file {path} is not a JSON object", fix_for(path))
    return data


def parse(text: str, path: str | Path) -> Calibration:
    """Validate the text of a calibration file: every field has the type and range ``calibrate``
    writes, or an :class:`InputError` names the field."""
    return from_document(load_document(text, path), path)


def from_document(data: Mapping[str, Any], path: str | Path = "calibration.json") -> Calibration:
    """The checked :class:`Calibration` of a JSON object (as :func:`parse` reads it)."""
    p = path
    version = data.get("schema_version")
    if type(version) is not int or version > CALIBRATION_SCHEMA:
        raise InputError(
            f"calibration file {p} has schema_version {version!r}; this gate reads up to {CALIBRATION_SCHEMA}",
            "upgrade ordertrap-gate, or " + fix_for(p),
        )
    for key in ("levels", "full", "benchmarks"):
        if key not in data:
            raise InputError(f"calibration file {p} lacks the required field {key!r}", fix_for(p))
    try:
        return _calibration(Obj("", dict(data)), str(p))
    except Invalid as bad:
        raise InputError(f"calibration file {p}: {_described(bad)}", fix_for(p)) from None


def dumps(calibration: Calibration) -> str:
    """The file's text: the document as JSON (no NaN or infinity: they are not JSON)."""
    return json.dumps(dict(calibration.document), indent=2, allow_nan=False) + "\n"


def write(document: Mapping[str, Any], out: str | Path) -> Calibration:
    """Check ``document`` as :func:`parse` would, then write it to ``out``; returns what a reader
    of the file gets."""
    calibration = from_document(document, out)
    p = Path(out)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(dumps(calibration), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {p}: {exc}", "pass a writable path to --out") from None
    return calibration


# ---- decoding (gate/files/schema.py) ------------------------------------------------------------------
def _described(bad: Invalid) -> str:
    """``WHERE must be EXPECTED, got VALUE``: this file's wording of a field it refuses."""
    if bad.said:
        return f"{bad.where} {bad.said}"
    value = bad.value
    got = f"{type(value).__name__} {value!r:.60}" if bad.expected == "a JSON object" else f"{value!r:.60}"
    return f"{bad.where} must be {bad.expected}, got {got}"


def _count(minimum: int) -> Decoder[int]:
    """A JSON integer ≥ ``minimum``: not a bool, not 2.5 or "3" (``int()`` would accept those
    silently and run another configuration than the file seems to say)."""

    def decode(value: Any, where: str) -> int:
        if type(value) is not int or value < minimum:
            raise Invalid(where, value, f"an integer ≥ {minimum}")
        return value

    return decode


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(where, value, "a JSON object")
    return value


def _opt_object(value: Any, where: str) -> dict[str, Any]:
    return {} if value is None else _object(value, where)


def _opt_number(value: Any, where: str) -> float | None:
    """A finite JSON number or null/absent (calibrate writes null for an unbounded metric)."""
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise Invalid(where, value, "a number or null")
    return float(value)


def _flag(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise Invalid(where, value, "true or false")
    return bool(value)


def _opt_text(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise Invalid(where, value, "text or null")
    return value


def _opt_statistic(value: Any, where: str) -> str | None:
    """A statistic name (gate/statistic.py), canonical, or null/absent."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(where, value, STATISTIC_FORMS)
    try:
        return parse_statistic(value)
    except ValueError:
        raise Invalid(where, value, STATISTIC_FORMS) from None


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(level, str) for level in value):
        raise Invalid(where, value, "a list of names")
    return tuple(value)


def _threshold(value: Any, where: str) -> float:
    if type(value) not in (int, float) or not (math.isfinite(value) and value > 0):
        raise Invalid(where, value, "a positive number")
    return float(value)


def _levels_of(levels: tuple[str, ...]) -> Decoder[dict[str, int]]:
    """A count ≥ 1 per level, each one of the file's ``levels``."""

    def decode(value: Any, where: str) -> dict[str, int]:
        counts = _object(value, where)
        unknown = [k for k in counts if k not in levels]
        if unknown:
            raise Invalid(
                where,
                value,
                said=f"names level(s) {', '.join(map(repr, unknown))} that are not in its levels "
                f"({', '.join(levels)})",
            )
        return {k: _count(1)(v, f"{where}.{k}") for k, v in counts.items()}

    return decode


def _choice(levels: tuple[str, ...]) -> Callable[[Obj], BenchmarkChoice]:
    def decode(entry: Obj) -> BenchmarkChoice:
        raw_curve = entry.doc.get("curve") or entry.doc.get("configurations") or []
        curve = (
            tuple(point for point in raw_curve if isinstance(point, dict))
            if isinstance(raw_curve, list)
            else ()
        )
        return BenchmarkChoice(
            config=_levels_of(levels)(entry.item("config", None), f"{entry.where}.config"),
            instability=entry.field("instability", _opt_number, None),
            cost=entry.field("cost", _opt_number, None),
            stable=entry.field("stable", _flag, True),
            never_stable=entry.field("never_stable", _flag, False),
            advice=entry.field("advice", _opt_text, None),
            n_measurements=entry.field("n_measurements", nullable(_count(0), ""), None),
            full_instability=entry.field("full_instability", _opt_number, None),
            curve=curve,
            statistic=entry.field("statistic", _opt_statistic, None),
            statistic_choice=entry.field("statistic_choice", _opt_object, {}),
        )

    return decode


def _benchmarks(levels: tuple[str, ...]) -> Decoder[dict[str, BenchmarkChoice]]:
    """``benchmarks``: an object of benchmark entries by name (``benchmarks['NAME']`` names a bad one)."""
    choice = _choice(levels)

    def decode(value: Any, where: str) -> dict[str, BenchmarkChoice]:
        return {
            name: choice(Obj(f"{where}[{name!r}]", _object(entry, f"{where}[{name!r}]")))
            for name, entry in _object(value, where).items()
        }

    return decode


def _warmup(levels: tuple[str, ...]) -> Decoder[dict[str, Any]]:
    """``discard_warmup``: ``{"level": one of levels, "count": integer ≥ 0}``, or absent/null for none."""

    def decode(value: Any, where: str) -> dict[str, Any]:
        if value is None:
            return {}
        warmup = Obj(where, _object(value, where))
        level = warmup.item("level", levels[-1] if levels else "measurement")
        if level not in levels:
            raise Invalid(
                f"{where}.level", level, said=f"{level!r:.60} is not one of its levels ({', '.join(levels)})"
            )
        return {"level": level, "count": warmup.field("count", _count(0), 0)}

    return decode


def _calibration(doc: Obj, path: str) -> Calibration:
    levels = doc.field("levels", _names)
    benchmarks = doc.field("benchmarks", _benchmarks(levels))
    skipped = doc.field("skipped", _opt_object, {})
    audit = doc.item("audit", None)
    return Calibration(
        path=path,
        metric=doc.field("metric", text, ""),
        threshold=doc.field("threshold", _threshold, 0.0),  # informational for runs (meta.json, the comment)
        levels=levels,
        full=doc.field("full", _levels_of(levels)),
        benchmarks=benchmarks,
        discard_warmup=doc.field("discard_warmup", _warmup(levels), {}),
        skipped={str(k): str(v) for k, v in skipped.items()},
        summary=doc.field("summary", _opt_object, {}),
        audit=None if audit is None else _object(audit, "audit"),
        document=dict(doc.doc),
    )
