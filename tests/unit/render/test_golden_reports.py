"""The reports compared byte for byte with the golden files (`make golden` or `pytest
--update-golden` rewrites them), rendered deterministically and without changing the analysis."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from gate.render import RenderContext, render
from tests.conftest import FORMATS, GOLDEN_CONTEXT, REPO_ROOT, check_golden, golden_path
from tests.fakes import analyses


@pytest.mark.parametrize("scenario", sorted(analyses.SCENARIOS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(scenario: str, fmt: str, update_golden: bool) -> None:
    rendered = render(analyses.SCENARIOS[scenario](), fmt, GOLDEN_CONTEXT)  # type: ignore[arg-type]
    check_golden(golden_path(scenario, fmt), rendered, update_golden)


def test_rendering_is_deterministic() -> None:
    a = analyses.order_effects()
    ctx = RenderContext(calibration=analyses.calibration(["alloc_big", "hash"]))
    for fmt in ("comment", "summary", "html"):
        assert render(copy.deepcopy(a), fmt, ctx) == render(copy.deepcopy(a), fmt, ctx)  # type: ignore[arg-type]


def test_render_does_not_modify_the_analysis() -> None:
    a = analyses.mixed()
    before = copy.deepcopy(a)
    for fmt in ("comment", "summary", "html"):
        render(a, fmt)  # type: ignore[arg-type]
    assert a == before


def test_update_golden_rewrites_a_stale_golden_file_and_the_check_then_passes(tmp_path: Path) -> None:
    path = tmp_path / "golden" / "x.comment.md"
    with pytest.raises(AssertionError, match="is missing: run `make golden`"):
        check_golden(path, "new\n", update=False)
    path.parent.mkdir()
    path.write_text("old\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"pytest --update-golden"):
        check_golden(path, "new\n", update=False)
    check_golden(path, "new\n", update=True)
    assert path.read_text(encoding="utf-8") == "new\n"
    check_golden(path, "new\n", update=False)


def test_pytest_accepts_the_update_golden_option() -> None:
    """`make golden` runs the golden tests with --update-golden (tests/conftest.py)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "--update-golden",
            "-k",
            "test_golden",
            __file__,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test_golden[" in proc.stdout
