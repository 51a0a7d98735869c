"""`ordertrap-gate report` — render analysis.json as a PR comment, a job summary or an HTML report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gate.decision import Decision
from gate.errors import ConfigError, InputError
from gate.files import analysis_json, calibration_json
from gate.render import MAX_PLOTS, RenderContext, render
from gate.render.render import Format
from gate.workflow_commands import on_github

NAME = "report"
HELP = "render analysis.json as a PR comment, a job summary or a self-contained HTML report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "analysis", metavar="ANALYSIS.json", help="the file written by `ordertrap-gate analyze`"
    )
    parser.add_argument(
        "--format",
        choices=("comment", "summary", "html"),
        default="comment",
        help="comment: the PR comment (Markdown, ≤ 65,536 characters); summary: the job summary with "
        "every benchmark (Markdown, ≤ 1 MiB); html: one self-contained file with plots (default: comment)",
    )
    parser.add_argument(
        "--out", metavar="PATH", help="write here (default: stdout; required for --format html)"
    )
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="calibration.json for the instability-vs-cost view of the HTML report",
    )
    parser.add_argument(
        "--template-dir",
        metavar="DIR",
        help="your own templates: a file there named like a built-in one (comment.md.j2, summary.md.j2, "
        'report.html.j2) replaces it and may {%% extends "builtin/comment.md.j2" %%} to override single blocks',
    )
    parser.add_argument(
        "--max-plots",
        type=int,
        default=MAX_PLOTS,
        metavar="N",
        help=f"benchmark figures in the HTML report, attention first (default: {MAX_PLOTS}); the table lists all",
    )
    parser.add_argument("--run-url", metavar="URL", help="link to the workflow run")
    parser.add_argument("--report-url", metavar="URL", help="link to the HTML report (e.g. the artifact)")
    parser.add_argument(
        "--decision", choices=[d.value for d in Decision], help="override the analysis decision"
    )


def report(
    analysis: str | Path,
    *,
    format: Format = "comment",
    out: str | Path | None = None,
    calibration: str | Path | None = None,
    template_dir: str | Path | None = None,
    max_plots: int = MAX_PLOTS,
    run_url: str | None = None,
    report_url: str | None = None,
    decision: str | None = None,
) -> str:
    """The keyword core of ``report`` (its flags' names and defaults): render ``analysis``, write
    it to ``out`` (else stdout) and return the text."""
    if format == "html" and not out:
        raise ConfigError(
            "--format html writes a file, not stdout",
            "add --out PATH, e.g. --out demo-output/report.html",
        )
    if max_plots < 0:
        raise ConfigError(f"--max-plots must be 0 or more, got {max_plots}", "pass e.g. --max-plots 20")
    if template_dir and not Path(template_dir).is_dir():
        raise ConfigError(
            f"--template-dir {template_dir} is not a directory",
            "create it with your template (e.g. comment.md.j2) or drop --template-dir",
        )
    document = analysis_json.read(analysis)
    context = RenderContext(
        decision=decision,
        run_url=run_url,
        report_url=report_url,
        calibration=calibration_json.read(calibration) if calibration else None,
        template_dir=str(Path(template_dir).resolve()) if template_dir else None,
        max_plots=max_plots,
        local=not on_github(),
    )
    text = render(document, format, context)
    if out:
        path = Path(out)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc}", "choose a writable --out path") from None
        print(f"wrote {path}")  # as analyze and calibrate say where their file went
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return text


def run(args: argparse.Namespace) -> int:
    report(
        args.analysis,
        format=args.format,
        out=args.out,
        calibration=args.calibration,
        template_dir=args.template_dir,
        max_plots=args.max_plots,
        run_url=args.run_url,
        report_url=args.report_url,
        decision=args.decision,
    )
    return 0
