"""`ordertrap-gate action` — the root Docker action: analyze, HTML report, publish.

The image runs ``python -I -u -B -m gate`` with ``action`` as its default argument (Dockerfile
``ENTRYPOINT`` + ``CMD``); the inputs arrive in ``INPUT_*`` variables (action.yml ``runs.env``),
so this command takes no options. :func:`gate.github.entrypoint.main` is the action's last-resort
boundary: it publishes a status ``error`` for any failure before the exit code is returned.
"""

from __future__ import annotations

import argparse

NAME = "action"
HELP = "the Docker action (action.yml): analyze the trial logs, write the HTML report, publish; inputs from INPUT_*"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # the inputs are INPUT_* environment variables, as GitHub passes them


def run(args: argparse.Namespace) -> int:
    from gate.github import entrypoint

    return entrypoint.main()
