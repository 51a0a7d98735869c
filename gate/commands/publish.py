"""`ordertrap-gate publish` — turn analysis.json into a decision on GitHub.

Reads the Actions environment once (:mod:`gate.github.context`), decides with fail_on and the
accept label (:func:`gate.decision.decision_with_fail_on_and_label`), then: upserts the one PR
comment, sets the commit status ``ordertrap-gate`` on the head SHA, writes the job summary and
the step outputs, and emits at most 10 ``::error::`` annotations. The exit code
is non-zero only when the decision is ``fail`` and ``fail_on`` asks for it (or, with status
``error``, when there was no usable analysis).

Writes that a read-only token cannot make (a PR from a fork under ``pull_request``) are reported
with the two-workflow pattern that fixes them; the summary and outputs are still written.

What the decision trusts: the verdicts of the benchmarks in analysis.json (its summary must agree
with them, :mod:`gate.files.analysis_json`), and the accept label only as the API shows it now — when
the labels cannot be read, the label counts as absent and the log, the summary and the status say
so. In the ``workflow_run`` flow the PR named by ``ordertrap-pr.json`` must have the run's head
commit before its labels are read or anything is published (:func:`verify_pr_head`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import requests
from github import Github, GithubException

from gate.decision import FAIL_ON_CHOICES, Decision, Outcome, decision_with_fail_on_and_label
from gate.errors import GateError, GitHubError, InputError
from gate.files import analysis_json, calibration_json
from gate.files.analysis_json import Analysis
from gate.files.calibration_json import Calibration
from gate.github import outputs
from gate.github.client import make_client
from gate.github.comment import CommentResult, upsert_comment
from gate.github.context import COMMENT_CHOICES, ActionContext, from_env
from gate.github.event import EventInfo, load_event
from gate.github.status import TEXT_LIMIT, State, StatusWrite, publish_status
from gate.model import Verdict

NAME = "publish"
HELP = "publish analysis.json to GitHub: PR comment, commit status, job summary, outputs"

FORK_EXPLANATION = (
    "The token of this job is read-only, as GitHub makes it for pull requests from forks, so the "
    "comment and the commit status cannot be written. The summary and the outputs are written. "
    "Fix: use the two-workflow pattern: the `pull_request` workflow runs the benchmarks and uploads "
    "the trial logs with ordertrap-pr.json; a second workflow `on: workflow_run` (which gets a "
    "write token and never runs the PR's code) downloads them and runs this action. See "
    "examples/workflows/perf-pr-fork-safe.yml and perf-publish.yml, and docs/github-actions.md 'Fork PRs'."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--analysis", required=True, type=Path, help="analysis.json written by `analyze`")
    parser.add_argument(
        "--report-path", default=None, help="the HTML report, given back as the report_path output"
    )
    parser.add_argument("--report-url", default=None, help="a URL where the HTML report can be seen (linked)")
    parser.add_argument(
        "--fail-on", choices=FAIL_ON_CHOICES, default=None, help="default: INPUT_FAIL_ON or regression"
    )
    parser.add_argument(
        "--comment", choices=COMMENT_CHOICES, default=None, help="default: INPUT_COMMENT or on-change"
    )
    parser.add_argument(
        "--accept-label", default=None, help="default: INPUT_ACCEPT_LABEL or perf-regression-accepted"
    )
    parser.add_argument(
        "--pr-info",
        default=None,
        help="workflow_run only: ordertrap-pr.json stored by the first workflow (default: INPUT_PR_INFO)",
    )


def counts_of(analysis: Analysis) -> dict[str, int]:
    """Benchmarks per verdict, counted from the benchmarks (analysis_json.read checked that
    ``summary.counts`` says the same)."""
    return analysis_json.derived_counts(analysis["benchmarks"])


# ---- status texts ------------------------------------------------------------------------------


def status_of(outcome: Outcome, accept_label: str) -> tuple[State, str]:
    c = outcome.counts
    regressions = c.get("regression", 0)
    improvements = c.get("improvement", 0)
    broken = outcome.failed_in_head_only
    undecided = c.get("inconclusive", 0) + c.get("failed", 0) - broken
    unresolved = undecided + outcome.only_in_base
    compared = sum(n for k, n in c.items() if k != "failed")  # with values in both versions
    lost_all = outcome.only_in_base > 0 and not sum(c.values())

    # what fails the default policy besides regressions (gate/decision.py), in the status's words
    def findings(broken_text: str) -> list[str]:
        found = [
            text
            for n, text in (
                (regressions, f"{regressions} regression(s)"),
                (broken, broken_text),
                (outcome.only_in_base, f"{outcome.only_in_base} ran in base only (renamed or removed?)"),
                (outcome.noisy_in_head, f"{outcome.noisy_in_head} far noisier in head"),
            )
            if n
        ]
        return found + (["no benchmark could be compared"] if not compared and not lost_all else [])

    if outcome.accepted:
        if lost_all:
            return (
                "success",
                f"accepted: no benchmark ran in head ({outcome.only_in_base} missing), label {accept_label}",
            )
        if accepted := findings(f"{broken} failing in head"):
            return "success", f"accepted: {', '.join(accepted)} accepted by the label {accept_label}"
        return "success", f"accepted: {unresolved} inconclusive/failed accepted by the label {accept_label}"
    if outcome.decision == Decision.FAIL:
        if lost_all:
            return "failure", (
                f"no benchmark of base ran in head ({outcome.only_in_base} missing): see the PR comment"
            )
        if failing := findings(f"{broken} benchmark(s) fail in head but not in base"):
            tail = f", {improvements} improvement(s)" if regressions or broken else ""
            fix = "" if regressions or broken else f"; intended? label {accept_label}"
            return "failure", f"{', '.join(failing)}{tail}: see the PR comment{fix}"
        return (
            "failure",
            f"{unresolved} inconclusive/failed/not compared benchmark(s) and fail_on=inconclusive",
        )
    if outcome.decision == Decision.INCONCLUSIVE:
        parts = [f"{undecided} benchmark(s) could not be decided"] if undecided else []
        return "success", f"inconclusive: {'; '.join(parts)}; no regression found"
    return "success", f"no regression; {improvements} improvement(s)"


# ---- the publish run ---------------------------------------------------------------------------


@dataclass
class Published:
    outcome: Outcome | None
    comment: CommentResult | None = None
    status_set: bool = False
    status_kept: str = ""  # why the latest status of the commit was left in place
    read_only: bool = False
    notes: list[str] = field(default_factory=list)
    errors: list[GitHubError] = field(default_factory=list)


def _is_read_only(exc: GithubException) -> bool:
    # 403 "Resource not accessible by integration": the token lacks the permission (fork PR,
    # or `permissions:` without pull-requests/statuses: write). A 403 that is a rate limit
    # (primary or secondary, still there after the retries) is not a permission problem.
    if exc.status != 403:
        return False
    data = exc.data if isinstance(exc.data, dict) else {}
    return "rate limit" not in str(data.get("message", "")).lower()


def _render(
    analysis: Analysis, fmt: str, outcome: Outcome, settings: ActionContext, report_url: str | None
) -> str:
    from gate.render import RenderContext, render

    run_url = settings.run_url
    context = RenderContext(
        decision=outcome.decision,
        accepted=outcome.accepted,
        accept_label=settings.inputs.accept_label,
        run_url=run_url,
        report_url=report_url,
        summary_url=f"{run_url}#summary" if run_url else None,
        rerun_hint=(
            "re-run the gate job from the workflow run page; it reads the PR's labels from the API, "
            "so a re-run sees an accept label added since"
        ),
        calibration=_calibration(settings),
    )
    return render(analysis, fmt, context)  # type: ignore[arg-type]


def _calibration(settings: ActionContext) -> Calibration | None:
    """The calibration file for the renderer's instability-vs-cost view, if readable."""
    if not settings.inputs.calibration:
        return None
    try:
        return calibration_json.read(settings.inputs.calibration)
    except InputError:
        return None  # the run step already reported a bad calibration file; the comment goes on


