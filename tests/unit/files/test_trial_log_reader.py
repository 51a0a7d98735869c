"""The trial log's one reader and its parsing rules: what ``analyze`` and ``calibrate`` both see."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.analysis.load import load_trials
from gate.calibration.dataset import normalise, read_tables
from gate.errors import InputError
from gate.files.trial_log import (
    elapsed_by_trial,
    parse_columns,
    parse_flags,
    parse_numbers,
    parse_statuses,
    read_rows,
)
from gate.model import TRIAL_COLUMNS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True), ("True", True), (" TRUE ", True), ("1", True), ("yes", True), (" y", True),
        ("t", True), ("false", False), ("0", False), ("no", False), ("", False), ("maybe", False),
    ],
)  # fmt: skip
def test_higher_is_better_spellings(text: str, expected: bool) -> None:
    assert parse_flags(pd.Series([text])).tolist() == [expected]


def test_statuses_are_lower_case_and_stripped_and_empty_means_ok() -> None:
    statuses = parse_statuses(pd.Series(["ok", " OK ", "", "Failed", "timeout "]))
    assert statuses.tolist() == ["ok", "ok", "ok", "failed", "timeout"]


def test_numbers_ignore_blanks_and_anything_else_is_nan() -> None:
    numbers = parse_numbers(pd.Series([" 3 ", "2.5", "", "x", "1e3"])).tolist()
    assert numbers[0] == 3 and numbers[1] == 2.5 and numbers[4] == 1000
    assert math.isnan(numbers[2]) and math.isnan(numbers[3])


def test_unknown_columns_pass_through_as_text(tmp_path: Path) -> None:
    path = tmp_path / "trials.csv"
    path.write_text(" benchmark , version,value,round,note\na,v1, 1.5 ,2,  keep me\n")
    warnings: list[dict[str, str]] = []
    frame = read_rows(path, warnings)
    assert frame is not None and warnings == []
    assert list(frame.columns) == ["benchmark", "version", "value", "round", "note"]
    parsed = parse_columns(frame)
    assert parsed["round"].tolist() == ["2"] and parsed["note"].tolist() == ["keep me"]
    # the value column is read as numbers (by parse_numbers' rule); classifying them is the caller's
    assert parsed["value"].tolist() == [1.5]


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist") as err:
        read_rows(tmp_path / "nope.csv", [])
    assert "nope.csv" in err.value.message and err.value.fix


def test_an_empty_file_is_a_warning_not_rows(tmp_path: Path) -> None:
    path = tmp_path / "trials.csv"
    path.write_text("")
    warnings: list[dict[str, str]] = []
    assert read_rows(path, warnings) is None
    assert [w["code"] for w in warnings] == ["empty_log"]


def _log(tmp_path: Path, higher_is_better: str, status: str) -> Path:
    """A full-configuration log of two benchmarks, 3 × 2 × 1 positions each."""
    rows = []
    trial = 0
    for name, value in (("ops", 1000.0), ("lat", 1.0)):
        for s in (1, 2, 3):
            for i in (1, 2):
                trial += 1
                row = dict.fromkeys(TRIAL_COLUMNS, "")
                row.update(
                    trial=trial, benchmark=name, version="main", instance="host", suite_run=s,
                    order_type="random", position=1, iteration=i, measurement=1,
                    value=value + trial / 100, unit="ops/s" if name == "ops" else "s",
                    higher_is_better=higher_is_better if name == "ops" else "false",
                    status=status, started_at="2026-11-26T00:00:00Z", elapsed_s=0.5, config="full",
                )  # fmt: skip
                rows.append(row)
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows, columns=list(TRIAL_COLUMNS)).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("flag", "status"), [("yes", "ok"), (" True ", "ok "), ("t", "OK")])
def test_analyze_and_calibrate_read_one_log_alike(tmp_path: Path, flag: str, status: str) -> None:
    path = _log(tmp_path, flag, status)
    logs = load_trials([path])
    analyzed = logs.frame.groupby("benchmark")["higher_is_better"].first().to_dict()
    table = normalise(read_tables([path]))
    calibrated = table.frame.groupby("benchmark")["higher_is_better"].first().to_dict()
    assert analyzed == calibrated == {"ops": True, "lat": False}
    # every row is an ok trial to both
    assert (logs.frame["kind"] == "ok").all() and len(table.frame) == len(logs.frame) == 12
    assert not [w for w in table.warnings if w["code"] == "failed_trials"]


def test_a_written_row_reads_back_column_by_column(tmp_path: Path) -> None:
    """TrialRow's fields are the columns in order: what the writer puts in a field is what the
    reader finds under that column's name, also for untrusted names with newlines and commas."""
    from gate.files.trial_log import TrialLog, TrialRow

    path = tmp_path / "trials.csv"
    log = TrialLog(path, fsync=False)
    assert log.recover([]) == set()  # a new log: the header
    log.open()
    ok = TrialRow(7, "parse,\nfast", "main", "r1", 2, "random", 3, 4, 1, 0.25, "s", True, "ok", "",
                  "2026-11-26T10:00:00.000Z", 1.5, "full", 1)  # fmt: skip
    failed = TrialRow(8, "gone", "main", "r1", 2, "random", 4, 1, 1, None, "", None, "missing",
                      "no such\rbenchmark", "2026-11-26T10:00:01.000Z", 0.25, "calibration", 0)  # fmt: skip
    log.append([ok])
    log.append([failed])
    log.close()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(frame.columns) == list(TRIAL_COLUMNS)
    first, second = frame.iloc[0], frame.iloc[1]
    assert (first["trial"], first["benchmark"], first["value"], first["higher_is_better"]) == (
        "7",
        "parse, fast",
        "0.25",
        "true",
    )
    assert (first["elapsed_s"], first["config"], first["round"], first["measurement"]) == (
        "1.500000",
        "full",
        "1",
        "1",
    )
    assert (second["value"], second["higher_is_better"], second["reason"]) == ("", "", "no such benchmark")
    assert (second["status"], second["config"], second["round"]) == ("missing", "calibration", "0")


