"""Where ``run`` reads ``.ordertrap.toml`` and the calibration file from, and what head changes in them.

The two files decide what the gate measures: which benchmarks run, how many values each version
gets, which warm-up values are dropped, what counts as a change. If a pull request's own copies
were used for its run, the pull request would choose how it is judged (exclude the benchmark it
slows down; calibrate it to one value, with which no change can be called). So a two-version run
reads both files from the **base** revision (``git cat-file blob BASE:PATH``), which is already
merged, for base and head alike. Head's copies are only compared with base's and every difference
is reported as a warning (gate/config/config_changes.py) that reaches the comment, the summary and the HTML report; head's
settings take effect once the pull request is merged (calibration changes normally land through
the nightly recalibration pull request).

* Paths are taken relative to the repository root. A path outside the repository (an absolute
  path the operator passes, as when trying the gate on someone else's project) is the operator's
  own file and is read from disk as given.
* A base without the configuration file (a repository adopting the gate in the very pull request
  that adds it) runs with head's file and a warning that head chose its own configuration: there
  is no base configuration to protect yet, and refusing would make the adopting pull request fail.
  A base without the calibration file runs the full configuration, which is never less thorough.
* The revision the files are read from is ``--config-rev`` (default: ``--base``). For a pull request
  the measured base is the merge-base of the base branch and head (the code the pull request
  branched from), but the settings that judge it are the base branch's current ones (its tip,
  ``pull_request.base.sha``): a pull request branched from an old commit would otherwise be judged
  by that commit's settings (a benchmark not yet selected, a looser threshold) with no word about
  it. Head's copy then counts as changed by the pull request only when it differs from the
  merge-base's copy (what GitHub's "Files changed" shows, a three-dot diff); when only the base
  branch moved since the pull request branched, that is reported separately, as the reason the
  settings differ from the ones the branch carries.
* ``--config-from head`` reads head's committed files, ``--config-from worktree`` the files on
  disk (local experiments; the action never passes either). One-version runs (no base) read the
  files on disk, as there is no base to take them from.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate.config.project_config import ProjectConfig, load_config, parse_config
from gate.errors import ConfigError, GateError, InputError, RunError
from gate.files import calibration_json
from gate.files.calibration_json import Calibration
from gate.host import worktree
from gate.model import warning
from gate.warning_codes import WarningCode

CHOICES: tuple[str, ...] = ("base", "head", "worktree")
# Head's copies are untrusted input read only to be compared: a file this large is not read.
MAX_BYTES = 32 * 1024 * 1024
_REGULAR_FILE_MODES = (b"100644", b"100755")
_BASE_NOTE = (
    ", used for both versions (a pull request cannot choose what its own gate measures; head's copy "
    "is only compared with it)"
)


@dataclass(frozen=True)
class Revision:
    role: str  # "base" | "head"
    revision: str  # as given
    sha: str


@dataclass(frozen=True)
class Source:
    """One input file as ``run`` read it."""

    kind: str  # "base" | "head" (committed in that revision) | "worktree" (on disk) | "outside"
    path: str  # relative to the repository root; the path as given for "outside"
    revision: str | None = None
    sha: str | None = None
    data: bytes | None = field(default=None, repr=False)  # None: the revision has no such file
    error: str | None = None  # why a copy read only for comparison could not be read

    @property
    def label(self) -> str:
        """``REV:PATH`` (what ``git show`` takes) for a committed file, else the path."""
        return f"{self.revision}:{self.path}" if self.kind in ("base", "head") else self.path

    def describe(self) -> str:
        if self.kind in ("base", "head"):
            return f"{self.path} from {self.kind} {self.revision} ({str(self.sha)[:12]})"
        if self.kind == "outside":
            return f"{self.path} (outside the repository: the operator's own file, used as given)"
        return f"{self.path} from the working tree"

    def meta(
        self, changed_in_head: Sequence[str] | None, changed_since_branch: Sequence[str] | None = None
    ) -> dict[str, Any]:
        return {
            "from": self.kind,
            "path": self.path,
            "revision": self.revision,
            "sha": self.sha,
            "sha256": None if self.data is None else hashlib.sha256(self.data).hexdigest(),
            "changed_in_head": None if changed_in_head is None else list(changed_in_head),
            "changed_since_branch": None if changed_since_branch is None else list(changed_since_branch),
        }


@dataclass(frozen=True)
class FilePair:
    """Base's copy of a file and the copy it is compared with (head's, or the one used instead)."""

    what: str  # "config" | "calibration"
    path: str
    base: Source
    other: Source
    used: str  # "base": base's copy was used, "other": the other one was
    # the measured base's (merge-base's) copy when the files come from another revision
    # (--config-rev): what the pull request branched with; None when it is ``base`` itself
    origin: Source | None = None


@dataclass(frozen=True)
class Inputs:
    config: ProjectConfig
    config_source: Source
    calibration: Calibration | None
    calibration_source: Source | None
    mode: str
    log: tuple[str, ...]
    warnings: tuple[dict[str, str], ...]  # known before discovery (head chose its own configuration)
    pairs: tuple[FilePair, ...] = ()

    @property
    def calibration_sha256(self) -> str | None:
        src = self.calibration_source
        return None if src is None or src.data is None else hashlib.sha256(src.data).hexdigest()


# ---- where a path lies, and reading a committed file ------------------------------------------------


def repo_relative(given: str, repo: Path) -> str | None:
    """``given`` relative to the repository root (POSIX separators), or None when it lies outside.

    Decided on the path as written (made absolute against the working directory, which the kernel
    reports with symbolic links resolved) and, failing that, with only its directories resolved:
    a symbolic link committed in the checkout (``.ordertrap.toml -> /tmp/x``) cannot turn the
    repository's file into an "outside" one that would be read from disk."""
    absolute = Path(os.path.abspath(given))
    root = repo.resolve()
    for candidate in (absolute, absolute.parent.resolve() / absolute.name):
        try:
            rel = candidate.relative_to(root)
        except ValueError:
            continue
        return rel.as_posix() if rel.parts else None
    return None


