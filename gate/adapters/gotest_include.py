"""``[go] include``, matched level by level as ``go test -bench`` matches names.

``go help testflag`` (-bench regexp): "The regular expression is split by unbracketed slash (/)
characters into a sequence of regular expressions, and each part of a benchmark's identifier
must match the corresponding element in the sequence, if any." So ``BenchmarkSum64/4B`` keeps
the sub-benchmark ``4B`` of every top-level benchmark matching ``BenchmarkSum64`` (a regex
search, as everywhere: ``BenchmarkSum64String`` too, unless anchored: ``^BenchmarkSum64$/^4B$``),
and ``^BenchmarkSum64$`` keeps all of its sub-benchmarks (levels below the regex's are free).
The split follows Go's ``testing.splitRegexp``: at ``/`` and ``|`` outside ``[...]`` and
``(...)``, a ``|`` there separating alternatives of whole level sequences. Each level is a
Python regex run by :mod:`gate.safe_regex` (time linear in the name), as ``[suite] include``.

Discovery needs this twice: the first level picks the top-level benchmarks it runs once to list
their sub-benchmarks, the whole sequence then picks the names measured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gate import safe_regex
from gate.adapters._common import filter_discovered
from gate.errors import ConfigError

# One include: its alternatives, each a sequence of level filters.
Include = list[list[safe_regex.NameFilter]]


def split_levels(regex: str) -> list[list[str]]:
    """Go's ``testing.splitRegexp``: the alternatives (``|`` at the top) of level sequences
    (``/`` at the top); brackets and parentheses protect both, a backslash the next character."""
    alternatives: list[list[str]] = []
    levels: list[str] = []
    in_class = depth = 0
    start = i = 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            in_class += 1
        elif c == "]":
            in_class = max(in_class - 1, 0)
        elif c == "(" and not in_class:
            depth += 1
        elif c == ")" and not in_class:
            depth -= 1
        elif c in "/|" and not in_class and not depth:
            levels.append(regex[start:i])
            start = i + 1
            if c == "|":
                alternatives.append(levels)
                levels = []
        i += 1
    levels.append(regex[start:])
    alternatives.append(levels)
    return alternatives


def go_include(options: Mapping[str, Any]) -> list[Include] | None:
    """The compiled ``[go] include`` regexes, None without one."""
    # the shared reader checks the type and that every regex compiles as a whole
    filter_discovered([], options, "go")
    include = options.get("include")
    if not include:
        return None
    regexes = [include] if isinstance(include, str) else list(include)
    out: list[Include] = []
    for regex in regexes:
        try:
            out.append(
                [[safe_regex.compile_filter(level) for level in alt] for alt in split_levels(str(regex))]
            )
        except re.error as exc:
            raise ConfigError(
                f"[go] include {regex!r}: a level between its '/' is not a valid regex: {exc}",
                "write one regex per level, as go test -bench takes them: "
                'include = ["^BenchmarkSum64$/^4B$"]',
            ) from None
        except safe_regex.UnsafePattern as exc:
            raise ConfigError(f"[go] include {regex!r}: {exc}", exc.fix) from None
    return out


def include_matches(include: Sequence[Include], name: str, *, parent: bool = False) -> bool:
    """Whether ``name`` is kept. ``parent``: ``name`` is a top-level benchmark to be listed, kept
    when its level matches the first level of some alternative (its sub-benchmarks are decided
    later); otherwise a name with fewer levels than an alternative does not match it."""
    parts = name.split("/")
    for alternatives in include:
        for levels in alternatives:
            if len(parts) < len(levels) and not parent:
                continue
            if all(f.search(p) for f, p in zip(levels, parts, strict=False)):
                return True
    return False
