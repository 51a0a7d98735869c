#!/usr/bin/env python3
"""Fixed cost of one trial per adapter: the wall time of ``adapter.run_trial`` for a benchmark
that does almost nothing, asked for one value with the framework's shortest measuring settings.

What is left is what every trial pays whatever the benchmark: starting the process (an
interpreter, a JVM and its fork, the Node.js runtime), the framework's own set-up, warm-up and
analysis, and writing and reading its output. The time the framework is told to spend measuring
is printed beside it (``measuring``), so ``fixed ≈ median - measuring``. The trials run through
the driver's real :class:`~gate.engine.process.SubprocessRunner` without the sandbox (bubblewrap adds its
set-up, measured by ``benchmarks/bench_driver.py``). Each project is built once, before timing,
in a temporary directory; Maven, npm and cargo use the tests' caches
(``tests/integration/toolchains.py``), so a second run is offline and quick.

    .venv/bin/python -m benchmarks.bench_trial_cost --reps 5
    .venv/bin/python -m benchmarks.bench_trial_cost --only jmh,criterion

A framework whose toolchain is missing is reported as such, not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gate.adapters.base import BenchmarkSpec, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.engine.process import SubprocessRunner
from tests.integration.toolchains import cache_root, cargo, maven_repo, npm_cache

Setup = Callable[
    [Path], tuple[str, dict[str, Any], str, float]
]  # -> (benchmark, settings, unit, measuring s)


def sh(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {(done.stderr or done.stdout)[-500:]}")
    return done.stdout


def command(work: Path) -> tuple[str, dict[str, Any], str, float]:
    return "true", {"benchmarks": [{"name": "true", "command": "true", "value": "wall"}]}, "s", 0.0


def hyperfine(work: Path) -> tuple[str, dict[str, Any], str, float]:
    shutil.which("hyperfine") or _missing("hyperfine")
    return "true", {"benchmarks": [{"name": "true", "command": "true"}]}, "s", 0.0


def pytest_benchmark(work: Path) -> tuple[str, dict[str, Any], str, float]:
    (work / "test_noop.py").write_text("def test_noop(benchmark):\n    benchmark(lambda: None)\n")
    return "test_noop.py::test_noop", {"min_time": "0.000001"}, "s", 0.0


def go(work: Path) -> tuple[str, dict[str, Any], str, float]:
    shutil.which("go") or _missing("go")
    (work / "go.mod").write_text("module example.com/noop\n\ngo 1.19\n")
    (work / "noop_test.go").write_text(
        'package noop\n\nimport "testing"\n\nfunc BenchmarkNoop(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t}\n}\n'
    )
    return "BenchmarkNoop", {"benchtime": "1x"}, "ns/op", 0.0


def gbench(work: Path) -> tuple[str, dict[str, Any], str, float]:
    shutil.which("g++") or _missing("g++")
    (work / "b.cc").write_text(
        "#include <benchmark/benchmark.h>\nstatic void BM_Noop(benchmark::State& s) { for (auto _ : s) {} }\n"
        "BENCHMARK(BM_Noop);\nBENCHMARK_MAIN();\n"
    )
    sh(["g++", "-O1", "b.cc", "-o", "bench", "-lbenchmark", "-lpthread"], work)
    return "BM_Noop", {"binary": "./bench", "min_time": "0.001"}, "ns", 0.001


def jmh(work: Path) -> tuple[str, dict[str, Any], str, float]:
    shutil.which("mvn") or _missing("mvn")
    from tests.integration.test_adapter_jmh_real import JAVA, POM, work_java

    (work / JAVA).parent.mkdir(parents=True)
    (work / "pom.xml").write_text(POM)
    (work / JAVA).write_text(work_java(1))
    sh(["mvn", "-B", "-q", f"-Dmaven.repo.local={maven_repo()}", "package"], work)
    settings = {"mode": "avgt", "time_unit": "us", "iteration_time": "10ms"}
    return "bench.Work.steady", settings, "us/op", 0.010


def criterion(work: Path) -> tuple[str, dict[str, Any], str, float]:
    from tests.integration.test_adapter_criterion_real import CARGO_TOML, LIB, bench_rs

    (work / "src").mkdir()
    (work / "benches").mkdir()
    (work / "Cargo.toml").write_text(CARGO_TOML)
    (work / "src" / "lib.rs").write_text(LIB)
    (work / "benches" / "sums.rs").write_text(bench_rs(1))
    settings = {"cargo": cargo(), "warm_up_time": 0.001, "measurement_time": 0.001}
    return "steady", settings, "ns", 0.002


def tinybench(work: Path) -> tuple[str, dict[str, Any], str, float]:
    shutil.which("npm") or _missing("npm")
    from tests.integration.test_adapter_tinybench_real import PACKAGE

    (work / "package.json").write_text(PACKAGE)
    (work / "bench.mjs").write_text(
        'import { Bench } from "tinybench";\nconst bench = new Bench();\nbench.add("noop", () => {});\n'
        "export default bench;\n"
    )
    sh(["npm", "install", "--cache", str(npm_cache()), "--prefer-offline", "--no-audit", "--no-fund"], work)
    return "noop", {"warmup_iterations": 0, "warmup_time": 0}, "ms", 0.0


class Missing(Exception):
    pass


def _missing(tool: str) -> str:
    raise Missing(f"{tool} is not installed")


FRAMEWORKS: dict[str, tuple[str, Setup]] = {
    "command": ("command", command),
    "hyperfine": ("hyperfine", hyperfine),
    "pytest-benchmark": ("pytest-benchmark", pytest_benchmark),
    "go": ("go", go),
    "gbench": ("gbench", gbench),
    "jmh": ("jmh", jmh),
    "criterion": ("criterion", criterion),
    "tinybench": ("tinybench", tinybench),
}


def measure(name: str, reps: int, root: Path) -> dict[str, Any]:
    adapter_name, setup = FRAMEWORKS[name]
    work = root / name
    work.mkdir()
    env = {**os.environ, "CARGO_TARGET_DIR": str(cache_root() / "cargo-target")}
    try:
        benchmark, settings, unit, measuring = setup(work)
    except Missing as exc:
        return {"adapter": name, "error": str(exc)}
    runner = SubprocessRunner(base_env=env)
    version = VersionContext(
        name="HEAD", workdir=work, python=sys.executable, scratch=root / f"{name}-scratch"
    )
    adapter = get_adapter(adapter_name)
    found = adapter.discover(version, runner, settings)  # builds where the adapter builds (go, criterion)
    spec = next((s for s in found if s.name == benchmark), BenchmarkSpec(name=benchmark, unit=unit))
    request = TrialRequest(benchmark=spec, version=version, measurements=1, timeout=600, options=settings)
    adapter.run_trial(request, runner)  # not timed: first-run effects (page cache, JIT caches)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        adapter.run_trial(request, runner)
        times.append(time.perf_counter() - start)
    return {
        "adapter": name,
        "median_s": round(statistics.median(times), 3),
        "min_s": round(min(times), 3),
        "measuring_s": measuring,
        "reps": reps,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated adapters (default: all)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(FRAMEWORKS)
    unknown = [n for n in names if n not in FRAMEWORKS]
    if unknown:
        parser.error(f"unknown adapter(s) {unknown}; choose from {', '.join(FRAMEWORKS)}")
    print("| adapter | one trial, median (s) | min (s) | of which measuring (s) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="trial-cost-") as tmp:
        for name in names:
            row = measure(name, args.reps, Path(tmp))
            if "error" in row:
                print(f"| {name} | {row['error']} | | |")
            else:
                print(f"| {name} | {row['median_s']} | {row['min_s']} | {row['measuring_s']} |")
            sys.stdout.flush()
            print(json.dumps(row), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
