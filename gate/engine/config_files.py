"""Where ``run`` reads ``.ordertrap.toml`` and the calibration file from, and what head changes in them.

The two files decide what the gate measures: which benchmarks run, how many values each version
gets, which warm-up values are dropped, what counts as a change. If a pull request's own copies
were used for its run, the pull request would choose how it is judged (exclude the benchmark it
slows down; calibrate it to one value, with which no change can be called). So a two-version run
reads both files from the **base** revision (``git cat-file blob BASE:PATH``), which is already
merged, for base and head alike. Head's copies are only compared with base's and every difference
is reported as a warning that reaches the comment, the summary and the HTML report; head's
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
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gate.engine import programs, worktree
from gate.engine.project_config import SUITE_KEYS, ProjectConfig, load_config, parse_config
from gate.errors import ConfigError, GateError, InputError, RunError
from gate.files import calibration_json
from gate.files.calibration_json import Calibration
from gate.model import LEVELS, warning
from gate.warning_codes import WarningCode

CHOICES: tuple[str, ...] = ("base", "head", "worktree")
# Head's copies are untrusted input read only to be compared: a file this large is not read.
MAX_BYTES = 32 * 1024 * 1024
_SHOWN_NAMES = 5
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
class _Pair:
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
    pairs: tuple[_Pair, ...] = ()

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
    try:
        return subprocess.run(
            [programs.git(), *worktree.GIT_OPTIONS, "--literal-pathspecs", "-C", str(repo), *args],
            env=worktree.git_env(),
            capture_output=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise RunError("git is not installed", "install git (apt-get install git)") from None
    except subprocess.TimeoutExpired:
        raise RunError(f"git {' '.join(args)} did not finish in 120 s", "check the repository") from None


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
    pairs: list[_Pair] = []
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
) -> tuple[Source, _Pair | None]:
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
        return used, _Pair(what, rel, used, _committed(repo, head, rel, tolerant=True), "base", branched)
    return used, _Pair(what, rel, _committed(repo, base, rel, tolerant=True), used, "other")


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


# ---- what head changes ------------------------------------------------------------------------------------


def change_warnings(
    inputs: Inputs, discovered: Sequence[str] | None
) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    """Warnings naming what differs between base's files and the other copies (head's, or the ones
    used instead of base's), and the lists of changes per file for meta.json.

    ``discovered``: the benchmark names the adapter found in head before ``[suite]`` include/exclude,
    to compute which benchmarks each file selects for adapters that discover them.

    With ``--config-rev`` (the pair has an ``origin``, the merge-base's copy) head's changes are
    those against the merge-base (what the pull request itself changes); what the base branch
    changed since the pull request branched is listed under ``"<what>_since_branch"`` and reported
    with its own warning, so a moved base branch is never presented as the pull request's doing."""
    out: list[dict[str, str]] = []
    changes_by_file: dict[str, list[str]] = {}
    on_disk: list[str] = []  # --config-from worktree: the files that differ from base's, one note
    for used_pair in inputs.pairs:
        pair = used_pair
        if used_pair.origin is not None:
            pair = replace(used_pair, base=used_pair.origin, origin=None)
            moved = _pair_changes(replace(used_pair, base=used_pair.origin, other=used_pair.base), discovered)
            changes_by_file[f"{pair.what}_since_branch"] = moved
            if moved:
                out.append(_moved_warning(used_pair, moved))
        changes = _pair_changes(pair, discovered)
        changes_by_file[pair.what] = changes
        if not changes:
            continue  # only comments, formatting or fields that do not change what runs
        listed = "; ".join(changes)
        if pair.used == "base":
            code = (
                WarningCode.HEAD_CONFIG_CHANGE
                if pair.what == "config"
                else WarningCode.HEAD_CALIBRATION_CHANGE
            )
            used = "base's" if used_pair.origin is None else f"the base branch's ({used_pair.base.revision})"
            message = f"head changes {pair.path} (this run used {used} for both versions): {listed}"
            action = (
                "nothing for this run; head's settings take effect once this pull request is merged: "
                "review the change"
            )
            if pair.what == "calibration":
                action += (
                    " (calibration changes normally land through the nightly recalibration pull "
                    "request, computed from a full run)"
                )
            out.append(warning(code, message, action))
        elif inputs.mode == "worktree":
            on_disk.append(f"{pair.path}: {listed}")
        else:
            flag = inputs.mode
            message = (
                f"this run used {pair.other.describe()} instead of base's (--config-from {flag}), "
                f"so the measured code chose its own settings; it differs from base's: {listed}"
            )
            out.append(
                warning(
                    WarningCode.CONFIG_CHOSEN_BY_HEAD,
                    message,
                    "for a pull-request gate run without --config-from: base's files are the default "
                    "(as in the action)",
                )
            )
    if on_disk:
        # The operator asked for the files on disk (comparing two releases that predate the file,
        # trying the gate: README "Use it on your own project"): the measured code did not choose
        # them, so it is said once, for every file, as a note rather than a trust alarm.
        out.append(
            warning(
                WarningCode.CONFIG_FROM_WORKTREE,
                "both versions were measured with the files on disk, as --config-from worktree asks, "
                f"not with base's ({' — '.join(on_disk)})",
                "nothing when comparing releases or trying the gate; a pull-request gate reads base's "
                "files (the default with --base, as in the action)",
            )
        )
    return out, changes_by_file


def _pair_changes(pair: _Pair, discovered: Sequence[str] | None) -> list[str]:
    """What ``pair.other`` changes in ``pair.base`` ([] when the bytes are the same)."""
    if pair.base.data == pair.other.data and pair.base.error is None and pair.other.error is None:
        return []
    if pair.what == "config":
        return _config_pair_changes(pair, discovered)
    return _calibration_pair_changes(pair)


def _moved_warning(pair: _Pair, changes: Sequence[str]) -> dict[str, str]:
    assert pair.origin is not None
    code = WarningCode.BASE_CONFIG_MOVED if pair.what == "config" else WarningCode.BASE_CALIBRATION_MOVED
    return warning(
        code,
        f"the base branch changed {pair.path} since this pull request branched from "
        f"{pair.origin.revision} ({str(pair.origin.sha)[:12]}); its current settings ({pair.base.revision}) "
        f"apply to both versions: {'; '.join(changes)}",
        "nothing for this run (every pull request is judged by the base branch's current settings); "
        "if a benchmark the base branch now selects is missing here, merge or rebase onto the base branch",
    )


def _config_pair_changes(pair: _Pair, discovered: Sequence[str] | None) -> list[str]:
    if pair.other.error is not None or pair.base.error is not None:
        return [_unreadable(pair)]
    if pair.other.data is None:
        return ["removes the file"]
    if pair.base.data is None:
        return ["adds the file (base has none)"]
    old, new = _parsed_config(pair.base), _parsed_config(pair.other)
    if isinstance(new, str):
        return [f"its file would be refused by run: {_short(new, 160)}"]
    if isinstance(old, str):
        return [f"base's file cannot be read ({_short(old, 160)})"]
    return config_changes(old, new, discovered)


def _unreadable(pair: _Pair) -> str:
    if pair.other.error is not None:
        return f"its file cannot be read: {_short(pair.other.error, 160)}"
    return f"base's file cannot be read: {_short(str(pair.base.error), 160)}"


def _parsed_config(source: Source) -> ProjectConfig | str:
    """The parsed file, or why it cannot be parsed (head's copy is reported, never used)."""
    assert source.data is not None
    try:
        return parse_config(source.data, Path(source.label))
    except GateError as exc:
        return exc.message
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _raw_calibration(source: Source) -> tuple[Mapping[str, Any] | None, str | None]:
    """(the JSON object, None) or (the object or None, why run would refuse the file)."""
    assert source.data is not None
    try:
        text = source.data.decode("utf-8")
        data = calibration_json.load_document(text, source.label)
    except UnicodeDecodeError as exc:
        return None, f"not valid JSON ({_short(str(exc), 80)})"
    except GateError as exc:
        return None, exc.message
    try:
        calibration_json.from_document(data, source.label)
    except GateError as exc:
        return data, exc.message
    except (ValueError, TypeError, RecursionError) as exc:
        return data, f"{type(exc).__name__}: {exc}"
    return data, None


def _calibration_pair_changes(pair: _Pair) -> list[str]:
    if pair.other.error is not None or pair.base.error is not None:
        return [_unreadable(pair)]
    if pair.other.data is None:
        return ["removes the file (once merged, every benchmark runs the full configuration)"]
    new, new_error = _raw_calibration(pair.other)
    changes = [] if new_error is None else [f"its file would be refused by run: {_short(new_error, 160)}"]
    if pair.base.data is None:
        return [f"adds the file ({_calibrated_count(new)}; base has none)", *changes]
    old, old_error = _raw_calibration(pair.base)
    if old is None:
        return [*changes, f"base's file cannot be read ({old_error})"]
    if new is None:
        return changes
    return changes + calibration_changes(old, new)


# ---- pure comparisons ----------------------------------------------------------------------------------


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _short(repr(value), 24)
    if isinstance(value, str):
        return _short(json.dumps(value, ensure_ascii=False), 40)
    try:
        return _short(json.dumps(value, ensure_ascii=False, default=str), 60)
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(_short(str(n), 40) for n in names[:_SHOWN_NAMES])
    return shown + (f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")


def _levels(levels: Any) -> str:
    if isinstance(levels, Mapping) and all(k in levels for k in LEVELS):
        return "×".join(_value(levels[k]) for k in LEVELS)
    return _value(levels)


def _selected(config: ProjectConfig, discovered: Sequence[str] | None) -> list[str] | None:
    names = [b.name for b in config.benchmarks] if config.suite.adapter == "command" else discovered
    return None if names is None else [n for n in names if config.selects(n)]


def config_changes(
    old: ProjectConfig, new: ProjectConfig, discovered: Sequence[str] | None = None
) -> list[str]:
    """What ``new`` changes in ``old``, most consequential first: the benchmarks each selects, the
    ``[[benchmark]]`` entries (unit, direction, command), ``[full]``, ``[suite]``, adapter tables.

    For adapters that discover benchmarks the selected sets are computed from ``discovered``, and
    only when both files give the adapter the same table and entries (else head's discovery
    could find other names)."""
    changes: list[str] = []
    covered: set[tuple[str, str]] = set()
    if old.suite.adapter != new.suite.adapter:
        changes.append(f"[suite].adapter {_value(old.suite.adapter)} → {_value(new.suite.adapter)}")
        covered.add(("suite", "adapter"))
    else:
        same_discovery = old.adapter_table == new.adapter_table and old.raw.get("benchmark") == new.raw.get(
            "benchmark"
        )
        before = _selected(old, discovered)
        after = _selected(new, discovered if same_discovery else None)
        if before is not None and after is not None:
            gone = [n for n in before if n not in after]
            added = [n for n in after if n not in before]
            if gone:
                changes.append(f"excludes {len(gone)} benchmark(s) that base's file runs: {_names(gone)}")
            if added:
                changes.append(f"adds {len(added)} benchmark(s): {_names(added)}")
        elif before is not None:
            changes.append(
                "changes the adapter's settings (which benchmarks head's file selects is not computed)"
            )

    old_entries = {b.name: b for b in old.benchmarks}
    new_entries = {b.name: b for b in new.benchmarks}
    if old.suite.adapter != "command" or old.suite.adapter != new.suite.adapter:
        gone = [n for n in old_entries if n not in new_entries]
        added = [n for n in new_entries if n not in old_entries]
        if gone:
            changes.append(f"removes [[benchmark]] {_names(gone)}")
        if added:
            changes.append(f"adds [[benchmark]] {_names(added)}")
    edited: list[str] = []
    for name, before_spec in old_entries.items():
        after_spec = new_entries.get(name)
        if after_spec is None:
            continue
        what = []
        if before_spec.higher_is_better != after_spec.higher_is_better:
            what.append(
                f"higher_is_better {_value(before_spec.higher_is_better)} → {_value(after_spec.higher_is_better)}"
            )
        if before_spec.unit != after_spec.unit:
            what.append(f"unit {_value(before_spec.unit)} → {_value(after_spec.unit)}")
        if before_spec.command != after_spec.command:
            what.append("command changed")
        if dict(before_spec.options) != dict(after_spec.options):
            keys = sorted(
                k
                for k in set(before_spec.options) | set(after_spec.options)
                if before_spec.options.get(k) != after_spec.options.get(k)
            )
            what.append(f"{', '.join(keys)} changed")
        if what:
            edited.append(f"{_short(name)} ({', '.join(what)})")
    if edited:
        changes.append(
            f"edits [[benchmark]] {', '.join(edited[:_SHOWN_NAMES])}"
            + (f" and {len(edited) - _SHOWN_NAMES} more" if len(edited) > _SHOWN_NAMES else "")
        )
    covered.add(("benchmark", ""))

    if old.full != new.full:
        changes.append(
            f"[full] {old.full.suite_runs}×{old.full.iterations}×{old.full.measurements} → "
            f"{new.full.suite_runs}×{new.full.iterations}×{new.full.measurements} "
            "(suite_runs×iterations×measurements)"
        )
    covered.add(("full", ""))

    old_suite, new_suite = _table(old.raw, "suite"), _table(new.raw, "suite")
    for key in [*SUITE_KEYS, *sorted(set(old_suite) | set(new_suite))]:
        if ("suite", key) in covered:
            continue
        covered.add(("suite", key))
        before_value, after_value = old_suite.get(key), new_suite.get(key)
        if before_value == after_value:
            continue
        if key in ("build", "reset", "prefix", "python"):
            changes.append(f"[suite].{key} changed")
        else:
            changes.append(f"[suite].{key} {_value(before_value)} → {_value(after_value)}")

    for table in sorted(set(old.raw) | set(new.raw)):
        if table in ("suite", "full", "benchmark"):
            continue
        before_table, after_table = old.raw.get(table), new.raw.get(table)
        if before_table == after_table:
            continue
        if isinstance(before_table, Mapping) and isinstance(after_table, Mapping):
            keys = sorted(
                str(k)
                for k in set(before_table) | set(after_table)
                if before_table.get(k) != after_table.get(k)
            )
            changes.append(f"[{_short(str(table))}] changes {_names(keys)}")
        else:
            changes.append(f"[{_short(str(table))}] changed")
    return changes


def _table(raw: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = raw.get(name)
    return table if isinstance(table, Mapping) else {}


def _warmup(value: Any) -> str:
    if isinstance(value, Mapping):
        level = value.get("level")
        shown = _short(level) if isinstance(level, str) else _value(level)
        return f"{_value(value.get('count'))} × {shown}"
    return _value(value)


def _calibrated_count(raw: Mapping[str, Any] | None) -> str:
    """'12 benchmark(s) calibrated, 12 of them never stable (they run the full configuration)':
    a never-stable benchmark is in the file but saves nothing (µOpTime §5), so the count says it."""
    benchmarks = raw.get("benchmarks") if raw is not None else None
    if not isinstance(benchmarks, Mapping):
        return "0 benchmark(s) calibrated"
    never = sum(1 for e in benchmarks.values() if isinstance(e, Mapping) and e.get("never_stable") is True)
    text = f"{len(benchmarks)} benchmark(s) calibrated"
    if never:
        text += f", {'all' if never == len(benchmarks) else never} of them never stable (they run the full configuration)"
    return text


def _configs(raw: Mapping[str, Any]) -> dict[str, Any]:
    benchmarks = raw.get("benchmarks")
    if not isinstance(benchmarks, Mapping):
        return {}
    return {str(n): (e.get("config") if isinstance(e, Mapping) else e) for n, e in benchmarks.items()}


def calibration_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What ``new`` changes in ``old`` among the fields that decide what runs (docs/contracts.md):
    per-benchmark levels, ``full``, ``discard_warmup``, ``levels``, ``metric`` and ``threshold``.
    Provenance fields (``created_at``, ``summary``, ``audit``, …) are not compared."""
    changes: list[str] = []
    before, after = _configs(old), _configs(new)
    edited = [n for n in before if n in after and before[n] != after[n]]
    if edited:
        shown = ", ".join(
            f"{_short(n)} {_levels(before[n])} → {_levels(after[n])}" for n in edited[:_SHOWN_NAMES]
        )
        more = f" and {len(edited) - _SHOWN_NAMES} more" if len(edited) > _SHOWN_NAMES else ""
        changes.append(f"calibrated levels of {len(edited)} benchmark(s): {shown}{more}")
    added = [n for n in after if n not in before]
    if added:
        changes.append(f"calibrates {len(added)} more benchmark(s): {_names(added)}")
    gone = [n for n in before if n not in after]
    if gone:
        changes.append(f"no longer calibrates {len(gone)} benchmark(s): {_names(gone)}")
    if old.get("discard_warmup") != new.get("discard_warmup"):
        changes.append(
            f"discard_warmup {_warmup(old.get('discard_warmup'))} → {_warmup(new.get('discard_warmup'))}"
        )
    if old.get("full") != new.get("full"):
        changes.append(f"full {_levels(old.get('full'))} → {_levels(new.get('full'))}")
    for key in ("levels", "metric", "threshold"):
        if old.get(key) != new.get(key):
            changes.append(f"{key} {_value(old.get(key))} → {_value(new.get(key))}")
    return changes
