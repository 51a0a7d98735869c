"""What render accepts: a newer schema says upgrade, a non-analysis, a missing or non-JSON file
and an unknown format are input errors; fields that may be null render when null."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.errors import InputError
from gate.files import analysis_json
from gate.render import render
from tests.fakes import analyses


def test_newer_schema_says_upgrade() -> None:
    a = analyses.mixed()
    a["schema_version"] = 99
    with pytest.raises(InputError) as err:
        analysis_json.validate(a)
    assert "upgrade ordertrap-gate" in err.value.fix


@pytest.mark.parametrize(
    "data",
    [[], {"schema_version": 1}, {"schema_version": "1", "summary": {}, "benchmarks": []}, {"benchmarks": []}],
)
def test_not_an_analysis(data: object) -> None:
    with pytest.raises(InputError) as err:
        analysis_json.validate(data)
    assert "ordertrap-gate analyze" in err.value.fix


def test_reading_a_missing_or_non_json_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        analysis_json.read(tmp_path / "missing.json")
    bad = tmp_path / "trials.csv"
    bad.write_text("trial,benchmark\n1,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        analysis_json.read(bad)


def test_unknown_format() -> None:
    with pytest.raises(InputError, match="comment, summary, html"):
        render(analyses.mixed(), "pdf")  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", ["mixed", "failures", "order_effects"])
def test_fields_that_may_be_null_render_when_null(scenario: str) -> None:
    """Every field the contract allows to be null is null, and the analysis details kept as
    written are empty or partial; all three formats still render."""
    a = analyses.SCENARIOS[scenario]()
    for b in a["benchmarks"]:
        b["change_ci"] = None
        b["change_pct"] = None
        b["base"]["ci"] = None
        b["base"]["estimate"] = None
        b["stability"]["head"] = {"cv": None, "rmad": None, "rciw": None}
        for key in ("config", "order", "carryover", "similarity"):
            b[key] = None  # type: ignore[literal-required]
    for key in ("order_check", "carryover_matrix", "similarity", "environment"):
        a[key] = None  # type: ignore[literal-required]
    a["summary"]["time"] = None
    a["benchmarks"][-1]["carryover"] = {"predecessors": [{"predecessor": "x"}]}
    for fmt in ("comment", "summary", "html"):
        text = render(a, fmt)  # type: ignore[arg-type]
        assert a["benchmarks"][0]["benchmark"] in text
