"""``go``: Go benchmarks through ``go test`` or a prebuilt test binary (``go test -c``).

One trial = ``go test -run '^$' -bench '^Name$' -benchtime T -count N PACKAGE`` in the worktree,
or, by default, the same run through the package's test binary, built once per version by
discovery (``go test -c -o SCRATCH/go-*.test PACKAGE``; ``BINARY -test.run '^$' -test.bench ...
-test.count N`` in the package directory), or a prebuilt binary named by ``[go] binary`` (a path
in the worktree, see :func:`gate.adapters._common.worktree_binary`). Each of the N results gives
one value of ``metric`` (default ``ns/op``). Result format: Go's benchmark data format
(go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md):
``BenchmarkName-GOMAXPROCS  iterations  value unit [value unit ...]`` — but on one line only
when the benchmark prints nothing: see :func:`parse_results`.

Go exits 0 and prints no result both for a ``-bench`` filter that matches nothing and for a
benchmark that skipped itself; one ``-v`` run tells them apart (:meth:`GoTestAdapter._no_result`).
Sub-benchmarks cannot be listed without running their parent (``-test.list`` names top-level
benchmarks only): one ``-benchtime 1x -v`` run per version of the discovered benchmarks not named
by a ``[[benchmark]]`` entry, and of the parents of ``[[benchmark]]`` patterns such as
``BenchmarkSum64/*`` (:meth:`GoTestAdapter._listing`), gives every name; a discovered parent is
replaced by its leaves and a pattern by the leaves it matches (:meth:`GoTestAdapter.discover`).
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.adapters._common import (
    NoBenchmarkMatched,
    StepProgress,
    benchmark_missing,
    configured_specs,
    escape_regex,
    missing_binary,
    require_nonempty,
    string_list,
    string_option,
    worktree_binary,
)
from gate.adapters.base import (
    BenchmarkSpec,
    ProcessResult,
    ProcessRunner,
    SourceHint,
    TrialFailure,
    TrialRequest,
    VersionContext,
    raise_for_process,
    telling_line,
)
from gate.adapters.gotest_include import go_include, include_matches
from gate.adapters.gotest_output import (
    BENCH_NAME,
    VERBOSE_FLAG,
    bench_regex,
    chatty_names,
    cut_output,
    is_pattern,
    is_verbose,
    leaves,
    parse_bench_output,
    pattern_level,
    pattern_matches,
    repeats_runs,
)
from gate.errors import ConfigError, RunError
from gate.files import bounded
from gate.model import TrialStatus


@dataclass(frozen=True)
class GoOptions:
    package: str
    binary: str
    benchtime: str
    metric: str
    args: list[str]
    build_args: list[str]
    prebuild: bool

    @property
    def can_prebuild(self) -> bool:
        # `go test -c` builds one package; a relative directory maps to the binary's working dir
        return (
            self.prebuild
            and not self.binary
            and "..." not in self.package
            and (self.package == "." or self.package.startswith("./"))
        )


def prebuilt_path(version: VersionContext, package: str) -> Path:
    digest = hashlib.sha1(package.encode(), usedforsecurity=False).hexdigest()[:12]
    return version.scratch / f"go-{digest}.test"


def binary_args(args: list[str]) -> list[str]:
    """``go test`` accepts test flags with or without the ``test.`` prefix; a test binary only
    with it (``go help testflag``), so ``-benchmem`` becomes ``-test.benchmem``."""
    return [
        "-test." + a.lstrip("-") if a.startswith("-") and not a.lstrip("-").startswith("test.") else a
        for a in args
    ]


def _quiet(args: Sequence[str]) -> list[str]:
    """[go] args without -v flags: the listing runs add -v themselves, and ``-v=false`` in args
    must not turn it off."""
    return [a for a in args if not VERBOSE_FLAG.fullmatch(a)]


def _went_through(result: ProcessResult, parents: Sequence[str], names: Sequence[str]) -> bool:
    """Whether a listing run that exited non-zero still ran every benchmark: one failed through
    ``b.Fatal``/``b.Error`` (``--- FAIL: Name``) and Go went on, started every top-level benchmark
    in ``parents`` and ended with its own ``FAIL`` line and status 1 (``testing.M.Run``), as
    opposed to a crash (a panic, ``os.Exit``: status 2 or another, the names after it unknown).
    Then the names are complete, and the failing benchmark gets failed trials of its own, as a
    named one would."""
    lines = result.stdout.splitlines()
    return (
        result.returncode == 1
        and "FAIL" in (line.rstrip() for line in lines)
        and not any(line.startswith("panic: ") for line in lines)
        and set(parents) <= set(names)
    )


def _file_digest(path: Path | None) -> str | None:
    """The test binary's content hash; None when there is no regular file there (see
    :func:`gate.files.bounded.sha256`: a link or FIFO planted there is not followed)."""
    if path is None:
        return None
    try:
        return bounded.sha256(path)
    except (OSError, bounded.UnsafeFile):
        return None


class GoTestAdapter:
    name = "go"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = (
        "package",
        "benchtime",
        "metric",
        "prebuild",
        "binary",
        "build_args",
        "args",
        "include",
    )
    benchmark_keys: tuple[str, ...] = ()

    def source_hint(self, name: str) -> SourceHint:
        """The ``_test.go`` file declaring the top-level benchmark function."""
        return SourceHint(suffix="_test.go", needles=(f"func {name.split('/')[0]}(",))

    def _options(self, options: Mapping[str, Any]) -> GoOptions:
        prebuild = options.get("prebuild", True)
        if not isinstance(prebuild, bool):
            raise ConfigError(
                f"[go] prebuild must be true or false, got {prebuild!r}", "[go] prebuild = true"
            )
        return GoOptions(
            package=string_option(options, "package", self.name, "."),
            binary=string_option(options, "binary", self.name, ""),
            benchtime=string_option(options, "benchtime", self.name, "1s"),
            metric=string_option(options, "metric", self.name, "ns/op"),
            args=string_list(options, "args", self.name),
            build_args=string_list(options, "build_args", self.name),
            prebuild=prebuild,
        )

    def _prebuild(self, version: VersionContext, run: ProcessRunner, s: GoOptions) -> Path | None:
        """Build the package's test binary once per version into scratch: ``go test`` would
        compile and link it again in every trial (about 1 s per trial here, vs 0.02 s to start the
        binary). Discovery runs at the start of every run and resume, so the binary is rebuilt
        from the worktree each time and cannot be stale."""
        path = prebuilt_path(version, s.package)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        argv = [*version.prefix, "go", "test", "-c", "-o", str(path), *s.build_args, s.package]
        progress = StepProgress(f"building the Go test binary of {version.name} (go test -c {s.package})")
        result = run(argv, cwd=version.workdir, timeout=1800, progress=progress)
        progress.done("built" if result.returncode == 0 and not result.timed_out else "failed")
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"building the Go test binary failed in {version.name} ({tail[0][:200]})",
                f"make `go test -c {s.package}` work in the worktree, or set [go] prebuild = false",
            )
        return path if path.exists() else None  # "no test files": nothing built

    def _invocation(
        self, version: VersionContext, s: GoOptions, flags: list[str], args: list[str]
    ) -> tuple[list[str], Path, Path | None]:
        """(argv, working directory, the file [go] binary names) for test ``flags`` in ``go test``
        form (``-bench X``) followed by ``args``: the configured binary, else the test binary
        built by discovery (run in the package directory, as ``go test`` runs it), else ``go test``."""
        cwd = version.workdir
        binary, path = worktree_binary(version, s.binary) if s.binary else ("", None)
        if not binary and s.can_prebuild and prebuilt_path(version, s.package).exists():
            binary = str(prebuilt_path(version, s.package))
            cwd = version.workdir / s.package  # `go test` runs a package's tests in its directory
        if binary:
            return [*version.prefix, binary, *binary_args([*flags, *args])], cwd, path
        return [*version.prefix, "go", "test", *flags, *s.build_args, *args, s.package], cwd, path

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        """``-test.list`` gives the top-level benchmarks. A discovered one that turns out to have
        sub-benchmarks is replaced by its leaves (Go reports no result of a parent's own, so
        measuring it would give an invalid trial every time), unless a ``[[benchmark]]`` entry
        names it or one of its sub-benchmarks; a ``[[benchmark]]`` name with ``*`` is expanded into
        the benchmarks it matches in this version (see :meth:`_expand`)."""
        s = self._options(options)
        higher = s.metric.endswith("/s")  # MB/s and custom rates; ns/op, B/op, allocs/op are costs
        built = self._prebuild(version, run, s) if s.can_prebuild else None
        path: Path | None = None  # the file [go] binary names
        if built:
            argv = [*version.prefix, str(built), "-test.list", "^Benchmark"]
        elif s.binary:
            command, path = worktree_binary(version, s.binary)
            argv = [*version.prefix, command, "-test.list", "^Benchmark"]
        else:
            argv = [*version.prefix, "go", "test", "-list", "^Benchmark", *s.build_args, s.package]
        result = run(argv, cwd=version.workdir, timeout=600)
        missing = missing_binary(result, version, s.binary, path, self.name) if path else None
        if missing:
            raise RunError(*missing)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"listing Go benchmarks failed in {version.name} ({tail[0][:200]})",
                "make `go test -list '^Benchmark' PACKAGE` work in the worktree, or set [go] package/binary",
            )
        listed = [line.strip() for line in result.stdout.splitlines() if BENCH_NAME.match(line.strip())]
        if len(set(listed)) != len(listed):
            raise ConfigError(
                f"the same Go benchmark name appears in several packages of {s.package!r}",
                "set [go] package to one package, or list the benchmarks as [[benchmark]] entries",
            )
        configured = configured_specs(
            options, self.name, need_command=False, default_unit=s.metric, default_higher=higher
        )
        literal = [c for c in configured if not is_pattern(c.name)]
        patterns = [c for c in configured if is_pattern(c.name)]
        literal_names = {c.name for c in literal}
        named_below = [c.name for c in literal if "/" in c.name]
        include = go_include(options)
        included = [
            n
            for n in listed
            if (include is None or include_matches(include, n, parent=True))
            and not any(b.startswith(n + "/") for b in named_below)
        ]
        firsts = [pattern_level(p.name.split("/")[0]) for p in patterns]
        pattern_parents = {n for n in listed if any(f.fullmatch(n) for f in firsts)}
        # One listing run per version covers the patterns' parents and every discovered benchmark
        # not named by a [[benchmark]] entry: which of them have sub-benchmarks is only known once
        # they run (see _listing).
        to_list = [n for n in listed if n in pattern_parents or (n in included and n not in literal_names)]
        below = self._listing(version, run, s, to_list) if to_list else []
        expanded = self._expand(below, patterns, literal_names)
        expanded_names = {e.name for e in expanded}
        taken_below = [*named_below, *expanded_names]
        found: list[BenchmarkSpec] = []
        for n in included:
            if n in expanded_names or any(b.startswith(n + "/") for b in taken_below):
                # a parent whose sub-benchmarks are named (or matched by a pattern) would match all
                # of them (an invalid trial every time): they replace it
                continue
            subs = [] if n in literal_names else [x for x in leaves(below) if x.startswith(n + "/")]
            if include is not None and n not in literal_names:
                # [go] include picks sub-benchmarks level by level, as -bench does (gotest_include.py)
                if not subs and not include_matches(include, n):
                    continue
                kept = [x for x in subs if include_matches(include, x)]
                if subs and not kept:
                    continue  # none of its sub-benchmarks is included: nor is the parent itself
                subs = kept
            if not subs:
                found.append(BenchmarkSpec(name=n, unit=s.metric, higher_is_better=higher))
                continue
            # a parent measures nothing of its own (Go reports only its sub-benchmarks): its leaves
            # replace it, recorded as if from the pattern "Parent/*" (meta.json "pattern")
            found.extend(
                BenchmarkSpec(name=x, unit=s.metric, higher_is_better=higher, options={"pattern": f"{n}/*"})
                for x in subs
                if x not in literal_names
            )
        taken = {x.name for x in found} | expanded_names
        # an entry with a discovered name is applied by the run engine (Config.override)
        specs = [*found, *expanded, *(c for c in literal if c.name not in taken)]
        if include is not None and not specs:
            raise ConfigError(
                f"[go] include {options.get('include')!r} matches none of the Go benchmarks of "
                f"{version.name} ({', '.join(listed[:5]) or 'none listed'}{' …' if len(listed) > 5 else ''})",
                "include is matched level by level, as go test -bench matches: one regex per "
                'level between "/", e.g. include = ["^BenchmarkSum64$/^4B$"] (docs/frameworks.md, [go])',
            )
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({s.binary or s.package})")
        return specs

    @staticmethod
    def _expand(
        listing: Sequence[str], patterns: Sequence[BenchmarkSpec], literal: set[str]
    ) -> list[BenchmarkSpec]:
        """The leaves of ``listing`` (this version's benchmark names, :meth:`_listing`) that
        ``patterns`` match, each with its pattern's unit, direction and options (and
        ``options["pattern"]``, which ``run`` records in meta.json). A name also configured
        literally keeps its own entry. A leaf missing here but present in the other version is then
        ``skipped`` here."""
        out: list[BenchmarkSpec] = []
        if not patterns:
            return out
        for leaf in leaves(listing):
            pattern = next((p for p in patterns if pattern_matches(p.name, leaf)), None)
            if pattern is not None and leaf not in literal:
                out.append(
                    BenchmarkSpec(
                        name=leaf,
                        unit=pattern.unit,
                        higher_is_better=pattern.higher_is_better,
                        options={**pattern.options, "pattern": pattern.name},
                    )
                )
        return out

    def _listing(
        self, version: VersionContext, run: ProcessRunner, s: GoOptions, parents: list[str]
    ) -> list[str]:
        """Every benchmark name below ``parents`` (top-level benchmarks), from one 1x ``-v`` run
        of them all, cached in the version's scratch directory: a resume of the same run (same
        worktree SHA, checked by ``run``) and the same test binary (by content) reuse it instead of
        running the benchmarks again. A failing run stops the run with the command that reproduces
        it: the names it would have given are unknown, so measuring a parent instead would give an
        invalid trial every time."""
        regex = "^(?:" + "|".join(escape_regex(p) for p in parents) + ")$"
        flags = ["-run", "^$", "-bench", regex, "-benchtime", "1x", "-count", "1"]
        argv, cwd, path = self._invocation(version, s, flags, [*_quiet(s.args), "-v"])
        executable = (
            path if path is not None else (prebuilt_path(version, s.package) if s.can_prebuild else None)
        )
        digest = _file_digest(executable)
        key = json.dumps({"argv": argv, "cwd": str(cwd), "binary": digest}, sort_keys=True)
        # in the gate's own directory, which the sandbox cannot write: a file in scratch could be
        # a link that the gate would write through, or a listing the benchmark made up
        cache = None
        if version.gate_cache is not None and (executable is None or digest is not None):
            cache = version.gate_cache / f"go-list-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"
            try:
                cached = json.loads(bounded.read_text(cache))
                if cached.get("key") == key and isinstance(cached.get("names"), list):
                    return [str(n) for n in cached["names"]]
            except (OSError, ValueError, AttributeError, bounded.UnsafeFile):
                pass
        result = run(argv, cwd=cwd, timeout=600)
        what = f"listing the sub-benchmarks of {', '.join(parents[:3])}{' ...' if len(parents) > 3 else ''} in {version.name}"
        fix = (
            f"run `{shlex.join(argv[len(version.prefix) :])}` in {cwd} and make it pass (each benchmark "
            "runs once), or name the benchmarks to run, sub-benchmarks included, as [[benchmark]] "
            "entries instead of a pattern or discovery (then a crash is a failed trial, not a stopped "
            "run), or leave the failing benchmark out with [go] include"
        )
        cut = cut_output(result.stdout, what)
        if cut:
            raise RunError(cut, fix)
        names = chatty_names(result.stdout, parents)
        if result.timed_out or (result.returncode != 0 and not _went_through(result, parents, names)):
            problem = "timed out" if result.timed_out else telling_line(result.stderr + "\n" + result.stdout)
            raise RunError(f"{what} failed ({problem})", fix)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            bounded.write_exclusive(cache, json.dumps({"key": key, "names": names}).encode())
        return names

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._options(request.options)
        spec = request.benchmark
        flags = ["-run", "^$", "-bench", bench_regex(spec.name), "-benchtime", s.benchtime]
        flags += ["-count", str(request.measurements)]
        argv, cwd, path = self._invocation(request.version, s, flags, s.args)
        what = f"go benchmark {spec.name!r}"
        result = run(argv, cwd=cwd, timeout=request.timeout)
        missing = missing_binary(result, request.version, s.binary, path, self.name) if path else None
        if missing:
            raise TrialFailure(TrialStatus.ERROR, f"{what}: {missing[0]}; {missing[1]}")
        raise_for_process(result, what)
        try:
            values = parse_bench_output(result.stdout, spec.name, s.metric, what, verbose=is_verbose(s.args))
        except NoBenchmarkMatched:
            raise self._no_result(request, run, s, what) from None
        if len(values) != request.measurements:
            cut = cut_output(result.stdout, what)
            if cut:
                raise TrialFailure(
                    TrialStatus.INVALID, f"{cut} (got {len(values)} results, wanted {request.measurements})"
                )
            # not "write it to stderr": `go test` (prebuild = false) merges stderr into stdout
            fix = (
                "the benchmark prints lines in Go's result format itself; don't print them, "
                "or write them to a file"
                if len(values) > request.measurements and not repeats_runs(s.args)
                else "remove -count (and a -cpu list) from [go] args"
            )
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} results, wanted {request.measurements}; {fix}",
            )
        return values

    def _no_result(self, request: TrialRequest, run: ProcessRunner, s: GoOptions, what: str) -> TrialFailure:
        """Why a run that exited 0 printed no result. Go is silent both when nothing matches the
        ``-bench`` filter (the benchmark does not exist in this version: its parent is missing,
        or has no such sub-benchmark) and when the benchmark skipped itself; with ``-v`` it prints
        the name of every benchmark it starts (:func:`chatty_names`), so one 1x run tells the two
        apart."""
        spec = request.benchmark
        flags = ["-run", "^$", "-bench", bench_regex(spec.name), "-benchtime", "1x", "-count", "1"]
        argv, cwd, _ = self._invocation(request.version, s, flags, [*_quiet(s.args), "-v"])
        probe: ProcessResult = run(argv, cwd=cwd, timeout=request.timeout)
        raise_for_process(probe, f"{what} (run once with -v to see whether it exists)")
        if spec.name in chatty_names(probe.stdout, [spec.name.split("/")[0]]):
            return TrialFailure(
                TrialStatus.INVALID,
                f"{what}: it exists in this version but reported no result (Go started it and printed "
                "no result line: it may call b.Skip); make it measure, or leave it out of the configuration",
            )
        return benchmark_missing(what, "Go runs no benchmark for its -bench filter, even with -v")
