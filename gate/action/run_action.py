"""``ordertrap-gate run-action``: everything run/action.yml does after installing the gate.

The composite action installs the venv, runs ``python -I -m gate run-action`` from the
workspace (the checkout) with its inputs in ``INPUT_*``, and uploads the artifact. In order:

1. the inputs, typed and checked (:class:`~gate.action.run_inputs.RunInputs`): every bad one is
   an ``::error`` naming the input and the fix, before anything runs;
2. the fork guard again, as a second layer for workflows without the guard job
   (:mod:`gate.github.fork_guard`);
3. base, head and the revision whose settings apply (:func:`~gate.action.revisions.resolve_revisions`);
4. the artifact folder, emptied (a self-hosted workspace persists between jobs: never upload or
   resume a stale log), and the step outputs ``base``, ``head``, ``artifact``, ``out``, ``dir``:
   from here on the upload step runs whatever happens next;
5. no token reaches the benchmarks: a checkout that stored the job token in the git config
   (actions/checkout's persist-credentials; from v6 in a file ``.git/config`` includes) is
   refused, since every worktree could read it, and the job's tokens are removed from this
   process's environment, which the benchmarks inherit;
6. ``run`` (:func:`gate.commands.run.run_benchmarks`), in process;
7. on ``pull_request``: ``OUT/ordertrap-pr.json`` for a ``workflow_run`` publisher, also after a
   failed or interrupted run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Final

from gate import workflow_commands
from gate.action.revisions import CALIBRATION_OFF, Event, Git, Revisions, resolve_revisions
from gate.action.run_inputs import RunInputs
from gate.commands import call_verb
from gate.commands.run import RunRequest, run_benchmarks
from gate.errors import ConfigError, GateError
from gate.github import fork_guard
from gate.github.context import ActionContext, from_env
from gate.github.event import load_payload, write_pr_info
from gate.github.outputs import write_outputs
from gate.host.worktree import persisted_auth_headers

NAME = "run-action"
HELP = (
    "the run action (run/action.yml): fork check, base and head, artifact folder, then run; "
    "inputs from INPUT_*"
)

# the job's tokens: none of them may reach a benchmark (the PR's code)
TOKEN_VARIABLES: Final = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
)
PR_INFO_FILE: Final = "ordertrap-pr.json"
EXIT_FAILED: Final = 1
# actions/upload-artifact refuses these characters in a name
_ARTIFACT_NAME = str.maketrans({c: "-" for c in ' :<>|*?\\/"'})

Runner = Callable[[RunRequest], int]


def error(message: str, fix: str) -> None:
    workflow_commands.emit("error", f"{message}; fix: {fix}", {"title": "ordertrap-gate"})


def artifact_name(inputs: RunInputs, runner_name: str) -> str:
    """The input, else ``ordertrap-trials-[shard-K-of-N-]<runner>``: unique per runner and shard."""
    shard = f"shard-{inputs.shard.index}-of-{inputs.shard.count}-" if inputs.shard else ""
    return (inputs.artifact_name or f"ordertrap-trials-{shard}{runner_name}").translate(_ARTIFACT_NAME)


def run_request(inputs: RunInputs, revisions: Revisions, out: Path, environ: Mapping[str, str]) -> RunRequest:
    """``run``'s arguments. The seed defaults to the run id, so a re-run reproduces the order and
    every shard of a matrix gets the same one (the split depends on it). The order check measures
    fixed and random orders as planned: no follow-up budget reaches it."""
    run_id = environ.get("GITHUB_RUN_ID", "")
    seed = inputs.seed if inputs.seed is not None else int(run_id) if run_id.isdigit() else None
    rounds = not inputs.order_check
    return RunRequest(
        config=inputs.config,
        base=revisions.base,
        head=revisions.head,
        out=out,
        seed=seed,
        instance=inputs.instance or environ.get("RUNNER_NAME") or None,
        shard=str(inputs.shard) if inputs.shard else None,
        budget=inputs.budget if rounds else None,
        max_rounds=inputs.max_rounds if rounds else None,
        config_from=revisions.config_from,
        config_rev=revisions.config_rev,
        calibration=revisions.calibration,
        order_check=inputs.order_check,
        # only the workflow can turn the sandbox off on GitHub (gate/config/trusted_keys.py)
        sandbox=inputs.sandbox,
    )


def _fresh_folder(out: str, name: str) -> Path:
    root = Path(out)
    if Path.cwd().resolve().is_relative_to(root.resolve()):
        raise ConfigError(
            f"the input out ({out}) is the workspace or a folder around it, which would be emptied",
            "set out to a folder of its own, e.g. out: ordertrap-trials",
        )
    if root.is_symlink() or root.is_file():
        root.unlink()
    elif root.exists():
        shutil.rmtree(root)
    (root / name).mkdir(parents=True)
    return root / name


def _token_check(checkout: Path) -> bool:
    """True when no stored token is found (else the ``::error`` is written)."""
    try:
        found = persisted_auth_headers(checkout)
    except GateError as exc:
        print(f"ordertrap-gate run-action: error: {exc}", file=sys.stderr)
        error(f"the check for a stored token failed ({exc.message})", "report it with this log")
        return False
    for key, config_file in found:  # the key and file, never the value
        print(f"{key} in {config_file}", file=sys.stderr)
    if found:
        error(
            "the checkout stored the job token in the git config, where the benchmarks (the PR's code) could "
            "read it",
            "add 'persist-credentials: false' to actions/checkout",
        )
    return not found


def _measure(
    inputs: RunInputs, revisions: Revisions, folder: Path, environ: MutableMapping[str, str], run: Runner
) -> int:
    if not _token_check(Path.cwd()):
        return EXIT_FAILED
    request = run_request(inputs, revisions, folder, environ)
    for name in TOKEN_VARIABLES:
        environ.pop(name, None)
    if inputs.calibration == CALIBRATION_OFF:
        print("ordertrap-gate: calibration: none, running the full configuration")
    elif revisions.calibration:
        print(
            f"ordertrap-gate: using the calibrated minimal configurations in {revisions.calibration} "
            f"(from the {revisions.config_from} revision)"
        )
    # an error or Ctrl-C ends `run` as on the command line; the PR info is written after it
    return call_verb("run", lambda: run(request))


def _store_pr_info(context: ActionContext, path: Path) -> int:
    try:
        info = write_pr_info(context, path)
    except (GateError, OSError) as exc:
        print(f"ordertrap-gate pr-info: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {path}: PR #{info['pr_number']} head {info['head_sha']}")
    return 0


def main(environ: MutableMapping[str, str] | None = None, run: Runner = run_benchmarks) -> int:
    """The steps of the module docstring; ``environ`` (default ``os.environ``, which the benchmarks
    inherit) loses the tokens before ``run`` starts."""
    env = os.environ if environ is None else environ
    inputs, problems = RunInputs.from_env(env)
    for problem, fix in problems:
        error(problem, fix)
    if problems:
        return EXIT_FAILED
    context = from_env(env)
    refused = call_verb("fork-guard", lambda: fork_guard.guard(env))  # its messages, as on its own
    if refused:
        return refused
    try:
        revisions = resolve_revisions(
            Event.from_payload(context.event_name, context.sha, load_payload(context)),
            base=inputs.base,
            head=inputs.head,
            calibration=inputs.calibration,
            git=Git(Path.cwd()),
        )
        print(f"ordertrap-gate: base {revisions.base}, head {revisions.head}")
        name = artifact_name(inputs, env.get("RUNNER_NAME", ""))
        folder = _fresh_folder(inputs.out, name)
    except ConfigError as exc:
        error(exc.message, exc.fix)
        return EXIT_FAILED
    write_outputs(
        context.output_path,
        {
            "base": revisions.base,
            "head": revisions.head,
            "artifact": name,
            "out": inputs.out,
            "dir": f"{inputs.out}/{name}",
        },
    )
    pr_info = Path(inputs.out) / PR_INFO_FILE if context.event_name == "pull_request" else None
    try:
        status = _measure(inputs, revisions, folder, env, run)
    except BaseException:
        if pr_info is not None:
            _store_pr_info(context, pr_info)
        raise
    if pr_info is not None:
        stored = _store_pr_info(context, pr_info)
        status = status or stored
    return status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # the inputs are INPUT_* environment variables, as run/action.yml passes them


def run(args: argparse.Namespace) -> int:
    del args
    return main()
