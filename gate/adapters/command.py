"""``command``: user commands from ``[[benchmark]]``, run by ``/bin/sh -c`` in the worktree.

One trial runs the command ``measurements`` times (one process each, like hyperfine's runs) and
takes from each run either the last number it printed (``value = "stdout"``, the default) or the
process's wall time measured by the driver's runner (``value = "wall"``, in seconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.adapters._common import (
    AmbiguousNumber,
    Deadline,
    UnreadableValue,
    benchmark_missing,
    configured_specs,
    exit_status,
    last_number,
    require_nonempty,
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

VALUE_MODES = ("stdout", "wall")


def shell_argv(version: VersionContext, command: str) -> list[str] | str:
    """A plain string is run by the runner's ``/bin/sh -c``; a prefix (``nice -n 0``, ``taskset``)
    has to wrap the shell itself, so then the argv is spelled out."""
    if version.prefix:
        return [*version.prefix, "/bin/sh", "-c", command]
    return command


def value_mode(spec: BenchmarkSpec) -> str:
    mode = spec.options.get("value", "stdout")
    if mode not in VALUE_MODES:
        raise ConfigError(
            f"[[benchmark]] {spec.name!r}: value = {mode!r} is not one of {', '.join(VALUE_MODES)}",
            'write value = "stdout" (last number printed) or value = "wall" (elapsed seconds)',
        )
    return str(mode)


class CommandAdapter:
    name = "command"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = ()
    benchmark_keys: tuple[str, ...] = ("missing_exit_code",)

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        specs = configured_specs(options, self.name, need_command=True)
        require_nonempty([s.name for s in specs], self.name, "the [[benchmark]] list")
        for spec in specs:
            value_mode(spec)  # reject bad value and missing_exit_code keys before the run starts
            exit_status(spec.options.get("missing_exit_code"), spec.name)
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        spec = request.benchmark
        if not spec.command:
            raise TrialFailure(
                TrialStatus.ERROR, f"benchmark {spec.name!r} has no command; add command = ..."
            )
        mode = value_mode(spec)
        argv = shell_argv(request.version, spec.command)
        deadline = Deadline(request.timeout)
        what = f"command of {spec.name!r}"
        missing_code = exit_status(spec.options.get("missing_exit_code"), spec.name)
        values: list[float] = []
        for _ in range(request.measurements):
            result = run(argv, cwd=request.version.workdir, timeout=deadline.remaining(what))
            # Only the command knows whether its benchmark exists in this version; it says so by
            # the configured exit status, on its first run (later, the status is a failure).
            first = not values and not result.timed_out
            if first and missing_code is not None and result.returncode == missing_code:
                raise benchmark_missing(what, f"it exited with its missing_exit_code {missing_code}")
            raise_for_process(result, what)
            if mode == "wall":
                values.append(result.elapsed_s)
                continue
            try:
                number = last_number(result.stdout)
            except UnreadableValue as exc:
                raise TrialFailure(
                    TrialStatus.INVALID,
                    f"{what}: {exc}; print the measured value last, alone, as a plain number "
                    '(seconds as 1.234), or set value = "wall" to time the whole command',
                ) from None
            except AmbiguousNumber as exc:
                *others, final = exc.readings
                readings = f"{', '.join(others)} or {final}" if others else final
                raise TrialFailure(
                    TrialStatus.INVALID,
                    f"{what}: the last number it printed is part of {exc.token!r}, which can be read "
                    f"as {readings}; values with digit grouping or a decimal comma are not guessed: "
                    "print the value alone, with a decimal point and no digit grouping (e.g. 1234.5)",
                ) from None
            if number is None:
                raise TrialFailure(
                    TrialStatus.INVALID,
                    f"{what} printed no number on stdout; print the measured value last, "
                    'or set value = "wall" to time the whole command',
                )
            values.append(number)
        return check_finite(values, what)
