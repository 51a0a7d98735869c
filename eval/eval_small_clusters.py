"""False verdicts of the verdict rule when a few whole trials are slowed (a loaded machine).

Synthetic A/A: every version has ``k`` trials (processes) of ``m`` measurements each. A value is
floor × process effect × measurement noise (both log-normal, ``--cv`` each), and on a loaded
machine each trial of either version is, with probability ``--hit``, slowed as a whole by a
factor 1 + U(5 %, 50 %) (another process took the CPU for that process's lifetime: interference
only adds time, Chen & Revels, HPEC 2016). Base and head come from one distribution, so every
regression or improvement is false. With ``--slowdown`` head is that much slower everywhere
(detection, same noise). Each cell compares ``--benchmarks`` benchmarks through ``compare_many``
with the gate's default settings (p10, ``--bootstrap auto``, 99 %, 3 %), as ``analyze`` does;
trials carry their labels, so ``auto`` sees the process level.

Why: with 2 suite runs × 3 iterations × 3 measurements (6 trials per version) the trial-level
bootstrap has only 6 units to resample, and a real criterion run on the loaded development
machine called its unchanged control benchmark a regression
(tests/integration/test_adapter_criterion_real.py).

    .venv/bin/python -m eval.eval_small_clusters [--benchmarks 1000] [--trials 4,5,6,8,10,15]
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np
from scipy import stats as sps

from gate.analysis.compare import AUTO_ALPHA, AnalysisSettings, Sample, compare_many
from gate.model import Verdict
from gate.stats import bootstrap as bs
from gate.stats.rank import trial_guard

CHANGED = (Verdict.REGRESSION, Verdict.IMPROVEMENT)
SUITE_RUNS = 2  # every trial in one of two suite runs, as the criterion test's 2 × 3 × 3


def version_sample(
    rng: np.random.Generator, trials: int, per_trial: int, cv: float, hit: float, factor: float
) -> Sample:
    """One version's values: ``trials`` processes × ``per_trial`` measurements (see the module)."""
    return trial_values(rng, trials, per_trial, float(np.sqrt(np.log1p(cv**2))), hit, factor)


def trial_values(
    rng: np.random.Generator, trials: int, per_trial: int, sigma: float, hit: float, factor: float = 1.0
) -> Sample:
    """:func:`version_sample` given the log-normal ``sigma`` of the process and the measurement
    noise itself (eval/eval_noisy_head.py widens it for a noisier head)."""
    process = rng.lognormal(0.0, sigma, size=(trials, 1))
    slowed = np.where(rng.random((trials, 1)) < hit, 1.0 + rng.uniform(0.05, 0.5, size=(trials, 1)), 1.0)
    values = factor * process * slowed * rng.lognormal(0.0, sigma, size=(trials, per_trial))
    trial = np.repeat(np.arange(trials), per_trial)
    return Sample(values.ravel(), unit_id=trial, suite_run=trial % SUITE_RUNS)


def cell(
    trials: int,
    per_trial: int,
    cv: float,
    hit: float,
    slowdown: float,
    count: int,
    settings: AnalysisSettings,
    seed: int,
    guard_alone: bool = False,
) -> dict[str, float]:
    """Shares (%) of regression, improvement and decided verdicts, and of two-level schemes; the
    count of regressions and improvements (``changed``) with its exact (Clopper–Pearson) 95 %
    interval (%), which says whether a cell's rate can exceed a bound. ``guard_alone``: also the
    count of benchmarks whose point change the randomization test over trials alone confirms
    (``guard``; gate/stats/rank.py ``trial_guard``, where it applies), the rate that test bounds by
    construction — the whole rule can only call fewer."""
    rng = np.random.default_rng([seed, trials, per_trial, int(hit * 100), int(slowdown * 10)])
    items = [
        (
            f"b{i}",
            version_sample(rng, trials, per_trial, cv, hit, 1.0),
            version_sample(rng, trials, per_trial, cv, hit, 1.0 + slowdown / 100.0),
            False,
        )
        for i in range(count)
    ]
    res = compare_many(items, settings)
    verdicts = [r.verdict for r in res]
    changed = sum(v in CHANGED for v in verdicts)
    interval = sps.binomtest(changed, count).proportion_ci(confidence_level=0.95)
    return {
        "guard": sum(_guard_confirms(base, head, settings) for _, base, head, _ in items)
        if guard_alone
        else -1,
        "changed": changed,
        "changed_lo": 100.0 * interval.low,
        "changed_hi": 100.0 * interval.high,
        "regression": 100.0 * sum(v == Verdict.REGRESSION for v in verdicts) / count,
        "improvement": 100.0 * sum(v == Verdict.IMPROVEMENT for v in verdicts) / count,
        "unchanged": 100.0 * sum(v == Verdict.UNCHANGED for v in verdicts) / count,
        "two_level": 100.0 * sum(r.bootstrap == "two-level" for r in res) / count,
    }


