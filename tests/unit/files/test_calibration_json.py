"""calibration.json: one reader and writer, and every consumer reads a file the same way."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from gate.commands.publish import _calibration
from gate.errors import InputError
from gate.files import calibration_json
from gate.github.calibration_diff import calibration_diff
from gate.github.context import ActionContext, ActionInputs, Secret
from tests.conftest import REPO_ROOT
from tests.fakes import analyses


def test_written_and_read_back_it_is_the_same_document(tmp_path: Path) -> None:
    doc = analyses.calibration_document(["parse", "compress"])
    doc["extra_field_of_a_newer_gate"] = {"kept": True}
    written = calibration_json.write(doc, tmp_path / "c.json")
    read = calibration_json.read(tmp_path / "c.json")
    assert read.document == written.document == doc
    assert read.config_for("parse") == doc["benchmarks"]["parse"]["config"]
    assert read.config_for("new") is None
    assert read.never_stable("compress") and not read.never_stable("parse")
    assert read.never_stable_names == {"compress"}
    assert read.benchmarks["parse"].cost == doc["benchmarks"]["parse"]["cost"]


def _refused(doc: dict[str, Any]) -> str:
    with pytest.raises(InputError) as err:
        calibration_json.from_document(doc)
    assert "ordertrap-gate calibrate" in err.value.fix
    return err.value.message


def test_fields_of_the_wrong_type_are_named() -> None:
    doc = analyses.calibration_document(["parse"])
    doc["benchmarks"]["parse"]["never_stable"] = "yes"
    assert "benchmarks['parse'].never_stable must be true or false" in _refused(doc)
    doc = analyses.calibration_document(["parse"])
    doc["benchmarks"]["parse"]["cost"] = "6 s"
    assert "benchmarks['parse'].cost must be a number or null" in _refused(doc)
    doc = analyses.calibration_document(["parse"])
    doc["benchmarks"]["parse"]["config"]["iteration"] = 2.5
    assert "config.iteration must be an integer" in _refused(doc)
    doc = analyses.calibration_document(["parse"])
    doc["schema_version"] = 99
    assert "schema_version 99" in _refused(doc)


def test_the_writer_refuses_what_the_reader_would_refuse(tmp_path: Path) -> None:
    doc = analyses.calibration_document(["parse"])
    doc["summary"] = ["not", "an", "object"]
    with pytest.raises(InputError, match="summary must be a JSON object"):
        calibration_json.write(doc, tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


def _bad_file(tmp_path: Path) -> Path:
    """A calibration that `run --calibration` refuses (a level count of 2.5)."""
    doc = analyses.calibration_document(["parse"])
    doc["benchmarks"]["parse"]["config"]["iteration"] = 2.5
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match=r"config\.iteration must be an integer"):
        calibration_json.read(path)
    return path


def test_a_file_run_refuses_is_not_shown_as_a_calibration(tmp_path: Path) -> None:
    """report, the PR comment and the recalibration diff do not present configurations that
    `run` would refuse to run."""
    bad = _bad_file(tmp_path)
    settings = ActionContext(token=Secret(""), inputs=ActionInputs(calibration=str(bad)))
    assert _calibration(settings) is None  # the comment goes on without it
    with pytest.raises(InputError, match="is not a calibration file"):
        calibration_diff(tmp_path / "missing.json", bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(analyses.calibration_document(["parse"])), encoding="utf-8")
    assert "could not be read" in calibration_diff(bad, good)  # an unreadable old file is named, not "first"


def test_report_refuses_a_file_run_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gate.cli import main

    bad = _bad_file(tmp_path)
    analysis = tmp_path / "analysis.json"
    analysis.write_text(json.dumps(analyses.all_unchanged()), encoding="utf-8")
    code = main(["report", str(analysis), "--format", "html", "--out", str(tmp_path / "r.html"),
                 "--calibration", str(bad)])  # fmt: skip
    assert code == 2
    assert "config.iteration must be an integer" in capsys.readouterr().err


def test_one_class_named_calibration() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
        for path in sorted((REPO_ROOT / "gate").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name == "Calibration"
    ]
    assert found == ["gate/files/calibration_json.py:" + found[0].split(":")[1]], found
