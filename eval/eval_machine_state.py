"""Does a covariate for the machine's state narrow the CIs of live runs? (issue 21, live (c);
docs/evaluation.md "Live, under a bursty CPU hog").

On a shared VM every benchmark's values move together in time (the host runs the vCPUs at two
speeds, other jobs add bursts). For each ok value take its residual r = log(value) minus the
median log of its (benchmark, version); the covariate of a value is the mean (or median) residual
of the K values nearest in time **of other benchmarks**. Under RMIT the version of each trial is
randomised within its suite run, so a covariate made only of other benchmarks' residuals is (to
first order) independent of the version, and regression adjustment on it keeps the comparison
unbiased and narrows it by as much as the covariate predicts (Freedman, "On regression
adjustments to experimental data", Adv. Appl. Math. 2008; Lin, "Agnostic notes on regression
adjustments to experimental data", Ann. Appl. Stat. 2013). The adjusted value is
exp(log(value) - beta * covariate), beta a pooled least-squares slope; the gate's own
``build_analysis`` then judges raw and adjusted logs alike.

Variants (``--variants``): ``raw``; ``sym:K`` (K nearest in time on both sides), ``past:K`` (only
earlier values: a later trial cannot carry this one's version over into the covariate),
``skip1:K`` (both sides but the value right after in time), each with ``/median`` for a median of
the neighbours' residuals instead of their mean, ``/run`` for neighbours of the same suite run,
``/pb`` for one slope per benchmark, ``/huber`` for a Huber slope, ``/qF`` for no adjustment but
only the values whose covariate is in the lowest share F (the machine's quiet moments).

    .venv/bin/python -m eval.eval_machine_state RUN_DIR... [--statistics median,p10,mean]
        [--variants raw,sym:8,past:8] [--resamples 2000] [--relabel N] [--randomisation] [--synthetic N]
        [--rows OUT.csv] [--predict-only]

``--relabel N`` also judges N re-dealings of every A/A log: both versions ran the same code, so
dealing the versions again at random within each (benchmark, suite run), trials kept whole, is
another A/A realisation of the same machine noise — a false-verdict rate from a few live logs.
``--randomisation`` gives every regression and improvement the p of that same dealing as a test
(:func:`randomisation_p`: RMIT's own randomisation, exact whatever the values' dependence in time).

A RUN_DIR is a folder with trials.csv + meta.json (``eval_live``'s ``CASE/run``, ``make demo``'s
``demo-output/run``); its truth comes from the path: ``/aa/`` A/A (every call false),
``/planted/`` the demo's ``tokenize`` slowed 10 %, ``demo`` the demo's head (ngrams slower,
wordfreq faster, the rest unchanged). ``--synthetic N`` adds N generated logs with a shared
two-speed machine state and bursts (:func:`synthetic_log`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import warnings
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import TrialLogs, load_trials
from gate.analysis.pipeline import build_analysis
from gate.commands.analyze import per_look_confidence
from gate.stats.quantile import harrell_davis, quantile_of

DEMO_TRUTH = {"ngrams": "regression", "wordfreq": "improvement"}


# ---- the covariate ------------------------------------------------------------------------------
def neighbour_covariate(
    t: np.ndarray,
    bench: np.ndarray,
    resid: np.ndarray,
    k: int,
    mode: str = "sym",
    agg: str = "mean",
    run: np.ndarray | None = None,
) -> np.ndarray:
    """For each value, the mean (``agg``) residual of the ``k`` values nearest in time ``t`` of
    other benchmarks (``mode``: ``sym`` both sides, ``past`` earlier only, ``skip1`` both sides but
    the next value in time); NaN where there are none. ``run``: only neighbours of the same run."""
    t = np.asarray(t, dtype=float)
    bench = np.asarray(bench, dtype=object)
    resid = np.asarray(resid, dtype=float)
    n = t.size
    order = np.argsort(t, kind="stable")
    ts, bs, rs = t[order], bench[order], resid[order]
    runs = run[order] if run is not None else None
    w = 4 * k + 4
    offsets = np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
    if mode == "past":
        offsets = offsets[offsets < 0]
    idx = np.arange(n)[:, None] + offsets[None, :]
    valid = (idx >= 0) & (idx < n)
    j = np.clip(idx, 0, n - 1)
    valid &= bs[j] != bs[:, None]
    if runs is not None:
        valid &= runs[j] == runs[:, None]
    if mode == "skip1":
        valid &= idx != np.arange(n)[:, None] + 1
    dist = np.where(valid, np.abs(ts[j] - ts[:, None]), np.inf)
    pick = np.argsort(dist, axis=1, kind="stable")[:, :k]
    chosen = np.take_along_axis(j, pick, axis=1)
    ok = np.take_along_axis(valid, pick, axis=1)
    vals = np.where(ok, rs[chosen], np.nan)
    with warnings.catch_warnings():  # a value without neighbours gets NaN, said by the docstring
        warnings.simplefilter("ignore", RuntimeWarning)
        m = np.nanmedian(vals, axis=1) if agg == "median" else np.nanmean(vals, axis=1)
    out = np.full(n, np.nan)
    out[order] = m
    return out


def parse_variant(spec: str) -> dict[str, Any]:
    if spec == "raw":
        return {"name": "raw"}
    parts = spec.split("/")
    mode, k = parts[0].split(":")
    return {
        "name": spec,
        "mode": mode,
        "k": int(k),
        "agg": "median" if "median" in parts[1:] else "mean",
        "same_run": "run" in parts[1:],
        "per_bench": "pb" in parts[1:],
        "huber": "huber" in parts[1:],
        # keep only the values whose covariate lies in the lowest ``quiet`` share (the machine's
        # quiet moments: a subgroup defined by other benchmarks only), unadjusted
        "quiet": next((float(x[1:]) for x in parts[1:] if x.startswith("q")), None),
    }


def adjust_frame(frame: pd.DataFrame, variant: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, float]]:
    """``frame`` (load_trials' rows) with ok values adjusted for the neighbours' residuals."""
    if variant["name"] == "raw":
        return frame, {}
    ok = (frame["kind"] == "ok").to_numpy()
    sub = frame.loc[ok]
    t = pd.to_datetime(sub["started_at"], utc=True, errors="coerce", format="ISO8601")
    if t.isna().any():
        return frame, {"skipped": 1.0}
    tt = (t - t.min()).dt.total_seconds().to_numpy() + 1e-6 * sub.get(
        "measurement", pd.Series(0, index=sub.index)
    ).to_numpy(dtype=float)
    lv = np.log(sub["value"].to_numpy(dtype=float))
    keys = sub["benchmark"].astype(str) + "\x00" + sub["version"].astype(str)
    med = pd.Series(lv, index=sub.index).groupby(keys.to_numpy()).transform("median").to_numpy()
    r = lv - med
    run = None
    if variant["same_run"] and "suite_run" in sub.columns:
        run = (sub["source"].astype(str) + ":" + sub["suite_run"].astype(str)).to_numpy()
    m = neighbour_covariate(
        tt, sub["benchmark"].astype(str).to_numpy(), r, variant["k"], variant["mode"], variant["agg"], run
    )
    has = np.isfinite(m)
    if variant.get("quiet") is not None:
        cut = np.nanquantile(m, variant["quiet"])
        drop = sub.index[~(has & (m <= cut))]
        return frame.drop(index=drop), {"corr": float(np.corrcoef(r[has], m[has])[0, 1]), "beta": 0.0}
    if variant.get("per_bench"):
        beta = np.zeros(len(m))
        for b in np.unique(sub["benchmark"].astype(str)):
            sel = has & (sub["benchmark"].astype(str).to_numpy() == b)
            beta[sel] = float(np.sum(r[sel] * m[sel]) / np.sum(m[sel] ** 2)) if sel.sum() > 2 else 0.0
        b0 = float(np.nan)
    elif variant.get("huber"):
        b0 = huber_slope(r[has], m[has])
        beta = np.full(len(m), b0)
    else:
        b0 = float(np.sum(r[has] * m[has]) / np.sum(m[has] ** 2))
        beta = np.full(len(m), b0)
    adj = np.where(has, lv - beta * np.nan_to_num(m), lv)
    out = frame.copy()
    out.loc[ok, "value"] = np.exp(adj)
    corr = float(np.corrcoef(r[has], m[has])[0, 1])
    return out, {"beta": b0, "corr": corr}


def huber_slope(y: np.ndarray, x: np.ndarray, c: float = 1.345, steps: int = 50) -> float:
    """Slope through the origin by Huber's M-estimator (iteratively reweighted least squares,
    scale by the MAD of the residuals; Huber, Robust Statistics, 1981)."""
    b = float(np.sum(x * y) / np.sum(x * x))
    for _ in range(steps):
        e = y - b * x
        s = 1.4826 * float(np.median(np.abs(e - np.median(e)))) or 1e-12
        w = np.minimum(1.0, c * s / np.maximum(np.abs(e), 1e-300))
        nb = float(np.sum(w * x * y) / np.sum(w * x * x))
        if abs(nb - b) < 1e-9:
            return nb
        b = nb
    return b


def relabel(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """An A/A log with the versions dealt again at random within each (benchmark, suite run),
    counts kept: both versions ran the same code, so every dealing is another A/A realisation."""
    out = frame.copy()
    keys = ["benchmark", "suite_run"] if "suite_run" in out.columns else ["benchmark"]
    unit = "trial" if "trial" in out.columns else None
    for _, g in out.groupby(keys, sort=False):
        if unit is None:
            out.loc[g.index, "version"] = rng.permutation(g["version"].to_numpy())
            continue
        first = g.drop_duplicates(unit)
        dealt = dict(zip(first[unit], rng.permutation(first["version"].to_numpy()), strict=True))
        out.loc[g.index, "version"] = g[unit].map(dealt).to_numpy()
    return out


# ---- synthetic logs -----------------------------------------------------------------------------
def synthetic_log(
    path: Path,
    seed: int,
    *,
    benchmarks: int = 6,
    suite_runs: int = 3,
    iterations: int = 5,
    planted: float = 0.0,
    trial_s: float = 0.15,
    slow_factor: float = 1.5,
    mean_state_s: float = 3.0,
    burst_rate: float = 0.3,
    noise: float = 0.03,
) -> dict[str, str]:
    """A trial log like the demo's (one value per trial, base and head shuffled per suite run)
    whose values share a machine state: a two-speed Markov process (``slow_factor`` apart,
    exponential holding times of mean ``mean_state_s``) plus bursts (each trial hit with
    probability ``burst_rate`` by a slowdown of 1.1-2x, shared by the trials within 0.5 s).
    ``planted``: bench0's head is that much slower. Returns the truth per benchmark."""
    rng = np.random.default_rng(seed)
    rows = []
    t = 0.0
    # the machine state over the whole run
    horizon = benchmarks * 2 * suite_runs * iterations * trial_s * 1.5 + 10
    switches, state, s = [0.0], [int(rng.integers(2))], 0.0
    while s < horizon:
        s += rng.exponential(mean_state_s)
        switches.append(s)
        state.append(1 - state[-1])
    bursts = np.sort(rng.uniform(0, horizon, int(burst_rate * horizon / 0.5)))
    burst_size = rng.uniform(0.1, 0.7, bursts.size)
    base_cost = np.exp(rng.uniform(np.log(0.03), np.log(0.2), benchmarks))
    trial = 0
    for run in range(1, suite_runs + 1):
        order = [(b, v) for b in range(benchmarks) for v in ("base", "head") for _ in range(iterations)]
        rng.shuffle(order)
        for pos, (b, v) in enumerate(order, 1):
            trial += 1
            st = state[int(np.searchsorted(switches, t, side="right")) - 1]
            near = np.abs(bursts - t) < 0.25
            lv = np.log(base_cost[b]) + st * np.log(slow_factor) + np.sum(np.log1p(burst_size[near]))
            lv += rng.normal(0, noise) + (np.log1p(planted) if (b == 0 and v == "head") else 0.0)
            value = float(np.exp(lv))
            rows.append(
                {
                    "trial": trial,
                    "benchmark": f"bench{b}",
                    "version": v,
                    "instance": "syn",
                    "suite_run": run,
                    "order_type": "random",
                    "position": pos,
                    "iteration": 1,
                    "measurement": 1,
                    "value": f"{value:.6g}",
                    "unit": "s",
                    "higher_is_better": "false",
                    "status": "ok",
                    "reason": "",
                    "started_at": (pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(seconds=t))
                    .isoformat()
                    .replace("+00:00", "Z"),
                    "elapsed_s": f"{value:.6g}",
                    "config": "full",
                    "round": 0,
                }
            )
            t += value + 0.02
    path.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path / "trials.csv", index=False)
    return {"bench0": "regression"} if planted else {}


