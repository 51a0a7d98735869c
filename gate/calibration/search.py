"""µOpTime search: per benchmark, the cheapest execution configuration that is still stable.

Japke et al., "µOpTime", TOSEM 2025 (../shared/papers/004_*.txt): §3.1 Algorithm 1 (search),
§3.2 (use in CI), §4.4 RQ3 (warm-up), §4.5 RQ4 (change detection with the minimal
configurations), §5 (the full configuration may itself be insufficient). The exact semantics of
the authors' optimiser are fixed in ../shared/data/README.md "uoptime_go" and matched here:

* a configuration gives every level a count from 1 to its maximum, and the outer levels'
  product (suite_runs·iterations) must be ≥ 3; it keeps the measurements whose positions are
  within every level's count;
* stable means metric < threshold (strictly); the cheapest stable configuration wins, ties go
  to the lower metric value and then to enumeration order (innermost level varying fastest);
  nothing stable → the full configuration, flagged ``never_stable``.

Where the product deliberately differs: RCIW3 uses the median's own bootstrap CI (the prototype
divides the mean's CI width by the median); bootstrap-t resamples without a standard error give
an unbounded interval (the prototype floors the deviation at 1e-6 in the data's unit); a
configuration with gaps is judged on its observed values and needs at least 3 of them.

Speed: the search walks configurations in cost order and stops at the first cost at which a
configuration is stable (Algorithm 1 evaluates all of them). Every configuration's metric
depends only on its values and a :class:`~gate.stats.stability.BootstrapPlan` drawn once from
one seeded stream, so the result is identical to the exhaustive search (``exhaustive=True``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gate.calibration.dataset import MIN_VALUES, Dataset, LevelCounts, Series
from gate.calibration.decidable import Floor
from gate.errors import ConfigError, InputError
from gate.model import warning
from gate.stats.stability import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    METRICS,
    RCIW3_UOPTIME,
    BootstrapPlan,
    FloatArray,
    metric_batch,
)
from gate.warning_codes import WarningCode

DEFAULT_THRESHOLD = 0.01  # µOpTime §3.1: t_s = 0.01
MIN_REPETITIONS = 3  # µOpTime §3.1 Algorithm 1 line 8: at least 3 repetitions (suite_runs·iterations)
DEFAULT_SEED = 1

# The product's metrics plus the prototype's RCIW3 variant (mean-CI width / median), kept only to
# measure how much that defect changed the published choices (tests/validation).
SEARCH_METRICS: tuple[str, ...] = (*METRICS, RCIW3_UOPTIME)


def enumerate_configs(full: LevelCounts) -> list[LevelCounts]:
    """Algorithm 1 line 3 (+ line 8): every level 1..max, the innermost level varying fastest;
    the outer levels' product ≥ 3 (with a single level, the level itself)."""
    out = []
    for config in itertools.product(*(range(1, m + 1) for m in full)):
        outer = math.prod(config[:-1]) if len(config) > 1 else config[0]
        if outer >= MIN_REPETITIONS:
            out.append(config)
    return out


@dataclass(frozen=True)
class Choice:
    config: LevelCounts
    instability: float
    cost: float
    stable: bool
    never_stable: bool
    n_measurements: int  # observed values in the chosen configuration
    full_instability: float
    evaluated: int  # configurations whose metric was computed
    # the cheapest stable configuration the decidable floor left out (with its metric and why),
    # when stability alone would have allowed less than the choice (gate/calibration/decidable.py)
    below_floor: tuple[LevelCounts, float, str] | None = None


