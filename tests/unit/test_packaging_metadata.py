"""Packaging metadata in the form current setuptools reads without a deprecation banner."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO_ROOT


def test_the_licence_is_an_spdx_expression_with_a_setuptools_that_reads_it() -> None:
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # a TOML table ({text = ...}) is deprecated: setuptools prints a banner at every build step
    assert data["project"]["license"] == "MIT"
    # PEP 639 expressions need setuptools >= 77; the image installs with --no-build-isolation,
    # so its setuptools floor must be the same
    (floor,) = re.findall(r"setuptools>=(\d+)", " ".join(data["build-system"]["requires"]))
    assert int(floor) >= 77
    dockerfile = (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.findall(r"setuptools>=(\d+)", dockerfile) == [floor]
    assert not any(c.startswith("License ::") for c in data["project"].get("classifiers", []))
