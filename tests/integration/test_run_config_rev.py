"""A pull request is judged by its base branch's current settings (`run --config-rev`), not by
those of the older commit it branched from, while that commit (the merge-base) is what is measured.
Real git repositories with a branch, the real `run` and `analyze` CLI, real benchmark processes."""

from __future__ import annotations

from pathlib import Path

from gate.cli import main
from tests.conftest import require_tool
from tests.integration.test_run_action import act, pr_event
from tests.integration.test_run_config_from_base import (
    CAL,
    VALUE,
    analyze,
    calibration,
    git,
    load,
    toml,
    verdicts,
    warnings_with,
)

OLD = toml('exclude = ["^hot$"]')  # the branch point did not gate `hot` yet


def branched_repo(
    tmp_path: Path, pr_files: dict[str, str] | None = None, tip_files: dict[str, str] | None = None
):
    """``old`` (config excluding hot) ← ``main`` (the base branch includes hot since), and a pull
    request ``pr`` branched from ``old`` that slows hot from 100 to 150; checkout left at ``pr``."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name, text in {
        "value.py": VALUE,
        "hot.txt": "100\n",
        "cold.txt": "100\n",
        ".ordertrap.toml": OLD,
    }.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "old")
    git(repo, "tag", "old")
    for name, text in {".ordertrap.toml": toml(), **(tip_files or {})}.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main: gate hot too")
    git(repo, "checkout", "-q", "-b", "pr", "old")
    (repo / "hot.txt").write_text("150\n")
    for name, text in (pr_files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr: +50 % in hot")
    return repo


def rev_parse(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", rev)


def run(repo: Path, out: Path, *extra: str) -> int:
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "old", "--head", "pr"]
    return main([*argv, "--out", str(out), "--seed", "7", "--instance", "box", *extra])


def test_an_old_branch_point_is_judged_by_the_base_branch_tip(tmp_path, capsys):
    repo = branched_repo(tmp_path)
    out = tmp_path / "out"
    assert run(repo, out, "--config-rev", "main") == 0
    df, meta = load(out)
    # the merge-base is measured, with the tip's settings: hot is gated and its regression called
    assert set(df.version) == {"old", "pr"}
    assert set(df[df.version == "old"].benchmark) == {"hot", "cold"}
    assert verdicts(analyze(out))["hot"] == "regression"
    source = meta["sources"]["config"]
    assert (source["from"], source["revision"], source["sha"]) == ("base", "main", rev_parse(repo, "main"))
    assert meta["versions"]["old"]["sha"] == rev_parse(repo, "old")
    # the pull request did not touch the file: no "head changes", but the moved base branch is said
    assert source["changed_in_head"] == [] and not warnings_with(meta, "head_config_change")
    (w,) = warnings_with(meta, "base_config_moved")
    assert "since this pull request branched" in w["message"] and "hot" in w["message"]
    assert source["changed_since_branch"] == [c for c in source["changed_since_branch"] if "hot" in c] != []
    err = capsys.readouterr().err
    assert "settings from main" in err and "the measured base is old" in err


def test_only_what_the_pull_request_changes_counts_as_head_changing_it(tmp_path):
    """The PR lowers the timeout itself; the tip's inclusion of hot is not the PR's change."""
    repo = branched_repo(tmp_path, pr_files={".ordertrap.toml": OLD.replace("timeout = 30", "timeout = 20")})
    out = tmp_path / "out"
    assert run(repo, out, "--config-rev", "main") == 0
    df, meta = load(out)
    assert set(df.benchmark) == {"hot", "cold"}
    changed = meta["sources"]["config"]["changed_in_head"]
    assert changed == ["[suite].timeout 30 → 20"]
    (w,) = warnings_with(meta, "head_config_change")
    assert "timeout 30 → 20" in w["message"] and "hot" not in w["message"]
    assert warnings_with(meta, "base_config_moved")


def test_config_rev_equal_to_base_changes_nothing(tmp_path):
    repo = branched_repo(tmp_path)
    out = tmp_path / "out"
    assert run(repo, out, "--config-rev", "old") == 0
    df, meta = load(out)
    assert set(df.benchmark) == {"cold"}
    assert meta["sources"]["config"]["changed_since_branch"] is None
    assert not warnings_with(meta, "base_config_moved")


def test_config_rev_with_head_files_is_refused_with_the_fix(tmp_path, capsys):
    repo = branched_repo(tmp_path)
    assert run(repo, tmp_path / "out", "--config-rev", "main", "--config-from", "head") == 2
    assert "drop --config-rev" in capsys.readouterr().err


def test_the_action_takes_settings_and_calibration_from_the_base_branch_tip(tmp_path, monkeypatch, capsys):
    """Only the tip commits a calibration: the action passes it, read from the tip, and measures
    the merge-base (gate/action/revisions.py)."""
    repo = branched_repo(tmp_path, tip_files={CAL: calibration()})
    event = pr_event(repo, rev_parse(repo, "main"), rev_parse(repo, "pr"))
    out = act(monkeypatch, capsys, repo, {**event, "INPUT_CALIBRATION": ""})
    assert out.status == 0, out.stdout
    assert out.request.config_rev == rev_parse(repo, "main")
    assert out.request.base == rev_parse(repo, "old")
    assert out.request.calibration == CAL
