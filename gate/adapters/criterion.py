"""``criterion``: Rust benchmarks written with Criterion.rs (``cargo bench``, ``harness = false``).

Build once per worktree: discovery runs ``cargo bench --no-run --message-format=json``, which
compiles the bench targets (a no-op when ``[suite] build`` already did) and names the executable
of each one (cargo's ``compiler-artifact`` messages, "JSON messages" in the Cargo Book); that
executable is copied into the version's scratch directory (so base and head may share one
``CARGO_TARGET_DIR``), and its ``--list`` gives the benchmark ids. One trial runs that executable directly, not
cargo: ``EXE --bench --exact ID --noplot --sample-size S [--warm-up-time W] [--measurement-time
M]`` (Criterion 0.3, which has no ``--exact``, gets the anchored regex ``^ID$`` instead), with ``CRITERION_HOME`` set to a fresh directory, so no baseline of an earlier trial is
read or compared. The values are Criterion's own samples from ``<home>/<id>/new/sample.json``:
each sample ``i`` timed ``iters[i]`` iterations in ``times[i]`` nanoseconds, so its value is
``times[i] / iters[i]`` ns per iteration (Criterion.rs book, "Analysis Process"; the same
values its own analysis starts from).

Criterion refuses fewer than 10 samples (``sample_size must be at least 10``), so a trial asks
for ``max(10, measurements)`` and keeps the last ``measurements`` samples: in Criterion's linear
sampling mode the later samples time more iterations each and are the less noisy ones.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gate.adapters._common import (
    StepProgress,
    anchored,
    benchmark_missing,
    filter_discovered,
    read_text,
    require_nonempty,
    scratch_file,
    string_list,
    string_option,
    with_configured,
)
from gate.adapters.base import (
    BenchmarkSpec,
    ProcessRunner,
    SourceHint,
    TrialFailure,
    TrialRequest,
    VersionContext,
    check_finite,
    raise_for_process,
    telling_line,
)
from gate.errors import ConfigError, RunError
from gate.files import bounded
from gate.model import TrialStatus

MIN_SAMPLES = 10  # Criterion.rs: "Sample size must be at least 10"
# cargo could not fetch a crate: the sandbox keeps ~/.cargo read-only ("failed to open
# `~/.cargo/registry/cache/.../x.crate`", os error 30) and has no network on a pull request's event
_CRATES_UNREACHABLE = re.compile(
    r"failed to open `[^`]*/registry/cache/|Couldn't resolve host|failed to download"
    r"|spurious network error|Unable to update registry|failed to get `[^`]+` as a dependency"
)
CRATES_FIX = (
    'add [suite] caches = ["~/.cargo/registry"] (the sandbox keeps ~/.cargo read-only, so cargo cannot '
    "store the crates it downloads); on a pull request's event the sandbox has no network and cargo "
    "runs offline: fill the registry before the run (`cargo fetch` in a checkout of base and of head, "
    "or restore the nightly's), or set [suite] network = true "
    '(docs/frameworks.md "[criterion]")'
)
# `--list` prints "ID: benchmark" (0.4 and later) or "ID: bench" (0.3, libtest's wording)
_LISTED = (": benchmark", ": bench")


def _seconds(value: Any, key: str) -> str:
    """``--warm-up-time``/``--measurement-time`` take seconds as a float; empty = Criterion's default."""
    if value == "":
        return ""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ConfigError(
            f"[criterion] {key} must be a positive number of seconds, got {value!r}",
            f"write [criterion] {key} = 0.5",
        )
    # whole seconds as an integer: Criterion 0.3 parses these two flags as integers ("1.0" fails)
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class CriterionAdapter:
    name = "criterion"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = (
        "cargo",
        "bench",
        "package",
        "cargo_args",
        "warm_up_time",
        "measurement_time",
        "args",
        "include",
    )
    benchmark_keys: tuple[str, ...] = ()

    def source_hint(self, name: str) -> SourceHint:
        """A Rust file naming the id's first part (its group or function) in quotes."""
        return SourceHint(suffix=".rs", needles=(f'"{name.split("/")[0]}"',))

    def __init__(self) -> None:
        # bench executable per worktree, found by discover (one cargo call per version)
        self._executables: dict[Path, str] = {}
        # whether that executable takes --exact (Criterion 0.4 and later); 0.3 has only its
        # positional FILTER, a regex, which is then anchored to the one id
        self._exact: dict[Path, bool] = {}

    def _options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "cargo": string_option(options, "cargo", self.name, "cargo"),
            "bench": string_option(options, "bench", self.name, ""),
            "package": string_option(options, "package", self.name, ""),
            "cargo_args": string_list(options, "cargo_args", self.name),
            "warm_up_time": _seconds(options.get("warm_up_time", ""), "warm_up_time"),
            "measurement_time": _seconds(options.get("measurement_time", ""), "measurement_time"),
            "args": string_list(options, "args", self.name),
        }

    def _executable(self, version: VersionContext, run: ProcessRunner, s: Mapping[str, Any]) -> str:
        known = self._executables.get(version.workdir)
        if known:
            return known
        self._clean_if_shared(version, run, s)
        argv = [*version.prefix, s["cargo"], "bench", "--no-run", "--message-format=json"]
        if s["package"]:
            argv += ["--package", s["package"]]
        if s["bench"]:
            argv += ["--bench", s["bench"]]
        argv += s["cargo_args"]
        # cargo's stdout is its JSON messages (read below), its stderr the "Compiling ..." lines;
        # a warning's second line ("(in the `quickcheck` dependency)") says nothing on its own
        progress = StepProgress(
            f"building the criterion benchmarks of {version.name} (cargo bench --no-run)",
            hide=lambda line: line.startswith(("{", "(in the `")),
        )
        result = run(argv, cwd=version.workdir, timeout=3600, progress=progress)
        progress.done("built" if result.returncode == 0 and not result.timed_out else "failed")
        if result.returncode != 0 or result.timed_out:
            raise RunError(
                f"`cargo bench --no-run` failed in {version.name}: {_last_error(result.stdout, result.stderr)}",
                _fix_for(
                    result.stderr,
                    "run `cargo bench --no-run` in the worktree (OUT/worktrees/...) to see the whole output; "
                    "check [criterion] package/bench/cargo_args",
                ),
            )
        found = bench_executables(result.stdout)
        if s["bench"]:
            found = {k: v for k, v in found.items() if k == s["bench"]}
        if len(found) != 1:
            names = ", ".join(sorted(found)) or "none"
            raise ConfigError(
                f"`cargo bench --no-run` in {version.name} built {len(found)} bench targets ({names})",
                '[criterion] bench = "NAME" (the [[bench]] target with harness = false that uses criterion)',
            )
        built = Path(next(iter(found.values())))
        # A copy of its own per version: cargo names a package's executable by a hash of its
        # name, version and profile, not of its place, so base and head built into one shared
        # CARGO_TARGET_DIR write the same file and the second build replaces the first.
        executable = scratch_file(version, f"criterion-{built.name}", "")
        try:
            shutil.copy2(built, executable)
        except OSError as exc:
            raise RunError(
                f"cannot copy the bench executable {built} built in {version.name}: {exc}",
                "check the disk space of the scratch directory (OUT/scratch)",
            ) from exc
        usage = run([*version.prefix, str(executable), "--help"], cwd=version.workdir, timeout=300)
        self._exact[version.workdir] = "--exact" in usage.stdout + usage.stderr
        self._executables[version.workdir] = str(executable)
        return str(executable)

    def _clean_if_shared(self, version: VersionContext, run: ProcessRunner, s: Mapping[str, Any]) -> None:
        """Make the build below really build this version when the target directory lies outside
        the worktree (``CARGO_TARGET_DIR``, ``build.target-dir``), as one shared by base and head.

        Cargo decides that a package of the workspace is up to date by comparing the mtimes of its
        sources (listed relative to the package root) with those of its outputs (Cargo Book,
        "Build cache": dep-info files and fingerprints), and names the outputs without the
        package's path: the second worktree's checkout is older than the first worktree's fresh
        build, so cargo would hand back the first version's executable as the second's. Cleaning
        the workspace's own packages (``cargo clean --profile bench -p ...``) keeps the compiled
        dependencies, which both versions may share."""
        meta = run(
            [*version.prefix, s["cargo"], "metadata", "--format-version", "1", "--no-deps"],
            cwd=version.workdir,
            timeout=600,
        )
        try:
            data = json.loads(meta.stdout) if meta.returncode == 0 and not meta.timed_out else None
            target = Path(str(data["target_directory"])) if data else None
            packages = sorted({str(p["name"]) for p in data["packages"]}) if data else []
        except (ValueError, KeyError, TypeError):
            target, packages = None, []
        if target is None:
            raise RunError(
                f"`cargo metadata` failed in {version.name}: {_last_error(meta.stdout, meta.stderr)}",
                "run `cargo metadata --no-deps` in the worktree (OUT/worktrees/...) to see why",
            )
        if target.resolve().is_relative_to(version.workdir.resolve()) or not packages:
            return
        require_shared_target(target, version, run)
        argv = [*version.prefix, s["cargo"], "clean", "--profile", "bench"]
        for package in packages:
            argv += ["--package", package]
        result = run(argv, cwd=version.workdir, timeout=600)
        if result.returncode != 0 or result.timed_out:
            raise RunError(
                f"`cargo clean` of the workspace packages in the shared target directory {target} failed in "
                f"{version.name}: {_last_error(result.stdout, result.stderr)}",
                _fix_for(
                    result.stderr,
                    "give each worktree its own target directory (unset CARGO_TARGET_DIR) or fix the error above",
                ),
            )

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        s = self._options(options)
        executable = self._executable(version, run, s)
        result = run([*version.prefix, executable, "--bench", "--list"], cwd=version.workdir, timeout=300)
        if result.returncode != 0 or result.timed_out:
            raise RunError(
                f"listing the criterion benchmarks of {executable} failed in {version.name} "
                f"({_last_error(result.stdout, result.stderr)})",
                "check that the bench target uses criterion_main! (harness = false in Cargo.toml)",
            )
        names = filter_discovered(parse_list(result.stdout), options, self.name)
        found = [BenchmarkSpec(name=n, unit="ns") for n in names]
        specs = with_configured(found, options, self.name, unit="ns")
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({executable})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._options(request.options)
        spec, version = request.benchmark, request.version
        executable = self._executable(version, run, s)
        what = f"criterion benchmark {spec.name!r}"
        samples = max(MIN_SAMPLES, request.measurements)
        exact = self._exact.get(version.workdir, True)
        argv = [
            *version.prefix,
            executable,
            "--bench",
            *(["--exact", spec.name] if exact else [anchored(spec.name)]),
        ]
        argv.append("--noplot")
        argv += ["--sample-size", str(samples)]
        if s["warm_up_time"]:
            argv += ["--warm-up-time", s["warm_up_time"]]
        if s["measurement_time"]:
            argv += ["--measurement-time", s["measurement_time"]]
        argv += s["args"]
        home = _fresh_home(version)
        try:
            result = run(
                argv, cwd=version.workdir, timeout=request.timeout, env={"CRITERION_HOME": str(home)}
            )
            raise_for_process(result, what)
            found = find_result(home, spec.name)
            if found is None:
                if not _ran_any(result.stdout + result.stderr):
                    # criterion prints "Benchmarking ID" for each benchmark it starts and nothing,
                    # with exit status 0, when the filter matches none of its ids
                    raise benchmark_missing(what, "criterion ran nothing for the exact name")
                raise TrialFailure(
                    TrialStatus.INVALID,
                    f"{what}: criterion wrote no {spec.name}/new/sample.json under CRITERION_HOME; "
                    "remove --discard-baseline/--profile-time/--load-baseline from [criterion] args",
                )
            values = parse_sample(read_text(found / "sample.json", what, root=home), what)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if len(values) != samples:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} samples, wanted {samples}; remove --sample-size from [criterion] args",
            )
        return values[-request.measurements :]


