"""The gate's pass/fail/inconclusive policy, in one place.

Two layers, each one function:

* :func:`default_decision` — what the benchmark verdicts alone decide (``analyze`` writes it as
  ``summary.decision`` in analysis.json);
* :func:`decision_with_fail_on_and_label` — the decision ``publish`` reports: the default one,
  then the workflow's ``fail_on`` input and the PR's accept label on top (:class:`Outcome`, with
  the step's exit code).

:func:`fails_in_head_only` is the one reading of "the change broke this benchmark" that both
count. Benchmark verdicts themselves (:class:`gate.model.Verdict`) are made per benchmark in
:mod:`gate.analysis.compare`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from gate.model import Verdict

# The values of the action's ``fail_on`` input: what fails the check (exit code 1).
FAIL_ON_CHOICES: Final = ("regression", "inconclusive", "never")


class Decision(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"


def default_decision(
    counts: Mapping[str, int],
    *,
    failed_in_head_only: int = 0,
    only_in_base: int = 0,
    noisy_in_head: int = 0,
) -> Decision:
    """The default policy (``analyze``'s decision; ``publish`` adds fail_on and the accept label on
    top, :func:`decision_with_fail_on_and_label`).

    fail: a regression; a benchmark that ran cleanly in base and fails in head (a crash or timeout
    the change introduced is a finding, never a pass); a benchmark that ran in base but not in
    head (removed or renamed: the renamed copy's regression is compared with nothing); an
    inconclusive benchmark whose values head made far more spread than base's
    (:func:`noisy_in_head`: noise hides a regression as well as a rename does); or nothing
    compared at all (every benchmark failed in both versions, or none ran: a log from which
    nothing could be read says nothing about the change). Each of these can be deliberate (a
    rename, a benchmark made nondeterministic on purpose): the accept label is the way through,
    so a person with the right to label says so (docs/statistics.md, "How the gate decides").
    inconclusive: a benchmark could not be decided, or failed in both versions; else pass."""
    compared = sum(int(n or 0) for k, n in counts.items() if k != Verdict.FAILED)
    if (
        counts.get(Verdict.REGRESSION, 0)
        or failed_in_head_only
        or only_in_base
        or noisy_in_head
        or not compared
    ):
        return Decision.FAIL
    if counts.get(Verdict.INCONCLUSIVE, 0) or counts.get(Verdict.FAILED, 0):
        return Decision.INCONCLUSIVE
    return Decision.PASS


def noisy_in_head(benchmark: Mapping[str, Any]) -> bool:
    """An ``inconclusive`` benchmark whose head values are far more spread than base's
    (:func:`gate.stats.spread.head_noisier`, over the trials the samples name), read from an
    analysis.json entry's samples, so ``analyze`` counts it and ``publish`` re-derives the count
    from the values themselves. Samples without ``trial`` come from a gate before the test over
    trials, and keep the decision that gate made (:func:`gate.stats.spread.value_level_noisier`)."""
    if benchmark.get("verdict") != Verdict.INCONCLUSIVE:
        return False
    samples = benchmark.get("samples")
    if not isinstance(samples, Mapping):
        return False
    # numpy only here: the fork guard imports this module in a venv without the analysis stack
    from gate.stats.spread import head_noisier, value_level_noisier

    try:
        base, head = samples["base"], samples["head"]
        if "trial" not in base or "trial" not in head:
            return value_level_noisier(base["value"], head["value"])
        return head_noisier(
            base["value"],
            head["value"],
            base["trial"],
            head["trial"],
            base.get("suite_run"),
            head.get("suite_run"),
        ).noisier
    except (KeyError, TypeError, ValueError):
        return False


def fails_in_head_only(benchmark: Mapping[str, Any]) -> bool:
    """A ``failed`` benchmark whose base trials all ran and gave values, while head's failed or
    gave none: the change broke it (not a benchmark that is broken in both versions). Read from an
    analysis.json entry, so ``analyze`` counts it and ``publish`` re-derives the count."""
    if benchmark.get("verdict") != Verdict.FAILED:
        return False
    base, head = benchmark.get("base"), benchmark.get("head")
    base = base if isinstance(base, Mapping) else {}
    head = head if isinstance(head, Mapping) else {}
    return (
        not base.get("n_failed") and bool(base.get("n")) and (bool(head.get("n_failed")) or not head.get("n"))
    )


@dataclass(frozen=True)
class Outcome:
    """The decision ``publish`` reports, and why: whether the accept label turned a failing
    decision into a pass, and the exit code of the step."""

    decision: Decision
    accepted: bool
    exit_code: int
    counts: dict[str, int] = field(default_factory=dict)
    failed_in_head_only: int = 0  # benchmarks that ran in base and fail in head
    only_in_base: int = 0  # benchmarks that ran in base but not in head: not compared
    noisy_in_head: int = 0  # inconclusive benchmarks whose head values are far more spread


def decision_with_fail_on_and_label(
    counts: dict[str, int],
    fail_on: str,
    accepted_label: bool,
    *,
    failed_in_head_only: int = 0,
    only_in_base: int = 0,
    noisy_in_head: int = 0,
) -> Outcome:
    """The final decision: the default policy (:func:`default_decision`), then ``fail_on``
    (``inconclusive`` also fails what the policy leaves inconclusive; ``never`` keeps the exit code
    0) and the accept label (turns a fail into pass with an "accepted" note)."""
    if fail_on not in FAIL_ON_CHOICES:
        raise ValueError(f"fail_on {fail_on!r} is not one of {', '.join(FAIL_ON_CHOICES)}")
    extra = {
        "failed_in_head_only": failed_in_head_only,
        "only_in_base": only_in_base,
        "noisy_in_head": noisy_in_head,
    }
    default = default_decision(counts, **extra)
    failing = default is Decision.FAIL or (fail_on == "inconclusive" and default is Decision.INCONCLUSIVE)
    if failing and accepted_label:
        return Outcome(Decision.PASS, True, 0, counts, **extra)
    if failing:
        return Outcome(Decision.FAIL, False, 0 if fail_on == "never" else 1, counts, **extra)
    return Outcome(default, False, 0, counts, **extra)