def test_elapsed_by_trial_reads_through_the_one_reader(tmp_path: Path) -> None:
    # The follow-up rounds' budget clock: one duration per trial; rows that do not parse and a
    # last line cut off by a kill are left out, as analyze leaves them out.
    header = ",".join(TRIAL_COLUMNS)
    row = "{t},a,v,h,1,random,1,1,1,1.0,s,false,ok,,2026-01-01T00:00:00Z,{e},full,0"
    path = tmp_path / "trials.csv"
    path.write_text(
        "\n".join(
            [
                header,
                row.format(t=1, e="0.5"),
                row.format(t=1, e="0.5"),
                row.format(t=2, e=" 1.5 "),
                row.format(t="x", e="9"),
                row.format(t=3, e="nan"),
                row.format(t=4, e=""),
                row.format(t="5.5", e="9"),
            ]
        )
        + "\n"
        + row.format(t=6, e="2.0")[:-7]  # cut after elapsed_s: no config, no round, no newline
    )
    assert elapsed_by_trial(path) == {1: 0.5, 2: 1.5}
    assert elapsed_by_trial(tmp_path / "missing.csv") == {}
    (tmp_path / "empty.csv").write_text("")
    assert elapsed_by_trial(tmp_path / "empty.csv") == {}


CELLS = [
    " 3 ",
    "3",
    "x",
    "",
    "1e3",
    "inf",
    "-inf",
    "nan",
    "1_0",
    "2.5",
    "9007199254740993",
    "-0",
    " 7",
    "0x1",
]


@pytest.mark.parametrize("seed", range(20))
def test_numbers_of_repeated_cells_are_those_of_each_cell(seed: int) -> None:
    # A column whose cells repeat (positions, trial numbers) is converted once per distinct
    # cell: the numbers and the dtype must be those of converting every cell on its own.
    rng = np.random.default_rng(seed)
    cells = rng.choice(CELLS[: int(rng.integers(1, len(CELLS) + 1))], size=int(rng.integers(1001, 4000)))
    column = pd.Series(cells, dtype=str, name="position", index=np.arange(len(cells)) * 2)
    expected = pd.to_numeric(column, errors="coerce")
    got = parse_numbers(column)
    assert got.dtype == expected.dtype and got.name == "position" and got.index.equals(expected.index)
    assert np.array_equal(got.to_numpy(dtype=float), expected.to_numpy(dtype=float), equal_nan=True)


def test_repeated_cells_are_converted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    converted: list[int] = []
    to_numeric = pd.to_numeric

    def counting(arg: pd.Series, **kwargs: str) -> pd.Series:
        converted.append(len(arg))
        return to_numeric(arg, **kwargs)

    monkeypatch.setattr(pd, "to_numeric", counting)
    positions = pd.Series([str(1 + i % 25) for i in range(40_000)], dtype=str)
    assert parse_numbers(positions).tolist() == [1 + i % 25 for i in range(40_000)]
    assert converted == [25]
    values = pd.Series([repr(1.0 + i / 1e5) for i in range(40_000)], dtype=str)  # no repeats
    parse_numbers(values)
    assert converted == [25, 40_000]


