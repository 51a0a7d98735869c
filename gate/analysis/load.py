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

import csv
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gate import jsontext
from gate.errors import InputError
from gate.model import TRIAL_LOG_SCHEMA, TrialStatus, warning
from gate.warning_codes import WarningCode, canonical

REQUIRED: tuple[str, ...] = ("benchmark", "version", "value")
_TRUE = {"true", "1", "yes", "y", "t"}
_LIMIT = 1e150
_TAIL = 1 << 16  # bytes read from the end of a log to find a cut-off last line
_RUN_COLUMNS = frozenset({"trial", "started_at"})  # a log with these was written by `run`


@dataclass(frozen=True)
class TrialLogs:
    """All rows of all logs (``source`` = index of the log, ``kind`` as above) and their metas."""

    frame: pd.DataFrame
    metas: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    @property
    def meta(self) -> dict[str, Any] | None:
        return self.metas[0] if self.metas else None


def meta_path_for(path: Path) -> Path | None:
    """meta.json beside the log: ``<log>.meta.json``, ``<stem>.meta.json``, then ``meta.json``."""
    for candidate in (
        path.with_name(path.name + ".meta.json"),
        path.with_name(path.stem + ".meta.json"),
        path.with_name("meta.json"),
    ):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class CutLine:
    """The last line of a log, cut off while it was written (a kill during `run`, a copy that
    stopped short): ``line`` is its 1-based line number, ``offset`` the byte where it starts."""

    line: int
    offset: int
    text: str
    fields: int
    header_fields: int
    written_by_run: bool

    def describe(self, path: str | Path) -> str:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        what = (
            f"{self.fields} of {self.header_fields} fields"
            if self.fields < self.header_fields
            else "a quoted field that never closes"
        )
        return f"{path} line {self.line} is cut off ({shown!r}: {what}, no line end)"

    def fix(self, path: str | Path) -> str:
        if self.written_by_run:
            return (
                "nothing to do for this result; to measure that trial too, resume the run: the same "
                "`ordertrap-gate run` command with the same --out truncates the cut line and reruns the trial"
            )
        return f"complete or delete the last line of {path}"


def cut_off_last_line(path: Path) -> CutLine | None:
    """A last line that does not end the file properly: no line end and fewer fields than the
    header, or no line end in a log written by `run` (it ends every row with a newline, so a row
    without one was cut, even when only its last field is short). A hand-written file whose last
    row merely lacks the final newline is complete.

    Raises :class:`InputError` naming the file when the csv module cannot parse it (a carriage
    return inside an unquoted field, a field over the csv module's size limit)."""
    try:
        return _cut_off_last_line(path)
    except csv.Error as exc:
        reason = str(exc).split(" - do you need")[0]  # the csv module's hint is about open()
        stray_cr = "new-line character" in reason
        raise InputError(
            f"{path} is not a readable CSV trial log ({reason})"
            + (": a carriage return (\\r) inside an unquoted field" if stray_cr else ""),
            'remove the stray \\r or quote the field ("…") as the trials.csv written by `ordertrap-gate run` does'
            if stray_cr
            else "repair the malformed record, or pass the trials.csv written by `ordertrap-gate run`",
        ) from None


