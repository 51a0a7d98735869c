from __future__ import annotations

from pathlib import Path

import pytest

from gate.config.project_config import load_config, parse_config
from gate.errors import ConfigError

ISSUE_EXAMPLE = b"""
[suite]
adapter = "command"            # command | pytest-benchmark | go | gbench | hyperfine | jmh
build = "pip install -q -e ."  # optional: once per version, inside that version's worktree, untimed
reset = ""                     # optional: before every suite run (OrderSage's reset procedure)
timeout = 120                  # seconds per trial

[[benchmark]]                  # explicit list (command adapter); other adapters discover names
name = "parse"
command = "python bench.py parse"
value = "stdout"               # "stdout": the last number the command prints; "wall": elapsed seconds
unit = "s"
higher_is_better = false

[full]                         # the full configuration
suite_runs = 3
iterations = 5
measurements = 1               # values collected per trial (e.g. go -count, pytest-benchmark rounds)
"""


def test_issue_example_parses_exactly():
    c = parse_config(ISSUE_EXAMPLE, Path(".ordertrap.toml"))
    assert c.suite.adapter == "command"
    assert c.suite.build == "pip install -q -e ."
    assert c.suite.reset == ""
    assert c.suite.timeout == 120.0
    assert (c.full.suite_runs, c.full.iterations, c.full.measurements) == (3, 5, 1)
    (b,) = c.benchmarks
    assert (b.name, b.command, b.unit, b.higher_is_better) == ("parse", "python bench.py parse", "s", False)
    assert b.options["value"] == "stdout"
    assert c.config_hash.startswith("sha256:") and len(c.config_hash) == 7 + 64


def test_hash_changes_with_bytes():
    a = parse_config(ISSUE_EXAMPLE, Path("x"))
    b = parse_config(ISSUE_EXAMPLE + b"\n# comment\n", Path("x"))
    assert a.config_hash != b.config_hash


def test_adapter_table_filters_prefix_and_overrides():
    c = parse_config(
        b"""
[suite]
adapter = "go"
prefix = "nice -n 0 '{worktree}/bin/x y'"
python = "{worktree}/.venv/bin/python"
include = ["^Benchmark"]
exclude = ["Slow"]
timeout = 5
[go]
benchtime = "100ms"
[[benchmark]]
name = "BenchmarkRate"
unit = "MB/s"
higher_is_better = true
""",
        Path("c.toml"),
    )
    assert c.suite.prefix == ("nice", "-n", "0", "{worktree}/bin/x y")
    settings = c.adapter_options()
    assert settings["benchtime"] == "100ms" and "timeout" not in settings
    assert settings["benchmarks"][0]["name"] == "BenchmarkRate"
    assert c.selects("BenchmarkParse") and not c.selects("BenchmarkSlowParse") and not c.selects("TestX")
    from gate.adapters.base import BenchmarkSpec

    over = c.override(BenchmarkSpec("BenchmarkRate", unit="ns/op"))
    assert over.unit == "MB/s" and over.higher_is_better is True
    assert c.override(BenchmarkSpec("Other", unit="ns/op")).unit == "ns/op"


@pytest.mark.parametrize(
    ("toml", "needle", "fix"),
    [
        (b"[suite]\nadaptr='command'\n", "adaptr", "adapter"),
        (b"[suite]\nadapter='gotest'\n", "gotest", "go"),
        (b"[full]\niteratons=3\n[[benchmark]]\nname='a'\ncommand='true'\n", "iteratons", "iterations"),
        (b"[full]\nsuite_runs=0\n[[benchmark]]\nname='a'\ncommand='true'\n", "suite_runs", "1 or more"),
        (b"[suite]\ntimeout=-1\n[[benchmark]]\nname='a'\ncommand='true'\n", "timeout", "120"),
        (b"[[benchmark]]\nname='a'\n", "no command", "command ="),
        (b"[[benchmark]]\nname='a'\ncommand='x'\nvalue='stderr'\n", "stderr", "wall"),
        (
            b"[[benchmark]]\nname='a'\ncommand='x'\n[[benchmark]]\nname='a'\ncommand='y'\n",
            "repeated",
            "unique",
        ),
        (b"[suite]\ninclude=['(']\n", "regular expression", "pattern"),
        (b"[suite\n", "not valid TOML", "syntax"),
        (b"[suite]\ngive_up_after=-1\n[[benchmark]]\nname='a'\ncommand='x'\n", "give_up_after", "0 to never"),
        (b"[suite]\ngive_up_after=1.5\n[[benchmark]]\nname='a'\ncommand='x'\n", "whole number", "= 2"),
        (b"[suite]\nadapter='command'\n", "no benchmarks", "[[benchmark]]"),
    ],
)
def test_errors_name_the_fix(toml, needle, fix):
    with pytest.raises(ConfigError) as exc:
        parse_config(toml, Path("c.toml"))
    assert needle in exc.value.message
    assert fix in exc.value.fix


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path / "nope.toml")
    assert "--config" in exc.value.fix


def test_override_keeps_adapter_unit_when_entry_only_names_the_benchmark():
    # A [[benchmark]] entry that only names a Go sub-benchmark must not reset ns/op to the default "s".
    c = parse_config(
        b"""
[suite]
adapter = "go"
[[benchmark]]
name = "BenchmarkParse/small"
""",
        Path("c.toml"),
    )
    from gate.adapters.base import BenchmarkSpec

    over = c.override(BenchmarkSpec("BenchmarkParse/small", unit="ns/op", higher_is_better=False))
    assert over.unit == "ns/op" and over.higher_is_better is False


def test_pass_env_is_a_list_of_variable_names(tmp_path: Path) -> None:
    base = '[[benchmark]]\nname = "a"\ncommand = "true"\n'
    ok = parse_config(f'[suite]\npass_env = ["DATABASE_URL"]\n{base}'.encode(), tmp_path / "c.toml")
    assert ok.suite.pass_env == ("DATABASE_URL",)
    for bad in ('"DATABASE_URL"', '["A B"]', "[1]"):
        with pytest.raises(ConfigError, match="pass_env"):
            parse_config(f"[suite]\npass_env = {bad}\n{base}".encode(), tmp_path / "c.toml")


@pytest.mark.parametrize("value", ["5000", "1000", "0", "-3", "nan", "inf"])
def test_threshold_pct_has_one_domain_in_the_config_analyze_and_meta_json(value: str) -> None:
    """run used to accept a [[benchmark]] threshold_pct of 5,000 that analyze --threshold-pct refuses."""
    from gate.files import run_meta
    from gate.files.settings import THRESHOLD_PCT

    text = f'[[benchmark]]\nname = "a"\ncommand = "true"\nthreshold_pct = {value}\n'
    with pytest.raises(ConfigError, match="above 0 and below 1000"):
        parse_config(text.encode(), Path("x.toml"))
    assert THRESHOLD_PCT.problem_of(float(value)) is not None
    _, problems = run_meta.from_json({"schema_version": 2, "thresholds": {"a": float(value)}}, "meta.json")
    assert problems and "thresholds" in problems[0]
    parse_config(text.replace(value, "999.5").encode(), Path("x.toml"))  # just inside
