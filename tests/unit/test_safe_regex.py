"""gate.safe_regex answers exactly as re.search does, in a number of steps linear in the name."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate import safe_regex
from gate.safe_regex import NameFilter, UnsafePattern

# One pattern per construct the engine runs (flags inline, global and local, included).
PATTERNS = [
    "",
    "a",
    "abc",
    "^Benchmark",
    "Parse$",
    r"^Bench(Parse|Encode)/n=\d+$",
    r"\d+",
    r"\D\w\W\s\S",
    "[a-c_]+x",
    "[^ab]",
    "[^\\d\\s]+$",
    ".",
    "a.c",
    "(?s)a.c",
    "(?i)benchmark",
    "(?i:PARSE)r",
    "(?i)a(?-i:B)c",
    "(?a)\\w+$",
    "(?m)^b$",
    "\\Aab",
    "ab\\Z",
    "\\bfoo\\b",
    "\\Boo\\B",
    "a*",
    "a+?b",
    "a??b",
    "(ab)*c",
    "(?:ab|a)(?:bc|c)$",
    "(a|ab)(c|bcd)(d*)",
    "x{3}",
    "x{2,3}y",
    "x{2,}",
    "x{,2}y",
    "(?:)*x",
    "(^)*a",
    "(a*)*b",
    "(a+)+$",
    "(?:a|b|)+c",
    "ß",
    "(?i)ss",
    "(?i)é",
    "(?i)[k-m]+",
    "İ",
    "é+$",
    "[\u0400-\u04ff]+",
    r"\$\^\.",
]
NAMES = [
    "",
    "a",
    "abc",
    "Benchmark",
    "BenchmarkParse",
    "BenchParse/n=12",
    "BenchEncode/n=",
    "x",
    "xx",
    "xxxy",
    "xy",
    "a\nc",
    "a\nb\nc",
    "b\n",
    "ab\n",
    "foo bar",
    "a foo.b",
    "boot",
    "aaab",
    "aaa!",
    "abcd",
    "ABC",
    "PARSEr",
    "parser",
    "aBc",
    "abc",
    "ab c",
    "_x1 é",
    "ß",
    "SS",
    "É",
    "K",
    "\u212a",
    "İ",
    "i̇",
    "Привет",
    "$^.",
    "ccc",
    "abababc",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_construct_answers_as_re_search(pattern):
    compiled = re.compile(pattern)
    engine = NameFilter(pattern)
    for name in NAMES:
        assert engine.search(name) == (compiled.search(name) is not None), (pattern, name)


_ATOMS = st.sampled_from(["a", "b", ".", "[ab]", "[^a]", "\\d", "\\w", "\\b", "\\B", "^", "$", "\\Z", "1"])


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        quantifier = st.sampled_from(["*", "+", "?", "*?", "+?", "{2}", "{0,2}", "{1,}", "{2,3}?"])
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}|{t[1]}"),
            inner.map(lambda s: f"({s})"),
            inner.map(lambda s: f"(?i:{s})"),
            st.tuples(inner.map(lambda s: f"(?:{s})"), quantifier).map("".join),
        )

    return st.recursive(_ATOMS, extend, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(pattern=_patterns(), names=st.lists(st.text(alphabet="abAB1 _\n", max_size=8), min_size=1, max_size=6))
def test_random_patterns_answer_as_re_search(pattern, names):
    compiled = re.compile(pattern)
    engine = NameFilter(pattern)
    for name in names:
        assert engine.search(name) == (compiled.search(name) is not None), (pattern, name)


@pytest.mark.parametrize(
    ("pattern", "name"),
    [("(a+)+$", "a" * 5000 + "!"), (r"\d+\d+\d+x", "1" * 5000), (".*.*.*=.*", "x" * 5000)],
)
def test_catastrophic_patterns_take_linear_steps(pattern, name, monkeypatch):
    # re.search takes minutes to hours on these (exponential or O(n^4) backtracking); here every
    # position of the name is visited once, and each visit touches each instruction at most once.
    engine = NameFilter(pattern)
    calls: list[int] = []
    closure = engine._closure

    def counted(starts, text, at):
        chars, matched = closure(starts, text, at)
        calls.append(len(chars))
        return chars, matched

    monkeypatch.setattr(engine, "_closure", counted)
    assert engine.search(name) is False
    assert len(calls) <= len(name) + 1
    assert max(calls) <= len(engine._kind)


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        (r"(a)\1", "backreference"),
        (r"(?P<x>a)(?P=x)", "backreference"),
        ("^(?!slow)", "negative lookahead"),
        ("(?<=a)b", "lookahead or lookbehind"),
        ("(a)?(?(1)b|c)", "conditional"),
        ("(?>a+)b", "atomic group"),
        ("a++b", "possessive"),
        ("a{20000}", "20,000 times"),
        ("(?:a{100}){200}", "more than 10,000 steps"),
        ("(" * 5000 + ")" * 5000, "nests groups too deeply"),
    ],
)
def test_constructs_without_a_linear_match_are_refused_with_a_fix(pattern, needle):
    with pytest.raises(UnsafePattern) as exc:
        safe_regex.compile_filter(pattern)
    assert needle in str(exc.value) and exc.value.fix


def test_a_syntax_error_is_re_error():
    with pytest.raises(re.error):
        safe_regex.compile_filter("(")


def test_an_adapter_include_is_matched_by_the_same_engine():
    from gate.adapters._common import filter_discovered
    from gate.errors import ConfigError

    hostile = "a" * 40 + "!"  # 2**40 backtracking steps for re.search
    assert filter_discovered([hostile, "b"], {"include": "(a+)+$|^b$"}, "go") == ["b"]
    with pytest.raises(ConfigError) as exc:
        filter_discovered(["b"], {"include": "(?<!x)b"}, "gbench")
    assert "[gbench] include '(?<!x)b'" in exc.value.message and "lookbehind" in exc.value.message
