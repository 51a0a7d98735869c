"""Calibration input: trial logs and tidy files (µOpTime's ``measurements.csv``) as one frame,
then per benchmark a dense array over the level positions.

Both kinds of input are read by the trial log's one reader (:func:`gate.files.trial_log.read_rows`)
and its parsing rules, so a file means the same to ``calibrate`` as to ``analyze``. A gate log
(every column of gate.model.TRIAL_COLUMNS) keeps only the ok trials of the full configuration in
random order; a tidy file names its level and value columns (``--levels``, ``--value``), as
µOpTime's Go data does (suite_run, iteration, second; ns_per_op: ../shared/data/README.md).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from gate.errors import ConfigError, InputError
from gate.files.trial_log import (
    fill_blanks,
    parse_flags,
    parse_names,
    parse_numbers,
    parse_statuses,
    read_rows,
)
from gate.model import LEVELS, TRIAL_COLUMNS, TrialStatus, warning
from gate.stats.stability import FloatArray
from gate.warning_codes import WarningCode

if TYPE_CHECKING:
    from gate.calibration.decidable import Floor
    from gate.calibration.search import SearchSpace

MIN_VALUES = 3  # a configuration with gaps needs at least this many observed values

LevelCounts = tuple[int, ...]


@dataclass
class Series:
    """One benchmark of one version × instance as a dense array over the level positions."""

    name: str
    cube: FloatArray  # shape = full configuration; NaN where a measurement is missing
    mean_duration: float | None  # seconds per measurement, None when the log has no durations
    higher_is_better: bool = False
    _spaces: dict[tuple[LevelCounts, Floor], SearchSpace] = field(default_factory=dict, repr=False)

    def values(self, config: LevelCounts) -> FloatArray:
        block = self.cube[tuple(slice(0, c) for c in config)].ravel()
        return block[~np.isnan(block)]

    def trials(self, config: LevelCounts) -> NDArray[np.int64]:
        """The trial of each value of :meth:`values`: its position on every level but the
        innermost (one process per trial, its measurements inside it), for the two-level and
        ``auto`` bootstrap of the gate's rule."""
        block = self.cube[tuple(slice(0, c) for c in config)]
        ids = np.arange(block.size, dtype=np.int64) // max(1, block.shape[-1])
        return ids[~np.isnan(block.ravel())]


@dataclass
class Dataset:
    levels: tuple[str, ...]
    full: LevelCounts
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


def read_tables(paths: Sequence[str | Path], numbers: Sequence[str] = ()) -> pd.DataFrame:
    """All input files as one frame (the trial log's reader, :func:`gate.files.trial_log.read_rows`;
    ``numbers``: the level and value columns a tidy file names, read as numbers like the trial
    log's own) with the column ``_source``; ``attrs["paths"]`` names
    the files and ``attrs["warnings"]`` reports what the reader left out (a cut-off last line, an
    empty file), which :func:`normalise` adds to its warnings."""
    if not paths:
        raise InputError("no input file given", "pass at least one TRIALS.csv")
    frames = []
    warnings: list[dict[str, str]] = []
    for i, p in enumerate(paths):
        frame = read_rows(Path(p), warnings, numbers)
        if frame is not None:
            frames.append(frame.assign(**{SOURCE: i}))
    if not frames:
        raise InputError(
            f"every input file is empty: {', '.join(map(str, paths))}",
            "pass the trials.csv of a full-configuration run that finished some trials",
        )
    out = fill_blanks(pd.concat(frames, ignore_index=True)) if len(frames) > 1 else frames[0]
    out.attrs["paths"] = [str(p) for p in paths]
    out.attrs["warnings"] = warnings
    return out


def normalise(raw: pd.DataFrame, levels: Sequence[str] | None = None, value: str | None = None) -> Table:
    """Recognise the gate's own trial log (gate.model.TRIAL_COLUMNS) or a tidy file."""
    warnings: list[dict[str, str]] = list(raw.attrs.get("warnings", []))
    paths = [str(p) for p in raw.attrs.get("paths", [])]
    failed: pd.DataFrame | None = None
    is_log = set(TRIAL_COLUMNS).issubset(raw.columns)
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
        status = parse_statuses(df["status"])
        n_bad = int((status != TrialStatus.OK.value).sum())
        if n_bad:
            warnings.append(
                warning(
                    WarningCode.FAILED_TRIALS,
                    f"{n_bad} rows are failed trials (status other than ok) and are ignored",
                    "look at their `reason` column; a benchmark with gaps is calibrated on what remains",
                )
            )
        elapsed = parse_numbers(df["elapsed_s"])
        # elapsed_s is the wall time of the whole trial process, shared by its measurement rows
        duration = elapsed / rows_per_trial
        keep = status == TrialStatus.OK.value
        failed = _failed_rows(df.loc[~keep])
        df = df.assign(_duration=duration)[keep]
        has_duration = bool(df["_duration"].notna().any()) and bool((df["_duration"] > 0).any())
    out = pd.DataFrame({"benchmark": parse_names(df["benchmark"])})
    for extra in ("version", "instance"):
        if extra in df.columns:
            out[extra] = parse_names(df[extra])
    if SOURCE in df.columns:
        out[SOURCE] = df[SOURCE].to_numpy()
    if is_log:
        out["_trial"] = parse_numbers(df["trial"]).to_numpy()
    for level in levels:
        pos = parse_numbers(df[level])
        bad = pos.isna() | (pos < 1) | (pos != np.floor(pos))
        if bad.any():
            example = df.loc[bad, level].iloc[0]
            raise InputError(
                f"level column {level!r} has {int(bad.sum())} values that are not positive integers "
                f"(e.g. {example!r})",
                "level positions are 1-based integers; check --levels names the position columns",
            )
        out[level] = pos.astype(np.int64)
    out["value"] = parse_numbers(df[value])
    if has_duration:
        out["duration"] = df["_duration"].to_numpy()
    if "higher_is_better" in df.columns:
        out["higher_is_better"] = parse_flags(df["higher_is_better"])
    return Table(out, levels, is_log, has_duration, warnings, failed, paths)


def _failed_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """benchmark, [version, instance], status, reason of failed trials (one row per trial)."""
    out = pd.DataFrame({"benchmark": parse_names(rows["benchmark"])})
    for extra in ("version", "instance"):
        if extra in rows.columns:
            out[extra] = parse_names(rows[extra])
    out["status"] = parse_statuses(rows["status"])
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
    full: LevelCounts = tuple(int(frame[level].max()) for level in levels)
    series: dict[str, Series] = {}
    skipped: dict[str, str] = {}
    gapped: dict[str, int] = {}
    for name, rows in frame.groupby("benchmark", sort=False):
        name = str(name)
        values = rows["value"].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values <= 0)
        if bad.any() and not bad.all():
            # A few empty, NaN or non-positive values are gaps, as failed trials in a gate log are:
            # the benchmark is calibrated on what remains: every benchmark that can be calibrated is.
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
