"""The versions a run measures: their commits, a worktree and a scratch directory each, and the
build (``[suite].build``, once per version, untimed) — kept until the run is complete, so a
resumed run neither checks out nor builds again.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.adapters._common import StepProgress
from gate.adapters.base import ProcessRunner, VersionContext
from gate.bidi import show_controls_on_one_line
from gate.config.project_config import ProjectConfig, substitute_worktree
from gate.errors import RunError
from gate.host import worktree
from gate.workflow_commands import print_untrusted


@dataclass(frozen=True)
class Version:
    role: str  # "base" | "head"
    revision: str  # exactly as given
    sha: str
    dirname: str


def resolve_versions(repo: Path, base: str | None, head: str) -> list[Version]:
    """Base (when given) then head, each with the commit its revision names now."""
    roles = ([("base", base)] if base is not None else []) + [("head", head)]
    return [
        Version(role, rev, worktree.resolve(repo, rev), worktree.safe_name(role, rev)) for role, rev in roles
    ]


def refuse_persisted_credentials(repo: Path) -> None:
    """The benchmarks run the revision's code in worktrees that share the repository's git config:
    a token in it would be theirs to read."""
    headers = worktree.persisted_auth_headers(repo)
    if headers:
        key, config_file = headers[0]
        raise RunError(
            f"the repository's git config holds an authorization header ({key} in {config_file}), "
            "where the benchmarks (the code under test) could read the token",
            "check out with `persist-credentials: false` (actions/checkout), or remove it: "
            f"git config --file {shlex.quote(str(config_file))} --unset-all {shlex.quote(key)}",
        )


def check_out(
    repo: Path,
    out: Path,
    versions: Sequence[Version],
    config: ProjectConfig,
    runner: ProcessRunner,
    *,
    from_base: bool,
) -> dict[str, VersionContext]:
    """A worktree (OUT/worktrees), scratch directory (OUT/scratch, writable in the sandbox) and
    cache directory (OUT/cache, the gate's own) per version, built; by revision."""
    contexts: dict[str, VersionContext] = {}
    for v in versions:
        wt = out / "worktrees" / v.dirname
        if worktree.add(repo, wt, v.sha, v.revision):
            _marker(out, v).unlink(missing_ok=True)  # a fresh checkout needs its build
        scratch = out / "scratch" / v.dirname
        scratch.mkdir(parents=True, exist_ok=True)
        contexts[v.revision] = VersionContext(
            name=v.revision,
            workdir=wt,
            prefix=tuple(substitute_worktree(p, wt) for p in config.suite.prefix),
            python=substitute_worktree(config.suite.python, wt),
            scratch=scratch,
            gate_cache=out / "cache" / v.dirname,  # OUT is read-only in the sandbox
        )
        build(config, runner, v, wt, out, from_base=from_base)
    return contexts


def remove(repo: Path, out: Path, versions: Sequence[Version]) -> None:
    """The worktrees, build markers and scratch directories of a complete run (also what a kill
    during this clean-up left)."""
    for v in versions:
        wt = out / "worktrees" / v.dirname
        if wt.exists():
            worktree.remove(repo, wt)
        _marker(out, v).unlink(missing_ok=True)
        shutil.rmtree(out / "scratch" / v.dirname, ignore_errors=True)
        shutil.rmtree(out / "cache" / v.dirname, ignore_errors=True)
    # the private $HOME and temp directories (gate/engine/sandbox.py), the reset's included
    shutil.rmtree(out / "private", ignore_errors=True)
    # the parent folders, when nothing else is left in them: an empty worktrees/ after a complete
    # run looks like a failed clean-up (another run's or the user's files are never removed)
    for folder in (out / "worktrees", out / "scratch", out / "cache"):
        with contextlib.suppress(OSError):  # absent, or not empty
            folder.rmdir()


def _marker(out: Path, v: Version) -> Path:
    return out / "worktrees" / f"{v.dirname}.built"


def build(
    config: ProjectConfig, runner: ProcessRunner, v: Version, wt: Path, out: Path, from_base: bool = False
) -> None:
    """``[suite].build`` once per version, untimed; a marker file makes a resume skip it."""
    if not config.suite.build:
        return
    marker = _marker(out, v)
    if marker.exists() and marker.read_text(encoding="utf-8").strip() == v.sha:
        return
    progress = StepProgress(f"building {show_controls_on_one_line(v.revision)} ({v.sha[:12]}) in {wt}")
    result = runner(config.suite.build, cwd=wt, timeout=config.suite.build_timeout, progress=progress)
    progress.done("built" if result.returncode == 0 and not result.timed_out else "failed")
    if result.timed_out or result.returncode != 0:
        print_untrusted((result.stdout + result.stderr)[-4000:], stream=sys.stderr)
        what = "timed out" if result.timed_out else f"exited with status {result.returncode}"
        raise RunError(
            f"build of version {v.revision!r} {what}",
            f"run `{config.suite.build}` by hand in {wt} (kept for you) and fix it, or fix [suite].build; "
            "then rerun the same command"
            + (
                " (this build command is base's: a change to [suite].build in head applies once merged, "
                "so head's code must build with base's command until then)"
                if from_base
                else ""
            ),
        )
    marker.write_text(v.sha + "\n", encoding="utf-8")
