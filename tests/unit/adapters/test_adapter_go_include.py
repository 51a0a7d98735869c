"""``[go] include`` split into levels as ``go test -bench`` splits its regex (Go's
``testing.splitRegexp``) and matched level by level (gate/adapters/gotest_include.py). The real
toolchain runs in tests/integration/test_go_patterns.py."""

from __future__ import annotations

import pytest

from gate.adapters.gotest_include import go_include, include_matches, split_levels
from gate.errors import ConfigError


@pytest.mark.parametrize(
    ("regex", "levels"),
    [
        ("BenchmarkSum64/4B", [["BenchmarkSum64", "4B"]]),
        ("^BenchmarkSum64$", [["^BenchmarkSum64$"]]),
        ("A/x|B/y", [["A", "x"], ["B", "y"]]),  # "|" at the top separates whole sequences
        ("(A|B)/x", [["(A|B)", "x"]]),  # parentheses protect "|" and "/"
        ("A/[/|]x", [["A", "[/|]x"]]),  # and so does a character class
        (r"A\/x", [[r"A\/x"]]),  # an escaped slash is a character of the level
        ("A/", [["A", ""]]),
    ],
)
def test_split_levels_as_go_does(regex: str, levels: list[list[str]]) -> None:
    assert split_levels(regex) == levels


@pytest.mark.parametrize(
    ("include", "name", "parent", "kept"),
    [
        ("BenchmarkSum64/4B", "BenchmarkSum64", True, True),  # listed to find its sub-benchmarks
        ("BenchmarkSum64/4B", "BenchmarkSum64String", True, True),  # a search, as -bench
        ("^BenchmarkSum64$/4B", "BenchmarkSum64String", True, False),
        ("BenchmarkSum64/4B", "BenchmarkSum64/4B", False, True),
        ("BenchmarkSum64/4B", "BenchmarkSum64/4KB", False, False),
        ("BenchmarkSum64/4B", "BenchmarkSum64", False, False),  # a leaf needs every level
        ("^BenchmarkSum64$", "BenchmarkSum64/4KB", False, True),  # levels below are free
        ("^BenchmarkSum64$/^4B$", "BenchmarkSum64/4B/x", False, True),
        ("Old|Sum/16", "BenchmarkOld", False, True),
    ],
)
def test_include_matches_level_by_level(include: str, name: str, parent: bool, kept: bool) -> None:
    compiled = go_include({"include": include})
    assert compiled is not None
    assert include_matches(compiled, name, parent=parent) is kept


def test_no_include_and_bad_levels() -> None:
    assert go_include({}) is None
    with pytest.raises(ConfigError, match="include must be a regex"):
        go_include({"include": 3})
    with pytest.raises(ConfigError):
        go_include({"include": "("})
