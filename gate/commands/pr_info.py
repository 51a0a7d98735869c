"""`ordertrap-gate pr-info PATH` — store the pull request's number and SHAs beside the trial logs.

run/action.yml writes the same file on ``pull_request`` events (``run-action``, in process); a ``workflow_run`` publisher reads it back
(``pr_info`` input) and checks it against the API before it comments (:mod:`gate.github.event`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "pr-info"
HELP = "write the pull request's number, head and base SHAs from the event to PATH (read by a workflow_run publisher)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="where to write the JSON file (ordertrap-pr.json)")


def run(args: argparse.Namespace) -> int:
    from gate.github.context import from_env
    from gate.github.event import write_pr_info

    info = write_pr_info(from_env(), Path(args.path))
    print(f"wrote {args.path}: PR #{info['pr_number']} head {info['head_sha']}")
    return 0
