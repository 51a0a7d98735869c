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
    from gate.files import calibration_json

    path = tmp_path / "calibration.json"
    path.write_text('{"benchmarks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(InputError, match="nested too deeply"):
        calibration_json.read(path)


# ---- .ordertrap.toml ---------------------------------------------------------------------------


def _run_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str
) -> tuple[int, str]:
    repo = make_repo(tmp_path, text)
    code = run_cli(repo, tmp_path / "out", *extra)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("full", "needle", "fix"),
    [
        (
            "suite_runs = 1e20",
            "[full].suite_runs must be a positive integer, got 1e+20",
            "without a decimal point",
        ),
        (
            "suite_runs = 3.0",
            "[full].suite_runs must be a positive integer, got 3.0",
            "without a decimal point",
        ),
        (
            "suite_runs = 100000000000000000000",
            "100000000000000000000 × 2 × 1 values per benchmark and version, more than 10,000",
            "lower [full].suite_runs, iterations or measurements",
        ),
        ("iterations = 1000000000", "2 × 1000000000 × 1 values", "lower [full].suite_runs"),
        ("measurements = 20000", "2 × 2 × 20000 values", "lower [full].suite_runs"),
    ],
)
def test_full_levels_out_of_range_are_refused_before_any_work(tmp_path, capsys, full, needle, fix):
    text = config(s=2, i=2).replace("[full]\n", f"[full]\n{full}\n")
    text = "\n".join(line for line in text.splitlines() if line.split(" = ")[0] != full.split(" = ")[0])
    code, err = _run_config(tmp_path, capsys, text + f"\n{full}\n")
    assert code == 2, err
    assert needle in err and "\n  fix: " in err and fix in err.split("fix: ")[1]
    assert not (tmp_path / "out" / "meta.json").exists()


def test_a_schedule_too_long_to_hold_is_refused(tmp_path, capsys):
    # 10 benchmarks × 2 versions × 100 suite runs × 100 iterations = 200,000 trials
    names = tuple("abcdefghij")
    code, err = _run_config(tmp_path, capsys, config(names=names, s=100, i=100))
    assert code == 2, err
    assert "the schedule would hold 200,000 trials (10 benchmarks × 2 versions" in err
    assert "more than 100,000" in err and "fix: lower [full].suite_runs or [full].iterations" in err
    assert not (tmp_path / "out" / "meta.json").exists()


@pytest.mark.parametrize(
    ("pairs", "needle"), [("1000000000", "more than 100,000"), ("0", "--order-pairs must be at least 1")]
)
def test_order_pairs_out_of_range_are_refused(tmp_path, capsys, pairs, needle):
    code, err = _run_config(tmp_path, capsys, config(s=1, i=1), "--order-check", "--order-pairs", pairs)
    assert code == 2, err
    assert needle in err and "--order-pairs" in err
    assert not (tmp_path / "out" / "meta.json").exists()


def test_deeply_nested_arrays_in_the_config_are_a_clear_error(tmp_path, capsys):
    text = config().replace("[suite]\n", "[suite]\ninclude = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, err = _run_config(tmp_path, capsys, text)
    assert code == 2
    assert "is not valid TOML: arrays or inline tables are nested too deeply" in err
    assert ".ordertrap.toml" in err and "fix: no key of .ordertrap.toml needs" in err


def test_a_config_with_a_byte_order_mark_is_read(tmp_path, capsys):
    code, err = _run_config(tmp_path, capsys, "\ufeff" + config(s=1, i=1))
    assert code == 0, err
    df, _meta = load(tmp_path / "out")
    assert len(df) == 2 * 2


# ---- include / exclude regexes ------------------------------------------------------------------


def test_a_backtracking_include_pattern_cannot_stall_the_run(tmp_path, capsys):
    # re.search("(a+)+$", "a" * 40 + "!") backtracks through 2**40 ways to split the a's
    hostile = "a" * 40 + "!"
    text = config('include = ["(a+)+$", "^b$"]', names=(hostile, "b"), s=1, i=1)
    code, err = _run_config(tmp_path, capsys, text)
    assert code == 0, err
    df, meta = load(tmp_path / "out")
    assert set(df.benchmark) == {"b"} and list(meta["benchmarks"]) == ["b"]


@pytest.mark.parametrize(
    ("suite", "needle"),
    [
        ('include = ["^(?!slow)"]', "[suite].include: '^(?!slow)': the pattern uses a negative lookahead"),
        ('exclude = ["(a)\\\\1"]', "[suite].exclude: '(a)\\\\1': the pattern uses a backreference"),
    ],
)
def test_a_pattern_without_a_linear_match_is_refused_with_a_fix(tmp_path, capsys, suite, needle):
    code, err = _run_config(tmp_path, capsys, config(suite))
    assert code == 2, err
    assert needle in err and "fix: write it without; for 'everything except' list the exceptions" in err


def test_a_meta_json_nested_too_deeply_in_out_is_a_clear_error(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "meta.json").write_text("[" * 100_000 + "]" * 100_000)
    code, err = _run_config(tmp_path, capsys, config(s=1, i=1))
    assert code == 2
    assert (
        "meta.json is unreadable: arrays or objects are nested too deeply" in err
        and "fix: pass a new --out" in err
    )


def test_bidi_controls_in_names_are_shown_visibly_by_run_and_kept_in_the_log(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # annotations and progress go through the same filter
    name = "fast\u202eesolc"
    code, err = _run_config(tmp_path, capsys, config(names=(name,), s=1, i=1))  # trial 1 is printed
    assert code == 0, err
    assert "fast<U+202E>esolc" in err and "\u202e" not in err  # progress lines name each trial
    df, meta = load(tmp_path / "out")
    assert name in set(df.benchmark) and name in meta["benchmarks"]


def test_formula_like_names_are_kept_as_written_in_the_trial_log(tmp_path, capsys):
    # trials.csv is data (pandas, analyze, calibrate match names across versions and runs); the
    # gate writes no CSV meant for a spreadsheet, so it neutralises nothing here (docs/contracts.md "trials.csv")
    names = ("=1+2", "=cmd|' /C calc'!A0", "+1", "-1", "@SUM(A1)", "\tx")
    code, err = _run_config(tmp_path, capsys, config(names=names, s=1, i=1))
    assert code == 0, err
    df, _meta = load(tmp_path / "out")
    assert set(df.benchmark) == set(names)
