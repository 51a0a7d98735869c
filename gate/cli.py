"""Command-line entry point: ``ordertrap-gate`` / ``python -m gate``.

Each subcommand lives in its own module under :mod:`gate.commands` and exposes
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``, run through
:func:`gate.commands.call_verb`, the one place that turns a :class:`~gate.errors.GateError` into a
message and an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence

from gate import __version__, commands

# Subcommands in pipeline order: (name, module, one-line help). Only the module of the command
# being run is imported, so ``ordertrap-gate run`` and ``--help`` do not pay for scipy, pandas and
# matplotlib (about 2 s here). tests/unit/test_cli.py keeps this table equal to each module's
# own NAME and HELP.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "run",
        "gate.commands.run",
        "run the benchmark suite for base and head in a randomized interleaved (RMIT) order",
    ),
    (
        "analyze",
        "gate.commands.analyze",
        "compare base and head in trial logs: bootstrap CIs, verdicts, order/carry-over/similarity flags",
    ),
    (
        "order-check",
        "gate.commands.order_check",
        "test whether running benchmarks in a fixed order changes their results (OrderSage)",
    ),
    (
        "calibrate",
        "gate.commands.calibrate",
        "µOpTime: per benchmark, the cheapest stable configuration from a full-configuration trial log "
        "(writes .ordertrap/calibration.json; --audit replays version pairs)",
    ),
    (
        "report",
        "gate.commands.report",
        "render analysis.json as a PR comment, a job summary or a self-contained HTML report",
    ),
    (
        "publish",
        "gate.commands.publish",
        "publish analysis.json to GitHub: PR comment, commit status, job summary, outputs",
    ),
    (
        "history",
        "gate.commands.history",
        "keep nightly results on a history branch: add, import, change points (Apache Otava), trend page, issue",
    ),
    # the steps the GitHub actions and example workflows run (action.yml, guard/, run/, examples/)
    (
        "action",
        "gate.action.entrypoint",
        "the Docker action (action.yml): analyze the trial logs, write the HTML report, publish; inputs from INPUT_*",
    ),
    (
        "run-action",
        "gate.action.run_action",
        "the run action (run/action.yml): fork check, base and head, artifact folder, then run; "
        "inputs from INPUT_*",
    ),
    (
        "fork-guard",
        "gate.commands.fork_guard",
        "decide whether a pull request's code may run on the self-hosted runner (exit 0 go, 1 refused)",
    ),
    (
        "pr-info",
        "gate.commands.pr_info",
        "write the pull request's number, head and base SHAs from the event to PATH (read by a workflow_run publisher)",
    ),
    (
        "check-credentials",
        "gate.commands.check_credentials",
        "exit 3 if the repository's git config stores a token the benchmarks could read (checkout's persist-credentials)",
    ),
    (
        "calibration-diff",
        "gate.commands.calibration_diff",
        "Markdown of what changed between two calibration files (the nightly recalibration PR's body)",
    ),
)

EXIT_INTERRUPTED = commands.EXIT_INTERRUPTED


def build_parser(load: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; ``load`` names the subcommands whose options are added (None = all)."""
    wanted = None if load is None else set(load)
    parser = argparse.ArgumentParser(
        prog="ordertrap-gate",
        description="CI performance regression gate: randomized interleaved trials of base and head, "
        "bootstrap verdicts, order-effect checks and µOpTime calibration.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name, module_name, help_text in COMMANDS:
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if wanted is None or name in wanted:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # The first word that is not an option names the subcommand (there are no global options
    # taking a value); load only that one.
    chosen = next((a for a in argv if not a.startswith("-")), None)
    known = {name for name, _, _ in COMMANDS}
    parser = build_parser([chosen] if chosen in known else [])
    args = parser.parse_args(argv)
    return commands.call_verb(args.command, lambda: args._run(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
