"""Warning categories of the comment, the summary and the HTML report (gate/render/view.py).

Audit finding F9: every suite-level warning without a mapping was filed under "Machine
preparation — the benchmark host was not prepared for stable timing", e.g. "3 benchmark(s) ran
only in base, not in head" (one_version_only) or an unreadable trial log. Only the host checks of
gate/environment.py belong there; every code the gate writes has a deliberate category.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gate.render import render, view
from tests.fakes import analyses

GATE = Path(__file__).resolve().parents[2] / "gate"
# The host checks of gate/environment.py: the only codes that are about machine preparation.
MACHINE = {"governor", "cpufreq_unknown", "turbo", "smt", "aslr", "load"}
# Data and log problems the audit found under "Machine preparation".
NOT_MACHINE = [
    "one_version_only",
    "duplicate_trials",
    "invalid_value",
    "non_positive_value",
    "not_interleaved",
    "empty_log",
    "unreadable_log",
    "missing_name",
]
# Codes passed to warning() through a variable, which the scan below cannot see.
INDIRECT = {"invalid_value", "non_positive_value"}  # gate/analysis/load.py: one loop over bad-value masks


def emitted_codes() -> set[str]:
    """Every warning code written anywhere in gate/ (the renderer aside): ``warning("code", …)``
    and ``{"code": "code", …}`` literals, plus the INDIRECT ones."""
    codes = set(INDIRECT)
    call = re.compile(r"(?<![.\w])warning\(\s*\"([A-Za-z0-9_\-]+)\"\s*,")
    literal = re.compile(r"[\"']code[\"']\s*:\s*\"([A-Za-z0-9_\-]+)\"")
    for path in GATE.rglob("*.py"):
        if "render" in path.relative_to(GATE).parts:
            continue
        text = path.read_text(encoding="utf-8")
        codes.update(call.findall(text))
        codes.update(literal.findall(text))
    return codes


def test_the_scan_finds_the_known_codes() -> None:
    codes = emitted_codes()
    assert MACHINE | set(NOT_MACHINE) | {"unstable", "carryover", "runs_dissimilar", "order_effect"} <= codes


def test_every_emitted_code_has_a_category_of_its_own() -> None:
    """Fails when a new warning code is added without deciding where the reader sees it: add it
    to gate/render/view.py CODE_CATEGORY (machine only if it is about the host)."""
    unlisted = sorted(c for c in emitted_codes() if c not in view.CODE_CATEGORY)
    assert unlisted == [], f"warning codes without a category in gate/render/view.py: {unlisted}"


@pytest.mark.parametrize("code", sorted(emitted_codes() | set(view.CODE_CATEGORY)))
def test_only_host_checks_are_machine_preparation(code: str) -> None:
    category = view.warning_category(code)
    assert category in {key for key, _, _ in view.CATEGORIES}
    assert (category == "machine") == (code in MACHINE), f"{code} is filed under {category!r}"
    assert category != "other", f"{code} has no category of its own"


@pytest.mark.parametrize("code", ["something_new", "loader_failed", "governance", "<b>x</b>", ""])
def test_an_unknown_code_is_never_machine_preparation(code: str) -> None:
    assert view.warning_category(code) != "machine"


def test_machine_codes_are_listed_once() -> None:
    assert frozenset(MACHINE) == view.MACHINE_CODES
    assert {c for c, cat in view.CODE_CATEGORY.items() if cat == "machine"} == MACHINE


def _groups(a: dict) -> dict[str, list[dict]]:
    rows = [view.benchmark_row(b, i) for i, b in enumerate(a["benchmarks"])]
    return {g["key"]: g["entries"] for g in view.collect_warnings(a, rows)}


@pytest.mark.parametrize("code", NOT_MACHINE)
def test_suite_level_data_problems_are_not_machine_preparation(code: str) -> None:
    a = analyses.mixed()
    a["warnings"] = [{"code": code, "message": f"the {code} message", "action": f"the {code} action"}]
    groups = _groups(a)
    assert "machine" not in groups
    assert [e["code"] for entries in groups.values() for e in entries if e["benchmark"] is None] == [code]


def test_one_version_only_is_shown_with_its_action_under_benchmarks() -> None:
    a = analyses.all_unchanged()
    a["warnings"] = [
        {
            "code": "one_version_only",
            "message": "3 benchmark(s) ran only in base, not in head, so were not compared: a, b, c",
            "action": "the benchmark was removed or renamed in head; if not, check head's build",
        },
        {"code": "governor", "message": "CPU frequency governor is 'powersave'", "action": "set performance"},
    ]
    for fmt in ("comment", "summary"):
        text = render(a, fmt)  # type: ignore[arg-type]
        machine = text.index("**Machine preparation**")
        benchmarks = text.index("**Benchmarks**")
        line = next(x for x in text.splitlines() if "ran only in base" in x)
        assert "→ **do:** the benchmark was removed or renamed in head" in line
        # the line sits in the Benchmarks section, the governor in Machine preparation
        assert benchmarks < text.index(line) < machine < text.index("powersave")


def test_trial_log_problems_are_grouped_under_trial_log() -> None:
    a = analyses.all_unchanged()
    a["warnings"] = [
        {
            "code": "unreadable_log",
            "message": "old.csv is not a readable CSV; skipped",
            "action": "drop old.csv",
        },
        {
            "code": "duplicate_trials",
            "message": "12 rows repeat rows of another log",
            "action": "pass each log once",
        },
    ]
    for fmt in ("comment", "summary"):
        text = render(a, fmt)  # type: ignore[arg-type]
        assert "Machine preparation" not in text
        section = text.split("**Trial log**", 1)[1].split("\n\n**", 1)[0]
        assert "old.csv is not a readable CSV; skipped → **do:** drop old.csv" in section
        assert "12 rows repeat rows of another log → **do:** pass each log once" in section


def test_similarity_codes_are_dissimilar_runs_without_a_duplicate_line() -> None:
    """The analysis writes runs_dissimilar / instances_dissimilar / runner_dissimilar; none of
    them starts with 'dissimilar', and they were filed as "other" (or "machine", suite-level)."""
    a = analyses.all_unchanged()
    b = a["benchmarks"][0]
    b["similarity"] = {"dissimilar_runs": ["main/run 2"], "dissimilar_instances": []}
    b["warnings"] = [
        {
            "code": "runs_dissimilar",
            "message": f"{b['benchmark']}: suite run 2 is unlike the others",
            "action": "rerun",
        }
    ]
    a["similarity"] = {
        "warnings": [{"code": "runner_dissimilar", "message": "runner 2 differs", "action": "fix it"}]
    }
    groups = _groups(a)
    assert set(groups) == {"dissimilar"}
    assert [e["code"] for e in groups["dissimilar"]] == ["runner_dissimilar", "runs_dissimilar"]
