"""Go's benchmark output as ``go test`` and a test binary print it: the result lines
(go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md, ``BenchmarkName-GOMAXPROCS
iterations value unit [value unit ...]``, on one line only when the benchmark prints nothing: see
:func:`parse_results`), the names of a ``-v`` listing and the ``[[benchmark]]`` patterns matched
against them (``BenchmarkSum64/*``). Pure text functions; :mod:`gate.adapters.gotest` runs Go.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gate.adapters._common import escape_regex, one_match
from gate.adapters.base import TrialFailure, check_finite
from gate.model import TrialStatus

_PROCS = re.compile(r"-\d+$")
BENCH_NAME = re.compile(r"^Benchmark\S*$")
# testing.BenchmarkResult.String (+ MemString with -benchmem): "%8d" iterations, then per metric a
# tab and prettyPrint's "%*.*f unit" (units never contain white space: b.ReportMetric refuses
# them), up to the end of the line (Fprintln). NaN/Inf are kept so that check_finite rejects them.
_FIELD = re.compile(r" *(?:[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|(?i:nan|inf))) \S+ *")
_END_OF_RESULT = re.compile(r"\x16?--- (?:BENCH|FAIL|SKIP): (\S+)")
VERBOSE_FLAG = re.compile(r"--?(?:test\.)?v(?:=(.*))?")
_REPEAT_FLAG = re.compile(r"--?(?:test\.)?(count|cpu)(?:=(.*))?")
_DIGITS = frozenset("0123456789")


def bench_regex(name: str) -> str:
    """``-bench`` splits its regex on ``/`` and matches each part against one sub-benchmark level
    (``go help testflag``), so every level is anchored on its own."""
    return "/".join(f"^{escape_regex(part)}$" for part in name.split("/"))


def result_name(raw: str, requested: str) -> str:
    """Strip the ``-GOMAXPROCS`` suffix (absent when GOMAXPROCS=1), keeping a requested name that
    itself ends in ``-digits``."""
    if raw == requested or re.fullmatch(re.escape(requested) + r"-\d+", raw):
        return requested
    return _PROCS.sub("", raw)


def _is_function_name(word: str) -> bool:
    """``Benchmark`` not followed by a lower-case letter, as ``go test`` requires of a benchmark
    function (so ``example.com/Benchmarks`` in the final ``ok`` line is none)."""
    return word.startswith("Benchmark") and not word[9:10].islower()


def _name_in(line: str, requested: str) -> tuple[str, int] | None:
    """The benchmark name Go printed in ``line`` (raw, with its ``-GOMAXPROCS``) and where the text
    after it starts, or None. processBench prints ``"%-*s\t"``, at the start of a line (``\x16``
    in front with ``-test.v=test2json``) except after output of the benchmark that did not end in
    a newline (``xxBenchmarkA-2 \t``: the first repetition of a sub-benchmark, any with ``-v``).
    There only the requested name or one of its sub-benchmarks counts, so that words in the
    benchmark's own output are not taken for names.

    Linear in the line (no regex search): output without newlines makes lines megabytes long."""
    offset = 0
    for segment in line.split("\t")[:-1]:  # each piece followed by a tab
        text = segment.rstrip(" ")
        word_start = max(text.rfind(" "), text.rfind("\x0b"), text.rfind("\x0c"), text.rfind("\r")) + 1
        word, end = text[word_start:], offset + len(segment) + 1
        if offset + word_start == 0 and _is_function_name(word.removeprefix("\x16")):
            return word.removeprefix("\x16"), end
        i = word.find(requested)
        while word and i >= 0:
            j = i + len(requested)
            if j == len(word) or word.startswith("/", j) or _PROCS.fullmatch(word, j):
                return word[i:], end
            i = word.find(requested, i + 1)
        offset = end
    return None


def _result_tail(text: str) -> tuple[int, str] | None:
    """Go's result at the end of ``text``: (where its iteration count starts, the fields as
    ``\tvalue unit\t...``), or None. Parsed from the right, in linear time."""
    parts = text.rstrip(" \t").split("\t")
    k = len(parts)
    while k > 1 and _FIELD.fullmatch(parts[k - 1]):
        k -= 1
    head = parts[k - 1].rstrip(" ")
    start = len(head)
    while start and head[start - 1] in _DIGITS:
        start -= 1
    if k == len(parts) or start == len(head):
        return None
    return sum(len(p) + 1 for p in parts[: k - 1]) + start, "\t" + "\t".join(parts[k:])


def is_verbose(args: list[str]) -> bool:
    """``-v``/``-test.v`` (last one wins; ``=false``/``=0``/``=f`` turn it off)."""
    verbose = False
    for arg in args:
        match = VERBOSE_FLAG.fullmatch(arg)
        if match:
            verbose = (match.group(1) or "true").lower() not in ("false", "0", "f")
    return verbose


def repeats_runs(args: list[str]) -> bool:
    """Whether test flags in [go] args repeat each run: ``-count``, or a ``-cpu`` list."""
    for i, arg in enumerate(args):
        match = _REPEAT_FLAG.fullmatch(arg)
        if match:
            value = match.group(2) if match.group(2) is not None else "".join(args[i + 1 : i + 2])
            if match.group(1) == "count" or "," in value:
                return True
    return False


def parse_results(stdout: str, requested: str, *, verbose: bool = False) -> list[tuple[str, str]]:
    """(name without ``-GOMAXPROCS``, result fields) of every result Go printed, in order.

    ``processBench`` (src/testing/benchmark.go) prints the name, runs the benchmark, then prints
    the result fields and a newline. Whatever the benchmark prints to stdout lands between the
    name and the fields, so they are often on different lines (``BenchmarkA-2 \\thello``, ...,
    ``       3\\t   1234 ns/op``), and that output may contain numbers of its own. A name's result
    is therefore the *last* text in Go's result format (iterations, a tab, tab-separated ``value
    unit`` pairs, end of line) before the next name, or before Go's ``--- BENCH:``/``--- FAIL:``
    line for that name (``b.Log`` text follows it): a repetition cannot print after its result, as
    the next one prints its name first. With ``-v`` Go prints the name after the run instead,
    immediately followed by the fields, so only a result right after its name counts."""
    results: list[tuple[str, str]] = []
    current: str | None = None  # raw name whose result is open
    fields: str | None = None  # its last result candidate

    def close() -> None:
        nonlocal current, fields
        if current is not None and fields is not None:
            results.append((result_name(current, requested), fields))
        current = fields = None

    for line in stdout.splitlines():
        found = _name_in(line, requested)
        rest = line
        if found:
            close()
            current, start = found
            rest = line[start:]
        tail = _result_tail(rest)
        if verbose:
            if found and tail and not rest[: tail[0]].strip():
                fields = tail[1]
            close()
            continue
        end = _END_OF_RESULT.match(rest.lstrip())
        if end and end.group(1) == current:
            close()
        elif current is not None and tail:
            fields = tail[1]
    close()
    return results


# The line the driver puts where it dropped the middle of more than 32 MiB of output (gate.engine.driver
# _Capture: the first 1 MiB and the last 31 MiB are kept).
_DROPPED = re.compile(r"^\[ordertrap-gate: \d+ bytes of output dropped here\]$", re.MULTILINE)


def cut_output(stdout: str, what: str) -> str | None:
    """The reason to give when ``stdout`` was cut by the driver: a benchmark name or result line
    may be in the dropped part, so "no benchmark matched" or a wrong count would mislead."""
    if "[ordertrap-gate: " not in stdout or not _DROPPED.search(stdout):
        return None
    return (
        f"{what}: its output was cut in the middle because the benchmark printed more than 32 MiB "
        "(the gate keeps the first 1 MiB and the last 31 MiB), so Go's benchmark names and result "
        "lines may be in the dropped part; make the benchmark print less to stdout"
    )


def parse_bench_output(
    stdout: str, requested: str, metric: str, what: str, *, verbose: bool = False
) -> list[float]:
    results = parse_results(stdout, requested, verbose=verbose)
    names = [name for name, _ in results]
    cut = cut_output(stdout, what) if not names else None
    if cut:
        raise TrialFailure(TrialStatus.INVALID, cut)
    distinct = sorted(set(names))
    if len(distinct) > 1 and all(n.startswith(requested + "/") for n in distinct):
        shown = ", ".join(distinct[:3]) + (" ..." if len(distinct) > 3 else "")
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: {len(distinct)} benchmarks matched {requested!r} ({shown}): it has "
            "sub-benchmarks; name one of them, or all of them with a pattern: "
            f'[[benchmark]] name = "{requested}/*"',
        )
    one_match(names, requested, what)
    if requested not in names:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: the only result is for {names[0]!r}, not {requested!r} (a benchmark with "
            "sub-benchmarks reports only those); name the benchmark exactly as Go reports it",
        )
    values: list[float] = []
    for _, text in results:
        pairs = {unit: value for value, unit in (part.split() for part in text.split("\t") if part.strip())}
        if metric not in pairs:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: result line has no {metric!r} (has {', '.join(pairs) or 'nothing'}); "
                "set [go] metric to one of those",
            )
        values.append(float(pairs[metric]))
    return check_finite(values, what)


# ---- sub-benchmark patterns and the -v listing -------------------------------------------------

# A name Go printed with -test.v: a whole line, or glued to the end of output of the previous
# benchmark that did not end in a newline ("xxBenchmarkA/b"). The result lines have tabs.
_CHATTY_NAME = re.compile(r"Benchmark\S*$")


def is_pattern(name: str) -> bool:
    """A ``[[benchmark]]`` name with ``*`` stands for every benchmark it matches
    (``BenchmarkSum64/*``); see :meth:`GoTestAdapter.discover`."""
    return "*" in name


def pattern_level(glob: str) -> re.Pattern[str]:
    # Only "*" is special (any run of characters within one level): "?", "[" and "]" occur in real
    # sub-benchmark names, which b.Run takes as they are (spaces become "_").
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in glob), re.DOTALL)


def pattern_matches(pattern: str, name: str) -> bool:
    """Level by level, as ``-bench`` matches (``go help testflag``): each ``/``-separated level of
    ``pattern`` must match the same level of ``name``; levels of ``name`` below the pattern's are
    free, so ``BenchmarkSum64/*`` takes every benchmark below ``BenchmarkSum64``, however deep."""
    levels, parts = pattern.split("/"), name.split("/")
    return len(parts) >= len(levels) and all(
        pattern_level(g).fullmatch(p) for g, p in zip(levels, parts, strict=False)
    )


def chatty_names(stdout: str, parents: Sequence[str]) -> list[str]:
    """The names of the benchmarks a ``-test.v`` run started below ``parents`` (top-level names),
    in order, once each. With ``-v`` Go prints each benchmark's full name, without the
    ``-GOMAXPROCS`` suffix, on a line of its own before running it, parents included
    (``testing.(*B).Run``: ``fmt.Println(benchName)`` when chatty), also one that then calls
    ``b.Skip``; without ``-v`` a skipped benchmark prints nothing at all."""
    wanted = set(parents)
    names: dict[str, None] = {}
    for line in stdout.splitlines():
        match = _CHATTY_NAME.search(line.rstrip())
        if match and match.group().split("/")[0] in wanted:
            names.setdefault(match.group(), None)
    return list(names)


def leaves(names: Sequence[str]) -> list[str]:
    """The names in ``names`` that have no sub-benchmark among them."""
    prefixes = {n[:i] for n in names for i, c in enumerate(n) if c == "/"}
    return [n for n in names if n not in prefixes]