def _bom_log(tmp_path: Path) -> tuple[Path, list]:
    """A log of `run` as a spreadsheet saves it: a UTF-8 byte-order mark before the header. Trial 1
    finished (2 measurements); trial 2 was killed after its first measurement, whose row was cut in
    its last field (round "0" lost)."""
    from gate.engine.schedule import Trial
    from gate.files.trial_log import TrialLog, TrialRow

    schedule = [Trial(n, "h", 1, "random", n, "parse", "main", 1, 2, "full") for n in (1, 2)]
    path = tmp_path / "trials.csv"
    log = TrialLog(path, fsync=False)
    log.recover(schedule)
    log.open()
    for n, m in ((1, 1), (1, 2), (2, 1)):
        log.append([TrialRow(n, "parse", "main", "h", 1, "random", n, 1, m, 0.25, "s", False, "ok", "",
                             "2026-11-26T10:00:00.000Z", 1.5, "full", 0)])  # fmt: skip
    log.close()
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes()[:-2])
    return path, schedule


def test_a_byte_order_mark_is_not_part_of_the_first_column_and_a_cut_row_is_still_found(
    tmp_path: Path,
) -> None:
    path, _ = _bom_log(tmp_path)
    warnings: list = []
    rows = read_rows(path, warnings)
    assert rows is not None and list(rows.columns) == list(TRIAL_COLUMNS)
    assert rows["trial"].tolist() == [1, 1] and rows["round"].tolist() == ["0", "0"]
    assert [w["code"] for w in warnings] == ["cut_off_row"]


def test_a_resume_keeps_the_byte_order_mark_and_the_finished_trials(tmp_path: Path) -> None:
    from gate.files.trial_log import TrialLog

    path, schedule = _bom_log(tmp_path)
    before = path.read_bytes()
    assert TrialLog(path, fsync=False).recover(schedule) == {1}
    after = path.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf" + b"trial,") and before.startswith(after)
    assert len(after.splitlines()) == 3  # the header and trial 1's two rows; trial 2 runs again
    warnings: list = []
    rows = read_rows(path, warnings)
    assert rows is not None and rows["trial"].tolist() == [1, 1] and warnings == []


NUMBER_CELLS = [
    *CELLS,
    "True",
    "false",
    "99999999999999999999",
    "1.5 ",
    "+5",
    ".5",
    "1.",
    "Infinity",
    "NaN",
    "1d3",
]


@pytest.mark.parametrize("seed", range(30))
def test_number_columns_read_as_numbers_are_those_of_the_rule(tmp_path: Path, seed: int) -> None:
    # read_rows lets the C parser read a number column whose cells are all numbers; its numbers
    # and dtype must be those of pd.to_numeric(errors="coerce") on the text of every cell, and a
    # column with any other cell is read as text.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    floats = [repr(float(v)) for v in rng.lognormal(3.0, 4.0, n)]
    pool = NUMBER_CELLS[: int(rng.integers(0, len(NUMBER_CELLS) + 1))]
    cells = {
        "value": [c if rng.random() < 0.5 or not pool else str(rng.choice(pool)) for c in floats],
        "position": [
            str(rng.choice(pool)) if pool and rng.random() < 0.01 else str(1 + i % 40) for i in range(n)
        ],
        "elapsed_s": [f"{v:.6f}" for v in rng.uniform(0, 2, n)],
    }
    if rng.random() < 0.5:
        cells["value"] = floats  # the common case: every cell a number
    path = tmp_path / "trials.csv"
    frame = pd.DataFrame({"benchmark": "a", "version": "v", **cells})
    frame.to_csv(path, index=False)
    text = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    rows = read_rows(path, [])
    assert rows is not None
    for column in cells:
        expected = pd.to_numeric(text[column], errors="coerce")
        got = parse_numbers(rows[column])
        assert got.dtype == expected.dtype, column
        assert np.array_equal(got.to_numpy(dtype=float), expected.to_numpy(dtype=float), equal_nan=True)
    assert rows["benchmark"].tolist() == ["a"] * n  # text columns stay text
    assert rows["elapsed_s"].dtype == np.float64  # read as numbers, not converted cell by cell
