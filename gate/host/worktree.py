"""One git worktree per version, and the build step run once inside it.

``git worktree add --detach OUT/worktrees/<role>-<safe name> <sha>`` checks each revision out
beside the others without touching the user's checkout. The SHA is resolved once, before any
worktree exists, and recorded in meta.json, so a branch that moves during a long run (or before
a resume) cannot change what is measured.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any, Literal, overload

from gate.errors import RunError
from gate.host import programs

# The gate's own git commands run outside the sandbox, also after a PR's benchmarks ran inside
# it, where $HOME stays writable for build caches: they must not execute anything a benchmark
# could have configured there. So the user's global config (~/.gitconfig, ~/.config/git/config)
# is not read (git-config(1), GIT_CONFIG_GLOBAL), and hooks and the fsmonitor are off whatever a
# config says (githooks(5); core.fsmonitor runs a program on every status, add and checkout).
GIT_OPTIONS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


def git_env() -> dict[str, str]:
    """The gate's environment for git: the trusted PATH (gate/host/programs.py), no global config,
    and never a prompt for credentials (stdin is /dev/null: git would fail, not wait)."""
    return programs.current().env(GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0")


@overload
def run_git(
    repo: Path, *args: str, timeout: float = ..., timeout_fix: str = ..., text: Literal[True] = ...
) -> subprocess.CompletedProcess[str]: ...
@overload
def run_git(
    repo: Path, *args: str, timeout: float = ..., timeout_fix: str = ..., text: Literal[False]
) -> subprocess.CompletedProcess[bytes]: ...
def run_git(
    repo: Path,
    *args: str,
    timeout: float = 120.0,
    timeout_fix: str = "check the repository",
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """``git -C repo ARGS`` as the gate runs every git command: the program pinned on the trusted
    PATH, :data:`GIT_OPTIONS`, :func:`git_env`, stdin from /dev/null, output captured; the exit
    status is the caller's to judge. Used by the worktrees here, the committed configuration
    (gate/config/config_files.py), the sandbox's view of the repository and the run action's
    revisions (gate/action/revisions.py). ``timeout_fix`` names the fix when ``timeout`` passes."""
    try:
        return subprocess.run(
            [programs.git(), *GIT_OPTIONS, "-C", str(repo), *args],
            env=git_env(),
            capture_output=True,
            text=text,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise RunError("git is not installed", "install git (apt-get install git)") from None
    except subprocess.TimeoutExpired:
        raise RunError(f"git {' '.join(args)} did not finish in {timeout:.0f} s", timeout_fix) from None


# http.extraheader (for every URL) and http.<url>.extraheader
_EXTRAHEADER = r"^http\.(.+\.)?extraheader$"
_INCLUDE = r"^include(if\..+)?\.path$"
_MAX_INCLUDE_DEPTH = 10  # git's own limit


def _config_entries(config_file: Path, pattern: str) -> list[tuple[str, str]]:
    """(key, value) of one config file's entries matching ``pattern``, read with ``-z`` so that keys
    and paths with spaces or newlines stay whole; includes are not followed here."""
    proc = run_git(config_file.parent, "config", "--file", str(config_file), "-z", "--get-regexp", pattern)
    if proc.returncode == 1:  # no entry matched
        return []
    if proc.returncode != 0:  # unparsable or unreadable: what it holds cannot be ruled out
        raise RunError(
            f"cannot read the git config file {config_file} ({proc.stderr.strip()[:200]})",
            "fix or remove that file (git itself fails on it too)",
        )
    entries = []
    for record in proc.stdout.split("\0"):
        if record:
            key, _, value = record.partition("\n")
            entries.append((key, value))
    return entries


def persisted_auth_headers(repo: Path) -> list[tuple[str, Path]]:
    """Every ``http.[<url>.]extraheader`` reachable from the repository's own config, as (key, the
    file that holds it): where actions/checkout stores the job token (persist-credentials, its
    default). Every worktree shares that config, so benchmark code could read the token.

    actions/checkout up to v5 writes the header into ``.git/config`` itself; v6 writes it into a
    file of its own and adds ``includeIf.gitdir:<repo>/.git.path`` (and one for
    ``.git/worktrees/*``, which matches the gate's own worktrees). So every ``include.path`` and
    ``includeIf.*.path`` target is read too, recursively and whatever its condition: its path is in
    ``.git/config`` for any benchmark to open."""
    common = run_git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if common.returncode != 0:
        raise RunError(f"{repo} is not inside a git repository", "run from the project's checkout")
    git_dir = Path(common.stdout.strip())
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()

    def scan(config_file: Path, depth: int) -> None:
        if depth > _MAX_INCLUDE_DEPTH or config_file in seen or not config_file.is_file():
            return
        seen.add(config_file)
        found.extend((key, config_file) for key, _ in _config_entries(config_file, _EXTRAHEADER))
        for _, target in _config_entries(config_file, _INCLUDE):
            # git resolves a relative include path against the directory of the including file
            scan((config_file.parent / Path(target).expanduser()).resolve(), depth + 1)

    # the shared config, and the per-worktree ones (extensions.worktreeConfig)
    for config_file in [
        git_dir / "config",
        git_dir / "config.worktree",
        *git_dir.glob("worktrees/*/config.worktree"),
    ]:
        scan(config_file.resolve(), 0)
    return found


