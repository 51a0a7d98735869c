"""A/A false-positive and injected-slowdown detection rates of the verdict rule, per scheme.

Data: the µOpTime Go data (``uoptime_go/<project>/measurements.csv`` in the reference data folder (``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py); read in place,
never copied). Every (project, version, instance, benchmark) with the full configuration
(3 suite runs × 5 iterations × 5 one-second measurements) is one unit.

A/A split: inside every suite run, the iterations are dealt alternately to two pseudo-versions
(odd iterations 1, 3, 5 → "base", even iterations 2, 4 → "head"). Both pseudo-versions span all
three suite runs, as base and head do under RMIT, and each keeps whole iterations (trials), so
the correlation of the 5 measurements inside one `go test` process stays inside one version.
Base gets 45 values and head 30 (of the 75 of the full configuration). Detection: the same
split with head's values multiplied by 1.03 / 1.05 / 1.10 (a slowdown, lower is better).

Schemes: bootstrap flat | two-level (trials, then measurements) | auto (two-level where the trials
of a version differ, else flat) × pairing independent (disjoint CIs) | suite-run (shared suite-run
draws; CI of the change excludes 0).

    .venv/bin/python -m eval.eval_verdicts [--statistic median,p10] [--resamples 10000] [--instances 1,2,3]

``--statistic`` takes a comma list (gate/stats/quantile.py names: median, mean, pNN); every
statistic × scheme is one row. The tail check beside the verdict (gate/analysis/tail.py) is off
here unless ``--tail``: it never changes a verdict; with ``--tail`` a last column gives the A/A
units with a (false) tail finding (eval/eval_tail.py measures what it finds).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from eval.reference_data import reference_data, require
from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.model import Verdict
from gate.stats.quantile import parse_statistic

DATA = reference_data("uoptime_go")
PROJECTS = ("prometheus-common", "toml")
SLOWDOWNS = (0.0, 3.0, 5.0, 10.0)
SCHEMES = (
    ("flat", "independent"),
    ("two-level", "independent"),
    ("auto", "independent"),
    ("flat", "suite-run"),
    ("two-level", "suite-run"),
)


def units(
    data_dir: Path, instances: tuple[int, ...], split: str = "iterations"
) -> list[tuple[str, Sample, Sample]]:
    """(name, base, head) of every A/A unit with the full configuration.

    ``split="iterations"`` (the default, see the module docstring); ``split="suite-runs"`` is the
    harsher check: suite runs 1 and 2 → base (50 values), suite run 3 → head (25 values), so
    run-to-run variation is *not* shared by the two pseudo-versions (unlike RMIT) and pairing by
    suite run is impossible."""
    out = []
    for project in PROJECTS:
        path = data_dir / project / "measurements.csv"
        df = pd.read_csv(path)
        df = df[df["instance"].isin(instances)]
        for (version, instance, bench), g in df.groupby(["version", "instance", "benchmark"], sort=True):
            if len(g) != 75:
                continue  # a few benchmarks lack a suite run; the split needs the full configuration
            g = g.sort_values(["suite_run", "iteration", "second"])
            if split == "suite-runs":
                odd = (g["suite_run"] < 3).to_numpy()
            else:
                odd = (g["iteration"] % 2 == 1).to_numpy()
            samples = []
            for mask in (odd, ~odd):
                part = g[mask]
                samples.append(
                    Sample(
                        values=part["ns_per_op"].to_numpy(dtype=np.float64),
                        unit_id=(part["suite_run"] * 100 + part["iteration"]).to_numpy(),
                        suite_run=part["suite_run"].to_numpy(),
                    )
                )
            out.append((f"{project}/{version}/{instance}/{bench}", samples[0], samples[1]))
    return out


def rates(
    data: list[tuple[str, Sample, Sample]], settings: AnalysisSettings, slowdown: float
) -> dict[str, float]:
    items = [
        (name, base, Sample(head.values * (1 + slowdown / 100), head.unit_id, head.suite_run), False)
        for name, base, head in data
    ]
    res = compare_many(items, settings)
    verdicts = np.array([str(r.verdict) for r in res])
    n = len(res)
    return {
        "tail": float(np.mean([r.tail is not None for r in res])) * 100,
        "regression": float(np.mean(verdicts == Verdict.REGRESSION)) * 100,
        "improvement": float(np.mean(verdicts == Verdict.IMPROVEMENT)) * 100,
        "unchanged": float(np.mean(verdicts == Verdict.UNCHANGED)) * 100,
        "inconclusive": float(np.mean(verdicts == Verdict.INCONCLUSIVE)) * 100,
        "n": n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--statistic",
        default=AnalysisSettings().statistic,
        help="comma list of statistics, e.g. median,p10,p20 (default: the gate's default)",
    )
    parser.add_argument("--instances", default="1,2,3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--split", choices=("iterations", "suite-runs"), default="iterations")
    parser.add_argument(
        "--schemes", default="all", help="comma list like flat/independent,two-level/suite-run"
    )
    parser.add_argument("--tail", action="store_true", help="tail check on; count A/A tail findings")
    args = parser.parse_args(argv)
    for project in PROJECTS:  # every file, before minutes of work: a partial folder stops too
        require(args.data / project / "measurements.csv", "uoptime_go")
    data = units(args.data, tuple(int(i) for i in args.instances.split(",")), args.split)
    schemes = SCHEMES if args.schemes == "all" else [tuple(s.split("/")) for s in args.schemes.split(",")]
    statistics = [parse_statistic(s) for s in args.statistic.split(",")]
    print(
        f"{len(data)} A/A units (project × version × instance × benchmark), split by {args.split}, "
        f"99% CIs, {args.resamples} resamples, threshold 3%\n"
    )
    print(
        "| statistic | bootstrap | pairing | A/A false positives | A/A unchanged | A/A inconclusive | detect 3% | detect 5% | detect 10% | time |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for statistic, (boot, pairing) in ((st, sc) for st in statistics for sc in schemes):
        settings = AnalysisSettings(
            statistic=statistic,
            resamples=args.resamples,
            seed=args.seed,
            bootstrap=boot,  # type: ignore[arg-type]
            pairing=pairing,  # type: ignore[arg-type]
            tail_statistic="p90" if args.tail else "",
        )
        t0 = time.perf_counter()
        cells = {s: rates(data, settings, s) for s in SLOWDOWNS}
        aa = cells[0.0]
        print(
            f"| {statistic} | {boot} | {pairing} | {aa['regression'] + aa['improvement']:.1f}% | {aa['unchanged']:.1f}% | "
            f"{aa['inconclusive']:.1f}% | {cells[3.0]['regression']:.1f}% | {cells[5.0]['regression']:.1f}% | "
            f"{cells[10.0]['regression']:.1f}% | {time.perf_counter() - t0:.0f} s |"
            + (f" A/A tail findings {aa['tail']:.1f}% |" if args.tail else ""),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
