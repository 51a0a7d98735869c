"""Small trials.csv files for tests, one row per dict (the columns of docs/contracts.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd


def csv_log(tmp_path: Path, rows: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> Path:
    """``rows`` written as ``tmp_path/trials.csv``, with ``meta`` as meta.json beside it when given."""
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    if meta is not None:
        (tmp_path / "meta.json").write_text(json.dumps(meta))
    return path


def csv_row(
    trial: int,
    bench: str,
    version: str,
    suite_run: int,
    position: int,
    iteration: int,
    measurement: int,
    value: float,
) -> dict[str, Any]:
    """One ok row of a calibrated trial; its ``elapsed_s`` is its value."""
    return {
        "trial": trial, "benchmark": bench, "version": version, "instance": "h", "suite_run": suite_run,
        "order_type": "random", "position": position, "iteration": iteration, "measurement": measurement,
        "value": value, "unit": "s", "higher_is_better": False, "status": "ok", "reason": "",
        "started_at": "", "elapsed_s": value, "config": "calibration", "round": 0,
    }  # fmt: skip
