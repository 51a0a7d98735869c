"""The PR comment's first screen: one line per finding.

A reviewer reads the decision, the table and one line per finding; the detail of each benchmark
is in the job summary and the HTML report, and the detail of each warning behind a
``<details>`` of the comment itself. So:

* :func:`note_lines` groups the inconclusive and failed benchmarks whose one next step
  (gate/render/advice.py) is the same into one line naming them: six benchmarks whose step is
  "raise [full].iterations …" take one line, not six. Benchmarks whose steps differ keep a line
  each. Steps that differ only in how many values they need (``NextStep.kind``) merge and give
  the range ("about 18–30 values per version would resolve them").
* :func:`warning_kinds` gives each warning category one visible line: its title, how many
  warnings, the benchmarks they name and what the category means; the warnings themselves and
  their actions follow in a ``<details>`` block.

Lines hold plain text (escaped by the template) and the benchmark names as given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gate.render import advice

# The change and its CI inside a verdict's reason ("the 99% CI of the change [-0.9%, +5.2%] is too
# wide …", "the change (-25.4%) is beyond ±3% …", gate/analysis/compare.py): the comment's table
# shows both beside the line, so the line leaves them out and the lines of benchmarks that differ
# only by them read the same.
_NUMBERS_IN_REASON = re.compile(r" \[[-+±]?[\d.,]+%, [-+±]?[\d.,]+%\]|(?<=the change) \([-+±]?[\d.,]+%\)")


@dataclass
class NoteLine:
    icon: str
    verdict: str
    names: list[str] = field(default_factory=list)  # at most max_names, as the table shows them
    more_names: int = 0  # benchmarks of the line not named on it
    why: str | None = None  # what happened, when every benchmark of the line has the same
    step_text: str | None = None  # the one next step, when there is one
    step_code: str | None = None


def comment_why(why: str) -> str:
    """What happened, without the change and its CI, which the table shows beside it."""
    return _NUMBERS_IN_REASON.sub("", why)


def note_lines(rows: Sequence[Any], max_lines: int, max_names: int) -> tuple[list[NoteLine], int]:
    """(lines, benchmarks left out): ``rows`` (view rows with ``verdict``, ``icon``,
    ``short_name``, ``why``, ``next_step``, ``samples_needed``) grouped by verdict and next step,
    in the order they come; a row without a step is grouped only with rows of the same reason.
    At most ``max_lines`` lines; the benchmarks of the lines left out are counted."""
    groups: dict[tuple[object, ...], list[Any]] = {}
    for r in rows:
        step = r["next_step"]
        why = comment_why(r["why"])
        if step is None:
            key: tuple[object, ...] = (r["verdict"], None, why)
        elif step.kind:
            key = (r["verdict"], step.kind)
        else:
            key = (r["verdict"], step.text, step.code)
        groups.setdefault(key, []).append(r)
    lines = []
    for members in groups.values():
        first = members[0]
        whys = {comment_why(m["why"]) for m in members}
        step = first["next_step"]
        line = NoteLine(
            icon=first["icon"],
            verdict=first["verdict"],
            names=[m["short_name"] for m in members[:max_names]],
            more_names=max(len(members) - max_names, 0),
            why=whys.pop() if len(whys) == 1 else None,
        )
        if step is not None:
            line.step_text, line.step_code = step.text, step.code
            if len(members) > 1:
                line.step_text = (
                    advice.shared_step_text(step.kind, [m["samples_needed"] for m in members])
                    if step.kind
                    else step.for_many()
                )
        lines.append((line, len(members)))
    shown = lines[:max_lines]
    return [line for line, _ in shown], sum(n for _, n in lines[max_lines:])


@dataclass
class WarningKind:
    title: str
    meaning: str
    n: int  # warnings of this kind
    names: list[str]  # the benchmarks they name (at most max_names)
    more_names: int


def warning_kinds(groups: Sequence[Mapping[str, Any]], max_names: int) -> list[WarningKind]:
    """One line per warning category (view.collect_warnings' groups)."""
    out = []
    for g in groups:
        names = list(dict.fromkeys(e["benchmark"] for e in g["entries"] if e["benchmark"] is not None))
        out.append(
            WarningKind(
                title=g["title"],
                meaning=g["meaning"],
                n=g["n"],
                names=names[:max_names],
                more_names=max(len(names) - max_names, 0),
            )
        )
    return out
