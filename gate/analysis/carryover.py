"""Carry-over between benchmarks in ordinary random-order runs (beyond OrderSage).

OrderSage (ATC'23 §7) leaves "which tests cause changes in the following trials" as future
work. RMIT runs give the natural experiment: inside each (instance, suite_run) the order is
random, so the benchmark that ran immediately before a trial — its *predecessor* — and the
trial's *position* are randomised factors. For each benchmark we test both:

* **Position**: Spearman rank correlation between the trial value and its position in the
  run (drift that builds up during a run: heat, caches, memory, disk). Effect = the linear
  trend over the observed position range, in % of the median.
* **Predecessor**: Kruskal-Wallis across predecessor groups (the first trial of a run has the
  predecessor ``(start of run)``). Groups with fewer than ``MIN_GROUP`` trials are pooled
  into ``(other)`` — valid under the null hypothesis, and it keeps their data in the test —
  and never named as a culprit. Culprits: Mann-Whitney U of "right after X" vs the trials not
  attributed to a culprit, Holm step-down within the benchmark (:func:`_step_down`), and only for benchmarks
  whose omnibus test survives Holm across benchmarks (a protected post-hoc, like Fisher's
  LSD after an ANOVA; it keeps the family-wise error rate near alpha while staying cheap on
  thousands of benchmarks: post-hoc tests only run where there is something to find).

Choices:

* One value per trial, the median of its ok measurements: the predecessor is a trial-level
  factor, and measurements inside one process are not independent.
* Versions are pooled after dividing each (benchmark, version) by its own median: base and
  head then share one test (twice the data) and the version difference cannot pose as a
  predecessor effect. A carry-over present in one version only is diluted but still shows;
  each culprit reports its effect per version so that case is visible.
* Only ``order_type == random`` suite runs are used (a fixed run always has the same
  predecessors, so it carries no information about them). Predecessors are read from every
  trial of the run whatever its status: a failed trial still ran and may leave state behind.
* Position and predecessor are two families, each Holm-corrected across benchmarks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from gate.model import OrderType, TrialStatus

START = "(start of run)"
OTHER = "(other)"
MIN_GROUP = 5  # trials per predecessor group before it is tested or named
MIN_POSITION = 10  # trials before the position trend is tested
MATRIX_MAX_ROWS = 200


@dataclass(frozen=True)
class CarryoverResult:
    per_benchmark: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    matrix: dict[str, Any] | None = None


def holm(p: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (NaN entries stay NaN and do not count)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out[order] = adj
    return out


def _trial_table(trials: pd.DataFrame) -> pd.DataFrame | None:
    """One row per random-order trial: benchmark, version, instance, suite_run, position,
    predecessor and the median of its ok values (NaN when it has none)."""
    needed = {"benchmark", "version", "value", "suite_run", "position"}
    if not needed <= set(trials.columns) or trials.empty:
        return None
    df = trials.assign(
        benchmark=trials["benchmark"].astype(str),
        version=trials["version"].astype(str),
        instance=trials["instance"].astype(str) if "instance" in trials.columns else "",
        value=pd.to_numeric(trials["value"], errors="coerce"),
    )
    if "order_type" in df.columns:
        df = df.loc[df["order_type"].astype(str).str.strip().str.lower() == OrderType.RANDOM.value]
    if df.empty:
        return None
    ok = np.isfinite(df["value"].to_numpy(dtype=float))
    if "status" in df.columns:
        ok &= (df["status"].astype(str) == TrialStatus.OK.value).to_numpy()
    df = df.assign(value=df["value"].where(ok))
    keys = ["instance", "suite_run", "position"]
    t = df.groupby(keys, sort=True, as_index=False).agg(
        benchmark=("benchmark", "first"), version=("version", "first"), value=("value", "median")
    )
    prev = t.groupby(["instance", "suite_run"], sort=False)["benchmark"].shift(1)
    t["predecessor"] = prev.fillna(START).astype(str)
    return t


def _direction(effect_pct: float, higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return "higher" if effect_pct > 0 else "lower"
    better = (effect_pct > 0) == higher_is_better
    return "faster" if better else "slower"


def _higher_is_better(trials: pd.DataFrame) -> dict[str, bool | None]:
    if "higher_is_better" not in trials.columns:
        return {}
    hib = trials.groupby(trials["benchmark"].astype(str))["higher_is_better"].first()
    out: dict[str, bool | None] = {}
    for b, v in hib.items():
        s = str(v).strip().lower()
        out[str(b)] = True if s in {"true", "1", "yes"} else False if s in {"false", "0", "no"} else None
    return out


def _position_test(g: pd.DataFrame) -> dict[str, Any]:
    y = g["norm"].to_numpy(dtype=float)
    x = g["position"].to_numpy(dtype=float)
    if y.size < MIN_POSITION or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"p": None, "n": int(y.size), "note": f"needs ≥ {MIN_POSITION} trials at varying positions"}
    rho, p = stats.spearmanr(x, y)
    slope = np.polyfit(x, y, 1)[0]
    return {
        "rho": float(rho),
        "p": float(p),
        "effect_pct": float(slope * np.ptp(x) * 100.0),
        "n": int(y.size),
    }


def _predecessor_groups(g: pd.DataFrame) -> tuple[pd.Series, list[str]]:
    counts = g["predecessor"].value_counts()
    named = sorted(str(k) for k, n in counts.items() if n >= MIN_GROUP)
    grouped = g["predecessor"].where(g["predecessor"].isin(named), OTHER)
    return grouped, named


def _step_down(
    norm: np.ndarray, grp: np.ndarray, named: list[str], alpha: float
) -> dict[str, tuple[float, float]]:
    """Name the culprit predecessors: Holm step-down over "after X" vs the normal trials.

    "Not after X" would include the other culprits' trials: one strong culprit would then
    make every other group look shifted the opposite way. So at each step the group with the
    smallest Mann-Whitney p against the trials not yet attributed to a culprit is tested at
    Holm's level; once it is declared, its trials leave the reference. Returns
    {name: (p, p_adj)} for every group tested.
    """
    out: dict[str, tuple[float, float]] = {}
    culprits: list[str] = []
    prev_adj = 0.0
    m = len(named)
    while len(out) < m:
        normal = ~np.isin(grp, culprits)
        best: tuple[float, str] | None = None
        for name in named:
            if name in out:
                continue
            after = grp == name
            ref = norm[normal & ~after]
            if ref.size < MIN_GROUP or np.ptp(np.concatenate([ref, norm[after]])) == 0:
                continue
            p = float(stats.mannwhitneyu(norm[after], ref, alternative="two-sided").pvalue)
            if best is None or p < best[0]:
                best = (p, name)
        if best is None:
            break
        p, name = best
        adj = min(1.0, max(prev_adj, p * (m - len(out))))
        prev_adj = adj
        out[name] = (p, adj)
        if adj >= alpha:
            break
        culprits.append(name)
    return out


def analyze_carryover(trials: pd.DataFrame, alpha: float = 0.05) -> CarryoverResult:
    """Position and predecessor effects per benchmark (see the module docs)."""
    table = _trial_table(trials)
    if table is None:
        return CarryoverResult({}, {}, None)
    table = table.loc[table["value"].notna()]
    med = table.groupby(["benchmark", "version"])["value"].transform("median")
    table = table.assign(norm=table["value"] / med).loc[med > 0]
    hib = _higher_is_better(trials)

    benches: list[str] = []
    pos_res: list[dict[str, Any]] = []
    kw_res: list[dict[str, Any]] = []
    groups: list[tuple[pd.DataFrame, pd.Series, list[str]]] = []
    for bench, g in table.groupby("benchmark", sort=True):
        benches.append(str(bench))
        pos_res.append(_position_test(g))
        grouped, named = _predecessor_groups(g)
        sizes = grouped.value_counts()
        testable = [k for k, n in sizes.items() if n >= MIN_GROUP]
        if len(testable) >= 2 and named:
            samples = [g["norm"].to_numpy()[grouped.to_numpy() == k] for k in testable]
            pooled = np.concatenate(samples)
            if np.ptp(pooled) == 0:
                kw: dict[str, Any] = {"p": None, "n": int(pooled.size), "note": "all values identical"}
            else:
                h, p = stats.kruskal(*samples)
                kw = {"h": float(h), "p": float(p), "groups": len(testable), "n": int(pooled.size)}
        else:
            kw = {
                "p": None,
                "n": len(g),
                "note": f"needs ≥ 2 predecessor groups of ≥ {MIN_GROUP} trials (more suite runs)",
            }
        kw_res.append(kw)
        groups.append((g, grouped, named))

    pos_adj = holm(np.array([r["p"] if r["p"] is not None else np.nan for r in pos_res]))
    kw_adj = holm(np.array([r["p"] if r["p"] is not None else np.nan for r in kw_res]))

    per: dict[str, dict[str, Any]] = {}
    warns: dict[str, list[dict[str, str]]] = {}
    matrix_rows: dict[str, dict[str, float]] = {}
    for i, bench in enumerate(benches):
        g, grouped, named = groups[i]
        pos = dict(pos_res[i])
        pos["p_adj"] = None if math.isnan(pos_adj[i]) else float(pos_adj[i])
        pos["significant"] = bool(pos["p_adj"] is not None and pos["p_adj"] < alpha)
        kw = dict(kw_res[i])
        kw["p_adj"] = None if math.isnan(kw_adj[i]) else float(kw_adj[i])
        kw["significant"] = bool(kw["p_adj"] is not None and kw["p_adj"] < alpha)

        norm = g["norm"].to_numpy()
        grp = grouped.to_numpy()
        declared = _step_down(norm, grp, named, alpha) if kw["significant"] else {}
        normal = ~np.isin(grp, [n for n, v in declared.items() if v[1] < alpha])
        preds: list[dict[str, Any]] = []
        for name in named:
            after = grp == name
            ref = normal & ~after
            if not ref.any():
                continue
            base = float(np.median(norm[ref]))
            effect = (float(np.median(norm[after])) - base) / base * 100.0
            by_version = {}
            for v, gv in g.loc[after].groupby("version"):
                rv = g.loc[ref & (g["version"] == v).to_numpy(), "norm"]
                if len(rv):
                    bv = float(np.median(rv))
                    by_version[str(v)] = round((float(gv["norm"].median()) - bv) / bv * 100.0, 3)
            p_raw, p_adj = declared.get(name, (None, None))
            preds.append(
                {
                    "predecessor": name,
                    "effect_pct": effect,
                    "n": int(after.sum()),
                    "p": p_raw,
                    "p_adj": p_adj,
                    "significant": bool(p_adj is not None and p_adj < alpha),
                    "effect_pct_by_version": by_version,
                }
            )
            matrix_rows.setdefault(bench, {})[name] = effect
        preds.sort(key=lambda e: (not e["significant"], -abs(e["effect_pct"])))
        per[bench] = {"position": pos, "predecessor_test": kw, "predecessors": preds}

        hb = hib.get(bench)
        for e in preds:
            if not e["significant"]:
                continue
            where = (
                "as the first benchmark of a run"
                if e["predecessor"] == START
                else f"right after {e['predecessor']}"
            )
            warns.setdefault(bench, []).append(
                {
                    "code": "carryover",
                    "message": f"{bench} is {abs(e['effect_pct']):.1f}% {_direction(e['effect_pct'], hb)} {where} "
                    f"(Mann-Whitney, Holm-adjusted p = {e['p_adj']:.2g}, n = {e['n']})",
                    "action": (
                        "give each trial a warm start: add warm-up iterations or a throw-away first trial"
                        if e["predecessor"] == START
                        else f"reset state between benchmarks ([suite].reset), or make {e['predecessor']} clean up "
                        "what it leaves behind (files, caches, background threads, heat); RMIT randomisation "
                        "keeps the comparison fair meanwhile, but the noise it adds widens every CI"
                    ),
                }
            )
        if pos["significant"]:
            warns.setdefault(bench, []).append(
                {
                    "code": "position_drift",
                    "message": f"{bench} drifts with its position in the run: {pos['effect_pct']:+.1f}% from the "
                    f"first to the last position (Spearman ρ = {pos['rho']:.2f}, Holm-adjusted p = {pos['p_adj']:.2g})",
                    "action": "something builds up during a suite run (heat, memory, caches, disk): add a cool-down "
                    "or reset between trials, and check the runner for thermal throttling",
                }
            )

    matrix: dict[str, Any] | None = None
    if matrix_rows:
        rows = sorted(matrix_rows)
        if len(rows) > MATRIX_MAX_ROWS:
            rows = [b for b in rows if any(e["significant"] for e in per[b]["predecessors"])][
                :MATRIX_MAX_ROWS
            ]
        cols = sorted({p for b in rows for p in matrix_rows[b]}, key=lambda p: (p != START, p))
        if rows and cols:
            matrix = {
                "benchmarks": rows,
                "predecessors": cols,
                "effect_pct": [[matrix_rows[b].get(p) for p in cols] for b in rows],
            }
    return CarryoverResult(per_benchmark=per, warnings=warns, matrix=matrix)