def _fresh_home(version: VersionContext) -> Path:
    version.scratch.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="criterion-home-", dir=version.scratch))


def _ran_any(output: str) -> bool:
    return any(line.startswith("Benchmarking ") for line in output.splitlines())


def require_shared_target(target: Path, version: VersionContext, run: ProcessRunner) -> None:
    """Refuse, before a build of many minutes, a target directory the gate would not find the bench
    executable in: the sandbox gives each version its own ``$HOME`` and ``/tmp``, so a
    ``CARGO_TARGET_DIR`` there is a private one per version (the gate outside reads the real
    place), and keeps the rest read-only unless ``[suite] caches`` binds it. A probe file written
    there by the runner (inside the sandbox, if any) must be visible here."""
    probe = target / f".ordertrap-probe-{uuid.uuid4().hex}"
    made = run(
        [*version.prefix, "/bin/sh", "-c", 'mkdir -p "$1" && : > "$2"', "sh", str(target), str(probe)],
        cwd=version.workdir,
        timeout=60,
    )
    seen = probe.is_file()
    probe.unlink(missing_ok=True)
    if seen:
        return
    where = (
        "cannot be written" if made.returncode != 0 else "is private to each version (under $HOME or /tmp)"
    )
    raise RunError(
        f"the cargo target directory {target} (CARGO_TARGET_DIR or build.target-dir) {where} in the "
        f"sandbox of {version.name}: the gate could not read the bench executable built there",
        f'list it in [suite] caches = ["{target}"] to share it between base and head (trusted versions '
        'only, docs/frameworks.md "[criterion]"), or unset CARGO_TARGET_DIR',
    )


