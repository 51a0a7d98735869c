"""``render(analysis, fmt, context)``: analysis.json → PR comment, job summary or HTML report.

Templates render, Python computes (ARCHITECTURE habit 10): :mod:`gate.render.view` builds the
view model, :mod:`gate.render.filters` formats and escapes, and the GitHub limits and the hidden
comment marker are enforced *after* rendering, here, by dropping whole table rows (never half a
table) and pointing to where the full table lives.

Overriding a template block: pass ``RenderContext(template_dir=DIR)`` (CLI: ``--template-dir``).
A file ``DIR/comment.md.j2`` replaces the built-in one; it can start with
``{% extends "builtin/comment.md.j2" %}`` and redefine only the blocks it wants.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jinja2
from markupsafe import Markup

from gate.bidi import show_bidi
from gate.errors import InputError
from gate.files import analysis_json
from gate.files.analysis_json import Analysis, Benchmark
from gate.files.analysis_model import BenchmarkDetails, CarryoverMatrix, CheckedAnalysis, run_config
from gate.files.calibration_json import Calibration
from gate.render import comment_lines, filters, view
from gate.render.names import column as names_column
from gate.render.view_model import View

COMMENT_MARKER = "<!-- ordertrap-gate:comment -->"
COMMENT_LIMIT = 65536  # characters: GitHub rejects longer issue/PR comment bodies
SUMMARY_LIMIT = 1024 * 1024  # bytes: GitHub's per-step job summary limit (GITHUB_STEP_SUMMARY)
MAX_PLOTS = 100  # benchmark figures in the HTML report (attention first); the table lists all
MAX_HEATMAP = 40  # rows and columns of the carry-over heatmap (largest effects kept)
CARRYOVER_ALPHA = 0.05  # gate.analysis.carryover.analyze_carryover's family-wise level
MAX_ORDER_TESTS = 40  # benchmarks in the fixed-vs-random figure (significant first)
COMMENT_MAX_NOTES = 10  # lines of inconclusive/failed benchmarks (one per next step)
COMMENT_MAX_WARNINGS = 8  # lines per category (warnings with the same action share a line)
COMMENT_MAX_NAMES = 6  # benchmarks named on one warning or note line
COMMENT_KIND_NAMES = 3  # benchmarks named on a warning category's visible line
# The job summary lists every note and warning while there are few; with many, the table (all
# benchmarks) comes first: notes are capped and a category's warnings become one line per action.
SUMMARY_MAX_NOTES = 100
SUMMARY_MAX_WARNINGS = 20  # lines per category; a category with more warnings is grouped by action
SUMMARY_MAX_NAMES = 10  # benchmarks named on one grouped warning line
# (notes, warning lines per category, names per line) when even so not every row fits
SUMMARY_TIGHT = (10, 3, 3)
FIT_STEPS = 8  # renders to find how many rows fit (after all rows and none)
MIN_ROW_CHARS = 60  # a table row is never shorter (pipes, icon, numbers); bounds the first render
NAME_WIDTH_COMMENT = 80
NAME_WIDTH_SUMMARY = 200
NAME_WIDTH_HTML = 44  # characters of the HTML table's name column (the full name is its tooltip)

TEMPLATE_DIR = Path(__file__).parent / "templates"
Format = Literal["comment", "summary", "html"]
TEMPLATES: dict[str, str] = {"comment": "comment.md.j2", "summary": "summary.md.j2", "html": "report.html.j2"}


@dataclass(frozen=True)
class RenderContext:
    decision: str | None = None  # override analysis summary.decision (publish applies fail_on / accept label)
    accepted: bool = False  # an accept label turned a fail into a pass → show an "accepted" note
    accept_label: str = "perf-regression-accepted"
    run_url: str | None = None  # link to the workflow run
    report_url: str | None = None  # link to the HTML report (artifact)
    summary_url: str | None = None  # where the full table lives when the comment is truncated
    rerun_hint: str | None = None  # how to rerun (e.g. "re-run the workflow" or a command)
    # Rendered outside GitHub Actions (``report`` on a laptop): there is no workflow to re-run and
    # no job summary, so the text points to the commands that show the rest instead.
    local: bool = False
    calibration: Calibration | None = None  # for the instability-vs-cost view
    template_dir: str | None = None  # user templates that may {% extends "builtin/<name>" %}
    max_plots: int = MAX_PLOTS  # benchmark figures drawn in the HTML report


# ---- environments ------------------------------------------------------------------------------------


def _html_finalize(value: Any) -> Any:
    """Every ``{{ … }}`` in the HTML report shows bidirectional controls visibly (gate.bidi)
    before autoescape; markup built by a filter (``code``) did so itself."""
    return show_bidi(value) if type(value) is str else value


def _md_finalize(value: Any) -> Any:
    """Every ``{{ … }}`` in a Markdown template is escaped unless a filter marked it trusted."""
    if type(value) is filters.Trusted or isinstance(value, Markup):  # Markup: Jinja's |safe
        return value
    return filters.md_escape(value)


@functools.lru_cache(maxsize=8)
def _environments(template_dir: str | None) -> tuple[jinja2.Environment, jinja2.Environment]:
    builtin = jinja2.FileSystemLoader(str(TEMPLATE_DIR))
    loaders: list[jinja2.BaseLoader] = []
    if template_dir:
        loaders.append(jinja2.FileSystemLoader(template_dir))
    loaders += [builtin, jinja2.PrefixLoader({"builtin": builtin})]
    loader = jinja2.ChoiceLoader(loaders)
    common: dict[str, Any] = {
        "loader": loader,
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
    }
    md = jinja2.Environment(autoescape=False, finalize=_md_finalize, **common)
    md.filters.update(filters.make_filters("md"))
    html_env = jinja2.Environment(autoescape=True, finalize=_html_finalize, **common)
    html_env.filters.update(filters.make_filters("html"))
    return md, html_env


def _template(fmt: str, template_dir: str | None) -> jinja2.Template:
    md, html_env = _environments(template_dir)
    env = html_env if fmt == "html" else md
    try:
        return env.get_template(TEMPLATES[fmt])
    except jinja2.TemplateError as exc:
        raise InputError(
            f"template {TEMPLATES[fmt]} cannot be loaded: {exc}",
            "fix the template in --template-dir (start it with "
            f'{{% extends "builtin/{TEMPLATES[fmt]}" %}} and override blocks), or drop --template-dir',
        ) from None


def _render(template: jinja2.Template, **ctx: Any) -> str:
    try:
        return template.render(**ctx)
    except jinja2.UndefinedError as exc:
        raise InputError(
            f"template {template.name} uses an undefined value: {exc}",
            "use only the view-model fields of the built-in templates (see gate/render/view.py)",
        ) from None


def render_markdown(name: str, **ctx: Any) -> str:
    """A built-in Markdown template other than the report formats (the calibration diff):
    the same environment, filters and escaping as the PR comment."""
    md, _ = _environments(None)
    return _render(md.get_template(name), **ctx)


# ---- limits ------------------------------------------------------------------------------------------


def _fit_rows(render_rows: Any, total: int, size: Any, limit: int, start: int) -> tuple[str, int]:
    """Largest row count k (≤ total) whose rendering fits ``limit``: render all rows and none,
    then interpolate between the largest count known to fit and the smallest known not to
    (a few renders: the size grows about linearly with the rows). ``start`` is an upper bound
    (limit / smallest possible row): more rows than that cannot fit."""
    if start < total:  # rows have a minimum size: rendering more than ``start`` cannot fit
        text = render_rows(start)
        if size(text) > limit:
            return _fit_rows(render_rows, start, size, limit, start)
        return text, start
    text = render_rows(total)
    if size(text) <= limit:
        return text, total
    empty = render_rows(0)
    if size(empty) > limit:
        return empty, 0
    lo, lo_text, lo_size = 0, empty, size(empty)
    hi, hi_size = total, size(text)
    for _ in range(FIT_STEPS):
        if hi - lo <= 1:
            break
        per_row = max((hi_size - lo_size) / (hi - lo), 1.0)
        k = max(lo + 1, min(lo + int((limit - lo_size) / per_row), hi - 1))
        text = render_rows(k)
        if size(text) <= limit:
            lo, lo_text, lo_size = k, text, size(text)
        else:
            hi, hi_size = k, size(text)
    return lo_text, lo


def _hard_cut(text: str, limit: int, size: Any, note: str) -> str:
    """Last resort when even zero rows do not fit (e.g. thousands of warnings): cut at a line."""
    if size(text) <= limit:
        return text
    budget = limit - size(note) - 2
    cut = text
    while size(cut) > budget:
        cut = cut[: max(len(cut) - max((size(cut) - budget), 64), 0)]
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else cut
    return cut + "\n" + note


def _chars(s: str) -> int:
    """Length as GitHub may count it: UTF-16 code units (an emoji counts 2), which is never less
    than Python's code-point count, so the comment fits whichever way the limit is counted."""
    return len(s.encode("utf-16-le")) // 2


