"""µOpTime calibration: per benchmark, the cheapest execution configuration that is still stable.

Japke et al., "µOpTime", TOSEM 2025 (../shared/papers/004_*.txt): §3.1 Algorithm 1 (search),
§3.2 (use in CI), §4.4 RQ3 (warm-up), §4.5 RQ4 (change detection with the minimal
configurations), §5 (the full configuration may itself be insufficient). The exact semantics of
the authors' optimiser are fixed in ../shared/data/README.md "uoptime_go" and matched here:

* a configuration gives every level a count from 1 to its maximum, and the outer levels'
  product (suite_runs·iterations) must be ≥ 3; it keeps the measurements whose positions are
  within every level's count;
* stable means metric < threshold (strictly); the cheapest stable configuration wins, ties go
  to the lower metric value and then to enumeration order (innermost level varying fastest);
  nothing stable → the full configuration, flagged ``never_stable``.

Where the product deliberately differs: RCIW3 uses the median's own bootstrap CI (the prototype
divides the mean's CI width by the median); bootstrap-t resamples without a standard error give
an unbounded interval (the prototype floors the deviation at 1e-6 in the data's unit); a
configuration with gaps is judged on its observed values and needs at least 3 of them.

Speed: the search walks configurations in cost order and stops at the first cost at which a
configuration is stable (Algorithm 1 evaluates all of them). Every configuration's metric
depends only on its values and a :class:`~gate.stats.stability.BootstrapPlan` drawn once from
one seeded stream, so the result is identical to the exhaustive search (``exhaustive=True``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gate.analysis.compare import Sample, Settings, compare_many
from gate.analysis.load import cut_off_last_line, read_csv_without_cut_line
from gate.errors import ConfigError, InputError
from gate.model import LEVELS, TRIAL_COLUMNS_V1, TrialStatus, warning
from gate.stats.stability import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    METRICS,
    RCIW3_UOPTIME,
    BootstrapPlan,
    FloatArray,
    bootstrap_mean_ci_batch,
    bootstrap_median_ci_batch,
    bootstrap_t_mean_ci_batch,
    metric_batch,
)
from gate.warning_codes import WarningCode

DEFAULT_THRESHOLD = 0.01  # µOpTime §3.1: t_s = 0.01
MIN_REPETITIONS = 3  # µOpTime §3.1 Algorithm 1 line 8: at least 3 repetitions (suite_runs·iterations)
MIN_VALUES = 3  # a configuration with gaps needs at least this many observed values
DEFAULT_SEED = 1
AUDIT_THRESHOLD_PCT = 3.0  # µOpTime §4.5: a relevant change is at least 3 %

# RQ4 (§4.5): the average and CI the change detection uses with each stability metric
# (the prototype's method names: cv__mean__ci_bootstrap_mean_p, rmad__median__…_median_p, …).
AUDIT_ESTIMATOR: Mapping[str, tuple[str, str]] = {
    "cv": ("mean", "percentile"),
    "rmad": ("median", "percentile"),
    "rciw1": ("mean", "percentile"),
    "rciw2": ("mean", "t"),
    "rciw3": ("median", "percentile"),
}

Config = tuple[int, ...]

# The product's metrics plus the prototype's RCIW3 variant (mean-CI width / median), kept only to
# measure how much that defect changed the published choices (tests/validation).
SEARCH_METRICS: tuple[str, ...] = (*METRICS, RCIW3_UOPTIME)


# ---- input -------------------------------------------------------------------------------------


@dataclass
class Series:
    """One benchmark of one version × instance as a dense array over the level positions."""

    name: str
    cube: FloatArray  # shape = full configuration; NaN where a measurement is missing
    mean_duration: float | None  # seconds per measurement, None when the log has no durations
    higher_is_better: bool = False
    _spaces: dict[tuple[Config, int], SearchSpace] = field(default_factory=dict, repr=False)

    def values(self, config: Config) -> FloatArray:
        block = self.cube[tuple(slice(0, c) for c in config)].ravel()
        return block[~np.isnan(block)]


@dataclass
class Dataset:
    levels: tuple[str, ...]
    full: Config
    series: dict[str, Series]
    cost_unit: str  # "s" or "measurements"
    warnings: list[dict[str, str]] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # benchmark -> why it was not calibrated


@dataclass
class Table:
    """Input rows normalised to: benchmark, [version], [instance], levels…, value, [duration]."""

    frame: pd.DataFrame
    levels: tuple[str, ...]
    is_trial_log: bool
    has_duration: bool
    warnings: list[dict[str, str]]
    # failed trials of a gate log (benchmark, [version], [instance], status, reason): a benchmark
    # whose every trial failed has no row in ``frame`` and is listed under ``skipped`` with them
    failed: pd.DataFrame | None = None
    paths: list[str] = field(default_factory=list)  # input files, indexed by the column _source


SOURCE = "_source"  # index of the input file a row came from (read_tables)


def read_tables(paths: Sequence[str | Path]) -> pd.DataFrame:
    """All input files as one frame with the column ``_source``; ``attrs["paths"]`` names the files
    and ``attrs["warnings"]`` reports a cut-off last line (left out), which :func:`normalise` adds
    to its warnings."""
    frames = []
    warnings: list[dict[str, str]] = []
    for i, p in enumerate(paths):
        path = Path(p)
        cut = cut_off_last_line(path) if path.is_file() else None
        if cut is not None:
            # a row cut by a kill is not data: its last field (config, value, …) is truncated
            warnings.append(
                warning(WarningCode.CUT_OFF_ROW, f"{cut.describe(path)}, left out", cut.fix(path))
            )
        try:
            frame = read_csv_without_cut_line(path, cut, dtype={"version": str, "instance": str})
        except FileNotFoundError:
            raise InputError(
                f"trial log {path} does not exist",
                "pass the trials.csv written by `ordertrap-gate run` (full configuration) or a tidy CSV",
            ) from None
        except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise InputError(
                f"cannot read {path} as CSV: {exc}", "pass a comma-separated file with a header row"
            ) from None
        frame[SOURCE] = i
        frames.append(frame)
    if not frames:
        raise InputError("no input file given", "pass at least one TRIALS.csv")
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    out.attrs["paths"] = [str(p) for p in paths]
    out.attrs["warnings"] = warnings
    return out


def normalise(raw: pd.DataFrame, levels: Sequence[str] | None = None, value: str | None = None) -> Table:
    """Recognise the gate's own trial log (gate.model.TRIAL_COLUMNS) or a tidy file."""
    warnings: list[dict[str, str]] = list(raw.attrs.get("warnings", []))
    paths = [str(p) for p in raw.attrs.get("paths", [])]
    failed: pd.DataFrame | None = None
    is_log = set(TRIAL_COLUMNS_V1).issubset(raw.columns)
    levels = tuple(levels) if levels else LEVELS
    value = value or "value"
    needed = ["benchmark", *levels, value]
    missing = [c for c in needed if c not in raw.columns]
    if missing:
        raise InputError(
            f"input lacks column(s) {', '.join(missing)}; it has {', '.join(map(str, raw.columns))}",
            "name the level columns with --levels (outermost first, e.g. "
            "--levels suite_run,iteration,second) and the value column with --value",
        )
    df = raw
    has_duration = False
    if is_log:
        if "config" in df.columns and (df["config"].astype(str) == "full").any():
            n_other = int((df["config"].astype(str) != "full").sum())
            if n_other:
                warnings.append(
                    warning(
                        WarningCode.CALIBRATED_ROWS_IGNORED,
                        f"{n_other} rows ran with a calibrated configuration and are ignored",
                        "calibrate from full-configuration runs only (run without --calibration)",
                    )
                )
            df = df[df["config"].astype(str) == "full"]
        elif "config" in df.columns and len(df):
            raise InputError(
                "the trial log has no rows that ran with the full configuration",
                "run the suite without --calibration (nightly full run) and calibrate from that log",
            )
        if "order_type" in df.columns:
            fixed = df["order_type"].astype(str) == "fixed"
            if fixed.any():
                # OrderSage's fixed baseline order carries exactly the order bias RMIT removes
                # (ATC'23 §3): its values must not decide how little a PR may measure.
                warnings.append(
                    warning(
                        WarningCode.FIXED_ORDER_ROWS_IGNORED,
                        f"{int(fixed.sum())} rows ran in OrderSage's fixed order (run --order-check) and are ignored",
                        "calibrate from an ordinary full-configuration run (run without --order-check); "
                        "use order-check on this log instead",
                    )
                )
                df = df[~fixed]
        # trial numbers restart in every log: several runners' logs are told apart by instance
        keys = ["instance", "trial"] if "instance" in df.columns else ["trial"]
        rows_per_trial = df.groupby(keys)["trial"].transform("size")
        status = df["status"].astype(str)
        n_bad = int((status != TrialStatus.OK.value).sum())
        if n_bad:
            warnings.append(
                warning(
                    WarningCode.FAILED_TRIALS,
                    f"{n_bad} rows are failed trials (status other than ok) and are ignored",
                    "look at their `reason` column; a benchmark with gaps is calibrated on what remains",
                )
            )
        elapsed = pd.to_numeric(df["elapsed_s"], errors="coerce")
        # elapsed_s is the wall time of the whole trial process, shared by its measurement rows
        duration = elapsed / rows_per_trial
        keep = status == TrialStatus.OK.value
        failed = _failed_rows(df.loc[~keep])
        df = df.assign(_duration=duration)[keep]
        has_duration = bool(df["_duration"].notna().any()) and bool((df["_duration"] > 0).any())
    out = pd.DataFrame({"benchmark": df["benchmark"].astype(str)})
    for extra in ("version", "instance"):
        if extra in df.columns:
            out[extra] = df[extra].astype(str)
    if SOURCE in df.columns:
        out[SOURCE] = df[SOURCE].to_numpy()
    if is_log:
        out["_trial"] = pd.to_numeric(df["trial"], errors="coerce").to_numpy()
    for level in levels:
        pos = pd.to_numeric(df[level], errors="coerce")
        bad = pos.isna() | (pos < 1) | (pos != np.floor(pos))
        if bad.any():
            example = df.loc[bad, level].iloc[0]
            raise InputError(
                f"level column {level!r} has {int(bad.sum())} values that are not positive integers "
                f"(e.g. {example!r})",
                "level positions are 1-based integers; check --levels names the position columns",
            )
        out[level] = pos.astype(np.int64)
    out["value"] = pd.to_numeric(df[value], errors="coerce")
    if has_duration:
        out["duration"] = df["_duration"].to_numpy()
    if "higher_is_better" in df.columns:
        out["higher_is_better"] = df["higher_is_better"].astype(str).str.lower().isin(["true", "1"])
    return Table(out, levels, is_log, has_duration, warnings, failed, paths)


