"""The pass/fail/inconclusive policy (gate/decision.py): the default decision from the verdicts,
and the decision publish reports with ``fail_on`` and the accept label on top. ``analyze``,
``publish`` and the renderers take it from there, so it is decided in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gate.decision import (
    FAIL_ON_CHOICES,
    Decision,
    decision_with_fail_on_and_label,
    default_decision,
    fails_in_head_only,
)
from tests.fakes import analyses

GATE = Path(__file__).resolve().parents[2] / "gate"


def test_default_decision() -> None:
    assert default_decision({"regression": 1, "failed": 2}) is Decision.FAIL
    assert default_decision({"failed": 1}) is Decision.FAIL  # failed in both: nothing compared
    assert default_decision({"failed": 1, "unchanged": 1}) is Decision.INCONCLUSIVE
    assert default_decision({"inconclusive": 1, "unchanged": 3}) is Decision.INCONCLUSIVE
    assert default_decision({"unchanged": 3, "improvement": 1}) is Decision.PASS
    # a head that crashes where base ran is a finding; nothing compared is not a pass
    assert default_decision({"failed": 1, "unchanged": 3}, failed_in_head_only=1) is Decision.FAIL
    # a rename, a head made noisy, nothing compared: none is a pass (the accept label is the way)
    assert default_decision({"unchanged": 3}, only_in_base=2) is Decision.FAIL
    assert default_decision({"inconclusive": 1, "unchanged": 3}, noisy_in_head=1) is Decision.FAIL
    assert default_decision({"unchanged": 0, "failed": 0}) is Decision.FAIL
    assert default_decision({}) is Decision.FAIL
    assert default_decision({}, only_in_base=2) is Decision.FAIL  # head ran none of base's benchmarks


@pytest.mark.parametrize(
    ("counts", "fail_on", "label", "expected", "code"),
    [
        ({"regression": 1}, "regression", False, Decision.FAIL, 1),
        ({"regression": 1}, "never", False, Decision.FAIL, 0),
        ({"regression": 1}, "regression", True, Decision.PASS, 0),
        ({"inconclusive": 2}, "regression", False, Decision.INCONCLUSIVE, 0),
        ({"failed": 1}, "inconclusive", False, Decision.FAIL, 1),
        ({"inconclusive": 1}, "inconclusive", True, Decision.PASS, 0),
        ({"improvement": 3, "unchanged": 2}, "inconclusive", False, Decision.PASS, 0),
    ],
)
def test_fail_on_and_the_accept_label(
    counts: dict[str, int], fail_on: str, label: bool, expected: Decision, code: int
) -> None:
    counts = {"unchanged": 1, **counts}  # something was compared (nothing compared: see below)
    outcome = decision_with_fail_on_and_label(counts, fail_on, label)
    assert (outcome.decision, outcome.exit_code) == (expected, code)
    assert outcome.accepted == (
        label
        and expected == Decision.PASS
        and code == 0
        and bool(counts.get("regression") or counts.get("inconclusive"))
    )


@pytest.mark.parametrize(
    ("counts", "extra", "fail_on", "expected", "code"),
    [
        ({"failed": 1, "unchanged": 2}, {"failed_in_head_only": 1}, "regression", Decision.FAIL, 1),
        ({"failed": 1, "unchanged": 2}, {"failed_in_head_only": 1}, "never", Decision.FAIL, 0),
        ({"failed": 1, "unchanged": 2}, {}, "regression", Decision.INCONCLUSIVE, 0),  # broken in base too
        ({"unchanged": 2}, {"only_in_base": 1}, "regression", Decision.FAIL, 1),
        ({"unchanged": 2}, {"only_in_base": 1}, "inconclusive", Decision.FAIL, 1),
        ({}, {"only_in_base": 3}, "regression", Decision.FAIL, 1),  # head ran none of them
        ({}, {"only_in_base": 3}, "never", Decision.FAIL, 0),
        ({"unchanged": 0}, {}, "regression", Decision.FAIL, 1),
        ({"unchanged": 0}, {}, "inconclusive", Decision.FAIL, 1),
    ],
)
def test_head_only_failures_and_missing_benchmarks(
    counts: dict[str, int], extra: dict[str, int], fail_on: str, expected: Decision, code: int
) -> None:
    """A head that crashes everywhere, or loses every benchmark, never turns the check green."""
    outcome = decision_with_fail_on_and_label(counts, fail_on, False, **extra)
    assert (outcome.decision, outcome.exit_code) == (expected, code)


def test_an_unknown_fail_on_is_refused_not_read_as_regression() -> None:
    """The action validates ``fail_on`` against FAIL_ON_CHOICES; a caller that passes anything
    else is a programming error, not a silent default."""
    assert FAIL_ON_CHOICES == ("regression", "inconclusive", "never")
    with pytest.raises(ValueError, match="fail_on 'inconclusiv'"):
        decision_with_fail_on_and_label({"inconclusive": 1}, "inconclusiv", False)


def test_fails_in_head_only_reads_the_benchmark_entry() -> None:
    broken = analyses.benchmark("b", "failed", n_failed_head=15, reason="exit status -11")
    both = analyses.benchmark("b", "failed", n_failed_base=3, n_failed_head=15)
    assert fails_in_head_only(broken)
    assert not fails_in_head_only(both)  # broken in base too: not the change's doing
    assert not fails_in_head_only(analyses.benchmark("b", "regression", change_pct=9.0))
    assert not fails_in_head_only({"verdict": "failed", "base": None, "head": "junk"})


# ---- one name per concept -----------------------------------------------------------------------


def _definitions() -> list[tuple[str, str, type[ast.AST]]]:
    found = []
    for path in sorted(GATE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef):
                found.append((node.name, str(path.relative_to(GATE.parent)), type(node)))
    return found


def test_decide_decision_and_verdict_name_no_function_outside_the_policy() -> None:
    """A function named ``decide``/``decision``/``verdict`` does not say what it returns; the names
    say it (``choose_isolation``, ``compare_one``, ``uoptime_verdict_and_change``,
    ``default_decision``)."""
    vague = [(name, where) for name, where, kind in _definitions() if kind is ast.FunctionDef]
    vague = [(n, w) for n, w in vague if n in ("decide", "decision", "verdict")]
    assert vague == []


def test_no_two_modules_define_a_class_of_one_name() -> None:
    """A class name means one thing in the package: ``Verdict`` is the benchmark verdict,
    ``Decision`` the gate's decision."""
    seen: dict[str, list[str]] = {}
    for name, where, kind in _definitions():
        if kind is ast.ClassDef:
            seen.setdefault(name, []).append(where)
    assert {n: w for n, w in seen.items() if len(w) > 1} == {}
