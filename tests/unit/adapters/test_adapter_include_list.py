"""An adapter table's ``include`` takes one regex or a list of them, like ``[suite] include``."""

from __future__ import annotations

import pytest

from gate.adapters._common import filter_discovered
from gate.errors import ConfigError

NAMES = ["BenchmarkSum64", "BenchmarkSum64String", "BenchmarkDigestBytes", "BenchmarkDigestString"]


def test_a_list_keeps_the_names_any_of_its_regexes_matches():
    kept = filter_discovered(NAMES, {"include": ["^BenchmarkSum64$", "Digest.*String$"]}, "go")
    assert kept == ["BenchmarkSum64", "BenchmarkDigestString"]


def test_a_single_regex_still_works():
    assert filter_discovered(NAMES, {"include": "String$"}, "go") == [
        "BenchmarkSum64String",
        "BenchmarkDigestString",
    ]


@pytest.mark.parametrize("bad", [[1], ["ok", ""], {"a": "b"}, 3])
def test_other_values_are_refused_naming_both_forms(bad):
    with pytest.raises(ConfigError) as exc:
        filter_discovered(NAMES, {"include": bad}, "pytest-benchmark")
    assert "[pytest-benchmark] include must be a regex or a list of regexes" in exc.value.message
    assert 'include = ["^Parse", "^Format"]' in exc.value.fix


def test_each_regex_of_a_list_is_checked():
    with pytest.raises(ConfigError) as exc:
        filter_discovered(NAMES, {"include": ["^Sum", "(?<!x)b"]}, "gbench")
    assert "[gbench] include '(?<!x)b'" in exc.value.message and "lookbehind" in exc.value.message
