"""Order-dependence check (OrderSage, ATC'23 §3 Algorithms 1 and 2) → order-check JSON.

Two entry points produce the same dict (docs/contracts.md, "order-check JSON"):

* :func:`order_check_frame` on OrderSage's tidy schema
  ``experiment, run_index, order_type, position_in_run, test, value``;
* :func:`order_check_from_trials` on the gate's own trial log written by
  ``run --order-check`` (fixed and random suite runs alternate).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gate.errors import InputError
from gate.model import ORDER_CHECK_SCHEMA, OrderType, TrialStatus, warning
from gate.stats.median_ci import min_values
from gate.stats.order import ci_case, delta_pct, kruskal_eta2, median_ci
from gate.warning_codes import WarningCode

TIDY_COLUMNS: tuple[str, ...] = ("experiment", "run_index", "order_type", "position_in_run", "test", "value")
_ORDER_TYPES = {OrderType.FIXED.value, OrderType.RANDOM.value}


def _num(x: float) -> float | None:
    """JSON-safe float: NaN/inf become null."""
    return None if x is None or not math.isfinite(x) else float(x)


def check_tidy_columns(columns: Sequence[str]) -> None:
    """Raises :class:`InputError` naming the tidy columns ``columns`` lacks."""
    missing = [c for c in TIDY_COLUMNS if c not in columns]
    if missing:
        raise InputError(
            f"order-check input lacks column(s) {', '.join(missing)} (has: {', '.join(map(str, columns))})",
            fix="give a CSV with columns experiment, run_index, order_type, position_in_run, test, value "
            "(OrderSage's tidy schema) or a trial log written by `ordertrap-gate run --order-check`",
        )


def read_tidy(paths: Sequence[Path]) -> pd.DataFrame:
    """OrderSage's tidy CSV files (a third-party format, not a trial log), concatenated, with the
    column types pandas infers, as OrderSage's own scripts read them. The gate's trial logs are
    read by :func:`gate.files.trial_log.read_rows` instead; ``order-check`` tells them apart by
    the header."""
    frames = []
    for path in paths:
        try:
            frames.append(pd.read_csv(path))
        except FileNotFoundError as exc:
            raise InputError(f"{path}: no such file", fix="pass the path of an existing CSV file") from exc
        except pd.errors.EmptyDataError as exc:
            raise InputError(f"{path} is empty", fix="run the suite first, or pass the right file") from exc
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputError(f"{path} is not a readable CSV file: {exc}", fix="pass a CSV file") from exc
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _validate_tidy(df: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, str]]]:
    check_tidy_columns(list(df.columns))
    if df.empty:
        raise InputError("order-check input has no rows", fix="run the suite in fixed and random order first")
    out = df.loc[:, list(TIDY_COLUMNS)].copy()
    warnings: list[dict[str, str]] = []
    raw = out["value"].astype(object)
    values = pd.to_numeric(raw, errors="coerce").astype(float)
    bad_text = values.isna() & raw.notna() & (raw.astype(str).str.strip() != "")
    if bad_text.any():
        rows = list(out.index[bad_text][:5])
        examples = ", ".join(repr(raw.loc[i]) for i in rows)
        raise InputError(
            f"order-check: {int(bad_text.sum())} non-numeric value(s) in column 'value' "
            f"(data rows {', '.join(str(int(i) + 2) for i in rows)} of the CSV: {examples})",
            fix="write plain numbers in 'value' (no units, no thousands separators); leave failed trials empty",
        )
    inf = np.isinf(values.to_numpy(dtype=float))
    if inf.any():
        raise InputError(
            f"order-check: {int(inf.sum())} infinite value(s) in column 'value'",
            fix="remove the trials whose benchmark printed inf or mark them failed (empty value)",
        )
    empty = values.isna()
    if empty.any():
        warnings.append(
            warning(
                WarningCode.EMPTY_VALUES,
                f"{int(empty.sum())} row(s) have an empty value and were left out",
                "check why those trials produced no value (failed runs?) and re-run them if many are missing",
            )
        )
    out["value"] = values
    out = out.loc[~empty]
    order = out["order_type"].astype(str).str.strip().str.lower()
    unknown = sorted(set(order) - _ORDER_TYPES)
    if unknown:
        raise InputError(
            f"order-check: unknown order_type value(s) {', '.join(map(repr, unknown))}",
            fix="use 'fixed' for baseline-order runs and 'random' for randomly permuted runs",
        )
    out["order_type"] = order
    out["experiment"] = out["experiment"].astype(str)
    out["test"] = out["test"].astype(str)
    for exp, sub in out.groupby("experiment", sort=False):
        kinds = set(sub["order_type"])
        if kinds != _ORDER_TYPES:
            only = next(iter(kinds)) if kinds else "none"
            raise InputError(
                f"order-check: experiment {exp!r} has only {only}-order runs; the test compares fixed- "
                "against random-order runs",
                fix="run the suite in both orders (`ordertrap-gate run --order-check` alternates fixed "
                "and random suite runs), or drop this experiment",
            )
    return out, warnings


def _test_entry(test: str, fixed: np.ndarray, random: np.ndarray, alpha_bc: float) -> dict[str, Any]:
    kw = kruskal_eta2(fixed, random)
    confidence = 1.0 - alpha_bc
    f = median_ci(fixed, confidence)
    r = median_ci(random, confidence)
    significant = bool(not math.isnan(kw.p) and kw.p < alpha_bc)
    return {
        "test": test,
        "n_fixed": int(fixed.size),
        "n_random": int(random.size),
        "kw_h": _num(kw.h),
        "kw_p": _num(kw.p),
        "eta2": _num(kw.eta2),
        "delta_pct": _num(delta_pct(fixed, random)),
        "alpha_bc": alpha_bc,
        "significant": significant,
        "fixed_median": _num(f[0]),
        "fixed_ci_low": _num(f[1]),
        "fixed_ci_high": _num(f[2]),
        "random_median": _num(r[0]),
        "random_ci_low": _num(r[1]),
        "random_ci_high": _num(r[2]),
        "ci_case": ci_case(f, r),
    }


def _experiment(name: str, sub: pd.DataFrame, alpha: float) -> dict[str, Any]:
    tests = list(dict.fromkeys(sub["test"]))  # first-appearance order, like the input
    # Bonferroni over the experiment's tests (Algorithm 1, line 14).
    alpha_bc = alpha / len(tests)
    entries: list[dict[str, Any]] = []
    warnings: list[dict[str, str]] = []
    by_test = {t: g for t, g in sub.groupby("test", sort=False)}
    for t in tests:
        g = by_test[t]
        fixed = g.loc[g["order_type"] == OrderType.FIXED.value, "value"].to_numpy(dtype=float)
        random = g.loc[g["order_type"] == OrderType.RANDOM.value, "value"].to_numpy(dtype=float)
        entry = _test_entry(t, fixed, random, alpha_bc)
        if entry["kw_p"] is None:
            reason = (
                "it has no fixed- or no random-order values"
                if fixed.size == 0 or random.size == 0
                else "all its values are identical"
            )
            warnings.append(
                warning(
                    WarningCode.ORDER_UNTESTABLE,
                    f"{t}: the order test is undefined because {reason}",
                    "check that the benchmark reports a real measurement in both orders",
                )
            )
        elif entry["ci_case"] is None:
            needed = min_values(1 - alpha_bc)
            warnings.append(
                warning(
                    WarningCode.MEDIAN_CI_UNDEFINED,
                    f"{t}: too few values ({fixed.size} fixed, {random.size} random) for a "
                    f"{(1 - alpha_bc) * 100:.2f} % median interval, so no CI-overlap case; it "
                    f"needs {needed} values per order type (Bonferroni over {len(tests)} benchmarks)",
                    f"record {needed} or more (fixed, random) run pairs: `ordertrap-gate run "
                    f"--order-check --order-pairs {needed}` (each pair gives every benchmark one "
                    "fixed- and one random-order value per version; add pairs for trials that fail)",
                )
            )
        entries.append(entry)
    result: dict[str, Any] = {
        "experiment": name,
        "alpha": alpha,
        "alpha_bc": alpha_bc,
        # Order matters for the experiment if it matters for one test (Algorithm 1, lines 15-16).
        "order_matters": any(e["significant"] for e in entries),
        "tests": entries,
    }
    if warnings:
        result["warnings"] = warnings
    return result


def _check_alpha(alpha: float) -> None:
    if not (0.0 < alpha < 1.0):
        raise InputError(f"alpha must be between 0 and 1, got {alpha}", fix="pass e.g. --alpha 0.05")


def order_check_frame(df: pd.DataFrame, alpha: float = 0.05) -> dict[str, Any]:
    """Order-dependence test per experiment on OrderSage's tidy schema (see module docs).

    Raises :class:`~gate.errors.InputError` for missing columns, non-numeric values, unknown
    order types, or an experiment with only one order type.
    """
    _check_alpha(alpha)
    tidy, warnings = _validate_tidy(df)
    experiments = [_experiment(str(name), sub, alpha) for name, sub in tidy.groupby("experiment", sort=False)]
    out: dict[str, Any] = {"schema_version": ORDER_CHECK_SCHEMA, "experiments": experiments}
    if warnings:
        out["warnings"] = warnings
    return out


def trials_to_tidy(trials: pd.DataFrame) -> pd.DataFrame:
    """Map the gate's trial log onto the tidy schema: one value per trial (ok rows only).

    A trial with several measurements contributes its median: OrderSage's samples are trials
    (one result per trial, §3 step 3), and the measurements inside one process are not
    independent of each other. experiment = version, or ``version@instance`` when the log
    has several instances; run_index = suite_run; test = benchmark.
    """
    required = ("benchmark", "version", "order_type", "value")
    missing = [c for c in required if c not in trials.columns]
    if missing:
        raise InputError(
            f"trial log lacks column(s) {', '.join(missing)}",
            fix="give a trial log written by `ordertrap-gate run --order-check`",
        )
    df = trials
    if "status" in df.columns:
        df = df.loc[df["status"].astype(str) == TrialStatus.OK.value]
    df = df.assign(value=pd.to_numeric(df["value"], errors="coerce"))
    df = df.loc[np.isfinite(df["value"].to_numpy(dtype=float))]
    instance = df["instance"].astype(str) if "instance" in df.columns else pd.Series("", index=df.index)
    several = instance.nunique() > 1
    experiment = df["version"].astype(str) + ("@" + instance if several else "")
    trial_key = df["trial"] if "trial" in df.columns else df["position"] if "position" in df.columns else None
    keyed = pd.DataFrame(
        {
            "experiment": experiment,
            "instance": instance,
            "run_index": df["suite_run"] if "suite_run" in df.columns else 0,
            "order_type": df["order_type"].astype(str).str.strip().str.lower(),
            "position_in_run": df["position"] if "position" in df.columns else 0,
            "test": df["benchmark"].astype(str),
            "trial": trial_key if trial_key is not None else np.arange(len(df)),
            "value": df["value"],
        }
    )
    tidy = keyed.groupby(
        ["experiment", "instance", "run_index", "trial", "order_type", "position_in_run", "test"],
        sort=False,
        as_index=False,
    )["value"].median()
    return pd.DataFrame(tidy.loc[:, list(TIDY_COLUMNS)])


def order_check_from_trials(trials: pd.DataFrame, alpha: float = 0.05) -> dict[str, Any] | None:
    """Order check on a gate trial log; None when the log has no fixed-order runs.

    Experiments (versions, or version@instance) lacking one of the two order types are left
    out with a warning instead of failing the whole analysis.
    """
    if "order_type" not in trials.columns:
        return None
    if not (trials["order_type"].astype(str).str.strip().str.lower() == OrderType.FIXED.value).any():
        return None
    tidy = trials_to_tidy(trials)
    warnings: list[dict[str, str]] = []
    keep = []
    for exp, sub in tidy.groupby("experiment", sort=False):
        if set(sub["order_type"]) == _ORDER_TYPES:
            keep.append(exp)
        else:
            warnings.append(
                warning(
                    WarningCode.ORDER_CHECK_INCOMPLETE,
                    f"{exp}: only {', '.join(sorted(set(sub['order_type'])))}-order ok trials, so no "
                    "fixed-vs-random order test",
                    "run `ordertrap-gate run --order-check` long enough to finish both fixed and random "
                    "suite runs, and fix failing trials",
                )
            )
    if not keep:
        return {"schema_version": ORDER_CHECK_SCHEMA, "experiments": [], "warnings": warnings}
    result = order_check_frame(tidy.loc[tidy["experiment"].isin(keep)], alpha=alpha)
    if warnings:
        result["warnings"] = result.get("warnings", []) + warnings
    return result
