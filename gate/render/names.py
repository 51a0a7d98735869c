"""Benchmark names shortened for a table column, keeping what tells them apart.

Names of one suite share their start and differ at the end: JMH's
``org.apache.commons.lang3.StringUtilsBenchmark.isBlank:charSequenceType=STRING,size=100``, Go's
``BenchmarkParse/json/large``, pytest's ``tests/bench.py::test_x[case-3]``. A name cut in the middle
keeps its package and loses its method or its ``@Param`` values, the very part that differs from
the row beside it. So a name too long for its column loses, in this order:

1. the leading path segments every name of the table shares (``org.apache.commons.lang3.``);
2. leading segments of its path (the part before ``:`` or ``[`` parameters; segments end at ``/``
   or ``::``, or at ``.`` in a path with neither), one at a time, keeping the last one (the
   method, the sub-benchmark);
3. only then its middle (:func:`gate.render.filters.shorten_middle`), also where dropping the next
   segment whole would leave less than half the column (``…end`` of ``…/<60 characters>/end``).

A leading ``…`` says a prefix was dropped. The column is the narrowest (from a usual width on) at
which the shown names are still told apart; where the end-keeping rule makes two names read the
same at every width the plain middle cut would, the middle cut is used. The full name stays in the
HTML report (the name cell's tooltip) and in analysis.json.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gate.render.filters import shorten_middle

ELLIPSIS = "…"
# the end of a name's path, where its parameters start (JMH ``:a=1``, pytest ``[x]``)
# (``::`` is a path separator: pytest's node ids, Rust paths)
_PARAMS = re.compile(r"(?<!:):(?!:)|\[")


def _path_segments(path: str) -> re.Pattern[str]:
    """Segments end at ``/`` and ``::`` (Go, Criterion, pytest), or, in a path with neither, at
    ``.`` (JMH's ``package.Class.method``): ``test_x.py`` is one segment of a pytest path."""
    return re.compile(r"::|/") if "/" in path or "::" in path else re.compile(r"\.")


def _segment_ends(name: str) -> list[int]:
    """Where each leading segment of ``name``'s path ends (after its separator); the last
    segment (the method, the sub-benchmark) and the parameters are never among them."""
    params = _PARAMS.search(name)
    path = name[: params.start()] if params else name
    return [m.end() for m in _path_segments(path).finditer(path) if m.end() < len(path)]


def shared_prefix(names: Sequence[str]) -> str:
    """The leading path segments every name shares (``org.apache.commons.lang3.``); empty for
    fewer than two distinct names."""
    distinct = sorted(set(names))
    if len(distinct) < 2:
        return ""
    first, last = distinct[0], distinct[-1]  # sorted: what these two share, every name shares
    common = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))
    ends = set.intersection(*(set(_segment_ends(n)) for n in distinct))
    return distinct[0][: max((e for e in ends if e <= common), default=0)]


def _candidates(name: str, prefix: str) -> list[str]:
    """``name`` shortened less to more: whole, without the shared prefix, then without each
    further leading path segment (the last one stays)."""
    out = [name]
    rest = name[len(prefix) :] if prefix and name.startswith(prefix) else name
    if rest != name:
        out.append(ELLIPSIS + rest)
    out.extend(ELLIPSIS + rest[end:] for end in _segment_ends(rest))
    return out


def _keep_ends(name: str, prefix: str, width: int) -> str:
    candidates = _candidates(name, prefix)
    fits = next((i for i, shown in enumerate(candidates) if len(shown) <= width), len(candidates))
    # a long segment dropped whole would leave less than half the column: its middle goes instead
    if fits < len(candidates) and not (fits >= 2 and len(candidates[fits]) < width // 2):
        return candidates[fits]
    cut = candidates[fits - 1]
    if cut is name:
        return shorten_middle(name, width)
    return ELLIPSIS + shorten_middle(cut[len(ELLIPSIS) :], max(width - len(ELLIPSIS), 3))


def shorten_all(names: Sequence[str], width: int) -> dict[str, str]:
    """Each name as shown in a column of ``width`` characters by the rule above (whole if it
    fits); not checked for being told apart (:func:`column`)."""
    prefix = shared_prefix(names)
    return {n: n if len(n) <= width else _keep_ends(n, prefix, width) for n in names}


def column(names: Sequence[str], narrowest: int = 40) -> tuple[int, dict[str, str]]:
    """The narrowest column width (at least ``narrowest``) at which the names, shortened by
    :func:`shorten_all` (or, failing that, cut in the middle), are told apart, and each name as
    shown there. At the longest name's width nothing is cut, so a width always exists."""
    longest = max((len(n) for n in names), default=0)
    distinct = len(set(names))
    for width in range(narrowest, longest):
        kept = shorten_all(names, width)
        if len(set(kept.values())) == distinct:
            return width, kept
        middle = {n: shorten_middle(n, width) for n in names}
        if len(set(middle.values())) == distinct:
            return width, middle
    return max(narrowest, longest), {n: n for n in names}
