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
  and never named as a culprit. Culprits: Mann-Whitney U (normal approximation with tie and
  continuity correction, every group from one ranking) of "right after X" vs the trials not
  attributed to a culprit, Holm step-down within the benchmark and Bonferroni across the
  benchmarks that reach this stage (:func:`_step_down`), and only for benchmarks
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
* Suite level (``CarryoverResult.suite``): the same predecessor test with every benchmark
  pooled — "whatever runs right after X is faster" has n = all trials after X, so a leak that
  hits every follower (the demo's warm-start file) shows even when each benchmark alone has
  too few trials after X.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from gate.model import OrderType, TrialStatus
from gate.warning_codes import WarningCode

START = "(start of run)"
OTHER = "(other)"
MIN_GROUP = 5  # trials per predecessor group before it is tested or named
MIN_POSITION = 10  # trials before the position trend is tested
MATRIX_MAX_ROWS = 200
SUITE_MAX_GROUPS = 50  # suite-wide predecessors listed in full up to this many


@dataclass(frozen=True)
class CarryoverResult:
    per_benchmark: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    matrix: dict[str, Any] | None = None
    # Suite-wide predecessor effects: {"predecessor_test", "predecessors", "warnings"} or None.
    suite: dict[str, Any] | None = None


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


def trial_predecessors(trials: pd.DataFrame) -> pd.DataFrame | None:
    """``instance`` (as text), ``suite_run``, ``position`` and ``predecessor`` of every
    random-order trial, as this check sees them (for gate.analysis.carryover_exclusion)."""
    table = _trial_table(trials)
    return None if table is None else table[["instance", "suite_run", "position", "predecessor"]]


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


def _position_test(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Spearman trend of normalised values ``y`` over positions ``x``."""
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


def _predecessor_groups(pred: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Predecessor label per trial, groups smaller than MIN_GROUP pooled into OTHER."""
    uniq, inv, counts = np.unique(pred, return_inverse=True, return_counts=True)
    big = counts >= MIN_GROUP
    named = sorted(str(u) for u in uniq[big])
    grouped = np.where(big[inv], pred, OTHER)
    return grouped, named


def _mwu_each_vs_rest(values: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Two-sided Mann-Whitney p of every group (codes 0..n_groups-1; -1 = no group) against all
    other rows, from one ranking: normal approximation with tie and continuity correction
    (``scipy.stats.mannwhitneyu(method="asymptotic")``). NaN where untestable (a side with
    fewer than MIN_GROUP values, or no spread at all)."""
    n = values.size
    p = np.full(n_groups, np.nan)
    if n < 2 * MIN_GROUP:
        return p
    ranks = stats.rankdata(values)
    in_group = codes >= 0
    n1 = np.bincount(codes[in_group], minlength=n_groups).astype(float)
    r1 = np.bincount(codes[in_group], weights=ranks[in_group], minlength=n_groups)
    n2 = n - n1
    _, ties = np.unique(values, return_counts=True)
    tie_term = float(np.sum(ties.astype(float) ** 3 - ties)) / (n * (n - 1))
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term)
    ok = (n1 >= MIN_GROUP) & (n2 >= MIN_GROUP) & (var > 0)
    u = r1 - n1 * (n1 + 1) / 2.0
    z = np.zeros(n_groups)
    z[ok] = np.maximum(np.abs(u[ok] - n1[ok] * n2[ok] / 2.0) - 0.5, 0.0) / np.sqrt(var[ok])
    p[ok] = np.minimum(1.0, 2.0 * stats.norm.sf(z[ok]))
    return p


def _step_down(
    norm: np.ndarray, grp: np.ndarray, named: list[str], alpha: float, families: int = 1
) -> dict[str, tuple[float, float]]:
    """Name the culprit predecessors: Holm step-down over "after X" vs the normal trials.

    "Not after X" would include the other culprits' trials: one strong culprit would then
    make every other group look shifted the opposite way. So at each step the group with the
    smallest Mann-Whitney p against the trials not yet attributed to a culprit is tested at
    Holm's level; once it is declared, its trials leave the reference. Returns
    {name: (p, p_adj)} for every group tested. ``families`` = the number of benchmarks whose
    post-hoc tests run; p_adj is multiplied by it (Bonferroni across benchmarks on top of Holm
    within one), so the chance of naming a wrong culprit anywhere in the suite stays ≤ alpha.
    Each step ranks the reference once for all groups (:func:`_mwu_each_vs_rest`): the
    suite-wide test has a group per benchmark.
    """
    index = {name: i for i, name in enumerate(named)}
    codes = np.array([index.get(str(g), -1) for g in grp], dtype=np.int64)
    out: dict[str, tuple[float, float]] = {}
    culprit = np.zeros(len(named), dtype=bool)
    tested = np.zeros(len(named), dtype=bool)
    prev_adj = 0.0
    m = len(named)
    while len(out) < m:
        normal = ~culprit[codes] | (codes < 0)
        p = _mwu_each_vs_rest(norm[normal], codes[normal], len(named))
        p[tested] = np.nan
        if np.all(np.isnan(p)):
            break
        best = int(np.nanargmin(p))
        adj = min(1.0, max(prev_adj, float(p[best]) * (m - len(out)) * families))
        prev_adj = adj
        out[named[best]] = (float(p[best]), adj)
        tested[best] = True
        if adj >= alpha:
            break
        culprit[best] = True
    return out


def _kruskal(norm: np.ndarray, grp: np.ndarray, named: list[str]) -> dict[str, Any]:
    labels, sizes = np.unique(grp, return_counts=True)
    testable = [str(k) for k, n in zip(labels, sizes, strict=True) if n >= MIN_GROUP]
    if len(testable) < 2 or not named:
        return {
            "p": None,
            "n": int(norm.size),
            "note": f"needs ≥ 2 predecessor groups of ≥ {MIN_GROUP} trials (more suite runs)",
        }
    # one stable sort instead of one comparison of every trial per group (10,000 predecessors ×
    # 100,000 trials took minutes); each group keeps its trials in their original order
    order = np.argsort(grp, kind="stable")
    ordered = grp[order]
    first = np.searchsorted(ordered, labels, side="left")
    last = np.searchsorted(ordered, labels, side="right")
    by_label = {str(k): norm[order[a:b]] for k, a, b in zip(labels, first, last, strict=True)}
    samples = [by_label[k] for k in testable]
    pooled = np.concatenate(samples)
    if np.ptp(pooled) == 0:
        return {"p": None, "n": int(pooled.size), "note": "all values identical"}
    h, p = stats.kruskal(*samples)
    return {"h": float(h), "p": float(p), "groups": len(testable), "n": int(pooled.size)}


def _culprit_entries(
    norm: np.ndarray,
    grp: np.ndarray,
    ver: np.ndarray,
    named: list[str],
    kw_significant: bool,
    alpha: float,
    families: int,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    declared = _step_down(norm, grp, named, alpha, families) if kw_significant else {}
    culprits = [n for n, (_, adj) in declared.items() if adj < alpha]
    if limit is not None and len(named) > limit:
        # Suite-wide with many benchmarks: report what the step-down looked at (the culprits
        # and the first group that failed), not an effect for every benchmark.
        named = [n for n in named if n in declared]
    normal = ~np.isin(grp, culprits) if culprits else np.ones(grp.size, dtype=bool)
    versions = np.unique(ver)
    preds: list[dict[str, Any]] = []
    for name in named:
        after = grp == name
        ref = normal & ~after
        if not ref.any():
            continue
        base = float(np.median(norm[ref]))
        if base <= 0.0:
            continue  # a percentage of a zero (or negative) reference means nothing
        effect = (float(np.median(norm[after])) - base) / base * 100.0
        by_version = {}
        for v in versions:
            is_v = ver == v
            av, rv = norm[after & is_v], norm[ref & is_v]
            if av.size and rv.size:
                bv = float(np.median(rv))
                if bv > 0.0:
                    by_version[str(v)] = round((float(np.median(av)) - bv) / bv * 100.0, 3)
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
    preds.sort(key=lambda e: (not e["significant"], -abs(e["effect_pct"])))
    return preds


def _warnings_for(bench: str, entry: dict[str, Any], hb: bool | None) -> list[dict[str, str]]:
    out = []
    for e in entry["predecessors"]:
        if not e["significant"]:
            continue
        start = e["predecessor"] == START
        where = "as the first benchmark of a run" if start else f"right after {e['predecessor']}"
        out.append(
            {
                "code": WarningCode.CARRYOVER.value,
                "message": f"{bench} is {abs(e['effect_pct']):.1f}% {_direction(e['effect_pct'], hb)} {where} "
                f"(Mann-Whitney, Holm-adjusted p = {e['p_adj']:.2g}, n = {e['n']})",
                "action": (
                    "give each trial a warm start: add warm-up iterations or a throw-away first trial"
                    if start
                    else f"reset state between benchmarks ([suite].reset), or make {e['predecessor']} clean up "
                    "what it leaves behind (files, caches, background threads, heat); RMIT randomisation "
                    "keeps the comparison fair meanwhile, but the noise it adds widens every CI"
                ),
            }
        )
    pos = entry["position"]
    if pos["significant"]:
        out.append(
            {
                "code": WarningCode.POSITION_DRIFT.value,
                "message": f"{bench} drifts with its position in the run: {pos['effect_pct']:+.1f}% from the "
                f"first to the last position (Spearman ρ = {pos['rho']:.2f}, Holm-adjusted p = {pos['p_adj']:.2g})",
                "action": "something builds up during a suite run (heat, memory, caches, disk): add a cool-down "
                "or reset between trials, and check the runner for thermal throttling",
            }
        )
    return out


def _adjusted(res: dict[str, Any], adj: float, alpha: float) -> dict[str, Any]:
    out = dict(res)
    out["p_adj"] = None if math.isnan(adj) else float(adj)
    out["significant"] = bool(out["p_adj"] is not None and out["p_adj"] < alpha)
    return out


def _suite_test(
    table: pd.DataFrame, hib: dict[str, bool | None], alpha: float, n_benchmarks: int
) -> dict[str, Any] | None:
    """Does running right after X change *any* benchmark? All benchmarks pooled.

    A leak like the demo's warm-start file speeds up whatever runs next; per benchmark there
    are only a few trials after each predecessor, pooled there are many. Values are each
    benchmark's normalised values, inverted for higher-is-better benchmarks so that a
    negative effect always means faster.
    """
    if n_benchmarks < 2:
        return None
    flip = table["benchmark"].map(lambda b: hib.get(str(b)) is True).to_numpy(dtype=bool)
    norm: np.ndarray = table["norm"].to_numpy(dtype=float)
    inverse = np.divide(1.0, norm, out=np.full_like(norm, np.nan), where=norm > 0)
    norm = np.where(flip, inverse, norm)
    keep = np.isfinite(norm)
    norm = norm[keep]
    grp, named = _predecessor_groups(table["predecessor"].to_numpy(dtype=str)[keep])
    kw = _kruskal(norm, grp, named)
    kw = _adjusted(kw, kw["p"] if kw["p"] is not None else math.nan, alpha)
    # One family only, so no omnibus gate: the Holm step-down alone keeps the family-wise
    # error at alpha, and an omnibus test over many groups would dilute one strong culprit.
    preds = _culprit_entries(
        norm, grp, table["version"].to_numpy(dtype=str)[keep], named, True, alpha, 1, limit=SUITE_MAX_GROUPS
    )
    warnings = []
    for e in preds:
        if not e["significant"]:
            continue
        start = e["predecessor"] == START
        where = "that open a run" if start else f"right after {e['predecessor']}"
        warnings.append(
            {
                "code": WarningCode.CARRYOVER_SUITE.value,
                "message": f"trials {where} are {abs(e['effect_pct']):.1f}% "
                f"{'faster' if e['effect_pct'] < 0 else 'slower'} across all benchmarks "
                f"(Mann-Whitney, Holm-adjusted p = {e['p_adj']:.2g}, n = {e['n']})",
                "action": (
                    "give each trial a warm start: add warm-up iterations or a throw-away first trial"
                    if start
                    else f"{e['predecessor']} leaves state behind for whatever runs next (a cache, a file, "
                    "background work, heat): make it clean up, or reset between trials; RMIT spreads the "
                    "effect over both versions, so verdicts stay fair but every CI gets wider"
                ),
            }
        )
    return {"predecessor_test": kw, "predecessors": preds, "warnings": warnings}


def analyze_carryover(trials: pd.DataFrame, alpha: float = 0.05) -> CarryoverResult:
    """Position and predecessor effects per benchmark (see the module docs)."""
    table = _trial_table(trials)
    if table is None:
        return CarryoverResult({}, {}, None)
    table = table.loc[table["value"].notna()]
    med = table.groupby(["benchmark", "version"])["value"].transform("median")
    table = table.assign(norm=table["value"] / med).loc[med > 0]
    if table.empty:
        return CarryoverResult({}, {}, None)
    table = table.sort_values("benchmark", kind="stable")
    hib = _higher_is_better(trials)

    # Plain arrays sliced per benchmark: pandas per-group overhead would dominate on
    # thousands of benchmarks.
    bench_col = table["benchmark"].to_numpy(dtype=object)
    starts = np.flatnonzero(np.r_[True, bench_col[1:] != bench_col[:-1]])
    ends = np.r_[starts[1:], bench_col.size]
    norm_all = table["norm"].to_numpy(dtype=float)
    pos_all = table["position"].to_numpy(dtype=float)
    pred_all = table["predecessor"].to_numpy(dtype=str)
    ver_all = table["version"].to_numpy(dtype=str)

    benches = [str(bench_col[i]) for i in starts]
    pos_res: list[dict[str, Any]] = []
    kw_res: list[dict[str, Any]] = []
    groups: list[tuple[np.ndarray, list[str]]] = []
    for a, b in zip(starts, ends, strict=True):
        pos_res.append(_position_test(pos_all[a:b], norm_all[a:b]))
        grp, named = _predecessor_groups(pred_all[a:b])
        kw_res.append(_kruskal(norm_all[a:b], grp, named))
        groups.append((grp, named))

    pos_adj = holm(np.array([r["p"] if r["p"] is not None else np.nan for r in pos_res]))
    kw_adj = holm(np.array([r["p"] if r["p"] is not None else np.nan for r in kw_res]))

    per: dict[str, dict[str, Any]] = {}
    warns: dict[str, list[dict[str, str]]] = {}
    matrix_rows: dict[str, dict[str, float]] = {}
    kws = [_adjusted(r, adj, alpha) for r, adj in zip(kw_res, kw_adj, strict=True)]
    families = max(1, sum(k["significant"] for k in kws))
    for i, bench in enumerate(benches):
        a, b = starts[i], ends[i]
        grp, named = groups[i]
        kw = kws[i]
        preds = _culprit_entries(norm_all[a:b], grp, ver_all[a:b], named, kw["significant"], alpha, families)
        for e in preds:
            matrix_rows.setdefault(bench, {})[e["predecessor"]] = e["effect_pct"]
        entry = {
            "position": _adjusted(pos_res[i], pos_adj[i], alpha),
            "predecessor_test": kw,
            "predecessors": preds,
        }
        per[bench] = entry
        w = _warnings_for(bench, entry, hib.get(bench))
        if w:
            warns[bench] = w

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
    suite = _suite_test(table, hib, alpha, len(benches))
    return CarryoverResult(per_benchmark=per, warnings=warns, matrix=matrix, suite=suite)
