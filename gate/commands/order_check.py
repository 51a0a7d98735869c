"""`ordertrap-gate order-check` — TEMPORARY STUB, replaced by the module's owner."""

from __future__ import annotations

import argparse

from gate.errors import GateError

NAME = "order-check"
HELP = "(not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise GateError("order-check is not implemented yet")
