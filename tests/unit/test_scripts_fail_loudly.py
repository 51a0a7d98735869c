"""Developer scripts stop with status 2 and a fix on bad input, never "0 problem(s)" / exit 0; the
evaluation scripts find the reference data through $ORDERTRAP_REFERENCE_DATA and run, as their
docstrings say, with the project's Python and no sys.path patching."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


def script(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_lint_actions_refuses_a_missing_file() -> None:
    proc = script("scripts/lint_actions.py", "/nonexistent.yml")
    assert proc.returncode == 2
    assert "no such file: /nonexistent.yml" in proc.stderr and "fix:" in proc.stderr
    assert "0 problem(s)" not in proc.stdout


def test_lint_actions_refuses_an_unknown_flag() -> None:
    proc = script("scripts/lint_actions.py", "--strict")
    assert proc.returncode == 2 and "unrecognized arguments: --strict" in proc.stderr


@pytest.mark.parametrize(
    ("args", "source"),
    [
        (["-m", "eval.eval_verdicts", "--data", "/nonexistent"], "njapke/uoptime-replication-package"),
        (
            ["-m", "benchmarks.bench_calibrate", "--data", "/nonexistent"],
            "njapke/uoptime-replication-package",
        ),
        (["-m", "eval.report_icpe_similarity", "/nonexistent"], "SEALABQualityGroup/icpe-data-challenge-jmh"),
        (
            ["-m", "eval.eval_calibration_thresholds", "--data", "/nonexistent"],
            "njapke/uoptime-replication-package",
        ),
    ],
)
def test_validation_scripts_without_their_data_fail_and_say_where_it_comes_from(
    args: list[str], source: str
) -> None:
    proc = script(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "reference data /nonexistent" in proc.stderr and source in proc.stderr
    assert "fix:" in proc.stderr and proc.stdout == ""


def test_eval_verdicts_with_a_partial_data_folder_stops_before_working(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "toml").mkdir()
    (tmp_path / "toml" / "measurements.csv").write_text("project,version\n")
    proc = script("-m", "eval.eval_verdicts", "--data", str(tmp_path))
    assert proc.returncode == 2 and "prometheus-common/measurements.csv is missing" in proc.stderr


@pytest.mark.parametrize(
    ("args", "folder"),
    [
        (["-m", "eval.eval_verdicts"], "uoptime_go"),
        (["-m", "benchmarks.bench_calibrate"], "uoptime_go"),
        (["-m", "eval.report_icpe_similarity"], "icpe_jmh"),
        (["-m", "eval.peers", "--part", "a"], "uoptime_go"),
        (["-m", "eval.eval_noisy_head", "--recorded", "--pairs", "2"], "uoptime_go"),
    ],
)
def test_reference_data_is_found_through_one_environment_variable(
    args: list[str], folder: str, tmp_path: Path
) -> None:
    """Without --data each script reads $ORDERTRAP_REFERENCE_DATA/<folder>; an empty one stops it
    with status 2 naming that folder and the variable."""
    env = {**os.environ, "ORDERTRAP_REFERENCE_DATA": str(tmp_path)}
    proc = script(*args, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(tmp_path / folder) in proc.stderr and "ORDERTRAP_REFERENCE_DATA" in proc.stderr
    assert "fix:" in proc.stderr and proc.stdout == ""


def test_tests_read_the_reference_data_from_the_same_setting(tmp_path: Path) -> None:
    code = "from tests.conftest import SHARED_DATA; print(SHARED_DATA)"
    env = {**os.environ, "ORDERTRAP_REFERENCE_DATA": str(tmp_path)}
    proc = script("-c", code, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(tmp_path)


def test_no_script_patches_sys_path() -> None:
    """The scripts run with the project venv, where gate is installed; none edits sys.path."""
    folders = ("scripts", "benchmarks", "eval")
    offenders = [
        str(p.relative_to(REPO_ROOT))
        for folder in folders
        for p in sorted((REPO_ROOT / folder).glob("*.py"))
        if "sys.path.insert" in p.read_text(encoding="utf-8")
        or "sys.path.append" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []
