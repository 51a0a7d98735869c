"""Reading ``.ordertrap/calibration.json`` (written by ``calibrate``, read by ``run``).

Kept apart from the calibration algorithm so the run engine depends only on the file format
(docs/contracts.md), not on how the configurations were found.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    (a file committed in the base revision, gate/config_source.py), ``path`` then only names it."""
    p = Path(path)
    fix = "regenerate it with `ordertrap-gate calibrate TRIALS.csv --metric cv --out " + str(p) + "`"
    try:
        data = json.loads(p.read_text(encoding="utf-8") if text is None else text)
    except FileNotFoundError:
        raise InputError(
            f"calibration file {p} does not exist",
            "pass the path of an existing file to --calibration, or drop the flag to run "
            "the full configuration",
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"calibration file {p} is not valid JSON: {exc}", fix) from None
    if not isinstance(data, dict):
        raise InputError(f"calibration file {p} is not a JSON object", fix)
    version = data.get("schema_version")
    if not isinstance(version, int) or version > CALIBRATION_SCHEMA:
        raise InputError(
            f"calibration file {p} has schema_version {version!r}; this gate reads up to {CALIBRATION_SCHEMA}",
            "upgrade ordertrap-gate, or " + fix,
        )
    try:
        levels = tuple(str(level) for level in data["levels"])
        full = {str(k): int(v) for k, v in data["full"].items()}
        configs = {
            str(name): {str(k): int(v) for k, v in entry["config"].items()}
            for name, entry in data["benchmarks"].items()
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(
            f"calibration file {p} lacks a required field or has a wrong type ({exc!r})", fix
        ) from None
    for name, config in configs.items():
        bad = {k: v for k, v in config.items() if v < 1}
        if bad:
            raise InputError(f"calibration file {p}: benchmark {name!r} has non-positive levels {bad}", fix)
    return Calibration(
        path=str(p),
        metric=str(data.get("metric", "")),
        threshold=float(data.get("threshold", 0.0)),
        levels=levels,
        full=full,
        configs=configs,
        discard_warmup=dict(data.get("discard_warmup") or {}),
        raw=data,
        never_stable_names=frozenset(
            str(name)
            for name, entry in data["benchmarks"].items()
            if isinstance(entry, dict) and entry.get("never_stable") is True
        ),
    )
