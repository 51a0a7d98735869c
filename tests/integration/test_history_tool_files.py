"""`history import` → `changes` on files shaped exactly as each tool writes them, built by the
generators beside them (tests/testdata/history/README.md): an asv results folder with
machine.json, benchmarks.json, two environments and a failed one; a data.js that grew between two
imports; a unit switch; pytest-benchmark's machine_info and `dirty` flag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.history.store import Store

DATA = Path(__file__).resolve().parents[1] / "testdata" / "history"
ASV = DATA / "asv-results"


def _changes(store: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "changes.json"
    assert main(["history", "changes", "--store", str(store), "--json", str(out)]) == 0
    return json.loads(out.read_text())


def _asv_commit(i: int) -> str:
    return json.loads(next((ASV / "ubuntu-22.04").glob(f"{i:02x}5e7a9c-conda-py3.10.json")).read_text())[
        "commit_hash"
    ]


@pytest.mark.parametrize("given", ["folder", "machine-folder", "files"])
def test_an_asv_results_folder_imports_as_asv_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    paths = {
        "folder": [ASV],
        "machine-folder": [ASV / "ubuntu-22.04"],
        "files": sorted((ASV / "ubuntu-22.04").glob("*.json")),  # a shell's results/vm/*.json
    }[given]
    assert main(["history", "import", *map(str, paths), "--store", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "1 machine.json" in out and "1 asv result file(s) whose results are all null" in out
    assert ("1 benchmarks.json" in out) == (given == "folder")
    entries = Store(tmp_path / "s").read()
    # 14 commits × 2 environments − the failed one, 4 results each (a parametrised benchmark has 2)
    assert len(entries) == (14 * 2 - 1) * 4
    assert {(e.runner, e.environment) for e in entries} == {
        ("ubuntu-22.04", "conda-py3.10"),
        ("ubuntu-22.04", "conda-py3.12"),
    }


def test_asv_series_are_one_environment_each_and_change_points_never_straddle_two(tmp_path: Path) -> None:
    assert main(["history", "import", str(ASV), "--store", str(tmp_path / "s")]) == 0
    doc = _changes(tmp_path / "s", tmp_path)
    assert doc["n_series"] == 8  # 4 results × 2 environments
    points: dict[str, set[str]] = {}
    for e in Store(tmp_path / "s").read():
        points.setdefault(e.environment or "", set()).add(e.commit)
    cps = doc["change_points"]
    for cp in cps:
        assert cp["before"] in points[cp["environment"]] and cp["after"] in points[cp["environment"]]
        assert cp["series"] == f"{cp['benchmark']} [ubuntu-22.04 · {cp['environment']}]"
        assert cp["after"] == _asv_commit(8) and 18 < cp["change_pct"] < 22  # the planted +20 %
    # every time series in both environments, and nothing else (the 60 % between Pythons is no step)
    assert sorted((cp["benchmark"], cp["environment"]) for cp in cps) == sorted(
        (b, env)
        for b in (
            "query.QuerySuite.time_filter",
            "query.QuerySuite.time_slice(10)",
            "query.QuerySuite.time_slice(1000)",
        )
        for env in ("conda-py3.10", "conda-py3.12")
    )


def test_a_grown_data_js_imports_only_what_is_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    assert main(["history", "import", str(DATA / "data-grown-1.js"), "--store", str(store)]) == 0
    assert len(Store(store).read()) == 8 * 4
    capsys.readouterr()
    assert main(["history", "import", str(DATA / "data-grown-2.js"), "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "16 new entries" in out and "32 already in the history" in out
    entries = Store(store).read()
    assert len(entries) == 12 * 4
    assert len({(e.series_key, e.commit, e.date) for e in entries}) == len(entries)
    lines = sum(len(p.read_text().splitlines()) for p in (store / "data").iterdir())
    assert lines == 12 * 4
    # and once more: nothing new, nothing written
    assert main(["history", "import", str(DATA / "data-grown-2.js"), "--store", str(store)]) == 0
    assert "0 new entries" in capsys.readouterr().out
    assert sum(len(p.read_text().splitlines()) for p in (store / "data").iterdir()) == 12 * 4


def test_units_are_converted_and_unknown_mixes_split(tmp_path: Path) -> None:
    assert main(["history", "import", str(DATA / "data-grown-2.js"), "--store", str(tmp_path / "s")]) == 0
    doc = _changes(tmp_path / "s", tmp_path)
    cps = doc["change_points"]
    # ns → us at night 6 with the same speed: no step (it read as −99.9 % before)
    assert not [cp for cp in cps if cp["benchmark"] == "custom/latency"]
    short = {x["series"]: x for x in doc["short_series"]}
    # ns → bytes at night 10 cannot be converted: two series, named by unit, and a message
    assert {"custom/size in bytes"} <= set(short) and short["custom/size in bytes"]["points"] == 2
    assert any("custom/size" in w and "bytes, ns" in w and "fix:" in w for w in doc["warnings"])
    (parse,) = [cp for cp in cps if cp["benchmark"] == "cargo/parse"]
    assert parse["after"].startswith("09ab12cd") and 27 < parse["change_pct"] < 33
    # the converted series is labelled with its newest unit and its values are in it
    page = tmp_path / "page.html"
    assert main(["history", "report", "--store", str(tmp_path / "s"), "--out", str(page)]) == 0
    html = page.read_text()
    assert "custom/latency" in html and "7.5" in html and "µs" in html


def test_data_js_of_two_runners_are_two_series_when_named(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    for runner in ("linux-x64", "macos-arm"):
        argv = ["history", "import", str(DATA / "data-grown-1.js"), "--store", store, "--machine", runner]
        assert main(argv) == 0
    entries = Store(tmp_path / "s").read()
    assert len(entries) == 2 * 8 * 4  # the same commits and dates, kept apart by the runner
    page = tmp_path / "page.html"
    assert main(["history", "report", "--store", store, "--out", str(page)]) == 0
    html = page.read_text()
    for runner in ("linux-x64", "macos-arm"):
        assert f"cargo/parse [{runner}]" in html and f"custom/latency [{runner}]" in html


def _pytest_run(tmp_path: Path, dirty: bool) -> Path:
    doc = json.loads((DATA / "pytest-benchmark-json.json").read_text())
    doc["commit_info"]["dirty"] = dirty
    out = tmp_path / f"run-{dirty}.json"
    out.write_text(json.dumps(doc, indent=4))
    return out


def test_pytest_benchmark_dirty_runs_are_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _pytest_run(tmp_path, dirty=True)
    assert main(["history", "import", str(run), "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "uncommitted changes" in err and "--allow-dirty" in err and not (tmp_path / "s").exists()
    assert main(["history", "import", str(run), "--store", str(tmp_path / "s"), "--allow-dirty"]) == 0
    assert all(e.extra.get("dirty") is True for e in Store(tmp_path / "s").read())


def test_pytest_benchmark_series_name_machine_and_python(tmp_path: Path) -> None:
    raw = json.loads((DATA / "pytest-benchmark-json.json").read_text())
    mi = raw["machine_info"]
    assert main(["history", "import", str(_pytest_run(tmp_path, False)), "--store", str(tmp_path / "s")]) == 0
    for e in Store(tmp_path / "s").read():
        assert e.runner == f"{mi['system']} {mi['machine']} {mi['cpu']['brand_raw']}"
        assert e.environment == f"{mi['python_implementation']} {mi['python_version']}"
