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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.errors import InputError
from gate.model import CALIBRATION_SCHEMA


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
    raw_levels = data["levels"]
    if not isinstance(raw_levels, list) or not all(isinstance(level, str) for level in raw_levels):
        raise InputError(
            f"calibration file {p}: levels must be a list of names, got {raw_levels!r:.60}", fix_for(p)
        )
    levels = tuple(raw_levels)
    metric = data.get("metric", "")
    if not isinstance(metric, str):
        raise InputError(f"calibration file {p}: metric must be a string, got {metric!r:.60}", fix_for(p))
    threshold = data.get("threshold", 0.0)  # informational for runs (meta.json, the comment)
    if "threshold" in data and (
        type(threshold) not in (int, float) or not (math.isfinite(threshold) and threshold > 0)
    ):
        raise InputError(
            f"calibration file {p}: threshold must be a positive number, got {threshold!r:.60}", fix_for(p)
        )
    full = _levels_of(data["full"], "full", p, levels)
    benchmarks = {
        name: _choice(entry, f"benchmarks[{name!r}]", p, levels)
        for name, entry in _object(data["benchmarks"], "benchmarks", p).items()
    }
    skipped = _optional_object(data, "skipped", p)
    return Calibration(
        path=str(p),
        metric=metric,
        threshold=float(threshold),
        levels=levels,
        full=full,
        benchmarks=benchmarks,
        discard_warmup=_warmup(data.get("discard_warmup"), p, levels),
        skipped={str(k): str(v) for k, v in skipped.items()},
        summary=_optional_object(data, "summary", p),
        audit=_optional_object(data, "audit", p) if data.get("audit") is not None else None,
        document=dict(data),
    )


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


# ---- field checks -----------------------------------------------------------------------------------


def _count(value: Any, where: str, p: str | Path, minimum: int) -> int:
    """A JSON integer ≥ ``minimum``: not a bool, not 2.5 or "3" (``int()`` would accept those
    silently and run another configuration than the file seems to say)."""
    if type(value) is not int or value < minimum:
        raise InputError(
            f"calibration file {p}: {where} must be an integer ≥ {minimum}, got {value!r}", fix_for(p)
        )
    return value


def _object(value: Any, where: str, p: str | Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(
            f"calibration file {p}: {where} must be a JSON object, got {type(value).__name__} {value!r:.60}",
            fix_for(p),
        )
    return value


def _optional_object(data: Mapping[str, Any], key: str, p: str | Path) -> dict[str, Any]:
    value = data.get(key)
    return {} if value is None else _object(value, key, p)


def _levels_of(value: Any, where: str, p: str | Path, levels: tuple[str, ...]) -> dict[str, int]:
    counts = _object(value, where, p)
    unknown = [k for k in counts if k not in levels]
    if unknown:
        raise InputError(
            f"calibration file {p}: {where} names level(s) {', '.join(map(repr, unknown))} that are not "
            f"in its levels ({', '.join(levels)})",
            fix_for(p),
        )
    return {k: _count(v, f"{where}.{k}", p, 1) for k, v in counts.items()}


def _number(entry: Mapping[str, Any], key: str, where: str, p: str | Path) -> float | None:
    """A finite JSON number or null/absent (calibrate writes null for an unbounded metric)."""
    value = entry.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise InputError(
            f"calibration file {p}: {where}.{key} must be a number or null, got {value!r:.60}", fix_for(p)
        )
    return float(value)


def _flag(entry: Mapping[str, Any], key: str, default: bool, where: str, p: str | Path) -> bool:
    value = entry.get(key, default)
    if type(value) is not bool:
        raise InputError(
            f"calibration file {p}: {where}.{key} must be true or false, got {value!r:.60}", fix_for(p)
        )
    return value


def _choice(value: Any, where: str, p: str | Path, levels: tuple[str, ...]) -> BenchmarkChoice:
    entry = _object(value, where, p)
    n = entry.get("n_measurements")
    advice = entry.get("advice")
    if advice is not None and not isinstance(advice, str):
        raise InputError(
            f"calibration file {p}: {where}.advice must be text or null, got {advice!r:.60}", fix_for(p)
        )
    raw_curve = entry.get("curve") or entry.get("configurations") or []
    curve = (
        tuple(point for point in raw_curve if isinstance(point, dict)) if isinstance(raw_curve, list) else ()
    )
    return BenchmarkChoice(
        config=_levels_of(entry.get("config"), f"{where}.config", p, levels),
        instability=_number(entry, "instability", where, p),
        cost=_number(entry, "cost", where, p),
        stable=_flag(entry, "stable", True, where, p),
        never_stable=_flag(entry, "never_stable", False, where, p),
        advice=advice,
        n_measurements=None if n is None else _count(n, f"{where}.n_measurements", p, 0),
        full_instability=_number(entry, "full_instability", where, p),
        curve=curve,
    )


def _warmup(value: Any, p: str | Path, levels: tuple[str, ...]) -> dict[str, Any]:
    """``discard_warmup``: ``{"level": one of levels, "count": integer ≥ 0}``, or absent/null for none."""
    if value is None:
        return {}
    warmup = _object(value, "discard_warmup", p)
    level = warmup.get("level", levels[-1] if levels else "measurement")
    if level not in levels:
        raise InputError(
            f"calibration file {p}: discard_warmup.level {level!r:.60} is not one of its levels "
            f"({', '.join(levels)})",
            fix_for(p),
        )
    return {"level": level, "count": _count(warmup.get("count", 0), "discard_warmup.count", p, 0)}
