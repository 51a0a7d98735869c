"""The job summary within GitHub's 1 MiB: table rows come first, notes and warnings give way.

With 3,990 inconclusive benchmarks (one "why" note each) and ~7,500 noise warnings, notes and
warning lists could fill the 1 MiB and push the table out; the summary promises the complete
table, so every regression stays visible.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from gate.render import SUMMARY_LIMIT, RenderContext, render
from tests.fakes import analyses
from tests.unit.mdcheck import split_cells, tables

NOISY_ACTION = (
    "quiet the runner (ordertrap-gate run checks governor, turbo, load) or raise "
    "[full].measurements / [full].iterations for this benchmark"
)
PRIORITY = ("regression", "failed", "inconclusive", "improvement", "unchanged")


def _bench(name: str, verdict: str, rng: random.Random, k: int) -> dict[str, Any]:
    change = {"regression": 30.0, "improvement": -12.0, "unchanged": 0.5}.get(verdict, rng.uniform(-25, 25))
    reason = None
    if verdict == "inconclusive":
        reason = (
            f"the 99% CI of the change [{change - 20:+.1f}%, {change + 20:+.1f}%] is too wide to rule out a 3% "
            f"change; about {rng.randint(500, 1500)} values per version (now 15/15) would resolve a 3% change "
            "at this noise — raise [full].iterations or [full].suite_runs"
        )
    warnings = [
        {
            "code": "unstable",
            "message": f"{name} is very noisy in {role}: CV {rng.uniform(10.1, 20):.1f}% (> 10%)",
            "action": NOISY_ACTION,
        }
        for role in ("base", "head")
    ]
    return analyses.benchmark(
        name,
        verdict,
        change_pct=change,
        noise=0.15,
        n_failed_head=15 if verdict == "failed" else 0,
        reason=reason,
        warnings=warnings,
        n=5,
        seed=k,
    )


def _table_rows(text: str) -> list[list[str]]:
    """Benchmark rows of the summary's one table, as cells (every row as wide as the header)."""
    found = tables(text)
    assert len(found) == 1, "the summary has exactly one table"
    header, delimiter, *rows = found[0]
    assert re.fullmatch(r"\|[:\-| ]+\|", delimiter)
    width = len(split_cells(header))
    cells = [split_cells(r) for r in rows]
    assert all(len(c) == width for c in cells)
    return cells


@pytest.fixture(scope="module")
def f4_run() -> dict[str, Any]:
    """The reproduction of F4: 4,000 benchmarks, 10 regressions, 3,990 inconclusive, all noisy."""
    rng = random.Random(4)
    benches = [
        _bench(
            f"BenchmarkEncode/codec=json/size={k}/workers=8-8",
            "regression" if k < 10 else "inconclusive",
            rng,
            k,
        )
        for k in range(4000)
    ]
    return analyses.analysis(benches)


def test_every_row_fits_although_notes_and_warnings_are_many(f4_run: dict[str, Any]) -> None:
    text = render(f4_run, "summary")
    size = len(text.encode())
    assert size <= SUMMARY_LIMIT
    rows = _table_rows(text)
    assert len(rows) == 4000
    assert "not shown" not in text
    assert "cut at GitHub" not in text  # no last-resort cut in the middle of a list
    # the regressions lead the table
    assert [r[2].strip() for r in rows[:10]] == ["regression"] * 10
    assert text.rstrip().endswith("</sub>")  # the footer is still there


def test_notes_and_warnings_are_capped_with_a_count(f4_run: dict[str, Any]) -> None:
    text = render(f4_run, "summary")
    notes = text.split("### Why inconclusive or failed", 1)[1].split("###", 1)[0]
    listed = [line for line in notes.splitlines() if line.startswith("- 🟡")]
    assert 0 < len(listed) < 3990
    more = re.search(r"… and (\d+) more inconclusive or failed", notes)
    assert more and int(more.group(1)) + len(listed) == 3990
    warnings = text.split("### ⚠️ Warnings", 1)[1]
    # 7,999 warnings with the same action: one grouped line that says how many it stands for
    lines = [line for line in warnings.splitlines() if "→ **do:** quiet the runner" in line]
    assert len(lines) == 1
    assert ": 8000 warnings like “" in lines[0]
    assert re.search(r"and 39\d\d more: ", lines[0])


