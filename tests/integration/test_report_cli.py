"""`ordertrap-gate report` as a user runs it: real files; one run as a real process, the rest
through ``gate.cli.main`` in-process (the same argument parsing and error handling, without
paying the CLI's import time per case on a shared runner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gate.cli import main
from gate.render import COMMENT_MARKER
from tests.fakes import analyses

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gate", "report", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def analysis_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "analysis.json"
    path.write_text(json.dumps(analyses.mixed()), encoding="utf-8")
    return path


def test_comment_to_stdout(analysis_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "report",
        str(analysis_file),
        "--format",
        "comment",
        "--run-url",
        "https://github.com/o/r/actions/runs/9",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith(COMMENT_MARKER)
    assert "`parse`" in out and "[workflow run](https://github.com/o/r/actions/runs/9)" in out


@pytest.mark.parametrize(
    ("github_actions", "says", "never"),
    [
        (None, "run `ordertrap-gate run` again with a new `--out`", "re-run the workflow"),
        ("true", "re-run the workflow", "`ordertrap-gate run` again"),
    ],
)
def test_comment_wording_follows_where_it_runs(
    analysis_file: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    github_actions: str | None,
    says: str,
    never: str,
) -> None:
    if github_actions is None:
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    else:
        monkeypatch.setenv("GITHUB_ACTIONS", github_actions)
    assert main(["report", str(analysis_file), "--format", "comment"]) == 0
    out = capsys.readouterr().out
    assert says in out and never not in out


def test_html_to_a_new_directory(analysis_file: Path, tmp_path: Path) -> None:
    cal = tmp_path / "calibration.json"
    cal.write_text(json.dumps(analyses.calibration_document()), encoding="utf-8")
    out = tmp_path / "demo-output" / "report.html"
    proc = _run(str(analysis_file), "--format", "html", "--out", str(out), "--calibration", str(cal))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {out}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Calibration: instability vs cost" in page


def test_summary_to_file(analysis_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = tmp_path / "summary.md"
    assert main(["report", str(analysis_file), "--format", "summary", "--out", str(summary)]) == 0
    assert "### All benchmarks" in summary.read_text(encoding="utf-8")
    assert capsys.readouterr().out == f"wrote {summary}\n"


def test_comment_to_file_says_where_it_went(
    analysis_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    comment = tmp_path / "comment.md"
    assert main(["report", str(analysis_file), "--out", str(comment)]) == 0
    assert comment.read_text(encoding="utf-8").startswith(COMMENT_MARKER)
    assert capsys.readouterr().out == f"wrote {comment}\n"


def test_template_dir(analysis_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}{% block footer %}team footer{% endblock %}', encoding="utf-8"
    )
    assert main(["report", str(analysis_file), "--template-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("team footer")


@pytest.mark.parametrize(
    ("content", "args", "message", "fix"),
    [
        (None, [], "does not exist", "ordertrap-gate analyze"),
        ("benchmark,value\nx,1\n", [], "not valid JSON", "ordertrap-gate analyze"),
        (
            json.dumps({**analyses.mixed(), "schema_version": 7}),
            [],
            "schema_version 7",
            "upgrade ordertrap-gate",
        ),
        (json.dumps(analyses.mixed()), ["--format", "html"], "writes a file", "--out"),
        (
            json.dumps(analyses.mixed()),
            ["--template-dir", "/nonexistent"],
            "not a directory",
            "drop --template-dir",
        ),
    ],
    ids=["missing", "csv", "newer-schema", "html-stdout", "template-dir"],
)
def test_errors_name_the_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    args: list[str],
    message: str,
    fix: str,
) -> None:
    path = tmp_path / "analysis.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["report", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ordertrap-gate report: error:")
    assert message in err and "fix:" in err and fix in err
