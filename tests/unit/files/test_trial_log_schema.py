"""trials.csv schema 2 adds the column `round`; logs written before it (schema 1) still read."""

from __future__ import annotations

import csv

from gate.analysis.load import load_trials
from gate.calibration.dataset import normalise, read_tables
from gate.model import TRIAL_COLUMNS, TRIAL_COLUMNS_V1, TRIAL_LOG_SCHEMA


def write_v1(path, versions=("a", "b")):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(TRIAL_COLUMNS_V1)
        trial = 0
        for run in (1, 2):
            for it in (1, 2, 3):
                for v in versions:
                    trial += 1
                    w.writerow([trial, "x", v, "box", run, "random", trial, it, 1, 1.0 + trial / 100, "s",
                                "false", "ok", "", "2026-01-01T00:00:00Z", 0.01, "full"])  # fmt: skip


def test_schema_2_appends_round():
    assert TRIAL_LOG_SCHEMA == 2
    assert TRIAL_COLUMNS[-1] == "round" and TRIAL_COLUMNS[:-1] == TRIAL_COLUMNS_V1


def test_a_schema_1_log_reads_as_all_planned(tmp_path):
    log = tmp_path / "trials.csv"
    write_v1(log)
    frame = load_trials([log]).frame
    assert set(frame["round"]) == {"0"} and len(frame) == 12


def test_calibrate_recognises_a_schema_1_log(tmp_path):
    log = tmp_path / "trials.csv"
    write_v1(log, versions=("a",))
    table = normalise(read_tables([log]))
    assert table.is_trial_log and table.has_duration