def _guard_confirms(base: Sample, head: Sample, settings: AnalysisSettings) -> bool:
    eb, eh = (bs.point_estimate(s.values, settings.statistic) for s in (base, head))
    change = (eh / eb - 1.0) * 100.0
    estimates = partial(bs.point_estimates, statistic=settings.statistic)
    assert base.unit_id is not None and head.unit_id is not None
    guard = trial_guard(
        base.values, base.unit_id, head.values, head.unit_id, estimates, change, settings.threshold_pct,
        settings.confidence, AUTO_ALPHA, base.suite_run, head.suite_run,
    )  # fmt: skip
    return guard is not None and guard.agrees


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--benchmarks", type=int, default=1000, help="benchmarks per cell")
    parser.add_argument("--trials", default="4,5,6,8,10,15", help="trials per version (comma list)")
    parser.add_argument("--per-trial", type=int, default=3, help="measurements per trial")
    parser.add_argument("--cv", type=float, default=0.01, help="process and measurement noise (CV)")
    parser.add_argument("--hit", default="0,0.2,0.4", help="share of trials slowed as a whole (list)")
    parser.add_argument("--slowdown", default="0,10", help="head slower by this many %% (list)")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--statistic", default=AnalysisSettings().statistic)
    parser.add_argument("--bootstrap", default=AnalysisSettings().bootstrap)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--guard-alone",
        action="store_true",
        help="last column: how many the randomization test over trials alone confirms (slower)",
    )
    args = parser.parse_args(argv)
    settings = AnalysisSettings(
        statistic=args.statistic,
        bootstrap=args.bootstrap,
        resamples=args.resamples,
        seed=args.seed,
        tail_statistic="",
    )
    print(
        f"{args.benchmarks} benchmarks per cell, {args.per_trial} measurements per trial, CV {args.cv:g}, "
        f"{settings.statistic}, --bootstrap {settings.bootstrap}, 99% CIs, {args.resamples} resamples, 3%\n"
    )
    print(
        "| trials per version | trials hit | head | regression | improvement | unchanged | two-level "
        "| regression + improvement (95% CI) | time |"
        + (" test over trials alone |" if args.guard_alone else "")
    )
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if args.guard_alone else ""))
    for hit in (float(h) for h in args.hit.split(",")):
        for slowdown in (float(s) for s in args.slowdown.split(",")):
            for trials in (int(k) for k in args.trials.split(",")):
                t0 = time.perf_counter()
                r = cell(
                    trials, args.per_trial, args.cv, hit, slowdown, args.benchmarks, settings, args.seed,
                    args.guard_alone,
                )  # fmt: skip
                head = "A/A" if slowdown == 0 else f"+{slowdown:g}%"
                print(
                    f"| {trials} | {hit:.0%} | {head} | {r['regression']:.1f}% | {r['improvement']:.1f}% | "
                    f"{r['unchanged']:.1f}% | {r['two_level']:.0f}% | {r['changed']:.0f} of {args.benchmarks} "
                    f"[{r['changed_lo']:.2f}%, {r['changed_hi']:.2f}%] | {time.perf_counter() - t0:.0f} s |"
                    + (f" {r['guard']:.0f} of {args.benchmarks} |" if args.guard_alone else ""),
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
