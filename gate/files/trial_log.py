"""``trials.csv``: the append-only trial log, its writer and its one reader.

:class:`TrialLog` writes the header once and all rows of one trial in one unbuffered write after
every trial (hyperfine's "persist after every trial"), fsync rate-limited. On resume,
:meth:`TrialLog.recover` keeps every complete trial and truncates anything after the last one (a
row cut by SIGKILL, or the first rows of a trial whose other rows never made it), so a resumed run
neither repeats nor loses a trial.

:func:`read_rows` is the one reader (``analyze`` and ``calibrate`` alike): every cell as text
except the number columns, which pandas' C parser reads as numbers where every cell of the column
is a number by :func:`parse_numbers`' rule (else as text, and the rule converts them); a last line
cut off by a kill left out with a warning, columns the reader does not know (a newer writer's, a
tidy file's own) passed through as text. The ``parse_*`` functions are the one set of rules by
which cells become statuses, flags and numbers (docs/contracts.md, trials.csv).
"""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gate.errors import InputError, RunError, disk_full_error, is_disk_full
from gate.model import MAX_TRIAL_LOG_BYTES, TRIAL_COLUMNS, Trial, TrialStatus, warning
from gate.warning_codes import WarningCode

if TYPE_CHECKING:
    import pandas as pd  # the readers import it when called: `run` only writes and stays light


# ---- trial log ---------------------------------------------------------------------------------
HEADER_LINE = ",".join(TRIAL_COLUMNS) + "\n"
# A UTF-8 byte-order mark: a spreadsheet that saves a CSV file may put one before the header. It is
# not part of the first column's name; every reader here skips it and a resume keeps it.
BOM = b"\xef\xbb\xbf"
_COLUMN = {name: i for i, name in enumerate(TRIAL_COLUMNS)}
_NEWLINES = str.maketrans({"\n": " ", "\r": " "})


def _clean(text: str) -> str:
    # One row = one physical line, so recovery can split on b"\n" (names and reasons are
    # untrusted text).
    return text.translate(_NEWLINES)


@dataclass(frozen=True)
class TrialRow:
    """One row of ``trials.csv`` as :class:`TrialLog` writes it; the field order is the column
    order (:data:`gate.model.TRIAL_COLUMNS`, checked below), so no writer indexes columns by
    position. Names and reasons are untrusted text: :meth:`cells` keeps each row on one line."""

    trial: int
    benchmark: str
    version: str
    instance: str
    suite_run: int
    order_type: str
    position: int
    iteration: int
    measurement: int
    value: float | None  # None: the trial failed (status says how, reason says why)
    unit: str
    higher_is_better: bool | None  # None: the benchmark is not in this version
    status: str
    reason: str
    started_at: str
    elapsed_s: float
    config: str
    round: int

    def cells(self) -> list[str]:
        hib = "" if self.higher_is_better is None else ("true" if self.higher_is_better else "false")
        return [
            str(self.trial),
            _clean(self.benchmark),
            _clean(self.version),
            _clean(self.instance),
            str(self.suite_run),
            self.order_type,
            str(self.position),
            str(self.iteration),
            str(self.measurement),
            "" if self.value is None else repr(float(self.value)),
            self.unit,
            hib,
            self.status,
            _clean(self.reason)[:500],
            self.started_at,
            f"{self.elapsed_s:.6f}",
            self.config,
            str(self.round),
        ]


assert tuple(f.name for f in fields(TrialRow)) == TRIAL_COLUMNS, "TrialRow must list the columns in order"


