"""A statistic per benchmark chosen by the nightly (gate/calibration/statistic_choice.py) against
the fixed default p10: A/A false verdicts, A/A inconclusive, detection of 3 / 5 / 10 %.

(a) The µOpTime Go data, split as table (a) of docs/statistics.md (eval/eval_verdicts.py: inside
every suite run odd iterations → base, 45 values; even → head, 30 values; head × 1.03 / 1.05 /
1.10 for the slowdowns). The choice for a unit (project, version, instance, benchmark) is made on
**another version's** full configuration of the same instance and benchmark (the previous
version; the first version uses the next), as a nightly run on an earlier commit chooses for the
PRs after it: the values chosen from and the values judged are disjoint. ``--in-sample`` adds the
row the gate must not do — choosing on the very 75 values that are then judged — to show what
that costs.

(b) Synthetic: a minority of processes run fast (a host running a process at one of two speeds,
carry-over from a warming predecessor; the demo's noise, docs/evaluation.md) — where p10 sits on
the boundary of the fast mode — and, as the control, right-skewed interference (10 % of the values
slowed 1.5–4×) where p10 should stay. Nights and PRs are independent draws of the same benchmark.

    .venv/bin/python -m eval.eval_statistic_choice [--resamples 10000] [--in-sample] [--part a,b]

Every row is 99 % CIs, threshold 3 %, the auto bootstrap (the default), the p90 tail check off
(it never changes a verdict).
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from eval.eval_verdicts import PROJECTS, SLOWDOWNS, units
from eval.reference_data import reference_data, require
from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.calibration import statistic_choice
from gate.model import Verdict

DATA = reference_data("uoptime_go")
PR_TRIALS = 6  # the smaller version of table (a)'s split: 6 trials × 5 values


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version))


def night_choices(
    data_dir: Path,
    instances: tuple[int, ...],
    in_sample: bool,
    seed: int,
    margin: float = statistic_choice.MARGIN,
) -> dict[str, str]:
    """unit name (as eval_verdicts.units names it) -> the statistic chosen for it, from another
    version's full configuration (or, ``in_sample``, from its own)."""
    chosen: dict[str, str] = {}
    for project in PROJECTS:
        df = pd.read_csv(data_dir / project / "measurements.csv")
        df = df[df["instance"].isin(instances)]
        versions = sorted(df["version"].unique(), key=_version_key)
        full: dict[tuple[str, int, str], statistic_choice.StatisticChoice | None] = {}
        for (version, instance, bench), g in df.groupby(["version", "instance", "benchmark"], sort=True):
            if len(g) != 75:
                continue
            g = g.sort_values(["suite_run", "iteration", "second"])
            full[(version, instance, bench)] = statistic_choice.choose(
                g["ns_per_op"].to_numpy(dtype=np.float64),
                (g["suite_run"] * 100 + g["iteration"]).to_numpy(),
                PR_TRIALS,
                5,
                seed=seed,
                margin=margin,
            )
        for version, instance, bench in full:
            i = versions.index(version)
            if in_sample:
                source = version
            else:
                others = [v for v in (versions[i - 1] if i else None, *versions[i + 1 :]) if v is not None]
                source = next((v for v in others if (v, instance, bench) in full), None)  # type: ignore[assignment]
            choice = full.get((source, instance, bench)) if source is not None else None
            chosen[f"{project}/{version}/{instance}/{bench}"] = (
                choice.statistic if choice is not None else statistic_choice.DEFAULT_CANDIDATE
            )
    return chosen


def rates(
    data: list[tuple[str, Sample, Sample]],
    settings: AnalysisSettings,
    slowdown: float,
    statistics: Mapping[str, str],
) -> dict[str, float]:
    items = [
        (name, base, Sample(head.values * (1 + slowdown / 100), head.unit_id, head.suite_run), False)
        for name, base, head in data
    ]
    res = compare_many(items, settings, statistics=statistics)
    verdicts = np.array([str(r.verdict) for r in res])
    return {
        "false": float(np.mean(np.isin(verdicts, [Verdict.REGRESSION, Verdict.IMPROVEMENT]))) * 100,
        "regression": float(np.mean(verdicts == Verdict.REGRESSION)) * 100,
        "inconclusive": float(np.mean(verdicts == Verdict.INCONCLUSIVE)) * 100,
    }


