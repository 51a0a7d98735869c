"""Shared test helpers.

``require_tool`` skips a test when an external tool is missing on a developer machine, but
*fails* it under CI (CI=true), where ``.ci/run`` installs every tool: a skip must never hide a
missing install step.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path:
        return path
    message = f"{name} is not installed; run `make system-deps` (bash scripts/install-system-deps.sh)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def require_shared_data(*parts: str) -> Path:
    """Third-party reference data is read from ../shared/data (never copied): skip when absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data {path} is absent (it lives in ../shared/data beside the repo)")
    return path