def toplevel(start: Path) -> Path:
    proc = run_git(start, "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise RunError(
            f"{start} is not inside a git repository",
            "run from inside the project's checkout or pass --repo DIR",
        )
    return Path(proc.stdout.strip())


def resolve(repo: Path, revision: str) -> str:
    """The commit SHA of ``revision`` (branch, tag, SHA, ``HEAD~1``)."""
    if revision.startswith("-"):
        raise RunError(f"revision {revision!r} looks like an option", "pass a branch, tag or SHA")
    proc = run_git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if proc.returncode != 0:
        raise RunError(
            f"revision {revision!r} does not name a commit in {repo}",
            "fetch it first (actions/checkout with fetch-depth: 0, or `git fetch origin "
            f"{revision}`), or check the spelling",
        )
    return proc.stdout.strip()


def safe_name(role: str, revision: str) -> str:
    return f"{role}-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", revision).strip("._") or "rev")[:60]


def head_of(worktree: Path) -> str | None:
    if not (worktree / ".git").exists():
        return None
    proc = run_git(worktree, "rev-parse", "HEAD")
    return proc.stdout.strip() if proc.returncode == 0 else None


def _marker(path: Path) -> Path:
    return path.parent / f"{path.name}.checked-out"


def add(repo: Path, path: Path, sha: str, revision: str) -> bool:
    """Check ``sha`` out at ``path``. Reuses a complete worktree at the same commit (resume) and
    returns False then; returns True when it created a new one (any earlier build is void).

    A marker written after ``git worktree add`` succeeded tells a complete checkout from one
    that a kill interrupted half-way.
    """
    marker = _marker(path)
    if head_of(path) == sha and marker.exists() and marker.read_text(encoding="utf-8").strip() == sha:
        return False
    if path.exists():
        remove(repo, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    run_git(repo, "worktree", "prune")
    proc = run_git(repo, "worktree", "add", "--detach", str(path), sha, timeout=600)
    if proc.returncode != 0:
        raise RunError(
            f"cannot create a worktree for {revision!r} at {path}: {proc.stderr.strip()[-400:]}",
            "remove the stale directory (`git worktree prune`), or pass a new --out",
        )
    marker.write_text(sha + "\n", encoding="utf-8")
    return True


def remove(repo: Path, path: Path) -> None:
    _marker(path).unlink(missing_ok=True)
    run_git(repo, "worktree", "remove", "--force", str(path), timeout=600)
    if path.exists():  # not a registered worktree (e.g. half-created): plain removal
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    run_git(repo, "worktree", "prune")


def changed_files(repo: Path, base_sha: str, head_sha: str) -> list[str]:
    """Paths that differ between two commits (``git diff --name-only``, renames as delete + add);
    empty when git cannot tell (a shallow clone without base)."""
    result = run_git(repo, "diff", "--name-only", "--no-renames", "-z", base_sha, head_sha)
    return [p for p in result.stdout.split("\0") if p] if result.returncode == 0 else []


def blob_text(repo: Path, sha: str, path: str, limit: int = 1 << 20) -> str:
    """The file ``path`` at ``sha`` as text, "" when it is absent there or larger than ``limit``
    (the committed content, read from git's objects, never from a worktree)."""
    try:
        size = run_git(repo, "cat-file", "-s", f"{sha}:{path}")
        if size.returncode != 0 or not size.stdout.strip().isdigit() or int(size.stdout) > limit:
            return ""
        shown = run_git(repo, "cat-file", "blob", f"{sha}:{path}")
    except UnicodeDecodeError:  # not text: no benchmark source
        return ""
    return shown.stdout if shown.returncode == 0 else ""
