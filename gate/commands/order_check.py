"""`ordertrap-gate order-check` — does the order of trials change the results? (OrderSage).

Reads OrderSage's tidy CSV (``experiment, run_index, order_type, position_in_run, test,
value``) or a trial log written by ``ordertrap-gate run --order-check``, runs the
Kruskal-Wallis fixed-vs-random test per test with a Bonferroni-corrected alpha and the
median-CI overlap case (ATC'23 §3, Algorithms 1–2), prints a table and writes the
order-check JSON (docs/contracts.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from gate.analysis.order import TIDY_COLUMNS, order_check_frame, order_check_from_trials
from gate.errors import InputError

NAME = "order-check"
HELP = "Test whether running benchmarks in a fixed order changes their results (OrderSage)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "trials",
        nargs="+",
        type=Path,
        metavar="TRIALS.csv",
        help="tidy CSV (experiment, run_index, order_type, position_in_run, test, value) or trial "
        "log(s) from `run --order-check`; several files are concatenated",
    )
    parser.add_argument("--json", type=Path, metavar="OUT.json", help="write the order-check JSON here")
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="family-wise error rate per experiment, Bonferroni-corrected over its tests (default 0.05)",
    )


def _read(paths: list[Path]) -> pd.DataFrame:
    frames = []
    for path in paths:
        if not path.is_file():
            raise InputError(f"{path}: no such file", fix="pass the path of an existing CSV file")
        try:
            frames.append(pd.read_csv(path))
        except pd.errors.EmptyDataError as exc:
            raise InputError(f"{path} is empty", fix="run the suite first, or pass the right file") from exc
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputError(f"{path} is not a readable CSV file: {exc}", fix="pass a CSV file") from exc
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _fmt(x: Any, spec: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def _print_warnings(warnings: list[dict[str, str]]) -> None:
    """Each warning's message, and an action shared by several once, after them."""
    by_action: dict[str, list[str]] = {}
    for w in warnings:
        by_action.setdefault(w["action"], []).append(w["message"])
    for action, messages in by_action.items():
        for message in messages:
            print(f"warning: {message}")
        print(f"  action{f' (for these {len(messages)})' if len(messages) > 1 else ''}: {action}")


def _print_table(result: dict[str, Any]) -> None:
    _print_warnings(result.get("warnings", []))
    for exp in result["experiments"]:
        verdict = "ORDER MATTERS" if exp["order_matters"] else "order does not matter"
        print(
            f"\nexperiment {exp['experiment']}: {verdict} (alpha {exp['alpha']}, Bonferroni {exp['alpha_bc']:.3g})"
        )
        print(f"{'test':<24} {'n_f':>4} {'n_r':>4} {'H':>9} {'p':>10} {'eta2':>7} {'delta%':>8} case sig")
        for t in exp["tests"]:
            print(
                f"{t['test']:<24} {t['n_fixed']:>4} {t['n_random']:>4} {_fmt(t['kw_h'], '9.3f')} "
                f"{_fmt(t['kw_p'], '10.3g')} {_fmt(t['eta2'], '7.4f')} {_fmt(t['delta_pct'], '8.3f')} "
                f"{_fmt(t['ci_case'], '>4')} {'yes' if t['significant'] else 'no'}"
            )
        _print_warnings(exp.get("warnings", []))
    print(
        "\ncase 1: median CIs disjoint (the conclusion changes with order); 2: a median lies in the "
        "other CI (unlikely to change); 3: inconclusive."
    )


def run(args: argparse.Namespace) -> int:
    df = _read(list(args.trials))
    if all(c in df.columns for c in TIDY_COLUMNS):
        result = order_check_frame(df, alpha=args.alpha)
    elif {"benchmark", "version", "suite_run", "order_type", "value"} <= set(df.columns):
        if not (0.0 < args.alpha < 1.0):
            raise InputError(f"alpha must be between 0 and 1, got {args.alpha}", fix="pass e.g. --alpha 0.05")
        maybe = order_check_from_trials(df, alpha=args.alpha)
        if maybe is None:
            raise InputError(
                "the trial log has no fixed-order runs, so there is nothing to compare",
                fix="record with `ordertrap-gate run --order-check` (alternates fixed and random suite runs)",
            )
        result = maybe
    else:
        # Reports exactly which tidy columns are missing.
        result = order_check_frame(df, alpha=args.alpha)
    _print_table(result)
    if args.json is not None:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {args.json}: {exc}", fix="pass a writable --json path") from exc
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0
