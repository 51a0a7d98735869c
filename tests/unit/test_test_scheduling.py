"""How ``make test`` spreads the suite over the xdist workers (tests/conftest.py): a test that uses
a module-scoped fixture of its own module is grouped with that module (its expensive set-up runs
once), every other test is a work unit of its own; the longest tests are handed out first."""

from __future__ import annotations

import pytest

from tests.conftest import module_fixture_group, schedule_rank

MODULE = "tests/unit/test_test_scheduling.py"


@pytest.fixture(scope="module")
def built_once() -> str:
    return "a build every test of this module shares"


def test_a_test_using_a_module_fixture_of_its_module_is_grouped_with_the_module(request, built_once):
    assert module_fixture_group(request.node) == MODULE


def test_a_test_without_one_is_a_unit_of_its_own(request, tmp_path):
    assert module_fixture_group(request.node) is None


def test_the_grouping_applies_under_xdist(request, built_once):
    marks = [m.args[0] for m in request.node.iter_markers("xdist_group")]
    if request.config.pluginmanager.hasplugin("xdist"):
        assert marks == [MODULE]
    else:
        assert marks == []


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
