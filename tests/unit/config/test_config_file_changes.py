"""What head changes in the configuration and the calibration (gate/config/config_files.py): each change
that alters what the gate measures or how it judges is named; paths inside the repository are
never taken for the operator's own files."""

from __future__ import annotations

import json
from pathlib import Path

from gate.config.config_changes import calibration_changes, config_changes
from gate.config.config_files import repo_relative
from gate.config.project_config import parse_config

BASE = """\
[suite]
adapter = "command"
timeout = 60
[[benchmark]]
name = "hot"
command = "python3 hot.py"
unit = "ms"
[[benchmark]]
name = "cold"
command = "python3 cold.py"
[full]
suite_runs = 3
iterations = 5
"""


def changes(head: str, base: str = BASE, discovered=None) -> list[str]:
    return config_changes(
        parse_config(base.encode(), Path("base")), parse_config(head.encode(), Path("head")), discovered
    )


def test_identical_files_change_nothing():
    assert changes(BASE + "# a comment\n") == []


def test_direction_unit_command_and_levels_are_named():
    head = (
        BASE.replace('unit = "ms"', 'unit = "ms"\nhigher_is_better = true')
        .replace("cold.py", "cold.py --fast")
        .replace("iterations = 5", "iterations = 1")
    )
    got = changes(head)
    assert "edits [[benchmark]] hot (higher_is_better false → true), cold (command changed)" in got
    assert "[full] 3×5×1 → 3×1×1 (suite_runs×iterations×measurements)" in got


def test_suite_keys_that_widen_what_benchmarks_see_are_named():
    head = BASE.replace("timeout = 60", 'timeout = 1\npass_env = ["DEPLOY_KEY"]\nbuild = "make"')
    got = changes(head)
    assert "[suite].timeout 60 → 1" in got
    assert '[suite].pass_env unset → ["DEPLOY_KEY"]' in got
    assert "[suite].build changed" in got


def test_include_for_a_discovering_adapter_uses_the_discovered_names():
    base = '[suite]\nadapter = "go"\n[go]\npackage = "./..."\n'
    head = base.replace('adapter = "go"', 'adapter = "go"\ninclude = ["^BenchmarkCold"]')
    got = changes(head, base, discovered=["BenchmarkHot", "BenchmarkCold"])
    assert got[0] == "excludes 1 benchmark(s) that base's file runs: BenchmarkHot"
    # a different adapter table may discover other names: not guessed
    head = base.replace('package = "./..."', 'package = "./fast"')
    got = changes(head, base, discovered=["BenchmarkHot"])
    assert got[0].startswith("changes the adapter's settings") and "[go] changes package" in got


def test_many_names_are_cut_with_a_count():
    base = '[suite]\nadapter = "command"\n' + "".join(
        f'[[benchmark]]\nname = "b{i}"\ncommand = "true"\n' for i in range(8)
    )
    got = changes(
        base.replace('[suite]\nadapter = "command"', '[suite]\nadapter = "command"\nexclude = ["b"]'), base
    )
    assert got[0] == "excludes 8 benchmark(s) that base's file runs: b0, b1, b2, b3, b4 and 3 more"


def calibration(**change) -> dict:
    doc = {
        "schema_version": 1,
        "metric": "cv",
        "threshold": 0.01,
        "levels": ["suite_run", "iteration", "measurement"],
        "discard_warmup": {"level": "measurement", "count": 0},
        "full": {"suite_run": 3, "iteration": 5, "measurement": 1},
        "benchmarks": {"hot": {"config": {"suite_run": 2, "iteration": 3, "measurement": 1}}},
        "created_at": "2026-01-01T00:00:00Z",
    }
    return {**doc, **change}


def test_calibration_changes_that_decide_what_runs_are_named():
    head = calibration(
        threshold=0.5,
        discard_warmup={"level": "iteration", "count": -3},
        benchmarks={"cold": {"config": {"suite_run": 1, "iteration": 1, "measurement": 1}}},
        created_at="2026-02-02T00:00:00Z",
    )
    got = calibration_changes(calibration(), head)
    assert got == [
        "calibrates 1 more benchmark(s): cold",
        "no longer calibrates 1 benchmark(s): hot",
        "discard_warmup 0 × measurement → -3 × iteration",
        "threshold 0.01 → 0.5",
    ]


def test_calibration_provenance_alone_is_no_change_and_odd_values_do_not_crash():
    assert calibration_changes(calibration(), calibration(created_at="later", summary={"x": 1})) == []
    odd = calibration(full="big", discard_warmup=[1] * 100, benchmarks={"hot": None})
    got = calibration_changes(calibration(), odd)
    assert any(c.startswith("calibrated levels of 1 benchmark(s): hot 2×3×1 → unset") for c in got)
    assert 'full 3×5×1 → "big"' in got
    assert all(len(c) < 200 for c in got), json.dumps(got)


def test_paths_inside_the_repository_are_relative_to_its_root(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "conf").mkdir(parents=True)
    outside = tmp_path / "operator.toml"
    outside.write_text("")
    assert repo_relative(str(repo / ".ordertrap.toml"), repo) == ".ordertrap.toml"
    assert repo_relative(str(outside), repo) is None
    monkeypatch.chdir(repo / "conf")
    assert repo_relative("../.ordertrap/calibration.json", repo) == ".ordertrap/calibration.json"
    # a symbolic link in the checkout pointing out of the repository is still the repository's path
    (repo / ".ordertrap.toml").symlink_to(outside)
    (repo / "linked").symlink_to(tmp_path)
    assert repo_relative(str(repo / ".ordertrap.toml"), repo) == ".ordertrap.toml"
    assert repo_relative(str(repo / "linked" / "x.toml"), repo) == "linked/x.toml"
    # reached through a symbolic link to the repository: still inside
    (tmp_path / "alias").symlink_to(repo)
    assert repo_relative(str(tmp_path / "alias" / ".ordertrap.toml"), repo) == ".ordertrap.toml"


def test_a_changed_calibrated_statistic_is_named():
    config = {"suite_run": 2, "iteration": 3, "measurement": 1}
    base = calibration(benchmarks={"hot": {"config": config, "statistic": "p10"}})
    head = calibration(benchmarks={"hot": {"config": config, "statistic": "median"}})
    assert calibration_changes(base, head) == ["calibrated statistic of 1 benchmark(s): hot p10 → median"]
    assert calibration_changes(calibration(), head) == [
        "calibrated statistic of 1 benchmark(s): hot none (p10) → median"
    ]


def test_naming_the_default_statistic_is_no_change():
    """A schema-1 file (no calibrated statistic: the default decides) against a schema-2 one that
    chose the default, p10: the PRs are decided by p10 before and after, nothing to report."""
    config = {"suite_run": 2, "iteration": 3, "measurement": 1}
    old = calibration()  # schema 1
    new = calibration(schema_version=2, benchmarks={"hot": {"config": config, "statistic": "p10"}})
    assert calibration_changes(old, new) == []
    assert calibration_changes(new, old) == []
    # nor a schema-2 benchmark without a choice (a night with too few trials) against p10
    unchosen = calibration(schema_version=2, benchmarks={"hot": {"config": config, "statistic": None}})
    assert calibration_changes(unchosen, new) == []
