"""Reading ``.ordertrap/calibration.json`` (written by ``calibrate``, read by ``run``).

Kept apart from the calibration algorithm so the run engine depends only on the file format
(docs/contracts.md), not on how the configurations were found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.errors import InputError
from gate.model import CALIBRATION_SCHEMA


@dataclass(frozen=True)
class Calibration:
    path: str
    metric: str
    threshold: float
    levels: tuple[str, ...]
    full: Mapping[str, int]
    configs: Mapping[str, Mapping[str, int]]  # benchmark -> level -> count
    discard_warmup: Mapping[str, Any] = field(default_factory=dict)  # {"level": ..., "count": N}
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    never_stable_names: frozenset[str] = frozenset()

    def config_for(self, benchmark: str) -> Mapping[str, int] | None:
        """The benchmark's minimal configuration, or None for a benchmark the file does not know
        (a new benchmark): the caller then uses the full configuration."""
        return self.configs.get(benchmark)

    def never_stable(self, benchmark: str) -> bool:
        """Whether calibration found no stable configuration for it: its config is then the full
        one (µOpTime §5), and runs label it so rather than as a minimal configuration."""
        return benchmark in self.never_stable_names


def load_calibration(path: str | Path, text: str | None = None) -> Calibration:
    """Read and check the file at ``path``; ``text``: its content when it does not come from disk
    (a file committed in the base revision, gate/engine/config_source.py), ``path`` then only names it."""
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
            raise InputError(f"calibration file {p} cannot be read: {exc}", _fix(p)) from None
    return parse_calibration(text, p)


def _fix(p: str | Path) -> str:
    return f"regenerate it with `ordertrap-gate calibrate TRIALS.csv --metric cv --out {p}`"


def _count(value: Any, where: str, p: str | Path, minimum: int) -> int:
    """A JSON integer ≥ ``minimum``: not a bool, not 2.5 or "3" (``int()`` would accept those
    silently and run another configuration than the file seems to say)."""
    if type(value) is not int or value < minimum:
        raise InputError(
            f"calibration file {p}: {where} must be an integer ≥ {minimum}, got {value!r}", _fix(p)
        )
    return value


def _object(value: Any, where: str, p: str | Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(
            f"calibration file {p}: {where} must be a JSON object, got {type(value).__name__} {value!r:.60}",
            _fix(p),
        )
    return value


def _levels_of(value: Any, where: str, p: str | Path, levels: tuple[str, ...]) -> dict[str, int]:
    counts = _object(value, where, p)
    unknown = [k for k in counts if k not in levels]
    if unknown:
        raise InputError(
            f"calibration file {p}: {where} names level(s) {', '.join(map(repr, unknown))} that are not "
            f"in its levels ({', '.join(levels)})",
            _fix(p),
        )
    return {k: _count(v, f"{where}.{k}", p, 1) for k, v in counts.items()}


def parse_calibration(text: str, path: str | Path) -> Calibration:
    """Validate the text of a calibration file: every field the run engine uses has the type and
    range ``calibrate`` writes, or an :class:`InputError` names the field."""
    p = path
    try:
        data = jsontext.loads(text)
    except ValueError as exc:
        raise InputError(f"calibration file {p} is not valid JSON: {exc}", _fix(p)) from None
    if not isinstance(data, dict):
        raise InputError(f"calibration file {p} is not a JSON object", _fix(p))
    version = data.get("schema_version")
    if type(version) is not int or version > CALIBRATION_SCHEMA:
        raise InputError(
            f"calibration file {p} has schema_version {version!r}; this gate reads up to {CALIBRATION_SCHEMA}",
            "upgrade ordertrap-gate, or " + _fix(p),
        )
    for key in ("levels", "full", "benchmarks"):
        if key not in data:
            raise InputError(f"calibration file {p} lacks the required field {key!r}", _fix(p))
    raw_levels = data["levels"]
    if not isinstance(raw_levels, list) or not all(isinstance(level, str) for level in raw_levels):
        raise InputError(
            f"calibration file {p}: levels must be a list of names, got {raw_levels!r:.60}", _fix(p)
        )
    levels = tuple(raw_levels)
    metric = data.get("metric", "")
    if not isinstance(metric, str):
        raise InputError(f"calibration file {p}: metric must be a string, got {metric!r:.60}", _fix(p))
    threshold = data.get("threshold", 0.0)  # informational here (meta.json, the comment)
    if "threshold" in data and (
        type(threshold) not in (int, float) or not (math.isfinite(threshold) and threshold > 0)
    ):
        raise InputError(
            f"calibration file {p}: threshold must be a positive number, got {threshold!r:.60}", _fix(p)
        )
    full = _levels_of(data["full"], "full", p, levels)
    configs: dict[str, dict[str, int]] = {}
    for name, entry in _object(data["benchmarks"], "benchmarks", p).items():
        where = f"benchmarks[{name!r}]"
        configs[name] = _levels_of(_object(entry, where, p).get("config"), f"{where}.config", p, levels)
    return Calibration(
        path=str(p),
        metric=metric,
        threshold=float(threshold),
        levels=levels,
        full=full,
        configs=configs,
        discard_warmup=_warmup(data.get("discard_warmup"), p, levels),
        raw=data,
        never_stable_names=frozenset(
            str(name)
            for name, entry in data["benchmarks"].items()
            if isinstance(entry, dict) and entry.get("never_stable") is True
        ),
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
            _fix(p),
        )
    return {"level": level, "count": _count(warmup.get("count", 0), "discard_warmup.count", p, 0)}