def _regression_annotations(analysis: Analysis) -> list[tuple[str, str]]:
    result = []
    for bench in analysis["benchmarks"]:  # types checked by analysis_json
        if bench["verdict"] != Verdict.REGRESSION:
            continue
        change, ci = bench["change_pct"], bench["change_ci"]
        text = bench["benchmark"] if change is None else f"{bench['benchmark']}: {change:+.1f}%"
        if ci is not None:
            text += f" (CI {ci[0]:+.1f}% .. {ci[1]:+.1f}%)"
        if bench["reason"]:
            text += f" — {bench['reason']}"
        result.append((f"performance regression in {bench['benchmark']}", text))
    return result


def _wants_comment(mode: str, counts: dict[str, int], outcome: Outcome) -> bool:
    """Whether to *create* a comment; an existing one is always kept up to date unless mode=never."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    changed = sum(n for verdict, n in counts.items() if verdict != Verdict.UNCHANGED)
    # not PASS with nothing changed: nothing compared, or benchmarks that ran in base only
    return changed > 0 or outcome.accepted or outcome.decision != Decision.PASS


ERROR_OUTPUTS: dict[str, object] = {
    "decision": "error",
    "regressions": 0,
    "improvements": 0,
    "inconclusive": 0,
    "failed": 0,
    "not_compared": 0,
    "comment_url": "",
}


def publish_error(
    settings: ActionContext,
    reason: str,
    fix: str,
    *,
    repo: Any = None,
    sha: str | None = None,
    pr_number: int | None = None,
    report_path: str | None = None,
    stream: TextIO | None = None,
) -> bool:
    """What a run without a verdict still publishes: the commit status ``error`` with ``reason`` on
    ``sha`` (when a repository and a commit that may carry it are known; about ``pr_number``, and
    never over a newer run's status, :func:`gate.github.status.publish_status`), the job summary
    with the reason and the fix, and the outputs with ``decision=error``. Never raises: a write
    that fails is reported in the log. Returns whether the status was set."""
    from gate.render.filters import md_escape

    out = stream or sys.stdout
    status_set = False
    if repo is not None and sha:
        try:
            written = _set_status(repo, sha, "error", reason, settings, pr_number)
            status_set = written.written
            if not written.written:
                outputs.warning(_kept_message(written), stream=out)
        except GithubException as exc:
            why = _permission_explanation("commit status") if _is_read_only(exc) else _message(exc)
            outputs.warning(f"the commit status `error` could not be set: {exc.status} {why}", stream=out)
        except requests.RequestException as exc:
            outputs.warning(f"the commit status `error` could not be set (after retries): {exc}", stream=out)
    try:
        outputs.write_summary(
            settings.summary_path,
            f"## ordertrap-gate: error\n\n{md_escape(reason)}\n\n**Fix:** {md_escape(fix)}\n",
        )
        outputs.write_outputs(settings.output_path, {**ERROR_OUTPUTS, "report_path": report_path or ""})
    except GitHubError as exc:
        print(f"ordertrap-gate: {exc}", file=sys.stderr)
    return status_set


def verify_pr_head(repo: Any, event: EventInfo) -> None:
    """workflow_run: the PR number comes from ordertrap-pr.json, which the PR's own (untrusted) run
    wrote. Its head SHA already equals the event's ``workflow_run.head_sha`` (gate.github.event);
    the PR itself must have that head now (``GET /repos/{owner}/{repo}/pulls/{number}``) before
    anything is read from it or written about it: a file naming another PR would otherwise borrow
    that PR's accept label and put this run's verdict on it. Raises GitHubError / InputError."""
    number = event.pr_number
    try:
        head_sha = str(repo.get_pull(number).head.sha)
    except GithubException as exc:
        raise GitHubError(
            f"cannot read PR #{number} named by the PR info file: {exc.status} {_message(exc)}",
            fix="check that the artifact's ordertrap-pr.json comes from this run, and give the job "
            "`permissions: pull-requests: read`",
        ) from exc
    except requests.RequestException as exc:
        raise GitHubError(
            f"cannot read PR #{number} named by the PR info file (after retries): {exc}",
            fix="GitHub may be degraded (githubstatus.com): re-run the job; check GITHUB_API_URL",
        ) from exc
    if head_sha != event.head_sha:
        raise InputError(
            f"PR #{number} named by the PR info file has head {head_sha[:12]}, not {event.head_sha[:12]} "
            "that this workflow run built: nothing is published to it",
            fix="if the PR got new commits since, nothing to do: the run of its new head publishes; "
            "otherwise ordertrap-pr.json does not belong to this run (check the first workflow's artifact)",
        )


def publish(
    settings: ActionContext,
    analysis_path: Path,
    *,
    client: Github | None,
    pr_info: Path | None = None,
    report_path: str | None = None,
    report_url: str | None = None,
    stream: TextIO | None = None,
) -> Published:
    """Publish everything. A GateError is raised only after the summary and the outputs are
    written (and the status ``error`` where a commit may carry it): without a usable event or
    analysis, when the PR named by a PR info file is not at the run's head, or when a GitHub write
    or the labels read failed."""
    out = stream or sys.stdout
    repo = client.get_repo(settings.repository) if client is not None else None
    result = Published(outcome=None)

    try:
        event = load_event(settings, pr_info)
    except GateError as exc:
        # no commit is known to be the one this run measured: summary and outputs only
        publish_error(
            settings, f"the event cannot be used: {exc.message}", exc.fix, report_path=report_path, stream=out
        )
        raise
    if repo is not None and event.from_artifact and event.pr_number:
        try:
            verify_pr_head(repo, event)
        except GateError as exc:
            publish_error(settings, f"refused: {exc.message}", exc.fix, report_path=report_path, stream=out)
            raise

    def note(message: str, *, warn: bool = False) -> None:
        result.notes.append(message)
        (outputs.warning if warn else outputs.notice)(message, stream=out)

    def try_write(what: str, action: Any) -> Any:
        try:
            return action()
        except GithubException as exc:
            if _is_read_only(exc):
                if not result.read_only:
                    note(FORK_EXPLANATION if event.is_fork else _permission_explanation(what), warn=True)
                result.read_only = True
                return None
            failure = f"GitHub answered {exc.status} while writing the {what}: {_message(exc)}"
        except requests.RequestException as exc:
            # retries exhausted (5xx, rate limit) or the API cannot be reached
            failure = f"writing the {what} failed after retries: {exc}"
        # keep going: the summary and outputs are still written; the error is raised at the end
        result.errors.append(
            GitHubError(
                failure,
                fix="GitHub may be degraded (githubstatus.com): re-run the job. 5xx answers and rate "
                "limits were already retried with backoff; check GITHUB_API_URL on GitHub Enterprise",
            )
        )
        return None

    try:
        analysis = analysis_json.read(analysis_path)
    except InputError as exc:
        # the file's name, not its full path: the status description has 140 characters
        reason = exc.message.replace(str(analysis_path), analysis_path.name)
        publish_error(
            settings,
            f"analysis could not be made: {reason}",
            exc.fix,
            repo=repo,
            sha=event.head_sha,
            pr_number=event.pr_number,
            report_path=report_path,
            stream=out,
        )
        raise

    counts = counts_of(analysis)
    issue = None
    labels: set[str] = set()
    labels_unread = False
    if repo is not None and event.pr_number:
        try:
            issue, labels = _pr_labels(repo, event)
        except GitHubError as exc:
            # The payload's labels are not a fallback: they are the event's snapshot (a re-run keeps
            # a label removed since), so the accept label counts only when the API shows it.
            result.errors.append(exc)
            labels_unread = True
            note(
                f"{exc.message}; the accept label `{settings.inputs.accept_label}` is treated as absent "
                "(it is trusted only from the API), and the PR comment is not written",
                warn=True,
            )
    elif event.pr_number and settings.inputs.accept_label:
        note(
            f"no GitHub token/repository: the accept label `{settings.inputs.accept_label}` is not read (local run)"
        )
    accepted = bool(settings.inputs.accept_label) and settings.inputs.accept_label in labels
    summary = analysis["summary"]
    outcome = decision_with_fail_on_and_label(
        counts,
        settings.inputs.fail_on,
        accepted,
        failed_in_head_only=summary["failed_in_head_only"],  # checked against the benchmarks
        only_in_base=summary["only_in_base"],
        noisy_in_head=summary["noisy_in_head"],  # checked against the benchmarks' values
    )
    result.outcome = outcome

    # the PR comment
    comment_url = ""
    if event.pr_number and settings.inputs.comment != "never":
        if repo is None:
            note("no GitHub token/repository: the PR comment is not written (local run)")
        elif issue is None:
            pass  # the PR could not be read (reported above)
        else:
            body = _render(analysis, "comment", outcome, settings, report_url)
            from gate.render import COMMENT_MARKER

            create = _wants_comment(settings.inputs.comment, counts, outcome)
            res = try_write(
                "PR comment",
                lambda: upsert_comment(client, issue, body, COMMENT_MARKER, create=create),  # type: ignore[arg-type]
            )
            if res is not None:
                result.comment = res
                comment_url = res.url or ""

    # the commit status
    state, description = status_of(outcome, settings.inputs.accept_label)
    if labels_unread and outcome.decision is Decision.FAIL:
        description = _with_labels_unread(description)
    if repo is not None:
        done: StatusWrite | None = try_write(
            "commit status",
            lambda: _set_status(repo, event.head_sha, state, description, settings, event.pr_number),
        )
        result.status_set = bool(done and done.written)
        if done is not None and not done.written:
            result.status_kept = _kept_message(done)
            note(result.status_kept, warn=True)
        elif done is not None and done.restored is not None:
            raced = done.restored
            result.status_kept = (
                f"another run set `{raced.state}` for {raced.about} on this commit while this run wrote "
                f"`{done.state}`; that status was written again on top, as it would have been kept "
                "(docs/github-actions.md: a PR's failure is not turned green by another PR's run)"
            )
            note(result.status_kept, warn=True)
    else:
        note("no GitHub token/repository: the commit status is not set (local run)")

    # summary, outputs, annotations: always, also with a read-only token
    summary_md = _render(analysis, "summary", outcome, settings, report_url)
    if labels_unread:
        summary_md = _labels_unread_note(event, settings) + summary_md
    if result.status_kept:
        from gate.render.filters import md_escape

        summary_md = f"> **Note:** {md_escape(result.status_kept)}\n\n" + summary_md
    outputs.write_summary(settings.summary_path, summary_md)
    outputs.write_outputs(
        settings.output_path,
        {
            "decision": outcome.decision.value,
            "regressions": counts["regression"],
            "improvements": counts["improvement"],
            "inconclusive": counts["inconclusive"] + counts["failed"],
            "failed": counts["failed"],
            "not_compared": outcome.only_in_base,
            "comment_url": comment_url,
            "report_path": report_path or "",
        },
    )
    if not outcome.accepted:
        outputs.annotate_errors(_regression_annotations(analysis), stream=out)
    print(
        f"ordertrap-gate: decision {outcome.decision.value}{' (accepted)' if outcome.accepted else ''}: {description}",
        file=out,
    )
    if result.errors:
        raise result.errors[0]
    return result


LABELS_UNREAD = "labels unreadable: accept label not applied"


def _with_labels_unread(description: str) -> str:
    """The status description when the labels could not be read and the decision fails: no PR
    comment was written, and the accept label was not applied (said when it fits the 140 characters)."""
    description = description.removesuffix(": see the PR comment")
    extra = f"; {LABELS_UNREAD}"
    return description + extra if len(description) + len(extra) <= TEXT_LIMIT else description


def _labels_unread_note(event: EventInfo, settings: ActionContext) -> str:
    return (
        f"> **Note:** the labels of PR #{event.pr_number} could not be read from the GitHub API, so the "
        f"accept label `{settings.inputs.accept_label}` was not applied and no PR comment was written. "
        "Re-run the job once the API answers; the log says what failed.\n\n"
    )


def _set_status(
    repo: Any, sha: str, state: State, text: str, settings: ActionContext, pr_number: int | None
) -> StatusWrite:
    run_id = int(settings.run_id) if settings.run_id.isdecimal() else None
    return publish_status(repo, sha, state, text, settings.run_url, pr_number=pr_number, run_id=run_id)


def _kept_message(written: StatusWrite) -> str:
    kept = written.kept
    assert kept is not None
    return (
        f"the commit status `{written.state}` was not written: the status stays `{kept.state}` "
        f"({kept.description}): {written.why_kept}"
    )


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or exc.data)


def _permission_explanation(what: str) -> str:
    return (
        f"The token cannot write the {what} (403). Fix: give the job `permissions: pull-requests: write` "
        "(comments) and `statuses: write` (status), or pass a token with those scopes as `github_token`."
    )


def _pr_labels(repo: Any, event: EventInfo) -> tuple[Any, set[str]]:
    """The PR's issue and its labels as they are now (a re-run keeps the original payload)."""
    try:
        issue = repo.get_issue(event.pr_number)
        return issue, {label.name for label in issue.labels}
    except GithubException as exc:
        raise GitHubError(
            f"cannot read the labels of PR #{event.pr_number}: {exc.status} {_message(exc)}",
            fix="give the job `permissions: pull-requests: read` (or issues: read)",
        ) from exc
    except requests.RequestException as exc:
        raise GitHubError(
            f"cannot read the labels of PR #{event.pr_number}: {exc}",
            fix="GitHub may be degraded (githubstatus.com): re-run the job; check GITHUB_API_URL",
        ) from exc


def run(args: argparse.Namespace) -> int:
    settings = from_env().with_overrides(
        fail_on=args.fail_on, comment=args.comment, accept_label=args.accept_label, pr_info=args.pr_info
    )
    client = make_client(settings) if settings.token and settings.repository else None
    result = publish(
        settings,
        args.analysis,
        client=client,
        pr_info=Path(settings.inputs.pr_info) if settings.inputs.pr_info else None,
        report_path=args.report_path,
        report_url=args.report_url,
    )
    assert result.outcome is not None
    return result.outcome.exit_code
