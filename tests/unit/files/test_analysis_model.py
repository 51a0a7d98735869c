"""The detail sections of analysis.json decode into complete typed records (gate/files/analysis_model.py):
an absent section reads with the defaults decided there, and junk a report would show is refused
by name when the document is read."""

from __future__ import annotations

import json

import pytest

from gate.errors import InputError
from gate.files import analysis_json
from gate.files.analysis_model import Carryover, benchmark_details, suite_details
from tests.fakes import analyses


def test_a_file_without_detail_sections_reads_with_their_defaults() -> None:
    doc = json.loads(json.dumps(analyses.mixed()))
    for b in doc["benchmarks"]:
        b.update(order=None, carryover=None, similarity=None, config=None)
        b.pop("carryover_exclusion", None)
        b.pop("tail", None)
    doc.update(order_check=None, similarity=None)
    doc.pop("environment")
    checked = analysis_json.parse(json.dumps(doc))
    d = benchmark_details(checked["benchmarks"][0])
    assert (d.order, d.carryover, d.dissimilar, d.config, d.exclusion, d.tail) == (
        None,
        Carryover(),
        (),
        None,
        None,
        None,
    )
    s = suite_details(checked)
    assert (s.order_tests, s.order_matters, s.similarity_warnings, s.environment) == ((), False, (), {})


def test_the_order_effects_fixture_decodes_every_field() -> None:
    doc = analyses.order_effects()
    for b in doc["benchmarks"]:
        d = benchmark_details(b)
        assert d.order is None or isinstance(d.order.significant, bool | None)
        assert all(p.predecessor is not None for p in d.carryover.predecessors)
    assert suite_details(doc).order_tests


@pytest.mark.parametrize(
    ("section", "value", "message"),
    [
        ("carryover", {"predecessors": ["load"]}, r"carryover\.predecessors\[0\] is 'load', not an object"),
        ("carryover", {"position": {"p": "small"}}, r"carryover\.position\.p is 'small', not a number"),
        ("order", {"ci_case": "2"}, r"order\.ci_case is '2', not an integer"),
        ("config", {"suite_run": 2.5}, r"config\.suite_run is 2\.5, not a whole number"),
        ("tail", {"statistic": "p90"}, r"\.tail lacks 'verdict'"),
        ("carryover_exclusion", {"excluded_trials": {"base": -1}}, r"excluded_trials\.base is -1"),
    ],
)
def test_junk_in_a_detail_the_reports_show_is_refused_by_name(
    section: str, value: object, message: str
) -> None:
    doc = json.loads(json.dumps(analyses.order_effects()))
    doc["benchmarks"][0][section] = value
    with pytest.raises(InputError, match=message):
        analysis_json.parse(json.dumps(doc))