def table(
    title: str,
    data: list[tuple[str, Sample, Sample]],
    rows: list[tuple[str, Mapping[str, str]]],
    settings: AnalysisSettings,
) -> None:
    print(f"\n{title}: {len(data)} units\n")
    print(
        "| statistic | chosen | A/A false verdicts | A/A inconclusive | detect 3% | detect 5% | detect 10% | time |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, statistics in rows:
        t0 = time.perf_counter()
        cells = {s: rates(data, settings, s, statistics) for s in SLOWDOWNS}
        counts = Counter(statistics.get(name, settings.statistic) for name, _, _ in data)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        aa = cells[0.0]
        print(
            f"| {label} | {shown} | {aa['false']:.1f}% | {aa['inconclusive']:.1f}% | {cells[3.0]['regression']:.1f}% | "
            f"{cells[5.0]['regression']:.1f}% | {cells[10.0]['regression']:.1f}% | {time.perf_counter() - t0:.0f} s |",
            flush=True,
        )


# ---- (b) synthetic ---------------------------------------------------------------------------------
def _draw(
    rng: np.random.Generator, trials: int, kind: str, fast_share: float
) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` × 5 values of a 100 ns benchmark: a small right-skewed jitter on every value,
    plus the kind's noise — ``fast-minority``: each process runs 1.3× faster with probability
    ``fast_share``; ``right-skewed``: 10 % of the values slowed 1.5–4×."""
    m = 5
    x = 100.0 * (1 + rng.exponential(0.004, (trials, m))) * (1 + rng.normal(0, 0.002, (trials, 1)))
    if kind == "fast-minority":
        x = x / np.where(rng.random((trials, 1)) < fast_share, 1.3, 1.0)
    else:
        hit = rng.random((trials, m)) < 0.10
        x = np.where(hit, x * rng.uniform(1.5, 4.0, (trials, m)), x)
    ids = np.repeat(np.arange(trials), m)
    return x.ravel(), ids


def synthetic(
    kind: str, n: int, seed: int, fast_share: float, margin: float = statistic_choice.MARGIN
) -> tuple[list[tuple[str, Sample, Sample]], dict[str, str]]:
    rng = np.random.default_rng([seed, 7, len(kind)])
    data, chosen = [], {}
    for k in range(n):
        name = f"{kind}/{k}"
        night = _draw(rng, 15, kind, fast_share)
        choice = statistic_choice.choose(night[0], night[1], PR_TRIALS, 5, seed=seed, margin=margin)
        chosen[name] = choice.statistic if choice is not None else statistic_choice.DEFAULT_CANDIDATE
        (vb, ib), (vh, ih) = _draw(rng, 9, kind, fast_share), _draw(rng, 6, kind, fast_share)
        data.append((name, Sample(vb, ib), Sample(vh, ih + 100)))
    return data, chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--instances", default="1,2,3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", default="a,b", help="a (µOpTime Go), b (synthetic), or both")
    parser.add_argument(
        "--in-sample", action="store_true", help="(a) also the choice made on the judged data"
    )
    parser.add_argument("--synthetic-units", type=int, default=300)
    parser.add_argument("--fast-share", type=float, default=0.15)
    parser.add_argument(
        "--margins",
        default=str(statistic_choice.MARGIN),
        help="comma list: how much narrower (a fraction) another candidate's A/A spread must be to "
        "replace p10; one row each",
    )
    parser.add_argument("--no-fixed", action="store_true", help="leave out the fixed-statistic rows")
    args = parser.parse_args(argv)
    settings = AnalysisSettings(statistic="p10", resamples=args.resamples, seed=args.seed, tail_statistic="")
    parts = set(args.part.split(","))
    margins = [float(m) for m in args.margins.split(",")]
    print(
        f"99% CIs, {args.resamples} resamples, threshold 3%, auto bootstrap; "
        f"candidates {', '.join(statistic_choice.CANDIDATES)}"
    )
    if "a" in parts:
        for project in PROJECTS:
            require(args.data / project / "measurements.csv", "uoptime_go")
        instances = tuple(int(i) for i in args.instances.split(","))
        data = units(args.data, instances)
        rows: list[tuple[str, Mapping[str, str]]] = [] if args.no_fixed else [("p10 (fixed)", {})]
        for margin in margins:
            rows.append(
                (
                    f"per benchmark (margin {margin:g}), chosen on another version",
                    night_choices(args.data, instances, False, args.seed, margin),
                )
            )
            if args.in_sample:
                rows.append(
                    (
                        f"per benchmark (margin {margin:g}), chosen on the judged data",
                        night_choices(args.data, instances, True, args.seed, margin),
                    )
                )
        table("(a) µOpTime Go, split as table (a)", data, rows, settings)
    if "b" in parts:
        for kind in ("fast-minority", "right-skewed"):
            rows = []
            for margin in margins:
                data, chosen = synthetic(kind, args.synthetic_units, args.seed, args.fast_share, margin)
                rows.append((f"per benchmark (margin {margin:g}), chosen on its night", chosen))
            if not args.no_fixed:
                rows = [("p10 (fixed)", {}), ("median (fixed)", dict.fromkeys(chosen, "median")), *rows]
            table(
                f"(b) synthetic {kind} (15-trial night; PR 9 and 6 trials × 5 values)", data, rows, settings
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
