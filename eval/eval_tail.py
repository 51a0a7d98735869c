"""Tail-only changes: does the gate surface them? (docs/statistics.md "Tail changes", table (b)).

Synthetic benchmarks, 15 trials × 5 values per version (the full configuration's 75), each value a
floor plus noise (../shared/notes/noise.md): the floor × (1 + Exp(1 %)); on the *interfered*
machine also a share ``--interference`` of the values (default 0 and 10 %) slowed 1.5-4× at
random, in both versions. Scenarios for head:

* ``A/A`` — the same distribution;
* ``slowest 20 % +50 %`` — the slowest 20 % of head's values take 50 % longer (e.g.
  more frequent GC pauses land on the slow iterations);
* ``pauses on 20 % more`` — 20 % more of head's values (at random) take 50 % longer, the floor
  unchanged;
* ``all +5 %`` — an ordinary slowdown, for comparison.

For each deciding statistic the table gives the share of benchmarks with a `regression` verdict,
with a tail finding (gate/analysis/tail.py: the same rule on the 90th percentile), and surfaced
(either), at the default settings (auto bootstrap, 99 % CIs, threshold 3 %):

    .venv/bin/python -m eval.eval_tail [--benchmarks 400] [--statistic p10,median] [--shapes 15x5,2x3]

``--shapes``: trials × values per trial of each version (comma list; default the full 15 × 5), to see
whether the tail check gives false findings at the 6–15 values of a minimal configuration.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.model import Verdict
from gate.stats.quantile import parse_statistic

TRIALS, PER_TRIAL = 15, 5


def interfered(rng: np.random.Generator, n: int, hit: float) -> np.ndarray:
    x = 1.0 + rng.exponential(0.01, n)
    slow = rng.random(n) < hit
    x[slow] *= rng.uniform(1.5, 4.0, int(slow.sum()))
    return x


def slowest_20_pct_slower(rng: np.random.Generator, n: int, hit: float) -> np.ndarray:
    x = interfered(rng, n, hit)
    x[x >= np.quantile(x, 0.8)] *= 1.5
    return x


def pauses_on_20_pct_more(rng: np.random.Generator, n: int, hit: float) -> np.ndarray:
    x = interfered(rng, n, hit)
    x[rng.random(n) < 0.2] *= 1.5
    return x


SCENARIOS: dict[str, Callable[[np.random.Generator, int, float], np.ndarray]] = {
    "A/A": interfered,
    "slowest 20 % +50 %": slowest_20_pct_slower,
    "pauses on 20 % more": pauses_on_20_pct_more,
    "all +5 %": lambda rng, n, hit: interfered(rng, n, hit) * 1.05,
}


def rates(
    statistic: str,
    scenario: str,
    hit: float,
    benchmarks: int,
    seed: int,
    shape: tuple[int, int] = (TRIALS, PER_TRIAL),
) -> dict[str, float]:
    rng = np.random.default_rng([seed, sum(map(ord, scenario)), round(hit * 1000)])
    n = shape[0] * shape[1]
    trials = np.repeat(np.arange(shape[0]), shape[1])
    items = [
        (
            f"b{i}",
            Sample(interfered(rng, n, hit), trials),
            Sample(SCENARIOS[scenario](rng, n, hit), trials),
            False,
        )
        for i in range(benchmarks)
    ]
    res = compare_many(items, AnalysisSettings(statistic=statistic, seed=seed))
    regression = np.array([r.verdict == Verdict.REGRESSION for r in res])
    false_verdict = np.array([r.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT) for r in res])
    tail = np.array([r.tail is not None and r.tail["verdict"] == "regression" for r in res])
    any_tail = np.array([r.tail is not None for r in res])
    return {
        "regression": 100 * regression.mean(),
        "changed": 100 * false_verdict.mean(),
        "tail": 100 * tail.mean(),
        "any_tail": 100 * any_tail.mean(),
        "surfaced": 100 * (regression | tail).mean(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmarks", type=int, default=400)
    parser.add_argument("--statistic", default="p10,median")
    parser.add_argument("--interference", default="0,0.1", help="comma list of shares of values hit")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shapes", default=f"{TRIALS}x{PER_TRIAL}", help="trials x values per trial (list)")
    args = parser.parse_args(argv)
    shapes = [(int(a), int(b)) for a, b in (s.split("x") for s in args.shapes.split(","))]
    print(f"{args.benchmarks} synthetic benchmarks per cell\n")
    print(
        "| values per version | machine | deciding statistic | head | regression verdict | tail finding (p90) | surfaced (either) | time |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for shape, hit in ((sh, float(h)) for sh in shapes for h in args.interference.split(",")):
        machine = f"{hit:.0%} of values hit 1.5-4×" if hit else "quiet"
        for statistic in (parse_statistic(s) for s in args.statistic.split(",")):
            for scenario in SCENARIOS:
                t0 = time.perf_counter()
                r = rates(statistic, scenario, hit, args.benchmarks, args.seed, shape)
                if scenario == "A/A":
                    cells = (
                        f"{r['changed']:.1f} % (false verdicts) | {r['any_tail']:.1f} % (false findings) | —"
                    )
                else:
                    cells = f"{r['regression']:.1f} % | {r['tail']:.1f} % | **{r['surfaced']:.1f} %**"
                print(
                    f"| {shape[0]} × {shape[1]} | {machine} | {statistic} | {scenario} | {cells} | {time.perf_counter() - t0:.0f} s |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
