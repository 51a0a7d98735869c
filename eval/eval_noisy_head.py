"""How often the "far noisier in head" rule (``noisy_head``, gate/stats/spread.py) fires: on A/A
benchmarks (a false fail of the gate when the verdict is also ``inconclusive``) and when head is
truly noisier (a detection). docs/statistics.md ("How the gate decides") quotes the tables of

    .venv/bin/python -m eval.eval_noisy_head [--pairs 400] [--trials 4,5,6,8,10] [--per-trial 3,5]
        [--hit 0,0.2,0.4] [--recorded] [--seed 2]

Two rules side by side: ``values`` — the rule before the test over trials: RMAD ratio ≥ 2 and the
exact Mann-Whitney test of the absolute log deviations, every value taken as independent; and
``trials`` — the rule of gate/stats/spread.py: the same ratio, the rank statistic of the deviations
from each version's median and of those from each trial's own median combined, its p-value from
reassigning whole trials to the versions inside each suite run.

Synthetic benchmarks (the model of eval/eval_small_clusters.py): ``k`` trials (processes) of
``m`` values per version in 2 suite runs; a value is process effect × measurement noise (both
log-normal, CV 1 %) and, on a loaded machine, each trial of either version is slowed as a whole,
with probability ``--hit``, by 1 + U(5 %, 50 %) (interference only adds time: Chen & Revels,
HPEC 2016). A/A: head from the same distribution. ×3 / ×5 / ×10: head's process and measurement
noise that many times wider in every trial (a change that makes the benchmark vary), the same
interference. A cell is the share of pairs the rule flags; "fails" counts A/A pairs that are
also ``inconclusive`` under the gate's default settings (only then does the rule fail the gate).

``--recorded``: the µOpTime Go A/A units of eval/eval_verdicts.py (odd / even iterations of every
suite run, trial structure kept; ../shared/data/uoptime_go), and how often each rule flags an
unchanged benchmark and fails the gate on it.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from eval.eval_small_clusters import SUITE_RUNS, trial_values
from eval.eval_verdicts import DATA, PROJECTS, units  # the same A/A units as table (a)
from eval.reference_data import require
from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.model import Verdict
from gate.stats.spread import head_noisier, value_level_noisier

SPREADS = (("A/A", 1.0), ("x3", 3.0), ("x5", 5.0), ("x10", 10.0))
CV = 0.01


def trial_level_rule(base: Sample, head: Sample) -> bool:
    return head_noisier(
        base.values, head.values, base.unit_id, head.unit_id, base.suite_run, head.suite_run
    ).noisier


def version_sample(rng: np.random.Generator, trials: int, per_trial: int, hit: float, wider: float) -> Sample:
    """One version's values: ``trials`` processes × ``per_trial`` measurements (see the module):
    eval/eval_small_clusters.py's model, its noise ``wider`` times as spread."""
    return trial_values(rng, trials, per_trial, wider * math.sqrt(math.log1p(CV**2)), hit)


def inconclusive(
    pairs: list[tuple[Sample, Sample]], flagged: set[int], settings: AnalysisSettings
) -> set[int]:
    """Which of the flagged pairs the gate calls ``inconclusive`` (only those fail the gate)."""
    ids = sorted(flagged)
    res = compare_many([(f"b{i}", *pairs[i], False) for i in ids], settings)
    return {i for i, r in zip(ids, res, strict=True) if r.verdict is Verdict.INCONCLUSIVE}


def synthetic(args: argparse.Namespace, settings: AnalysisSettings) -> None:
    print(
        f"{args.pairs} pairs per cell, {SUITE_RUNS} suite runs, CV {CV:g}, trials slowed by 1+U(5%,50%); "
        "each cell: values rule / trials rule\n"
    )
    heads = " | ".join(f"{name} flagged" for name, _ in SPREADS)
    print(f"| trials per version × values | trials hit | A/A fails the gate | {heads} | time |")
    print("|---|---|---|" + "---|" * len(SPREADS) + "---|")
    for hit in (float(h) for h in args.hit.split(",")):
        for m in (int(x) for x in args.per_trial.split(",")):
            for k in (int(x) for x in args.trials.split(",")):
                t0 = time.perf_counter()
                cells, fails = [], ""
                for name, wider in SPREADS:
                    rng = np.random.default_rng([args.seed, k, m, int(hit * 100), int(wider)])
                    pairs = [
                        (version_sample(rng, k, m, hit, 1.0), version_sample(rng, k, m, hit, wider))
                        for _ in range(args.pairs)
                    ]
                    old = {i for i, (b, h) in enumerate(pairs) if value_level_noisier(b.values, h.values)}
                    new = {i for i, (b, h) in enumerate(pairs) if trial_level_rule(b, h)}
                    cells.append(f"{_pct(len(old), args.pairs)} / {_pct(len(new), args.pairs)}")
                    if name == "A/A":
                        open_ = inconclusive(pairs, old | new, settings)
                        fails = f"{_pct(len(old & open_), args.pairs)} / {_pct(len(new & open_), args.pairs)}"
                print(
                    f"| {k} × {m} | {hit:.0%} | {fails} | {' | '.join(cells)} | {time.perf_counter() - t0:.0f} s |",
                    flush=True,
                )


def recorded(args: argparse.Namespace, settings: AnalysisSettings) -> None:
    data = units(DATA, (1, 2, 3))
    pairs = [(b, h) for _, b, h in data]
    old = {i for i, (b, h) in enumerate(pairs) if value_level_noisier(b.values, h.values)}
    new = {i for i, (b, h) in enumerate(pairs) if trial_level_rule(b, h)}
    open_ = inconclusive(pairs, old | new, settings)
    n = len(pairs)
    print(
        f"\nµOpTime Go A/A units (odd/even iterations, 9/6 trials of 5 values, 3 suite runs): {n}\n\n"
        "| rule | A/A flagged | A/A fails the gate (flagged and inconclusive) |\n|---|---|---|\n"
        f"| values | {_pct(len(old), n)} ({len(old)}) | {_pct(len(old & open_), n)} ({len(old & open_)}) |\n"
        f"| trials | {_pct(len(new), n)} ({len(new)}) | {_pct(len(new & open_), n)} ({len(new & open_)}) |"
    )
    for i in sorted(old | new):
        print(f"  {data[i][0]}: values {i in old}, trials {i in new}, inconclusive {i in open_}")


def _pct(count: int, total: int) -> str:
    return f"{100.0 * count / total:.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=400, help="pairs per cell")
    parser.add_argument(
        "--trials", default="4,5,6,8,10", help="trials per version (comma list; empty: no synthetic table)"
    )
    parser.add_argument("--per-trial", default="3,5", help="values per trial (comma list)")
    parser.add_argument("--hit", default="0,0.2,0.4", help="share of trials slowed as a whole (list)")
    parser.add_argument("--recorded", action="store_true", help="also the µOpTime Go A/A units")
    parser.add_argument("--resamples", type=int, default=2000, help="of the verdicts behind 'fails'")
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)
    settings = AnalysisSettings(resamples=args.resamples, seed=args.seed, tail_statistic="")
    if args.recorded:  # every file, before minutes of work: a missing folder stops first
        for project in PROJECTS:
            require(DATA / project / "measurements.csv", "uoptime_go")
    if args.trials:
        synthetic(args, settings)
    if args.recorded:
        recorded(args, settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