def _git_bytes(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return worktree.run_git(repo, "--literal-pathspecs", *args, text=False)


def committed_file(repo: Path, rev: Revision, path: str) -> bytes | None:
    """The bytes of ``path`` as committed in ``rev``, None when the revision has no such path.

    Only a regular file is read: a committed symbolic link would point into the working tree
    (the pull request's checkout), a directory or submodule is no configuration file."""
    proc = _git_bytes(repo, "ls-tree", "-l", "-z", rev.sha, "--", path)
    if proc.returncode != 0:
        raise RunError(
            f"cannot list {path} in {rev.role} {rev.revision}: {proc.stderr.decode(errors='replace')[-300:]}",
            "check that the revision is fetched (actions/checkout with fetch-depth: 0)",
        )
    record = proc.stdout.split(b"\0", 1)[0]
    if not record:
        return None
    info, _, _name = record.partition(b"\t")
    mode, kind, oid, size = info.split()
    if kind != b"blob" or mode not in _REGULAR_FILE_MODES:
        what = "a symbolic link" if mode == b"120000" else f"a {kind.decode(errors='replace')}"
        raise ConfigError(
            f"{path} is {what} in {rev.role} {rev.revision}, not a regular file",
            f"commit {path} itself (the gate reads the committed file, never what a link points to)",
        )
    if int(size) > MAX_BYTES:
        raise ConfigError(
            f"{path} in {rev.role} {rev.revision} is {int(size)} bytes, more than the {MAX_BYTES} read",
            f"shrink {path}: a configuration or calibration file is a few hundred kilobytes at most",
        )
    blob = _git_bytes(repo, "cat-file", "blob", oid.decode())
    if blob.returncode != 0:
        raise RunError(
            f"cannot read {rev.revision}:{path}: {blob.stderr.decode(errors='replace')[-300:]}",
            "check the repository (git fsck)",
        )
    return blob.stdout


def _calibration_from(source: Source) -> Calibration:
    assert source.data is not None
    try:
        text = source.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"calibration file {source.label} is not UTF-8 text ({exc})",
            "regenerate it with `ordertrap-gate calibrate TRIALS.csv --out " + source.path + "`",
        ) from None
    return calibration_json.read(source.label, text=text)


# ---- choosing the files ----------------------------------------------------------------------------------