def _failed_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """benchmark, [version, instance], status, reason of failed trials (one row per trial)."""
    out = pd.DataFrame({"benchmark": rows["benchmark"].astype(str)})
    for extra in ("version", "instance"):
        if extra in rows.columns:
            out[extra] = rows[extra].astype(str)
    out["status"] = rows["status"].astype(str).str.strip()
    reason = rows["reason"] if "reason" in rows.columns else pd.Series("", index=rows.index)
    out["reason"] = reason.fillna("").astype(str).str.strip()
    return out


def distinct(table: Table, column: str) -> list[str]:
    """Distinct values of ``column`` in order of first appearance ([] when absent)."""
    if column not in table.frame.columns:
        return []
    return list(dict.fromkeys(table.frame[column].tolist()))


def select(table: Table, column: str, wanted: str | None, flag: str) -> Table:
    """Keep the rows of one version / instance; several without a choice is an error."""
    values = distinct(table, column)
    if wanted is None:
        if len(values) > 1:
            shown = ", ".join(values[:10]) + (" …" if len(values) > 10 else "")
            raise ConfigError(
                f"the input has {len(values)} {column}s ({shown}); calibration needs one",
                f"add {flag} NAME, e.g. {flag} {values[0]}",
            )
        return table
    if column not in table.frame.columns:
        raise ConfigError(f"{flag} {wanted} given but the input has no {column!r} column", f"drop {flag}")
    if wanted not in values:
        raise ConfigError(
            f"{column} {wanted!r} is not in the input (it has {', '.join(values[:10])})",
            f"pass one of them to {flag}",
        )
    frame = table.frame[table.frame[column] == wanted]
    failed = table.failed
    if failed is not None and column in failed.columns:
        failed = failed[failed[column] == wanted]
    return dataclasses.replace(table, frame=frame, warnings=list(table.warnings), failed=failed)


