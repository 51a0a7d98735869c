"""`history bisect` on a real git repository: the candidates between a change point's commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.cli import main
from tests.integration.two_versions import git, make_repo


def test_candidates_and_first_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, [{"f": str(i)} for i in range(1, 7)])  # r1..r6
    sha = {f"r{i}": git(repo, "rev-parse", f"r{i}") for i in range(1, 7)}
    assert main(["history", "bisect", sha["r1"], sha["r6"], "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    listed = [line.strip() for line in out.splitlines() if line.startswith("  ") and len(line.strip()) == 40]
    assert listed == [sha[f"r{i}"] for i in range(2, 7)]
    assert f"ordertrap-gate run --base {sha['r1']} --head {sha['r4']} --out bisect/{sha['r4'][:12]}" in out


def test_a_range_that_is_not_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, [{"f": "1"}, {"f": "2"}])
    r1, r2 = git(repo, "rev-parse", "r1"), git(repo, "rev-parse", "r2")
    assert main(["history", "bisect", r2, r1, "--repo", str(repo)]) == 2
    assert "not an ancestor" in capsys.readouterr().err
    assert main(["history", "bisect", r1, "f" * 40, "--repo", str(repo)]) == 2
    assert "git fetch" in capsys.readouterr().err