@dataclass
class SearchSpace:
    """Configurations of one benchmark with their values and costs (shared by both searches)."""

    configs: list[LevelCounts]
    values: list[FloatArray]
    costs: list[float]
    # why a PR's verdict could not decide with the configuration (None: it can); the full
    # configuration is always allowed: it is what runs when nothing smaller is
    below_floor: list[str | None]

    @classmethod
    def of(cls, series: Series, full: LevelCounts, floor: Floor | None = None) -> SearchSpace:
        """Built once per benchmark and floor and reused by every metric."""
        floor = floor or Floor(MIN_VALUES)
        space = series._spaces.get((full, floor))
        if space is None:
            space = series._spaces[(full, floor)] = cls._build(series, full, floor)
        return space

    @classmethod
    def _build(cls, series: Series, full: LevelCounts, floor: Floor) -> SearchSpace:
        per = series.mean_duration if series.mean_duration is not None else 1.0
        configs, values, costs, below = [], [], [], []
        for config in enumerate_configs(full):
            v = series.values(config)
            if v.size < MIN_VALUES:
                continue
            configs.append(config)
            values.append(v)
            # cost = measurements the configuration runs × the benchmark's mean duration per
            # measurement (µOpTime: suite_runs·iterations·seconds for the Go data)
            costs.append(math.prod(config) * per)
            below.append(None if config == full else floor.shortfall(config))
        return cls(configs, values, costs, below)


def _evaluate(
    space: SearchSpace,
    which: Sequence[int],
    metric: str,
    plan: BootstrapPlan | None,
    confidence: float,
    out: dict[int, float],
) -> None:
    """Metric of the configurations ``which``, batched by sample size (rows are independent)."""
    by_n: dict[int, list[int]] = {}
    for k in which:
        by_n.setdefault(space.values[k].size, []).append(k)
    for ks in by_n.values():
        rows = np.stack([space.values[k] for k in ks])
        result = metric_batch(rows, metric, plan, confidence)
        for k, r in zip(ks, result, strict=True):
            out[k] = float(r)


def _decide(
    space: SearchSpace, metrics: Mapping[int, float], threshold: float, candidates: Iterable[int]
) -> int | None:
    stable = [k for k in candidates if metrics[k] < threshold]  # strictly below (µOpTime §3.1)
    if not stable:
        return None
    # cheapest, then lower metric, then enumeration order (Algorithm 1 lines 16-18)
    return min(stable, key=lambda k: (space.costs[k], metrics[k], k))


def _allowed(space: SearchSpace, candidates: Iterable[int]) -> list[int]:
    return [k for k in candidates if space.below_floor[k] is None]


def search(
    series: Series,
    full: LevelCounts,
    metric: str,
    threshold: float = DEFAULT_THRESHOLD,
    plan: BootstrapPlan | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    exhaustive: bool = False,
    min_values: int = MIN_VALUES,
    floor: Floor | None = None,
) -> Choice | None:
    """The minimal stable configuration of one benchmark (None: no configuration has ≥ 3 values).
    ``floor`` (gate/calibration/decidable.py; else ``min_values`` values per version): only
    configurations with which a verdict can decide are chosen, except the full configuration
    itself; the cheapest stable one below it is reported in ``below_floor``."""
    if metric not in SEARCH_METRICS:
        raise ConfigError(f"unknown metric {metric!r}", f"use one of {', '.join(METRICS)}")
    space = SearchSpace.of(series, full, floor or Floor(min_values))
    if not space.configs:
        return None
    metrics: dict[int, float] = {}
    chosen: int | None = None
    if exhaustive:
        for k in range(len(space.configs)):  # one at a time, as Algorithm 1 lines 7-14
            _evaluate(space, [k], metric, plan, confidence, metrics)
        chosen = _decide(space, metrics, threshold, _allowed(space, range(len(space.configs))))
    else:
        order = sorted(range(len(space.configs)), key=lambda k: (space.costs[k], k))
        for _, group in itertools.groupby(order, key=lambda k: space.costs[k]):
            ks = list(group)
            _evaluate(space, ks, metric, plan, confidence, metrics)
            chosen = _decide(space, metrics, threshold, _allowed(space, ks))
            if chosen is not None:
                break
    last = len(space.configs) - 1  # the largest configuration (the full one when it has values)
    if last not in metrics:
        _evaluate(space, [last], metric, plan, confidence, metrics)
    never = chosen is None
    k = last if chosen is None else chosen
    # every configuration up to the choice's cost was evaluated (cost order), so the stable one
    # µOpTime's order prefers among them is what stability alone would have picked
    upto = [j for j in metrics if never or space.costs[j] <= space.costs[k]]
    alone = _decide(space, metrics, threshold, upto)
    below = None
    if alone is not None and (reason := space.below_floor[alone]) is not None:
        below = (space.configs[alone], metrics[alone], reason)
    return Choice(
        config=space.configs[k],
        instability=metrics[k],
        cost=space.costs[k],
        stable=not never,
        never_stable=never,
        n_measurements=int(space.values[k].size),
        full_instability=metrics[last],
        evaluated=len(metrics),
        below_floor=below,
    )


