"""Which units of table (a) a slowdown does not turn into a regression, and which rule stops each.

Table (a) of docs/statistics.md gives rates (eval/eval_verdicts.py); this prints the units behind
the shortfall, for one injected slowdown (``--slowdown 0``: the A/A units that are not
``unchanged``). Same units, split and injection as eval/eval_verdicts.py, the gate's default
settings unless given. For every such unit:

* the rule that left it undecided, in the order gate/analysis/compare.py applies them: the 99 %
  CIs overlap (or the change's CI cannot rule out the threshold), the exact rank test of fewer than
  8 values, the size guard of a low quantile of few values, the randomization test over fewer than
  10 trials (docs/statistics.md "Small samples", "Few trials");
* the guards' p-values (each recomputed whether or not it decided), trials and values per version,
  the bootstrap scheme, the change and its CI, each version's CI half-width;
* each trial's smallest value against the version's statistic, in %: a trial whose floor sits as
  far above the statistic as the slowdown is a process the randomization test over trials cannot
  tell from a slowed one.

    .venv/bin/python -m eval.eval_verdict_misses [--slowdown 10] [--statistic p10] [--bootstrap auto]
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np

from eval.eval_verdicts import DATA, PROJECTS, units
from eval.reference_data import require
from gate.analysis.compare import (
    AUTO_ALPHA,
    AnalysisSettings,
    Comparison,
    Sample,
    VersionResult,
    compare_many,
)
from gate.model import Verdict, small_sample_limit
from gate.stats import bootstrap as bs
from gate.stats.quantile import quantile_of
from gate.stats.rank import rank_test_agrees, shifted_rank_test_agrees, trial_guard

OVERLAP = "99% CIs overlap"
TOO_WIDE = "CI of the change too wide"
BELOW = "real change below the threshold"
RANK = "rank test of few values"
SIZE = "size guard of a low quantile"
TRIALS = "test over few trials"
FALSE = "false verdict"


class Miss(NamedTuple):
    unit: str
    comparison: Comparison
    rule: str
    size_p: float | None  # the size guard's one-sided p, where it applies (else None)
    trial_p: float | None  # the randomization test over trials' one-sided p, where it applies
    trial_kind: str
    trials: str  # "k_base/k_head"
    floors: tuple[str, str]  # per version: each trial's minimum against the version's statistic, %


def _trial_floors(s: Sample, estimate: float | None) -> str:
    if s.unit_id is None or not estimate:
        return "-"
    lows = np.sort([s.values[s.unit_id == u].min() for u in np.unique(s.unit_id)])
    return " ".join(f"{100 * (v / estimate - 1):+.0f}" for v in lows)


def diagnose(unit: str, base: Sample, head: Sample, c: Comparison, settings: AnalysisSettings) -> Miss:
    """Why ``c`` is what it is: the first of compare.py's rules that held it back, and every guard's p."""
    thr, conf = settings.threshold_pct, settings.confidence
    change = c.change_pct if c.change_pct is not None else math.nan
    q = quantile_of(settings.statistic)
    size_p: float | None = None
    if q is not None and min(base.n, head.n) < small_sample_limit(conf, q) and math.isfinite(change):
        size_p = shifted_rank_test_agrees(base.values, head.values, change, thr, conf)[1]
    guard = None
    if base.unit_id is not None and head.unit_id is not None and math.isfinite(change):
        estimates = partial(bs.point_estimates, statistic=settings.statistic)
        guard = trial_guard(
            base.values, base.unit_id, head.values, head.unit_id, estimates, change, thr, conf, AUTO_ALPHA,
            base.suite_run, head.suite_run,
        )  # fmt: skip
    if c.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT):
        rule = FALSE
    elif c.verdict is not Verdict.INCONCLUSIVE:
        rule = str(c.verdict)
    elif not c.significant:
        rule = OVERLAP if abs(change) >= thr else TOO_WIDE
    elif abs(change) < thr:
        rule = BELOW
    elif (
        min(base.n, head.n) < small_sample_limit(conf)
        and not rank_test_agrees(base.values, head.values, conf)[0]
    ):
        rule = RANK
    elif size_p is not None and not _clears(c, thr) and size_p > 1.0 - conf:
        rule = SIZE
    elif guard is not None and not guard.agrees:
        rule = TRIALS
    else:
        rule = "other"
    return Miss(
        unit, c, rule, size_p,
        guard.p if guard else None, guard.kind if guard else "-", guard.trials if guard else "-",
        (_trial_floors(base, c.base.estimate), _trial_floors(head, c.head.estimate)),
    )  # fmt: skip


def _clears(c: Comparison, thr: float) -> bool:
    assert c.change_ci is not None and c.change_pct is not None
    return c.change_ci[0] >= thr if c.change_pct > 0 else c.change_ci[1] <= -thr


def misses(
    data: list[tuple[str, Sample, Sample]], settings: AnalysisSettings, slowdown: float
) -> tuple[int, list[Miss]]:
    """(units, the units not called a regression — with ``slowdown`` 0, not ``unchanged``)."""
    items = [
        (name, base, Sample(head.values * (1 + slowdown / 100), head.unit_id, head.suite_run), False)
        for name, base, head in data
    ]
    expected = Verdict.REGRESSION if slowdown > 0 else Verdict.UNCHANGED
    out = [
        diagnose(name, base, head, c, settings)
        for (name, base, head, _), c in zip(items, compare_many(items, settings), strict=True)
        if c.verdict is not expected
    ]
    return len(items), out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:+.1f}%"


def _ci(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:+.1f}%, {ci[1]:+.1f}%]"


def _half(v: VersionResult) -> str:
    return "-" if v.estimate is None or v.ci is None else f"±{50 * (v.ci[1] - v.ci[0]) / v.estimate:.1f}%"


def _p(p: float | None) -> str:
    return "-" if p is None else f"{p:.3g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--slowdown", type=float, default=10.0, help="head slower by this many %% (0: A/A)")
    parser.add_argument("--statistic", default=AnalysisSettings().statistic)
    parser.add_argument("--bootstrap", default=AnalysisSettings().bootstrap)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--instances", default="1,2,3")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for project in PROJECTS:
        require(args.data / project / "measurements.csv", "uoptime_go")
    settings = AnalysisSettings(
        statistic=args.statistic, bootstrap=args.bootstrap, resamples=args.resamples, seed=args.seed,
        tail_statistic="",
    )  # fmt: skip
    data = units(args.data, tuple(int(i) for i in args.instances.split(",")))
    total, found = misses(data, settings, args.slowdown)
    what = "not called a regression" if args.slowdown > 0 else "not unchanged"
    print(
        f"{len(found)} of {total} units {what} at {'+' if args.slowdown > 0 else ''}{args.slowdown:g}% "
        f"({settings.statistic}, --bootstrap {settings.bootstrap}, 99% CIs, {settings.resamples} resamples, 3%)\n"
    )
    print(
        "| unit | verdict | rule | bootstrap | trials | values | change | CI of the change | CI half-width base / head "
        "| size guard p | trial test p (kind) | trial floors base | trial floors head |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in found:
        c = m.comparison
        print(
            f"| {m.unit} | {c.verdict} | {m.rule} | {c.bootstrap} | {m.trials} | {c.base.n}/{c.head.n} | "
            f"{_pct(c.change_pct)} | {_ci(c.change_ci)} | {_half(c.base)} / {_half(c.head)} | {_p(m.size_p)} | "
            f"{_p(m.trial_p)} ({m.trial_kind}) | {m.floors[0]} | {m.floors[1]} |"
        )
    print(
        "\nby rule: " + ", ".join(f"{rule} {n}" for rule, n in Counter(m.rule for m in found).most_common())
    )
    per_bench = Counter(m.unit.split("/")[0] + "/" + m.unit.split("/")[-1] for m in found)
    present = Counter(name.split("/")[0] + "/" + name.split("/")[-1] for name, _, _ in data)
    print(
        "by benchmark (units missed of the benchmark's units): "
        + ", ".join(f"{b} {n} of {present[b]}" for b, n in per_bench.most_common())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
