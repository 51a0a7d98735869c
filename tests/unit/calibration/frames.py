"""Input frames the calibration tests build: tidy µOpTime-like cubes and gate trial logs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gate.calibration.dataset import build_dataset, normalise
from gate.model import TRIAL_COLUMNS

FULL = (3, 5, 5)


def tidy(cubes: dict[str, np.ndarray], version: str = "v1", instance: str = "1") -> pd.DataFrame:
    rows = []
    for name, cube in cubes.items():
        for (s, i, m), v in np.ndenumerate(cube):
            if not np.isnan(v):
                rows.append((name, version, instance, s + 1, i + 1, m + 1, v))
    return pd.DataFrame(
        rows, columns=["benchmark", "version", "instance", "suite_run", "iteration", "second", "ns"]
    )


def dataset(cubes: dict[str, np.ndarray], **kw: int):
    table = normalise(tidy(cubes), ["suite_run", "iteration", "second"], "ns")
    return build_dataset(table, **kw)


def noisy(cv: float, seed: int, shape: tuple[int, ...] = FULL) -> np.ndarray:
    return np.random.default_rng(seed).normal(100.0, 100.0 * cv, size=shape)


def trial_log(durations: dict[str, float]) -> pd.DataFrame:
    rows = []
    trial = 0
    rng = np.random.default_rng(0)
    for s in (1, 2):
        for name, d in durations.items():
            for i in (1, 2, 3):
                trial += 1
                for m in (1, 2):
                    rows.append(
                        {
                            "trial": trial,
                            "benchmark": name,
                            "version": "main",
                            "instance": "host",
                            "suite_run": s,
                            "order_type": "random",
                            "position": 1,
                            "iteration": i,
                            "measurement": m,
                            "value": 10.0 + rng.normal(0, 0.01),
                            "unit": "s",
                            "higher_is_better": "false",
                            "status": "ok",
                            "reason": "",
                            "started_at": "2026-11-26T00:00:00Z",
                            "elapsed_s": 2 * d,
                            "config": "full",
                        }
                    )
    return pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))


def write_csv(frame: pd.DataFrame, path) -> str:  # type: ignore[no-untyped-def]
    frame.to_csv(path, index=False)
    return str(path)
