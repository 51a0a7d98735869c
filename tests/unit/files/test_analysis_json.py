"""analysis.json through its one reader and writer (gate/files/analysis_json.py): what a
document read back guarantees, what is refused (naming the field), and that older files read
with the fields they lack filled in as docs/contracts.md describes them."""

from __future__ import annotations

import copy
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError
from gate.files import analysis_json
from gate.model import Verdict
from gate.render import render
from tests.fakes import analyses


@pytest.mark.parametrize("name", sorted(analyses.SCENARIOS))
def test_written_and_read_back_unchanged(name: str, tmp_path: Path) -> None:
    doc = analyses.SCENARIOS[name]()
    path = tmp_path / "sub" / "analysis.json"
    analysis_json.write(path, doc)
    assert analysis_json.read(path) == doc
    assert [p.name for p in path.parent.iterdir()] == ["analysis.json"]  # no temporary file left


def test_a_fixture_lacking_a_field_the_writer_writes_is_refused() -> None:
    """The fixtures are built by analysis_json.document, the writer's check: a scenario without
    ``interval`` (or any settings key analyze writes) cannot be made."""
    doc = analyses.mixed()
    fields = {k: v for k, v in doc.items() if k != "schema_version"}
    fields["settings"] = {k: v for k, v in doc["settings"].items() if k != "interval"}
    with pytest.raises(InputError, match="settings lacks 'interval'"):
        analysis_json.document(**fields)
    without_suite = {k: v for k, v in fields.items() if k not in ("settings", "carryover_suite")}
    with pytest.raises(InputError, match="lacks 'carryover_suite'"):
        analysis_json.document(settings=doc["settings"], **without_suite)


def test_the_writer_refuses_what_the_reader_refuses(tmp_path: Path) -> None:
    doc = analyses.mixed()
    doc["benchmarks"][0]["base"]["n"] = -1
    with pytest.raises(InputError, match=r"benchmarks\[0\] \('.*'\)\.base\.n is -1, not a whole number"):
        analysis_json.write(tmp_path / "analysis.json", doc)
    assert not (tmp_path / "analysis.json").exists()


