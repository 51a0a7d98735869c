"""Entrypoint of the root Docker action: ``python -I -m gate.github.entrypoint`` (Dockerfile).

GitHub runs the image with the workspace mounted at ``/github/workspace`` (also the working
directory) and the inputs in ``INPUT_*`` as mapped in ``action.yml``'s ``runs.env``. This maps
them explicitly onto the CLI, in three steps:

1. ``ordertrap-gate analyze TRIALS... --json REPORT_DIR/analysis.json`` (+ base, head,
   statistic, confidence, threshold_pct when given);
2. ``ordertrap-gate report REPORT_DIR/analysis.json --format html`` (a failure here is a warning:
   the verdict does not depend on the HTML report);
3. publish (comment, status, summary, outputs) with the settings read once at the start.

The token is read once into the settings and removed from this process's environment before
``analyze`` starts, so nothing the gate spawns can see it. Paths given back as outputs are
relative to the workspace, because later steps run on the host, where ``/github/workspace``
does not exist.
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

from gate import cli
from gate.commands import publish as publish_cmd
from gate.errors import ConfigError, GateError
from gate.github import outputs, workflow_commands
from gate.github.client import make_client
from gate.github.context import ActionSettings, from_env

DEFAULT_REPORT_DIR = "ordertrap-report"
TOKEN_VARIABLES = ("INPUT_GITHUB_TOKEN", "GITHUB_TOKEN")


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


def analyze_args(settings: ActionSettings, trials: list[Path], analysis: Path) -> list[str]:
    args = ["analyze", *map(str, trials), "--json", str(analysis)]
    for flag, value in (
        ("--base", settings.base),
        ("--head", settings.head),
        ("--statistic", settings.statistic),
        ("--confidence", settings.confidence),
        ("--threshold-pct", settings.threshold_pct),
    ):
        if value:
            args += [flag, value]
    return args


def _cli(args: list[str]) -> int:
    """Run a gate subcommand in process; an argparse error (SystemExit) is a failed step too."""
    try:
        return cli.main(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def relative_to(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    with workflow_commands.inert_output():
        return _main()


def _main() -> int:
    try:
        settings = from_env()
    except GateError as exc:
        print(f"ordertrap-gate action: error: {exc}", file=sys.stderr)
        return exc.exit_code
    for name in TOKEN_VARIABLES:  # nothing spawned from here on can read the token
        os.environ.pop(name, None)

    root = settings.workspace or Path.cwd()
    report_dir = Path(settings.report_dir or DEFAULT_REPORT_DIR)
    if not report_dir.is_absolute():
        report_dir = root / report_dir
    report_dir.mkdir(parents=True, exist_ok=True)
    analysis = report_dir / "analysis.json"
    report = report_dir / "report.html"
    analysis.unlink(missing_ok=True)  # never publish a stale analysis from an earlier step

    try:
        trials = expand_trials(settings.trials, root)
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
            code = _cli(analyze_args(settings, trials, analysis))
        if code != 0:
            print(f"ordertrap-gate action: analyze exited {code}; publishing status `error`", file=sys.stderr)
    report_path = ""
    if analysis.is_file():
        with workflow_commands.group("HTML report"), workflow_commands.stop_commands():
            args = ["report", str(analysis), "--format", "html", "--out", str(report)]
            if settings.calibration and (root / settings.calibration).is_file():
                args += ["--calibration", str(root / settings.calibration)]
            if settings.run_url:
                args += ["--run-url", settings.run_url]
            if _cli(args) == 0:
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
            pr_info=root / settings.pr_info if settings.pr_info else None,
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
