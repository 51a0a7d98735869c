"""`ordertrap-gate report` — TEMPORARY STUB, replaced by the module's owner."""

from __future__ import annotations

import argparse

from gate.errors import GateError

NAME = "report"
HELP = "(not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise GateError("report is not implemented yet")