def build_dataset(table: Table, discard_warmup: int = 0, warmup_level: str | None = None) -> Dataset:
    """Dense per-benchmark arrays; benchmarks that cannot be calibrated are listed in ``skipped``."""
    levels = table.levels
    frame = table.frame
    warnings = list(table.warnings)
    failures = _failures(table.failed)
    if frame.empty and failures:
        shown = "; ".join(f"{name}: {what}" for name, what in list(failures.items())[:5])
        raise InputError(
            f"no trial of the selected version/instance succeeded ({shown})",
            "fix the failing benchmarks (the log's `reason` column says why) and rerun the full "
            "configuration, or pick a version whose trials succeeded with --version",
        )
    if frame.empty:
        raise InputError(
            "the input has no usable rows (after selecting version/instance and ok trials)",
            "check --version/--instance and that the log's trials succeeded",
        )
    if discard_warmup:
        level = warmup_level or levels[-1]
        if level not in levels:
            raise ConfigError(
                f"--warmup-level {level!r} is not one of the levels {', '.join(levels)}",
                "pass one of the --levels names",
            )
        top = int(frame[level].max())
        if discard_warmup >= top:
            raise ConfigError(
                f"--discard-warmup {discard_warmup} drops every {level} (there are {top})",
                f"use a smaller count than {top}",
            )
        # µOpTime §4.4 (RQ3): a fixed warm-up is discarded before the measurement phase is minimised
        frame = frame[frame[level] > discard_warmup].copy()
        frame[level] = frame[level] - discard_warmup
    full: Config = tuple(int(frame[level].max()) for level in levels)
    series: dict[str, Series] = {}
    skipped: dict[str, str] = {}
    gapped: dict[str, int] = {}
    for name, rows in frame.groupby("benchmark", sort=False):
        name = str(name)
        values = rows["value"].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values <= 0)
        if bad.any() and not bad.all():
            # A few empty, NaN or non-positive values are gaps, as failed trials in a gate log are:
            # the benchmark is calibrated on what remains (issue: calibrate all that can be).
            gapped[name] = int(bad.sum())
            rows = rows.loc[~bad]
        reason = _problem(rows, levels, table)
        if reason:
            if name in failures:  # e.g. too few values left because most trials failed
                what, fix = reason.split("; ", 1)
                failed = failures[name].removeprefix("all ")
                if what.startswith("only "):
                    fix = _failure_fix(failed)
                reason = f"{what}: {failed}; {fix}"
            skipped[name] = reason
            continue
        cube = np.full(full, np.nan)
        pos = tuple(rows[level].to_numpy() - 1 for level in levels)
        cube[pos] = rows["value"].to_numpy(dtype=np.float64)
        mean_duration = None
        if table.has_duration and "duration" in rows.columns:
            d = rows["duration"].to_numpy(dtype=np.float64)
            d = d[np.isfinite(d) & (d > 0)]
            mean_duration = float(d.mean()) if d.size else None
        hib = bool(rows["higher_is_better"].iloc[0]) if "higher_is_better" in rows.columns else False
        s = Series(name, cube, mean_duration, hib)
        n_obs = int((~np.isnan(cube)).sum())
        if n_obs < math.prod(full):
            warnings.append(
                warning(
                    WarningCode.GAPS,
                    f"{name} has {n_obs} of {math.prod(full)} measurements; configurations are judged "
                    "on the values they contain",
                    "rerun the full configuration if the gaps come from failed trials",
                )
            )
        series[name] = s
    for name, what in failures.items():
        if name not in series and name not in skipped:  # no ok row at all: not in ``frame``
            skipped[name] = f"{what}; {_failure_fix(what)}"
    for name, reason in skipped.items():
        warnings.append(
            warning(WarningCode.NOT_CALIBRATED, f"{name}: {reason.split(';')[0]}", reason.split("; ", 1)[-1])
        )
    cost_unit = "s" if table.has_duration else "measurements"
    if table.has_duration and any(s.mean_duration is None for s in series.values()):
        cost_unit = "measurements"
        warnings.append(
            warning(
                WarningCode.NO_DURATIONS,
                "some benchmarks have no recorded durations; costs are counted in measurements",
                "make sure every trial records elapsed_s",
            )
        )
    if gapped:
        shown = ", ".join(f"{n} ({k})" for n, k in list(gapped.items())[:10])
        warnings.append(
            warning(
                WarningCode.BAD_VALUES_AS_GAPS,
                f"empty, non-numeric or non-positive values were treated as gaps: {shown}",
                "check --value names a positive time or throughput column, or rerun those trials",
            )
        )
    return Dataset(levels, full, series, cost_unit, warnings, skipped)


