"""False alarms and detection of the verdict rule at the small sample sizes calibrated PR runs use.

Synthetic A/A: base and head are drawn from the same distribution (normal or log-normal with a
given CV), so every regression/improvement is a false alarm. A/B: head is 10 % slower, so a
regression is a detection. One row per (distribution, CV, values per version); each cell compares
``--benchmarks`` benchmarks with the gate's default settings (its default statistic, 99 % percentile bootstrap,
3 % threshold) through the same code path as `analyze` (``compare_many``).

Why: with 3 values per version the percentile bootstrap's "99 %" CI is about
the range of the values, so two samples of one distribution have disjoint intervals 10 % of the
time (2·3!·3!/6!) and the 3 % threshold alone stood between noise and a verdict.

    .venv/bin/python -m eval.eval_small_samples [--benchmarks 2000] [--resamples 2000]
"""

from __future__ import annotations

import argparse

import numpy as np

from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.model import Verdict

CVS = (0.01, 0.03, 0.05)
SIZES = (3, 4, 5, 8, 15)
CHANGED = (Verdict.REGRESSION, Verdict.IMPROVEMENT)


def draw(rng: np.random.Generator, dist: str, cv: float, shape: tuple[int, int]) -> np.ndarray:
    if dist == "normal":
        return rng.normal(1.0, cv, size=shape)
    sigma = np.sqrt(np.log1p(cv**2))  # log-normal with this CV: long right tail (NIST TN 1855)
    return rng.lognormal(-(sigma**2) / 2, sigma, size=shape)


def rates(
    dist: str, cv: float, n: int, slowdown: float, count: int, settings: AnalysisSettings, seed: int
) -> tuple[float, float]:
    """(share called regression, share called regression or improvement)."""
    rng = np.random.default_rng([seed, n, int(cv * 1000), int(slowdown * 100), dist == "normal"])
    base = draw(rng, dist, cv, (count, n))
    head = draw(rng, dist, cv, (count, n)) * (1.0 + slowdown)
    items = [(f"b{i}", Sample(base[i]), Sample(head[i]), False) for i in range(count)]
    verdicts = [c.verdict for c in compare_many(items, settings)]
    regressions = sum(v == Verdict.REGRESSION for v in verdicts)
    changed = sum(v in CHANGED for v in verdicts)
    return regressions / count, changed / count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmarks", type=int, default=2000, help="benchmarks per cell")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings = AnalysisSettings(resamples=args.resamples, seed=args.seed)
    print(
        f"{args.benchmarks} benchmarks per cell; {settings.statistic}, 99% percentile bootstrap, 3% threshold"
    )
    print(f"{'dist':<10} {'CV':>4} {'n':>3}  {'A/A false alarms':>17}  {'10% slower: detected':>21}")
    for dist in ("normal", "lognormal"):
        for cv in CVS:
            for n in SIZES:
                _, false_alarms = rates(dist, cv, n, 0.0, args.benchmarks, settings, args.seed)
                detected, _ = rates(dist, cv, n, 0.10, args.benchmarks, settings, args.seed)
                print(f"{dist:<10} {cv:>4.0%} {n:>3}  {false_alarms:>17.2%}  {detected:>21.1%}")


if __name__ == "__main__":
    main()
