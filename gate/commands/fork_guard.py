"""`ordertrap-gate fork-guard` — may this pull request's code run on the benchmark runner?

Exit 0: go (output ``allowed=true``); 1: refused (``allowed=false``, an error annotation says
why); 2: could not decide (a message with the fix). Inputs come from ``INPUT_ALLOW_FORK_PRS``,
``INPUT_FORK_LABEL`` and ``INPUT_GITHUB_TOKEN`` and the event from ``GITHUB_EVENT_PATH``, as
guard/action.yml and run/action.yml set them (rules: :mod:`gate.github.fork_guard`).
"""

from __future__ import annotations

import argparse
import os

NAME = "fork-guard"
HELP = "decide whether a pull request's code may run on the self-hosted runner (exit 0 go, 1 refused)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # the inputs are INPUT_* environment variables, as the actions pass them


def run(args: argparse.Namespace) -> int:
    from gate.github import fork_guard

    return fork_guard.guard(os.environ)