def never_stable_advice(metric: str, value: float, threshold: float, levels: Sequence[str]) -> str:
    shown = "inf" if not math.isfinite(value) else f"{value:.4f}"
    return (
        f"not stable even with the full configuration ({metric} = {shown}, threshold {threshold}); "
        f"it keeps running the full configuration. µOpTime §5: the full configuration can itself be "
        f"insufficient — raise the repetitions ({', '.join(levels[:-1]) or levels[0]}), lengthen each "
        f"measurement ({levels[-1]}: longer benchtime/more work per measurement), or look at the "
        "benchmark for noise (I/O, allocation/GC, timers, shared state)"
    )


@dataclass
class SearchResult:
    """Every benchmark's choice; :meth:`to_json` is the body of calibration.json
    (gate/files/calibration_json.py) without its provenance fields."""

    dataset: Dataset
    metric: str
    threshold: float
    choices: dict[str, Choice]
    settings: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        ds = self.dataset
        benchmarks: dict[str, Any] = {}
        full_cost = 0.0
        minimal_cost = 0.0
        full_count = math.prod(ds.full)
        for name, ch in self.choices.items():
            per = ds.series[name].mean_duration if ds.cost_unit == "s" else 1.0
            full_cost += full_count * (per or 1.0)
            minimal_cost += ch.cost
            benchmarks[name] = {
                "config": dict(zip(ds.levels, ch.config, strict=True)),
                "instability": json_number(ch.instability),
                "cost": round(ch.cost, 6),
                "stable": ch.stable,
                "never_stable": ch.never_stable,
                "advice": (
                    never_stable_advice(self.metric, ch.instability, self.threshold, ds.levels)
                    if ch.never_stable
                    else None
                ),
                "n_measurements": ch.n_measurements,
                "full_instability": json_number(ch.full_instability),
            }
            if ch.below_floor is not None:
                config, instability, reason = ch.below_floor
                # stability alone would have allowed this smaller configuration: why it was not
                # taken (a PR's verdict could only be inconclusive with it)
                benchmarks[name]["below_floor"] = {
                    "config": dict(zip(ds.levels, config, strict=True)),
                    "instability": json_number(instability),
                    "reason": reason,
                }
        saved = 100.0 * (1.0 - minimal_cost / full_cost) if full_cost > 0 else 0.0
        return {
            "metric": self.metric,
            "threshold": self.threshold,
            "levels": list(ds.levels),
            "discard_warmup": self.settings["discard_warmup"],
            "full": dict(zip(ds.levels, ds.full, strict=True)),
            "settings": {
                k: self.settings[k]
                for k in ("confidence", "resamples", "seed", "search", "min_values", "floor")
                if k in self.settings
            },
            "benchmarks": benchmarks,
            "skipped": dict(ds.skipped),
            "summary": {
                "full_cost": round(full_cost, 6),
                "minimal_cost": round(minimal_cost, 6),
                "saved_pct": round(saved, 2),
                "cost_unit": ds.cost_unit,
                "n_benchmarks": len(benchmarks),
                "n_never_stable": sum(1 for c in self.choices.values() if c.never_stable),
                "n_skipped": len(ds.skipped),
                "configs_evaluated": sum(c.evaluated for c in self.choices.values()),
            },
            "warnings": list(ds.warnings),
        }


