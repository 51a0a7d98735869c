"""Warning categories of the comment, the summary and the HTML report (gate/render/view.py).

Every code the gate writes is a member of gate.warning_codes.WarningCode with its category
(tests/unit/test_warning_codes.py). Only the host checks of gate/engine/environment.py belong under
"Machine preparation"; a suite-level data or log problem (e.g. "3 benchmark(s) ran only in base,
not in head", an unreadable trial log) is shown where the reader can act on it.
"""

from __future__ import annotations

import pytest

from gate.render import render, view
from gate.warning_codes import WarningCategory, WarningCode
from tests.fakes import analyses

# The host checks of gate/engine/environment.py: the only codes that are about machine preparation.
MACHINE = {"governor", "cpufreq_unknown", "turbo", "smt", "aslr", "load"}
# Data and log problems that are not about the host.
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


@pytest.mark.parametrize("code", list(WarningCode), ids=str)
def test_only_host_checks_are_machine_preparation(code: WarningCode) -> None:
    category = view.warning_category(code.value)
    assert category == code.category
    assert category in {key for key, _, _ in view.CATEGORIES}
    assert (category == "machine") == (code.value in MACHINE), f"{code.value} is filed under {category!r}"
    assert category != "other", f"{code.value} has no category of its own"


def test_every_category_is_a_section_of_the_rendered_warnings() -> None:
    assert [key for key, _, _ in view.CATEGORIES] == [c.value for c in WarningCategory]


@pytest.mark.parametrize("code", ["something_new", "loader_failed", "governance", "<b>x</b>", ""])
def test_an_unknown_code_is_never_machine_preparation(code: str) -> None:
    assert view.warning_category(code) != "machine"


def test_machine_codes_are_listed_once() -> None:
    assert frozenset(MACHINE) == view.MACHINE_CODES


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


def _detail(text: str) -> str:
    """The warnings' detail: the comment shows one line per category, then the detail behind
    <details> (gate/render/comment_lines.py); the summary shows only the detail."""
    marker = "<details><summary>What the "
    return text[text.index(marker) :] if marker in text else text


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
        text = _detail(render(a, fmt))  # type: ignore[arg-type]
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
        text = _detail(render(a, fmt))  # type: ignore[arg-type]
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