# ---- evaluation ---------------------------------------------------------------------------------
def truth_of(run_dir: Path) -> tuple[str, dict[str, str]]:
    """The case of an eval_live or demo run folder, with the hog in its path (``live_hN``)."""
    s = str(run_dir.resolve()) + "/"
    hog = re.search(r"_h(\d+)[_/]", s)
    where = f" (hog {hog.group(1)})" if hog else ""
    if "/aa/" in s:
        return "aa" + where, {}
    if "/planted/" in s:
        return "planted" + where, {"tokenize": "regression"}
    if "demo" in s:
        return "demo" + where, dict(DEMO_TRUTH)
    raise SystemExit(
        f"error: cannot tell the truth of {run_dir}; fix: pass eval_live's CASE/run or demo's run"
    )


def summarise(values: np.ndarray, statistic: str) -> float:
    """The statistic the gate decides by, on one version's values (pNN: Harrell–Davis)."""
    q = quantile_of(statistic)
    if q is not None:
        return float(harrell_davis(values, q))
    return float(np.mean(values) if statistic == "mean" else np.median(values))


def randomisation_p(
    frame: pd.DataFrame, benchmark: str, base: str, head: str, statistic: str, dealings: int = 4000
) -> float:
    """Two-sided p of the log change of ``statistic`` against its distribution when the versions
    are dealt again at random within each suite run, trials whole: the randomisation RMIT itself
    makes, so the test holds whatever the values' dependence in time (exact under the sharp null)."""
    g = frame.loc[
        (frame["benchmark"] == benchmark) & (frame["kind"] == "ok") & frame["version"].isin([base, head])
    ]
    rng = np.random.default_rng(3)
    values = g["value"].to_numpy(dtype=float)
    unit = g["trial"].to_numpy() if "trial" in g.columns else np.arange(len(g))
    _, first, of_value = np.unique(unit, return_index=True, return_inverse=True)
    unit_head = (g["version"].to_numpy() == head)[first]
    stratum = g["suite_run"].to_numpy()[first] if "suite_run" in g.columns else np.zeros(first.size)
    strata = [np.flatnonzero(stratum == s) for s in np.unique(stratum)]

    def change(is_head: np.ndarray) -> float:
        return abs(np.log(summarise(values[is_head], statistic) / summarise(values[~is_head], statistic)))

    observed = change(unit_head[of_value])
    hits = 0
    for _ in range(dealings):
        dealt = unit_head.copy()
        for idx in strata:
            dealt[idx] = rng.permutation(unit_head[idx])
        hits += change(dealt[of_value]) >= observed - 1e-12
    return (hits + 1) / (dealings + 1)


