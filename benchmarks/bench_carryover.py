"""Time the carry-over analysis on a synthetic log: 1,000 benchmarks × 30 random-order suite runs
(30,000 trials), each suite run a fresh permutation, as `analyze` receives it.

    .venv/bin/python -m benchmarks.bench_carryover [--benchmarks 1000] [--runs 30]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from gate.analysis.carryover import analyze_carryover


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for run in range(1, args.runs + 1):
        for position, b in enumerate(rng.permutation(args.benchmarks), start=1):
            rows.append((f"b{b}", "v", "h", run, "random", position, rng.lognormal(0, 0.05), "ok"))
    columns = ["benchmark", "version", "instance", "suite_run", "order_type", "position", "value", "status"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["trial"] = np.arange(1, len(frame) + 1)
    start = time.perf_counter()
    analyze_carryover(frame)
    print(f"carry-over analysis of {len(frame):,} trials: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
