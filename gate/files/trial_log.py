"""``trials.csv``: the append-only trial log.

:class:`TrialLog` writes the header once and all rows of one trial in one unbuffered write after
every trial (hyperfine's "persist after every trial"), fsync rate-limited. On resume,
:meth:`TrialLog.recover` keeps every complete trial and truncates anything after the last one (a
row cut by SIGKILL, or the first rows of a trial whose other rows never made it), so a resumed run
neither repeats nor loses a trial.
"""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gate.engine.process import disk_full_error, is_disk_full
from gate.engine.schedule import Trial
from gate.errors import InputError, RunError
from gate.model import TRIAL_COLUMNS, TrialStatus

if TYPE_CHECKING:
    pass


# ---- trial log ---------------------------------------------------------------------------------
HEADER_LINE = ",".join(TRIAL_COLUMNS) + "\n"
_NEWLINES = str.maketrans({"\n": " ", "\r": " "})


def _clean(text: str) -> str:
    # One row = one physical line, so recovery can split on b"\n" (names and reasons are
    # untrusted text).
    return text.translate(_NEWLINES)


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

    def recover(self, schedule: Sequence[Trial]) -> set[int]:
        """Finished trial numbers; truncates everything after the last complete trial."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            self.path.write_text(HEADER_LINE, encoding="utf-8")
            return set()
        data = self.path.read_bytes()
        fix = "pass a new --out directory (this one holds a different run), or delete it"
        if not data.startswith(HEADER_LINE.encode()):
            if HEADER_LINE.encode().startswith(data):  # killed while writing the header
                self.path.write_text(HEADER_LINE, encoding="utf-8")
                return set()
            raise InputError(f"{self.path} does not start with the trial-log header", fix)
        finished: set[int] = set()
        keep = len(HEADER_LINE)
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
                number = int(row[0])
                status = row[TRIAL_COLUMNS.index("status")]
                trial = schedule[number - 1]
                valid = (
                    len(row) == len(TRIAL_COLUMNS)
                    and number >= 1
                    and row[1] == _clean(trial.benchmark)
                    and row[2] == _clean(trial.version)
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

    def append(self, rows: list[list[str]]) -> None:
        assert self._fd is not None, "TrialLog.open() first"
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
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
