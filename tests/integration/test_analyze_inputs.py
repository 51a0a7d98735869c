"""`analyze` (and `calibrate`, which reads logs the same way) on logs the csv module cannot parse
and on a meta.json too deeply nested to parse: a clear error for that file, the other logs are
analyzed (the policy of gate/analysis/load.py), never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_analyze_cli import analyze, make_log

PLAN = {"parse": (1.10, 0.005, False), "load": (1.00, 0.005, False)}


def _stray_cr(path: Path) -> None:
    """Append a last row with a carriage return inside an unquoted field and no line end: a copy
    cut short after a hand edit (`run` quotes such a field and ends every row)."""
    with path.open("a", newline="") as fh:
        fh.write("parse\rx,HEAD,1")


def _huge_field(path: Path) -> None:
    """A hand-made log (not written by `run`) with a quoted field over the csv module's
    131,072-character limit and a last row cut inside its quotes."""
    rows = ["benchmark,version,value", *(f"load,{v},0.01" for v in ("main", "HEAD") for _ in range(5))]
    rows.append('"' + "p" * 200_000 + '",HEAD,0.01')
    path.write_text("\n".join(rows) + '\nload,"HEAD', encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "needle", "fix"),
    [
        (
            _stray_cr,
            "new-line character seen in unquoted field): a carriage return (\\r)",
            "remove the stray \\r",
        ),
        (_huge_field, "field larger than field limit", "repair the malformed record"),
    ],
)
def test_a_log_the_csv_module_cannot_parse_is_skipped_with_its_reason(tmp_path, damage, needle, fix):
    good = make_log(tmp_path / "r1", PLAN, seed=1, instance="one")
    bad = make_log(tmp_path / "r2", PLAN, seed=2, instance="two")
    damage(bad)
    out = tmp_path / "analysis.json"
    proc = analyze(good, bad, "--json", out, "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{bad} is not a readable CSV trial log ({needle}" in proc.stderr and fix in proc.stderr
    doc = json.loads(out.read_text())
    (skipped,) = [w for w in doc["warnings"] if w["code"] == "unreadable_log"]
    assert str(bad) in skipped["message"] and fix in skipped["action"]
    # the other log is analyzed in full: 3 suite runs × 5 iterations × 3 measurements
    assert {b["benchmark"]: b["head"]["n"] for b in doc["benchmarks"]} == {"parse": 45, "load": 45}


def test_the_only_log_unparsable_is_an_error_naming_it(tmp_path):
    bad = make_log(tmp_path / "r1", PLAN)
    _stray_cr(bad)
    proc = analyze(bad, "--json", tmp_path / "analysis.json")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"error: {bad} is not a readable CSV trial log" in proc.stderr
    assert "fix: remove the stray \\r or quote the field" in proc.stderr


def test_calibrate_names_the_unparsable_log(tmp_path):
    bad = make_log(tmp_path / "r1", PLAN)
    _stray_cr(bad)
    proc = subprocess.run(
        [sys.executable, "-m", "gate", "calibrate", str(bad), "--out", str(tmp_path / "c.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and f"{bad} is not a readable CSV trial log" in proc.stderr


def test_a_meta_json_nested_too_deeply_is_a_warning(tmp_path):
    log = make_log(tmp_path / "r1", PLAN)
    (log.parent / "meta.json").write_text('{"base": ' + "[" * 100_000 + "]" * 100_000 + "}")
    proc = analyze(log, "--json", tmp_path / "analysis.json", "--base", "main", "--head", "HEAD")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "meta.json could not be read (arrays or objects are nested too deeply" in proc.stderr


def test_calibrate_reads_past_a_meta_json_nested_too_deeply(tmp_path):
    log = make_log(tmp_path / "r1", PLAN)
    (log.parent / "meta.json").write_text("[" * 100_000 + "]" * 100_000)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gate",
            "calibrate",
            str(log),
            "--version",
            "main",
            "--out",
            str(tmp_path / "c.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "c.json").read_text())["source"]["version"] == "main"


def test_bidi_controls_in_names_are_shown_visibly_on_the_terminal_and_kept_in_the_data(tmp_path):
    name = "fast\u202eesolc"  # displays as "fastclose" when the override is obeyed
    log = make_log(tmp_path / "r1", {name: (1.10, 0.005, False), "load": (1.0, 0.005, False)})
    out = tmp_path / "analysis.json"
    proc = analyze(log, "--json", out, "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "fast<U+202E>esolc" in proc.stdout
    assert "\u202e" not in proc.stdout + proc.stderr
    assert name in {b["benchmark"] for b in json.loads(out.read_text())["benchmarks"]}


@pytest.mark.parametrize(
    "change",
    [
        {"warnings": [{}]},
        {"warnings": [{"code": 1, "message": None, "action": []}, "x"]},
        {"warnings": "x"},
        {"benchmark_configs": {"parse": {"discard_warmup": 1, "warmup_level": ["measurement"]}}},
        {"environment": "x"},
    ],
)
def test_a_damaged_meta_json_is_reported_and_the_log_analyzed(tmp_path, change):
    log = make_log(tmp_path / "r1", PLAN)
    meta = json.loads((log.parent / "meta.json").read_text())
    (log.parent / "meta.json").write_text(json.dumps({**meta, **change}))
    out = tmp_path / "analysis.json"
    proc = analyze(log, "--json", out, "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    doc = json.loads(out.read_text())
    assert {b["benchmark"] for b in doc["benchmarks"]} == {"parse", "load"}
    assert doc["environment"] is None or isinstance(doc["environment"], dict)
    for w in doc["warnings"]:
        assert all(isinstance(w[k], str) for k in ("code", "message", "action"))
    if "warnings" in change:
        assert "warning [meta_invalid]" in proc.stderr and "restore meta.json" in proc.stderr
