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
from gate.files.run_meta import (
    AdaptiveRecord,
    BenchmarkConfig,
    GiveUpRecord,
    Levels,
    RunMeta,
    VersionRecord,
)
from gate.model import TRIAL_LOG_SCHEMA
from gate.rounds.config import look_rule
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
        benchmark_configs={"parse": BenchmarkConfig(2, 3, 2, config_source="calibration", discard_warmup=1)},
        benchmarks={"parse": {"unit": "s", "higher_is_better": False, "versions": ["main", "HEAD"]}},
        thresholds={"parse": 5.0},
        schedule=[TRIAL],
        environment={"cores": 2},
        sandbox={"kind": "none", "reason": "r"},
        layout={"rule": "none"},
        warnings=[{"code": "governor", "message": "m", "action": "a"}],
        adaptive=None,
        given_up=(GiveUpRecord("parse", "HEAD", 2, "error", "exit 1", 9, "2026-11-26T02:31:00Z", 13),),
    )
    return run_meta.RunMeta(**{**meta.__dict__, **changes})


def test_what_is_written_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    meta = a_run()
    run_meta.write(path, meta)
    again = run_meta.read(path)
    assert again.to_json() == meta.to_json()
    assert again.benchmark_configs["parse"].calibrated and again.full == Levels(3, 5, 1)
    assert again.given_up == meta.given_up  # what a resume skips
    # the keys in the order docs/contracts.md lists them
    assert list(json.loads(path.read_text())) == list(meta.to_json())[: len(json.loads(path.read_text()))]
    assert list(meta.to_json())[:4] == ["schema_version", "tool_version", "created_at", "seed"]


def test_keys_this_gate_does_not_know_are_written_back(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    run_meta.write(path, a_run())
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "added_by_a_newer_minor": {"x": 1}}))
    meta = run_meta.read(path)
    run_meta.write(path, meta.with_adaptive(AdaptiveRecord(1.0, 3, look_rule(3))))
    assert json.loads(path.read_text())["added_by_a_newer_minor"] == {"x": 1}