def _failures(failed: pd.DataFrame | None) -> dict[str, str]:
    """Per benchmark with failed trials: 'all N trials failed (status: reason ×k, …)' — "all"
    is right for the benchmarks without an ok row, the only ones listed on their own."""
    if failed is None or failed.empty:
        return {}
    out: dict[str, str] = {}
    for name, rows in failed.groupby("benchmark", sort=False):
        counts = Counter(zip(rows["status"], rows["reason"], strict=True))
        parts = []
        for (status, reason), k in counts.most_common(3):
            # quoted from the log: keep "message; fix" splittable
            reason = " ".join(str(reason).replace(";", ",").split())
            reason = reason if len(reason) <= 120 else reason[:117] + "..."
            parts.append(f"{status}: {reason} ×{k}" if reason else f"{status} ×{k}")
        if len(counts) > 3:
            parts.append("…")
        n = len(rows)
        verb = "failed"
        if set(rows["status"]) == {TrialStatus.SKIPPED.value}:
            verb = "were skipped (the benchmark does not exist in this version)"
        out[str(name)] = f"all {n} trial{'s' if n != 1 else ''} {verb} ({', '.join(parts)})"
    return out


def _failure_fix(what: str) -> str:
    if "does not exist in this version" in what:
        return (
            "nothing to fix if the change added or removed it: it runs the full configuration; "
            "calibrate a version that has it (--version) to give it a minimal one"
        )
    return (
        "fix the benchmark (the log's `reason` column says why) and rerun the full configuration; "
        "until then it runs the full configuration"
    )


def _position(row: pd.Series, levels: Sequence[str]) -> str:
    return ", ".join(f"{level} {int(row[level])}" for level in levels)


def _problem(rows: pd.DataFrame, levels: Sequence[str], table: Table | None = None) -> str:
    """Why a benchmark cannot be calibrated ('' when it can); 'message; fix'."""
    values = rows["value"].to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        return (
            f"{int(np.isnan(values).sum())} values are empty or not numbers; "
            "fix the value column (--value) or rerun the failed trials"
        )
    if (values <= 0).any():
        return (
            f"{int((values <= 0).sum())} values are zero or negative (relative metrics need positive values); "
            "check --value names a time or throughput column"
        )
    dup = rows.duplicated(subset=list(levels), keep=False)
    if dup.any():
        return _duplicated_positions(rows.loc[dup], levels, table)
    if len(values) < MIN_VALUES:
        return (
            f"only {len(values)} measurement(s), at least {MIN_VALUES} are needed; "
            "run the full configuration with more repetitions"
        )
    return ""


