"""End-to-end `ordertrap-gate analyze` on a very large trial log: N benchmarks × 2 versions × 3
values in the minimal columns (benchmark, version, value), --resamples 1000, JSON included.

Prints the wall time and the CPU time of the analyze process (it runs as a subprocess, so its CPU
time is read from the children's rusage and does not depend on other jobs on the machine).

    .venv/bin/python -m benchmarks.bench_analyze_large             # 100,000 benchmarks
    .venv/bin/python -m benchmarks.bench_analyze_large --benchmarks 10000
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=100_000)
    parser.add_argument("--values", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    n = args.benchmarks * 2 * args.values
    names = np.repeat([f"bench_{i:06d}" for i in range(args.benchmarks)], 2 * args.values)
    versions = np.tile(np.repeat(["base", "head"], args.values), args.benchmarks)
    values = rng.lognormal(mean=0.0, sigma=0.05, size=n)
    with tempfile.TemporaryDirectory() as tmp:
        trials = Path(tmp) / "trials.csv"
        pd.DataFrame({"benchmark": names, "version": versions, "value": values}).to_csv(trials, index=False)
        cmd = [sys.executable, "-m", "gate", "analyze", str(trials), "--base", "base", "--head", "head",
               "--resamples", str(args.resamples), "--json", str(Path(tmp) / "analysis.json")]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"analyze: {args.benchmarks} benchmarks x 2 versions x {args.values} values, "
          f"--resamples {args.resamples}: wall {wall:.1f} s, CPU {cpu:.1f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
