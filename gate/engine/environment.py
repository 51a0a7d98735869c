"""Environment fingerprint and bare-metal checks, modelled on pyperf's ``system show``.

Everything is read from /sys and /proc; a missing file means "unknown", never a crash (containers
and non-Linux hosts hide most of them). Warnings are data, ``{"code", "message", "action"}``,
and each action is the exact command that fixes the problem (pyperf ``system tune`` does the
same changes).
"""

from __future__ import annotations

import glob
import os
import platform
import subprocess
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gate.host import programs
from gate.warning_codes import WarningCode

Warning_ = dict[str, str]

SYS_CPU = "/sys/devices/system/cpu"


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def cpu_model(cpuinfo: str | None) -> str:
    for line in (cpuinfo or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware", "cpu model") and value.strip():
            return value.strip()
    return platform.processor() or "unknown"


def governors(root: str = SYS_CPU) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(glob.glob(f"{root}/cpu[0-9]*/cpufreq/scaling_governor")):
        value = _read(path)
        if value:
            out[Path(path).parent.parent.name] = value
    return out


def turbo(root: str = SYS_CPU) -> bool | None:
    """True when turbo/boost is enabled, None when unknown."""
    no_turbo = _read(f"{root}/intel_pstate/no_turbo")
    if no_turbo in ("0", "1"):
        return no_turbo == "0"
    boost = _read(f"{root}/cpufreq/boost")
    if boost in ("0", "1"):
        return boost == "1"
    return None


def smt(root: str = SYS_CPU) -> bool | None:
    active = _read(f"{root}/smt/active")
    return None if active not in ("0", "1") else active == "1"


def aslr(path: str = "/proc/sys/kernel/randomize_va_space") -> int | None:
    value = _read(path)
    return int(value) if value in ("0", "1", "2") else None


def _tool_version(argv: list[str], timeout: float = 5.0) -> str | None:
    # From "/", never from the checkout: `go version` in a module directory obeys the `toolchain`
    # line of the PR's go.mod (Go >= 1.21, "Go Toolchains"), i.e. fetches and runs another Go
    # outside the sandbox; `local` keeps it to the Go installed here. The program is the one
    # pinned outside the places benchmarks can write (gate/host/programs.py); absent: unrecorded.
    program = programs.current().find(argv[0])
    if program is None:
        return None
    try:
        proc = subprocess.run(
            [program, *argv[1:]], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            check=False, cwd="/", env=programs.current().env(GOTOOLCHAIN="local"),
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (proc.stdout or proc.stderr).strip().splitlines()
    return text[0][:200] if text else None


TOOLS: dict[str, list[str]] = {
    "git": ["git", "--version"],
    "go": ["go", "version"],
    "java": ["java", "-version"],
}


def tool_versions(run: Callable[[list[str]], str | None] = _tool_version) -> dict[str, str]:
    """Versions of the toolchains present; probed in parallel (a JVM alone starts in ~0.5 s)."""
    versions = {"python": platform.python_version()}
    with ThreadPoolExecutor(max_workers=len(TOOLS)) as pool:
        found = dict(zip(TOOLS, pool.map(run, TOOLS.values()), strict=True))
    versions.update({name: v for name, v in found.items() if v})
    return versions


def fingerprint(
    *,
    root: str = SYS_CPU,
    cpuinfo_path: str = "/proc/cpuinfo",
    aslr_path: str = "/proc/sys/kernel/randomize_va_space",
) -> dict[str, Any]:
    govs = governors(root)
    distinct = sorted(set(govs.values()))
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cpu_model": cpu_model(_read(cpuinfo_path)),
        "cores": os.cpu_count(),
        "kernel": platform.release() or "unknown",
        "platform": platform.platform(),
        "hostname": platform.node(),
        "governor": distinct[0] if len(distinct) == 1 else (",".join(distinct) if distinct else "unknown"),
        "turbo": turbo(root),
        "smt": smt(root),
        "aslr": aslr(aslr_path),
        "loadavg": load,
        "tools": tool_versions(),
    }


def check(env: Mapping[str, Any]) -> list[Warning_]:
    """Warnings, each with the exact fix, for a machine not prepared for benchmarking."""
    warnings: list[Warning_] = []
    governor = env.get("governor", "unknown")
    if governor not in ("unknown", "performance"):
        warnings.append(
            {
                "code": WarningCode.GOVERNOR.value,
                "message": f"CPU frequency governor is {governor!r}: the clock speed changes with load, "
                "which adds noise and drifts between trials",
                "action": "sudo cpupower frequency-set -g performance  (or: sudo python -m pyperf system tune)",
            }
        )
    if governor == "unknown" and env.get("turbo") is None:
        # No cpufreq in /sys: typical of a virtual machine or a container, where the host sets the
        # clock. Nothing can be verified, which is worth saying rather than staying silent.
        warnings.append(
            {
                "code": WarningCode.CPUFREQ_UNKNOWN.value,
                "message": "the CPU frequency governor and turbo state cannot be read (no cpufreq in /sys: "
                "a VM or container?), so frequency scaling cannot be ruled out as a source of noise",
                "action": "benchmark on a bare-metal runner with the governor set to performance and turbo off "
                "(docs/github-actions.md: Prepare the benchmark runner)",
            }
        )
    if env.get("turbo") is True:
        warnings.append(
            {
                "code": WarningCode.TURBO.value,
                "message": "Turbo Boost is enabled: the frequency depends on temperature and on the other cores",
                "action": "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo  "
                "(AMD/acpi-cpufreq: echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost)",
            }
        )
    if env.get("smt") is True:
        warnings.append(
            {
                "code": WarningCode.SMT.value,
                "message": "Simultaneous multithreading (Hyper-Threading) is on: sibling threads share a core "
                "and disturb each other",
                "action": "echo off | sudo tee /sys/devices/system/cpu/smt/control  (or isolate one thread per core)",
            }
        )
    if env.get("aslr") in (0, 1):
        # pyperf's `system tune` *enables* full ASLR: a random layout per process lets repeated
        # trials average out layout bias (Mytkowicz et al., "Producing wrong data ..."); a fixed
        # layout makes one lucky or unlucky layout part of every measurement.
        warnings.append(
            {
                "code": WarningCode.ASLR.value,
                "message": f"address space layout randomization is {'off' if env['aslr'] == 0 else 'partial'}: "
                "every trial gets the same memory layout, so a layout-dependent bias cannot average out",
                "action": "echo 2 | sudo tee /proc/sys/kernel/randomize_va_space",
            }
        )
    load = env.get("loadavg")
    cores = env.get("cores") or 1
    if load and load[0] > 0.5 * cores:
        warnings.append(
            {
                "code": WarningCode.LOAD.value,
                "message": f"system load is {load[0]:.2f} on {cores} cores: other processes compete with the "
                "benchmarks",
                "action": "run on an idle (self-hosted, bare-metal) runner; stop other jobs on this machine",
            }
        )
    return warnings
