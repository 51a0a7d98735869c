"""`ordertrap-gate order-check` as a real process: tidy CSV, gate trial log, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.cli import main
from gate.model import ORDER_CHECK_SCHEMA
from tests.conftest import REPO_ROOT
from tests.unit.analysis.test_order_check import tidy_frame, trial_log


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gate", "order-check", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )


def test_tidy_csv_to_json_and_table(tmp_path: Path) -> None:
    src = tmp_path / "trials.csv"
    tidy_frame(7, shift={"c": 1.04}).to_csv(src, index=False)
    out = tmp_path / "sub" / "order.json"
    proc = run_cli(str(src), "--json", str(out), "--alpha", "0.01")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["schema_version"] == ORDER_CHECK_SCHEMA
    (exp,) = data["experiments"]
    assert exp["alpha"] == 0.01 and exp["order_matters"]
    assert [t["test"] for t in exp["tests"] if t["significant"]] == ["c"]
    assert "ORDER MATTERS" in proc.stdout
    c_line = next(line for line in proc.stdout.splitlines() if line.startswith("c "))
    assert c_line.rstrip().endswith("yes")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The same entry point in-process (each interpreter start costs seconds on a busy runner)."""
    code = main(["order-check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_trial_log_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "trials.csv"
    trial_log(8, shift=1.05).to_csv(src, index=False)
    out = tmp_path / "order.json"
    code, _, err = cli(capsys, str(src), "--json", str(out))
    assert code == 0, err
    exps = json.loads(out.read_text())["experiments"]
    assert {e["experiment"] for e in exps} == {"main", "HEAD"}
    assert all(e["order_matters"] for e in exps)


def test_errors_name_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, str(tmp_path / "nope.csv"))
    assert code == 2 and "no such file" in err and "fix:" in err

    cols = tmp_path / "cols.csv"
    pd.DataFrame({"test": ["a"], "value": [1.0]}).to_csv(cols, index=False)
    code, _, err = cli(capsys, str(cols))
    assert code == 2
    assert "lacks column(s) experiment, run_index, order_type, position_in_run" in err
    assert "fix:" in err

    one = tmp_path / "one.csv"
    df = tidy_frame(1)
    df.loc[df["order_type"] == "fixed"].to_csv(one, index=False)
    code, _, err = cli(capsys, str(one))
    assert code == 2 and "only fixed-order runs" in err

    text = tmp_path / "text.csv"
    df = tidy_frame(1).astype({"value": object})
    df.loc[5, "value"] = "n/a ms"
    df.to_csv(text, index=False)
    code, _, err = cli(capsys, str(text))
    assert code == 2 and "non-numeric" in err and "row" in err

    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = cli(capsys, str(empty))
    assert code == 2 and "is empty" in err

    log = tmp_path / "random_only.csv"
    tl = trial_log(2)
    tl.loc[tl["order_type"] == "random"].to_csv(log, index=False)
    code, _, err = cli(capsys, str(log))
    assert code == 2 and "no fixed-order runs" in err and "--order-check" in err

    code, _, err = cli(capsys, str(log), "--alpha", "2")
    assert code == 2 and "alpha" in err

    tidy = tmp_path / "tidy.csv"
    tidy_frame(1).to_csv(tidy, index=False)
    code, _, err = cli(capsys, str(tidy), str(log))
    assert code == 2 and f"mix OrderSage tidy CSV ({tidy})" in err and "separate" in err


def test_a_tidy_file_with_a_byte_order_mark_is_told_by_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "tidy.csv"
    src.write_bytes(b"\xef\xbb\xbf" + tidy_frame(3).to_csv(index=False).encode())
    code, out, err = cli(capsys, str(src))
    assert code == 0, err
    assert "experiment exp1" in out


def test_a_trial_log_is_read_as_analyze_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A log with statuses in other spellings, a junk status, an implausible value in an ok row
    # and a last line cut off by a kill: order-check must test the trials analyze tests
    # (analysis.json `order_check`), by the same load rules.
    df = trial_log(9, shift=1.05)
    rng = np.random.default_rng(9)
    rows = rng.choice(len(df), size=60, replace=False)
    df.loc[rows[:20], "status"] = " OK "
    df.loc[rows[20:40], "status"] = "Ok"
    df.loc[rows[40:55], "status"] = "banana"
    df.loc[rows[55:], "value"] = 1e200
    src = tmp_path / "trials.csv"
    text = df.to_csv(index=False)
    src.write_text(text + text.splitlines()[-1][:40])  # a copy of the last row, cut off
    out = tmp_path / "order.json"
    code, _, err = cli(capsys, str(src), "--json", str(out))
    assert code == 0, err
    order = json.loads(out.read_text())
    analysis = tmp_path / "analysis.json"
    assert main(["analyze", str(src), "--base", "main", "--head", "HEAD", "--json", str(analysis)]) == 0
    capsys.readouterr()
    expected = json.loads(analysis.read_text())["order_check"]
    assert order["experiments"] == expected["experiments"]
    assert "cut_off_row" in {w["code"] for w in order["warnings"]}


def test_the_table_stays_aligned_with_names_over_24_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = {
        "a": "BenchmarkUnmarshalDataset/canada",  # 32 characters
        "b": "BenchmarkParseLiteralStringValid/1kValid",
        "c": "c",
        "d": "BenchmarkMarshal/ReferenceFile/struct/" + "x" * 60 + "/end",  # cut in the middle
    }
    frame = tidy_frame(7)
    frame["test"] = frame["test"].map(long)
    src = tmp_path / "trials.csv"
    frame.to_csv(src, index=False)
    code, out, err = cli(capsys, str(src))
    assert code == 0, err
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("test "))
    rows = lines[header : header + 5]
    # the n_f column (right-aligned) ends at the header's offset on every row
    width = rows[0].index("n_f") + 3
    assert all(len(r) >= width and r[width - 1].isdigit() and r[width] == " " for r in rows[1:]), rows
    assert any("BenchmarkUnmarshalDataset/canada " in r for r in rows)
    assert any("…" in r and r.split()[0].endswith("/end") for r in rows)
