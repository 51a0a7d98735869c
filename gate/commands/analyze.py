"""`ordertrap-gate analyze` — compare base and head in one or several trial logs.

Writes analysis.json (docs/contracts.md) and prints a short table. Exits 0 whatever the
verdicts (the gate decision belongs to `publish`); non-zero only when the input cannot be
analyzed at all. Problems with part of the input become warnings (JSON + stderr).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from gate.analysis import carryover_exclusion, shards, statistic_source
from gate.analysis.compare import BOOTSTRAPS, PAIRINGS, AnalysisSettings, Bootstrap, Pairing
from gate.analysis.load import TrialLogs, load_trials
from gate.analysis.pipeline import build_analysis
from gate.analysis.statistic_source import StatisticPlan
from gate.bidi import show_controls_on_one_line
from gate.errors import ConfigError, InputError
from gate.files import analysis_json
from gate.files.analysis_json import Analysis
from gate.files.run_meta import RunMeta
from gate.files.settings import BOOTSTRAP, CONFIDENCE, SEED, STATISTIC, THRESHOLD_PCT
from gate.render.terminal import benchmark_table
from gate.statistic import CALIBRATED
from gate.stats.quantile import STATISTIC_FORMS

NAME = "analyze"
HELP = "compare base and head in trial logs: bootstrap CIs, verdicts, order/carry-over/similarity flags"

DEFAULTS = AnalysisSettings()
Interval = Literal["percentile", "bca"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "trials", nargs="+", type=Path, metavar="TRIALS.csv", help="trial log(s), one per runner"
    )
    parser.add_argument("--base", help="base version (default: meta.json's base)")
    parser.add_argument("--head", help="head version (default: meta.json's head)")
    parser.add_argument(
        "--json", type=Path, required=True, metavar="OUT.json", help="where to write analysis.json"
    )
    parser.add_argument(
        "--statistic",
        type=statistic_argument,
        default=None,
        metavar="STAT",
        help=f"what summarises each version: {STATISTIC_FORMS}, or calibrated (each benchmark's statistic "
        f"as the calibration the run used chose it) (default: the run's [suite] statistic from meta.json, "
        f"else {DEFAULTS.statistic}; a [[benchmark]] statistic applies to its benchmark; "
        "docs/statistics.md 'A statistic per benchmark')",
    )
    parser.add_argument(
        "--tail-check",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also compare each benchmark's 90th percentile and name a change of the slowest values beside "
        "the verdict (default: the run's [suite] tail_check from meta.json, else on; off saves the "
        "second comparison of each benchmark; docs/statistics.md 'Tail changes')",
    )
    parser.add_argument(
        "--confidence",
        type=CONFIDENCE.argument("--confidence"),
        default=None,
        help="CI level (default: the per-look level meta.json records for a run with follow-up rounds, "
        "else 0.99)",
    )
    parser.add_argument(
        "--threshold-pct",
        type=THRESHOLD_PCT.argument("--threshold-pct"),
        default=DEFAULTS.threshold_pct,
        help="smallest change that counts (default 3)",
    )
    parser.add_argument(
        "--resamples", type=int, default=DEFAULTS.resamples, help="bootstrap resamples (default 10000)"
    )
    parser.add_argument(
        "--seed", type=SEED.argument("--seed"), default=DEFAULTS.seed, help="bootstrap seed (default 1)"
    )
    parser.add_argument(
        "--bootstrap",
        type=BOOTSTRAP.argument("--bootstrap"),
        metavar="{" + ",".join(BOOTSTRAPS) + "}",
        default=DEFAULTS.bootstrap,
        help=f"resampling scheme (default {DEFAULTS.bootstrap}: by trial where the trials of a version differ, "
        "else flat; see docs/statistics.md 'How the gate decides')",
    )
    parser.add_argument(
        "--pairing",
        choices=PAIRINGS,
        default=DEFAULTS.pairing,
        help=f"compare independently or paired by suite run (default {DEFAULTS.pairing})",
    )
    parser.add_argument(
        "--interval", choices=("percentile", "bca"), default=DEFAULTS.method, help="bootstrap interval method"
    )
    parser.add_argument(
        "--carryover",
        choices=carryover_exclusion.MODES,
        default="exclude",
        help="exclude (default): leave out the trials right after a predecessor the carry-over check names "
        "at 1%% where enough trials remain and the full data does not contradict it; report: only warn "
        "(docs/order-effects.md)",
    )


# --statistic of analyze and calibrate (gate/files/settings.py: STATISTIC)
statistic_argument = STATISTIC.argument("--statistic")


def statistic_plan(statistic: str | None, logs: TrialLogs) -> StatisticPlan:
    """Which statistic decides each benchmark of ``logs`` for ``--statistic`` (None: not given):
    gate/analysis/statistic_source.py's precedence over the run's meta.json (every shard's)."""
    return statistic_source.resolve(statistic, shards.merged_meta(logs))


def _settings(
    *,
    statistic: str | None,
    confidence: float | None,
    threshold_pct: float,
    resamples: int,
    seed: int,
    bootstrap: Bootstrap,
    pairing: Pairing,
    interval: Interval,
    run_confidence: float | None = None,
    tail_check: bool | None = None,
    run_tail_check: bool | None = None,
) -> AnalysisSettings:
    """``statistic``: the suite's (:func:`statistic_plan`'s ``suite``; ``calibrated`` or None: the
    default). ``run_confidence`` / ``run_tail_check``: the defaults when ``confidence`` /
    ``tail_check`` are not given (meta.json's per-look level and [suite] tail_check; the tail check
    is on when neither says)."""
    if confidence is None:
        confidence = run_confidence or DEFAULTS.confidence
    # the flags' domains, again for a caller of the keyword core (and a meta.json's per-look level)
    for flag, setting, value in (
        ("--confidence", CONFIDENCE, confidence),
        ("--threshold-pct", THRESHOLD_PCT, threshold_pct),
    ):
        problem = setting.problem_of(value)
        if problem is not None:
            raise ConfigError(f"{flag} {value} is {problem}", f"pass e.g. {flag} {setting.example}")
    if not 100 <= resamples <= 1_000_000:
        raise ConfigError(f"--resamples {resamples} is outside [100, 1000000]", "pass e.g. --resamples 10000")
    return AnalysisSettings(
        statistic=statistic if statistic not in (None, CALIBRATED) else DEFAULTS.statistic,
        tail_statistic=DEFAULTS.tail_statistic
        if next((v for v in (tail_check, run_tail_check) if v is not None), True)
        else "",
        confidence=confidence,
        threshold_pct=threshold_pct,
        resamples=resamples,
        seed=seed,
        bootstrap=bootstrap,
        pairing=pairing,
        method=interval,
    )


def _named(name: str, message: str) -> str:
    """``message`` led by the benchmark's name, unless it already begins with it."""
    return message if message.startswith((f"{name}:", f"{name} ")) else f"{name}: {message}"


def _print_benchmark_warnings(doc: Analysis, limit: int = 20) -> None:
    """Per-benchmark warnings on stderr too, grouped by what to do: the benchmarks' lines, then
    their shared action once (at most ``limit`` benchmark lines; all of them are in the JSON)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for b in doc["benchmarks"]:
        for w in b["warnings"]:
            groups.setdefault((w["code"], w["action"]), []).append(_named(b["benchmark"], w["message"]))
    shown = 0
    for (code, action), lines in groups.items():
        if shown >= limit:
            break
        for line in lines[: limit - shown]:
            print(f"warning [{code}] {line}", file=sys.stderr)
        shown += min(len(lines), limit - shown)
        who = f" (for all {len(lines)} of them)" if len(lines) > 1 else ""
        print(f"  action{who}: {action}", file=sys.stderr)
    total = sum(len(lines) for lines in groups.values())
    if total > shown:
        print(f"... and {total - shown} more benchmark warnings in the JSON", file=sys.stderr)


def versions_line(doc: Analysis, metas: Sequence[RunMeta]) -> str:
    """``base NAME (SHA) → head NAME (SHA)``: what the table compares. The names come from git
    refs or labels a pull request controls, so control characters are shown, not obeyed
    (:func:`gate.bidi.show_controls_on_one_line`); on GitHub the CLI's output also passes InertText."""
    from gate.render.filters import shorten_middle  # the one name-shortening rule of every report

    def label(role: str, name: str | None) -> str:
        name = name or role
        sha = next((v.sha for m in metas if (v := m.versions.get(name)) is not None and v.sha), None)
        shown = shorten_middle(show_controls_on_one_line(name), 60)
        if sha and not sha.startswith(name):  # a version named by its SHA is not repeated
            shown += f" ({show_controls_on_one_line(sha[:7])})"
        return f"{role} {shown}"

    return f"{label('base', doc['base'])} → {label('head', doc['head'])}"


def per_look_confidence(metas: Sequence[RunMeta]) -> float | None:
    """The confidence every look of a run with follow-up rounds used (meta.json ``adaptive.rule``):
    analysing its log at that level reproduces the run's final verdicts."""
    return next((c for meta in metas if (c := meta.confidence_per_look) is not None), None)


def analyze(
    trials: Sequence[Path],
    out: Path,
    *,
    base: str | None = None,
    head: str | None = None,
    statistic: str | None = None,
    confidence: float | None = None,
    threshold_pct: float = DEFAULTS.threshold_pct,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
    bootstrap: Bootstrap = DEFAULTS.bootstrap,
    pairing: Pairing = DEFAULTS.pairing,
    interval: Interval = DEFAULTS.method,
    carryover: str = "exclude",
    tail_check: bool | None = None,
) -> Analysis:
    """The keyword core of ``analyze`` (its flags' names and defaults; ``out`` is ``--json``):
    write analysis.json, print the warnings, the versions and the table; return the document."""
    chosen = functools.partial(
        _settings,
        statistic=statistic,
        confidence=confidence,
        threshold_pct=threshold_pct,
        resamples=resamples,
        seed=seed,
        bootstrap=bootstrap,
        pairing=pairing,
        interval=interval,
        tail_check=tail_check,
    )
    chosen()  # bad options are reported before any file is read
    logs = load_trials(list(trials))
    plan = statistic_plan(statistic, logs)
    settings = chosen(
        statistic=plan.suite,
        run_confidence=per_look_confidence(logs.metas),
        run_tail_check=next((m.tail_check for m in logs.metas if m.tail_check is not None), None),
    )
    doc = build_analysis(logs, base=base, head=head, settings=settings, carryover=carryover, statistics=plan)
    try:
        analysis_json.write(out, doc)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc}", "pass a writable --json path") from exc
    for w in doc["warnings"]:
        print(f"warning [{w['code']}]: {w['message']}\n  action: {w['action']}", file=sys.stderr)
    _print_benchmark_warnings(doc)
    print(versions_line(doc, logs.metas))
    print(benchmark_table(doc))
    print(f"wrote {out}")
    return doc


def run(args: argparse.Namespace) -> int:
    analyze(
        args.trials,
        args.json,
        base=args.base,
        head=args.head,
        statistic=args.statistic,
        confidence=args.confidence,
        threshold_pct=args.threshold_pct,
        resamples=args.resamples,
        seed=args.seed,
        bootstrap=args.bootstrap,
        pairing=args.pairing,
        interval=args.interval,
        carryover=args.carryover,
        tail_check=args.tail_check,
    )
    return 0