class TrialLog:
    """Append-only ``trials.csv``: one descriptor, one ``write`` per trial.

    The write hands every trial to the kernel at once, which is what survives SIGKILL (and
    Ctrl-C, OOM kills, a cancelled job). The descriptor is unbuffered: a write that fails
    (a full disk) leaves nothing queued in the gate to be written later, only a torn tail that
    :meth:`recover` cuts. ``os.fsync`` (what survives a power cut) is rate-limited
    to once per ``fsync_interval`` seconds and done on close: an fsync costs ~3.5 ms on this
    disk, more than a trivial benchmark, so fsyncing every trial would triple the driver's cost
    (benchmarks/bench_driver.py). At most the last ``fsync_interval`` seconds of trials can be lost
    to a power cut; recovery cuts any torn tail either way.
    """

    def __init__(self, path: Path, *, fsync: bool = True, fsync_interval: float = 1.0) -> None:
        self.path = path
        self.fsync = fsync
        self.fsync_interval = fsync_interval
        self._fd: int | None = None
        self._last_sync = 0.0
        # (status, reason) of each finished trial :meth:`recover` found (gate/engine/give_up.py)
        self.statuses: dict[int, tuple[str, str]] = {}

    def recover(self, schedule: Sequence[Trial]) -> set[int]:
        """Finished trial numbers; truncates everything after the last complete trial."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            self.path.write_text(HEADER_LINE, encoding="utf-8")
            return set()
        data = self.path.read_bytes()
        fix = "pass a new --out directory (this one holds a different run), or delete it"
        head = (BOM if data.startswith(BOM) else b"") + HEADER_LINE.encode()
        if not data.startswith(head):
            if head.startswith(data):  # killed while writing the header
                self.path.write_bytes(head)
                return set()
            raise InputError(f"{self.path} does not start with the trial-log header", fix)
        finished: set[int] = set()
        keep = len(head)
        pos = keep
        current: int | None = None
        count = 0
        ok = True
        while True:
            end = data.find(b"\n", pos)
            if end < 0:
                break  # no line or a partial final line (SIGKILL mid-write): dropped below
            line = data[pos:end].decode("utf-8", "replace")
            pos = end + 1
            try:
                row = next(csv.reader([line]))
                number = int(row[_COLUMN["trial"]])
                status = row[_COLUMN["status"]]
                trial = schedule[number - 1]
                valid = (
                    len(row) == len(TRIAL_COLUMNS)
                    and number >= 1
                    and row[_COLUMN["benchmark"]] == _clean(trial.benchmark)
                    and row[_COLUMN["version"]] == _clean(trial.version)
                )
            except (ValueError, IndexError, StopIteration):
                valid = False
            if not valid:
                line_no = data.count(b"\n", 0, pos)
                raise InputError(f"{self.path}: line {line_no} does not match the schedule in meta.json", fix)
            if number != current:
                if current is not None:
                    break  # the previous trial stopped short: its tail was lost
                if number in finished:
                    raise InputError(f"{self.path}: trial {number} appears twice", fix)
                current, count, ok = number, 0, status == TrialStatus.OK.value
            count += 1
            needed = trial.measurements if ok else 1
            if count == needed:
                finished.add(number)
                self.statuses[number] = (status, row[_COLUMN["reason"]])
                keep = pos
                current = None
        if keep < len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())
        return finished

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def open(self) -> None:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise self._error(exc, "opening") from None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                if self.fsync:
                    os.fsync(fd)
            except OSError as exc:
                raise self._error(exc, "syncing") from None
            finally:
                os.close(fd)

    def append(self, rows: Sequence[TrialRow]) -> None:
        """All rows of one trial, in one write."""
        assert self._fd is not None, "TrialLog.open() first"
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(row.cells() for row in rows)
        data = memoryview(buf.getvalue().encode("utf-8"))
        try:
            while data:  # a short write (a nearly full disk) goes on where it stopped
                data = data[os.write(self._fd, data) :]
            if self.fsync:
                now = time.monotonic()
                if now - self._last_sync >= self.fsync_interval:
                    os.fsync(self._fd)
                    self._last_sync = now
        except OSError as exc:
            raise self._error(exc, "writing") from None

    def _error(self, exc: OSError, doing: str) -> RunError:
        if is_disk_full(exc):
            return disk_full_error(f"{doing} the trial log", f"{self.path}: {exc.strerror}", self.path.parent)
        return RunError(
            f"{doing} the trial log {self.path} failed: {exc.strerror or exc}",
            "check the --out directory (permissions, the disk), then run the same command again to resume",
        )


# ---- reading ----------------------------------------------------------------------------------
# Spellings of true in ``higher_is_better`` (any case, surrounding blanks ignored); anything
# else is false, as the writer writes ``true``/``false``.
TRUE_SPELLINGS = frozenset({"true", "1", "yes", "y", "t"})
# Columns of docs/contracts.md that hold numbers (positions, trial number, duration).
NUMBER_COLUMNS: tuple[str, ...] = ("trial", "suite_run", "iteration", "measurement", "position", "elapsed_s")
_TAIL = 1 << 16  # bytes read from the end of a log to find a cut-off last line
_RUN_COLUMNS = frozenset({"trial", "started_at"})  # a log with these was written by `run`


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
    names = next(csv.reader([header.removeprefix(BOM).decode("utf-8", "replace").rstrip("\r\n")]), [])
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
    import pandas as pd

    if cut is None:
        return pd.read_csv(path, **kwargs)
    with path.open("rb") as fh:
        data = fh.read(cut.offset)
    return pd.read_csv(io.BytesIO(data), **kwargs)


def header(path: Path) -> list[str] | None:
    """The column names of a CSV file's first line, stripped; ``None`` for an empty file. Raises
    :class:`InputError` naming the file when it is missing or unreadable. Lets a command tell a
    trial log from another CSV format before reading it."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:  # a BOM is not part of a name
            line = fh.readline()
    except (OSError, UnicodeDecodeError) as exc:
        what = "no such file" if isinstance(exc, FileNotFoundError) else f"unreadable ({exc})"
        raise InputError(f"{path}: {what}", "pass the path of an existing CSV file") from None
    if not line.strip():
        return None
    try:
        return [name.strip() for name in next(csv.reader([line.rstrip("\r\n")]))]
    except csv.Error as exc:
        raise InputError(
            f"{path}: the header line is not CSV ({exc})", "pass a CSV file with a header row"
        ) from None