def _cut_off_last_line(path: Path) -> CutLine | None:
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            header = fh.readline()
            if size <= len(header):
                return None  # only a header: a cut header is reported as missing columns
            fh.seek(max(len(header), size - _TAIL))
            tail = fh.read()
    except OSError:
        return None
    if tail.endswith((b"\n", b"\r")):
        return None
    start = tail.rfind(b"\n")
    if start < 0 and size - len(header) > len(tail):
        return None  # a last line longer than the tail read: not a row the run writes
    offset = size - len(tail) + start + 1
    text = tail[start + 1 :].decode("utf-8", "replace")
    if not text.strip():
        return None
    names = next(csv.reader([header.decode("utf-8", "replace").rstrip("\r\n")]), [])
    fields = next(csv.reader([text]), [])
    written_by_run = _RUN_COLUMNS.issubset(c.strip() for c in names)
    if len(fields) >= len(names) and not written_by_run:
        return None
    if not written_by_run and b'"' in tail:
        # A quoted field may span lines (`run` never writes one; other tools may): the last
        # physical line can end a complete record, or a cut can fall inside a quoted field. A
        # full CSV parse finds where the last record starts; it is complete when its quotes are
        # balanced and it has every field.
        data = path.read_bytes()
        reader = csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline=""))
        last: list[str] = []
        last_line = 1
        previous = 0
        for record_fields in reader:
            last, last_line, previous = record_fields, previous + 1, reader.line_num
        record = data.split(b"\n", last_line - 1)[-1]  # from the last record's first line on
        offset = len(data) - len(record)
        if record.count(b'"') % 2 == 0 and len(last) >= len(names):
            return None
        text = record.decode("utf-8", "replace")
        return CutLine(last_line, offset, text, len(last), len(names), written_by_run)
    with path.open("rb") as fh:
        line = 1 + sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    return CutLine(line, offset, text, len(fields), len(names), written_by_run)


def read_csv_without_cut_line(path: Path, cut: CutLine | None, **kwargs: Any) -> pd.DataFrame:
    """``pd.read_csv`` of ``path`` without its cut-off last line (when there is one)."""
    if cut is None:
        return pd.read_csv(path, **kwargs)
    with path.open("rb") as fh:
        data = fh.read(cut.offset)
    return pd.read_csv(io.BytesIO(data), **kwargs)


def _read_meta(path: Path, warnings: list[dict[str, str]]) -> dict[str, Any] | None:
    meta_path = meta_path_for(path)
    if meta_path is None:
        return None
    try:
        meta = jsontext.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: bad UTF-8, bad JSON, nesting too deep
        warnings.append(
            warning(
                WarningCode.META_UNREADABLE,
                f"{meta_path} could not be read ({exc}); environment, time and defaults are unknown",
                f"restore {meta_path.name} from the run, or delete it to silence this warning",
            )
        )
        return None
    if not isinstance(meta, dict):
        return None
    version = meta.get("schema_version", TRIAL_LOG_SCHEMA)
    if isinstance(version, int) and version > TRIAL_LOG_SCHEMA:
        raise InputError(
            f"{meta_path} has schema_version {version}, newer than this gate understands ({TRIAL_LOG_SCHEMA})",
            "upgrade ordertrap-gate to the version that wrote the log",
        )
    return _well_typed_meta(meta, meta_path, warnings)


# meta.json fields that docs/contracts.md gives as objects (or null), and the warning fields
_META_OBJECTS = ("environment", "versions", "full", "benchmark_configs", "calibration")
_WARNING_FIELDS = ("code", "message", "action")


def _well_typed_meta(meta: dict[str, Any], meta_path: Path, warnings: list[dict[str, str]]) -> dict[str, Any]:
    """``meta`` without the fields that do not have their documented type, and a ``meta_invalid``
    warning naming them: like an unreadable meta.json, they are unknown, and the trials are still
    analysed (everything shown from them would otherwise fail later, far from the cause)."""
    meta = dict(meta)
    dropped = []
    for key in _META_OBJECTS:
        if meta.get(key) is not None and not isinstance(meta[key], dict):
            dropped.append(f"{key} ({type(meta.pop(key)).__name__}, not an object)")
    raw = meta.get("warnings")
    if raw is not None and not isinstance(raw, list):
        dropped.append(f"warnings ({type(meta.pop('warnings')).__name__}, not a list)")
    elif raw:
        kept = [
            w for w in raw if isinstance(w, dict) and all(isinstance(w.get(k), str) for k in _WARNING_FIELDS)
        ]
        if len(kept) < len(raw):
            dropped.append(
                f"{len(raw) - len(kept)} of {len(raw)} warnings (not objects with string code, message, action)"
            )
        # an older run's spelling of a code is read as today's (gate/warning_codes.py)
        meta["warnings"] = [{**w, "code": canonical(w["code"])} for w in kept]
    if dropped:
        warnings.append(
            warning(
                WarningCode.META_INVALID,
                f"{meta_path} has fields of the wrong type, ignored: {'; '.join(dropped)}",
                f"restore {meta_path.name} as `ordertrap-gate run` wrote it (docs/contracts.md, meta.json); "
                "the trials themselves are analysed",
            )
        )
    return meta


