"""``go``: Go benchmarks through ``go test`` or a prebuilt test binary (``go test -c``).

One trial = ``go test -run '^$' -bench '^Name$' -benchtime T -count N PACKAGE`` in the worktree,
or, by default, the same run through the package's test binary, built once per version by
discovery (``go test -c -o SCRATCH/go-*.test PACKAGE``; ``BINARY -test.run '^$' -test.bench ...
-test.count N`` in the package directory), or a prebuilt binary named by ``[go] binary``. Each of the N result lines gives
one value of ``metric`` (default ``ns/op``). Line format: Go's benchmark data format
(go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md):
``BenchmarkName-GOMAXPROCS  iterations  value unit [value unit ...]``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.adapters._common import (
    configured_specs,
    escape_regex,
    filter_discovered,
    one_match,
    require_nonempty,
    string_list,
    string_setting,
    with_configured,
)
from gate.adapters.base import (
    BenchmarkSpec,
    ProcessRunner,
    TrialFailure,
    TrialRequest,
    VersionContext,
    check_finite,
    raise_for_process,
)
from gate.errors import ConfigError, RunError
from gate.model import TrialStatus

_RESULT = re.compile(r"^(Benchmark\S*)\s+\d+\s+(.*)$")
_PROCS = re.compile(r"-\d+$")
_BENCH_NAME = re.compile(r"^Benchmark\S*$")


def bench_regex(name: str) -> str:
    """``-bench`` splits its regex on ``/`` and matches each part against one sub-benchmark level
    (``go help testflag``), so every level is anchored on its own."""
    return "/".join(f"^{escape_regex(part)}$" for part in name.split("/"))


def result_name(raw: str, requested: str) -> str:
    """Strip the ``-GOMAXPROCS`` suffix (absent when GOMAXPROCS=1), keeping a requested name that
    itself ends in ``-digits``."""
    if raw == requested or re.fullmatch(re.escape(requested) + r"-\d+", raw):
        return requested
    return _PROCS.sub("", raw)


def parse_bench_output(stdout: str, requested: str, metric: str, what: str) -> list[float]:
    names: list[str] = []
    values: list[float] = []
    for line in stdout.splitlines():
        match = _RESULT.match(line.strip())
        if not match:
            continue
        name = result_name(match.group(1), requested)
        fields = match.group(2).split()
        names.append(name)
        if name != requested:
            continue
        pairs = dict(zip(fields[1::2], fields[0::2], strict=False))  # unit -> value
        if metric not in pairs:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: result line has no {metric!r} (has {', '.join(pairs) or 'nothing'}); "
                "set [go] metric to one of those",
            )
        try:
            values.append(float(pairs[metric]))
        except ValueError:
            raise TrialFailure(
                TrialStatus.INVALID, f"{what}: {metric} value {pairs[metric]!r} is not a number"
            ) from None
    one_match(names, requested, what)
    return check_finite(values, what)


@dataclass(frozen=True)
class GoSettings:
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


class GoTestAdapter:
    name = "go"

    def _settings(self, settings: Mapping[str, Any]) -> GoSettings:
        prebuild = settings.get("prebuild", True)
        if not isinstance(prebuild, bool):
            raise ConfigError(
                f"[go] prebuild must be true or false, got {prebuild!r}", "[go] prebuild = true"
            )
        return GoSettings(
            package=string_setting(settings, "package", self.name, "."),
            binary=string_setting(settings, "binary", self.name, ""),
            benchtime=string_setting(settings, "benchtime", self.name, "1s"),
            metric=string_setting(settings, "metric", self.name, "ns/op"),
            args=string_list(settings, "args", self.name),
            build_args=string_list(settings, "build_args", self.name),
            prebuild=prebuild,
        )

    def _prebuild(self, version: VersionContext, run: ProcessRunner, s: GoSettings) -> Path | None:
        """Build the package's test binary once per version into scratch: ``go test`` would
        compile and link it again in every trial (about 1 s per trial here, vs 0.02 s to start the
        binary). Discovery runs at the start of every run and resume, so the binary is rebuilt
        from the worktree each time and cannot be stale."""
        path = prebuilt_path(version, s.package)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        argv = [*version.prefix, "go", "test", "-c", "-o", str(path), *s.build_args, s.package]
        result = run(argv, cwd=version.workdir, timeout=1800)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"building the Go test binary failed in {version.name} ({tail[0][:200]})",
                f"make `go test -c {s.package}` work in the worktree, or set [go] prebuild = false",
            )
        return path if path.exists() else None  # "no test files": nothing built

    def discover(
        self, version: VersionContext, run: ProcessRunner, settings: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        s = self._settings(settings)
        higher = s.metric.endswith("/s")  # MB/s and custom rates; ns/op, B/op, allocs/op are costs
        built = self._prebuild(version, run, s) if s.can_prebuild else None
        binary = str(built) if built else s.binary
        if binary:
            argv = [*version.prefix, binary, "-test.list", "^Benchmark"]
        else:
            argv = [*version.prefix, "go", "test", "-list", "^Benchmark", *s.build_args, s.package]
        result = run(argv, cwd=version.workdir, timeout=600)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"listing Go benchmarks failed in {version.name} ({tail[0][:200]})",
                "make `go test -list '^Benchmark' PACKAGE` work in the worktree, or set [go] package/binary",
            )
        names = [line.strip() for line in result.stdout.splitlines() if _BENCH_NAME.match(line.strip())]
        if len(set(names)) != len(names):
            raise ConfigError(
                f"the same Go benchmark name appears in several packages of {s.package!r}",
                "set [go] package to one package, or list the benchmarks as [[benchmark]] entries",
            )
        names = filter_discovered(names, settings, self.name)
        # A parent whose sub-benchmarks are listed as [[benchmark]] entries would match all of
        # its sub-benchmarks (an invalid trial every time): the entries replace it.
        subs = [c.name for c in configured_specs(settings, self.name, need_command=False) if "/" in c.name]
        names = [n for n in names if not any(sub.startswith(n + "/") for sub in subs)]
        found = [BenchmarkSpec(name=n, unit=s.metric, higher_is_better=higher) for n in names]
        specs = with_configured(found, settings, self.name, unit=s.metric, higher=higher)
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({s.binary or s.package})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._settings(request.settings)
        version = request.version
        spec = request.benchmark
        pattern = bench_regex(spec.name)
        n = str(request.measurements)
        cwd = version.workdir
        binary = s.binary
        if not binary and s.can_prebuild and prebuilt_path(version, s.package).exists():
            binary = str(prebuilt_path(version, s.package))
            cwd = version.workdir / s.package  # `go test` runs a package's tests in its directory
        if binary:
            argv = [*version.prefix, binary, "-test.run", "^$", "-test.bench", pattern]
            argv += ["-test.benchtime", s.benchtime, "-test.count", n, *binary_args(s.args)]
        else:
            argv = [*version.prefix, "go", "test", "-run", "^$", "-bench", pattern]
            argv += ["-benchtime", s.benchtime, "-count", n, *s.build_args, *s.args, s.package]
        what = f"go benchmark {spec.name!r}"
        result = run(argv, cwd=cwd, timeout=request.timeout)
        raise_for_process(result, what)
        values = parse_bench_output(result.stdout, spec.name, s.metric, what)
        if len(values) != request.measurements:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} results, wanted {request.measurements}; remove -count from [go] args",
            )
        return values