def _older(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as a schema-1 gate wrote it: without the fields docs/contracts.md marks added."""
    old = copy.deepcopy(doc)
    old["schema_version"] = 1
    for key in ("inputs", "adaptive", "carryover_suite", "environment"):
        del old[key]
    del old["settings"]["interval"], old["settings"]["compared_order"]
    for key in ("failed_in_head_only", "only_in_base", "only_in_head", "n_benchmarks"):
        del old["summary"][key]
    old["summary"]["counts"] = {k: v for k, v in old["summary"]["counts"].items() if v}
    for b in old["benchmarks"]:
        del b["samples_needed"], b["followup"]
    return old


def test_an_older_file_reads_with_the_added_fields_filled_in() -> None:
    doc = analyses.failures()
    assert doc["summary"]["failed_in_head_only"] > 0
    read = analysis_json.parse(json.dumps(_older(doc)))
    assert read["inputs"] == [] and read["adaptive"] is None
    assert read["carryover_suite"] is None and read["environment"] is None
    s = read["summary"]
    assert s["counts"] == doc["summary"]["counts"] and set(s["counts"]) == {str(v) for v in Verdict}
    assert s["failed_in_head_only"] == doc["summary"]["failed_in_head_only"]  # counted again
    assert s["n_benchmarks"] == len(doc["benchmarks"])
    assert (s["only_in_base"], s["only_in_head"]) == (0, 0)
    assert all(b["samples_needed"] is None and b["followup"] is None for b in read["benchmarks"])


def test_any_integer_seed_reads() -> None:
    """``analyze --seed`` takes any integer, so a negative seed is a valid setting."""
    doc = json.loads(json.dumps(analyses.mixed()))
    doc["settings"]["seed"] = -5
    assert analysis_json.parse(json.dumps(doc))["settings"]["seed"] == -5


def test_the_writer_does_not_accept_an_older_document() -> None:
    with pytest.raises(InputError, match="schema_version 1 is not one this gate writes"):
        analysis_json.dumps(_older(analyses.mixed()))  # type: ignore[arg-type]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change to the document at a dotted path (integers index lists); value ... deletes."""

    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if value is ...:
            del node[last]
        else:
            node[int(last) if isinstance(node, list) else last] = value

    return change


@pytest.mark.parametrize(
    "change, message",
    [
        (_set("benchmarks.0.unit", ...), "lacks 'unit'"),
        (_set("benchmarks.0.stability", ...), "lacks 'stability'"),
        (_set("benchmarks.0.samples", ...), "lacks 'samples'"),
        (_set("benchmarks.0.warnings", ...), "lacks 'warnings'"),
        (_set("summary.decision", ...), "summary lacks 'decision'"),
        (_set("settings", ...), "the document lacks 'settings'"),
        (_set("settings.confidence", "high"), "settings.confidence is 'high', not a number"),
        (_set("settings.threshold_pct", None), "settings.threshold_pct is null"),
        (_set("settings.statistic", ...), "settings lacks 'statistic'"),
        (_set("settings.seed", "1"), "settings.seed is '1', not an integer"),
        (_set("warnings", ...), "the document lacks 'warnings'"),
        (_set("summary.decision", "maybe"), "summary.decision is 'maybe', not one of pass, fail"),
        (_set("benchmarks.0.higher_is_better", "yes"), "higher_is_better is 'yes', not true or false"),
        (_set("benchmarks.0.change_ci", [1.0]), r"change_ci is \[1.0\], not \[low, high\]"),
        (_set("benchmarks.0.head.estimate", "fast"), "head.estimate is 'fast', not a number"),
        (_set("benchmarks.0.change_pct", float("nan")), "change_pct is nan, not a number"),
        (_set("benchmarks.0.base.ci", [1.0, float("inf")]), r"base\.ci is \[1\.0, inf\], not \[low, high\]"),
        (_set("benchmarks.0.stability.head.cv", "low"), r"stability\.head\.cv is 'low'"),
        (_set("benchmarks.0.samples.base.seq", None), r"samples\.base\.seq is not a list"),
        (_set("benchmarks.0.order", "yes"), r"\.order is 'yes', not an object \(or null\)"),
        (_set("benchmarks.0.samples_needed", -3), "samples_needed is -3, not a whole number"),
        (_set("benchmarks.0.threshold_pct", None), "threshold_pct is null, not a number"),
        (_set("benchmarks.0.bootstrap", "flat"), r"\.bootstrap is 'flat', not an object"),
        (_set("benchmarks.0.bootstrap", {"scheme": "flat"}), r"\.bootstrap lacks 'reason'"),
        (_set("benchmarks.0.bootstrap", {"scheme": 2, "reason": ""}), r"\.bootstrap\.scheme is 2"),
        (_set("benchmarks.0.reason", None), "reason is null, not a string"),  # JSON's word for it
        (_set("benchmarks.0.warnings", [{"message": "m"}]), r"warnings\[0\] lacks 'code'"),
        (_set("warnings", [{"code": 1, "message": "m", "action": "a"}]), r"warnings\[0\]\.code is 1"),
        (_set("summary.time", {"spent_s": "1 h"}), "summary.time.spent_s is '1 h'"),
        (_set("environment", ["x"]), "environment is \\['x'\\], not an object"),
        (_set("inputs", "trials.csv"), "inputs is 'trials.csv', not a list of paths"),
    ],
)
def test_a_missing_or_mistyped_field_is_refused_by_name(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    doc = json.loads(json.dumps(analyses.mixed()))
    change(doc)
    with pytest.raises(InputError, match=message) as err:
        analysis_json.parse(json.dumps(doc), "analysis.json")
    assert "ordertrap-gate analyze" in err.value.fix


@pytest.mark.parametrize(
    "change, message",
    [
        (_set("adaptive.rounds", "2"), "adaptive.rounds is '2', not a whole number"),
        (_set("adaptive.max_rounds", True), "adaptive.max_rounds is True, not a whole number"),
        (_set("adaptive.budget_s", "15m"), "adaptive.budget_s is '15m', not a number"),
        (_set("adaptive.rule", [4]), r"adaptive.rule is \[4\], not an object"),
        (_set("adaptive", "broken"), "adaptive is 'broken', not an object"),
        (_set("benchmarks.0.followup.rounds", 2.5), r"followup.rounds is 2.5, not a whole number"),
        (_set("benchmarks.0.followup.extra_values", []), r"followup.extra_values is \[\], not an object"),
        (_set("benchmarks.0.followup.extra_values.base", "many"), "extra_values.base is 'many'"),
        (_set("benchmarks.0.followup.unresolved", "x"), "followup.unresolved is 'x', not an object"),
    ],
)
def test_junk_in_the_follow_up_fields_is_refused_by_name(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    """publish reads analysis.json from an artifact: a malformed follow-up field is refused with
    the field named (publish: status ``error``), not rendered with parts silently left out."""
    doc = json.loads(json.dumps(analyses.followup_rounds()))
    change(doc)
    with pytest.raises(InputError, match=message):
        analysis_json.parse(json.dumps(doc))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            _set("benchmarks.0.samples.base.value", ["1.5", 2.0]),
            r"samples\.base\.value is not a list of finite numbers",
        ),
        (
            _set("benchmarks.0.samples.head.value", [True]),
            r"samples\.head\.value is not a list of finite numbers",
        ),
        (_set("benchmarks.0.samples.base.seq", ["x"]), r"samples\.base\.seq is not a list of trial numbers"),
        (_set("benchmarks.0.samples.base.seq", [1]), r"samples\.base\.seq .* one per value"),
        (_set("carryover_matrix.benchmarks", 3), r"carryover_matrix\.benchmarks is 3, not a list of names"),
        (
            _set("carryover_matrix.effect_pct", {}),
            "carryover_matrix.effect_pct is not a list with one row per",
        ),
        (_set("carryover_matrix.effect_pct.0", [1.0]), r"effect_pct\[0\] is not a list with one cell per"),
        (_set("carryover_matrix.effect_pct.1.0", "big"), r"effect_pct\[1\]\[0\] is 'big', not a number"),
        (_set("order_check.tests", 7), r"order_check\.tests is 7, not a list"),
        (_set("order_check.tests.0", "t"), r"order_check\.tests\[0\] is 't', not an object"),
        (
            _set("order_check.tests.0.fixed_median", "1 ms"),
            r"tests\[0\]\.fixed_median is '1 ms', not a number",
        ),
        (_set("order_check.tests.1.delta_pct", [1]), r"tests\[1\]\.delta_pct is \[1\], not a number"),
        (_set("order_check.tests.0.significant", "yes"), r"tests\[0\]\.significant is 'yes', not true"),
    ],
)
def test_junk_a_figure_would_draw_is_refused_at_load_by_name(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    """The HTML report draws the samples, the carry-over matrix and the order-check tests as they
    are: junk in them is refused by name when the document is read (and when render checks the
    document it is given), instead of raising inside a figure."""
    doc = json.loads(json.dumps(analyses.order_effects()))
    change(doc)
    with pytest.raises(InputError, match=message):
        analysis_json.parse(json.dumps(doc))
    with pytest.raises(InputError, match=message):
        render(doc, "html")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change, message",
    [
        (_set("benchmarks.0.carryover.position", 0.5), r"carryover\.position is 0\.5, not an object"),
        (_set("benchmarks.0.carryover.predecessors", 3), r"carryover\.predecessors is 3, not a list"),
        (_set("benchmarks.0.similarity.dissimilar_runs", "run 2"), r"similarity\.dissimilar_runs is 'run 2'"),
        (
            _set("benchmarks.0.similarity.dissimilar_instances", {}),
            r"dissimilar_instances is \{\}, not a list",
        ),
        (_set("similarity", {"warnings": True}), r"similarity\.warnings is True, not a list"),
    ],
)
def test_junk_in_the_details_the_reports_read_is_refused_by_name(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    """The comment, summary and HTML report list a benchmark's predecessors, its position effect
    and its dissimilar runs: a file where these are not an object or a list is refused by name
    instead of raising while the report is rendered."""
    doc = json.loads(json.dumps(analyses.order_effects()))
    change(doc)
    with pytest.raises(InputError, match=message):
        analysis_json.parse(json.dumps(doc))
    for fmt in ("comment", "summary", "html"):
        with pytest.raises(InputError, match=message):
            render(doc, fmt)  # type: ignore[arg-type]


def test_an_unresolved_entry_is_checked() -> None:
    doc = json.loads(json.dumps(analyses.followup_rounds()))
    entry = next(b for b in doc["benchmarks"] if b["followup"] and b["followup"]["unresolved"])
    entry["followup"]["unresolved"]["values_needed"] = "n"
    with pytest.raises(InputError, match=r"unresolved\.values_needed is 'n', not a whole number"):
        analysis_json.parse(json.dumps(doc))


@pytest.mark.parametrize("version, fix", [(3, "upgrade ordertrap-gate"), (0, "ordertrap-gate analyze")])
def test_schema_versions_outside_what_this_gate_reads(version: int, fix: str) -> None:
    doc = json.loads(json.dumps(analyses.mixed()))
    doc["schema_version"] = version
    with pytest.raises(InputError) as err:
        analysis_json.parse(json.dumps(doc))
    assert fix in err.value.fix


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "analysis.json"
    path.write_text("\ufeff" + analysis_json.dumps(analyses.mixed()), encoding="utf-8")
    assert analysis_json.read(path) == analyses.mixed()


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_the_file_gets_the_mode_of_any_file_the_user_creates(umask: int, tmp_path: Path) -> None:
    # a workflow step after the Docker action (another user) reads and uploads analysis.json
    old = os.umask(umask)
    try:
        analysis_json.write(
            tmp_path / "analysis.json", analyses.analysis([analyses.benchmark("a", "unchanged")])
        )
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "analysis.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o666 & ~umask
