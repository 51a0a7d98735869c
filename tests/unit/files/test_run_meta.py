"""meta.json: one reader and writer (gate.files.run_meta), what its readers can rely on, and the
atomic write that a killed run depends on."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError, RunError
from gate.files import run_meta
from gate.files.run_meta import BenchmarkConfig, Levels, RunMeta, VersionRecord
from gate.model import TRIAL_LOG_SCHEMA
from tests.conftest import REPO_ROOT

TRIAL = {"trial": 1, "instance": "h", "suite_run": 1, "order_type": "random", "position": 1,
         "benchmark": "parse", "version": "main", "iteration": 1, "measurements": 1}  # fmt: skip


def a_run(**changes: Any) -> RunMeta:
    meta = RunMeta(
        tool_version="0.1.0",
        created_at="2026-11-26T02:30:00Z",
        seed=7,
        mode="rmit",
        config_path=".ordertrap.toml",
        config_hash="sha256:abc",
        sources={"config": {"from": "base", "changed_in_head": []}, "calibration": None},
        adapter="command",
        versions={
            "main": VersionRecord("base", "a" * 40, "/w/base"),
            "HEAD": VersionRecord("head", "b" * 40, "/w/h"),
        },
        base="main",
        head="HEAD",
        instance="h",
        full=Levels(3, 5, 1),
        benchmark_configs={"parse": BenchmarkConfig(2, 3, 1, config_source="calibration", discard_warmup=1)},
        benchmarks={"parse": {"unit": "s", "higher_is_better": False, "versions": ["main", "HEAD"]}},
        thresholds={"parse": 5.0},
        schedule=[TRIAL],
        environment={"cores": 2},
        sandbox={"kind": "none", "reason": "r"},
        layout={"rule": "none"},
        warnings=[{"code": "governor", "message": "m", "action": "a"}],
        adaptive=None,
    )
    return run_meta.RunMeta(**{**meta.__dict__, **changes})


def test_what_is_written_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    meta = a_run()
    run_meta.write(path, meta)
    again = run_meta.read(path)
    assert again.to_json() == meta.to_json()
    assert again.benchmark_configs["parse"].calibrated and again.full == Levels(3, 5, 1)
    # the keys in the order docs/contracts.md lists them
    assert list(json.loads(path.read_text())) == list(meta.to_json())[: len(json.loads(path.read_text()))]
    assert list(meta.to_json())[:4] == ["schema_version", "tool_version", "created_at", "seed"]


def test_keys_this_gate_does_not_know_are_written_back(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    run_meta.write(path, a_run())
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "added_by_a_newer_minor": {"x": 1}}))
    meta = run_meta.read(path)
    run_meta.write(path, meta.with_adaptive({"budget_s": 1.0, "rounds": [], "final": None}))
    assert json.loads(path.read_text())["added_by_a_newer_minor"] == {"x": 1}


def test_a_schema_1_log_without_adaptive_reads_as_a_run_without_a_budget(tmp_path: Path) -> None:
    doc = a_run().to_json()
    del doc["adaptive"]
    doc["schema_version"] = 1
    (tmp_path / "meta.json").write_text(json.dumps(doc))
    meta = run_meta.read(tmp_path / "meta.json")
    assert meta.schema_version == 1 and meta.adaptive is None and meta.round_trials() == []
    assert [t.trial for t in meta.planned_trials()] == [1] and meta.planned_trials()[
        0
    ].config_source == "calibration"


def test_a_newer_schema_is_refused_by_both_readers(tmp_path: Path) -> None:
    doc = {**a_run().to_json(), "schema_version": TRIAL_LOG_SCHEMA + 1}
    (tmp_path / "meta.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="newer than this gate") as err:
        run_meta.read(tmp_path / "meta.json")
    assert "upgrade ordertrap-gate" in err.value.fix
    with pytest.raises(InputError, match="newer than this gate"):
        run_meta.read_beside(tmp_path / "trials.csv", [])


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"full": {"suite_runs": 3, "iterations": 5, "measurements": 1}}, "full"),
        ({"seed": "7"}, "seed"),
        ({"versions": {"main": "abc"}}, "versions"),
        (
            {
                "benchmark_configs": {
                    "parse": {"suite_run": 1, "iteration": 1, "measurement": 1, "warmup_level": "second"}
                }
            },
            "benchmark_configs",
        ),
        ({"schedule": {"trial": 1}}, "schedule"),
    ],
)
def test_a_field_of_another_type_stops_a_resume_and_is_dropped_by_analysis(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    (tmp_path / "meta.json").write_text(json.dumps({**a_run().to_json(), **change}))
    with pytest.raises(InputError, match=f"wrong type: {named}") as err:
        run_meta.read(tmp_path / "meta.json")
    assert err.value.fix == "pass a new --out"
    warnings: list[dict[str, str]] = []
    meta = run_meta.read_beside(tmp_path / "trials.csv", warnings)
    assert meta is not None and meta.seed in (7, None) and not meta.has(named)
    assert [w["code"] for w in warnings] == ["meta_invalid"] and named in warnings[0]["message"]


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    run_meta.write(path, a_run())
    before = path.read_bytes()
    (tmp_path / "meta.tmp").mkdir()  # the temp file cannot be created
    with pytest.raises(RunError) as err:
        run_meta.write(path, a_run(seed=8))
    assert path.read_bytes() == before and "--out" in err.value.fix


def test_a_warning_is_recorded_once() -> None:
    w = {"code": "planned_over_budget", "message": "m", "action": "a"}
    meta = a_run().with_warning(w).with_warning(w)
    assert [x["code"] for x in meta.warnings] == ["governor", "planned_over_budget"]


def test_no_other_module_names_the_file() -> None:
    """Every reader and writer of meta.json goes through gate/files/run_meta.py."""
    gate = REPO_ROOT / "gate"
    naming = []
    for path in sorted(gate.rglob("*.py")):
        if path == gate / "files" / "run_meta.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # a path; docstrings and messages may name the file
            if isinstance(node, ast.Constant) and re.fullmatch(r"[\w.]*meta\.json", str(node.value)):
                naming.append(f"{path.relative_to(gate)}:{node.lineno}")
    assert naming == []
