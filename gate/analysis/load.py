"""Read one or several trial logs (and their meta.json) for ``analyze``.

Required columns: ``benchmark, version, value``; every other column of docs/contracts.md is used
when present. Bad input is reported, not fatal, whenever something valid remains: each problem
becomes a warning ``{code, message, action}`` and the offending rows are set aside. Only a
missing/unreadable file, a log without the required columns, or no usable row at all raise
:class:`~gate.errors.InputError`. A log given twice (same file, or byte-identical) is read once,
and a last line cut off by a kill is left out; both with a warning.

Row classes after loading (column ``kind``):

* ``ok``      — status ok (or no status column) and a finite value > 0: a value.
* ``failed``  — a failure status from the log, or an ok row whose value is empty, non-numeric,
                NaN, ±inf or implausible (|x| ≥ 1e150 or < 1e-150; the run engine would have
                logged those as ``invalid``): a failure.
* ``dropped`` — a finite value ≤ 0: relative changes need positive values; reported, not counted.
* ``absent`` — status ``skipped``: the benchmark does not exist in that version (added or removed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from gate.errors import InputError
from gate.files import run_meta
from gate.files.run_meta import RunMeta
from gate.files.trial_log import fill_blanks, parse_columns, parse_names, parse_numbers, read_rows
from gate.model import MAX_BENCHMARKS, MAX_VALUES, TrialStatus, warning
from gate.warning_codes import WarningCode

REQUIRED: tuple[str, ...] = ("benchmark", "version", "value")
_LIMIT = 1e150


@dataclass(frozen=True)
class TrialLogs:
    """All rows of all logs (``source`` = index of the log, ``kind`` as above) and their metas."""

    frame: pd.DataFrame
    metas: list[RunMeta] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    meta_sources: list[int] = field(default_factory=list)  # the log (``source``) of each of ``metas``

    @property
    def meta(self) -> RunMeta | None:
        return self.metas[0] if self.metas else None


def _read_one(path: Path, source: int, warnings: list[dict[str, str]]) -> pd.DataFrame | None:
    df = read_rows(path, warnings)
    if df is None:
        return None
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            f"{path} lacks the required column(s) {', '.join(missing)} (has: {', '.join(df.columns) or 'none'})",
            "the header must name at least benchmark, version and value",
        )
    if df.empty:
        warnings.append(
            warning(
                WarningCode.EMPTY_LOG,
                f"{path} has a header but no rows: no trial finished before the run stopped",
                "rerun `ordertrap-gate run` (it resumes an interrupted log) or drop this file",
            )
        )
        return None
    df.insert(0, "source", source)
    df["row"] = np.arange(2, len(df) + 2)  # line number in the file, for messages
    return df


def _classify(df: pd.DataFrame, paths: Sequence[str], warnings: list[dict[str, str]]) -> pd.DataFrame:
    value = parse_numbers(df["value"]).to_numpy(dtype=np.float64)
    df = parse_columns(df)  # status, higher_is_better, positions: the trial log's rules
    status = df["status"] if "status" in df.columns else pd.Series(TrialStatus.OK.value, index=df.index)
    is_ok_status = (status == TrialStatus.OK.value).to_numpy()
    # Values outside (1e-150, 1e150) are parsing accidents, not timings; keeping them would let
    # squares and ratios overflow, so they count as invalid like NaN/inf.
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(value)
        finite = np.isfinite(value) & (magnitude < _LIMIT) & ((magnitude == 0) | (magnitude > 1 / _LIMIT))
    bad_value = is_ok_status & ~finite
    nonpositive = is_ok_status & finite & (value <= 0)
    kind = np.where(is_ok_status & finite & (value > 0), "ok", np.where(nonpositive, "dropped", "failed"))
    # `skipped` = the benchmark does not exist in that version (run writes it for a benchmark a
    # change adds or removes): absent, not failed, so a PR that adds a benchmark is not flagged.
    kind = np.where((status == TrialStatus.SKIPPED.value).to_numpy(), "absent", kind)
    out = df.assign(value=value, status=status.where(~bad_value, TrialStatus.INVALID.value), kind=kind)
    out["benchmark"] = parse_names(out["benchmark"])
    out["version"] = parse_names(out["version"])
    blank = (out["benchmark"] == "") | (out["version"] == "")
    if blank.any():
        warnings.append(
            warning(
                WarningCode.MISSING_NAME,
                f"{int(blank.sum())} row(s) have an empty benchmark or version and were ignored "
                f"(first: {paths[int(out.loc[blank, 'source'].iloc[0])]} line {int(out.loc[blank, 'row'].iloc[0])})",
                "fill in the benchmark and version columns of the trial log",
            )
        )
        out = out.loc[~blank]
    for mask, code, what, action in (
        (
            bad_value[~blank.to_numpy()],
            WarningCode.INVALID_VALUE,
            "an empty, non-numeric, NaN, infinite or implausible (|x| >= 1e150 or < 1e-150) value in an "
            "ok row; counted as failed trials",
            "make the benchmark print one finite number per measurement (adapter output)",
        ),
        (
            nonpositive[~blank.to_numpy()],
            WarningCode.NON_POSITIVE_VALUE,
            "a zero or negative value; relative changes need positive values, so these rows were ignored",
            "measure a positive quantity (time, throughput); for counts that can be 0 add a constant offset",
        ),
    ):
        if mask.any():
            rows = out.loc[mask]
            names = ", ".join(sorted(rows["benchmark"].unique())[:5])
            first = rows.iloc[0]
            warnings.append(
                warning(
                    code,
                    f"{int(mask.sum())} row(s) have {what} (benchmarks: {names}; first: "
                    f"{paths[int(first['source'])]} line {int(first['row'])}, value {df.loc[first.name, 'value']!r})",
                    action,
                )
            )
    return out


def _drop_duplicate_trials(
    frame: pd.DataFrame, names: list[str], warnings: list[dict[str, str]]
) -> pd.DataFrame:
    """The same trial twice (copied into two artifacts that differ elsewhere, e.g. one log and its
    resumed, longer copy) would double the sample and narrow every CI; a whole log given twice is
    caught earlier (:func:`_repeated_logs`). Rows are duplicates only when every column, trial
    number and start time included, is equal: two runners' logs never share those, while equal
    values inside a minimal `benchmark, version, value` file are legitimate repeats and are kept."""
    if not {"trial", "started_at"}.issubset(frame.columns):
        return frame
    # Rows equal in every column are equal in these few: when no two rows share them (one log,
    # or logs of different runners), the comparison of every column is skipped.
    keys = [c for c in ("trial", "started_at", "measurement", "instance") if c in frame.columns]
    if not frame.duplicated(subset=keys).any():
        return frame
    dup = frame.duplicated(subset=[c for c in frame.columns if c not in ("source", "row")])
    if not dup.any():
        return frame
    sources = sorted({names[int(i)] for i in frame.loc[dup, "source"]})
    warnings.append(
        warning(
            WarningCode.DUPLICATE_TRIALS,
            f"{int(dup.sum())} rows repeat rows of another log exactly (same trial, start time and value) "
            f"and were counted once: {', '.join(sources[:3])}",
            "pass each trial log once (several runners' logs are fine: their instance or trials differ)",
        )
    )
    return frame.loc[~dup.to_numpy()].reset_index(drop=True)


def _repeated_logs(paths: Sequence[Path]) -> dict[int, tuple[int, str]]:
    """Logs given more than once: index -> (index of the first, "path" | "content"). The same
    file under any name (same device and inode) is a repeat, and so is a file whose bytes equal
    an earlier log's (a copy): either would count every row twice. Empty files are left to the
    empty-log warning."""
    if len(paths) < 2:
        return {}
    repeats: dict[int, tuple[int, str]] = {}
    seen_files: dict[tuple[int, int], int] = {}
    by_size: dict[int, list[int]] = {}
    for i, path in enumerate(paths):
        try:
            st = path.stat()
        except OSError:
            continue  # a missing log is reported when it is read
        if not path.is_file():
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_files:
            repeats[i] = (seen_files[key], "path")
            continue
        seen_files[key] = i
        if st.st_size > 0:
            by_size.setdefault(st.st_size, []).append(i)
    for same_size in by_size.values():
        if len(same_size) < 2:
            continue
        seen_hashes: dict[str, int] = {}
        for i in same_size:
            try:
                with paths[i].open("rb") as fh:
                    digest = hashlib.file_digest(fh, "sha256").hexdigest()
            except OSError:
                continue
            first = seen_hashes.setdefault(digest, i)
            if first != i:
                repeats[i] = (first, "content")
    return repeats


def _refuse_oversized_series(frame: pd.DataFrame, names: Sequence[str]) -> None:
    """More than MAX_BENCHMARKS benchmarks, or more than MAX_VALUES values of one benchmark and
    version (more than one run collects): the time and the bootstrap's memory grow with them
    (gate/model.py), so they are refused before any statistics."""
    benchmarks = frame["benchmark"].nunique()
    if benchmarks > MAX_BENCHMARKS:
        raise InputError(
            f"{', '.join(names)}: {benchmarks:,} benchmarks, more than the {MAX_BENCHMARKS:,} one analysis "
            "takes (its time grows with them: 50,000 ran over 20 minutes)",
            "split the suite into shards and analyze each shard's logs on their own "
            "(docs/github-actions.md, Several runners), or check that the log's benchmark column holds names",
        )
    ok = frame.loc[frame["kind"] == "ok", ["benchmark", "version"]]
    counts = ok.groupby(["benchmark", "version"], sort=False).size()
    over = counts[counts > MAX_VALUES]
    if over.empty:
        return
    shown = "; ".join(
        f"{bench!r} in {version!r}: {int(n):,}"
        for (bench, version), n in zip(over.index[:3].tolist(), over.to_numpy()[:3], strict=True)
    )
    more = f" and {len(over) - 3} more" if len(over) > 3 else ""
    raise InputError(
        f"{', '.join(names)}: {len(over)} benchmark/version pair(s) have more than the {MAX_VALUES:,} "
        f"values one run collects per benchmark and version ({shown}{more}); analyze's memory grows "
        "with them (15,000 values took 2.7 GB)",
        "analyze the logs of one run (its runners' logs together are fine while each benchmark and "
        "version stays within the bound), or lower [full] suite_runs × iterations × measurements",
    )


def load_trials(paths: Sequence[str | Path]) -> TrialLogs:
    """Read and validate the trial logs; see the module docstring for what is kept."""
    if not paths:
        raise InputError("no trial log given", "pass one or more trials.csv files")
    warnings: list[dict[str, str]] = []
    frames: list[pd.DataFrame] = []
    metas: list[RunMeta] = []
    meta_sources: list[int] = []
    names = [str(p) for p in paths]
    errors: list[InputError] = []
    repeats = _repeated_logs([Path(p) for p in paths])
    for i, p in enumerate(paths):
        path = Path(p)
        if i in repeats:
            first, how = repeats[i]
            alias = "" if names[i] == names[first] else f" (the same file as {names[first]})"
            what = (
                f"{names[i]} was given twice{alias}; it was read once"
                if how == "path"
                else f"{names[i]} is byte-identical to {names[first]} (the same trial log twice, e.g. one "
                "artifact downloaded into two places) and was skipped"
            )
            warnings.append(
                warning(
                    WarningCode.DUPLICATE_TRIALS,
                    f"{what}: its rows would have been counted twice, doubling n and narrowing every CI",
                    "pass each trial log once (several runners' logs are fine: their instance or trials differ)",
                )
            )
            continue
        try:
            df = _read_one(path, i, warnings)
        except InputError as exc:
            if len(paths) == 1:
                raise
            # One unreadable log (e.g. a broken artifact of one runner) must not hide the others.
            errors.append(exc)
            warnings.append(warning(WarningCode.UNREADABLE_LOG, f"{exc.message}; skipped", exc.fix))
            continue
        if df is not None:
            frames.append(df)
        meta = run_meta.read_beside(path, warnings)
        if meta is not None:
            metas.append(meta)
            meta_sources.append(i)
    if not frames and errors:
        raise errors[0]
    if not frames:
        raise InputError(
            f"no rows in {', '.join(names)}: every trial log is empty",
            "run `ordertrap-gate run` to completion (or let it resume) before analyzing",
        )
    frame = pd.concat(frames, ignore_index=True, sort=False)
    frame = fill_blanks(frame)
    frame = _drop_duplicate_trials(frame, names, warnings)
    frame = _classify(frame, names, warnings)
    _refuse_oversized_series(frame, names)
    if not (frame["kind"] == "ok").any() and not (frame["kind"] == "failed").any():
        raise InputError(
            f"no usable value in {', '.join(names)}",
            "check that the value column holds positive numbers (see the warnings above)",
        )
    return TrialLogs(frame=frame, metas=metas, warnings=warnings, paths=names, meta_sources=meta_sources)
