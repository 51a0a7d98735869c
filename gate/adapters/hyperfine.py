"""``hyperfine``: each configured ``[[benchmark]]`` command is one hyperfine invocation per trial.

hyperfine cannot list benchmarks, so the benchmarks are the ``[[benchmark]]`` entries (as for the
command adapter). One trial = ``hyperfine --runs N --export-json FILE --style none -- COMMAND``;
the values are ``results[0].times`` (seconds per run, see hyperfine's ``--export-json`` format).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gate import jsontext
from gate.adapters._common import (
    benchmark_missing,
    configured_specs,
    exit_status,
    one_match,
    positive_int,
    read_text,
    require_nonempty,
    scratch_file,
    string_list,
    string_option,
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
from gate.errors import ConfigError
from gate.model import TrialStatus


class HyperfineAdapter:
    name = "hyperfine"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = ("binary", "shell", "warmup", "args")
    benchmark_keys: tuple[str, ...] = ("missing_exit_code",)

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        specs = configured_specs(options, self.name, need_command=True)
        require_nonempty([s.name for s in specs], self.name, "the [[benchmark]] list")
        self.build_options(options)  # reject bad keys before the run starts
        for spec in specs:
            exit_status(spec.options.get("missing_exit_code"), spec.name)
        return specs

    def build_options(self, options: Mapping[str, Any]) -> list[str]:
        flags: list[str] = []
        shell = string_option(options, "shell", self.name, "")
        if shell:
            # --shell=none (alias -N) runs the command without an intermediate shell, which removes
            # hyperfine's shell-spawn correction for very short commands (hyperfine README, "Shell").
            flags.append(f"--shell={shell}")
        warmup = options.get("warmup", 0)
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
            raise ConfigError(
                f"[hyperfine] warmup must be a non-negative integer, got {warmup!r}",
                "write [hyperfine] warmup = 0",
            )
        if warmup:
            flags.append(f"--warmup={warmup}")
        flags.extend(string_list(options, "args", self.name))
        return flags

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        spec = request.benchmark
        if not spec.command:
            raise TrialFailure(
                TrialStatus.ERROR, f"benchmark {spec.name!r} has no command; add command = ..."
            )
        options = request.options
        binary = string_option(options, "binary", self.name, "hyperfine")
        runs = positive_int({"runs": request.measurements}, "runs", self.name, None)
        out = scratch_file(request.version, spec.name, ".json")
        argv = [
            *request.version.prefix,
            binary,
            f"--runs={runs}",
            f"--export-json={out}",
            "--style=none",
            *self.build_options(options),
            "--",
            spec.command,
        ]
        result = run(argv, cwd=request.version.workdir, timeout=request.timeout)
        what = f"hyperfine for {spec.name!r}"
        missing_code = exit_status(spec.options.get("missing_exit_code"), spec.name)
        # hyperfine stops at the first failing run and names its exit status: "Command terminated
        # with non-zero exit code: 77." (1.15), "... exit code 77" (later versions).
        said = re.compile(rf"non-zero exit code:? {missing_code}\b")
        failed = result.returncode != 0 and not result.timed_out
        if missing_code is not None and failed and said.search(result.stderr + result.stdout):
            raise benchmark_missing(what, f"the command exited with its missing_exit_code {missing_code}")
        raise_for_process(result, what)
        return parse_export(read_text(out, what), spec.command, request.measurements, what)


def parse_export(text: str, command: str, measurements: int, what: str) -> list[float]:
    try:
        data = jsontext.loads(text)
        results = data["results"]
        commands = [str(r.get("command")) for r in results]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: --export-json output is not hyperfine's format ({exc!s:.80})"
        ) from None
    one_match(commands, command, what)
    times = results[0].get("times")
    if not isinstance(times, list) or not all(isinstance(t, int | float) for t in times):
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: results[0].times is missing; upgrade hyperfine to >= 1.9"
        )
    values = check_finite([float(t) for t in times], what)
    if len(values) != measurements:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: got {len(values)} runs, wanted {measurements}; remove --runs/--min-runs from [hyperfine] args",
        )
    return values