def _duplicated_positions(rows: pd.DataFrame, levels: Sequence[str], table: Table | None) -> str:
    """'message; fix' for rows that share level positions, naming where they come from."""
    first = rows.iloc[0]
    where = _position(first, levels)
    same = rows.loc[(rows[list(levels)] == first[list(levels)]).all(axis=1)]
    paths = table.paths if table is not None else []
    is_log = table is not None and table.is_trial_log

    def name(source: Any) -> str:
        k = int(source)
        return paths[k] if 0 <= k < len(paths) else f"input {k + 1}"

    sources = list(dict.fromkeys(same[SOURCE].tolist())) if SOURCE in same.columns else []
    if len(sources) > 1:
        names = list(dict.fromkeys(name(k) for k in sources))
        files = ", ".join(names[:3]) + (" …" if len(names) > 3 else "")
        if len(names) == 1:
            files = f"{names[0]}, given {len(sources)} times"
        if is_log:
            return (
                f"rows at the same level positions (e.g. {where}) come from several logs ({files}) of "
                "the same version and instance: every run numbers its suite runs, iterations and "
                "measurements from 1, so two runs' rows collide; "
                "calibrate from one log at a time (one full-configuration run, e.g. the nightly "
                "trials.csv); runs on several runners need their own `run --instance NAME` and one "
                "chosen with --instance; for more repetitions raise [full].suite_runs of that one run"
            )
        return (
            f"rows at the same level positions (e.g. {where}) come from several files ({files}); "
            "calibrate one file at a time, or give each file its own version or instance column "
            "and choose one with --version / --instance"
        )
    if is_log:
        trials = [int(t) for t in same["_trial"].dropna().unique()[:3]] if "_trial" in same.columns else []
        shown = f" (trial {', trial '.join(map(str, trials))})" if trials else ""
        log = name(sources[0]) if sources else "the trial log"
        return (
            f"{log} has {len(same)} rows at {where}{shown} for one version and instance: it holds "
            "several runs appended into one file; "
            "calibrate from one run's trials.csv (one log per calibration)"
        )
    return (
        f"several rows share the same level positions (e.g. {where}); "
        "select one version and instance (--version, --instance) or name every level in --levels"
    )


# ---- search ------------------------------------------------------------------------------------


def enumerate_configs(full: Config) -> list[Config]:
    """Algorithm 1 line 3 (+ line 8): every level 1..max, the innermost level varying fastest;
    the outer levels' product ≥ 3 (with a single level, the level itself)."""
    out = []
    for config in itertools.product(*(range(1, m + 1) for m in full)):
        outer = math.prod(config[:-1]) if len(config) > 1 else config[0]
        if outer >= MIN_REPETITIONS:
            out.append(config)
    return out


@dataclass(frozen=True)
class Choice:
    config: Config
    instability: float
    cost: float
    stable: bool
    never_stable: bool
    n_measurements: int  # observed values in the chosen configuration
    full_instability: float
    evaluated: int  # configurations whose metric was computed


@dataclass
class SearchSpace:
    """Configurations of one benchmark with their values and costs (shared by both searches)."""

    configs: list[Config]
    values: list[FloatArray]
    costs: list[float]

    @classmethod
    def of(cls, series: Series, full: Config, min_values: int = MIN_VALUES) -> SearchSpace:
        """Built once per benchmark and reused by every metric."""
        space = series._spaces.get((full, min_values))
        if space is None:
            space = series._spaces[(full, min_values)] = cls._build(series, full, min_values)
        return space

    @classmethod
    def _build(cls, series: Series, full: Config, min_values: int = MIN_VALUES) -> SearchSpace:
        per = series.mean_duration if series.mean_duration is not None else 1.0
        configs, values, costs = [], [], []
        for config in enumerate_configs(full):
            v = series.values(config)
            if v.size < MIN_VALUES:
                continue
            if math.prod(config) < min_values and config != full:
                continue  # a PR run would get too few values per version for a verdict
            configs.append(config)
            values.append(v)
            # cost = measurements the configuration runs × the benchmark's mean duration per
            # measurement (µOpTime: suite_runs·iterations·seconds for the Go data)
            costs.append(math.prod(config) * per)
        return cls(configs, values, costs)


def _evaluate(
    space: SearchSpace,
    which: Sequence[int],
    metric: str,
    plan: BootstrapPlan | None,
    confidence: float,
    out: dict[int, float],
) -> None:
    """Metric of the configurations ``which``, batched by sample size (rows are independent)."""
    by_n: dict[int, list[int]] = {}
    for k in which:
        by_n.setdefault(space.values[k].size, []).append(k)
    for ks in by_n.values():
        rows = np.stack([space.values[k] for k in ks])
        result = metric_batch(rows, metric, plan, confidence)
        for k, r in zip(ks, result, strict=True):
            out[k] = float(r)


def _decide(
    space: SearchSpace, metrics: Mapping[int, float], threshold: float, candidates: Iterable[int]
) -> int | None:
    stable = [k for k in candidates if metrics[k] < threshold]  # strictly below (µOpTime §3.1)
    if not stable:
        return None
    # cheapest, then lower metric, then enumeration order (Algorithm 1 lines 16-18)
    return min(stable, key=lambda k: (space.costs[k], metrics[k], k))


