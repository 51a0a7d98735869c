"""``jmh``: a JMH uber-jar (``mvn package`` output, e.g. ``target/benchmarks.jar``).

One trial = ``java -jar JAR '^Class\\.method$' -f 1 -wi W -i N -bm MODE -tu UNIT -foe true -rf json
-rff FILE``;
the values are ``primaryMetric.rawData`` (one score per measurement iteration, per fork) of the
single result in the JSON (JMH ``-h``; ``org.openjdk.jmh.results.format.JSONResultFormat``).
The mode and time unit are passed explicitly so that the unit and its direction are known
before the run (``thrpt`` = ops per time unit, higher is better; ``avgt``/``ss`` = time per op).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gate import jsontext
from gate.adapters._common import (
    anchored,
    benchmark_missing,
    filter_discovered,
    one_match,
    positive_int,
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
    TrialFailure,
    TrialRequest,
    VersionContext,
    check_finite,
    raise_for_process,
)
from gate.errors import ConfigError, RunError
from gate.model import TrialStatus

# "sample" mode reports a histogram (rawDataHistogram), not one score per iteration: not supported.
MODES = ("avgt", "thrpt", "ss")
_NO_MATCH = "No matching benchmarks"
TIME_UNITS = ("ns", "us", "ms", "s")


def expected_unit(mode: str, time_unit: str) -> str:
    """JMH's scoreUnit for the mode and -tu (e.g. ``ns/op``, ``ops/s``)."""
    return f"ops/{time_unit}" if mode == "thrpt" else f"{time_unit}/op"


class JmhAdapter:
    name = "jmh"

    def _options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        mode = string_option(options, "mode", self.name, "avgt")
        if mode not in MODES:
            raise ConfigError(f"[jmh] mode = {mode!r} is not one of {MODES}", '[jmh] mode = "avgt"')
        time_unit = string_option(options, "time_unit", self.name, "s" if mode == "thrpt" else "ns")
        if time_unit not in TIME_UNITS:
            raise ConfigError(
                f"[jmh] time_unit = {time_unit!r} is not one of {TIME_UNITS}", '[jmh] time_unit = "ns"'
            )
        warmup = options.get("warmup_iterations", 0)
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
            raise ConfigError(
                f"[jmh] warmup_iterations must be >= 0, got {warmup!r}", "[jmh] warmup_iterations = 0"
            )
        return {
            "jar": string_option(options, "jar", self.name, "target/benchmarks.jar"),
            "java": string_option(options, "java", self.name, "java"),
            "java_args": string_list(options, "java_args", self.name),
            "mode": mode,
            "time_unit": time_unit,
            "warmup": warmup,
            "iteration_time": string_option(options, "iteration_time", self.name, ""),
            "warmup_time": string_option(options, "warmup_time", self.name, ""),
            "args": string_list(options, "args", self.name),
        }

    def _java(self, version: VersionContext, s: Mapping[str, Any]) -> list[str]:
        return [*version.prefix, s["java"], *s["java_args"], "-jar", s["jar"]]

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        s = self._options(options)
        unit = expected_unit(s["mode"], s["time_unit"])
        higher = s["mode"] == "thrpt"
        result = run([*self._java(version, s), "-l"], cwd=version.workdir, timeout=300)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"listing JMH benchmarks of {s['jar']!r} failed in {version.name} ({tail[0][:200]})",
                "check [jmh] jar (relative to the worktree; build it in [suite] build) and [jmh] java",
            )
        names = parse_list(result.stdout)
        names = filter_discovered(names, options, self.name)
        found = [BenchmarkSpec(name=n, unit=unit, higher_is_better=higher) for n in names]
        specs = with_configured(found, options, self.name, unit=unit, higher=higher)
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({s['jar']})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._options(request.options)
        spec = request.benchmark
        n = positive_int({"i": request.measurements}, "i", self.name, None)
        out = scratch_file(request.version, spec.name, ".json")
        argv = [*self._java(request.version, s), anchored(spec.name)]
        # -f 1: one forked JVM per trial (JMH's isolation); -wi: no warmup unless configured.
        argv += ["-f", "1", "-wi", str(s["warmup"]), "-i", str(n), "-bm", s["mode"], "-tu", s["time_unit"]]
        if s["iteration_time"]:
            argv += ["-r", s["iteration_time"]]
        if s["warmup_time"]:
            argv += ["-w", s["warmup_time"]]
        params = spec.options.get("params", {})
        if not isinstance(params, Mapping):
            raise TrialFailure(
                TrialStatus.ERROR, f"[[benchmark]] {spec.name!r}: params must be a table of strings"
            )
        for key, value in sorted(params.items()):
            argv += ["-p", f"{key}={value}"]
        # -foe true: an exception in the benchmark fails the run (JMH's default carries on and
        # writes no result, which would read as "no benchmark matched").
        argv += ["-foe", "true", "-rf", "json", "-rff", str(out), *s["args"]]
        what = f"JMH benchmark {spec.name!r}"
        result = run(argv, cwd=request.version.workdir, timeout=request.timeout)
        if result.returncode != 0 and not result.timed_out and _NO_MATCH in result.stderr:
            # JMH's Main prints this to stderr and exits 1 when the include regex (the anchored
            # name) matches no benchmark of the jar (org.openjdk.jmh.Main, NoBenchmarksException).
            raise benchmark_missing(what, f"JMH: {_NO_MATCH}")
        raise_for_process(result, what)
        values = parse_json(read_text(out, what), spec.name, expected_unit(s["mode"], s["time_unit"]), what)
        if len(values) != request.measurements:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} iterations, wanted {request.measurements}; "
                "remove -i/-f/-bm from [jmh] args (the adapter sets them)",
            )
        return values


