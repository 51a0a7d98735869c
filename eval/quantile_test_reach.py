"""Can a test specific to the 10th percentile guard a verdict on few values? Its smallest p-value.

The size guard of a low quantile below its small-sample limit (gate/stats/rank.py
``shifted_rank_test_agrees``) tests a location shift: the exact one-sided Mann-Whitney test of
head against base × (1 + threshold), smallest p-value 1 / C(n_b + n_h, n_b). The test specific to
a quantile is the quantile (median-type) test of Mood and Westenberg (Conover, "Practical
Nonparametric Statistics", 3rd ed., §4.3, the median test generalised to any quantile): pool head
and the scaled base, take the r = round(q·N) lowest of the N values, and ask how many come from
base; under H0 (one distribution) that count is hypergeometric. Its smallest one-sided p-value is
P(all r lowest from base) = C(n_b, r) / C(N, r). Where that is above 1 − confidence the test can
never confirm a change, so as a guard it would turn every change it applies to into
`inconclusive` (docs/statistics.md "A quantile-specific size test").

    .venv/bin/python -m eval.quantile_test_reach [--quantile 0.1] [--confidence 0.99]
"""

from __future__ import annotations

import argparse
import math

from scipy.stats import hypergeom

from gate.model import small_sample_limit

SIZES = ((5, 5), (10, 10), (15, 15), (18, 18), (30, 30), (45, 30), (50, 50), (75, 75))


def quantile_test_smallest_p(n_base: int, n_head: int, quantile: float) -> float:
    """Smallest one-sided p of the exact quantile test: the r lowest pooled values all from base."""
    total = n_base + n_head
    r = max(1, round(quantile * total))
    return float(hypergeom(total, n_base, r).pmf(r)) if r <= n_base else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quantile", type=float, default=0.1)
    parser.add_argument("--confidence", type=float, default=0.99)
    args = parser.parse_args(argv)
    alpha = 1.0 - args.confidence
    limit = small_sample_limit(args.confidence, args.quantile)
    print(f"q = {args.quantile:g}, one-sided level {alpha:g}; the size guard applies below {limit} values\n")
    print("| values base / head | quantile test: smallest p | can reject | shifted rank test: smallest p |")
    print("|---|---|---|---|")
    for nb, nh in SIZES:
        p_q = quantile_test_smallest_p(nb, nh, args.quantile)
        p_r = 1.0 / math.comb(nb + nh, nb)
        print(f"| {nb} / {nh} | {p_q:.3g} | {'yes' if p_q <= alpha else 'no'} | {p_r:.2g} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