def search(
    series: Series,
    full: Config,
    metric: str,
    threshold: float = DEFAULT_THRESHOLD,
    plan: BootstrapPlan | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    exhaustive: bool = False,
    min_values: int = MIN_VALUES,
) -> Choice | None:
    """The minimal stable configuration of one benchmark (None: no configuration has ≥ 3 values).
    ``min_values``: configurations running fewer values (the product of the levels) are not
    considered, except the full configuration itself."""
    if metric not in SEARCH_METRICS:
        raise ConfigError(f"unknown metric {metric!r}", f"use one of {', '.join(METRICS)}")
    space = SearchSpace.of(series, full, min_values)
    if not space.configs:
        return None
    metrics: dict[int, float] = {}
    chosen: int | None = None
    if exhaustive:
        for k in range(len(space.configs)):  # one at a time, as Algorithm 1 lines 7-14
            _evaluate(space, [k], metric, plan, confidence, metrics)
        chosen = _decide(space, metrics, threshold, range(len(space.configs)))
    else:
        order = sorted(range(len(space.configs)), key=lambda k: (space.costs[k], k))
        for _, group in itertools.groupby(order, key=lambda k: space.costs[k]):
            ks = list(group)
            _evaluate(space, ks, metric, plan, confidence, metrics)
            chosen = _decide(space, metrics, threshold, ks)
            if chosen is not None:
                break
    last = len(space.configs) - 1  # the largest configuration (the full one when it has values)
    if last not in metrics:
        _evaluate(space, [last], metric, plan, confidence, metrics)
    never = chosen is None
    k = last if chosen is None else chosen
    return Choice(
        config=space.configs[k],
        instability=metrics[k],
        cost=space.costs[k],
        stable=not never,
        never_stable=never,
        n_measurements=int(space.values[k].size),
        full_instability=metrics[last],
        evaluated=len(metrics),
    )


def never_stable_advice(metric: str, value: float, threshold: float, levels: Sequence[str]) -> str:
    shown = "inf" if not math.isfinite(value) else f"{value:.4f}"
    return (
        f"not stable even with the full configuration ({metric} = {shown}, threshold {threshold}); "
        f"it keeps running the full configuration. µOpTime §5: the full configuration can itself be "
        f"insufficient — raise the repetitions ({', '.join(levels[:-1]) or levels[0]}), lengthen each "
        f"measurement ({levels[-1]}: longer benchtime/more work per measurement), or look at the "
        "benchmark for noise (I/O, allocation/GC, timers, shared state)"
    )


@dataclass
class Calibration:
    dataset: Dataset
    metric: str
    threshold: float
    choices: dict[str, Choice]
    settings: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        ds = self.dataset
        benchmarks: dict[str, Any] = {}
        full_cost = 0.0
        minimal_cost = 0.0
        full_count = math.prod(ds.full)
        for name, ch in self.choices.items():
            per = ds.series[name].mean_duration if ds.cost_unit == "s" else 1.0
            full_cost += full_count * (per or 1.0)
            minimal_cost += ch.cost
            benchmarks[name] = {
                "config": dict(zip(ds.levels, ch.config, strict=True)),
                "instability": _num(ch.instability),
                "cost": round(ch.cost, 6),
                "stable": ch.stable,
                "never_stable": ch.never_stable,
                "advice": (
                    never_stable_advice(self.metric, ch.instability, self.threshold, ds.levels)
                    if ch.never_stable
                    else None
                ),
                "n_measurements": ch.n_measurements,
                "full_instability": _num(ch.full_instability),
            }
        saved = 100.0 * (1.0 - minimal_cost / full_cost) if full_cost > 0 else 0.0
        return {
            "metric": self.metric,
            "threshold": self.threshold,
            "levels": list(ds.levels),
            "discard_warmup": self.settings["discard_warmup"],
            "full": dict(zip(ds.levels, ds.full, strict=True)),
            "settings": {
                k: self.settings[k]
                for k in ("confidence", "resamples", "seed", "search", "min_values")
                if k in self.settings
            },
            "benchmarks": benchmarks,
            "skipped": dict(ds.skipped),
            "summary": {
                "full_cost": round(full_cost, 6),
                "minimal_cost": round(minimal_cost, 6),
                "saved_pct": round(saved, 2),
                "cost_unit": ds.cost_unit,
                "n_benchmarks": len(benchmarks),
                "n_never_stable": sum(1 for c in self.choices.values() if c.never_stable),
                "n_skipped": len(ds.skipped),
                "configs_evaluated": sum(c.evaluated for c in self.choices.values()),
            },
            "warnings": list(ds.warnings),
        }


def _num(x: float) -> float | None:
    """JSON has no inf/NaN: an unbounded metric is written as null."""
    return float(x) if math.isfinite(x) else None


@functools.lru_cache(maxsize=2)
def make_plan(full: Config, seed: int, resamples: int) -> BootstrapPlan:
    """One plan per (full configuration, seed, resamples), shared by every benchmark, metric and
    version: its per-size indices and weights are computed once (≤ resamples × Σn floats)."""
    return BootstrapPlan.from_seed(seed, max_n=math.prod(full), resamples=resamples)


