"""``tinybench``: JavaScript benchmarks written with tinybench (npm), run by Node.js.

Why tinybench: it is the JavaScript benchmark library real projects use most (118 million
downloads a month on npm in 2026, against 2.3 million for benchmark.js, unmaintained since 2016,
and 0.56 million for mitata; vitest's ``bench`` runs on it), and it keeps every sample
(``task.result.latency.samples``, with ``retainSamples``), where mitata's JSON holds summaries.

The suite is an ES module (``[tinybench] file``) whose default export, or export ``bench``, is
a ``Bench`` with its tasks added and not run (a ``bench.run()`` guarded by "am I the main
module" keeps it runnable by hand). One trial is one Node.js process running the gate's
``_tinybench/runner.mjs``: it loads tinybench from the suite's own ``node_modules``, makes the
tasks keep their samples, removes every task but the one asked for and runs it for exactly
``measurements`` iterations (``iterations = N``, ``time = 0``). The values are tinybench's
latency samples, one per iteration, in milliseconds.

tinybench returns the samples sorted (``SortedSamples``), so the order of the values within a
trial is their rank, not the order they were measured in.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gate.adapters._common import (
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
from gate.model import TrialStatus

RUNNER = Path(__file__).resolve().parent / "_tinybench" / "runner.mjs"
UNIT = "ms"


def _warmup(options: Mapping[str, Any]) -> list[str]:
    """``warmup_iterations``/``warmup_time`` (ms): empty = the suite's own Bench options."""
    iterations = options.get("warmup_iterations")
    time = options.get("warmup_time")
    if iterations is None and time is None:
        return []
    iterations = 0 if iterations is None else iterations
    time = 0 if time is None else time
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ConfigError(
            f"[tinybench] warmup_iterations must be an integer >= 0, got {iterations!r}",
            "write [tinybench] warmup_iterations = 16",
        )
    if isinstance(time, bool) or not isinstance(time, int | float) or not math.isfinite(time) or time < 0:
        raise ConfigError(
            f"[tinybench] warmup_time must be a number of milliseconds >= 0, got {time!r}",
            "write [tinybench] warmup_time = 250",
        )
    return [str(iterations), repr(float(time))]


class TinybenchAdapter:
    name = "tinybench"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = ("file", "node", "node_args", "warmup_iterations", "warmup_time", "include")
    benchmark_keys: tuple[str, ...] = ()

    def source_hint(self, name: str) -> SourceHint:
        """A JavaScript file naming the task in quotes (``bench.add("name", ...)``)."""
        return SourceHint(suffix="js", needles=(f'"{name}"', f"'{name}'", f"`{name}`"))

    def _options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "file": string_option(options, "file", self.name, "bench.mjs"),
            "node": string_option(options, "node", self.name, "node"),
            "node_args": string_list(options, "node_args", self.name),
            "warmup": _warmup(options),
        }

    def _call(
        self,
        version: VersionContext,
        run: ProcessRunner,
        s: Mapping[str, Any],
        args: list[str],
        timeout: float,
    ) -> tuple[dict[str, Any], str]:
        out = scratch_file(version, "tinybench", ".json")
        argv = [*version.prefix, s["node"], *s["node_args"], str(RUNNER), s["file"], str(out), *args]
        result = run(argv, cwd=version.workdir, timeout=timeout)
        what = f"tinybench suite {s['file']!r}"
        raise_for_process(result, what)
        text = read_text(out, what)
        out.unlink(missing_ok=True)
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
                raise ValueError("no task list")
        except ValueError as exc:
            raise TrialFailure(
                TrialStatus.INVALID, f"{what}: the runner wrote no JSON ({exc!s:.80})"
            ) from None
        return data, what

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        s = self._options(options)
        try:
            data, _ = self._call(version, run, s, ["list"], timeout=300)
        except TrialFailure as failure:
            raise RunError(
                f"listing the tinybench tasks of {s['file']!r} failed in {version.name}: {failure.reason}",
                "check [tinybench] file (an ES module relative to the worktree) and that [suite] build "
                "installs its dependencies (npm ci)",
            ) from None
        if data.get("setup"):
            raise RunError(
                f"tinybench suite {s['file']!r} in {version.name}: {str(data.get('error'))[:200]}",
                "export the Bench (export default bench) without running it, and install tinybench "
                'in the worktree ([suite] build = "npm ci")',
            )
        names = [str(n) for n in data["tasks"]]
        names = filter_discovered(names, options, self.name)
        found = [BenchmarkSpec(name=n, unit=UNIT) for n in names]
        specs = with_configured(found, options, self.name, unit=UNIT)
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({s['file']})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        s = self._options(request.options)
        spec = request.benchmark
        args = ["run", spec.name, str(request.measurements), *s["warmup"]]
        data, what = self._call(request.version, run, s, args, timeout=request.timeout)
        what = f"tinybench task {spec.name!r}"
        if data.get("setup"):
            raise TrialFailure(TrialStatus.ERROR, f"{what}: {str(data.get('error'))[:200]}")
        if spec.name not in data["tasks"]:
            raise benchmark_missing(what, "the suite's Bench has no task of that name")
        if data.get("error") is not None:
            raise TrialFailure(
                TrialStatus.ERROR,
                f"{what} threw: {telling_line(str(data['error']))}; run the suite by hand in its worktree",
            )
        samples = data.get("samples")
        if not isinstance(samples, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in samples
        ):
            raise TrialFailure(TrialStatus.INVALID, f"{what}: the runner wrote no list of samples")
        values = check_finite([float(v) for v in samples], what)
        if len(values) != request.measurements:
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: got {len(values)} samples, wanted {request.measurements}; "
                "remove options that change iterations from the suite's Bench (the adapter sets them)",
            )
        return values
