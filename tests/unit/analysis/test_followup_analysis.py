"""analysis.json ``adaptive`` and ``benchmarks[].followup`` from a trial log with follow-up rounds
(the ``round`` column) and its meta.json ``adaptive`` section, as docs/contracts.md specifies."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.model import ANALYSIS_SCHEMA, TRIAL_COLUMNS, TRIAL_LOG_SCHEMA
from gate.render.terminal import benchmark_table

SETTINGS = AnalysisSettings(resamples=400, seed=1)
TRIAL_S = 2.0  # elapsed_s of every trial


def _values(bench: str, version: str, rng: np.random.Generator, n: int) -> list[float]:
    if bench == "noisy":  # spread far wider than the 3 % threshold: stays inconclusive
        return list(1.0 + rng.uniform(-0.3, 0.3, n))
    return list(1.0 + rng.normal(0, 0.002, n))


def rows_with_rounds() -> list[dict[str, Any]]:
    """Planned: 3 suite runs × 2 iterations of every benchmark and version. Follow-up round 1:
    suite runs 4-5 of ``steady`` and ``noisy``; round 2: suite runs 6-7 of ``noisy`` only (its
    second trial of head in run 7 failed)."""
    rng = np.random.default_rng(3)
    rows: list[dict[str, Any]] = []
    plan = [(0, run, ("steady", "noisy", "planned_only")) for run in (1, 2, 3)]
    plan += [(1, run, ("steady", "noisy")) for run in (4, 5)]
    plan += [(2, run, ("noisy",)) for run in (6, 7)]
    trial = 0
    for round_, run, benches in plan:
        position = 0
        for bench in benches:
            for version in ("base", "head"):
                for iteration in (1, 2):
                    trial += 1
                    position += 1
                    failed = (round_, run, bench, version, iteration) == (2, 7, "noisy", "head", 2)
                    rows.append(
                        {
                            "trial": trial, "benchmark": bench, "version": version, "instance": "h",
                            "suite_run": run, "order_type": "random", "position": position,
                            "iteration": iteration, "measurement": 1,
                            "value": "" if failed else _values(bench, version, rng, 1)[0],
                            "unit": "s", "higher_is_better": "false",
                            "status": "error" if failed else "ok",
                            "reason": "exit status 1" if failed else "",
                            "started_at": f"2026-11-26T10:00:{trial % 60:02d}Z", "elapsed_s": TRIAL_S,
                            "config": "full", "round": round_,
                        }
                    )  # fmt: skip
    return rows


def adaptive_meta() -> dict[str, Any]:
    return {
        "budget_s": 150.0,
        "max_rounds": 3,
        "rule": {"name": "bonferroni-looks", "confidence": 0.99, "looks": 4, "confidence_per_look": 0.9975},
        "rounds": [
            {
                "round": 1,
                "seed": 11,
                "planned_at": "2026-11-26T10:01:00Z",
                "used_before_s": 72.0,
                "time_left_s": 78.0,
                "estimated_s": 16.0,
                "benchmarks": {
                    "steady": {"values_now": 6, "values_needed": 8, "suite_runs": 2, "why": "…"},
                    "noisy": {"values_now": 6, "values_needed": 400, "suite_runs": 2, "why": "…"},
                },
                "not_followed": {},
                "schedule": [],
            },
        ],
        "final": {
            "stop_reason": "budget_spent",
            "used_s": 130.5,
            "planned_s": 75.0,
            "followup_s": 55.5,
            "unresolved": {
                "noisy": {
                    "reason": "budget_spent",
                    "detail": "the CI is too wide",
                    "values_needed": 90,
                    "needs_s": 600.0,
                },
                # the run's last look left it open; this analysis decides it: not unresolved
                "steady": {"reason": "rounds_spent", "detail": "…", "values_needed": 9, "needs_s": 4.0},
            },
        },
    }


def write_log(tmp_path: Path, rows: list[dict[str, Any]], adaptive: dict[str, Any] | None) -> Path:
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows)[list(TRIAL_COLUMNS)].to_csv(path, index=False)
    meta = {"schema_version": TRIAL_LOG_SCHEMA, "base": "base", "head": "head", "adaptive": adaptive}
    meta["full"] = {"suite_run": 3, "iteration": 2, "measurement": 1}
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    return path


def analyse(path: Path) -> dict[str, Any]:
    return build_analysis(load_trials([path]), base=None, head=None, settings=SETTINGS)


def by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["benchmark"]: b for b in doc["benchmarks"]}


def test_counts_come_from_the_round_column(tmp_path: Path) -> None:
    doc = analyse(write_log(tmp_path, rows_with_rounds(), adaptive_meta()))
    assert doc["schema_version"] == ANALYSIS_SCHEMA == 2
    b = by_name(doc)
    assert b["steady"]["followup"]["rounds"] == 1
    assert b["steady"]["followup"]["extra_values"] == {"base": 4, "head": 4}
    assert b["steady"]["base"]["n"] == 10
    # two rounds; the failed follow-up trial gave no value, so head has one extra value fewer
    assert b["noisy"]["followup"]["rounds"] == 2
    assert b["noisy"]["followup"]["extra_values"] == {"base": 8, "head": 7}
    assert b["planned_only"]["followup"] == {
        "rounds": 0,
        "extra_values": {"base": 0, "head": 0},
        "unresolved": None,
    }
    assert doc["adaptive"]["rounds"] == 2


def test_reasons_and_times_come_from_meta_final(tmp_path: Path) -> None:
    doc = analyse(write_log(tmp_path, rows_with_rounds(), adaptive_meta()))
    b = by_name(doc)
    assert b["noisy"]["verdict"] == "failed"  # a follow-up trial failed: failed, not inconclusive
    # the same log without the failed trial: noisy stays inconclusive and gets final's reason
    rows = [r for r in rows_with_rounds() if r["status"] == "ok"]
    doc = analyse(write_log(tmp_path, rows, adaptive_meta()))
    b = by_name(doc)
    assert b["noisy"]["verdict"] == "inconclusive"
    assert b["noisy"]["followup"]["unresolved"] == {
        "reason": "budget_spent",
        "detail": "the CI is too wide",
        "values_needed": 90,
        "needs_s": 600.0,
    }
    assert b["steady"]["verdict"] == "unchanged"
    assert b["steady"]["followup"]["unresolved"] is None  # decided here, whatever final said
    a = doc["adaptive"]
    assert a == {
        "budget_s": 150.0,
        "used_s": 130.5,
        "planned_s": 75.0,
        "followup_s": 55.5,
        "full_s": 72.0,  # time_summary: 3 benchmarks × 2 versions × 3×2×1 values × 2 s
        "rounds": 2,
        "max_rounds": 3,
        "rule": {"name": "bonferroni-looks", "confidence": 0.99, "looks": 4, "confidence_per_look": 0.9975},
        "stop_reason": "budget_spent",
    }


def test_without_final_the_times_come_from_the_log(tmp_path: Path) -> None:
    """A run stopped before its last analysis has no ``final``: the log's elapsed_s per round."""
    meta = adaptive_meta()
    del meta["final"]
    rows = rows_with_rounds()
    doc = analyse(write_log(tmp_path, rows, meta))
    planned = sum(r["round"] == 0 for r in rows) * TRIAL_S
    followup = sum(r["round"] > 0 for r in rows) * TRIAL_S
    a = doc["adaptive"]
    assert (a["planned_s"], a["followup_s"], a["used_s"]) == (planned, followup, planned + followup)
    assert a["stop_reason"] is None
    assert all(b["followup"]["unresolved"] is None for b in doc["benchmarks"])


def test_null_without_a_budget(tmp_path: Path) -> None:
    doc = analyse(write_log(tmp_path, rows_with_rounds(), None))
    assert doc["adaptive"] is None
    assert all(b["followup"] is None for b in doc["benchmarks"])
    # and the verdicts are those of the same log with a budget (the rounds are ordinary rows)
    with_budget = analyse(write_log(tmp_path, rows_with_rounds(), adaptive_meta()))
    assert [(b["benchmark"], b["verdict"], b["base"]["n"]) for b in doc["benchmarks"]] == [
        (b["benchmark"], b["verdict"], b["base"]["n"]) for b in with_budget["benchmarks"]
    ]


@pytest.mark.parametrize("cell", ["", "x", "-1", "1.5"])
def test_an_unreadable_round_cell_counts_as_planned(tmp_path: Path, cell: str) -> None:
    rows = rows_with_rounds()
    for r in rows:
        if r["round"] == 2:
            r["round"] = cell
    doc = analyse(write_log(tmp_path, rows, adaptive_meta()))
    noisy = by_name(doc)["noisy"]
    assert noisy["followup"]["rounds"] == 1 and noisy["base"]["n"] == 14  # no row is lost
    assert doc["adaptive"]["rounds"] == 1


def test_a_malformed_adaptive_section_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    doc = analyse(write_log(tmp_path, rows_with_rounds(), "15m"))  # type: ignore[arg-type]
    assert doc["adaptive"] is None
    assert any(w["code"] == "meta_invalid" and "adaptive" in w["message"] for w in doc["warnings"])
    broken = copy.deepcopy(adaptive_meta())
    broken["final"]["unresolved"]["noisy"] = {
        "reason": "budget_spent",
        "values_needed": "many",
        "needs_s": -5,
    }
    rows = [r for r in rows_with_rounds() if r["status"] == "ok"]
    doc = analyse(write_log(tmp_path, rows, broken))
    # ``final`` is left out with a warning naming the field: the analysis is that of a run
    # stopped before its last look (times from the log, reasons unknown); budget and rule stay
    assert any(
        w["code"] == "meta_invalid" and "adaptive.final.unresolved['noisy'].detail" in w["message"]
        for w in doc["warnings"]
    )
    assert by_name(doc)["noisy"]["followup"]["unresolved"] is None
    a = doc["adaptive"]
    assert (a["budget_s"], a["stop_reason"], a["rule"]["looks"]) == (150.0, None, 4)
    assert a["planned_s"] == sum(r["round"] == 0 for r in rows) * TRIAL_S


def test_cli_table_shows_the_rounds(tmp_path: Path) -> None:
    rows = [r for r in rows_with_rounds() if r["status"] == "ok"]
    table = benchmark_table(analyse(write_log(tmp_path, rows, adaptive_meta())))
    assert "planned 75 s + follow-up 56 s of a 2.5 min budget" in table
    steady = next(line for line in table.splitlines() if line.startswith("steady"))
    assert "1 round, +4" in steady
    assert "noisy: after 2 follow-up rounds (+8 base / +7 head values) the budget ran out" in table
    noisy = next(line for line in table.splitlines() if line.startswith("  noisy: "))
    assert "about 10 min more would resolve it" in noisy and noisy.endswith(": --budget 13m")
    plain = benchmark_table(analyse(write_log(tmp_path, rows, None)))
    assert "follow-up" not in plain and "round" not in plain
