"""meta.json fields of the wrong type (gate.analysis.load): dropped with a `meta_invalid` warning
that names them; the well-formed rest of the file is kept."""

from __future__ import annotations

import json
from pathlib import Path

from gate.analysis.load import load_trials

GOOD_WARNING = {"code": "governor", "message": "governor is powersave", "action": "set performance"}


def test_bad_warnings_are_dropped_and_good_ones_kept(tmp_path: Path) -> None:
    log = tmp_path / "trials.csv"
    log.write_text("benchmark,version,value\na,main,1\na,HEAD,1\n", encoding="utf-8")
    meta = {
        "schema_version": 2,
        "base": "main",
        "warnings": [GOOD_WARNING, {}, {"code": 1, "message": "m", "action": "a"}, "text"],
        "environment": {"cores": 2},
        "benchmark_configs": ["parse"],
    }
    (tmp_path / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    logs = load_trials([log])
    assert logs.meta is not None
    assert list(logs.meta.warnings) == [GOOD_WARNING] and logs.meta.environment == {"cores": 2}
    assert logs.meta.benchmark_configs == {} and not logs.meta.has("benchmark_configs")
    assert logs.meta.base == "main"
    (warning,) = logs.warnings
    assert warning["code"] == "meta_invalid"
    assert "benchmark_configs (list, not an object)" in warning["message"]
    assert "3 of 4 warnings" in warning["message"]


def test_a_well_formed_meta_gives_no_warning(tmp_path: Path) -> None:
    log = tmp_path / "trials.csv"
    log.write_text("benchmark,version,value\na,main,1\n", encoding="utf-8")
    meta = {"schema_version": 2, "warnings": [GOOD_WARNING], "environment": None, "calibration": None}
    (tmp_path / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    logs = load_trials([log])
    assert logs.warnings == [] and logs.meta is not None
    assert list(logs.meta.warnings) == [GOOD_WARNING] and logs.meta.environment is None
    assert logs.meta.calibration is None and logs.meta.schema_version == 2
