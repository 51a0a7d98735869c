"""Regular expressions matched against benchmark names in time linear in the name's length.

``[suite].include``/``exclude`` and an adapter's ``include`` are matched against names that the
code under test chooses (a pull request can add a benchmark with any name). Python's :mod:`re`
backtracks: ``re.search(r"(a+)+$", "a" * 30 + "!")`` takes minutes and ``\\d+\\d+x`` on 4,000
digits took 115 s here, so a pattern that looks harmless plus a long hostile name would stall the
run. Here a pattern is parsed by Python's own parser (so it accepts exactly the syntax of
:mod:`re` and fails with the same messages) and run as a Thompson NFA: every possible match
advances in lock-step, one character at a time, so a search costs at most
O(len(name) × len(program)) steps whatever the pattern (K. Thompson, "Regular expression search
algorithm", CACM 11(6), 1968; R. Cox, "Regular Expression Matching Can Be Simple And Fast",
2007 — the design of RE2 and Go's regexp).

Each single-character test (a literal, a class, ``.``, under the flags in force there) and each
zero-width assertion (``^ $ \\A \\Z \\b \\B``) is a one-node pattern compiled by Python's own
compiler, so it means exactly what it means in :mod:`re`; whether a match exists does not depend
on greedy or lazy quantifiers, so ``search`` answers as ``re.search(pattern, name) is not None``
does. Constructs no finite automaton can run — backreferences, lookaround, conditionals, atomic
groups and possessive quantifiers — are refused with a fix. ``re._parser``/``re._compiler`` are
CPython's private modules (3.11+); ``tests/unit/test_safe_regex.py`` compares every construct
with :mod:`re`, so a change in them fails a test instead of a filter.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]
from typing import Any

# Instructions in one compiled pattern; counted repetitions are unrolled (a{3} = aaa), so this
# also bounds them. Real filters need a few dozen.
MAX_PROGRAM = 10_000

_CHAR, _SPLIT, _JMP, _ASSERT, _MATCH = range(5)
_CONSUMING = (_constants.LITERAL, _constants.NOT_LITERAL, _constants.ANY, _constants.IN)
_REPEATS = (_constants.MAX_REPEAT, _constants.MIN_REPEAT)
_REFUSED = {
    _constants.GROUPREF: "a backreference (\\1, (?P=name))",
    _constants.GROUPREF_EXISTS: "a conditional group ((?(1)...))",
    _constants.ASSERT: "a lookahead or lookbehind ((?=...), (?<=...))",
    _constants.ASSERT_NOT: "a negative lookahead or lookbehind ((?!...), (?<!...))",
    _constants.ATOMIC_GROUP: "an atomic group ((?>...))",
    _constants.POSSESSIVE_REPEAT: "a possessive quantifier (*+, ++, ?+)",
}


class UnsafePattern(ValueError):
    """A valid :mod:`re` pattern this engine does not run in linear time; ``fix`` says what to write."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def _single(op: Any, av: Any, flags: int) -> re.Pattern[str]:
    """One parsed node as a compiled pattern, with the flags in force where it stands."""
    state = _parser.State()
    state.flags = flags
    return _compiler.compile(_parser.SubPattern(state, [(op, av)]), 0)


