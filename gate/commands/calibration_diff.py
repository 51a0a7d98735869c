"""`ordertrap-gate calibration-diff OLD NEW` — Markdown of what changed between two calibrations.

Printed to stdout; examples/workflows/perf-nightly.yml uses it as the recalibration pull
request's body. OLD may be missing (the first calibration); NEW must be a calibration file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "calibration-diff"
HELP = "Markdown of what changed between two calibration files (the nightly recalibration PR's body)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "old", metavar="OLD.json", help="the committed calibration (may be missing: first calibration)"
    )
    parser.add_argument("new", metavar="NEW.json", help="the file `ordertrap-gate calibrate --out` wrote")


def run(args: argparse.Namespace) -> int:
    from gate.github.calibration_diff import calibration_diff

    sys.stdout.write(calibration_diff(Path(args.old), Path(args.new)))
    return 0
