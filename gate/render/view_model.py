"""The types of the view model the templates receive (gate/render/view.py builds it), so mypy
checks every key a template reads: :class:`RowData` for a benchmark's row, :class:`View` for the
whole report. The keys marked ``NotRequired`` are added by gate/render/render.py for one format."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from gate.files.analysis_model import OrderEffect
from gate.render.advice import NextStep
from gate.render.followup import UnresolvedWords


class PredecessorRow(TypedDict):
    predecessor: str | None
    effect_pct: float | None
    p_adj: float | None
    significant: bool | None


class WarningRow(TypedDict):
    code: str
    message: str
    action: str


class RowData(TypedDict):
    index: int
    anchor: str
    number: int
    name: str
    verdict: str
    icon: str
    attention: bool
    reason: str
    bootstrap: str | None
    bootstrap_reason: str
    unit: str
    higher_is_better: bool
    change_pct: float | None
    abs_change: float
    change_ci: list[float] | None
    base_est: float | None
    base_ci: list[float] | None
    base_n: int
    base_failed: int
    head_est: float | None
    head_ci: list[float] | None
    head_n: int
    head_failed: int
    cv_base: float | None
    cv_head: float | None
    rciw_base: float | None
    rciw_head: float | None
    config: str
    minimal: bool
    never_stable: bool
    order: OrderEffect | None
    order_significant: bool
    predecessors: list[PredecessorRow]
    carryover_note: str
    exclusion_note: str | None
    position_p: float | None
    position_significant: bool
    dissimilar: list[str]
    warnings: list[WarningRow]
    n_warnings: int
    n_label: str
    samples_needed: int | None
    why: str
    followup_resolved: str | None
    followup_unresolved: UnresolvedWords | None  # set by view.build: its words need the budget
    next_step: NextStep | None  # set by view.build, from the follow-up words


class View(TypedDict):
    decision: str
    decision_icon: str
    headline: str
    accepted: bool
    accepted_what: str
    accept_label: str
    run_url: str | None
    report_url: str | None
    summary_url: str | None
    rerun_hint: str | None
    local: bool
    base: str
    head: str
    n_benchmarks: int
    not_compared: int
    counts: list[dict[str, Any]]
    rows: list[Any]  # Row (attribute and item access to a RowData)
    attention: list[Any]
    unchanged: list[Any]
    notes: list[Any]
    warning_groups: list[dict[str, Any]]
    time: dict[str, Any] | None
    shards: dict[str, Any] | None
    confidence: str
    threshold_pct: float
    statistic: str
    statistic_name: str
    settings: dict[str, str]
    order_tests: list[dict[str, Any]]
    n_order_significant: int
    order_matters: bool
    tool_version: str
    created_at: str
    environment: dict[str, str]
    adaptive: dict[str, Any] | None
    budget_hint: int
    budget_estimate: dict[str, Any] | None
    n_minimal: int
    n_never_stable: int
    config_note: str
    carryover_taken_out: str | None
    # added by gate/render/render.py
    notes_comment: NotRequired[list[Any]]
    notes_more: NotRequired[int]
    note_lines: NotRequired[list[Any]]  # gate.render.comment_lines.NoteLine
    note_lines_more: NotRequired[int]
    warning_kinds: NotRequired[list[Any]]  # gate.render.comment_lines.WarningKind
    n_warnings: NotRequired[int]
    notes_summary: NotRequired[list[Any]]
    notes_summary_more: NotRequired[int]


class Row:
    """A view-model record whose fields are attributes *and* items (``r.name``, ``r["name"]``).

    Jinja resolves ``r.name`` with ``getattr`` first and falls back to ``r["name"]`` through a
    caught AttributeError; for 5,000 rows × a dozen fields that exception path was a large share
    of the report's time. The record's dict *is* the instance ``__dict__`` (no copy)."""

    def __init__(self, data: RowData | dict[str, Any]) -> None:
        self.__dict__ = data  # type: ignore[assignment]  # a TypedDict is a dict at run time

    def __getitem__(self, key: str) -> Any:
        return self.__dict__[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.__dict__[key] = value

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__

    def get(self, key: str, default: Any = None) -> Any:
        return self.__dict__.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
