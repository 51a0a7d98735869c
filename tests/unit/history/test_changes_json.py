"""The change-point document of ``history changes --json``: written and read in one module, and a
file that is not one (or of another schema) refused with the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.history.changes import CHANGES_SCHEMA, changes_json_text, read_changes_json


def test_what_is_written_reads_back(tmp_path: Path) -> None:
    doc = {"schema_version": CHANGES_SCHEMA, "n_series": 2, "change_points": [{"benchmark": "b"}]}
    path = tmp_path / "changes.json"
    path.write_text(changes_json_text(doc), encoding="utf-8")
    assert read_changes_json(path) == doc


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "unreadable"),
        ("[1, 2]", "no change_points list"),
        (json.dumps({"schema_version": CHANGES_SCHEMA}), "no change_points list"),
        (json.dumps({"schema_version": CHANGES_SCHEMA + 1, "change_points": []}), "schema_version"),
        (json.dumps({"change_points": []}), "schema_version"),
    ],
)
def test_a_file_that_is_not_a_changes_document_is_refused_with_the_fix(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "changes.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=says) as err:
        read_changes_json(path)
    assert "history changes --json" in err.value.fix


def test_a_missing_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unreadable"):
        read_changes_json(tmp_path / "nope.json")
