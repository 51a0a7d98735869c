"""One git worktree per version, and the build step run once inside it.

``git worktree add --detach OUT/worktrees/<role>-<safe name> <sha>`` checks each revision out
beside the others without touching the user's checkout. The SHA is resolved once, before any
worktree exists, and recorded in meta.json, so a branch that moves during a long run (or before
a resume) cannot change what is measured.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gate.errors import RunError


def _git(repo: Path, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise RunError("git is not installed", "install git (apt-get install git)") from None
    except subprocess.TimeoutExpired:
        raise RunError(
            f"git {' '.join(args)} did not finish in {timeout:.0f} s", "check the repository"
        ) from None


_EXTRAHEADER = r"^http\..*\.extraheader$"


def persisted_auth_headers(repo: Path) -> list[str]:
    """The local config keys through which the repository's config holds an
    ``http.<url>.extraheader``: where actions/checkout stores the job token (persist-credentials,
    its default). Every worktree shares that config, so benchmark code could read the token.

    actions/checkout up to v5 writes the header into ``.git/config`` itself; v6 writes it into a
    file of its own and adds ``includeIf.gitdir:<repo>/.git.path`` (and one for
    ``.git/worktrees/*``, which matches the gate's own worktrees). ``--local`` alone does not follow
    includes, so the headers are read with ``--includes``, and every ``include[If].*.path`` target
    is read too, whatever its condition: its path is in ``.git/config`` for any benchmark to open.
    Each key returned is one ``git config --local --unset-all KEY`` removes."""
    found: list[str] = []
    direct = _git(repo, "config", "--local", "--name-only", "--get-regexp", _EXTRAHEADER)
    if direct.returncode == 0:
        found += direct.stdout.split()
    includes = _git(repo, "config", "--local", "--get-regexp", r"^include(if\..*)?\.path$")
    common = _git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
    config_dir = Path(common.stdout.strip()) if common.returncode == 0 else repo / ".git"
    for line in includes.stdout.splitlines() if includes.returncode == 0 else []:
        key, _, target = line.partition(" ")
        # git resolves a relative include path against the directory of the including file
        path = config_dir / Path(target).expanduser()
        proc = _git(repo, "config", "--file", str(path), "--name-only", "--get-regexp", _EXTRAHEADER)
        if proc.returncode == 0 and proc.stdout.strip() and key not in found:
            found.append(key)
    if not found:  # an include git follows that the patterns above missed (e.g. nested)
        followed = _git(repo, "config", "--local", "--includes", "--name-only", "--get-regexp", _EXTRAHEADER)
        if followed.returncode == 0:
            found += followed.stdout.split()
    return found


def toplevel(start: Path) -> Path:
    proc = _git(start, "rev-parse", "--show-toplevel")
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
    proc = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
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
    proc = _git(worktree, "rev-parse", "HEAD")
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
    _git(repo, "worktree", "prune")
    proc = _git(repo, "worktree", "add", "--detach", str(path), sha, timeout=600)
    if proc.returncode != 0:
        raise RunError(
            f"cannot create a worktree for {revision!r} at {path}: {proc.stderr.strip()[-400:]}",
            "remove the stale directory (`git worktree prune`), or pass a new --out",
        )
    marker.write_text(sha + "\n", encoding="utf-8")
    return True


def remove(repo: Path, path: Path) -> None:
    _marker(path).unlink(missing_ok=True)
    _git(repo, "worktree", "remove", "--force", str(path), timeout=600)
    if path.exists():  # not a registered worktree (e.g. half-created): plain removal
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    _git(repo, "worktree", "prune")
