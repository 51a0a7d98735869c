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
or Go build, the podman image, a demo run): those form one work unit (:func:`work_unit`), so the
expensive set-up runs once, on one worker. :func:`pytest_collection_modifyitems` starts the
longest tests first (:func:`schedule_rank`): a long test started last is what leaves the other
workers idle at the end.
"""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

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


def has_module_fixture(test_file: Path) -> bool:
    """True when the file defines a module-scoped fixture: its set-up (a build, an install) must
    run once, so the file's tests stay on one worker."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        for decorator in getattr(node, "decorator_list", []):
            if isinstance(decorator, ast.Call) and any(
                k.arg == "scope" and isinstance(k.value, ast.Constant) and k.value.value == "module"
                for k in decorator.keywords
            ):
                return True
    return False


class OneTestPerUnit(LoadScopeScheduling):
    """xdist's load scheduling with each test a work unit of its own, except that the tests of a
    file with a module fixture form one unit. (``--dist loadgroup`` with ``xdist_group`` marks
    would say the same, but pytest-xdist 3.8 groups by rewriting ``item._nodeid``, which pytest 9
    no longer reads: the marks are silently ignored.)"""

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)


# Files whose tests share state outside tmp_path and so must not run at once on two workers.
ONE_WORKER_FILES = {
    "tests/unit/test_layers.py": "plants a module in gate/engine that every test of the file scans",
}
_GROUPED: dict[str, bool] = dict.fromkeys(ONE_WORKER_FILES, True)


def work_unit(nodeid: str) -> str:
    """The test's module path when the module has a module fixture, else the test itself."""
    module = nodeid.split("::", 1)[0]
    if module not in _GROUPED:
        path = REPO_ROOT / module
        _GROUPED[module] = path.suffix == ".py" and path.is_file() and has_module_fixture(path)
    return module if _GROUPED[module] else nodeid


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    return OneTestPerUnit(config, log)  # type: ignore[arg-type]


def schedule_rank(item: pytest.Item) -> int:
    """Longest first, as far as the folder tells: tests marked slow, then the integration tests
    (real subprocesses and toolchains), the validation tests, the unit tests last (many short ones
    that fill the workers' gaps at the end)."""
    if item.get_closest_marker("slow"):
        return 0
    folder = item.nodeid.split("/", 2)[1] if item.nodeid.startswith("tests/") else ""
    return {"integration": 1, "validation": 2}.get(folder, 3)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=schedule_rank)  # stable: each file's tests keep their order; xdist hands them out so


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
