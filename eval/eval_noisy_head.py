"""How often the "far noisier in head" rule (gate.stats.stability.head_noisier) fires.

Base values are log-normal with a 5 % spread; head's are drawn from the same distribution (a
false alarm when flagged) or with 3, 5 or 10 times the spread (a detection). One row per number
of values per version; the figures in docs/statistics.md ("How the gate decides") come from

    .venv/bin/python -m eval.eval_noisy_head [--pairs 3000] [--seed 2]
"""

from __future__ import annotations

import argparse

import numpy as np

from gate.stats.stability import head_noisier

SIZES = (3, 5, 8, 10, 15, 30)
SPREADS = (("same", 1.0), ("x3", 3.0), ("x5", 5.0), ("x10", 10.0))
BASE_SIGMA = 0.05


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("values per version | " + " | ".join(f"head spread {name}" for name, _ in SPREADS))
    for n in SIZES:
        cells = []
        for _, factor in SPREADS:
            flagged = 0
            for _ in range(args.pairs):
                base = np.exp(rng.normal(0, BASE_SIGMA, n))
                head = np.exp(rng.normal(0, BASE_SIGMA * factor, n))
                flagged += head_noisier(base, head)[0]
            cells.append(f"{flagged / args.pairs * 100:.1f} %")
        print(f"{n} | " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
