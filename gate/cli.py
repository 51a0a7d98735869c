"""Command-line entry point: ``ordertrap-gate`` / ``python -m gate``.

Each subcommand lives in its own module under :mod:`gate.commands` and exposes
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``. This is the only place
that turns a :class:`~gate.errors.GateError` into a message and an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gate import __version__
from gate.errors import GateError

# Subcommand modules, in the order they appear in ``--help`` (the order of the pipeline).
COMMAND_MODULES: tuple[str, ...] = (
    "gate.commands.run",
    "gate.commands.analyze",
    "gate.commands.order_check",
    "gate.commands.calibrate",
    "gate.commands.report",
    "gate.commands.publish",
)

EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ordertrap-gate",
        description="CI performance regression gate: randomized interleaved trials of base and head, "
        "bootstrap verdicts, order-effect checks and µOpTime calibration.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args))
    except GateError as exc:
        print(f"ordertrap-gate {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"ordertrap-gate {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
