"""``gbench``: a Google Benchmark binary built by ``[suite] build`` (or already in the tree).

``[gbench] binary`` is a path in the version's worktree (:func:`gate.adapters._common.worktree_binary`):
a relative one, with or without a slash, is never looked up on ``PATH``.

One trial = ``BINARY --benchmark_filter='^Name$' --benchmark_repetitions=N
--benchmark_report_aggregates_only=false --benchmark_out=FILE --benchmark_out_format=json``;
the values are the ``real_time`` (or ``cpu_time``) of the N ``run_type == "iteration"`` rows,
converted from each row's ``time_unit`` (Google Benchmark docs, "Output Formats" and
"Reporting Statistics"). Discovery: ``BINARY --benchmark_list_tests``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate import jsontext
from gate.adapters._common import (
    NoBenchmarkMatched,
    anchored,
    benchmark_missing,
    filter_discovered,
    missing_binary,
    one_match,
    read_text,
    require_nonempty,
    scratch_file,
    string_list,
    string_option,
    with_configured,
    worktree_binary,
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

TIME_FIELDS = ("real_time", "cpu_time")
# What RunSpecifiedBenchmarks prints (to stderr, exit status 0) when the filter matches nothing.
_NO_MATCH = "Failed to match any benchmarks"
# seconds per unit, for Google Benchmark's time_unit values (benchmark::TimeUnit)
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class GoogleBenchmarkAdapter:
    name = "gbench"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = ("binary", "time", "unit", "min_time", "args", "include")
    benchmark_keys: tuple[str, ...] = ()

    def _options(self, options: Mapping[str, Any]) -> tuple[str, str, str, str, list[str]]:
        binary = string_option(options, "binary", self.name, "")
        if not binary:
            raise ConfigError(
                "[gbench] binary is not set",
                '[gbench] binary = "build/bench" (path in the worktree, built by [suite] build)',
            )
        time_field = string_option(options, "time", self.name, "real_time")
        if time_field not in TIME_FIELDS:
            raise ConfigError(
                f"[gbench] time = {time_field!r} is not one of {TIME_FIELDS}", '[gbench] time = "real_time"'
            )
        unit = string_option(options, "unit", self.name, "ns")
        if unit not in _SECONDS:
            raise ConfigError(
                f"[gbench] unit = {unit!r} is not one of {tuple(_SECONDS)}", '[gbench] unit = "ns"'
            )
        min_time = string_option(options, "min_time", self.name, "")
        return binary, time_field, unit, min_time, string_list(options, "args", self.name)

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        binary, _, unit, _, _ = self._options(options)
        command, path = worktree_binary(version, binary)
        result = run(
            [*version.prefix, command, "--benchmark_list_tests=true"], cwd=version.workdir, timeout=120
        )
        missing = missing_binary(result, version, binary, path, self.name)
        if missing:
            raise RunError(*missing)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"listing Google Benchmark tests of {binary!r} failed in {version.name} ({tail[0][:200]})",
                "check [gbench] binary (relative to the worktree) and that [suite] build creates it",
            )
        names = filter_discovered(
            [ln.strip() for ln in result.stdout.splitlines() if ln.strip()], options, self.name
        )
        specs = with_configured(
            [BenchmarkSpec(name=n, unit=unit) for n in names], options, self.name, unit=unit
        )
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({binary})")
        return specs

    def _no_match(self, request: TrialRequest, run: ProcessRunner, command: str, what: str) -> TrialFailure:
        """Google Benchmark matched nothing: the name is missing in this version, unless it is a
        family whose instances are named with their arguments (``BM_Fill`` for ``BM_Fill/8``),
        which the list of this binary's benchmarks tells."""
        version, name = request.version, request.benchmark.name
        listing = run(
            [*version.prefix, command, "--benchmark_list_tests=true"], cwd=version.workdir, timeout=120
        )
        raise_for_process(listing, f"{what}: listing the benchmarks to see whether it exists")
        names = [n.strip() for n in listing.stdout.splitlines() if n.strip()]
        if name in names:  # listed, yet its anchored filter matched nothing: not a missing benchmark
            return TrialFailure(
                TrialStatus.INVALID,
                f"{what}: the filter {anchored(name)!r} matched nothing although the binary lists "
                "this name; please report this as a bug",
            )
        family = [n for n in names if n.startswith(name + "/")]
        if family:
            shown = ", ".join(family[:3]) + (" ..." if len(family) > 3 else "")
            return TrialFailure(
                TrialStatus.INVALID,
                f"{what}: no benchmark is named {name!r}; it is a family of {len(family)} ({shown}): "
                "name one of them",
            )
        return benchmark_missing(what, f"Google Benchmark: {_NO_MATCH} against its filter")

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        binary, time_field, unit, min_time, args = self._options(request.options)
        spec = request.benchmark
        command, path = worktree_binary(request.version, binary)
        out = scratch_file(request.version, spec.name, ".json")
        argv = [
            *request.version.prefix,
            command,
            f"--benchmark_filter={anchored(spec.name)}",
            f"--benchmark_repetitions={request.measurements}",
            # keep the per-repetition rows; the aggregates (mean, median, stddev, cv) are skipped below
            "--benchmark_report_aggregates_only=false",
            "--benchmark_display_aggregates_only=true",
            f"--benchmark_out={out}",
            "--benchmark_out_format=json",
        ]
        if min_time:
            argv.append(f"--benchmark_min_time={min_time}")
        argv += args
        what = f"Google Benchmark {spec.name!r}"
        result = run(argv, cwd=request.version.workdir, timeout=request.timeout)
        missing = missing_binary(result, request.version, binary, path, self.name)
        if missing:
            raise TrialFailure(TrialStatus.ERROR, f"{what}: {missing[0]}; {missing[1]}")
        raise_for_process(result, what)
        try:
            values = parse_json(read_text(out, what), spec.name, time_field, unit, what)
        except NoBenchmarkMatched:
            if _NO_MATCH not in result.stderr + result.stdout:
                raise
            raise self._no_match(request, run, command, what) from None
        if len(values) != request.measurements:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} repetitions, wanted {request.measurements}; "
                "remove Repetitions() from the benchmark or --benchmark_repetitions from [gbench] args",
            )
        return values


def parse_json(text: str, requested: str, time_field: str, unit: str, what: str) -> list[float]:
    if not text.strip():
        # Google Benchmark exits 0 and leaves --benchmark_out empty when the filter matches nothing
        # ("Failed to match any benchmarks against regex" on stderr).
        one_match([], requested, what)
    try:
        rows = jsontext.loads(text)["benchmarks"]
        iterations = [r for r in rows if r.get("run_type", "iteration") == "iteration"]
        names = [str(r["name"]) for r in iterations]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: output is not Google Benchmark JSON ({exc!s:.80})"
        ) from None
    one_match(names, requested, what)
    values: list[float] = []
    for row in iterations:
        if row.get("error_occurred") or row.get("skipped"):
            message = row.get("error_message") or row.get("skip_message") or "no message"
            raise TrialFailure(
                TrialStatus.INVALID, f"{what} reported an error: {message!s:.150}; fix the benchmark"
            )
        try:
            value = float(row[time_field]) * _SECONDS[str(row.get("time_unit", "ns"))] / _SECONDS[unit]
        except (KeyError, TypeError, ValueError):
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: row has no numeric {time_field}/time_unit; upgrade Google Benchmark",
            ) from None
        values.append(value)
    return check_finite(values, what)
