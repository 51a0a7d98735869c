"""`ordertrap-gate run` on malformed inputs: calibration.json and .ordertrap.toml that a person (or
a pull request) got wrong end in one clear error that names the file, the key and the fix, never
in a traceback, a hang or a run that measures something else than the file seems to say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_run_cli import config, load, make_repo, run_cli

CALIBRATION = {
    "schema_version": 1,
    "metric": "cv",
    "threshold": 0.01,
    "levels": ["suite_run", "iteration", "measurement"],
    "discard_warmup": {"level": "measurement", "count": 0},
    "full": {"suite_run": 2, "iteration": 2, "measurement": 1},
    "benchmarks": {"a": {"config": {"suite_run": 1, "iteration": 2, "measurement": 1}}},
}


def _run_with(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str]:
    repo = make_repo(tmp_path, config(s=2, i=2))
    cal = tmp_path / "calibration.json"
    cal.write_text(text, encoding="utf-8")
    code = run_cli(repo, tmp_path / "out", "--calibration", str(cal))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"threshold": "abc"}, "threshold must be a positive number, got 'abc'"),
        ({"discard_warmup": [1, 2]}, "discard_warmup must be a JSON object, got list"),
        ({"discard_warmup": "iteration"}, "discard_warmup must be a JSON object, got str"),
        (
            {"discard_warmup": {"level": "measurement", "count": -3}},
            "discard_warmup.count must be an integer ≥ 0",
        ),
        (
            {"discard_warmup": {"level": "measurement", "count": "1"}},
            "discard_warmup.count must be an integer",
        ),
        ({"discard_warmup": {"level": "second", "count": 1}}, "discard_warmup.level 'second' is not one of"),
        (
            {"full": {"suite_run": 2, "iteration": 2.5, "measurement": 1}},
            "full.iteration must be an integer ≥ 1",
        ),
        (
            {"benchmarks": {"a": {"config": {"suite_run": True, "iteration": 1, "measurement": 1}}}},
            "benchmarks['a'].config.suite_run must be an integer ≥ 1, got True",
        ),
        (
            {"benchmarks": {"a": {"config": {"suite_runs": 1, "iteration": 1, "measurement": 1}}}},
            "names level(s) 'suite_runs' that are not in its levels",
        ),
        ({"benchmarks": {"a": [1, 1, 1]}}, "benchmarks['a'] must be a JSON object"),
        ({"levels": "suite_run"}, "levels must be a list of names"),
    ],
)
def test_a_malformed_calibration_names_the_field_and_the_fix(tmp_path, capsys, change, needle):
    code, err = _run_with(tmp_path, capsys, json.dumps({**CALIBRATION, **change}))
    assert code == 2
    assert needle in err and "calibration file" in err and "calibration.json" in err
    assert "fix: regenerate it with `ordertrap-gate calibrate" in err
    assert "Traceback" not in err


def test_a_calibration_nested_too_deeply_is_a_clear_error(tmp_path, capsys):
    code, err = _run_with(tmp_path, capsys, "[" * 100_000 + "]" * 100_000)
    assert code == 2
    assert "is not valid JSON" in err and "nested too deeply" in err and "fix: regenerate it" in err


@pytest.mark.parametrize("level", ["measurement", "iteration"])
def test_a_warmup_larger_than_the_full_configuration_is_refused(tmp_path, capsys, level):
    # [full] is 2 × 2 × 1: discarding 1,000,000 positions would run them all first
    warmup = {"level": level, "count": 1_000_000}
    code, err = _run_with(tmp_path, capsys, json.dumps({**CALIBRATION, "discard_warmup": warmup}))
    assert code == 2
    assert f"discards the first 1000000 {level}(s) as warm-up" in err and "has only" in err
    assert "recalibrate" in err and "--discard-warmup below" in err
    assert not (tmp_path / "out" / "trials.csv").exists()


def test_a_calibration_with_a_byte_order_mark_is_read(tmp_path, capsys):
    code, err = _run_with(tmp_path, capsys, "\ufeff" + json.dumps(CALIBRATION))
    assert code == 0, err
    _df, meta = load(tmp_path / "out")
    assert meta["benchmark_configs"]["a"]["source"] == "calibration"


def test_report_reads_a_deeply_nested_calibration_as_an_error(tmp_path):
    from gate.errors import InputError
    from gate.render import load_calibration_json

    path = tmp_path / "calibration.json"
    path.write_text('{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(InputError, match="nested too deeply"):
        load_calibration_json(path)
