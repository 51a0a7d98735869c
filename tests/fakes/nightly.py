"""Synthetic nightly trial logs (trials.csv + meta.json) with planted steps, for the history tests.

Night k measures base = commit k-1 and head = commit k, interleaved over suite runs as RMIT does.
A night-level factor (the machine's state that night) multiplies both versions alike, and every
measurement has its own noise; a planted step multiplies every commit from its index on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

START = datetime(2026, 9, 1, 2, 17, tzinfo=UTC)
COLUMNS = "benchmark,version,instance,suite_run,order_type,position,iteration,measurement,value,unit,higher_is_better,status"


def commit(i: int) -> str:
    return f"{i:02d}" + "c0ffee" * 6 + f"{i:02d}"


def night_date(k: int) -> str:
    return (START + timedelta(days=k)).strftime("%Y-%m-%dT%H:%M:%SZ")


def level(steps: Mapping[int, float], c: int) -> float:
    """The true value of a benchmark at commit ``c``: 100 times every step planted at or before it."""
    v = 100.0
    for at, size in steps.items():
        if c >= at:
            v *= 1 + size
    return v


def write_night(
    out: Path,
    k: int,
    plan: Mapping[str, Mapping[int, float]],
    rng: np.random.Generator,
    *,
    suite_runs: int = 3,
    measurements: int = 5,
    noise: float = 0.02,
    night_noise: float = 0.004,
) -> Path:
    """Night ``k`` (k ≥ 1): base = commit k-1, head = commit k. Returns the trials.csv path."""
    out.mkdir(parents=True, exist_ok=True)
    base, head = commit(k - 1), commit(k)
    night = 1 + night_noise * rng.standard_normal()
    rows = [COLUMNS]
    names = sorted(plan)
    for run in range(1, suite_runs + 1):
        for pos, idx in enumerate(rng.permutation(len(names) * 2), start=1):
            name, which = names[idx // 2], (base, head)[idx % 2]
            true = level(plan[name], k - 1 if which == base else k) * night
            for m in range(1, measurements + 1):
                v = true * (1 + noise * rng.standard_normal())
                rows.append(f"{name},{which},nightly-runner,{run},random,{pos},1,{m},{v:.6f},ns/op,false,ok")
    trials = out / "trials.csv"
    trials.write_text("\n".join(rows) + "\n")
    meta = {
        "schema_version": 2,
        "created_at": night_date(k),
        "base": base,
        "head": head,
        "instance": "nightly-runner",
        "config_hash": "cfg-1",
        "versions": {base: {"role": "base", "sha": base}, head: {"role": "head", "sha": head}},
    }
    (out / "meta.json").write_text(json.dumps(meta))
    return trials