def test_small_runs_keep_every_note_and_warning() -> None:
    rng = random.Random(1)
    a = analyses.analysis([_bench(f"b{k}", "inconclusive", rng, k) for k in range(5)])
    text = render(a, "summary")
    assert text.count("- **do:** quiet the runner") == 1  # the shared action once, above its 10 warnings
    assert len([line for line in text.splitlines() if line.startswith("  - `b")]) == 10
    assert text.count("- 🟡 ") == 5
    assert "more inconclusive or failed" not in text


def _long_names(pad: str, seed: int = 240) -> dict[str, Any]:
    """3,000 benchmarks with 240-character names, several verdicts, all noisy. The analysis is
    shuffled (not in the contract's order) to show the summary does not rely on it."""
    rng = random.Random(seed)
    verdicts = ["regression"] * 30 + ["failed"] * 20 + ["inconclusive"] * 400 + ["improvement"] * 50
    verdicts += ["unchanged"] * (3000 - len(verdicts))
    rng.shuffle(verdicts)
    benches = []
    for k, verdict in enumerate(verdicts):
        stem = f"BenchmarkEncode/codec=json/size={k:04d}/workers=8-8/"
        benches.append(_bench(stem + pad * (240 - len(stem)), verdict, rng, k))
    a = analyses.analysis(benches)
    rng.shuffle(a["benchmarks"])
    return a


def test_3000_benchmarks_with_240_character_names_all_fit() -> None:
    text = render(_long_names("p"), "summary")
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert len(_table_rows(text)) == 3000
    assert "not shown" not in text
    # the notes and warnings made room for the table, and say what is not listed here
    assert re.search(r"… and \d+ more inconclusive or failed benchmarks", text)


@pytest.fixture(scope="module")
def long_names() -> dict[str, Any]:
    """As above, but the names are mostly 'é' (2 bytes in UTF-8): the table alone exceeds 1 MiB."""
    return _long_names("é")


def test_long_names_drop_the_least_important_rows_and_say_how_many(long_names: dict[str, Any]) -> None:
    text = render(long_names, "summary", RenderContext(report_url="https://example.invalid/report.html"))
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert "cut at GitHub" not in text
    rows = _table_rows(text)
    shown = Counter(r[2].strip() for r in rows)
    total = Counter(b["verdict"] for b in long_names["benchmarks"])
    m = re.search(r"✂️ (\d+) more benchmarks are not shown \(([^)]*)\)", text)
    assert m, "the summary says how many rows were left out"
    hidden = int(m.group(1))
    assert hidden > 0 and len(rows) + hidden == 3000
    # rows are kept in order of importance: a class is shown only if every more important one is complete
    partial = False
    for verdict in PRIORITY:
        if partial:
            assert shown[verdict] == 0, f"{verdict} rows shown while more important rows were dropped"
        elif shown[verdict] < total[verdict]:
            partial = True
    assert shown["regression"] == 30 and shown["failed"] == 20
    # the table is in that order too
    order = [PRIORITY.index(r[2].strip()) for r in rows]
    assert order == sorted(order)
    # the left-out rows are named by verdict
    breakdown = dict((label, int(n)) for n, label in re.findall(r"(\d+) ([a-z]+)", m.group(2)))
    assert sum(breakdown.values()) == hidden
    assert breakdown.get("unchanged") == total["unchanged"] - shown["unchanged"]


def test_long_names_notes_and_warnings_do_not_take_the_rows_room(long_names: dict[str, Any]) -> None:
    """The table has priority: thousands of warnings cost only a few rows compared with none."""
    quiet = {
        **long_names,
        "benchmarks": [{**b, "warnings": [], "reason": "short"} for b in long_names["benchmarks"]],
    }
    with_extras = len(_table_rows(render(long_names, "summary")))
    without = len(_table_rows(render(quiet, "summary")))
    assert with_extras >= without * 0.97
