"""`ordertrap-gate check-credentials [REPO]` — refuse a checkout that stored the job's token.

Exit 3 and name each git config file (never the value) that holds an ``http.*extraheader``
(actions/checkout's ``persist-credentials``): every worktree of the repository, and so every
benchmark, could read it. Exit 0 when none is found, 2 when the configuration cannot be read.
run/action.yml makes the same check before the benchmarks start (``run-action``, in process;
:func:`gate.host.worktree.persisted_auth_headers`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "check-credentials"
HELP = "exit 3 if the repository's git config stores a token the benchmarks could read (checkout's persist-credentials)"
EXIT_TOKEN_FOUND = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", metavar="REPO", nargs="?", default=".", help="the checkout (default: .)")


def run(args: argparse.Namespace) -> int:
    from gate.host.worktree import persisted_auth_headers

    found = persisted_auth_headers(Path(args.repo))
    for key, config_file in found:
        print(f"{key} in {config_file}", file=sys.stderr)
    return EXIT_TOKEN_FOUND if found else 0