def _last_error(stdout: str, stderr: str) -> str:
    return telling_line(stderr or stdout)


def _fix_for(stderr: str, otherwise: str) -> str:
    """The fix for a failed cargo call: the crates' download when that is what failed (``cargo
    clean -p`` resolves the dependency graph too, so it fails the same way before any build)."""
    return CRATES_FIX if _CRATES_UNREACHABLE.search(stderr) else otherwise


def bench_executables(stdout: str) -> dict[str, str]:
    """Bench target name -> executable, from cargo's ``--message-format=json`` lines."""
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or message.get("reason") != "compiler-artifact":
            continue
        target = message.get("target") or {}
        executable = message.get("executable")
        if isinstance(executable, str) and "bench" in (target.get("kind") or []):
            found[str(target.get("name"))] = executable
    return found


def parse_list(stdout: str) -> list[str]:
    """``EXE --bench --list`` prints ``ID: benchmark`` (``ID: bench`` before 0.4) per benchmark."""
    names = []
    for line in stdout.splitlines():
        for suffix in _LISTED:
            if line.endswith(suffix):
                names.append(line[: -len(suffix)])
                break
    return names


def find_result(home: Path, full_id: str) -> Path | None:
    """The ``new`` directory whose ``benchmark.json`` names ``full_id``: Criterion makes ids safe
    as directory names (``/`` splits group and function, other characters are replaced), so the
    directory is found by the id it records, never built from the untrusted name."""
    found = []
    for parent, _dirs, files in os.walk(home):  # links to directories are not followed
        if Path(parent).name == "new" and "benchmark.json" in files:
            found.append(Path(parent) / "benchmark.json")
    for path in sorted(found):
        try:
            recorded = json.loads(bounded.read_text(path, root=home)).get("full_id")
        except (OSError, ValueError, AttributeError, bounded.UnsafeFile):
            continue
        if recorded == full_id:
            return path.parent
    return None


def parse_sample(text: str, what: str) -> list[float]:
    try:
        data = json.loads(text)
        iters, times = data["iters"], data["times"]
        if not isinstance(iters, list) or not isinstance(times, list) or len(iters) != len(times):
            raise ValueError("iters and times differ in length")
        values = [
            float(t) / float(n) if float(n) > 0 else math.nan for n, t in zip(iters, times, strict=True)
        ]
    except (ValueError, KeyError, TypeError) as exc:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: sample.json is not Criterion's (iters, times) ({exc!s:.80})"
        ) from None
    return check_finite(values, what)
