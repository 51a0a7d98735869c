"""Reading trial logs (gate.analysis.load): what is kept, what is reported, what is fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gate.analysis.load import load_trials
from gate.errors import InputError
from tests.fakes.trial_logs import csv_log, csv_row


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def codes(logs: object) -> list[str]:
    return [w["code"] for w in logs.warnings]  # type: ignore[attr-defined]


def test_minimal_columns_are_enough(tmp_path: Path) -> None:
    logs = load_trials([write(tmp_path / "t.csv", "benchmark,version,value\na,main,1.5\na,HEAD,1.6\n")])
    assert list(logs.frame["kind"]) == ["ok", "ok"]
    assert logs.frame["value"].tolist() == [1.5, 1.6]
    assert logs.meta is None and logs.warnings == []


def test_missing_file_and_missing_columns_are_errors_that_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist") as e:
        load_trials([tmp_path / "nope.csv"])
    assert e.value.fix
    with pytest.raises(InputError, match="version, value") as e2:
        load_trials([write(tmp_path / "t.csv", "benchmark,score\na,1\n")])
    assert "benchmark, version and value" in e2.value.fix


def test_empty_logs_warn_and_all_empty_is_an_error(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.csv", "")
    header = write(tmp_path / "header.csv", "benchmark,version,value\n")
    good = write(tmp_path / "good.csv", "benchmark,version,value\na,main,1\n")
    logs = load_trials([empty, header, good])
    assert codes(logs) == ["empty_log", "empty_log"]
    assert "0 bytes" in logs.warnings[0]["message"] and "no rows" in logs.warnings[1]["message"]
    with pytest.raises(InputError, match="every trial log is empty"):
        load_trials([empty, header])


def test_bad_values_become_failures_or_are_dropped_with_warnings(tmp_path: Path) -> None:
    text = (
        "benchmark,version,value,status,reason\n"
        "a,main,1.0,ok,\n"
        "a,main,abc,ok,\n"
        "a,main,nan,ok,\n"
        "a,main,inf,ok,\n"
        "a,main,,timeout,killed after 60 s\n"
        "a,main,0,ok,\n"
        "a,main,-2,ok,\n"
        "a,main,1e300,ok,\n"
        "a,main,1e-200,ok,\n"
    )
    logs = load_trials([write(tmp_path / "t.csv", text)])
    kinds = ["ok", "failed", "failed", "failed", "failed", "dropped", "dropped", "failed", "failed"]
    assert list(logs.frame["kind"]) == kinds
    assert list(logs.frame["status"])[1:5] == ["invalid", "invalid", "invalid", "timeout"]
    assert codes(logs) == ["invalid_value", "non_positive_value"]
    assert "5 row(s)" in logs.warnings[0]["message"] and "line 3" in logs.warnings[0]["message"]
    assert "'abc'" in logs.warnings[0]["message"]
    assert "2 row(s)" in logs.warnings[1]["message"]


def test_several_logs_keep_their_source_and_read_meta(tmp_path: Path) -> None:
    (tmp_path / "r1").mkdir()
    (tmp_path / "r2").mkdir()
    a = write(tmp_path / "r1" / "trials.csv", "trial,benchmark,version,value\n1,a,main,1\n")
    b = write(tmp_path / "r2" / "trials.csv", "trial,benchmark,version,value\n1,a,HEAD,2\n")
    (tmp_path / "r1" / "meta.json").write_text(
        json.dumps({"schema_version": 2, "base": "main", "head": "HEAD"})
    )
    logs = load_trials([a, b])
    assert logs.frame["source"].tolist() == [0, 1]
    assert logs.meta is not None and logs.meta.head == "HEAD"


def test_newer_meta_schema_is_refused(tmp_path: Path) -> None:
    log = write(tmp_path / "trials.csv", "benchmark,version,value\na,main,1\n")
    (tmp_path / "meta.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(InputError, match="schema_version 99") as e:
        load_trials([log])
    assert "upgrade" in e.value.fix


def test_unreadable_meta_is_a_warning(tmp_path: Path) -> None:
    log = write(tmp_path / "trials.csv", "benchmark,version,value\na,main,1\n")
    (tmp_path / "meta.json").write_text("{not json")
    assert codes(load_trials([log])) == ["meta_unreadable"]


def test_blank_names_are_ignored_with_a_warning(tmp_path: Path) -> None:
    logs = load_trials([write(tmp_path / "t.csv", "benchmark,version,value\n,main,1\na,main,2\n")])
    assert codes(logs) == ["missing_name"]
    assert logs.frame["benchmark"].tolist() == ["a"]


# ---- the same log twice (F5): a log passed twice would double n and narrow every CI -------------

TIDY = "benchmark,version,value\n" + "".join(
    f"parse,{v},{x}\n"
    for v, xs in (
        ("base", (1.00, 1.03, 0.98, 1.05, 0.99, 1.02)),
        ("head", (1.07, 1.10, 1.04, 1.12, 1.06, 1.09)),
    )
    for x in xs
)


def test_the_same_path_twice_is_read_once_with_a_warning(tmp_path: Path) -> None:
    log = write(tmp_path / "m.csv", TIDY)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(log)
    # the same file, however it is spelled
    for second in (log, str(log), tmp_path / "sub" / ".." / "m.csv", tmp_path / "link.csv"):
        logs = load_trials([log, second])
        assert len(logs.frame) == 12
        (w,) = [w for w in logs.warnings if w["code"] == "duplicate_trials"]
        assert "m.csv" in w["message"] and "twice" in w["message"] and "read once" in w["message"]
        assert "pass each trial log once" in w["action"]


def test_a_byte_identical_copy_is_skipped_with_a_warning(tmp_path: Path) -> None:
    log = write(tmp_path / "m.csv", TIDY)
    copy = write(tmp_path / "m_copy.csv", TIDY)
    logs = load_trials([log, copy])
    assert len(logs.frame) == 12
    assert set(logs.frame["source"]) == {0}
    (w,) = [w for w in logs.warnings if w["code"] == "duplicate_trials"]
    assert "m_copy.csv" in w["message"] and "m.csv" in w["message"] and "identical" in w["message"]
    assert "skipped" in w["message"] and w["action"]


def test_equal_values_in_tidy_logs_are_kept(tmp_path: Path) -> None:
    # two equal timings are normal: inside one log, and in two different logs
    one = load_trials([write(tmp_path / "a.csv", "benchmark,version,value\nb,main,1.0\nb,main,1.0\n")])
    assert len(one.frame) == 2 and one.warnings == []
    other = write(tmp_path / "b.csv", "benchmark,version,value\nb,main,1.0\nb,main,1.0\nb,main,1.1\n")
    two = load_trials([tmp_path / "a.csv", other])
    assert len(two.frame) == 5 and two.warnings == []


def test_empty_logs_are_not_duplicates_of_each_other(tmp_path: Path) -> None:
    good = write(tmp_path / "good.csv", "benchmark,version,value\na,main,1\n")
    logs = load_trials([write(tmp_path / "e1.csv", ""), write(tmp_path / "e2.csv", ""), good])
    assert codes(logs) == ["empty_log", "empty_log"]


# ---- a line cut off by a kill (F7.3) -----------------------------------------------------------


def test_a_cut_off_last_line_is_reported_as_such_and_left_out(tmp_path: Path) -> None:
    header = "trial,benchmark,version,instance,suite_run,value,status,started_at,config,round\n"
    text = (
        header
        + "1,a,main,vm,1,1.5,ok,2026-11-26T00:00:00Z,full,0\n2,a,HEAD,vm,1,1.6,ok,2026-11-26T00:00:01Z,full,0\n"
    )
    for cut in ("3,to", "3,a,main,vm,1,0.0", "3,a,main,vm,1,1.5,ok,2026-11-26T00:00:02Z,fu"):
        logs = load_trials([write(tmp_path / "t.csv", text + cut)])
        assert len(logs.frame) == 2, cut
        (w,) = logs.warnings
        assert w["code"] == "cut_off_row" and "line 4" in w["message"] and "t.csv" in w["message"]
        assert "cut off" in w["message"] and "resume" in w["action"]


def test_a_tidy_file_without_final_newline_keeps_its_last_row(tmp_path: Path) -> None:
    logs = load_trials([write(tmp_path / "t.csv", "benchmark,version,value\na,main,1.5\na,HEAD,1.6")])
    assert logs.frame["value"].tolist() == [1.5, 1.6] and logs.warnings == []
    # a row with fewer fields than the header and no final newline is cut off, tidy or not
    logs = load_trials([write(tmp_path / "u.csv", "benchmark,version,value\na,main,1.5\na,HEA")])
    assert len(logs.frame) == 1 and codes(logs) == ["cut_off_row"]


def test_a_quoted_multi_line_last_record_is_complete_and_a_cut_inside_quotes_is_cut(tmp_path: Path) -> None:
    """A valid tidy file whose last record has a quoted two-line field and no final newline is read
    whole; a cut inside the quotes is left out."""
    body = "benchmark,version,value,status,reason\n" + "".join(
        f"b,{v},{1 + i / 1000:.3f},ok,\n" for v in ("base", "head") for i in range(6)
    )
    whole = tmp_path / "whole.csv"
    whole.write_text(body + 'c,head,,error,"line one\nline two"')
    logs = load_trials([whole])
    assert not [w for w in logs.warnings if w["code"] == "cut_off_row"]
    assert (logs.frame["benchmark"] == "c").sum() == 1
    cut = tmp_path / "cut.csv"
    cut.write_text(body + 'c,head,,error,"line one\nline tw')
    logs = load_trials([cut])
    (w,) = [w for w in logs.warnings if w["code"] == "cut_off_row"]
    assert "line 14" in w["message"] and "never closes" in w["message"]
    assert (logs.frame["benchmark"] == "c").sum() == 0 and (logs.frame["benchmark"] == "b").sum() == 12


def test_the_same_log_twice_counts_once(tmp_path):
    rows = [
        csv_row(t, "b", v, 1, t, t, 1, 1.0 + t / 100) for t, v in enumerate(["base", "head"] * 4, start=1)
    ]
    path = csv_log(tmp_path, rows)
    copy = tmp_path / "copy.csv"
    copy.write_text(path.read_text())
    logs = load_trials([path, copy])
    assert len(logs.frame) == len(rows)
    assert any(w["code"] == "duplicate_trials" for w in logs.warnings)
    # two runners' logs that only share values are both kept
    other = tmp_path / "other.csv"
    pd.DataFrame([{**r, "instance": "runner2"} for r in rows]).to_csv(other, index=False)
    assert len(load_trials([path, other]).frame) == 2 * len(rows)


def test_one_unreadable_log_among_several_is_skipped_with_a_warning(tmp_path):
    good = csv_log(
        tmp_path, [csv_row(t, "b", v, 1, t, t, 1, 1.0) for t, v in enumerate(["base", "head"] * 3, 1)]
    )
    bad = tmp_path / "bad.csv"
    bad.write_text("benchmark,score\nb,1\n")
    logs = load_trials([good, bad])
    assert len(logs.frame) == 6
    (w,) = [w for w in logs.warnings if w["code"] == "unreadable_log"]
    assert "bad.csv" in w["message"] and "value" in w["message"] and w["action"]
    with pytest.raises(InputError, match="lacks the required column"):
        load_trials([bad])
