#!/usr/bin/env python3
"""Benchmark of the µOpTime calibration: cost-ordered early-stopping search vs exhaustive search.

Runs both on every project-version of ``uoptime_go`` in the reference data folder (``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py) (instance 1) for every metric,
in ONE process, checks that they choose identical configurations with identical metric values,
and prints both times and their ratio.

The exhaustive search is kept deliberately straightforward, in the style of the µOpTime prototype
(Algorithm 1 as published, §3.1): for every benchmark and every configuration it selects the rows
within the configuration from the benchmark's table, computes the metric, and only afterwards
filters the stable ones and picks the cheapest. It shares only the metric kernels and the seeded
bootstrap plan with the product, which is what makes identical results possible.

    .venv/bin/python -m benchmarks.bench_calibrate [--data DIR] [--metrics cv,rmad,...]

``--compare-partitions N`` instead times only the product's search, alternating N times between
percentile intervals from one partition at both tails' ranks and from one partition per tail
(``gate.stats.bootstrap.SINGLE_KTH``), and checks both choose identical configurations and values.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from eval.reference_data import reference_data, require
from gate.calibration.dataset import MIN_VALUES, build_dataset, normalise, read_tables, select
from gate.calibration.search import calibrate, enumerate_configs, make_plan
from gate.stats import bootstrap
from gate.stats.stability import METRICS, BootstrapPlan, metric_batch

LEVELS = ("suite_run", "iteration", "second")


def exhaustive(
    frame: pd.DataFrame, metric: str, threshold: float, plan: BootstrapPlan | None
) -> dict[str, tuple[tuple[int, ...], float]]:
    """Algorithm 1, literally: evaluate every configuration, then choose."""
    full = tuple(int(frame[level].max()) for level in LEVELS)
    out: dict[str, tuple[tuple[int, ...], float]] = {}
    for name, rows in frame.groupby("benchmark", sort=False):
        rows = rows.sort_values(list(LEVELS))  # values in position order, as the product stores them
        pos = [rows[level].to_numpy() for level in LEVELS]
        values = rows["value"].to_numpy(dtype=np.float64)
        results = []  # (cost, metric, enumeration index, config)
        for k, config in enumerate(enumerate_configs(full)):
            keep = np.ones(len(values), dtype=bool)
            for p, c in zip(pos, config, strict=True):
                keep &= p <= c
            data = values[keep]
            if data.size < MIN_VALUES:
                continue
            inst = float(metric_batch(data[None, :], metric, plan)[0])
            results.append((float(math.prod(config)), inst, k, config))
        stable = [r for r in results if r[1] < threshold]
        # cheapest, then lower metric, then enumeration order; nothing stable: the full configuration
        best = min(stable, key=lambda r: (r[0], r[1], r[2])) if stable else results[-1]
        out[str(name)] = (best[3], best[1])
    return out


def prototype_estimate(frames: list[pd.DataFrame], metrics: list[str], n_configs: int, sample: int) -> float:
    """Seconds the µOpTime prototype's per-configuration work would take for ``n_configs``
    configurations on this machine, extrapolated from ``sample`` random ones: per configuration it
    draws a 10,000-resample bootstrap for the CI and, for RCIW metrics, another for the metric,
    materialising resamples × n values (stat_functions.py: rng.choice(data, (10000, n)), then
    np.mean/np.median along axis 1). Its per-configuration pandas filtering is not counted."""
    rng = np.random.default_rng(0)
    values = [f["value"].to_numpy(dtype=np.float64) for f in frames]
    t0 = time.perf_counter()
    for k in range(sample):
        pool = values[k % len(values)]
        n = int(rng.integers(3, 76))
        data = pool[rng.integers(0, pool.size, n)]
        metric = metrics[k % len(metrics)]
        stat = np.median if metric in ("rmad", "rciw3") else np.mean
        for _ in range(1 if metric in ("cv", "rmad") else 2):
            np.percentile(stat(rng.choice(data, (10_000, n)), axis=1), [0.5, 99.5])
    return (time.perf_counter() - t0) / sample * n_configs


def compare_partitions(files: list[Path], metrics: list[str], args: argparse.Namespace) -> int:
    """CPU seconds of the product's search with the percentile intervals' order statistics from
    one multi-kth partition vs one single-kth partition per tail, alternated in one process."""
    datasets = []
    for f in files:
        table = select(normalise(read_tables([f]), LEVELS, "ns_per_op"), "instance", "1", "--instance")
        for version in dict.fromkeys(table.frame["version"]):
            datasets.append(
                (f.parent.name, version, build_dataset(select(table, "version", version, "--version")))
            )

    def search() -> dict[tuple[str, ...], tuple[tuple[int, ...], float]]:
        out = {}
        for project, version, ds in datasets:
            plan = make_plan(ds.full, args.seed, args.resamples)
            for metric in metrics:
                for name, ch in calibrate(ds, metric, args.threshold, plan=plan).choices.items():
                    out[(project, version, metric, name)] = (ch.config, ch.instability)
        return out

    default = bootstrap.SINGLE_KTH
    modes = {"both kths": False, "kth per tail": True}
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    results = {}
    search()  # warm the plans' caches and the search spaces for both modes alike
    try:
        for _ in range(args.compare_partitions):
            for mode, single_kth in modes.items():
                bootstrap.SINGLE_KTH = single_kth
                c0 = time.process_time()
                results[mode] = search()
                times[mode].append(time.process_time() - c0)
    finally:
        bootstrap.SINGLE_KTH = default
    for mode, ts in times.items():
        print(f"{mode:13s} CPU s: " + " ".join(f"{t:.2f}" for t in ts) + f"  (min {min(ts):.2f})")
    ratios = [t / f for t, f in zip(times["kth per tail"], times["both kths"], strict=True)]
    print("kth per tail / both kths, per pair: " + " ".join(f"{q:.3f}" for q in ratios))
    identical = results["both kths"] == results["kth per tail"]
    print(f"identical results (configuration and metric value): {identical}")
    return 0 if identical else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default=str(reference_data("uoptime_go")))
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--threshold", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--prototype-sample",
        type=int,
        default=200,
        help="configurations timed with the prototype's kernels to extrapolate its cost (0: skip)",
    )
    parser.add_argument(
        "--compare-partitions",
        type=int,
        default=0,
        metavar="N",
        help="time the search with one partition for both tails vs one per tail, alternating N times",
    )
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    files = sorted(Path(args.data).glob("*/measurements.csv"))
    if not files:
        require(Path(args.data) / "<project>" / "measurements.csv", "uoptime_go")
    if args.compare_partitions:
        return compare_partitions(files, metrics, args)

    # ---- fast: the product's path, including reading and preparing the data ----
    make_plan.cache_clear()
    t0, c0 = time.perf_counter(), time.process_time()
    fast: dict[tuple[str, ...], tuple[tuple[int, ...], float]] = {}
    evaluated = total = 0
    for f in files:
        table = normalise(read_tables([f], [*LEVELS, "ns_per_op"]), LEVELS, "ns_per_op")
        table = select(table, "instance", "1", "--instance")
        for version in dict.fromkeys(table.frame["version"]):
            ds = build_dataset(select(table, "version", version, "--version"))
            plan = make_plan(ds.full, args.seed, args.resamples)
            for metric in metrics:
                cal = calibrate(ds, metric, args.threshold, plan=plan)
                for name, ch in cal.choices.items():
                    fast[(f.parent.name, version, metric, name)] = (ch.config, ch.instability)
                    evaluated += ch.evaluated
                total += len(cal.choices) * len(enumerate_configs(ds.full))
    t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0

    # ---- exhaustive: straightforward Algorithm 1 ----
    make_plan.cache_clear()  # the exhaustive search builds its own bootstrap plans
    t0, c0 = time.perf_counter(), time.process_time()
    slow: dict[tuple[str, ...], tuple[tuple[int, ...], float]] = {}
    for f in files:
        raw = pd.read_csv(f, dtype={"version": str, "instance": str})
        raw = raw[raw["instance"] == "1"].rename(columns={"ns_per_op": "value"})
        for version, frame in raw.groupby("version", sort=False):
            full = tuple(int(frame[level].max()) for level in LEVELS)
            plan = make_plan(full, args.seed, args.resamples)
            for metric in metrics:
                for name, res in exhaustive(frame, metric, args.threshold, plan).items():
                    slow[(f.parent.name, str(version), metric, name)] = res
    t_slow, c_slow = time.perf_counter() - t0, time.process_time() - c0
    frames = [pd.read_csv(f).rename(columns={"ns_per_op": "value"}) for f in files]
    t_proto = (
        prototype_estimate(frames, metrics, total, args.prototype_sample) if args.prototype_sample else 0.0
    )

    mismatches = [k for k in slow if fast.get(k) != slow[k]]
    missing = set(slow) ^ set(fast)
    n_versions = len({k[:2] for k in slow})
    print(f"project-versions: {n_versions}, metrics: {', '.join(metrics)}, benchmarks×metrics: {len(slow)}")
    print(f"configurations evaluated: fast {evaluated} of {total} ({100 * evaluated / max(total, 1):.1f}%)")
    print("                                                      wall s    CPU s")
    print(f"fast (cost-ordered, early stop, incl. reading data): {t_fast:7.2f}  {c_fast:7.2f}")
    print(f"exhaustive (Algorithm 1 as published):              {t_slow:7.2f}  {c_slow:7.2f}")
    print(f"speed-up: {t_slow / t_fast:.1f}x wall, {c_slow / c_fast:.1f}x CPU")
    if t_proto:
        print(
            f"prototype's bootstrap kernels for all {total} configurations (estimate, "
            f"extrapolated from {args.prototype_sample}): ~{t_proto:.0f} s wall "
            f"({t_proto / t_fast:.0f}x the fast search)"
        )
    try:
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        print(f"load average at the end (other processes share the CPUs): {load}")
    except OSError:
        pass
    identical = not mismatches and not missing
    print(f"identical results (configuration and metric value): {identical}")
    for k in mismatches[:20]:
        print(f"  MISMATCH {k}: fast {fast.get(k)} exhaustive {slow[k]}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
