"""pytest plugin loaded by ordertrap-gate's pytest-benchmark adapter (``-p ordertrap_pytest_plugin``).

It runs inside the *benchmarked project's* interpreter (not the gate's), so it imports nothing
from the gate. RMIT starts one pytest process per trial, so every fixed cost pytest-benchmark
pays per process before or after measuring is paid on every trial. This plugin removes the
costs that do not affect the measured values:

* machine info: ``pytest_benchmark_generate_machine_info`` calls py-cpuinfo, which inspects
  the CPU (CPUID in a subprocess, /proc/cpuinfo, lscpu, ...) for ``--benchmark-json``: about
  0.2 s here and about 1 s with the original py-cpuinfo. The gate records its own environment
  fingerprint, so a cheap ``platform`` summary replaces it (the hook is ``firstresult``).
* commit info: ``pytest_benchmark_generate_commit_info`` runs ``git describe --dirty`` and two
  more git processes (and may refresh the worktree's index); the gate knows the SHAs itself.
* timer precision: pytest-benchmark 5.0-5.1's ``compute_timer_precision`` loops for a full
  second (``while timeout_timer() < timeout or points < 5``); 5.3 stops after 100 samples. The
  bounded version below is the 5.3 algorithm, so the calibration it feeds is unchanged.

``--ordertrap-list FILE`` (with ``--collect-only``) writes the node ids of the collected tests
that use the ``benchmark`` fixture, which is how the adapter discovers benchmarks.
"""

from __future__ import annotations

import json
import platform
import time
from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    parser.getgroup("ordertrap-gate").addoption(
        "--ordertrap-list",
        default=None,
        metavar="FILE",
        help="write the node ids of tests that use the benchmark fixture to FILE (JSON list)",
    )


def _bounded_timer_precision(timer: Any) -> float | None:
    precision = None
    points = 0
    timeout = time.time() + 1.0
    previous = timer()
    while time.time() < timeout and points < 100:
        for _ in range(10):
            t1 = timer()
            t2 = timer()
            dt = t2 - t1
            if dt > 0:
                break
        else:
            dt = t2 - previous
            if dt <= 0.0:
                continue
        precision = dt if precision is None else min(precision, dt)
        points += 1
        previous = timer()
    return precision


def pytest_configure(config: Any) -> None:
    try:
        from pytest_benchmark import fixture
    except ImportError:  # the adapter reports a missing pytest-benchmark with its own message
        return
    if hasattr(fixture, "compute_timer_precision"):
        fixture.compute_timer_precision = _bounded_timer_precision


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_benchmark_generate_machine_info(config: Any) -> dict[str, Any]:
    return {
        "node": platform.node(),
        "machine": platform.machine(),
        "system": platform.system(),
        "release": platform.release(),
        "python_implementation": platform.python_implementation(),
        "python_version": platform.python_version(),
        "cpu": {"note": "not collected: ordertrap-gate records the environment fingerprint itself"},
    }


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_benchmark_generate_commit_info(config: Any) -> dict[str, Any]:
    return {"id": "unknown", "time": None, "author_time": None, "dirty": False, "project": "", "branch": ""}


def pytest_collection_finish(session: Any) -> None:
    target = session.config.getoption("ordertrap_list")
    if not target:
        return
    names = [item.nodeid for item in session.items if "benchmark" in getattr(item, "fixturenames", ())]
    with open(target, "w", encoding="utf-8") as fh:
        json.dump(names, fh)
