"""``jmh``: a JMH uber-jar (``mvn package`` output, e.g. ``target/benchmarks.jar``) or a classpath
(``[jmh] classpath`` / ``classpath_file``, e.g. what ``mvn dependency:build-classpath`` writes, for
projects such as Apache Commons whose benchmark profile builds no uber-jar).

One trial = ``java -jar JAR '^Class\\.method$' -f 1 -wi W -i N -bm MODE -tu UNIT -foe true -rf json
-rff FILE`` (with a classpath: ``java -cp CP org.openjdk.jmh.Main ...``, JMH's own entry point);
the values are ``primaryMetric.rawData`` (one score per measurement iteration, per fork) of the
single result in the JSON (JMH ``-h``; ``org.openjdk.jmh.results.format.JSONResultFormat``).
A benchmark with ``@Param`` is one benchmark per parameter combination, named
``Class.method:a=1,b=x`` (keys sorted, as the JSON's ``params``): discovery lists them with
``-lp``, and a trial passes each as ``-p key=value``.
The mode and time unit are passed explicitly so that the unit and its direction are known
before the run (``thrpt`` = ops per time unit, higher is better; ``avgt``/``ss`` = time per op).
"""

from __future__ import annotations

import itertools
import math
import re
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
    SourceHint,
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
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = (
        "jar",
        "classpath",
        "classpath_file",
        "java",
        "java_args",
        "mode",
        "time_unit",
        "warmup_iterations",
        "iteration_time",
        "warmup_time",
        "args",
        "include",
    )
    benchmark_keys: tuple[str, ...] = ("params",)

    def source_hint(self, name: str) -> SourceHint | None:
        """The class's ``.java`` file declaring the method (``pkg.Outer.method``; a nested class's
        benchmarks live in the outer class's file, which the name does not tell)."""
        method_path = split_params(name)[0].split(".")
        if len(method_path) < 2:
            return None
        return SourceHint(suffix=f"/{method_path[-2]}.java", needles=(f" {method_path[-1]}(",))

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
            "classpath": string_option(options, "classpath", self.name, ""),
            "classpath_file": string_option(options, "classpath_file", self.name, ""),
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
        if not (s["classpath"] or s["classpath_file"]):
            return [*version.prefix, s["java"], *s["java_args"], "-jar", s["jar"]]
        return [*version.prefix, s["java"], *s["java_args"], "-cp", _classpath(version, s), JMH_MAIN]

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        s = self._options(options)
        unit = expected_unit(s["mode"], s["time_unit"])
        higher = s["mode"] == "thrpt"
        where = (
            (s["classpath_file"] or s["classpath"]) if (s["classpath"] or s["classpath_file"]) else s["jar"]
        )
        result = run([*self._java(version, s), "-lp"], cwd=version.workdir, timeout=300)
        if result.returncode != 0 or result.timed_out:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
            raise RunError(
                f"listing JMH benchmarks of {where!r} failed in {version.name} ({tail[0][:200]})",
                "check [jmh] jar or classpath/classpath_file (relative to the worktree; build them in "
                "[suite] build) and [jmh] java",
            )
        names = parse_list(result.stdout)
        names = filter_discovered(names, options, self.name)
        found = [BenchmarkSpec(name=n, unit=unit, higher_is_better=higher) for n in names]
        specs = with_configured(found, options, self.name, unit=unit, higher=higher)
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({where})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._options(request.options)
        spec = request.benchmark
        n = positive_int({"i": request.measurements}, "i", self.name, None)
        out = scratch_file(request.version, spec.name, ".json")
        method, combination = split_params(spec.name)
        argv = [*self._java(request.version, s), anchored(method)]
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
        for key, value in sorted({**params, **combination}.items()):
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


JMH_MAIN = "org.openjdk.jmh.Main"
_PARAM = re.compile(r'^\s+param "([^"]+)" = \{(.*)\}\s*$')
_CLASSPATH_FILE_LIMIT = 1 << 20  # mvn dependency:build-classpath of a large project: ~100 kB


def _classpath(version: VersionContext, s: Mapping[str, Any]) -> str:
    """``[jmh] classpath`` followed by the entries of ``classpath_file`` (one line, ``:``-separated,
    as ``mvn dependency:build-classpath -Dmdep.outputFile=FILE`` writes it); java resolves
    relative entries against the worktree (the process's directory). The file is written by the
    version's build (PR code): read only as a regular file under 1 MiB."""
    parts = [s["classpath"]] if s["classpath"] else []
    if s["classpath_file"]:
        path = version.workdir / s["classpath_file"]
        fix = (
            "write it in [suite] build, e.g. `mvn -q test-compile dependency:build-classpath "
            f"-Dmdep.outputFile={s['classpath_file']}`, or fix [jmh] classpath_file (relative to the worktree)"
        )
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > _CLASSPATH_FILE_LIMIT:
                raise RunError(f"[jmh] classpath_file {path} is not a regular file under 1 MiB", fix)
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError as exc:
            raise RunError(f"[jmh] classpath_file {path} cannot be read ({exc.strerror})", fix) from None
        if text:
            parts.append(text)
    return ":".join(parts)


def split_params(name: str) -> tuple[str, dict[str, str]]:
    """``Class.method:a=1,b=x`` -> (``Class.method``, {a: 1, b: x}); a name without ``:`` has none."""
    method, sep, rest = name.partition(":")
    if not sep:
        return name, {}
    pairs = [pair.partition("=") for pair in rest.split(",")]
    return method, {key: value for key, _, value in pairs}


def parse_list(stdout: str) -> list[str]:
    """``-l`` prints ``Benchmarks:`` then one fully qualified name per line; ``-lp`` adds, below a
    benchmark with ``@Param``, one line per parameter (``  param "size" = {10, 100}``), and each
    combination of their values becomes a name of its own (``Class.method:size=10``, keys sorted)."""
    lines = stdout.splitlines()
    stripped = [ln.strip() for ln in lines]
    if "Benchmarks:" in stripped:
        lines = lines[stripped.index("Benchmarks:") + 1 :]
    names: list[str] = []
    params: dict[str, dict[str, list[str]]] = {}
    for line in lines:
        match = _PARAM.match(line)
        if match and names:
            params.setdefault(names[-1], {})[match[1]] = [v.strip() for v in match[2].split(",")]
            continue
        text = line.strip()
        if text and " " not in text and not text.endswith(":"):
            names.append(text)
    out: list[str] = []
    for name in names:
        keys = sorted(params.get(name, {}))
        if not keys:
            out.append(name)
            continue
        for values in itertools.product(*(params[name][k] for k in keys)):
            out.append(name + ":" + ",".join(f"{k}={v}" for k, v in zip(keys, values, strict=True)))
    return out


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
    if ":" in requested:  # one parameter combination (discovered with -lp): its own result
        one_match([k for k in keys if k == requested], requested, what)
        results = [r for r, k in zip(results, keys, strict=True) if k == requested]
    elif len(set(keys)) > 1 and all(k.split(":")[0] == requested for k in keys):
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: ran for {len(keys)} @Param combinations ({', '.join(keys[:3])}); "
            'pick one with params = {name = "value"} in its [[benchmark]] entry',
        )
    else:
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
