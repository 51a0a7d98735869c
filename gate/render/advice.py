"""The one next step the reports give for a benchmark that is inconclusive or failed.

A verdict's reason (gate/analysis/compare.py) says what happened and what to do in general; the
follow-up rounds (gate/render/followup.py) say why they left it unresolved and what budget would
resolve it; the warnings say what disturbed it. Shown side by side these gave up to three pieces
of advice for one benchmark, some contradicting each other ("raise [full].iterations" beside "more
values will not resolve it"). :func:`next_step` chooses one, the cheapest that would resolve it:

0. a verdict not for lack of values (no ``samples_needed``: no CI could be computed) whose
   reason gives its own fix: that fix — the reason says what went wrong;
1. head's values far more spread than base's (:data:`NOISY_HEAD_CODE`), which fails the gate:
   that warning's action, since "more values would resolve it" would not say why the gate failed;
   then an order effect or a drift with the position in the run (:data:`BIAS_CODES`): more
   values of a biased measurement keep the bias, so that warning's own action;
2. more values than one run may collect (``MAX_VALUES``): quieter values or a larger threshold;
3. a budget the follow-up rounds computed (their ``suggest``): the measured cost of more values;
4. more values, when the analysis says how many (``samples_needed``): the reports' "More values?"
   line says how to get them (a budget measures only those benchmarks again);
5. otherwise the fix of the reason itself (after its " — "), if it has one.

``NextStep.more_values`` is what the footer counts, so its count and the lines agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.model import MAX_VALUES
from gate.render.filters import FIX_SEPARATOR
from gate.render.followup import UnresolvedWords
from gate.warning_codes import WarningCode

# The warnings that say the values are biased by when a benchmark ran (gate/analysis/entries.py,
# gate/analysis/carryover.py): more values of a biased measurement keep the bias.
BIAS_CODES = frozenset({WarningCode.ORDER_EFFECT.value, WarningCode.POSITION_DRIFT.value})
# An inconclusive benchmark whose head values are far more spread than base's fails the gate
# (gate/decision.py ``noisy_in_head``; the warning, gate/analysis/entries.py)
NOISY_HEAD_CODE = WarningCode.NOISY_HEAD.value


@dataclass(frozen=True)
class NextStep:
    text: str  # plain text (escaped by the template)
    code: str | None = None  # a command-line option, shown as code after the text
    more_values: bool = False  # more values of this benchmark would resolve it
    # steps that differ only in how many values they need ("more values" without a priced budget,
    # "more values than one run may collect") share a kind: the comment gives them one line
    kind: str = ""
    # the text on a line naming several benchmarks with this step (gate/render/comment_lines.py);
    # empty: ``text`` fits one and many alike
    text_many: str = ""

    def for_many(self) -> str:
        return self.text_many or self.text


MORE_VALUES = "more values"
TOO_MANY_VALUES = "too many values"


def _counts(needed: Sequence[int | None]) -> str:
    known = sorted({n for n in needed if n is not None})
    if not known:
        return ""
    return f"{known[0]:,}" if len(known) == 1 else f"{known[0]:,}–{known[-1]:,}"


def shared_step_text(kind: str, needed: Sequence[int | None]) -> str:
    """The step of several benchmarks of one ``kind``, with the range of values they need."""
    counts = _counts(needed)
    if kind == TOO_MANY_VALUES:
        return (
            f"they need about {counts} values per version, more than one run may collect "
            f"({MAX_VALUES:,}): reduce the noise, or give them a larger [[benchmark]] threshold_pct"
        )
    return (
        f"about {counts} values per version would resolve them"
        if counts
        else "more values would resolve them"
    )


# compare's "; about N values per version (now a/b) would resolve a 3% change at this noise":
# the next step says what more values would cost, so the short form leaves the count out
_VALUES_NEEDED = re.compile(r"; about [\d,]+ values per version \(now \d+/\d+\) would resolve [^;]*$")


def split_reason(reason: str) -> tuple[str, str]:
    """(what happened, the reason's own fix): compare writes "what happened — what to do"."""
    message, sep, fix = reason.rpartition(FIX_SEPARATOR)
    return (message, fix) if sep else (reason, "")


def short_why(reason: str) -> str:
    """What happened, without the reason's fix and without the values-needed clause."""
    return _VALUES_NEEDED.sub("", split_reason(reason)[0])


def _bias_action(warnings: Sequence[Mapping[str, Any]]) -> str | None:
    for w in warnings:
        if str(w["code"]) in BIAS_CODES and w["action"]:
            return str(w["action"])
    return None


def _action_of(warnings: Sequence[Mapping[str, Any]], code: str) -> str | None:
    return next((str(w["action"]) for w in warnings if str(w["code"]) == code and w["action"]), None)


def next_step(
    verdict: str,
    reason: str,
    samples_needed: int | None,
    warnings: Sequence[Mapping[str, Any]],
    unresolved: UnresolvedWords | None,
) -> NextStep | None:
    """The one action to show for a benchmark (module doc); None for a decided verdict."""
    if verdict == "failed":
        fix = split_reason(reason)[1]
        return NextStep(fix) if fix else None
    if verdict != "inconclusive":
        return None
    own_fix = split_reason(reason)[1]
    if samples_needed is None and own_fix and (unresolved is None or not unresolved["suggest"]):
        # not for lack of values (no CI could be computed, values cannot be compared): the
        # reason names its own cause, so its fix, not an order effect the warnings also show
        return NextStep(own_fix)
    noisy_head = _action_of(warnings, NOISY_HEAD_CODE)
    if noisy_head is not None:
        # what fails the gate (gate/decision.py noisy_in_head): "more values would resolve it"
        # beside a failed gate reads as if the failure were only a lack of values
        return NextStep(
            f"its values in head are far more spread than in base, which fails the gate: {noisy_head}",
            text_many=f"their values in head are far more spread than in base, which fails the gate: {noisy_head}",
        )
    bias = _bias_action(warnings)
    if bias is not None:
        return NextStep(
            f"its values depend on when it ran, which more values do not remove: {bias}",
            text_many=f"their values depend on when they ran, which more values do not remove: {bias}",
        )
    if samples_needed is not None and samples_needed > MAX_VALUES:
        return NextStep(
            f"it needs about {samples_needed:,} values per version, more than one run may collect "
            f"({MAX_VALUES:,}): reduce the noise, or give it a larger [[benchmark]] threshold_pct",
            kind=TOO_MANY_VALUES,
        )
    if unresolved is not None and unresolved["suggest"]:
        more = unresolved["more"] or "more values would resolve it"
        if samples_needed is not None:
            more = f"{more} (about {samples_needed:,} values per version)"
        return NextStep(
            more,
            str(unresolved["suggest"]),
            True,
            text_many=more.replace("would resolve it", "would resolve them"),
        )
    if samples_needed is not None:
        return NextStep(
            f"about {samples_needed:,} values per version would resolve it", None, True, MORE_VALUES
        )
    fix = split_reason(reason)[1]
    return NextStep(fix) if fix else None
