"""The programs the gate itself runs outside the sandbox, resolved once to absolute paths.

The gate runs ``git`` (worktrees, base's config), ``bwrap`` (the sandbox) and ``go``/``java``
(their versions for meta.json) outside the sandbox, also after a pull request's code has run in
it. Looked up by name, they would be found through ``PATH``, whose usual entries under ``$HOME``
(``~/.local/bin``, ``~/bin``, ``~/go/bin``, ``~/.cargo/bin``, which rustup puts first) or a temp
directory are places a benchmark can write: a ``~/.local/bin/git`` planted by one trial would run
with the gate's environment and privileges at the next ``git worktree remove``.

So :func:`pin` builds a *trusted* ``PATH`` before any code of the revisions runs: the entries of
``PATH`` that are absolute and lie outside every place the sandbox can write (:func:`writable_places`:
``$HOME``, the temp directories, the run's output directory with its worktrees and scratch, the
repository's work tree, the opt-in cache binds). Every program is taken from that ``PATH`` only;
one found there whose real path (symbolic links followed) lies in a writable place is refused.
The gate's own subprocesses run with the trusted ``PATH`` (:meth:`Programs.env`), so what they
start by name (git's helpers) comes from it too. The sandboxed builds and benchmarks keep the
user's ``PATH``: inside, a toolchain under ``$HOME`` is theirs to use.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from gate.errors import RunError

# What the gate runs outside the sandbox, by the name it is looked up with.
GATE_PROGRAMS = ("git", "bwrap", "go", "java")


def writable_places(env: Mapping[str, str] = os.environ, extra: Iterable[Path | str] = ()) -> list[Path]:
    """The places a sandboxed build or benchmark can write (gate/engine/sandbox.py), and so the
    places no program the gate runs outside may come from: ``$HOME``, ``/tmp``, ``/var/tmp``,
    ``$TMPDIR`` and ``extra`` (the run's output directory, the repository, the cache binds)."""
    places = [Path("/tmp"), Path("/var/tmp"), Path(tempfile.gettempdir())]
    for name in ("HOME", "TMPDIR"):
        value = env.get(name, "")
        if value and os.path.isabs(value):
            places.append(Path(value))
    places += [Path(p) for p in extra]
    real = {_real(p) for p in places}
    real.discard(Path("/"))  # HOME=/ (a service user): "/" itself is read-only in the sandbox
    return sorted(real)


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, places: Iterable[Path]) -> Path | None:
    """The place ``path`` (a real path) lies in, if any."""
    for place in places:
        if path == place or place in path.parents:
            return place
    return None


def trusted_path(path: str, places: Iterable[Path]) -> str:
    """``path`` (a ``PATH`` value) without its relative entries and the entries in ``places``."""
    places = list(places)
    kept: list[str] = []
    for entry in path.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or _inside(_real(entry), places) is not None:
            continue
        if entry not in kept:
            kept.append(entry)
    return os.pathsep.join(kept)


class Programs:
    """The trusted ``PATH`` and the programs found on it (absolute paths), looked up once each."""

    def __init__(self, path: str, places: Iterable[Path]) -> None:
        self.path = path
        self.places = tuple(places)
        self._found: dict[str, str | None] = {}
        self._refused: dict[str, str] = {}

    def find(self, name: str) -> str | None:
        """The absolute path of ``name`` on the trusted ``PATH``, None when it is not there or
        what is there lies in a place the sandbox can write (see :meth:`require`)."""
        if name not in self._found:
            self._found[name] = self._look_up(name)
        return self._found[name]

    def _look_up(self, name: str) -> str | None:
        for entry in self.path.split(os.pathsep):
            candidate = os.path.join(entry, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                place = _inside(_real(candidate), self.places)
                if place is not None:
                    self._refused[name] = f"{candidate} is (a link to) a file under {place}"
                    return None
                return candidate
        return None

    def missing(self, name: str) -> str:
        """Why :meth:`find` gives None for ``name``."""
        refused = self._refused.get(name)
        if refused is not None:
            return (
                f"{name} is not run from {refused}: builds and benchmarks can write there, and the "
                "gate runs it outside the sandbox"
            )
        return (
            f"{name} is not installed (looked for on PATH outside $HOME and the temp directories, "
            "which builds and benchmarks can write)"
        )

    def require(self, name: str, install: str) -> str:
        """:meth:`find`, or a :class:`RunError` naming the fix (``install``: how to install it)."""
        found = self.find(name)
        if found is not None:
            return found
        raise RunError(
            self.missing(name),
            f"install {name} system-wide ({install}) or in a directory only the runner's "
            "administrator can write (outside $HOME and /tmp), and put that directory on PATH",
        )

    def env(self, base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
        """``base`` (default: this process's environment) with the trusted ``PATH``."""
        return {**(os.environ if base is None else base), **extra, "PATH": self.path}


def resolve(env: Mapping[str, str] = os.environ, extra_places: Iterable[Path | str] = ()) -> Programs:
    """The programs as :func:`pin` would resolve them, without pinning them."""
    places = writable_places(env, extra_places)
    return Programs(trusted_path(env.get("PATH", os.defpath), places), places)


_pinned: Programs | None = None


def pin(env: Mapping[str, str] = os.environ, extra_places: Iterable[Path | str] = ()) -> Programs:
    """Resolve :data:`GATE_PROGRAMS` now (before a run's first build) and use them from here on."""
    global _pinned
    programs = resolve(env, extra_places)
    for name in GATE_PROGRAMS:
        programs.find(name)
    _pinned = programs
    return programs


def current() -> Programs:
    """The pinned programs; until a run pins them, those outside ``$HOME`` and the temp directories."""
    global _pinned
    if _pinned is None:
        _pinned = resolve()
    return _pinned


def git() -> str:
    return current().require("git", "apt-get install git")