def _bytes(s: str) -> int:
    return len(s.encode("utf-8"))


# ---- formats -----------------------------------------------------------------------------------------


def _render_comment(v: View, template: jinja2.Template) -> str:
    attention, unchanged = v["attention"], v["unchanged"]
    total = len(attention) + len(unchanged)

    def rows(k: int) -> str:
        shown_att = attention[:k]
        shown_unch = unchanged[: max(k - len(attention), 0)]
        return _render(
            template,
            v=v,
            marker=Markup(COMMENT_MARKER),
            shown_attention=shown_att,
            shown_unchanged=shown_unch,
            n_hidden=total - len(shown_att) - len(shown_unch),
            n_hidden_unchanged=len(unchanged) - len(shown_unch),
        )

    text, _ = _fit_rows(rows, total, _chars, COMMENT_LIMIT, COMMENT_LIMIT // MIN_ROW_CHARS)
    where = v["summary_url"] or (
        "ordertrap-gate report --format summary" if v["local"] else "the job summary of this workflow run"
    )
    text = _hard_cut(
        text, COMMENT_LIMIT, _chars, f"… (cut at GitHub's comment limit; see {filters.md_escape(where)})\n"
    )
    # The marker must open the body: publish finds its comment by it, and a benchmark name may
    # contain the marker text literally (inside a code span), so "in text" is not enough.
    if not text.startswith(COMMENT_MARKER):
        text = COMMENT_MARKER + "\n" + text
        text = _hard_cut(text, COMMENT_LIMIT, _chars, "…\n")
    return text


# Table order of the summary, which is also the order rows are kept in when not all fit: what
# needs attention first (as in the comment and the analysis contract), unchanged last.
SUMMARY_ROW_ORDER = {verdict: i for i, verdict in enumerate((*view.ATTENTION, "unchanged"))}


def _summary_rank(row: view.Row) -> int:
    return SUMMARY_ROW_ORDER.get(row["verdict"], len(SUMMARY_ROW_ORDER))


def _summary_extras(v: View, max_notes: int, max_lines: int, max_names: int) -> None:
    """What the summary shows below the table: at most ``max_notes`` "why" notes, and per
    warning category every warning if it has at most ``max_lines``, else its warnings grouped
    by action (one line naming ``max_names`` benchmarks and how many warnings it stands for),
    at most ``max_lines`` of them; the rest are counted ("… and N more")."""
    notes = sorted(v["notes"], key=_summary_rank)  # the table's order
    v["notes_summary"] = notes[:max_notes]
    v["notes_summary_more"] = len(notes) - len(v["notes_summary"])
    if v["adaptive"]:
        followed = sorted(v["adaptive"]["followed"], key=_summary_rank)
        v["adaptive"]["followed_summary"] = followed[:max_notes]
        v["adaptive"]["followed_summary_more"] = len(followed) - max_notes if len(followed) > max_notes else 0
    for g in v["warning_groups"]:
        if g["n"] <= max_lines:
            # every warning on a line of its own; an action shared by several is written once,
            # above the lines it applies to ("members")
            lines = []
            for a in g["by_action"]:
                first = a["items"][0]
                lines.append(
                    {
                        "names": [] if first["benchmark"] is None else [first["benchmark"]],
                        "more_names": 0,
                        "message": first["message"],
                        "action": a["action"],
                        "n": len(a["items"]),
                        "members": a["items"] if len(a["items"]) > 1 else None,
                    }
                )
            g["summary_name_width"] = NAME_WIDTH_SUMMARY
        else:
            lines = _compact_warnings(g["entries"], max_names)
            g["summary_name_width"] = NAME_WIDTH_COMMENT
        g["shown_summary"] = lines[:max_lines]
        g["more_summary"] = sum(c["n"] for c in lines[max_lines:])


def _count_verdicts(rows: list[view.Row]) -> list[dict[str, Any]]:
    """'1200 unchanged, 34 improvements' as [{n, label}], most important verdict first."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    out = []
    for verdict in sorted(counts, key=lambda x: SUMMARY_ROW_ORDER.get(x, len(SUMMARY_ROW_ORDER))):
        n = counts[verdict]
        singular, plural = view.COUNT_LABEL.get(verdict, (verdict, verdict))
        out.append({"n": n, "label": singular if n == 1 else plural})
    return out


def _render_summary(v: View, template: jinja2.Template) -> str:
    """The complete table within GitHub's 1 MiB. The rows have priority: first every note and
    warning is shown (capped: SUMMARY_MAX_*); if then not every row fits, the notes and warnings
    shrink to SUMMARY_TIGHT; only then are rows dropped, least important last in the table
    (unchanged first, regressions last), and a line says how many of which verdict are missing."""
    all_rows = sorted(v["rows"], key=_summary_rank)
    max_rows = SUMMARY_LIMIT // MIN_ROW_CHARS

    def rows(k: int) -> str:
        hidden = all_rows[k:]
        return _render(
            template,
            v=v,
            shown_rows=all_rows[:k],
            n_hidden=len(hidden),
            hidden_counts=_count_verdicts(hidden),
        )

    if len(all_rows) <= max_rows:  # more rows than that never fit, whatever else is left out
        _summary_extras(v, SUMMARY_MAX_NOTES, SUMMARY_MAX_WARNINGS, SUMMARY_MAX_NAMES)
        text = rows(len(all_rows))
        if _bytes(text) <= SUMMARY_LIMIT:
            return text
    _summary_extras(v, *SUMMARY_TIGHT)
    text, _ = _fit_rows(rows, len(all_rows), _bytes, SUMMARY_LIMIT, max_rows)
    return _hard_cut(
        text, SUMMARY_LIMIT, _bytes, "… (cut at GitHub's 1 MiB job summary limit; see the HTML report)\n"
    )


def _significance(
    benchmarks: Sequence[Benchmark], details: Sequence[BenchmarkDetails]
) -> dict[tuple[str, str], bool]:
    """{(benchmark, predecessor): significant} from the per-benchmark carry-over results; a pair
    the analysis does not list is unknown (left out)."""
    out: dict[tuple[str, str], bool] = {}
    for b, d in zip(benchmarks, details, strict=True):
        for p in d.carryover.predecessors:
            if p.predecessor is None:
                continue
            key = (b["benchmark"], p.predecessor)
            if p.significant is not None:
                out[key] = p.significant
            elif p.p_adj_written:  # an older file: the level analyze_carryover tests at
                out[key] = p.p_adj is not None and p.p_adj < CARRYOVER_ALPHA
    return out


def _pick_heatmap(
    matrix: CarryoverMatrix | None, significance: Mapping[tuple[str, str], bool], threshold_pct: float
) -> dict[str, Any] | None:
    if matrix is None:
        return None
    # one row per benchmark, one cell (a number or null) per predecessor: gate/files/analysis_json.py
    names, preds, effects = matrix["benchmarks"], matrix["predecessors"], matrix["effect_pct"]
    if not names or not preds:
        return None

    def mag(v: float | None) -> float:
        return 0.0 if v is None else abs(v)

    row_idx = sorted(range(len(names)), key=lambda i: -max((mag(v) for v in effects[i]), default=0.0))[
        :MAX_HEATMAP
    ]
    row_idx.sort()
    col_idx = sorted(
        range(len(preds)), key=lambda j: -max((mag(effects[i][j]) for i in row_idx), default=0.0)
    )[:MAX_HEATMAP]
    col_idx.sort()
    sub = [[effects[i][j] for j in col_idx] for i in row_idx]
    from gate.render import plots

    sig = [[significance.get((names[i], preds[j])) for j in col_idx] for i in row_idx]
    threshold = threshold_pct
    image = plots.carryover_heatmap(sub, sig, threshold)
    if image is None:
        return None
    cells: list[dict[str, Any]] = []
    for a, i in enumerate(row_idx):
        for b, j in enumerate(col_idx):
            val = sub[a][b]
            if val is not None and val != 0:
                cells.append(
                    {"benchmark": names[i], "predecessor": preds[j], "effect_pct": val, "mag": abs(val)}
                )
    cells.sort(key=lambda c: -c["mag"])
    return {
        "image": image,
        "rows": [{"label": f"B{a + 1}", "name": names[i]} for a, i in enumerate(row_idx)],
        "cols": [{"label": f"P{b + 1}", "name": preds[j]} for b, j in enumerate(col_idx)],
        "n_rows_total": len(names),
        "n_cols_total": len(preds),
        "strongest": cells[:10],
        "scale_pct": plots.heatmap_limit(sub, threshold),
        "n_significant": sum(bool(x) for row in sig for x in row),
        "n_tested": sum(x is not None for row in sig for x in row),
        "threshold_pct": threshold,
    }


def _calibration_view(calibration: Calibration | None) -> dict[str, Any] | None:
    """Instability against cost. calibration.json (gate/files/calibration_json.py) stores, per benchmark, the
    chosen configuration's instability and cost plus ``full_instability`` and
    ``n_measurements``; the full configuration's cost follows as cost × |full| / n_measurements
    (cost is n_measurements × the mean duration). Each benchmark is drawn as the segment from its
    chosen to its full configuration; a per-configuration ``curve`` list is drawn when present."""
    if calibration is None:
        return None
    full_count = float(math.prod(calibration.full.values()))
    points = []
    kind = "none"
    for name, entry in calibration.benchmarks.items():
        cost, instab = entry.cost, entry.instability
        curve = list(entry.curve)
        if curve:
            kind = "curve"
        else:
            n_meas, full_instab = entry.n_measurements, entry.full_instability
            if (
                cost is not None
                and instab is not None
                and n_meas
                and full_instab is not None
                and full_count > 0
            ):
                curve = [
                    {"cost": cost, "instability": instab},
                    {"cost": cost * full_count / n_meas, "instability": full_instab},
                ]
                kind = "curve" if kind == "curve" else "full"
        points.append(
            {
                "name": str(name),
                "cost": cost,
                "instability": instab,
                "stable": entry.stable,
                # a never-stable benchmark keeps the full configuration (µOpTime §5): not "minimal"
                "config": view.config_label(
                    run_config(
                        {
                            "source": "full" if entry.never_stable else "calibration",
                            "never_stable": entry.never_stable,
                            **entry.config,
                        },
                        f"calibration point {name}",
                    )
                ),
                "curve": curve,
            }
        )
    from gate.render import plots

    threshold = calibration.threshold or None
    image = plots.calibration_figure(points, threshold)
    summary = calibration.summary
    return {
        "image": image,
        "points": points,
        "curve_kind": kind,
        "metric": calibration.metric or "instability",
        "threshold": threshold,
        "saved_pct": summary.get("saved_pct"),
        "cost_unit": str(summary.get("cost_unit") or ""),
    }


def _render_html(checked: CheckedAnalysis, v: View, context: RenderContext, template: jinja2.Template) -> str:
    from gate.render import plots

    analysis = checked.doc
    benchmarks = analysis["benchmarks"]
    # Interesting first: the analysis is already sorted (verdict class, then |change|).
    plotted = []
    for row in v["rows"][: max(context.max_plots, 0)]:
        b = benchmarks[row["index"]]
        svg = plots.benchmark_figure(b["samples"], b["base"], b["head"], row["unit"])
        plotted.append(view.Row({**row.as_dict(), "svg": Markup(svg) if svg else None}))
    plotted_idx = {r["index"] for r in plotted}
    # view.order_tests rows hold every field; delta_pct is a number or null (analysis_json checks it)
    tests = sorted(v["order_tests"], key=lambda t: (not t["significant"], -abs(t["delta_pct"] or 0.0)))[
        :MAX_ORDER_TESTS
    ]
    order_image = plots.order_figure(tests) if tests else None
    return _render(
        template,
        v=v,
        plotted=plotted,
        plotted_idx=plotted_idx,
        max_plots=context.max_plots,
        order_view={"image": order_image, "tests": tests, "n_total": len(v["order_tests"])}
        if tests
        else None,
        heatmap=_pick_heatmap(
            analysis["carryover_matrix"],
            _significance(benchmarks, checked.details),
            analysis["settings"]["threshold_pct"],
        ),
        calibration=_calibration_view(context.calibration),
        max_heatmap=MAX_HEATMAP,
    )


def _by_action(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Warnings grouped by their action, in order of first appearance: [{action, items}], so
    the action shared by fifteen noisy benchmarks is written once above their fifteen lines."""
    groups: dict[str, dict[str, Any]] = {}
    for e in entries:
        key = e["action"] or e["message"]
        groups.setdefault(key, {"action": e["action"], "items": []})["items"].append(e)
    return list(groups.values())


def _compact_warnings(
    entries: list[dict[str, Any]], max_names: int = COMMENT_MAX_NAMES
) -> list[dict[str, Any]]:
    """Warnings that share an action become one line naming the first ``max_names`` benchmarks
    ("`a`, `b` and 4 more: 6 warnings like “a is noisy: …” → do: …"), so ten noisy
    benchmarks cost one line (the comment always; the summary for a long category)."""
    by_action: dict[str, dict[str, Any]] = {}
    named: dict[str, set[str]] = {}  # benchmarks already on a line (thousands: a list test is slow)
    out: list[dict[str, Any]] = []
    for e in entries:
        key = e["action"] or e["message"]
        item = by_action.get(key)
        if item is None:
            item = {"benchmarks": [], "message": e["message"], "action": e["action"], "n": 0, "members": None}
            by_action[key] = item
            named[key] = set()
            out.append(item)
        item["n"] += 1
        if e["benchmark"] is not None and e["benchmark"] not in named[key]:
            named[key].add(e["benchmark"])
            item["benchmarks"].append(e["benchmark"])
    for item in out:
        item["names"] = item["benchmarks"][:max_names]
        item["more_names"] = len(item["benchmarks"]) - len(item["names"])
    return out


def render(analysis: Analysis, fmt: Format, context: RenderContext | None = None) -> str:
    """Render an analysis.json document into ``fmt``: read from a file
    (:func:`gate.files.analysis_json.read`) or as ``analyze`` built it; checked here either way,
    so the view model can rely on what :mod:`gate.files.analysis_json` guarantees."""
    if fmt not in TEMPLATES:
        raise InputError(f"unknown report format {fmt!r}", "use one of: comment, summary, html")
    context = context or RenderContext()
    checked = analysis_json.check(analysis)
    v = view.build(checked, context)
    # each table's names lose their shared path first and are cut no further than keeps them
    # apart (gate.render.names)
    names = [r["name"] for r in v["rows"]]
    columns = {
        key: names_column(names, narrowest)[1]
        for key, narrowest in (
            ("short_name", NAME_WIDTH_COMMENT),
            ("mid_name", NAME_WIDTH_SUMMARY),
            ("table_name", NAME_WIDTH_HTML),
        )
    }
    for r in v["rows"]:
        for key, shown in columns.items():
            r[key] = shown[r["name"]]
    v["notes_comment"] = v["notes"][:COMMENT_MAX_NOTES]  # one per benchmark, for user templates
    v["notes_more"] = len(v["notes"]) - len(v["notes_comment"])
    # the built-in comment: one line per next step (gate/render/comment_lines.py)
    v["note_lines"], v["note_lines_more"] = comment_lines.note_lines(
        v["notes"], COMMENT_MAX_NOTES, COMMENT_MAX_NAMES
    )
    v["warning_kinds"] = comment_lines.warning_kinds(v["warning_groups"], COMMENT_KIND_NAMES)
    v["n_warnings"] = sum(g["n"] for g in v["warning_groups"])
    if v["adaptive"]:  # benchmarks resolved by follow-up rounds: capped like the notes
        followed = v["adaptive"]["followed"]
        v["adaptive"]["followed_comment"] = followed[:COMMENT_MAX_NOTES]
        v["adaptive"]["followed_more"] = len(followed) - len(v["adaptive"]["followed_comment"])
    for g in v["warning_groups"]:
        g["by_action"] = _by_action(g["entries"])
        compact = _compact_warnings(g["entries"])
        g["shown_comment"] = compact[:COMMENT_MAX_WARNINGS]
        g["more_comment"] = sum(c["n"] for c in compact[COMMENT_MAX_WARNINGS:])
    template = _template(fmt, context.template_dir)
    if fmt == "comment":
        return _render_comment(v, template)
    if fmt == "summary":
        return _render_summary(v, template)
    return _render_html(checked, v, context, template)
