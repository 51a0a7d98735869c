"""The root Docker action, ``ordertrap-gate action`` (the image runs ``python -I -m gate action``).

GitHub runs the image with the workspace mounted at ``/github/workspace`` (also the working
directory) and the inputs in ``INPUT_*`` as mapped in ``action.yml``'s ``runs.env``, read once
into typed settings (:class:`gate.github.context.ActionInputs`). The verbs' keyword cores are
called with them in process, each through :func:`gate.commands.call_verb` (an error ends the verb
as on the command line), in three steps:

1. ``analyze`` of the trial logs into ``REPORT_DIR/analysis.json`` (with base, head, statistic,
   bootstrap, confidence, threshold_pct when given);
2. ``report`` of it as ``REPORT_DIR/report.html`` (a failure here is a warning: the verdict does
   not depend on the HTML report);
3. publish (comment, status, summary, outputs) with the settings read once at the start.

The token is read once into the settings and removed from this process's environment before
``analyze`` starts, so nothing the gate spawns can see it. Paths given back as outputs are
relative to the workspace, because later steps run on the host, where ``/github/workspace``
does not exist.

Every failure still publishes something: :func:`main` is the one last-resort boundary. An
exception nothing else handled (a bug, or input no check foresaw) is logged with its traceback,
and the commit status ``error`` gets a one-line reason (its type and message, with the token
masked, never the traceback), the job summary says what to do, the outputs say
``decision=error``, and the step exits :data:`EXIT_INTERNAL`. Invalid inputs (a ``fail_on`` that
is not a choice, a ``threshold_pct`` that is not a number) are published the same way, with
the other inputs as given and the invalid ones at their defaults.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Final

from gate import workflow_commands
from gate.commands import analyze as analyze_cmd
from gate.commands import call_verb
from gate.commands import publish as publish_cmd
from gate.commands import report as report_cmd
from gate.errors import ConfigError, GateError
from gate.github import outputs
from gate.github.client import make_client
from gate.github.context import DEFAULT_REPORT_DIR, ActionContext, ActionInputs, from_env
from gate.github.event import load_event

TOKEN_VARIABLES = ("INPUT_GITHUB_TOKEN", "GITHUB_TOKEN")
# sysexits(3) EX_SOFTWARE, "an internal software error has been detected": apart from 1 (the
# gate failed) and 2 (an input or API error the message explains)
EXIT_INTERNAL: Final = 70
INTERNAL_FIX: Final = (
    "this is a bug in ordertrap-gate or an input it does not check yet: please report it with the "
    "traceback from this step's log; re-running helps only if the cause was passing"
)


def expand_trials(patterns: tuple[str, ...], root: Path) -> list[Path]:
    """Paths or globs (``**`` allowed), relative to the workspace; sorted, without duplicates."""
    if not patterns:
        raise ConfigError(
            "the `trials` input is empty",
            fix="set `trials:` to the trial logs, e.g. `trials: trials/**/trials.csv` after actions/download-artifact",
        )
    found: dict[str, Path] = {}
    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else str(root / pattern)
        matches = sorted(glob.glob(full, recursive=True))
        for match in matches:
            path = Path(match)
            if path.is_dir() and (path / "trials.csv").is_file():
                path = path / "trials.csv"
            if path.is_file():
                found.setdefault(str(path), path)
    if not found:
        raise ConfigError(
            f"no trial log matches `trials: {' '.join(patterns)}` under {root}",
            fix="download the trial artifacts before this step (actions/download-artifact with `path:`), "
            "and give paths relative to the workspace",
        )
    return list(found.values())


def analyze_options(inputs: ActionInputs) -> dict[str, Any]:
    """``analyze``'s keyword arguments from the checked inputs (an input not given leaves
    analyze's default, as a flag not given does)."""
    given = {
        "base": inputs.base,
        "head": inputs.head,
        "statistic": inputs.statistic,
        "bootstrap": inputs.bootstrap,
        "confidence": inputs.confidence,
        "threshold_pct": inputs.threshold_pct,
    }
    return {name: value for name, value in given.items() if value}


def _analyze(inputs: ActionInputs, trials: list[Path], analysis: Path) -> int:
    analyze_cmd.analyze(trials, analysis, **analyze_options(inputs))
    return 0


def _report(analysis: Path, report: Path, calibration: Path | None, run_url: str | None) -> int:
    report_cmd.report(analysis, format="html", out=report, calibration=calibration, run_url=run_url)
    return 0