def _raw_names(path: Path) -> list[str] | None:
    """The header's names as pandas sees them with ``skipinitialspace`` (not stripped at the end),
    or ``None`` when a name repeats (pandas renames the repeats) or the header is not CSV."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            names = next(csv.reader([fh.readline().rstrip("\r\n")], skipinitialspace=True), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return names if len(set(names)) == len(names) else None


def read_rows(
    path: Path, warnings: list[dict[str, str]], numbers: Collection[str] = ()
) -> pd.DataFrame | None:
    """The rows of one trial log (or tidy CSV file) with the header names stripped; every column is
    kept, known or not. The number columns (:data:`NUMBER_COLUMNS`, ``value`` and the names in
    ``numbers``, e.g. calibrate's ``--levels`` and ``--value``) are read by pandas' C parser as
    int64/float64 when every cell of the column is a number (an empty cell is NaN), which gives
    the numbers :func:`parse_numbers`' rule gives for their text (tests/unit/files pin it); a
    column with any other cell (``x``, ``nan``, ``1_0``) is read as text like every other column
    (blank cells as ``""``, blanks after a comma skipped), and :func:`parse_numbers` converts it
    by the rule. ``None`` for an empty file (with an ``empty_log`` warning); a cut-off last line is
    left out with a ``cut_off_row`` warning. Raises :class:`InputError` naming the file when it is
    missing or is not CSV. Callers check the columns they need: which those are depends on them."""
    if not path.is_file():
        raise InputError(
            f"trial log {path} does not exist",
            "pass the path of a trials.csv written by `ordertrap-gate run` (or a CSV file with a header row)",
        )
    size = path.stat().st_size
    if size > MAX_TRIAL_LOG_BYTES:
        raise InputError(
            f"trial log {path} has {size / 1e6:,.0f} MB, more than the {MAX_TRIAL_LOG_BYTES / 1e6:,.0f} MB "
            "the gate reads (pandas holds about 5 times a log's size in memory)",
            "pass the trials.csv files `ordertrap-gate run` wrote, one per runner; a suite this large "
            "is split into shards (docs/github-actions.md, Several runners)",
        )
    if size == 0:
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
    import pandas as pd

    # Reading every cell as text and converting the numbers afterwards took 3-4x one plain
    # pd.read_csv (docs/performance.md "Reading trial logs"): the C parser converts the number
    # columns at a fraction of that. The text columns are named, so nothing else is guessed.
    wanted = {*NUMBER_COLUMNS, "value", *numbers}
    names = _raw_names(path)
    df = None
    if names is not None:
        number_names = [n for n in names if n.strip() in wanted]
        df = _read(
            path,
            cut,
            dtype={n: str for n in names if n.strip() not in wanted},
            na_values={n: [""] for n in number_names},
            low_memory=False,  # one type per column, not one per chunk
        )
        if not all(
            df[n].dtype.kind in "iuf" or isinstance(df[n].dtype, pd.StringDtype) for n in number_names
        ):
            # a column of true/false only (bool) or of integers beyond 64 bits (Python ints): not
            # numbers the C parser and the rule agree on, so the whole log is read as text
            df = None
    if df is None:
        df = _read(path, cut, dtype=str)
    df.columns = [str(c).strip() for c in df.columns]
    if "round" not in df.columns and _RUN_COLUMNS.issubset(df.columns):
        raise InputError(
            f"{path} is a trial log of `run` without the column `round` (schema 1): an unreleased "
            "ordertrap-gate wrote it, this one reads the logs of schema 2 only",
            "run `ordertrap-gate run` again with this version (a new --out) to write the trials anew",
        )
    return df


def fill_blanks(frame: pd.DataFrame) -> pd.DataFrame:
    """Logs of :func:`read_rows` concatenated: a cell of a column another log lacks becomes what
    an empty cell reads as, ``""`` in a text column and NaN (left as it is) in a number column."""
    blanks = {c: "" for c in frame.columns if frame[c].dtype.kind not in "iuf" and frame[c].isna().any()}
    return frame.fillna(blanks) if blanks else frame


def _read(path: Path, cut: CutLine | None, **kwargs: Any) -> pd.DataFrame:
    import pandas as pd

    try:
        return read_csv_without_cut_line(path, cut, keep_default_na=False, skipinitialspace=True, **kwargs)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise InputError(
            f"{path} is not a readable CSV trial log ({exc})",
            "pass the trials.csv written by `ordertrap-gate run` (comma-separated, header row)",
        ) from exc


def elapsed_by_trial(path: Path) -> dict[int, float]:
    """``elapsed_s`` per trial number (all rows of a trial share it): the budget clock of follow-up
    rounds and the budget a resumed run has already used. Read by :func:`read_rows`, so a cut-off
    last line is left out as every reader leaves it out; a row whose trial number is not a whole
    number or whose ``elapsed_s`` is not a finite number is left out; a missing, empty or
    unreadable file, or one without both columns, gives no trials."""
    import numpy as np

    if not path.is_file():
        return {}
    try:
        rows = read_rows(path, [])
    except InputError:
        return {}
    if rows is None or not {"trial", "elapsed_s"}.issubset(rows.columns):
        return {}
    trial = parse_numbers(rows["trial"]).to_numpy(dtype=np.float64)
    elapsed = parse_numbers(rows["elapsed_s"]).to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(trial) & np.isfinite(elapsed) & (trial == np.floor(trial))
    return dict(zip(trial[keep].astype(np.int64).tolist(), elapsed[keep].tolist(), strict=True))


def _text(column: pd.Series, lower: bool = False) -> pd.Series:
    """The cells as stripped text (in lower case with ``lower``). Names, statuses and flags repeat:
    each distinct cell is converted once (stripping 40,000 cells one by one costs 0.2 s per column)."""
    import pandas as pd

    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    stripped = pd.Index(uniques).astype(str).str.strip()
    if lower:
        stripped = stripped.str.lower()
    return pd.Series(stripped.to_numpy()[codes], index=column.index, dtype=object)


def parse_names(column: pd.Series) -> pd.Series:
    """Benchmark, version and instance names as text, surrounding blanks ignored."""
    return _text(column)


_SAMPLE = 1000  # cells looked at to guess whether a column repeats (parse_numbers)


def parse_numbers(column: pd.Series) -> pd.Series:
    """Numbers, surrounding blanks ignored; NaN where a cell is empty or not a number.

    The rule is ``pd.to_numeric(errors="coerce")`` (it ignores blanks around a number itself),
    applied once per distinct cell when the cells repeat: positions, trial numbers and durations
    repeat, and converting each of 40,000 cells costs ~1 µs (benchmarks/bench_read_trials.py).
    Converting the distinct cells gives the same numbers and the same dtype (int64 when every
    cell is a whole number), since the dtype depends only on the set of cells."""
    import pandas as pd

    if column.dtype.kind in "iuf":  # read as numbers by the C parser (read_rows): the same numbers
        return column
    head = column.iloc[:_SAMPLE]
    if len(column) <= _SAMPLE or head.nunique(dropna=False) > len(head) // 2:
        return pd.to_numeric(column, errors="coerce")
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    numbers = pd.to_numeric(pd.Series(uniques, dtype=column.dtype), errors="coerce").to_numpy()
    return pd.Series(numbers[codes], index=column.index, name=column.name)


def parse_flags(column: pd.Series) -> pd.Series:
    """``higher_is_better``: true for the spellings in :data:`TRUE_SPELLINGS`, else false."""
    return _text(column, lower=True).isin(TRUE_SPELLINGS)


def parse_statuses(column: pd.Series) -> pd.Series:
    """Trial statuses in lower case, surrounding blanks ignored; an empty status is ``ok`` (a
    minimal log without one lists measurements)."""
    return _text(column, lower=True).replace("", TrialStatus.OK.value)


def parse_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the known columns it has parsed by the rules above (``status``,
    ``higher_is_better``, :data:`NUMBER_COLUMNS`); ``value`` and every other column as they were."""
    parsed: dict[str, Any] = {}
    if "status" in frame.columns:
        parsed["status"] = parse_statuses(frame["status"])
    if "higher_is_better" in frame.columns:
        parsed["higher_is_better"] = parse_flags(frame["higher_is_better"])
    for column in NUMBER_COLUMNS:
        if column in frame.columns:
            parsed[column] = parse_numbers(frame[column])
    return frame.assign(**parsed) if parsed else frame
