"""Per-process fixed cost of one pytest-benchmark trial: plain invocation vs the gate's adapter.

RMIT starts one pytest process per trial, so whatever pytest-benchmark does per process besides
measuring is paid on every trial. This script builds a throw-away project with one trivial
benchmark (and a project config that autosaves, like many real projects), then runs trials
interleaved (ABAB..., so machine load hits both alike) and prints the median wall time per process
of each variant and the ratio:

* plain:   python -m pytest NODE --benchmark-json=F --benchmark-min-rounds=N --benchmark-max-time=0
  (the project's addopts apply: autosave into the tree), and the same with
  ``-o addopts= -p no:cacheprovider`` (what any clean-worktree adapter needs at least)
* adapter: the exact argv and environment the pytest-benchmark adapter uses
* adapter, plugin_autoload=false: the same, loading no third-party pytest plugins but pytest-benchmark

    .venv/bin/python -m benchmarks.bench_pytest_benchmark_overhead [--trials 10] [--python PY]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gate.adapters.base import BenchmarkSpec, ProcessResult, TrialRequest, VersionContext
from gate.adapters.pytest_benchmark import PytestBenchmarkAdapter

PROJECT_CONFIG = """[tool.pytest.ini_options]
addopts = "--benchmark-autosave --benchmark-json=bench.json"
"""
BENCH = """def test_add(benchmark):
    benchmark(lambda: 1 + 1)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="processes per variant")
    parser.add_argument("--rounds", type=int, default=5, help="benchmark rounds per process")
    parser.add_argument("--python", default=sys.executable, help="interpreter with pytest-benchmark")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work, scratch = Path(tmp, "proj"), Path(tmp, "scratch")
        work.mkdir()
        scratch.mkdir()
        (work / "pyproject.toml").write_text(PROJECT_CONFIG)
        (work / "test_bench.py").write_text(BENCH)
        node = "test_bench.py::test_add"
        walls: dict[str, list[float]] = {
            "plain": [],
            "plain, -o addopts= -p no:cacheprovider": [],
            "adapter": [],
            "adapter, plugin_autoload=false": [],
        }

        def runner(argv, *, cwd, timeout, env=None):  # type: ignore[no-untyped-def]
            full = {**os.environ, **(env or {})}
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=cwd, env=full, capture_output=True, text=True, timeout=timeout)
            return ProcessResult(done.returncode, done.stdout, done.stderr, time.perf_counter() - start)

        def plain(*extra: str) -> float:
            argv = [args.python, "-m", "pytest", *extra, node, f"--benchmark-json={scratch}/plain.json"]
            argv += [f"--benchmark-min-rounds={args.rounds}", "--benchmark-max-time=0"]
            result = runner(argv, cwd=work, timeout=300)
            if result.returncode:
                raise SystemExit(f"plain pytest failed: {result.stdout[-500:]}{result.stderr[-500:]}")
            return result.elapsed_s

        def adapter(settings: dict[str, object]) -> float:
            walls_seen: list[float] = []

            def timed(argv, *, cwd, timeout, env=None):  # type: ignore[no-untyped-def]
                result = runner(argv, cwd=cwd, timeout=timeout, env=env)
                walls_seen.append(result.elapsed_s)
                return result

            version = VersionContext(name="HEAD", workdir=work, python=args.python, scratch=scratch)
            request = TrialRequest(BenchmarkSpec(name=node), version, args.rounds, 300.0, settings)
            PytestBenchmarkAdapter().run_trial(request, timed)
            return walls_seen[0]

        for _ in range(args.trials):
            walls["plain"].append(plain())
            walls["plain, -o addopts= -p no:cacheprovider"].append(
                plain("-o", "addopts=", "-p", "no:cacheprovider")
            )
            walls["adapter"].append(adapter({}))
            walls["adapter, plugin_autoload=false"].append(adapter({"plugin_autoload": False}))

    base = statistics.median(walls["plain"])
    print(
        f"median wall per pytest process over {args.trials} interleaved trials ({args.rounds} rounds each):"
    )
    for name, values in walls.items():
        med = statistics.median(values)
        print(f"  {name:40s} {med:6.3f} s   ratio to plain {med / base:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
