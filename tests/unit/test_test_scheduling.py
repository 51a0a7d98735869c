"""How ``make test`` spreads the suite over the xdist workers (tests/conftest.py): the tests of a
file with a module-scoped fixture form one work unit (its expensive set-up runs once), every other
test is a work unit of its own; the longest tests are handed out first."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import REPO_ROOT, has_module_fixture, schedule_rank, work_unit

MODULE = "tests/unit/test_test_scheduling.py"


@pytest.fixture(scope="module")
def built_once() -> str:
    return "a build every test of this module shares"


def test_the_tests_of_a_file_with_a_module_fixture_are_one_unit(built_once):
    assert has_module_fixture(REPO_ROOT / MODULE)
    assert work_unit(f"{MODULE}::test_a") == work_unit(f"{MODULE}::test_b[x]") == MODULE
    jmh = "tests/integration/test_adapter_jmh_real.py"  # the Maven build runs once
    assert work_unit(f"{jmh}::test_run_and_analyze") == jmh


def test_any_other_test_is_a_unit_of_its_own():
    other = "tests/unit/test_cli.py"
    assert not has_module_fixture(REPO_ROOT / other)
    assert work_unit(f"{other}::test_a") == f"{other}::test_a"


def test_make_test_uses_this_scheduling():
    assert "--dist loadgroup" in (REPO_ROOT / "Makefile").read_text()


def test_slow_tests_go_first_then_integration_validation_unit(request):
    assert schedule_rank(request.node) == 3  # a unit test
    slow = [item for item in request.session.items if item.get_closest_marker("slow")]
    assert all(schedule_rank(item) == 0 for item in slow)
    ranks = {}
    for item in request.session.items:
        if item.get_closest_marker("slow") is None:
            ranks.setdefault(item.nodeid.split("/")[1], set()).add(schedule_rank(item))
    assert ranks.get("unit") == {3}
    assert ranks.get("integration", {1}) == {1}  # absent when only this file runs


def test_the_collection_is_in_rank_order(request):
    ranks = [schedule_rank(item) for item in request.session.items]
    assert ranks == sorted(ranks)


def _pytest_line(target: str) -> str:
    """The pytest command `make TARGET` runs (``make -n``: printed, not run)."""
    shown = subprocess.run(
        ["make", "-n", "-s", "-C", str(REPO_ROOT), target], capture_output=True, text=True, check=True
    ).stdout
    (line,) = [line for line in shown.splitlines() if " -m pytest " in line]
    return line


def test_make_test_and_make_test_slow_split_the_suite_and_ci_runs_both():
    # `make test` leaves out the tests marked slow so that a developer waits minutes, not a
    # quarter of an hour; no test may be left out of CI for it (docs/development.md)
    assert _pytest_line("test").endswith('-m "not slow"')
    assert _pytest_line("test-slow").endswith("-m slow")
    ci = [line.strip() for line in (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert "make test" in ci and "make test-slow" in ci