def calibrate(
    dataset: Dataset,
    metric: str,
    threshold: float = DEFAULT_THRESHOLD,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    discard_warmup: Mapping[str, Any] | None = None,
    exhaustive: bool = False,
    plan: BootstrapPlan | None = None,
    min_values: int = MIN_VALUES,
) -> Calibration:
    """µOpTime's minimal configurations. ``min_values`` > 3 leaves out configurations with fewer
    values (the CLI passes 5: with fewer, the verdict's rank test cannot call a change at 99 %,
    gate.model.rank_floor); the published method, reproduced by the validation tests, is 3."""
    if metric not in SEARCH_METRICS:
        raise ConfigError(f"unknown metric {metric!r}", f"use --metric with one of {', '.join(METRICS)}")
    if not threshold > 0:
        raise ConfigError(f"threshold {threshold} must be positive", "use e.g. --threshold 0.01")
    if plan is None and metric not in ("cv", "rmad"):
        plan = make_plan(dataset.full, seed, resamples)
    if math.prod(dataset.full) < min_values and not any(
        w["code"] == WarningCode.FULL_TOO_SMALL for w in dataset.warnings
    ):
        dataset.warnings.append(
            warning(
                WarningCode.FULL_TOO_SMALL,
                f"the full configuration ({'×'.join(map(str, dataset.full))}) gives only "
                f"{math.prod(dataset.full)} values per version, fewer than {min_values}: no configuration, "
                "not even the full one, lets a verdict call a change at 99 %",
                "raise [full].iterations or [full].suite_runs so that suite_runs × iterations × "
                f"measurements is at least {min_values}, then rerun the full configuration",
            )
        )
    choices: dict[str, Choice] = {}
    for name, series in dataset.series.items():
        choice = search(series, dataset.full, metric, threshold, plan, confidence, exhaustive, min_values)
        if choice is None:
            dataset.skipped[name] = (
                f"no configuration has {MIN_VALUES} or more measurements; "
                "rerun the full configuration (too many gaps)"
            )
            continue
        choices[name] = choice
    if not choices:
        # the fixes of the reasons themselves: the generic rule would not say what to change
        fixes = list(dict.fromkeys(r.split("; ", 1)[1] for r in dataset.skipped.values() if "; " in r))
        by_problem: dict[str, list[str]] = {}
        for n, r in dataset.skipped.items():
            by_problem.setdefault(r.split(";")[0], []).append(n)
        shown = [
            f"{', '.join(names[:5])}{f' and {len(names) - 5} more' if len(names) > 5 else ''}: {problem}"
            for problem, names in list(by_problem.items())[:5]
        ]
        raise InputError(
            "no benchmark could be calibrated: " + "; ".join(shown),
            " — or: ".join(fixes[:3])
            or "fix the input (µOpTime needs ≥ 3 suite_run×iteration repetitions and positive values)",
        )
    settings = {
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "search": "exhaustive" if exhaustive else "cost-ordered early stop",
        "min_values": min_values,
        "discard_warmup": dict(discard_warmup or {"level": dataset.levels[-1], "count": 0}),
    }
    return Calibration(dataset, metric, threshold, choices, settings)


# ---- audit (µOpTime §4.5, RQ4) -------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    average: float
    lo: float
    hi: float


def estimate(
    values: FloatArray, statistic: str, method: str, plan: BootstrapPlan, confidence: float
) -> Estimate:
    row = values[None, :]
    if statistic == "mean":
        avg = float(values.mean())
        lo, hi = (bootstrap_t_mean_ci_batch if method == "t" else bootstrap_mean_ci_batch)(
            row, plan, confidence
        )
    else:
        avg = float(np.median(values))
        lo, hi = bootstrap_median_ci_batch(row, plan, confidence)
    return Estimate(avg, float(lo[0]), float(hi[0]))


def verdict(
    base: Estimate, head: Estimate, threshold_pct: float, higher_is_better: bool
) -> tuple[str, float]:
    """µOpTime §4.5: a change is a relative change beyond the threshold with non-overlapping CIs
    (intervals that only touch count as disjoint, as in the prototype)."""
    change = (head.average - base.average) / base.average * 100.0
    disjoint = max(base.lo, head.lo) >= min(base.hi, head.hi)
    worse = -change if higher_is_better else change
    if disjoint and worse > threshold_pct:
        return "regression", change
    if disjoint and -worse > threshold_pct:
        return "improvement", change
    return "unchanged", change


AUDIT_RULES: tuple[str, ...] = ("gate", "uoptime")


