"""The history store's reader/writer, the PR-data rule and the missing-library message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gate.cli import main
from gate.errors import ConfigError, InputError
from gate.history.changes import find_changes, series_of
from gate.history.store import Entry, Step, Store, branch_entries
from tests.fakes.nightly import write_night


def _entry(**kw: object) -> Entry:
    base: dict[str, object] = {
        "run": "r1",
        "date": "2026-11-26T02:17:00Z",
        "seq": 1,
        "commit": "abc",
        "benchmark": "b",
        "unit": "ns/op",
        "higher_is_better": False,
        "estimate": 1.5,
        "ci": (1.4, 1.6),
        "n": 15,
        "step": Step("prev", 2.0, (1.0, 3.0)),
    }
    base.update(kw)
    return Entry(**base)  # type: ignore[arg-type]


def test_round_trip_is_exact_and_month_files_are_append_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    first = [_entry(), _entry(benchmark="c", estimate=None, ci=None, step=None)]
    store.append(first)
    month = tmp_path / "s" / "data" / "2026-11.jsonl"
    before = month.read_bytes()
    store.append([_entry(run="r2", date="2026-12-01T02:17:00Z")])
    assert month.read_bytes() == before  # a new month never rewrites an old one
    assert store.read() == [*first, _entry(run="r2", date="2026-12-01T02:17:00Z")]
    manifest = json.loads((tmp_path / "s" / "ordertrap-history.json").read_text())
    assert manifest == {"format": "ordertrap-history", "schema_version": 1}


def test_a_damaged_line_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append([_entry(), _entry(benchmark="c")])
    month = tmp_path / "data" / "2026-11.jsonl"
    lines = month.read_text().splitlines()
    month.write_text(lines[0] + "\n" + lines[1].replace('"n":15', '"n":-1') + "\n")
    with pytest.raises(InputError) as err:
        store.read()
    assert f"{month}:2" in str(err.value) and "n must be a non-negative integer" in str(err.value)
    assert err.value.fix


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"step": {"previous": "", "change_pct": 1.0}}, "step.previous must be a non-empty string, got ''"),
        ({"step": {"previous": "a", "change_ci": [1.0]}}, "step.change_ci must be [low, high], got [1.0]"),
        ({"step": [1]}, "step must be an object (or null), got [1]"),
        ({"extra": None}, "extra must be an object, got None"),
        ({"source": "pr"}, "a `pr` entry must name its pull request number (pr)"),
    ],
)
def test_a_field_inside_a_line_is_named_by_its_path(change: dict[str, object], named: str) -> None:
    from gate.history.store import entry_from_json

    line = {**_entry().to_json(), **change}
    with pytest.raises(InputError) as err:
        entry_from_json(line, "data/2026-11.jsonl:3")
    assert str(err.value.message) == f"data/2026-11.jsonl:3: {named}"


def test_a_newer_schema_is_refused_with_the_fix(tmp_path: Path) -> None:
    Store(tmp_path).append([_entry()])
    (tmp_path / "ordertrap-history.json").write_text('{"format": "ordertrap-history", "schema_version": 2}')
    with pytest.raises(InputError, match="schema_version 2"):
        Store(tmp_path).read()


def test_bad_input_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="UTC ISO 8601"):
        Store(tmp_path / "s").append([_entry(), _entry(date="yesterday")])
    assert not (tmp_path / "s").exists()
    with pytest.raises(InputError, match="must be a finite number"):
        Store(tmp_path / "s").append([_entry(estimate=float("nan"))])
    assert not (tmp_path / "s").exists()


def test_a_folder_that_is_not_a_history_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("not a history")
    with pytest.raises(InputError, match="holds no history"):
        Store(tmp_path).read()


def test_pr_runs_never_enter_the_history_unmarked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trials = write_night(tmp_path / "n1", 1, {"b": {}}, np.random.default_rng(1))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    assert main(["history", "add", str(trials), "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "pull_request run" in err and "--pr NUMBER" in err
    assert not (tmp_path / "s").exists()
    assert main(["history", "add", str(trials), "--store", str(tmp_path / "s"), "--pr", "7"]) == 0
    entries = Store(tmp_path / "s").read()
    assert {(e.source, e.pr) for e in entries} == {("pr", 7)}
    assert branch_entries(entries) == [] and series_of(entries) == []
    assert len(branch_entries(entries, include_pr=True)) == 2


def test_without_otava_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "otava", None)  # import otava → ImportError
    monkeypatch.setitem(sys.modules, "otava.analysis", None)
    with pytest.raises(ConfigError) as err:
        find_changes([_entry()])
    assert "pip install --no-deps apache-otava==0.8.0" in err.value.fix


def test_a_log_of_three_versions_gives_one_entry_each_in_commit_order(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    rows = ["benchmark,version,suite_run,order_type,position,measurement,value,unit,higher_is_better,status"]
    level = {"v1": 100.0, "v2": 100.0, "v3": 110.0}
    for run in (1, 2, 3):
        for pos, v in enumerate(rng.permutation(list(level)), start=1):
            for m in range(1, 6):
                value = level[v] * (1 + 0.01 * rng.standard_normal())
                rows.append(f"b,{v},{run},random,{pos},{m},{value:.4f},ns/op,false,ok")
    trials = tmp_path / "trials.csv"
    trials.write_text("\n".join(rows) + "\n")
    args = ["history", "add", str(trials), "--store", str(tmp_path / "s"), "--date", "2026-11-26T02:17:00Z"]
    assert main([*args, "--versions", "v1,v2,v3"]) == 0
    entries = Store(tmp_path / "s").read()
    assert [(e.seq, e.commit) for e in entries] == [(0, "v1"), (1, "v2"), (2, "v3")]
    assert entries[0].step is None
    assert entries[1].step is not None and entries[1].step.previous == "v1"
    step = entries[2].step
    assert step is not None and step.previous == "v2" and step.change_ci is not None
    assert step.change_ci[0] > 5  # v3 is 10 % slower than v2, measured in the same suite runs


def test_versions_not_in_the_log_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trials = write_night(tmp_path / "n1", 1, {"b": {}}, np.random.default_rng(1))
    args = ["history", "add", str(trials), "--store", str(tmp_path / "s"), "--versions", "main,feature"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "not in the log: main, feature" in err and "--versions OLDEST" in err
