"""Carry-over taken out: compare base and head without the trials right after a disturbing
predecessor (docs/order-effects.md "Carry-over taken out").

Why it is unbiased. RMIT shuffles the benchmarks of every suite run (µOpTime §2; Abedi & Brecht,
"Conducting repeatable experiments in highly variable cloud computing environments", ICPE 2017),
so which trials of a benchmark follow a given predecessor is decided by the schedule's random
order, not by the version or the value. The trials right after X are a random subset of the
benchmark's trials, and so are the trials that remain when they are left out: the comparison on
the remaining trials estimates the same base/head change, without the second mode the
carry-over adds to both versions (../shared/notes/noise.md "Carry-over").

Error control of the decision to leave trials out:

* **Named at 1 %.** Only a predecessor the carry-over check (:mod:`gate.analysis.carryover`)
  names with an adjusted p-value below :data:`EXCLUDE_ALPHA` = 0.01 is taken out — its Holm
  step-down within the benchmark with Bonferroni across benchmarks, or the suite-wide Holm
  step-down. The warnings still appear from p < 0.05; between 0.01 and 0.05 the report warns
  and keeps every trial. Two families (per benchmark, suite-wide) at 1 % each: on data without
  carry-over, trials are left out in about 2 % of analyses (3 of 100 null logs measured,
  docs/order-effects.md; tests/unit/analysis/test_carryover_exclusion.py bounds it).
* **Enough left.** Each version must keep at least :data:`MIN_KEPT_TRIALS` trials and at least
  :data:`MIN_KEPT_SHARE` of its trials; otherwise nothing is left out and the record says why.
  (A predecessor followed by most trials is not a disturbance of a subset, it is the norm.)
* **Never against the full data.** The comparison runs both ways. The result without the
  trials is used when it reaches the same verdict as all trials (the narrower CIs are then the
  better description), or when all trials give ``inconclusive`` and their CI of the change does
  not contradict it (reaches the range the new verdict claims: beyond +threshold for a
  regression, inside ±threshold for unchanged, …). A verdict that all trials decide otherwise —
  a regression, improvement or unchanged — stands; a ``failed`` benchmark is never re-compared.
  So a wrong exclusion can only turn an ``inconclusive`` into a verdict the full data allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gate.analysis.carryover import CarryoverResult, trial_predecessors
from gate.analysis.compare import Comparison
from gate.model import Verdict

EXCLUDE_ALPHA = 0.01
MIN_KEPT_TRIALS = 5
MIN_KEPT_SHARE = 0.5
MODES: tuple[str, ...] = ("exclude", "report")  # analyze --carryover
_KEYS = ["instance", "suite_run", "position"]

# compare(rows, names) -> the comparisons of ``names`` on those trial-log rows
CompareRows = Callable[[pd.DataFrame, Sequence[str]], list[Comparison]]


@dataclass(frozen=True)
class Culprit:
    """A predecessor named at :data:`EXCLUDE_ALPHA`: ``scope`` suite (it disturbs whatever runs
    next) or benchmark (this benchmark only)."""

    name: str
    scope: str
    effect_pct: float
    p_adj: float


def culprits(carry: CarryoverResult | None, alpha: float = EXCLUDE_ALPHA) -> dict[str, list[Culprit]]:
    """Per benchmark the predecessors to take out; key ``""`` holds the suite-wide ones."""
    out: dict[str, list[Culprit]] = {}
    if carry is None:
        return out
    suite = (carry.suite or {}).get("predecessors") or []
    out[""] = [
        Culprit(str(e["predecessor"]), "suite", float(e["effect_pct"]), float(e["p_adj"]))
        for e in suite
        if e.get("p_adj") is not None and e["p_adj"] < alpha
    ]
    for bench, entry in carry.per_benchmark.items():
        named = [
            Culprit(str(e["predecessor"]), "benchmark", float(e["effect_pct"]), float(e["p_adj"]))
            for e in entry.get("predecessors") or []
            if e.get("p_adj") is not None and e["p_adj"] < alpha
        ]
        if named:
            out[bench] = named
    return out


def _predecessor_of_rows(rows: pd.DataFrame, trials: pd.DataFrame) -> pd.Series:
    """The predecessor of each row's trial (NaN where unknown: fixed order, no position)."""
    table = trial_predecessors(trials)
    if table is None or not set(_KEYS[1:]) <= set(rows.columns):
        return pd.Series(np.nan, index=rows.index, dtype=object)
    keys = rows[[k for k in _KEYS if k in rows.columns]].copy()
    keys["instance"] = rows["instance"].astype(str) if "instance" in rows.columns else ""
    merged = keys.reset_index().merge(table, on=_KEYS, how="left").set_index("index")
    return merged["predecessor"].reindex(rows.index)


def _trial_ids(rows: pd.DataFrame) -> pd.Series:
    cols = [c for c in ("source", *_KEYS) if c in rows.columns]
    return rows[cols].astype(str).agg("|".join, axis=1)