def parse_list(stdout: str) -> list[str]:
    """``java -jar JAR -l`` prints ``Benchmarks:`` then one fully qualified name per line."""
    lines = [ln.strip() for ln in stdout.splitlines()]
    if "Benchmarks:" in lines:
        lines = lines[lines.index("Benchmarks:") + 1 :]
    return [ln for ln in lines if ln and " " not in ln and not ln.endswith(":")]


def _score(value: Any) -> float:
    # JMH writes non-finite scores as the strings "NaN", "+INF" and "-INF" (JSON has no literal
    # for them; JSONResultFormat.emit(double)); float() reads all three.
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return math.nan
    return float(value)


def parse_json(text: str, requested: str, unit: str, what: str) -> list[float]:
    try:
        # strict=False: JSONResultFormat.tidy() breaks lines after every comma, also inside strings,
        # so a JVM argument or @Param value with a comma holds a raw newline (invalid strict JSON).
        results = jsontext.loads(text, strict=False)
        keys = []
        for r in results:
            params = r.get("params") or {}
            suffix = ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else ""
            keys.append(str(r["benchmark"]) + suffix)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrialFailure(TrialStatus.INVALID, f"{what}: output is not JMH JSON ({exc!s:.80})") from None
    if len(set(keys)) > 1 and all(k.split(":")[0] == requested for k in keys):
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: ran for {len(keys)} @Param combinations ({', '.join(keys[:3])}); "
            'pick one with params = {name = "value"} in its [[benchmark]] entry',
        )
    one_match([k.split(":")[0] for k in keys], requested, what)
    metric = results[0].get("primaryMetric") or {}
    score_unit = metric.get("scoreUnit")
    if score_unit != unit:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: score unit is {score_unit!r}, expected {unit!r}; set [jmh] mode/time_unit to match",
        )
    raw = metric.get("rawData")
    if not isinstance(raw, list) or not all(isinstance(fork, list) for fork in raw):
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: primaryMetric.rawData is missing; use [jmh] mode avgt, thrpt or ss"
        )
    if not any(raw):
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: primaryMetric.rawData is empty; remove -Djmh.json.rawData=false from [jmh] java_args",
        )
    try:
        values = [_score(v) for fork in raw for v in fork]
    except (TypeError, ValueError):
        raise TrialFailure(TrialStatus.INVALID, f"{what}: rawData holds a non-number") from None
    return check_finite(values, what)
