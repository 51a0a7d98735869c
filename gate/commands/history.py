"""`ordertrap-gate history` — keep the nightly results on a branch and watch them for change points.

Verbs: ``add`` (a nightly trial log), ``import`` (github-action-benchmark, pytest-benchmark, asv),
``changes`` (change points as JSON), ``report`` (the HTML trend page), ``issue`` (open or update
the one GitHub issue that lists new change points), ``bisect`` (the commits inside a change
point's range and the gate runs that name the one). Each takes ``--store DIR``: the checkout of
the history branch (docs/history.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gate.bidi import json_for_terminal
from gate.errors import ConfigError, InputError

if TYPE_CHECKING:
    from gate.history.store import Entry

NAME = "history"
HELP = (
    "keep nightly results on a history branch: add, import, change points (Apache Otava), trend page, issue"
)


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", required=True, metavar="DIR", help="the checkout of the history branch")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    add = verbs.add_parser("add", help="add a nightly trial log: one entry per version and benchmark")
    add.add_argument("trials", nargs="+", metavar="TRIALS.csv", help="the trial log(s) of one run")
    _store_arg(add)
    add.add_argument(
        "--versions",
        metavar="OLD,...,NEW",
        help="the log's versions in commit order (default: meta.json base,head)",
    )
    add.add_argument(
        "--date",
        metavar="ISO",
        help="when the run was measured, UTC like 2026-11-26T02:17:00Z (default: meta.json)",
    )
    add.add_argument(
        "--run-id", metavar="ID", help="the run's id (default: a hash of the log, so a log is added once)"
    )
    add.add_argument("--runner", metavar="NAME", help="the machine (default: meta.json instance)")
    add.add_argument(
        "--pr",
        type=int,
        metavar="N",
        help="the log measured pull request N: its entries are marked `pr` and stay out of the branch's series",
    )
    imp = verbs.add_parser(
        "import", help="import github-action-benchmark data.js/data.json, pytest-benchmark JSON, asv results"
    )
    imp.add_argument(
        "files", nargs="+", metavar="FILE", help="files, or an asv results folder (machine.json is skipped)"
    )
    _store_arg(imp)
    imp.add_argument(
        "--format", choices=("github-action-benchmark", "pytest-benchmark", "asv"), help="(default: detected)"
    )
    imp.add_argument(
        "--machine",
        metavar="NAME",
        help="the runner that measured these files: a data.js names none, so data.js files of different "
        "runners stay separate series only when each is named (default: asv's machine, pytest-benchmark's "
        "machine_info)",
    )
    imp.add_argument(
        "--allow-dirty",
        action="store_true",
        help="import pytest-benchmark runs of uncommitted code (commit_info.dirty), marked dirty",
    )
    ch = verbs.add_parser("changes", help="change points of every benchmark's series as JSON")
    _store_arg(ch)
    ch.add_argument("--json", metavar="OUT", help="write the document here (default: stdout)")
    ch.add_argument(
        "--window", type=int, default=None, metavar="N", help="Otava's window in commits (default: 30)"
    )
    ch.add_argument(
        "--max-pvalue", type=float, default=None, metavar="P", help="Otava's significance (default: 0.001)"
    )
    ch.add_argument("--include-pr", action="store_true", help="also use entries marked `pr` (not the branch)")
    rep = verbs.add_parser("report", help="the self-contained HTML trend page")
    _store_arg(rep)
    rep.add_argument("--out", required=True, metavar="PATH", help="the HTML file to write")
    rep.add_argument(
        "--repo-url", metavar="URL", help="https://github.com/OWNER/REPO: links commits and ranges"
    )
    rep.add_argument("--title", metavar="TEXT")
    rep.add_argument(
        "--changes",
        metavar="CHANGES.json",
        help="draw the change points of this file (written by `history changes --json` from the same store) "
        "instead of finding them again (default: found here, with the defaults of `history changes`)",
    )
    bis = verbs.add_parser(
        "bisect", help="the commits inside a change point's range and the gate runs that name the one"
    )
    bis.add_argument("before", metavar="BEFORE", help="the change point's `before` commit")
    bis.add_argument("after", metavar="AFTER", help="the change point's `after` commit")
    bis.add_argument("--repo", default=".", metavar="DIR", help="a clone with both commits (default: .)")
    iss = verbs.add_parser(
        "issue", help="open or update the one issue listing new change points (needs GITHUB_TOKEN)"
    )
    iss.add_argument("changes", metavar="CHANGES.json", help="the file written by `history changes --json`")
    iss.add_argument("--repo", metavar="OWNER/REPO", help="(default: GITHUB_REPOSITORY)")
    iss.add_argument(
        "--recent",
        type=int,
        default=7,
        metavar="N",
        help="report change points of the last N days (default: 7)",
    )
    iss.add_argument("--report-url", metavar="URL", help="link to the published trend page")
    iss.add_argument("--run-url", metavar="URL", help="link to the workflow run")


def _write(text: str, out: str | None, is_json: bool = False) -> None:
    if out:
        path = Path(out)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            what = "is a folder" if path.is_dir() else f"cannot be written ({exc.strerror or exc})"
            raise InputError(
                f"{out} {what}",
                "pass a file path whose folder exists or can be created (e.g. --out history/index.html)",
            ) from exc
    else:
        sys.stdout.write(json_for_terminal(text) if is_json else text)


def _files_text(written: dict[str, int]) -> str:
    names = sorted(written)
    if len(names) <= 3:
        return ", ".join(f"{written[f]} in data/{f}" for f in names)
    return f"in {len(names)} month files, data/{names[0]} … data/{names[-1]}"


def _add(args: argparse.Namespace) -> int:
    from gate.github.context import from_env
    from gate.history.add import entries_from_trials
    from gate.history.store import Store

    event = from_env().event_name
    if args.pr is None and event.startswith("pull_request"):
        # A PR's head is not the branch: its measurements never enter the history unmarked.
        raise ConfigError(
            f"this is a {event} run, and its measurements are not the branch's",
            "pass --pr NUMBER to keep them marked as a pull request's, or add only nightly/push runs",
        )
    versions = [v.strip() for v in args.versions.split(",") if v.strip()] if args.versions else None
    entries = entries_from_trials(
        args.trials,
        versions=versions,
        run_id=args.run_id,
        date=args.date,
        source="pr" if args.pr is not None else "nightly",
        pr=args.pr,
        runner=args.runner,
    )
    written = Store(args.store).append(entries)
    print(f"history add: {len(entries)} entries ({_files_text(written)})")
    return 0


def _import(args: argparse.Namespace) -> int:
    from gate.history.importers import ImportOptions, import_paths
    from gate.history.store import Store

    got = import_paths(
        args.files, args.format, ImportOptions(machine=args.machine, allow_dirty=args.allow_dirty)
    )
    if got.skipped:
        print(f"history import: skipped {got.skipped_text()}")
    if not got.entries:
        raise InputError(
            f"no benchmark result in {', '.join(args.files[:3])}",
            "pass the files the tool wrote (asv: results/MACHINE/*.json with at least one non-null result)",
        )
    store = Store(args.store)
    new, known = store.only_new(got.entries)
    written = store.append(new)
    files = _files_text(written)
    already = f"; {known} already in the history, not stored again" if known else ""
    print(
        f"history import: {len(new)} new entries from {got.files} file(s){f' ({files})' if files else ''}{already}"
    )
    return 0


def _changes_doc(args: argparse.Namespace, entries: list[Entry] | None = None) -> dict[str, Any]:
    from gate.history import changes
    from gate.history.store import Store

    entries = Store(args.store).read() if entries is None else entries
    if not entries:
        raise InputError(
            f"the history in {args.store} is empty",
            "add nightly runs first: `ordertrap-gate history add TRIALS.csv --store DIR`",
        )
    return changes.find_changes(
        entries,
        window=args.window or changes.WINDOW,
        max_pvalue=args.max_pvalue or changes.MAX_PVALUE,
        include_pr=getattr(args, "include_pr", False),
    )


def _changes(args: argparse.Namespace) -> int:
    from gate.history.changes import changes_json_text

    doc = _changes_doc(args)
    _write(changes_json_text(doc), args.json, is_json=True)
    if args.json:
        print(
            f"history changes: {len(doc['change_points'])} change point(s) in {doc['n_series']} series → {args.json}"
        )
    return 0


def _report(args: argparse.Namespace) -> int:
    from gate.history.changes import check_changes_match, read_changes_json
    from gate.history.report import history_view, render_history
    from gate.history.series import series_of
    from gate.history.store import Store

    # the store is read once: on a large history reading it costs as much as drawing it
    entries = Store(args.store).read()
    series = series_of(entries)
    if args.changes:
        doc = read_changes_json(args.changes)
        check_changes_match(doc, series, args.changes)
    else:
        args.window = args.max_pvalue = None
        doc = _changes_doc(args, entries)
    page = render_history(history_view(entries, doc, repo_url=args.repo_url, title=args.title, series=series))
    _write(page, args.out)
    print(f"history report: {len(doc['change_points'])} change point(s) → {args.out}")
    return 0


def _issue(args: argparse.Namespace) -> int:
    from gate.history.issue import issue_from_env

    result = issue_from_env(args)
    print(f"history issue: {result.action}" + (f" {result.url}" if result.url else ""))
    return 0


def _bisect(args: argparse.Namespace) -> int:
    from gate.history.bisect import commands, plan

    p = plan(Path(args.repo), args.before, args.after)
    print(
        f"{len(p.candidates)} commit(s) after {p.before[:12]} up to {p.after[:12]} (first parent, oldest first):"
    )
    for c in p.candidates:
        print(f"  {c}")
    print(
        f"bisect: measure the middle one against {p.before[:12]} first; keep the half whose verdict holds the step:"
    )
    for line in commands(p):
        print(f"  {line}")
    return 0


def run(args: argparse.Namespace) -> int:
    verbs = {"add": _add, "import": _import, "changes": _changes, "report": _report, "issue": _issue}
    verbs["bisect"] = _bisect
    return verbs[args.verb](args)