def audit(
    datasets: Mapping[str, Dataset],
    configs: Mapping[str, Config],
    metric: str,
    plan: BootstrapPlan,
    threshold_pct: float = AUDIT_THRESHOLD_PCT,
    confidence: float = DEFAULT_CONFIDENCE,
    rule: str = "uoptime",
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Replay consecutive version pairs: verdicts with each benchmark's minimal configuration
    (from the calibrated version, reused for the later ones — RQ4's forward setting) against the
    verdicts of the full configuration (the ground truth). Counts follow the paper: a positive
    is a regression.

    ``rule="gate"`` decides every verdict as ``analyze`` does with its default settings
    (gate/analysis/compare.py: median, disjoint percentile-bootstrap CIs, the small-sample rank
    guard, ``inconclusive`` when the evidence decides nothing), so the audit answers "would the
    gate's verdict change with the minimal configuration?". ``rule="uoptime"`` is the paper's
    §4.5 rule (the average and CI that go with ``metric``, AUDIT_ESTIMATOR), kept to reproduce
    the published counts (tests/validation)."""
    if rule not in AUDIT_RULES:
        raise ConfigError(f"unknown audit rule {rule!r}", f"use one of {', '.join(AUDIT_RULES)}")
    statistic, method = AUDIT_ESTIMATOR[metric]
    versions = list(datasets)
    cache: dict[tuple[str, str, Config], Estimate] = {}

    def clip(version: str, config: Config) -> Config:
        return tuple(min(c, m) for c, m in zip(config, datasets[version].full, strict=True))

    def est(version: str, name: str, config: Config) -> Estimate | None:
        key = (version, name, clip(version, config))
        if key not in cache:
            values = datasets[version].series[name].values(key[2])
            if values.size < 2:
                return None
            cache[key] = estimate(values, statistic, method, plan, confidence)
        return cache[key]

    gate_settings: Settings | None = None
    if rule == "gate":
        gate_settings = Settings(
            confidence=confidence, threshold_pct=threshold_pct, resamples=plan.resamples, seed=seed
        )

    def gate_verdicts(v1: str, v2: str, names: Sequence[str], config_of: Any) -> dict[str, tuple[str, float]]:
        assert gate_settings is not None
        items = []
        for name in names:
            s1 = datasets[v1].series[name]
            s2 = datasets[v2].series[name]
            items.append(
                (
                    name,
                    Sample(s1.values(clip(v1, config_of(v1, name)))),
                    Sample(s2.values(clip(v2, config_of(v2, name)))),
                    s1.higher_is_better,
                )
            )
        out = {}
        for c in compare_many(items, gate_settings):
            out[c.benchmark] = (str(c.verdict), c.change_pct if c.change_pct is not None else math.nan)
        return out

    pairs = []
    for v1, v2 in itertools.pairwise(versions):
        d1, d2 = datasets[v1], datasets[v2]
        names = [n for n in d1.series if n in d2.series and n in configs]
        full_v: dict[str, tuple[str, float]] = {}
        min_v: dict[str, tuple[str, float]] = {}
        if rule == "gate":
            full_v = gate_verdicts(v1, v2, names, lambda v, n: datasets[v].full)
            min_v = gate_verdicts(v1, v2, names, lambda v, n: configs[n])
        else:
            for name in names:
                hib = d1.series[name].higher_is_better
                f1, f2 = est(v1, name, d1.full), est(v2, name, d2.full)
                m1, m2 = est(v1, name, configs[name]), est(v2, name, configs[name])
                if f1 is None or f2 is None or m1 is None or m2 is None:
                    continue
                full_v[name] = verdict(f1, f2, threshold_pct, hib)
                min_v[name] = verdict(m1, m2, threshold_pct, hib)
        counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
        agree = 0
        full_changes = min_changes = 0
        differences = []
        verdicts: dict[str, dict[str, str]] = {}
        for name in names:
            if name not in full_v or name not in min_v:
                continue
            (fv, fchange), (mv, mchange) = full_v[name], min_v[name]
            verdicts[name] = {"full": fv, "minimal": mv}
            full_pos, min_pos = fv == "regression", mv == "regression"
            full_changes += full_pos
            min_changes += min_pos
            key = ("t" if full_pos == min_pos else "f") + ("p" if min_pos else "n")
            counts[key] += 1
            if fv == mv:
                agree += 1
            else:
                differences.append(
                    {
                        "benchmark": name,
                        "full": fv,
                        "minimal": mv,
                        "full_change_pct": _num(round(fchange, 3)),
                        "minimal_change_pct": _num(round(mchange, 3)),
                        "config": dict(zip(d1.levels, configs[name], strict=True)),
                    }
                )
        n = sum(counts.values())
        neg = counts["fp"] + counts["tn"]
        pos = counts["fn"] + counts["tp"]
        pairs.append(
            {
                "base": v1,
                "head": v2,
                "n": n,
                "full_changes": full_changes,
                "min_changes": min_changes,
                **counts,
                "fpr": counts["fp"] / neg if neg else 0.0,
                "fnr": counts["fn"] / pos if pos else 0.0,
                "agreement_pct": round(100.0 * agree / n, 2) if n else None,
                "disagreements": differences,
                "verdicts": verdicts,
            }
        )
    if gate_settings is not None:
        rule_doc: dict[str, Any] = {
            "name": "gate",
            "threshold_pct": threshold_pct,
            "confidence": confidence,
            "statistic": gate_settings.statistic,
            "ci": f"bootstrap {gate_settings.method} ({gate_settings.bootstrap}, {gate_settings.pairing})",
            "resamples": gate_settings.resamples,
            "seed": seed,
            "positive": "regression as `analyze` decides it (gate/analysis/compare.py); "
            "inconclusive and failed count as negatives and as disagreements when they differ",
        }
    else:
        rule_doc = {
            "name": "uoptime",
            "threshold_pct": threshold_pct,
            "confidence": confidence,
            "statistic": statistic,
            "ci": f"bootstrap {'t' if method == 't' else 'percentile'}",
            "resamples": plan.resamples,
            "positive": "regression (relative change beyond threshold_pct in the worse direction, "
            "CIs disjoint)",
        }
    return {
        "rule": rule_doc,
        "calibrated_on": versions[0] if versions else None,
        "versions": versions,
        "pairs": pairs,
    }