def read_inputs(
    config_arg: str,
    calibration_arg: str | None,
    config_from: str | None,
    repo: Path,
    base: Revision | None,
    head: Revision,
    config_rev: Revision | None = None,
) -> Inputs:
    """Read the configuration (and calibration, when asked for) from where the run must take them.

    ``config_rev``: the revision base's files are read from when it is not ``base`` itself (a pull
    request's base branch tip, while ``base`` is the merge-base that is measured)."""
    mode = config_from or ("base" if base is not None else "worktree")
    if mode == "base" and base is None:
        raise ConfigError(
            "--config-from base needs --base",
            "pass --base REF, or drop --config-from (a one-version run reads the files on disk)",
        )
    if config_rev is not None and mode != "base":
        raise ConfigError(
            f"--config-rev is used only with --config-from base (here: {mode})",
            "drop --config-rev, or drop --config-from",
        )
    origin: Revision | None = None
    if config_rev is not None and base is not None and config_rev.sha != base.sha:
        origin, base = base, Revision("base", config_rev.revision, config_rev.sha)
    log: list[str] = []
    warnings: list[dict[str, str]] = []
    pairs: list[FilePair] = []
    elsewhere = "or pass --config-from worktree to try the file on disk"

    # The configuration.
    source, pair = _choose("config", config_arg, mode, repo, base, head, origin)
    if source.kind in ("outside", "worktree"):
        # the bytes read once are parsed and hashed; an unreadable file gets the loader's error
        config = (
            load_config(config_arg) if source.data is None else parse_config(source.data, Path(config_arg))
        )
    else:
        if source.data is None and pair is not None and pair.used == "base":
            # A repository adopting the gate in this very pull request: no base file to protect yet.
            assert base is not None
            source, pair = pair.other, None
            if source.error is not None:
                raise ConfigError(source.error, f"commit {source.path} as a regular file")
            if source.data is not None:
                warnings.append(
                    warning(
                        WarningCode.CONFIG_CHOSEN_BY_HEAD,
                        f"base {base.revision} has no {source.path}: both versions were "
                        "measured with head's file, so this pull request chose what its own gate measures",
                        f"review {source.path} in this pull request; once it is merged, every later pull "
                        "request is measured with its base's configuration",
                    )
                )
        if source.data is None:
            raise ConfigError(
                f"{source.path} is {_nowhere(mode, base, head)}",
                f"commit {source.path} (run reads it from the base revision), {elsewhere}",
            )
        config = parse_config(source.data, Path(source.label))
    pairs += [pair] if pair is not None else []
    if origin is not None and base is not None:
        log.append(
            f"settings from {base.revision} ({base.sha[:12]}, --config-rev); the measured base is "
            f"{origin.revision} ({origin.sha[:12]})"
        )
    log.append(f"config {source.describe()}" + (_BASE_NOTE if source.kind == "base" else ""))

    # The calibration.
    calibration: Calibration | None = None
    cal_source: Source | None = None
    if calibration_arg is not None:
        cal_source, pair = _choose("calibration", calibration_arg, mode, repo, base, head, origin)
        if cal_source.kind in ("outside", "worktree") and cal_source.data is None:
            calibration = calibration_json.read(calibration_arg)  # says why it cannot be read
        elif cal_source.data is not None:
            calibration = _calibration_from(cal_source)
        elif pair is None or pair.used != "base" or (pair.other.data is None and pair.other.error is None):
            raise InputError(
                f"calibration file {cal_source.path} is {_nowhere(mode, base, head)}",
                "commit it (run reads it from the base revision), drop --calibration to run the full "
                f"configuration, {elsewhere}",
            )
        # else: base has none and head adds one: the full configuration runs, the pair reports it
        pairs += [pair] if pair is not None else []
        if calibration is None:
            log.append(
                f"calibration {cal_source.describe()}: base has no such file, so every benchmark runs "
                "the full configuration"
            )
        else:
            log.append(
                f"calibration {cal_source.describe()}" + (_BASE_NOTE if cal_source.kind == "base" else "")
            )
    return Inputs(config, source, calibration, cal_source, mode, tuple(log), tuple(warnings), tuple(pairs))


def _nowhere(mode: str, base: Revision | None, head: Revision) -> str:
    if mode == "base" and base is not None:
        return f"committed neither in base {base.revision} nor in head {head.revision}"
    return f"not committed in head {head.revision}"


def _choose(
    what: str,
    given: str,
    mode: str,
    repo: Path,
    base: Revision | None,
    head: Revision,
    origin: Revision | None = None,
) -> tuple[Source, FilePair | None]:
    """The copy of one file the run uses (its ``data`` is None when that revision has none) and,
    in a two-version run, the pair of base's copy and the other one to report differences."""
    rel = repo_relative(given, repo)
    if rel is None:
        return Source("outside", given, data=_disk(given)), None
    if mode == "worktree":
        used = Source("worktree", rel, data=_disk(given))
    else:
        used = _committed(repo, base if mode == "base" and base is not None else head, rel)
    if base is None:
        return used, None
    if used.kind == "base":
        branched = None if origin is None else _committed(repo, origin, rel, tolerant=True)
        return used, FilePair(what, rel, used, _committed(repo, head, rel, tolerant=True), "base", branched)
    return used, FilePair(what, rel, _committed(repo, base, rel, tolerant=True), used, "other")


def _disk(path: str) -> bytes | None:
    """The file's bytes, None when it cannot be read (the loader then says why)."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _committed(repo: Path, rev: Revision, path: str, tolerant: bool = False) -> Source:
    """The copy committed in ``rev``. ``tolerant``: a copy read only to be compared records why
    it cannot be read instead of stopping the run."""
    try:
        data = committed_file(repo, rev, path)
    except GateError as exc:
        if not tolerant:
            raise
        return Source(rev.role, path, rev.revision, rev.sha, None, error=exc.message)
    return Source(rev.role, path, rev.revision, rev.sha, data)
