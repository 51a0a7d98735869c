"""``go``: Go benchmarks through ``go test`` or a prebuilt test binary (``go test -c``).

One trial = ``go test -run '^$' -bench '^Name$' -benchtime T -count N PACKAGE`` in the worktree
(or ``BINARY -test.run '^$' -test.bench ... -test.count N``). Each of the N result lines gives
one value of ``metric`` (default ``ns/op``). Line format: Go's benchmark data format
(go.googlesource.com/proposal/+/master/design/14313-benchmark-data.md):
``BenchmarkName-GOMAXPROCS  iterations  value unit [value unit ...]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gate.adapters._common import (
    configured_specs,
    escape_regex,
    filter_discovered,
    one_match,
    require_nonempty,
    string_list,
    string_setting,
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


class GoTestAdapter:
    name = "go"

    def _settings(self, settings: Mapping[str, Any]) -> tuple[str, str, str, str, list[str]]:
        return (
            string_setting(settings, "package", self.name, "."),
            string_setting(settings, "binary", self.name, ""),
            string_setting(settings, "benchtime", self.name, "1s"),
            string_setting(settings, "metric", self.name, "ns/op"),
            string_list(settings, "args", self.name),
        )

    def discover(
        self, version: VersionContext, run: ProcessRunner, settings: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        package, binary, _, metric, _ = self._settings(settings)
        higher = metric.endswith("/s")  # MB/s and custom rates; ns/op, B/op, allocs/op are costs
        configured = configured_specs(settings, self.name, need_command=False, default_unit=metric)
        if configured:
            return configured
        if binary:
            argv = [*version.prefix, binary, "-test.list", "^Benchmark"]
        else:
            argv = [*version.prefix, "go", "test", "-list", "^Benchmark", package]
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
                f"the same Go benchmark name appears in several packages of {package!r}",
                "set [go] package to one package, or list the benchmarks as [[benchmark]] entries",
            )
        names = filter_discovered(names, settings, self.name)
        require_nonempty(names, self.name, f"{version.name} ({binary or package})")
        return [BenchmarkSpec(name=n, unit=metric, higher_is_better=higher) for n in names]

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        package, binary, benchtime, metric, args = self._settings(request.settings)
        spec = request.benchmark
        pattern = bench_regex(spec.name)
        n = str(request.measurements)
        if binary:
            argv = [*request.version.prefix, binary, "-test.run", "^$", "-test.bench", pattern]
            argv += ["-test.benchtime", benchtime, "-test.count", n, *args]
        else:
            argv = [*request.version.prefix, "go", "test", "-run", "^$", "-bench", pattern]
            argv += ["-benchtime", benchtime, "-count", n, *args, package]
        what = f"go benchmark {spec.name!r}"
        result = run(argv, cwd=request.version.workdir, timeout=request.timeout)
        raise_for_process(result, what)
        values = parse_bench_output(result.stdout, spec.name, metric, what)
        if len(values) != request.measurements:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} results, wanted {request.measurements}; remove -count from [go] args",
            )
        return values