def json_number(x: float) -> float | None:
    """JSON has no inf/NaN: an unbounded metric is written as null."""
    return float(x) if math.isfinite(x) else None


@functools.lru_cache(maxsize=2)
def make_plan(full: LevelCounts, seed: int, resamples: int) -> BootstrapPlan:
    """One plan per (full configuration, seed, resamples), shared by every benchmark, metric and
    version: its per-size indices and weights are computed once (≤ resamples × Σn floats)."""
    return BootstrapPlan.from_seed(seed, max_n=math.prod(full), resamples=resamples)


def calibrate(
    dataset: Dataset,
    metric: str,
    threshold: float = DEFAULT_THRESHOLD,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    discard_warmup: Mapping[str, Any] | None = None,
    exhaustive: bool = False,
    plan: BootstrapPlan | None = None,
    min_values: int = MIN_VALUES,
    floor: Floor | None = None,
) -> SearchResult:
    """µOpTime's minimal configurations. ``floor`` leaves out the configurations with which a
    verdict cannot decide (the CLI passes :func:`gate.calibration.decidable.floor_for`: 5 values
    and 5 trials at 99 % without follow-up rounds); without it, ``min_values`` > 3 leaves out
    configurations with fewer values. The published method, reproduced by the validation tests,
    is 3 values and no floor on trials."""
    if metric not in SEARCH_METRICS:
        raise ConfigError(f"unknown metric {metric!r}", f"use --metric with one of {', '.join(METRICS)}")
    if not threshold > 0:
        raise ConfigError(f"threshold {threshold} must be positive", "use e.g. --threshold 0.01")
    if plan is None and metric not in ("cv", "rmad"):
        plan = make_plan(dataset.full, seed, resamples)
    floor = floor or Floor(min_values)
    short = floor.shortfall(dataset.full)
    if short is not None and not any(w["code"] == WarningCode.FULL_TOO_SMALL for w in dataset.warnings):
        dataset.warnings.append(
            warning(
                WarningCode.FULL_TOO_SMALL,
                f"the full configuration ({'×'.join(map(str, dataset.full))}) gives {short}: no "
                "configuration, not even the full one, lets a verdict call a change",
                "raise [full].iterations or [full].suite_runs so that suite_runs × iterations × "
                f"measurements is at least {floor.values}"
                + (f" and suite_runs × iterations at least {floor.trials}" if floor.trials > 1 else "")
                + ", then rerun the full configuration",
            )
        )
    choices: dict[str, Choice] = {}
    for name, series in dataset.series.items():
        choice = search(
            series, dataset.full, metric, threshold, plan, confidence, exhaustive, floor.values, floor
        )
        if choice is None:
            dataset.skipped[name] = (
                f"no configuration has {MIN_VALUES} or more measurements; "
                "rerun the full configuration (too many gaps)"
            )
            continue
        choices[name] = choice
    if not choices:
        # the fixes of the reasons themselves: the generic rule would not say what to change
        fixes = list(dict.fromkeys(r.split("; ", 1)[1] for r in dataset.skipped.values() if "; " in r))
        by_problem: dict[str, list[str]] = {}
        for n, r in dataset.skipped.items():
            by_problem.setdefault(r.split(";")[0], []).append(n)
        shown = [
            f"{', '.join(names[:5])}{f' and {len(names) - 5} more' if len(names) > 5 else ''}: {problem}"
            for problem, names in list(by_problem.items())[:5]
        ]
        raise InputError(
            "no benchmark could be calibrated: " + "; ".join(shown),
            " — or: ".join(fixes[:3])
            or "fix the input (µOpTime needs ≥ 3 suite_run×iteration repetitions and positive values)",
        )
    settings = {
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "search": "exhaustive" if exhaustive else "cost-ordered early stop",
        "min_values": floor.values,
        "floor": floor.to_json(),
        "discard_warmup": dict(discard_warmup or {"level": dataset.levels[-1], "count": 0}),
    }
    return SearchResult(dataset, metric, threshold, choices, settings)