def _claim_allowed(full: Comparison, new: Comparison, threshold: float, higher_is_better: bool) -> bool:
    """Does the full data's CI of the change reach what ``new``'s verdict claims?"""
    if full.change_ci is None:
        return True  # the full data has no interval, so nothing to contradict
    lo, hi = full.change_ci
    worse_up = not higher_is_better  # lower is better: a regression is a positive change
    if new.verdict is Verdict.UNCHANGED:
        return lo <= threshold and hi >= -threshold
    bad = new.verdict is Verdict.REGRESSION
    if bad == worse_up:
        return hi >= threshold
    return lo <= -threshold


def _summary(c: Comparison) -> dict[str, Any]:
    return {
        "verdict": str(c.verdict),
        "change_pct": c.change_pct,
        "change_ci": list(c.change_ci) if c.change_ci else None,
        "base_ci": list(c.base.ci) if c.base.ci else None,
        "head_ci": list(c.head.ci) if c.head.ci else None,
        "n": {"base": c.base.n, "head": c.head.n},
    }


def take_out(
    compared: pd.DataFrame,
    trials: pd.DataFrame,
    comparisons: list[Comparison],
    carry: CarryoverResult | None,
    compare_rows: CompareRows,
    *,
    base: str,
    head: str,
    thresholds: Mapping[str, float],
    higher_is_better: Mapping[str, bool],
) -> tuple[list[Comparison], dict[str, dict[str, Any]]]:
    """Comparisons with the named carry-over taken out where the rules above allow it, and per
    benchmark the record ``benchmarks[].carryover_exclusion`` (docs/contracts.md).

    ``compared``: the rows the comparison used; ``trials``: the rows the carry-over check saw
    (for the predecessors); ``thresholds``: every compared benchmark's threshold in %."""
    named = culprits(carry)
    suite = named.get("", [])
    if not suite and len(named) <= 1:
        return comparisons, {}
    pred = _predecessor_of_rows(compared, trials)
    bench = compared["benchmark"].astype(str)
    trial_id = _trial_ids(compared)
    records: dict[str, dict[str, Any]] = {}
    drop = pd.Series(False, index=compared.index)
    to_compare: list[str] = []
    by_name = {c.benchmark: c for c in comparisons}
    for name, full in by_name.items():
        mine = suite + named.get(name, [])
        if not mine or full.verdict is Verdict.FAILED:
            continue
        names = sorted({c.name for c in mine})
        rows = bench == name
        after = rows & pred.isin(names)
        record: dict[str, Any] = {
            "predecessors": [
                {
                    "predecessor": c.name,
                    "scope": c.scope,
                    "effect_pct": round(c.effect_pct, 3),
                    "p_adj": c.p_adj,
                }
                for c in mine
            ],
            "alpha": EXCLUDE_ALPHA,
            "excluded_trials": {},
            "kept_trials": {},
            "applied": False,
            "reason": "",
            "all_trials": _summary(full),
            "without": None,
        }
        short = []
        for role, version in (("base", base), ("head", head)):
            in_version = rows & (compared["version"].astype(str) == version)
            total = trial_id[in_version].nunique()
            gone = trial_id[in_version & after].nunique()
            kept = total - gone
            record["excluded_trials"][role] = int(gone)
            record["kept_trials"][role] = int(kept)
            if kept < MIN_KEPT_TRIALS or kept < MIN_KEPT_SHARE * total:
                short.append(f"{role} would keep {kept} of {total} trials")
        records[name] = record
        if not any(record["excluded_trials"].values()):
            record["reason"] = "no trial of this benchmark ran right after a named predecessor"
        elif short:
            record["reason"] = (
                f"not taken out: {'; '.join(short)} (needs ≥ {MIN_KEPT_TRIALS} and ≥ "
                f"{MIN_KEPT_SHARE:.0%} per version); more suite runs would allow it"
            )
        else:
            drop |= after
            to_compare.append(name)
    if to_compare:
        kept_rows = compared.loc[~drop.to_numpy()]
        for new in compare_rows(kept_rows, to_compare):
            full = by_name[new.benchmark]
            record = records[new.benchmark]
            record["without"] = _summary(new)
            thr = thresholds[new.benchmark]
            hib = bool(higher_is_better.get(new.benchmark, False))
            if new.verdict is full.verdict:
                use, why = True, f"same verdict as with all trials ({full.verdict})"
            elif full.verdict is Verdict.INCONCLUSIVE and new.verdict is not Verdict.INCONCLUSIVE:
                use = _claim_allowed(full, new, thr, hib)
                why = (
                    f"{new.verdict} once the carry-over is out; all trials were inconclusive and "
                    "their CI of the change allows it"
                    if use
                    else f"{new.verdict} without these trials, but the CI of the change with all trials "
                    f"({_pct(full.change_ci)}) contradicts it: kept inconclusive"
                )
            else:
                use = False
                why = f"with all trials the verdict is {full.verdict}; it stands (without: {new.verdict})"
            record["applied"] = use
            record["reason"] = why
            if use:
                by_name[new.benchmark] = new
    return [by_name[c.benchmark] for c in comparisons], records


def _pct(ci: tuple[float, float] | None) -> str:
    if ci is None or not all(math.isfinite(x) for x in ci):
        return "none"
    return f"[{ci[0]:+.1f}%, {ci[1]:+.1f}%]"
