"""Shared pieces of the adapter integration tests: the driver's real ProcessRunner and contexts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from gate.adapters.base import BenchmarkSpec, TrialRequest, VersionContext
from gate.engine.process import SubprocessRunner


def real_runner(extra_env: Mapping[str, str] | None = None) -> SubprocessRunner:
    """The driver's runner (process group, timeout, scrubbed env), as in a real run."""
    return SubprocessRunner(base_env={**os.environ, **(extra_env or {})})


def context(
    workdir: Path, scratch: Path, python: str = "python3", prefix: tuple[str, ...] = ()
) -> VersionContext:
    scratch.mkdir(parents=True, exist_ok=True)
    return VersionContext(
        name="HEAD",
        workdir=workdir,
        prefix=prefix,
        python=python,
        scratch=scratch,
        gate_cache=scratch.parent / f"{scratch.name}-gate-cache",
    )


def trial(
    spec: BenchmarkSpec,
    version: VersionContext,
    measurements: int,
    settings: Mapping[str, object] | None = None,
    timeout: float = 120.0,
) -> TrialRequest:
    return TrialRequest(
        benchmark=spec, version=version, measurements=measurements, timeout=timeout, options=settings or {}
    )
