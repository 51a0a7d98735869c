"""trials.csv schema 2 has the column `round`; a log of `run` without it (schema 1) was written by
an unreleased version only, so every reader refuses it naming the fix instead of guessing."""

from __future__ import annotations

import csv

import pytest

from gate.analysis.load import load_trials
from gate.calibration.dataset import normalise, read_tables
from gate.errors import InputError
from gate.model import TRIAL_COLUMNS, TRIAL_LOG_SCHEMA


def write_log(path, columns=TRIAL_COLUMNS, versions=("a", "b")):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        trial = 0
        for run in (1, 2):
            for it in (1, 2, 3):
                for v in versions:
                    trial += 1
                    row = [trial, "x", v, "box", run, "random", trial, it, 1, 1.0 + trial / 100, "s",
                           "false", "ok", "", "2026-01-01T00:00:00Z", 0.01, "full", 0]  # fmt: skip
                    w.writerow(row[: len(columns)])


def test_schema_2_ends_with_round():
    assert TRIAL_LOG_SCHEMA == 2 and TRIAL_COLUMNS[-1] == "round"


def test_a_schema_2_log_reads(tmp_path):
    log = tmp_path / "trials.csv"
    write_log(log)
    assert set(load_trials([log]).frame["round"]) == {"0"}
    table = normalise(read_tables([log]))
    assert table.is_trial_log and table.has_duration


@pytest.mark.parametrize("reader", ["analyze", "calibrate"])
def test_a_schema_1_log_is_refused_naming_the_rerun(tmp_path, reader):
    log = tmp_path / "trials.csv"
    write_log(log, columns=TRIAL_COLUMNS[:-1])
    with pytest.raises(InputError, match=r"without the column `round` \(schema 1\)") as err:
        load_trials([log]) if reader == "analyze" else read_tables([log])
    assert "ordertrap-gate run` again with this version" in err.value.fix