def _read_one(path: Path, source: int, warnings: list[dict[str, str]]) -> pd.DataFrame | None:
    if not path.is_file():
        raise InputError(f"trial log {path} does not exist", "pass the path of a trials.csv written by `run`")
    if path.stat().st_size == 0:
        warnings.append(
            warning(
                WarningCode.EMPTY_LOG,
                f"{path} is empty (0 bytes): no trial finished before the run stopped",
                "rerun `ordertrap-gate run` (it resumes an interrupted log) or drop this file",
            )
        )
        return None
    cut = cut_off_last_line(path)
    if cut is not None:
        warnings.append(
            warning(WarningCode.CUT_OFF_ROW, f"{cut.describe(path)}; the row was left out", cut.fix(path))
        )
    try:
        df = read_csv_without_cut_line(path, cut, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise InputError(
            f"{path} is not a readable CSV trial log ({exc})",
            "pass the trials.csv written by `ordertrap-gate run` (comma-separated, header row)",
        ) from exc
    df.columns = [str(c).strip() for c in df.columns]
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
    if "round" not in df.columns and set(df.columns) >= _RUN_COLUMNS:
        df["round"] = "0"  # a schema-1 log of `run`: every trial was planned
    df["row"] = np.arange(2, len(df) + 2)  # line number in the file, for messages
    return df


def _classify(df: pd.DataFrame, paths: Sequence[str], warnings: list[dict[str, str]]) -> pd.DataFrame:
    raw = df["value"].astype(str).str.strip()
    value = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
    if "status" in df.columns:
        status = df["status"].astype(str).str.strip().str.lower().replace("", TrialStatus.OK.value)
    else:
        status = pd.Series(TrialStatus.OK.value, index=df.index)
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
    out["benchmark"] = out["benchmark"].astype(str).str.strip()
    out["version"] = out["version"].astype(str).str.strip()
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
    if "higher_is_better" in out.columns:
        out["higher_is_better"] = out["higher_is_better"].astype(str).str.strip().str.lower().isin(_TRUE)
    for col in ("trial", "suite_run", "iteration", "measurement", "position", "elapsed_s"):
        if col in out.columns:
            out[col] = pd.to_numeric(out[col].astype(str).str.strip(), errors="coerce")
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


def load_trials(paths: Sequence[str | Path]) -> TrialLogs:
    """Read and validate the trial logs; see the module docstring for what is kept."""
    if not paths:
        raise InputError("no trial log given", "pass one or more trials.csv files")
    warnings: list[dict[str, str]] = []
    frames: list[pd.DataFrame] = []
    metas: list[dict[str, Any]] = []
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
        meta = _read_meta(path, warnings)
        if meta is not None:
            metas.append(meta)
    if not frames and errors:
        raise errors[0]
    if not frames:
        raise InputError(
            f"no rows in {', '.join(names)}: every trial log is empty",
            "run `ordertrap-gate run` to completion (or let it resume) before analyzing",
        )
    frame = pd.concat(frames, ignore_index=True, sort=False)
    frame = frame.fillna("") if frame.isna().to_numpy().any() else frame
    frame = _drop_duplicate_trials(frame, names, warnings)
    frame = _classify(frame, names, warnings)
    if not (frame["kind"] == "ok").any() and not (frame["kind"] == "failed").any():
        raise InputError(
            f"no usable value in {', '.join(names)}",
            "check that the value column holds positive numbers (see the warnings above)",
        )
    return TrialLogs(frame=frame, metas=metas, warnings=warnings, paths=names)