class _Builder:
    def __init__(self) -> None:
        self.kind: list[int] = []
        self.arg: list[int] = []
        self.alt: list[int] = []
        self.tests: list[re.Pattern[str]] = []

    def emit(self, kind: int, arg: int = 0) -> int:
        if len(self.kind) >= MAX_PROGRAM:
            raise UnsafePattern(
                f"the pattern expands to more than {MAX_PROGRAM:,} steps (counted repetitions such "
                "as {1000} are unrolled)",
                "use a smaller count, or * / + instead of a large {m,n}",
            )
        self.kind.append(kind)
        self.arg.append(arg)
        self.alt.append(0)
        return len(self.kind) - 1

    def test(self, op: Any, av: Any, flags: int) -> int:
        self.tests.append(_single(op, av, flags))
        return len(self.tests) - 1

    def sequence(self, items: Any, flags: int) -> None:
        for op, av in items:
            self.node(op, av, flags)

    def node(self, op: Any, av: Any, flags: int) -> None:
        if op in _CONSUMING:
            self.emit(_CHAR, self.test(op, av, flags))
        elif op is _constants.AT:
            self.emit(_ASSERT, self.test(op, av, flags))
        elif op is _constants.SUBPATTERN:
            _group, add, remove, body = av
            self.sequence(body, _compiler._combine_flags(flags, add, remove))
        elif op is _constants.BRANCH:
            jumps = []
            alternatives = av[1]
            for alternative in alternatives[:-1]:
                split = self.emit(_SPLIT, len(self.kind) + 1)
                self.sequence(alternative, flags)
                jumps.append(self.emit(_JMP))
                self.alt[split] = len(self.kind)
            self.sequence(alternatives[-1], flags)
            for jump in jumps:
                self.arg[jump] = len(self.kind)
        elif op in _REPEATS:
            low, high, body = av
            self.repeat(low, high, body, flags)
        elif op in _REFUSED:
            raise UnsafePattern(
                f"the pattern uses {_REFUSED[op]}, which cannot be matched in time linear in the name",
                "write it without; for 'everything except' list the exceptions in [suite].exclude",
            )
        else:  # a node kind this module does not know (a newer Python): refuse rather than guess
            raise UnsafePattern(
                f"the pattern uses {op}, which this gate cannot match", "simplify the pattern"
            )

    def repeat(self, low: int, high: int, body: Any, flags: int) -> None:
        unbounded = high == _constants.MAXREPEAT
        if body.getwidth()[1] == 0:
            # a body that consumes nothing (a group of assertions) gives the same answer once as
            # many times: x{5} = x, x* = x?
            low, high, unbounded = min(low, 1), min(high, 1), False
        count = low if unbounded else high
        if count > MAX_PROGRAM:
            raise UnsafePattern(
                f"the pattern repeats a part {count:,} times; at most {MAX_PROGRAM:,} steps are allowed",
                "use a smaller count, or * / + instead of a large {m,n}",
            )
        for _ in range(low):
            self.sequence(body, flags)
        if unbounded:
            loop = self.emit(_SPLIT, len(self.kind) + 1)
            self.sequence(body, flags)
            self.emit(_JMP, loop)
            self.alt[loop] = len(self.kind)
            return
        splits = []
        for _ in range(high - low):
            splits.append(self.emit(_SPLIT, len(self.kind) + 1))
            self.sequence(body, flags)
        for split in splits:
            self.alt[split] = len(self.kind)


class NameFilter:
    """One compiled pattern; :meth:`search` answers like ``re.search(pattern, name) is not None``."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            parsed = _parser.parse(pattern, 0)
            builder = _Builder()
            builder.sequence(parsed, parsed.state.flags)
        except RecursionError:
            raise UnsafePattern(
                "the pattern nests groups too deeply to parse", "remove the nested parentheses"
            ) from None
        builder.emit(_MATCH)
        self._kind = builder.kind
        self._arg = builder.arg
        self._alt = builder.alt
        self._tests = builder.tests
        self._memo: list[dict[str, bool]] = [{} for _ in builder.tests]

    def _closure(self, starts: Sequence[int], name: str, at: int) -> tuple[list[int], bool]:
        """The character tests reachable from ``starts`` without consuming a character at
        position ``at``, and whether the end of the pattern is."""
        kind, arg, alt, tests = self._kind, self._arg, self._alt, self._tests
        seen: set[int] = set()
        stack = list(starts)
        chars: list[int] = []
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            k = kind[pc]
            if k == _CHAR:
                chars.append(pc)
            elif k == _SPLIT:
                stack.append(alt[pc])
                stack.append(arg[pc])
            elif k == _JMP:
                stack.append(arg[pc])
            elif k == _ASSERT:
                if tests[arg[pc]].match(name, at) is not None:
                    stack.append(pc + 1)
            else:
                return chars, True
        return chars, False

    def search(self, name: str) -> bool:
        arg, tests, memo = self._arg, self._tests, self._memo
        pending: list[int] = []
        for at in range(len(name) + 1):
            # a thread starts at every position: re.search finds a match anywhere
            chars, matched = self._closure([*pending, 0], name, at)
            if matched:
                return True
            if at == len(name):
                break
            c = name[at]
            pending = []
            for pc in chars:
                i = arg[pc]
                ok = memo[i].get(c)
                if ok is None:
                    ok = memo[i][c] = tests[i].match(c) is not None
                if ok:
                    pending.append(pc + 1)
        return False


@functools.lru_cache(maxsize=256)
def compile_filter(pattern: str) -> NameFilter:
    """The compiled filter; :class:`re.error` for a syntax error, :class:`UnsafePattern` for a
    construct this engine refuses."""
    return NameFilter(pattern)


def search(pattern: str, name: str) -> bool:
    """``re.search(pattern, name) is not None`` in time linear in ``len(name)``."""
    return compile_filter(pattern).search(name)
