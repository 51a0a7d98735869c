"""Shared test helpers and the ``--update-golden`` option (tests/README.md).

``require_tool`` skips a test when an external tool is missing on a developer machine, but
*fails* it under CI (CI=true), where ``.ci/run`` installs every tool: a skip must never hide a
missing install step.

Golden files (tests/golden/) are compared byte for byte by :func:`check_golden`; ``pytest
--update-golden`` (``make golden``) rewrites them from the current rendering instead, for a
reviewed change.

``make test`` runs the tests on pytest-xdist workers with ``--dist loadgroup``: each test is a
work unit of its own, so a long file spreads over the workers instead of holding one of them to
the end, except the tests of a module that has a module-scoped fixture of its own (a Maven, cargo
or Go build, the podman image, a demo run): :func:`pytest_collection_modifyitems` puts those in
one ``xdist_group``, so the expensive set-up runs once, on one worker. The same hook starts the
longest tests first (:func:`schedule_rank`): a long test started last is what leaves the other
workers idle at the end.
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


def module_fixture_group(item: pytest.Item) -> str | None:
    """The test's module path when the test uses a module-scoped fixture defined in that module
    (its set-up must run once, not once per worker), else None."""
    module = item.nodeid.split("::", 1)[0]
    for defs in item._fixtureinfo.name2fixturedefs.values():  # type: ignore[attr-defined]
        if any(d.scope == "module" and d.baseid == module for d in defs):
            return module
    return None


def schedule_rank(item: pytest.Item) -> int:
    """Longest first, as far as the folder tells: tests marked slow, then the integration tests
    (real subprocesses and toolchains), the validation tests, the unit tests last (many short ones
    that fill the workers' gaps at the end)."""
    if item.get_closest_marker("slow"):
        return 0
    folder = item.nodeid.split("/", 2)[1] if item.nodeid.startswith("tests/") else ""
    return {"integration": 1, "validation": 2}.get(folder, 3)


@pytest.hookimpl(tryfirst=True)  # before xdist's hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.pluginmanager.hasplugin("xdist"):  # the mark is xdist's (unknown under -p no:xdist)
        for item in items:
            group = module_fixture_group(item)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=schedule_rank)  # stable: each file's tests keep their order


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
