"""Speed of the comparison core against scipy.stats.bootstrap doing the same work.

Work: B benchmarks × 2 versions × N samples, R resamples, 99 % percentile CIs of the median per
version and of the relative change (head/base − 1). The gate does it with
``gate.analysis.compare.compare_many`` (``--bootstrap``, default flat: µOpTime's scheme and what
scipy does; independent versions).
scipy does it with three ``scipy.stats.bootstrap`` calls per benchmark (base, head, and the
two-sample ratio), vectorised over resamples; scipy is timed on ``--scipy-sample`` benchmarks and
scaled linearly (its cost is per benchmark), so the run stays short. Both are timed in the same
process, one after the other: the machine is shared, so read the *ratio*.

    .venv/bin/python -m benchmarks.bench_stats [--benchmarks 1000] [--samples 75] [--resamples 10000]
    .venv/bin/python -m benchmarks.bench_stats --statistic p10 --bootstrap auto --against-median

``--against-median`` also times, in the same process, the median without the tail check (what
the gate did before the statistic was selectable) and the chosen statistic with and without
the tail check (gate/analysis/tail.py), and prints the ratios.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
from scipy import stats

from gate.analysis.compare import BOOTSTRAPS, AnalysisSettings, Sample, compare_many
from gate.stats.quantile import harrell_davis, parse_statistic, quantile_of


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=75)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--statistic", type=parse_statistic, default="median", help="median, mean or pNN")
    parser.add_argument("--against-median", action="store_true")
    parser.add_argument(
        "--scipy-sample", type=int, default=20, help="benchmarks timed with scipy (scaled up)"
    )
    parser.add_argument("--bootstrap", choices=BOOTSTRAPS, default="flat")
    parser.add_argument("--pairing", choices=("independent", "suite-run"), default="independent")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    n, b = args.samples, args.benchmarks
    data = rng.lognormal(0.0, 0.05, size=(b, 2, n))
    data[:, 1] *= np.where(np.arange(b) % 10 == 0, 1.05, 1.0)[:, None]
    trial = np.arange(n) // 5  # 5 measurements per trial, 3 suite runs: the µOpTime layout
    run = trial % 3
    items = [
        (
            f"b{i}",
            Sample(data[i, 0], unit_id=trial, suite_run=run),
            Sample(data[i, 1], unit_id=trial, suite_run=run),
            False,
        )
        for i in range(b)
    ]
    settings = AnalysisSettings(
        statistic=args.statistic,
        resamples=args.resamples,
        bootstrap=args.bootstrap,
        pairing=args.pairing,
        tail_statistic="",
    )
    if args.against_median:
        timings = {}
        for label, st in (
            ("median, no tail check", replace(settings, statistic="median")),
            (f"{args.statistic}, no tail check", settings),
            (f"{args.statistic} + tail check (p90)", replace(settings, tail_statistic="p90")),
        ):
            t0 = time.perf_counter()
            compare_many(items, st)
            timings[label] = time.perf_counter() - t0
        base_s = timings["median, no tail check"]
        print(
            f"{b} benchmarks × 2 versions × {n} samples, {args.resamples} resamples, bootstrap={args.bootstrap}"
        )
        for label, sec in timings.items():
            print(f"{label:<32}: {sec:8.2f} s  ({sec / base_s:.2f}× the median's)")
        return 0
    t0 = time.perf_counter()
    results = compare_many(items, settings)
    gate_s = time.perf_counter() - t0
    assert len(results) == b
    flat_s = None
    if args.bootstrap != "flat":  # the flat scheme on the same data, in the same process: the ratio
        t0 = time.perf_counter()
        compare_many(items, replace(settings, bootstrap="flat"))
        flat_s = time.perf_counter() - t0

    q = quantile_of(args.statistic)
    stat = (
        np.median
        if args.statistic == "median"
        else np.mean
        if args.statistic == "mean"
        else (lambda x, axis=-1: harrell_davis(np.moveaxis(x, axis, -1), q))
    )
    k = min(args.scipy_sample, b)
    t0 = time.perf_counter()
    for i in range(k):
        for x in (data[i, 0], data[i, 1]):
            stats.bootstrap(
                (x,), stat, n_resamples=args.resamples, confidence_level=0.99, method="percentile",
                random_state=i, vectorized=True, axis=-1,
            )  # fmt: skip
        stats.bootstrap(
            (data[i, 0], data[i, 1]),
            lambda base, head, axis=-1: stat(head, axis=axis) / stat(base, axis=axis) - 1,
            n_resamples=args.resamples, confidence_level=0.99, method="percentile", random_state=i,
            vectorized=True, axis=-1,
        )  # fmt: skip
    scipy_s = (time.perf_counter() - t0) * b / k

    print(
        f"{b} benchmarks × 2 versions × {n} samples, {args.resamples} resamples, 99% CIs, "
        f"{args.statistic}, bootstrap={args.bootstrap}, pairing={args.pairing}"
    )
    print(f"gate compare_many      : {gate_s:8.2f} s")
    if flat_s is not None:
        print(f"  same data, flat      : {flat_s:8.2f} s  ({args.bootstrap}/flat = {gate_s / flat_s:.2f})")
    print(f"scipy.stats.bootstrap  : {scipy_s:8.2f} s  (timed on {k} benchmarks, scaled ×{b / k:g})")
    print(f"speed-up               : {scipy_s / gate_s:8.1f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