@pytest.mark.parametrize(("version", "named"), [(None, "no schema_version"), (1, "schema_version 1")])
def test_a_file_of_an_unreleased_schema_is_refused_by_both_readers(tmp_path: Path, version, named) -> None:
    """Only schema 2 was ever released: an older file is refused naming the rerun, not misread."""
    doc = a_run().to_json()
    del doc["adaptive"], doc["schema_version"]
    if version is not None:
        doc["schema_version"] = version
    (tmp_path / "meta.json").write_text(json.dumps(doc))
    for read in (run_meta.read, lambda p: run_meta.read_beside(p.with_name("trials.csv"), [])):
        with pytest.raises(InputError, match=f"has {named}: an unreleased ordertrap-gate wrote it") as err:
            read(tmp_path / "meta.json")
        assert err.value.fix == run_meta.RERUN and "again with this version" in err.value.fix


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
        ({"schedule": [TRIAL, {**TRIAL, "trial": 2, "colour": "red"}]}, "schedule[1] (unknown 'colour'"),
        (
            {"schedule": [{k: v for k, v in TRIAL.items() if k != "measurements"}]},
            "schedule[0] (missing measurements",
        ),
        ({"schedule": [{**TRIAL, "position": "1"}]}, "schedule[0].position (str"),
        ({"given_up": [{"benchmark": "parse", "version": "HEAD", "failed": 0}]}, "given_up"),
        ({"given_up": {"parse": "HEAD"}}, "given_up"),
    ],
)
def test_a_field_of_another_type_stops_a_resume_and_is_dropped_by_analysis(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    (tmp_path / "meta.json").write_text(json.dumps({**a_run().to_json(), **change}))
    with pytest.raises(InputError, match=f"wrong type: {re.escape(named)}") as err:
        run_meta.read(tmp_path / "meta.json")
    assert err.value.fix == "pass a new --out"
    warnings: list[dict[str, str]] = []
    meta = run_meta.read_beside(tmp_path / "trials.csv", warnings)
    field = re.match(r"\w+", named)[0]  # type: ignore[index]
    assert meta is not None and meta.seed in (7, None) and not meta.has(field)
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


# ---- adaptive: the follow-up rounds as typed records ---------------------------------------------
def docs_adaptive() -> dict[str, Any]:
    """The ``adaptive`` example of docs/contracts.md, its schedule placeholder filled with a trial."""
    text = (REPO_ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    block = text.split('```json\n"adaptive": ', 1)[1].split("\n```", 1)[0]
    return json.loads(block.replace('[ …trial entries exactly like "schedule"… ]', json.dumps([TRIAL])))


def write_doc(path: Path, doc: dict[str, Any]) -> bytes:
    """``doc`` as :func:`run_meta.write` lays a file out; its bytes."""
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path.read_bytes()


def test_the_documented_adaptive_reads_as_records_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    before = write_doc(path, {**a_run().to_json(), "adaptive": docs_adaptive()})
    meta = run_meta.read(path)
    ad = meta.adaptive
    assert ad is not None and ad.budget_s == 900.0 and ad.max_rounds == 3
    assert ad.rule.looks == 4 and meta.confidence_per_look == 0.9975
    (entry,) = ad.rounds
    assert entry.benchmarks["NAME"].suite_runs == 3 and entry.not_followed["NAME"].needs_s == 5400.0
    assert ad.final is not None and ad.final.unresolved["NAME"].values_needed == 90
    assert [(t.trial, t.round, t.config_source) for t in meta.round_trials()] == [(1, 1, "calibration")]
    run_meta.write(path, meta)
    assert path.read_bytes() == before


def test_keys_inside_adaptive_this_gate_does_not_know_are_written_back(tmp_path: Path) -> None:
    ad = docs_adaptive()
    for part in (ad, ad["rule"], ad["rounds"][0], ad["rounds"][0]["benchmarks"]["NAME"], ad["final"]):
        part["added_by_a_newer_minor"] = [1, {"x": None}]
    path = tmp_path / "meta.json"
    before = write_doc(path, {**a_run().to_json(), "adaptive": ad})
    run_meta.write(path, run_meta.read(path))
    assert path.read_bytes() == before


def _break(ad: dict[str, Any], where: str, value: Any) -> None:
    *parents, key = where.split(".")
    for p in parents:
        ad = ad[int(p)] if p.isdigit() else ad[p]
    if value is _MISSING:
        del ad[key]
    else:
        ad[key] = value


_MISSING = object()


@pytest.mark.parametrize(
    ("where", "value", "named", "kept"),
    [
        ("budget_s", "15m", "adaptive.budget_s", "nothing"),
        ("rule.confidence_per_look", 1.5, "adaptive.rule.confidence_per_look", "nothing"),
        ("rule", None, "adaptive.rule (null)", "nothing"),
        ("rounds.0.seed", "x", "adaptive.rounds[0].seed", "final"),
        ("rounds.0.schedule", {"trial": 1}, "adaptive.rounds[0].schedule", "final"),
        ("rounds.0.schedule.0.colour", "red", "adaptive.rounds[0].schedule[0] (unknown 'colour'", "final"),
        ("rounds.0.schedule.0.version", _MISSING, "adaptive.rounds[0].schedule[0] (missing version", "final"),
        (
            "rounds.0.benchmarks.NAME.suite_runs",
            0,
            "adaptive.rounds[0].benchmarks['NAME'].suite_runs",
            "final",
        ),
        (
            "final.unresolved.NAME.values_needed",
            "many",
            "adaptive.final.unresolved['NAME'].values_needed",
            "rounds",
        ),
        ("final.unresolved.NAME.needs_s", -5, "adaptive.final.unresolved['NAME'].needs_s", "rounds"),
        ("final.used_s", _MISSING, "adaptive.final.used_s (missing)", "rounds"),
    ],
)
def test_a_malformed_adaptive_stops_a_resume_and_analysis_drops_the_smallest_part(
    tmp_path: Path, where: str, value: Any, named: str, kept: str
) -> None:
    ad = docs_adaptive()
    _break(ad, where, value)
    write_doc(tmp_path / "meta.json", {**a_run().to_json(), "adaptive": ad})
    with pytest.raises(InputError, match=f"wrong type: {re.escape(named)}") as err:
        run_meta.read(tmp_path / "meta.json")
    assert err.value.fix == "pass a new --out"
    warnings: list[dict[str, str]] = []
    meta = run_meta.read_beside(tmp_path / "trials.csv", warnings)
    assert meta is not None and meta.seed == 7
    assert [w["code"] for w in warnings] == ["meta_invalid"] and named in warnings[0]["message"]
    got = meta.adaptive
    if kept == "nothing":  # the budget and the rule define the run: without them it had none
        assert got is None and not meta.has("adaptive") and meta.confidence_per_look is None
    elif kept == "final":  # the rounds are left out; analysis counts them from the log
        assert got is not None and got.rounds == () and got.final is not None
        assert meta.confidence_per_look == 0.9975
    else:  # final is left out, as for a run stopped before its last look
        assert got is not None and len(got.rounds) == 1 and got.final is None


def test_a_file_without_given_up_reads_as_nothing_given_up(tmp_path: Path) -> None:
    doc = a_run().to_json()
    del doc["given_up"]
    (tmp_path / "meta.json").write_text(json.dumps(doc))
    assert run_meta.read(tmp_path / "meta.json").given_up == ()
