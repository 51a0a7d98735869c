"""The bench step of run/action.yml, run for real with bash: whether a calibration is passed is
decided by the base and head commits, not by the pull request's checkout, and the real gate then
measures with base's files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.test_run_config_from_base import CAL, calibration, make_repo, toml


def bench_step() -> str:
    import yaml

    meta = yaml.safe_load((REPO_ROOT / "run" / "action.yml").read_text())
    (step,) = [s for s in meta["runs"]["steps"] if s.get("id") == "bench"]
    return step["run"]


def fake_gate(tmp_path: Path) -> Path:
    """A stand-in `ordertrap-gate` that records its arguments; the real Python for the token check."""
    bin_dir = tmp_path / "gatebin"
    bin_dir.mkdir()
    (bin_dir / "ordertrap-gate").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/gate-args.txt\n')
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


def run_step(
    repo: Path,
    gate_bin: Path,
    calibration_input: str = "",
    event: str = "pull_request",
    config_rev: str = "",
    base: str = "HEAD~1",
) -> subprocess.CompletedProcess[str]:
    """``config_rev``: the revisions step's output (a pull request's base branch tip)."""
    base, head = (
        subprocess.run(
            ["git", "-C", str(repo), "rev-parse", rev], capture_output=True, text=True, check=True
        ).stdout.strip()
        for rev in (base, "HEAD")
    )
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(repo), "GITHUB_OUTPUT": str(repo.parent / "o"),
        "GATE_BIN": str(gate_bin), "CONFIG": ".ordertrap.toml", "BASE": base, "HEAD": head,
        "OUT": str(repo.parent / "out"), "SEED": "1", "CALIBRATION": calibration_input,
        "ORDER_CHECK": "false", "INSTANCE": "r1", "GITHUB_EVENT_NAME": event, "CONFIG_REV": config_rev,
    }  # fmt: skip
    # GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", bench_step()],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def passed(tmp_path: Path, flag: str) -> str | None:
    args = (tmp_path / "gate-args.txt").read_text().splitlines()
    return args[args.index(flag) + 1] if flag in args else None


@pytest.mark.parametrize(
    ("base", "head", "stray", "expected"),
    [
        # head deletes base's calibration: the checkout has none, base's still applies
        ({CAL: calibration()}, {CAL: None}, False, CAL),
        # only head adds one: passed, so that run reports it (and runs the full configuration)
        ({}, {CAL: calibration()}, False, CAL),
        # an uncommitted file in the checkout is no calibration of either revision
        ({}, {}, True, None),
    ],
    ids=["head-deletes", "head-adds", "uncommitted"],
)
def test_the_calibration_flag_follows_the_commits_not_the_checkout(tmp_path, base, head, stray, expected):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml(), **base}, head)
    if stray:
        (repo / CAL).parent.mkdir(exist_ok=True)
        (repo / CAL).write_text(calibration(hot=(1, 1, 1)))
    result = run_step(repo, fake_gate(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed(tmp_path, "--calibration") == expected
    assert passed(tmp_path, "--config-from") == "base"
    if expected:
        assert "(from the base revision)" in result.stdout


@pytest.mark.parametrize("event", ["schedule", "push", "workflow_dispatch"])
def test_merged_or_pushed_code_is_measured_with_its_own_files(tmp_path, event):
    """The nightly run (base = the previous commit) must not lag behind a configuration change;
    and a calibration that head deleted is not passed then."""
    repo = make_repo(tmp_path, {".ordertrap.toml": toml(), CAL: calibration()}, {CAL: None})
    result = run_step(repo, fake_gate(tmp_path), event=event)
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed(tmp_path, "--config-from") == "head"
    assert passed(tmp_path, "--calibration") is None


def test_calibration_none_still_runs_the_full_configuration(tmp_path):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml(), CAL: calibration()}, {})
    result = run_step(repo, fake_gate(tmp_path), calibration_input="none")
    assert result.returncode == 0, result.stdout + result.stderr
    assert passed(tmp_path, "--calibration") is None


def test_the_action_measures_a_pull_request_with_base_files(tmp_path):
    """The real gate through the step: head excludes `hot` and calibrates it to one value."""
    repo = make_repo(
        tmp_path,
        {".ordertrap.toml": toml(), CAL: calibration()},
        {".ordertrap.toml": toml('exclude = ["^hot$"]'), CAL: calibration(hot=(1, 1, 1))},
    )
    result = run_step(repo, Path(sys.executable).parent)
    assert result.returncode == 0, result.stdout + result.stderr
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["sources"]["config"]["from"] == "base" and meta["sources"]["calibration"]["from"] == "base"
    assert meta["benchmark_configs"]["hot"]["iteration"] == 5
    codes = {w["code"] for w in meta["warnings"]}
    assert {"head_config_change", "head_calibration_change"} <= codes