def judge(logs: TrialLogs, statistic: str, resamples: int, base: str | None, head: str | None) -> dict:
    settings = AnalysisSettings(
        statistic=statistic,
        resamples=resamples,
        confidence=per_look_confidence(logs.metas) or 0.99,
        tail_statistic="",
    )
    return build_analysis(logs, base=base, head=head, settings=settings, created_at="2026-01-01T00:00:00Z")


def evaluate(
    cases: list[tuple[str, str, Path, dict[str, str], str | None, str | None]],
    statistics: list[str],
    variants: list[str],
    resamples: int,
    relabels: int = 0,
    randomise: bool = False,
) -> list[dict[str, Any]]:
    rows = []
    expanded = []
    for label, kind, path, truth, base, head in cases:
        logs = load_trials([path / "trials.csv"])
        expanded.append((label, kind, logs, truth, base, head))
        if kind.startswith(("aa", "syn-aa")):
            rng = np.random.default_rng(7)
            for i in range(relabels):
                dealt = replace(logs, frame=relabel(logs.frame, rng))
                expanded.append((f"{label}#relabel{i}", kind + " re-dealt", dealt, truth, base, head))
    for label, kind, logs, truth, base, head in expanded:
        for spec in variants:
            frame, info = adjust_frame(logs.frame, parse_variant(spec))
            adj = replace(logs, frame=frame)
            for stat in statistics:
                doc = judge(adj, stat, resamples, base, head)
                for b in doc["benchmarks"]:
                    want = truth.get(b["benchmark"], "unchanged")
                    v = b["verdict"]
                    lo, hi = b["change_ci"] or (np.nan, np.nan)
                    called = v in ("regression", "improvement")
                    perm = (
                        randomisation_p(frame, b["benchmark"], doc["base"], doc["head"], stat)
                        if called and randomise
                        else np.nan
                    )
                    rows.append(
                        {
                            "case": label,
                            "kind": kind,
                            "variant": spec,
                            "statistic": stat,
                            "benchmark": b["benchmark"],
                            "truth": want,
                            "verdict": v,
                            "false": v in ("regression", "improvement") and v != want,
                            "hit": v == want,
                            "change": b["change_pct"],
                            "halfwidth": (hi - lo) / 2 if lo is not None and hi is not None else np.nan,
                            "beta": info.get("beta"),
                            "corr": info.get("corr"),
                            "randomisation_p": perm,
                        }
                    )
    return rows


def predictiveness(cases: list[tuple[str, str, Path]], variants: list[str]) -> str:
    """How much of the values' spread the covariate explains, per condition (no bootstrap):
    median over logs of corr(r, covariate) and of the residual spread after / before (SD, MAD)."""
    out = []
    for _, kind, path in cases:
        frame = load_trials([path / "trials.csv"]).frame
        ok = frame.loc[frame["kind"] == "ok"]
        lv = np.log(ok["value"].to_numpy(dtype=float))
        keys = (ok["benchmark"].astype(str) + "\x00" + ok["version"].astype(str)).to_numpy()
        before = lv - pd.Series(lv).groupby(keys).transform("median").to_numpy()
        for spec in variants:
            if spec == "raw":
                continue
            adjusted, info = adjust_frame(frame, parse_variant(spec))
            a = adjusted.loc[adjusted["kind"] == "ok"]
            la = np.log(a["value"].to_numpy(dtype=float))
            after = la - pd.Series(la).groupby(keys).transform("median").to_numpy()

            def mad(x: np.ndarray) -> float:
                return float(np.median(np.abs(x - np.median(x))))

            cond = kind.split(" (")[1].rstrip(")") if " (" in kind else kind
            out.append(
                {
                    "condition": cond,
                    "variant": spec,
                    "corr": info.get("corr", np.nan),
                    "beta": info.get("beta", np.nan),
                    "sd": after.std() / before.std(),
                    "mad": mad(after) / mad(before),
                }
            )
    df = pd.DataFrame(out)
    lines = [
        "| condition | neighbours | logs | corr(r, covariate) | slope | SD after/before | MAD after/before |",
        "|---|---|---|---|---|---|---|",
    ]
    for (cond, spec), g in df.groupby(["condition", "variant"], sort=False):
        med = g.median(numeric_only=True)
        lines.append(
            f"| {cond} | {spec} | {len(g)} | {med['corr']:.2f} | {med['beta']:.2f} | {med['sd']:.2f} | {med['mad']:.2f} |"
        )
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> str:
    df = pd.DataFrame(rows)
    out = [
        "| statistic | variant | logs | A/A unchanged | false verdicts | true changes called | "
        "CI half-width (median) | corr r~m |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (stat, var), g in df.groupby(["statistic", "variant"], sort=False):
        null = g[g.truth == "unchanged"]
        real = g[g.truth != "unchanged"]
        corr = g.drop_duplicates("case")["corr"].dropna()
        out.append(
            f"| {stat} | {var} | {g.case.nunique()} | {100 * (null.verdict == 'unchanged').mean():.0f} % "
            f"({(null.verdict == 'unchanged').sum()}/{len(null)}) | {int(g['false'].sum())} | "
            f"{int(real.hit.sum())}/{len(real)} | ±{np.nanmedian(g.halfwidth):.1f} % | "
            f"{corr.median() if len(corr) else float('nan'):.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="*", type=Path, help="run folders (trials.csv + meta.json)")
    p.add_argument("--statistics", default="median,p10,mean")
    p.add_argument("--variants", default="raw,sym:8,past:8,skip1:8")
    p.add_argument("--resamples", type=int, default=2000)
    p.add_argument("--synthetic", type=int, default=0, help="add this many synthetic A/A and planted logs")
    p.add_argument("--synthetic-planted", type=float, default=0.10)
    p.add_argument(
        "--relabel", type=int, default=0, help="also judge this many A/A re-dealings of each A/A log"
    )
    p.add_argument(
        "--randomisation",
        action="store_true",
        help="give every regression/improvement the p of RMIT's own randomisation test (slow)",
    )
    p.add_argument(
        "--predict-only", action="store_true", help="only the covariate's predictiveness per condition (fast)"
    )
    p.add_argument("--rows", type=Path, help="also write every verdict as CSV here")
    args = p.parse_args(argv)
    cases: list[tuple[str, str, Path, dict[str, str], str | None, str | None]] = []
    for run in args.runs:
        if not (run / "trials.csv").is_file():
            raise SystemExit(f"error: {run} has no trials.csv; fix: pass a run folder")
        kind, truth = truth_of(run)
        cases.append((str(run), kind, run, truth, None, None))
    if args.predict_only:
        print(predictiveness([(c[0], c[1], c[2]) for c in cases], args.variants.split(",")))
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="eval-machine-state-"))
    for i in range(args.synthetic):
        for kind, planted in (("syn-aa", 0.0), ("syn-planted", args.synthetic_planted)):
            path = tmp / f"{kind}{i}"
            truth = synthetic_log(path, (1000 if planted == 0 else 5000) + i, planted=planted)
            cases.append((str(path), kind, path, truth, "base", "head"))
    rows = evaluate(
        cases,
        args.statistics.split(","),
        args.variants.split(","),
        args.resamples,
        args.relabel,
        args.randomisation,
    )
    if args.rows:
        pd.DataFrame(rows).to_csv(args.rows, index=False)
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    for kind, rs in by_kind.items():
        print(f"\n### {kind}\n")
        print(summary(rs))
    if args.randomisation:
        print("\n### regressions and improvements, with the p of the randomisation test within suite runs\n")
        for r in rows:
            if r["verdict"] in ("regression", "improvement"):
                what = "false" if r["false"] else "true"
                print(
                    f"{r['case']} {r['variant']} {r['statistic']} {r['benchmark']}: {r['verdict']} "
                    f"({what}) {r['change']:+.1f} %, p = {r['randomisation_p']:.4f}"
                )
    print(json.dumps({"logs": len(cases)}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
