"""False verdicts and detection with trials of ONE value each (docs/statistics.md "Few trials").

A suite run of a scripted benchmark (the demo: 3 suite runs × 5 iterations × 1 measurement) gives
one value per trial, so the flat bootstrap is the bootstrap over trials and no test across trials
applies. Two A/A checks, through ``compare_many`` (the code path of ``analyze``):

* ``--logs``: real trial logs, re-dealt. Inside each suite run the version labels of a benchmark's
  trials are permuted at random (RMIT randomises the order of both versions inside every suite run,
  so the re-dealt log is a draw from the null whatever the true change), ``--redeals`` times.
* synthetic: ``n`` one-value trials per version in suite runs of 5 trials per version, from a
  right-skewed (log-normal, σ = 0.3), a bursty-continuum (half of the values slowed by 0–150 %) and
  a fast-minority (10–30 % of the values 20–60 % faster) distribution, and a quiet one (log-normal,
  σ = 0.03) for the price in detection; ``--slowdown`` makes head
  that much slower (a detection when called a regression).

    .venv/bin/python -m eval.eval_single_trials --logs A.csv B.csv --redeals 200
    .venv/bin/python -m eval.eval_single_trials --sizes 5,8,10,15,20,30 --slowdown 0,5,10
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import pandas as pd

from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.model import Verdict

CHANGED = (Verdict.REGRESSION, Verdict.IMPROVEMENT)
KINDS = ("lognormal", "bursty", "fast-minority", "quiet")
PER_RUN = 5  # trials per version and suite run, as the demo's 5 iterations


def _verdicts(items: list[tuple[str, Sample, Sample, bool]], statistic: str, resamples: int) -> list[Verdict]:
    settings = AnalysisSettings(statistic=statistic, resamples=resamples, tail_statistic="")
    return [c.verdict for c in compare_many(items, settings)]


def redealt(path: str, redeals: int, seed: int) -> list[tuple[str, Sample, Sample, bool]]:
    """``redeals`` re-dealt A/A copies of every benchmark of one trial log."""
    d = pd.read_csv(path)
    d = d[d.status == "ok"]
    rng = np.random.default_rng(seed)
    items = []
    for name, g in d.groupby("benchmark"):
        first = sorted(g.version.unique())[0]
        values, trials, runs = (g[c].to_numpy() for c in ("value", "trial", "suite_run"))
        is_base = (g.version == first).to_numpy()
        for r in range(redeals):
            label = is_base.copy()
            for run in np.unique(runs):  # permute the labels inside every suite run
                at = np.flatnonzero(runs == run)
                label[at] = label[at][rng.permutation(at.size)]
            b, h = label, ~label
            items.append(
                (
                    f"{name}/{r}",
                    Sample(values[b].astype(float), unit_id=trials[b], suite_run=runs[b]),
                    Sample(values[h].astype(float), unit_id=trials[h], suite_run=runs[h]),
                    False,
                )
            )
    return items


def _draw(rng: np.random.Generator, kind: str, n: int, share: float) -> np.ndarray:
    x = np.exp(rng.normal(0.0, 0.01, n))  # a little process jitter on every value
    if kind in ("lognormal", "quiet"):
        return x * np.exp(rng.normal(0.0, 0.3 if kind == "lognormal" else 0.03, n))
    if kind == "bursty":
        return x * (1.0 + np.where(rng.random(n) < 0.5, rng.uniform(0.0, 1.5, n), 0.0))
    return x / np.where(rng.random(n) < share, rng.uniform(1.2, 1.6, n), 1.0)


def synthetic(
    kind: str, n: int, slowdown: float, count: int, seed: int
) -> list[tuple[str, Sample, Sample, bool]]:
    rng = np.random.default_rng([seed, n, KINDS.index(kind), int(slowdown * 10)])
    runs = np.arange(n) // PER_RUN
    items = []
    for i in range(count):
        share = rng.uniform(0.1, 0.3) if kind == "fast-minority" else 0.0  # the same in both versions
        base, head = _draw(rng, kind, n, share), _draw(rng, kind, n, share) * (1.0 + slowdown / 100.0)
        items.append(
            (
                f"{kind}/{i}",
                Sample(base, unit_id=np.arange(n), suite_run=runs),
                Sample(head, unit_id=np.arange(n) + n, suite_run=runs),
                False,
            )
        )
    return items


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", nargs="*", default=[])
    parser.add_argument("--redeals", type=int, default=200)
    parser.add_argument("--sizes", default="5,8,10,15,20,30")
    parser.add_argument("--slowdown", default="0")
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--statistics", default="p10,median")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    stats = args.statistics.split(",")
    for path in args.logs:
        items = redealt(path, args.redeals, args.seed)
        for st in stats:
            v = _verdicts(items, st, args.resamples)
            per: dict[str, int] = {}
            for (name, *_), verdict in zip(items, v, strict=True):
                per[name.split("/")[0]] = per.get(name.split("/")[0], 0) + (verdict in CHANGED)
            shown = " ".join(f"{k} {c / args.redeals:.1%}" for k, c in sorted(per.items()))
            print(f"{path} {st}: false {sum(x in CHANGED for x in v) / len(v):.2%} ({shown})", flush=True)
    if args.logs:
        return 0
    print("kind n slowdown statistic | false (reg+imp) | regression | inconclusive")
    for kind in args.kinds.split(","):
        for n in map(int, args.sizes.split(",")):
            for slow in map(float, args.slowdown.split(",")):
                items = synthetic(kind, n, slow, args.benchmarks, args.seed)
                for st in stats:
                    v = _verdicts(items, st, args.resamples)
                    share = {x: sum(y == x for y in v) / len(v) for x in Verdict}
                    false = share[Verdict.REGRESSION] + share[Verdict.IMPROVEMENT]
                    print(
                        f"{kind} {n} {slow:g}% {st} | {false:.1%} | {share[Verdict.REGRESSION]:.1%} | "
                        f"{share[Verdict.INCONCLUSIVE]:.1%}",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
