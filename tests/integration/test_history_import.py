"""`history import` on real files of each supported format (tests/testdata/history/README.md says
how each was produced with the real tool)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gate.cli import main
from gate.history.store import Store

DATA = Path(__file__).resolve().parents[1] / "testdata" / "history"


def _import(store: Path, *files: str) -> int:
    return main(["history", "import", *[str(DATA / f) for f in files], "--store", str(store)])


@pytest.mark.parametrize("name", ["data.js", "data.json"])
def test_github_action_benchmark(tmp_path: Path, name: str) -> None:
    assert _import(tmp_path / "s", name) == 0
    entries = Store(tmp_path / "s").read()
    raw = json.loads((DATA / "data.json").read_text())
    runs = raw["entries"]["Python Benchmark with pytest-benchmark"]
    assert len(entries) == sum(len(r["benches"]) for r in runs) == 4
    first = runs[0]["benches"][0]
    e = next(e for e in entries if e.commit == runs[0]["commit"]["id"] and e.benchmark == first["name"])
    assert e.estimate == first["value"] and e.unit == "iter/sec"
    assert e.higher_is_better  # the pytest tool stores operations per second
    assert e.source == "import" and e.extra["format"] == "github-action-benchmark"


@pytest.mark.parametrize("name", ["pytest-benchmark-save.json", "pytest-benchmark-json.json"])
def test_pytest_benchmark(tmp_path: Path, name: str) -> None:
    assert _import(tmp_path / "s", name) == 0
    raw = json.loads((DATA / name).read_text())
    entries = Store(tmp_path / "s").read()
    assert {e.benchmark for e in entries} == {b["fullname"] for b in raw["benchmarks"]}
    for e in entries:
        stats = next(b["stats"] for b in raw["benchmarks"] if b["fullname"] == e.benchmark)
        assert e.commit == raw["commit_info"]["id"]
        assert e.estimate == stats["median"] and e.n == len(stats["data"])
        assert e.ci is not None and e.ci[0] <= e.estimate <= e.ci[1]
        assert not e.higher_is_better and e.unit == "s"


def test_asv_results(tmp_path: Path) -> None:
    (asv,) = sorted((DATA / "asv").glob("*-existing-*.json"))
    assert main(["history", "import", str(asv), "--store", str(tmp_path / "s")]) == 0
    raw = json.loads(asv.read_text())
    entries = {e.benchmark: e for e in Store(tmp_path / "s").read()}
    assert {"benchmarks.TimeSuite.time_sort(10)", "benchmarks.TimeSuite.time_sort(100)"} <= set(entries)
    e = entries["benchmarks.time_sum"]
    cols = raw["result_columns"]
    row = dict(zip(cols, raw["results"]["benchmarks.time_sum"], strict=False))
    assert e.commit == raw["commit_hash"] and e.estimate == row["result"][0]
    assert e.ci == (row["stats_ci_99_a"][0], row["stats_ci_99_b"][0]) and e.confidence == 0.99


def test_the_same_file_twice_stores_nothing_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path / "s", "data.js") == 0
    before = {p: p.read_bytes() for p in (tmp_path / "s" / "data").iterdir()}
    capsys.readouterr()
    assert _import(tmp_path / "s", "data.js") == 0
    out = capsys.readouterr().out
    assert "0 new entries" in out and "4 already in the history" in out and "--run-id" not in out
    assert {p: p.read_bytes() for p in (tmp_path / "s" / "data").iterdir()} == before


def test_an_unknown_file_names_the_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    shutil.copy(DATA / "data.js", tmp_path / "data.js")
    assert (
        main(["history", "import", str(tmp_path / "data.js"), str(bad), "--store", str(tmp_path / "s")]) == 2
    )
    err = capsys.readouterr().err
    assert "not a format `history import` reads" in err and "fix:" in err
    assert not (tmp_path / "s").exists()  # nothing written: the good file is not half-imported
