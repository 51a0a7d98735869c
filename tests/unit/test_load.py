"""Reading trial logs (gate.analysis.load): what is kept, what is reported, what is fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.analysis.load import load_trials
from gate.errors import InputError


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
        json.dumps({"schema_version": 1, "base": "main", "head": "HEAD"})
    )
    logs = load_trials([a, b])
    assert logs.frame["source"].tolist() == [0, 1]
    assert logs.meta is not None and logs.meta["head"] == "HEAD"


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
