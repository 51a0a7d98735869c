"""A ProcessRunner that records every call and answers from a script (hyperfine's MockExecutor)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gate.adapters.base import ProcessResult


@dataclass
class Call:
    argv: Sequence[str] | str
    cwd: Path
    timeout: float
    env: Mapping[str, str] | None


Responder = Callable[[Call], ProcessResult]


@dataclass
class FakeRunner:
    """Answers each call with the next item of ``script``: a ProcessResult, or a function of the
    call (to write the JSON file the real tool would have written) returning one."""

    script: list[ProcessResult | Responder] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)

    def __call__(
        self,
        argv: Sequence[str] | str,
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ProcessResult:
        call = Call(argv=argv if isinstance(argv, str) else list(argv), cwd=cwd, timeout=timeout, env=env)
        self.calls.append(call)
        if not self.script:
            raise AssertionError(f"unexpected extra process: {argv!r}")
        step = self.script.pop(0)
        result = step if isinstance(step, ProcessResult) else step(call)
        if progress is not None:  # as the real runner shows it while the process runs
            progress(result.stderr)
            progress(result.stdout)
        return result


def ok(stdout: str = "", stderr: str = "", elapsed_s: float = 0.01) -> ProcessResult:
    return ProcessResult(returncode=0, stdout=stdout, stderr=stderr, elapsed_s=elapsed_s)


def failed(returncode: int = 1, stderr: str = "boom", stdout: str = "") -> ProcessResult:
    return ProcessResult(returncode=returncode, stdout=stdout, stderr=stderr, elapsed_s=0.01)


def timed_out() -> ProcessResult:
    return ProcessResult(returncode=-9, stdout="", stderr="", elapsed_s=1.0, timed_out=True)


def arg_value(argv: Sequence[str], flag: str) -> str:
    """The value of ``--flag=VALUE`` or ``--flag VALUE`` in argv."""
    for i, arg in enumerate(argv):
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
        if arg == flag:
            return argv[i + 1]
    raise AssertionError(f"{flag} not in {argv!r}")
