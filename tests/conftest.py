"""Shared test helpers and the ``--update-golden`` option (tests/README.md).

``require_tool`` skips a test when an external tool is missing on a developer machine, but
*fails* it under CI (CI=true), where ``.ci/run`` installs every tool: a skip must never hide a
missing install step.

Golden files (tests/golden/) are compared byte for byte by :func:`check_golden`; ``pytest
--update-golden`` (``make golden``) rewrites them from the current rendering instead, for a
reviewed change.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from eval.reference_data import ENV as REFERENCE_ENV
from eval.reference_data import reference_data
from gate.render import RenderContext

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = reference_data()  # $ORDERTRAP_REFERENCE_DATA, else ../shared/data beside the repository

GOLDEN_DIR = REPO_ROOT / "tests" / "golden"
GOLDEN_CONTEXT = RenderContext(
    run_url="https://github.com/example/project/actions/runs/42",
    report_url="https://github.com/example/project/actions/runs/42/artifacts/7",
    summary_url="https://github.com/example/project/actions/runs/42#summary",
)
FORMATS = ("comment", "summary")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/golden from the current rendering (make golden); "
        "review the diff before committing",
    )


def golden_path(scenario: str, fmt: str) -> Path:
    return GOLDEN_DIR / f"{scenario}.{fmt}.md"


def check_golden(path: Path, text: str, update: bool) -> None:
    """Assert that ``path`` holds exactly ``text``; with ``update`` write ``text`` there instead."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run `make golden` (pytest --update-golden)"
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs from the rendering: if the change is intended run `make golden` "
        "(pytest --update-golden) and review the diff"
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True under ``pytest --update-golden``."""
    return bool(request.config.getoption("--update-golden"))


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path:
        return path
    message = f"{name} is not installed; run `make system-deps` (bash scripts/install-system-deps.sh)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def require_shared_data(*parts: str) -> Path:
    """Third-party reference data is read in place (never copied) from $ORDERTRAP_REFERENCE_DATA,
    else ../shared/data beside the repository: skip when absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"reference data {path} is absent: set {REFERENCE_ENV} to the folder holding it "
            "(default ../shared/data beside the repository)"
        )
    return path
