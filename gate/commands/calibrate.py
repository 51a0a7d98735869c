"""`ordertrap-gate calibrate` — µOpTime minimal configurations (+ audit) from a full-configuration log."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from gate import __version__
from gate.analysis import statistic_source
from gate.bidi import json_for_terminal
from gate.calibration import later_runs, statistic_choice
from gate.calibration.audit import AUDIT_RULES, AUDIT_THRESHOLD_PCT, audit
from gate.calibration.audit_rounds import RoundsReplay
from gate.calibration.dataset import Table, build_dataset, distinct, normalise, read_tables, select
from gate.calibration.decidable import Floor, floor_for
from gate.calibration.search import DEFAULT_SEED, DEFAULT_THRESHOLD, calibrate, make_plan
from gate.commands.analyze import statistic_argument
from gate.errors import ConfigError, InputError
from gate.files import calibration_json, run_meta
from gate.files.settings import CONFIDENCE, MAX_ROUNDS, SEED, THRESHOLD_PCT
from gate.model import CALIBRATION_SCHEMA, LEVELS, utc_timestamp, warning
from gate.rounds.config import DEFAULT_MAX_ROUNDS, check_max_rounds, parse_duration
from gate.statistic import CALIBRATED
from gate.stats.stability import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, METRICS
from gate.warning_codes import WarningCode

NAME = "calibrate"
HELP = (
    "µOpTime: per benchmark, the cheapest stable configuration from a full-configuration trial log "
    "(writes .ordertrap/calibration.json; --audit replays version pairs)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trials", nargs="+", metavar="TRIALS.csv", help="trial log(s) or tidy CSV file(s)")
    parser.add_argument("--metric", choices=METRICS, default="cv", help="stability metric (default: cv)")
    parser.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help="stable means metric < threshold (default: 0.01, µOpTime §3.1)",
    )
    parser.add_argument(
        "--levels",
        default=",".join(LEVELS),
        help="level columns, outermost first (default: suite_run,iteration,measurement; "
        "µOpTime Go data: suite_run,iteration,second)",
    )
    parser.add_argument("--value", default="value", help="value column (default: value; Go data: ns_per_op)")
    parser.add_argument("--version", help="calibrate this version when the input has several")
    parser.add_argument("--instance", help="use this instance (runner) when the input has several")
    parser.add_argument(
        "--out",
        default=".ordertrap/calibration.json",
        help="where to write the calibration ('-' for stdout; default: .ordertrap/calibration.json)",
    )
    parser.add_argument(
        "--discard-warmup",
        type=int,
        default=0,
        metavar="N",
        help="drop the first N positions of --warmup-level before stability is computed (µOpTime RQ3)",
    )
    parser.add_argument(
        "--warmup-level", help="level --discard-warmup applies to (default: the innermost level)"
    )
    parser.add_argument(
        "--audit",
        action="store_true",
        help="replay consecutive version pairs of the log: do the minimal configurations (from the "
        "first version) reach the full configuration's verdicts? (µOpTime RQ4)",
    )
    parser.add_argument(
        "--audit-versions",
        metavar="V1,V2,...",
        help="versions to replay, in order (default: every version, in order of first appearance)",
    )
    parser.add_argument(
        "--audit-threshold-pct",
        type=THRESHOLD_PCT.argument("--audit-threshold-pct"),
        default=AUDIT_THRESHOLD_PCT,
        help="relevant change for the audit's verdicts, in %% (default: 3, µOpTime §4.5)",
    )
    parser.add_argument(
        "--audit-rule",
        choices=AUDIT_RULES,
        default="gate",
        help="verdict rule of the audit: gate (default) decides as `analyze` does with its default "
        "settings, so the audit says whether the gate's own verdicts hold with the minimal "
        "configurations; uoptime is the paper's §4.5 rule (reproduces the published counts)",
    )
    parser.add_argument(
        "--audit-budget",
        metavar="DURATION",
        help="replay what a pull request runs: the minimal configuration plus follow-up rounds within "
        "this budget of benchmark time per version pair (e.g. 15m, as run --budget; each value costs its "
        "recorded duration, 1 s without durations); needs --audit-rule gate (default: minimal alone)",
    )
    parser.add_argument(
        "--audit-max-rounds",
        type=MAX_ROUNDS.argument("--audit-max-rounds"),
        default=DEFAULT_MAX_ROUNDS,
        help=f"most follow-up rounds the audit replays with --audit-budget (default {DEFAULT_MAX_ROUNDS})",
    )
    parser.add_argument(
        "--statistic",
        type=statistic_argument,
        default=None,
        metavar="STAT",
        help="statistic of the gate audit rule's verdicts, as the suite's PRs use it ([suite] statistic; "
        "calibrated: each benchmark's as this calibration chooses it on the first audited version; "
        "default: analyze's default)",
    )
    parser.add_argument(
        "--confidence",
        type=CONFIDENCE.argument("--confidence"),
        default=DEFAULT_CONFIDENCE,
        help="CI level (default: 0.99)",
    )
    parser.add_argument(
        "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (default: 10000)"
    )
    parser.add_argument(
        "--seed", type=SEED.argument("--seed"), default=DEFAULT_SEED, help="bootstrap seed (default: 1)"
    )
    parser.add_argument(
        "--pr-max-rounds",
        type=int,
        default=0,
        metavar="N",
        help="size the floor for pull requests whose follow-up rounds decide every look at "
        "1 - (1 - confidence)/(N + 1) ([adaptive] max_rounds N), so that their first look can call a "
        f"change too (e.g. {DEFAULT_MAX_ROUNDS}: 6 values and 6 trials per version at 99%%). Default 0: "
        "the floor at --confidence (5 and 5 at 99%%); with rounds the first look of such a configuration "
        "can then say unchanged but not call a change, and the rounds add the trials (docs/calibration.md)",
    )
    parser.add_argument(
        "--min-values",
        type=int,
        default=None,
        metavar="N",
        help="set the floor by hand: leave out configurations with fewer than N values per version and "
        "none for having few trials (default: the smallest configuration with which a pull request's "
        "verdict can decide, from --confidence and --pr-max-rounds; 3 reproduces µOpTime as published)",
    )
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="evaluate every configuration (Algorithm 1 as published; same result, slower)",
    )


def _levels(text: str) -> list[str]:
    levels = [p.strip() for p in text.split(",") if p.strip()]
    if not levels or len(set(levels)) != len(levels):
        raise ConfigError(
            f"--levels {text!r} must name distinct columns", "e.g. --levels suite_run,iteration,measurement"
        )
    return levels


def _base_first(versions: list[str], trials: str) -> list[str]:
    """Versions in replay order: a gate log's meta.json (beside trials.csv) names base and head,
    and the base comes first (it is the version the calibration is for); otherwise the order of
    first appearance in the log."""
    try:
        meta = run_meta.read_beside(Path(trials), [])  # its problems are analyze's to report
    except InputError:  # a newer schema: the log's own order
        return versions
    if meta is None:
        return versions
    first = [v for v in (meta.base, meta.head) if v in versions]
    return first + [v for v in versions if v not in first]


def _one_instance_per_benchmark(table: Table) -> bool:
    """Each benchmark measured on one runner only: the logs of a sharded run (``run --shard``),
    where every runner measured its own benchmarks. Calibrating them together mixes no machines
    within a benchmark, so no --instance is needed."""
    frame = table.frame
    if "instance" not in frame.columns or frame.empty:
        return True
    return bool((frame.groupby("benchmark")["instance"].nunique() <= 1).all())


def run(args: argparse.Namespace) -> int:
    if not 0 < args.confidence < 1:
        raise ConfigError(
            f"--confidence {args.confidence} is not between 0 and 1", "use e.g. --confidence 0.99"
        )
    if args.min_values is not None and args.min_values < 1:
        raise ConfigError(
            f"--min-values {args.min_values} must be at least 1",
            "leave it out for the floor a verdict needs (3 reproduces µOpTime as published)",
        )
    if args.pr_max_rounds != 0:
        check_max_rounds(args.pr_max_rounds, "--pr-max-rounds")
    if args.resamples < 100:
        raise ConfigError(f"--resamples {args.resamples} is too few", "use at least 1000 (default 10000)")
    if args.discard_warmup < 0:
        raise ConfigError("--discard-warmup must not be negative", "pass 0 or a positive count")
    if not math.isfinite(args.threshold) or args.threshold <= 0:
        raise ConfigError(f"--threshold {args.threshold} must be positive", "use e.g. --threshold 0.01")
    levels = _levels(args.levels)
    rounds = None
    if args.audit_budget is not None:
        budget_s = parse_duration(args.audit_budget, "--audit-budget")
        max_rounds = check_max_rounds(args.audit_max_rounds, "--audit-max-rounds")
        rounds = RoundsReplay(budget_s, max_rounds) if budget_s > 0 else None
    table = normalise(read_tables(args.trials, [*(levels or ()), args.value or "value"]), levels, args.value)
    if args.instance is not None or not _one_instance_per_benchmark(table):
        table = select(table, "instance", args.instance, "--instance")
    versions = _base_first(distinct(table, "version"), args.trials[0])
    audit_versions: list[str] = []
    if args.audit or args.audit_versions:
        listed = [v.strip() for v in (args.audit_versions or "").split(",") if v.strip()]
        audit_versions = listed or versions
        unknown = [v for v in audit_versions if v not in versions]
        if unknown:
            raise ConfigError(
                f"--audit-versions names version(s) not in the input: {', '.join(unknown)}",
                f"use versions from the log: {', '.join(versions[:10])}",
            )
        if len(audit_versions) < 2:
            raise InputError(
                "--audit needs a log with at least two versions (it replays consecutive pairs)",
                "pass a full-configuration log of base and head, or list them: --audit-versions V1,V2",
            )
    # RQ4 (µOpTime §4.5): the minimal configuration comes from the first version
    version = args.version or (audit_versions[0] if audit_versions else None)
    calib_table = select(table, "version", version, "--version")
    warmup = {"level": args.warmup_level or levels[-1], "count": int(args.discard_warmup)}
    dataset = build_dataset(calib_table, args.discard_warmup, args.warmup_level)
    datasets = {version or "": dataset}
    if audit_versions:
        datasets = {
            v: build_dataset(select(table, "version", v, "--version"), args.discard_warmup, args.warmup_level)
            for v in audit_versions
        }
    max_full = tuple(max(ds.full[i] for ds in [dataset, *datasets.values()]) for i in range(len(levels)))
    floor = (
        floor_for(args.confidence, args.pr_max_rounds) if args.min_values is None else Floor(args.min_values)
    )
    plan = make_plan(max_full, args.seed, args.resamples)
    result = calibrate(
        dataset,
        args.metric,
        args.threshold,
        args.confidence,
        args.resamples,
        args.seed,
        warmup,
        exhaustive=args.exhaustive,
        plan=plan,
        floor=floor,
    )
    body = result.to_json()
    statistic_choice.add_to(body, result, args.seed)
    later_runs.add_to(body, later_runs.check_all(result, plan), args.metric, args.threshold)
    _warn_if_nothing_stable(body)
    audit_json = None
    if audit_versions:
        # The audit replays forward (µOpTime RQ4): configurations chosen on the first version are
        # reused for the later ones, whatever --version the written file is calibrated on;
        # configurations chosen on the later version itself would flatter the audit.
        first = audit_versions[0]
        audited = result
        if first != version:
            audited = calibrate(
                datasets[first], args.metric, args.threshold, args.confidence, args.resamples, args.seed,
                warmup, exhaustive=args.exhaustive, plan=plan, floor=floor,
            )  # fmt: skip
        configs = {name: choice.config for name, choice in audited.choices.items()}
        # the statistics the PRs would use (gate/analysis/statistic_source.py): the ones chosen on
        # the first version too, with --statistic calibrated (or by default when the calibrated
        # choice is the default); a named --statistic is one statistic for every benchmark
        use_chosen = args.statistic == CALIBRATED or (
            args.statistic is None and statistic_source.CALIBRATED_BY_DEFAULT
        )
        audit_json = audit(
            datasets, configs, args.metric, plan, args.audit_threshold_pct, args.confidence,
            rule=args.audit_rule, seed=args.seed, rounds=rounds,
            statistic=None if args.statistic == CALIBRATED else args.statistic,
            statistics=statistic_choice.chosen(audited, args.seed) if use_chosen else {},
        )  # fmt: skip
        audit_json["calibrated_on"] = first
        if version != first:
            body["warnings"].append(
                warning(
                    WarningCode.AUDIT_CALIBRATED_ELSEWHERE,
                    f"the audit calibrated on {first} (the first version it replays: configurations "
                    f"are chosen on the earlier version and reused for the later ones, µOpTime RQ4), "
                    f"not on --version {version}, which this file is calibrated on; its agreement "
                    "describes configurations chosen on " + first,
                    # a fix the same log allows (the nightly has no later version to replay onto):
                    # calibrate on the version the audit starts from, so the file holds the
                    # configurations the audit checked (µOpTime RQ4: chosen on one version, reused
                    # on the later ones, as pull requests reuse them)
                    f"leave out --version (or pass --version {first}): the file then holds the "
                    f"configurations chosen on {first}, the ones the audit checked on the later "
                    "version(s), as examples/workflows/perf-nightly.yml does",
                )
            )
    instances = distinct(table, "instance")
    instance = args.instance or (instances[0] if instances else None)
    doc: dict[str, Any] = {
        "schema_version": CALIBRATION_SCHEMA,
        "tool_version": __version__,
        "created_at": utc_timestamp(),
        "source": {"trials": [str(p) for p in args.trials], "version": version, "instance": instance},
        **body,
        "audit": audit_json,
    }
    if args.out == "-":
        text = calibration_json.dumps(calibration_json.from_document(doc, "stdout"))
        sys.stdout.write(json_for_terminal(text))
    else:
        calibration_json.write(doc, args.out)
    _summary(doc, args.out, sys.stderr if args.out == "-" else sys.stdout)
    return 0


def audit_pair_words(p: dict[str, Any]) -> str:
    """One pair of the audit: agreement over the verdicts the full configuration decides (two
    inconclusive verdicts agree but show nothing), how many it decided, then the counts."""
    decided = p.get("decided")
    if decided is None:  # an older file: agreement over every benchmark
        agreement = "n/a" if p["agreement_pct"] is None else f"{p['agreement_pct']:.1f}%"
        head = f"{p['n']} benchmarks, agreement {agreement}"
    elif not decided:
        head = (
            f"{p['n']} benchmarks, none decided by the full configuration: no agreement to report "
            "(the audit shows nothing about the minimal configurations here)"
        )
    else:
        head = (
            f"{p['n']} benchmarks, {decided} decided by the full configuration, agreement "
            f"{p['agreement_decided_pct']:.1f}% on those (minimal decided {p.get('minimal_decided', '?')})"
        )
    rounds = p.get("rounds")
    if rounds:
        head += f", {rounds['rounds']} follow-up round(s) for {rounds['followed']} benchmark(s)"
    return f"{head}, regressions full {p['full_changes']} / minimal {p['min_changes']}, FP {p['fp']}, FN {p['fn']}"


# What to try when nothing is stable: measured on the µOpTime Go data (docs/calibration.md,
# "When nothing is stable"); a looser threshold is kept only when the audit's decided verdicts agree.
QUIET_ADVICE = (
    "quiet the machine and rerun the full configuration (docs/github-actions.md, Prepare the "
    "benchmark runner)"
)
THRESHOLD_ADVICE = (
    f"{QUIET_ADVICE}; or try a looser threshold with the audit, e.g. `--metric rmad --threshold "
    "0.02 --audit`, and keep it only if the audit's decided verdicts agree with the full "
    "configuration's and the later suite runs hold (docs/calibration.md, 'When nothing is stable')"
)
# rmad < 0.02 is the loosest setting that kept every decided verdict on that data (beyond 0.05
# one was lost): past it a looser threshold is not advice, the machine is
LOOSEST_KEPT_RMAD = 0.02


def _threshold_advice(metric: str, threshold: float) -> str:
    if metric == "rmad" and threshold >= LOOSEST_KEPT_RMAD:
        # at 0.02 itself the advice names no looser setting: it is the loosest kept one
        loose = (
            "is already"
            if threshold == LOOSEST_KEPT_RMAD
            else f"is looser than rmad < {LOOSEST_KEPT_RMAD:g},"
        )
        return (
            f"{QUIET_ADVICE}: rmad < {threshold:g} {loose} the loosest setting that kept every decided "
            "verdict on the µOpTime data; looser ones lost verdicts there (docs/calibration.md, "
            "'When nothing is stable')"
        )
    return THRESHOLD_ADVICE


def _warn_if_nothing_stable(body: dict[str, Any]) -> None:
    """µOpTime §5: the full configuration can itself be insufficient; when that is true of every
    benchmark the file changes nothing a run does, which must not pass as a calibration."""
    s = body["summary"]
    if s["n_benchmarks"] and s["n_never_stable"] == s["n_benchmarks"]:
        body["warnings"].append(
            warning(
                WarningCode.NOTHING_STABLE,
                f"no benchmark is stable at {body['metric']} < {body['threshold']:g}, not even with the "
                f"full configuration ({s['n_benchmarks']} never stable): the calibration saves nothing, "
                "every run measures the full configuration",
                _threshold_advice(body["metric"], body["threshold"]),
            )
        )


def _floor_summary(doc: dict[str, Any], stream: Any) -> None:
    """Which benchmarks stability alone would have given a configuration too small for a verdict
    (gate/calibration/decidable.py), and the floor that left those out."""
    raised = {n: b["below_floor"] for n, b in doc["benchmarks"].items() if b.get("below_floor")}
    if not raised:
        return
    floor = doc.get("settings", {}).get("floor") or {}
    rounds = floor.get("max_rounds") or 0
    why = (
        f" (a pull request's first look decides at {floor['confidence'] * 100:.4g}%"
        + (f" with up to {rounds} follow-up rounds" if rounds else "")
        + ")"
        if floor.get("confidence")
        else ""
    )
    print(
        f"decidable floor: {len(raised)} benchmark(s) were stable with a configuration too small for a "
        f"verdict{why} and run the smallest one that can decide, e.g.:",
        file=stream,
    )
    for name, b in list(raised.items())[:5]:
        config = "×".join(str(c) for c in b["config"].values())
        print(f"  {name}: stable at {config}, but {b['reason']}", file=stream)
    if len(raised) > 5:
        print(f"  … and {len(raised) - 5} more (benchmarks.*.below_floor in the file)", file=stream)


def _summary(doc: dict[str, Any], out: str, stream: Any) -> None:
    s = doc["summary"]
    unit = s["cost_unit"]
    n_bench, never_n = s["n_benchmarks"], s["n_never_stable"]
    if n_bench and never_n == n_bench:
        saving = (
            f"none is stable, so it saves nothing (cost {s['full_cost']:g} {unit}, the full configuration)"
        )
    else:
        saving = (
            f"cost {s['minimal_cost']:g} instead of {s['full_cost']:g} {unit} ({s['saved_pct']:.1f}% saved)"
        )
        if never_n:
            saving += f"; {never_n} of {n_bench} never stable run the full configuration"
    print(f"calibrated {n_bench} benchmarks with {doc['metric']} < {doc['threshold']}: {saving}", file=stream)
    later = s.get("later_suite_runs")
    if isinstance(later, dict) and later.get("checked"):
        print(
            f"later suite runs: {later['checked'] - later['not_holding']} of {later['checked']} chosen "
            "configurations are stable on them too",
            file=stream,
        )
    chosen = Counter(b.get("statistic") for b in doc["benchmarks"].values() if b.get("statistic"))
    if chosen:
        shown = ", ".join(f"{st} {k}" for st, k in sorted(chosen.items(), key=lambda kv: (-kv[1], kv[0])))
        others = {
            n: b["statistic"] for n, b in doc["benchmarks"].items() if b.get("statistic") not in (None, "p10")
        }
        named = ", ".join(f"{n} ({st})" for n, st in list(others.items())[:5]) + (
            " …" if len(others) > 5 else ""
        )
        print(
            f"statistic for the PRs: {shown}{f' — not p10: {named}' if others else ''} (decides with "
            '[suite] statistic = "calibrated"; docs/statistics.md "A statistic per benchmark")',
            file=stream,
        )
    _floor_summary(doc, stream)
    never = [n for n, b in doc["benchmarks"].items() if b["never_stable"]]
    if never:
        print(
            f"never stable ({len(never)}, they keep the full configuration): {', '.join(never[:10])}"
            + (" …" if len(never) > 10 else ""),
            file=stream,
        )
        # the advice quotes one benchmark's own metric value: name it, or it reads as everyone's
        whose = "" if len(never) == 1 else f" for {never[0]} (each one's, with its own value, is in the file)"
        print(f"  advice{whose}: {doc['benchmarks'][never[0]]['advice']}", file=stream)
    for name, reason in doc["skipped"].items():
        print(f"not calibrated: {name}: {reason}", file=stream)
    for w in doc["warnings"]:
        if w["code"] != WarningCode.NOT_CALIBRATED:
            print(f"warning: {w['message']} — {w['action']}", file=stream)
    if doc["audit"]:
        rule = doc["audit"]["rule"]
        how = (
            "analyze's verdict rule" if rule.get("name") == "gate" else "µOpTime §4.5 rule"
        ) + f", {rule['threshold_pct']:g}%, {rule['confidence'] * 100:g}% CIs"
        print(
            f"audit (minimal vs full configuration verdicts; {how}; configurations chosen on "
            f"{doc['audit']['calibrated_on']}):",
            file=stream,
        )
        followup = rule.get("followup")
        if followup:
            print(
                f"  minimal = the minimal configuration plus follow-up rounds (budget "
                f"{followup['budget_s']:g} s, at most {followup['max_rounds']} rounds), as a pull request runs",
                file=stream,
            )
        for p in doc["audit"]["pairs"]:
            print(f"  {p['base']} -> {p['head']}: {audit_pair_words(p)}", file=stream)
    if out != "-":
        print(f"wrote {out}", file=stream)
