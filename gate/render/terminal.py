"""The verdict table ``analyze`` prints on stdout (the files and reports are gate/render/render.py's)."""

from __future__ import annotations

from gate.files import analysis_json
from gate.files.analysis_json import Analysis
from gate.files.analysis_model import benchmark_details
from gate.stats.quantile import describe


def statistic_lines(doc: Analysis, limit: int = 50) -> list[str]:
    """Which statistic decided (the suite's, and each benchmark's own when it differs), and the
    tail findings beside the verdicts (gate/analysis/tail.py)."""
    suite = doc["settings"]["statistic"]
    rows = [f"decided by: the {describe(suite)} of each version"]
    own = [
        f"{b['benchmark']}: {describe(st)}"
        + (", chosen by the nightly calibration" if b.get("statistic_source") == "calibration" else "")
        for b in doc["benchmarks"]
        if (st := analysis_json.benchmark_statistic(doc, b)) != suite
    ]
    if own:
        rows[0] += f" ({len(own)} benchmark(s) by their own: " + "; ".join(own[:limit]) + ")"
    for b in doc["benchmarks"]:
        t = benchmark_details(b).tail
        if t is not None:
            ci = t.change_ci
            shown = f" [{ci[0]:+.1f}%, {ci[1]:+.1f}%]" if ci else ""
            rows.append(
                f"tail change: {b['benchmark']}: {t.statistic} {t.change_pct:+.1f}%{shown} "
                f"({t.verdict} by the same rule; the verdict is {b['verdict']})"
            )
    return rows


def benchmark_table(doc: Analysis, limit: int = 50) -> str:
    """A short human table for stdout; every name shown is told apart from the others."""
    from gate.render import advice
    from gate.render import followup as words
    from gate.render.names import column  # the one name-shortening rule of every table

    adaptive = doc["adaptive"]
    w, shown = column([b["benchmark"] for b in doc["benchmarks"]])
    rows = [f"{'benchmark':<{w}} {'verdict':<13} {'change':>9}  {'change CI':<19} n(base/head)"]
    if adaptive:
        rows[0] += "  follow-up"
    for b in doc["benchmarks"][:limit]:
        ch = "—" if b["change_pct"] is None else f"{b['change_pct']:+.1f}%"
        ci = "—" if not b["change_ci"] else f"[{b['change_ci'][0]:+.1f}%, {b['change_ci'][1]:+.1f}%]"
        name = shown[b["benchmark"]]
        row = f"{name:<{w}} {b['verdict']:<13} {ch:>9}  {ci:<19} {b['base']['n']}/{b['head']['n']}"
        if adaptive:
            fu = b["followup"]
            n_rounds = fu["rounds"] if fu else 0
            if fu and n_rounds:
                more = fu["extra_values"]
                added = f"+{more['base']}" + (f"/+{more['head']}" if more["head"] != more["base"] else "")
                row = f"{row:<{w + 58}}  {n_rounds} round{'s' * (n_rounds != 1)}, {added}"
            else:
                row = f"{row:<{w + 58}}  —"
        rows.append(row)
    if len(doc["benchmarks"]) > limit:
        rows.append(f"... and {len(doc['benchmarks']) - limit} more (see the JSON)")
    if adaptive:
        # the unresolved entries tell "needs more than the time left" from "values would not help",
        # as in the comment (gate/render/view.py), so the stop reason agrees with the lines below
        left = [fu["unresolved"] for b in doc["benchmarks"] if (fu := b["followup"]) and fu["unresolved"]]
        rows.append(f"follow-up rounds: {words.timeline(adaptive)}; {words.stop(adaptive, left)}")
        still = [
            (b, u)
            for b in doc["benchmarks"]
            if (u := words.unresolved(b["followup"], adaptive, b["reason"], b["warnings"]))
        ]
        _, shown_still = column([b["benchmark"] for b, _ in still], 60)
        for b, u in still[:limit]:
            line = f"  {shown_still[b['benchmark']]}: {u['why']}"
            # the one next step the reports give (a drift's fix, not the budget beside it)
            step = advice.next_step(b["verdict"], b["reason"], b["samples_needed"], b["warnings"], u)
            if step is not None:
                line += f"; {step.text}" + (f": {step.code}" if step.code else "")
            rows.append(line)
        if len(still) > limit:
            rows.append(f"  ... and {len(still) - limit} more unresolved (see the JSON)")
    rows.extend(statistic_lines(doc, limit))
    if doc["settings"]["bootstrap"] == "auto":
        by_trial = [
            b for b in doc["benchmarks"] if "bootstrap" in b and b["bootstrap"]["scheme"] == "two-level"
        ]
        rows.append(
            f"bootstrap auto: {len(by_trial)} of {len(doc['benchmarks'])} benchmark(s) resampled by trial "
            "(their trials differ; see bootstrap.reason in the JSON), flat for the rest"
        )
    s = doc["summary"]
    counts = ", ".join(f"{v} {k}" for k, v in s["counts"].items() if v)
    extra = [
        f"{n} {what}"
        for n, what in (
            (s["failed_in_head_only"], "failing in head only"),
            (s["noisy_in_head"], "far noisier in head"),
            (s["only_in_base"], "not in head"),
        )
        if n
    ]
    rows.append(f"decision: {s['decision']} ({'; '.join([counts or 'no benchmark compared', *extra])})")
    return "\n".join(rows)