def relative_to(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    with workflow_commands.inert_output():
        try:
            settings = from_env()
        except GateError as exc:
            print(f"ordertrap-gate action: error: {exc}", file=sys.stderr)
            _publish_failure(_settings_despite_inputs(), f"invalid action input: {exc.message}", exc.fix)
            return exc.exit_code
        for name in TOKEN_VARIABLES:  # nothing spawned from here on can read the token
            os.environ.pop(name, None)
        try:
            return _main(settings)
        except Exception as exc:  # the last-resort boundary (module docstring)
            secret = settings.token.reveal()
            trace = "".join(traceback.format_exception(exc))
            print(_masked(trace, secret), file=sys.stderr, end="")
            kind = type(exc).__qualname__
            if type(exc).__module__ != "builtins":
                kind = f"{type(exc).__module__}.{kind}"  # _csv.Error, not a bare "Error"
            reason = _masked(" ".join(f"{kind}: {exc}".split()), secret)
            print(f"ordertrap-gate action: internal error: {reason}", file=sys.stderr)
            _publish_failure(settings, f"internal error: {reason}", INTERNAL_FIX)
            return EXIT_INTERNAL


def _masked(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text


def _settings_despite_inputs() -> ActionContext:
    """The settings with the invalid inputs at their defaults: enough to publish the error."""
    return from_env(fallback=True)


def _publish_failure(settings: ActionContext, reason: str, fix: str) -> None:
    """Status ``error`` (where a commit may carry it), summary and outputs; logs, never raises."""
    root = settings.workspace or Path.cwd()
    repo = None
    sha = None
    try:
        if settings.token and settings.repository:
            repo = make_client(settings).get_repo(settings.repository)
        event = load_event(settings, root / settings.inputs.pr_info if settings.inputs.pr_info else None)
        if repo is not None and event.from_artifact and event.pr_number:
            publish_cmd.verify_pr_head(repo, event)  # workflow_run: only on a verified PR's head
        sha = event.head_sha
    except Exception as exc:  # the error path itself must not end the step
        print(f"ordertrap-gate action: no commit status is set: {exc}", file=sys.stderr)
    try:
        publish_cmd.publish_error(settings, reason, fix, repo=repo if sha else None, sha=sha)
    except Exception as exc:
        print(f"ordertrap-gate action: the error could not be published: {exc}", file=sys.stderr)


def _main(settings: ActionContext) -> int:
    root = settings.workspace or Path.cwd()
    report_dir = Path(settings.inputs.report_dir or DEFAULT_REPORT_DIR)
    if not report_dir.is_absolute():
        report_dir = root / report_dir
    report_dir.mkdir(parents=True, exist_ok=True)
    analysis = report_dir / "analysis.json"
    report = report_dir / "report.html"
    analysis.unlink(missing_ok=True)  # never publish a stale analysis from an earlier step

    try:
        trials = expand_trials(settings.inputs.trials, root)
    except ConfigError as exc:
        print(f"ordertrap-gate action: error: {exc}", file=sys.stderr)
        trials = []
    if trials:
        # analyze prints benchmark names and messages from the trial logs (in the fork-safe pattern
        # they come from a fork's artifact): fenced, so none of them can issue a workflow command.
        with (
            workflow_commands.group(f"analyze {len(trials)} trial log(s)"),
            workflow_commands.stop_commands(),
        ):
            code = call_verb("analyze", lambda: _analyze(settings.inputs, trials, analysis))
        if code != 0:
            print(f"ordertrap-gate action: analyze exited {code}; publishing status `error`", file=sys.stderr)
    report_path = ""
    if analysis.is_file():
        with workflow_commands.group("HTML report"), workflow_commands.stop_commands():
            calibration = root / settings.inputs.calibration if settings.inputs.calibration else None
            if calibration is not None and not calibration.is_file():
                calibration = None
            if call_verb("report", lambda: _report(analysis, report, calibration, settings.run_url)) == 0:
                report_path = relative_to(report, root)
            else:
                outputs.warning(
                    "the HTML report could not be written; the verdict below does not depend on it"
                )

    try:
        client = make_client(settings) if settings.token and settings.repository else None
        result = publish_cmd.publish(
            settings,
            analysis,
            client=client,
            pr_info=root / settings.inputs.pr_info if settings.inputs.pr_info else None,
            report_path=report_path or None,
            # the example workflows upload report_path as the `ordertrap-report` artifact, which the
            # run page lists under Artifacts
            report_url=f"{settings.run_url}#artifacts" if report_path and settings.run_url else None,
        )
    except GateError as exc:
        print(f"ordertrap-gate action: error: {exc}", file=sys.stderr)
        return exc.exit_code
    assert result.outcome is not None
    return result.outcome.exit_code


# ``ordertrap-gate action``: the image runs ``python -I -u -B -m gate`` with ``action`` as its default
# argument (Dockerfile ``ENTRYPOINT`` + ``CMD``); the inputs arrive in ``INPUT_*`` variables
# (action.yml ``runs.env``), so the command takes no options. It sits above the CLI it drives
# (docs/development.md, "Layers"); gate.cli loads it by name like every command.
NAME = "action"
HELP = "the Docker action (action.yml): analyze the trial logs, write the HTML report, publish; inputs from INPUT_*"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # the inputs are INPUT_* environment variables, as GitHub passes them


def run(args: argparse.Namespace) -> int:
    del args
    return main()
