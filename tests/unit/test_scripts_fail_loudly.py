"""Developer scripts stop with status 2 and a fix on bad input, never "0 problem(s)" / exit 0."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False
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
        (["scripts/eval_verdicts.py", "--data", "/nonexistent"], "njapke/uoptime-replication-package"),
        (["scripts/bench_calibrate.py", "--data", "/nonexistent"], "njapke/uoptime-replication-package"),
        (["scripts/report_icpe_similarity.py", "/nonexistent"], "SEALABQualityGroup/icpe-data-challenge-jmh"),
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
    proc = script("scripts/eval_verdicts.py", "--data", str(tmp_path))
    assert proc.returncode == 2 and "prometheus-common/measurements.csv is missing" in proc.stderr
