"""What the follow-up rounds of ``run --budget`` did, for analysis.json (docs/contracts.md).

Two sources, each for what it alone knows:

* the trial log's ``round`` column (0 = planned, k = follow-up round k) gives the counts: the
  rounds each benchmark ran in and its extra values per version. A log `run` did not
  write has no such column and is all planned; an empty or unreadable cell counts as 0, so a row is never lost from
  the comparison because of it.
* meta.json ``adaptive`` (written by ``run``, read as :class:`gate.files.run_meta.AdaptiveRecord`)
  gives what the log cannot: the budget, the error rule, the stop reason and why each
  still-inconclusive benchmark was not resolved (its ``final`` entry, written after the last
  analysis). Without ``final`` (a run stopped before its last analysis, resuming it writes
  ``final``; or a ``final`` that :func:`gate.files.run_meta.read_beside` left out as malformed)
  the times come from the log's ``elapsed_s`` and the reasons are unknown (null).

Without a budget (meta.json ``adaptive`` null or absent) everything here is null, so an analysis
of a run without rounds is unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from gate.files.run_meta import LookRule, NotFollowedRecord, RunMeta
from gate.model import Verdict

# reasons meta.json final.unresolved may give (docs/contracts.md)
UNRESOLVED_REASONS = ("budget_spent", "rounds_spent", "hopeless", "not_lack_of_data")
STOP_REASONS = ("all_resolved", "no_candidates", "budget_spent", "rounds_spent")


def round_numbers(frame: pd.DataFrame) -> np.ndarray:
    """The ``round`` of every row as integers ≥ 0 (0 without the column, or for a blank cell)."""
    if "round" not in frame.columns:
        return np.zeros(len(frame), dtype=np.int64)
    raw = pd.to_numeric(frame["round"].astype(str).str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    ok = np.isfinite(raw) & (raw >= 0) & (raw == np.floor(raw))
    return np.where(ok, raw, 0).astype(np.int64)


def _seconds_by_round(frame: pd.DataFrame, rounds: np.ndarray) -> tuple[float, float] | None:
    """(planned, follow-up) seconds: Σ elapsed_s over trials (one per trial id), from the log."""
    if "elapsed_s" not in frame.columns or "trial" not in frame.columns:
        return None
    f = frame.assign(_round=rounds).dropna(subset=["trial", "elapsed_s"])
    f = f.drop_duplicates(["source", "trial"] if "source" in f.columns else ["trial"])
    if f.empty:
        return None
    elapsed = pd.to_numeric(f["elapsed_s"], errors="coerce").fillna(0.0)
    planned = float(elapsed[f["_round"] == 0].sum())
    return planned, float(elapsed[f["_round"] > 0].sum())


def _rule(rule: LookRule) -> dict[str, Any]:
    return {
        "name": rule.name,
        "confidence": float(rule.confidence),
        "looks": rule.looks,
        "confidence_per_look": float(rule.confidence_per_look),
    }


def summary(
    frame: pd.DataFrame, meta: RunMeta | None, time: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """analysis.json top-level ``adaptive`` (null without a budget)."""
    section = meta.adaptive if meta is not None else None
    if section is None:
        return None
    rounds = round_numbers(frame)
    final = section.final
    from_log = _seconds_by_round(frame, rounds)
    planned: float | None = None
    followup: float | None = None
    used: float | None = None
    if final is not None:  # the budget clock's
        planned, followup, used = float(final.planned_s), float(final.followup_s), float(final.used_s)
    elif from_log is not None:  # the trials' own time, per round
        planned, followup = round(from_log[0], 3), round(from_log[1], 3)
        used = round(planned + followup, 3)
    full_s = (time or {}).get("full_s")
    return {
        "budget_s": float(section.budget_s),
        "used_s": used,
        "planned_s": planned,
        "followup_s": followup,
        "full_s": float(full_s) if isinstance(full_s, int | float) and math.isfinite(full_s) else None,
        "rounds": int(np.unique(rounds[rounds > 0]).size),
        "max_rounds": section.max_rounds,
        "rule": _rule(section.rule),
        "stop_reason": (final.stop_reason or None) if final is not None else None,
    }


def _unresolved(entry: NotFollowedRecord | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    needs = entry.needs_s
    return {
        "reason": entry.reason,
        "detail": entry.detail,
        "values_needed": entry.values_needed,
        "needs_s": None if needs is None else float(needs),
    }


def per_benchmark(
    frame: pd.DataFrame,
    compared: pd.DataFrame,
    meta: RunMeta | None,
    base: str,
    head: str,
    verdicts: Iterable[tuple[str, str]],
) -> dict[str, dict[str, Any] | None]:
    """analysis.json ``benchmarks[].followup`` by name (null for every benchmark without a budget).

    ``frame``: every row of the log (a failed follow-up trial still means the benchmark ran in
    that round); ``compared``: the rows the comparison used, whose ok values are the extra values
    (so ``n`` minus ``extra_values`` is what the planned suite runs gave). ``unresolved`` is set
    for an ``inconclusive`` benchmark that meta.json ``final`` lists; a benchmark this analysis
    decides is resolved, whatever the run's last look said."""
    verdicts = list(verdicts)
    section = meta.adaptive if meta is not None else None
    if section is None:
        return dict.fromkeys((name for name, _ in verdicts), None)
    unresolved = section.final.unresolved if section.final is not None else {}

    pair = frame.loc[frame["version"].isin([base, head]).to_numpy()]
    later = pair.assign(_round=round_numbers(pair))
    later = later.loc[later["_round"] > 0]
    ran_in = later.groupby("benchmark")["_round"].nunique().to_dict() if not later.empty else {}
    ok = compared.loc[
        compared["version"].isin([base, head]).to_numpy() & (compared["kind"] == "ok").to_numpy()
    ]
    ok = ok.loc[round_numbers(ok) > 0]
    extra = ok.groupby(["benchmark", "version"]).size().to_dict() if not ok.empty else {}
    out: dict[str, dict[str, Any] | None] = {}
    for name, verdict in verdicts:
        out[name] = {
            "rounds": int(ran_in.get(name, 0)),
            "extra_values": {
                "base": int(extra.get((name, base), 0)),
                "head": int(extra.get((name, head), 0)),
            },
            "unresolved": _unresolved(unresolved.get(name)) if verdict == Verdict.INCONCLUSIVE else None,
        }
    return out
