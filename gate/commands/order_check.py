"""`ordertrap-gate order-check` — does the order of trials change the results? (OrderSage).

Reads OrderSage's tidy CSV (``experiment, run_index, order_type, position_in_run, test,
value``; :func:`gate.analysis.order.read_tidy`) or trial logs written by ``ordertrap-gate run
--order-check`` (read as ``analyze`` reads them: :func:`gate.analysis.load.load_trials`), told
apart by the header. Runs the Kruskal-Wallis fixed-vs-random test per test with a
Bonferroni-corrected alpha and the median-CI overlap case (ATC'23 §3, Algorithms 1–2), prints
a table and writes the order-check JSON (docs/contracts.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from gate.analysis.load import load_trials
from gate.analysis.order import TIDY_COLUMNS, check_tidy_columns, order_check_frame, read_tidy
from gate.analysis.pipeline import order_check_of_logs
from gate.errors import InputError
from gate.files import trial_log
from gate.render.names import column

NAME = "order-check"
HELP = "test whether running benchmarks in a fixed order changes their results (OrderSage)"


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


# A trial log for the order check has these columns (docs/contracts.md, trials.csv).
LOG_COLUMNS = frozenset({"benchmark", "version", "suite_run", "order_type", "value"})


def _kind(path: Path) -> str:
    """``tidy`` (OrderSage's tidy CSV) or ``log`` (a trial log), by the file's header."""
    names = trial_log.header(path)
    if names is None:
        raise InputError(f"{path} is empty", fix="run the suite first, or pass the right file")
    if set(TIDY_COLUMNS).issubset(names):
        return "tidy"
    if LOG_COLUMNS.issubset(names):
        return "log"
    check_tidy_columns(names)  # names the tidy columns it lacks
    raise AssertionError("unreachable: a file without every tidy column was refused above")


def _order_check(paths: list[Path], alpha: float) -> dict[str, Any]:
    kinds = {path: _kind(path) for path in paths}
    if len(set(kinds.values())) > 1:
        tidy = ", ".join(str(p) for p, k in kinds.items() if k == "tidy")
        raise InputError(
            f"the inputs mix OrderSage tidy CSV ({tidy}) and trial logs (the others)",
            fix="check the tidy files and the trial logs in separate `ordertrap-gate order-check` commands",
        )
    if "tidy" in kinds.values():
        return order_check_frame(read_tidy(paths), alpha=alpha)
    if not (0.0 < alpha < 1.0):
        raise InputError(f"alpha must be between 0 and 1, got {alpha}", fix="pass e.g. --alpha 0.05")
    # The trial log's one reader and analyze's load rules (cut-off last line, statuses, values,
    # duplicate logs, warm-up), so order-check and analyze test the same trials.
    logs = load_trials(paths)
    result = order_check_of_logs(logs, alpha=alpha)
    if result is None:
        raise InputError(
            "the trial log has no fixed-order runs, so there is nothing to compare",
            fix="record with `ordertrap-gate run --order-check` (alternates fixed and random suite runs)",
        )
    if logs.warnings:
        result = {**result, "warnings": [*logs.warnings, *result.get("warnings", [])]}
    return result


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


NAME_WIDTH = 60  # the name column's width beyond which names are cut in the middle


def _print_table(result: dict[str, Any]) -> None:
    _print_warnings(result.get("warnings", []))
    for exp in result["experiments"]:
        verdict = "ORDER MATTERS" if exp["order_matters"] else "order does not matter"
        print(
            f"\nexperiment {exp['experiment']}: {verdict} (alpha {exp['alpha']}, Bonferroni {exp['alpha_bc']:.3g})"
        )
        names = [str(t["test"]) for t in exp["tests"]]
        # the column fits the longest name (Go and JMH names are long); past NAME_WIDTH names lose
        # their shared path, then their middle, at a width that keeps them apart (gate.render.names)
        longest = max((len(n) for n in names), default=0)
        width, shown = (
            (max(24, longest), {n: n for n in names}) if longest <= NAME_WIDTH else column(names, NAME_WIDTH)
        )
        print(
            f"{'test':<{width}} {'n_f':>4} {'n_r':>4} {'H':>9} {'p':>10} {'eta2':>7} {'delta%':>8} case sig"
        )
        for t in exp["tests"]:
            print(
                f"{shown[str(t['test'])]:<{width}} {t['n_fixed']:>4} {t['n_random']:>4} {_fmt(t['kw_h'], '9.3f')} "
                f"{_fmt(t['kw_p'], '10.3g')} {_fmt(t['eta2'], '7.4f')} {_fmt(t['delta_pct'], '8.3f')} "
                f"{_fmt(t['ci_case'], '>4')} {'yes' if t['significant'] else 'no'}"
            )
        _print_warnings(exp.get("warnings", []))
    print(
        "\ncase 1: median CIs disjoint (the conclusion changes with order); 2: a median lies in the "
        "other CI (unlikely to change); 3: inconclusive."
    )


def run(args: argparse.Namespace) -> int:
    result = _order_check(list(args.trials), args.alpha)
    _print_table(result)
    if args.json is not None:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {args.json}: {exc}", fix="pass a writable --json path") from exc
        print(f"\nwrote {args.json}", file=sys.stderr)
    return 0
