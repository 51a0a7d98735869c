"""The nightly chooses each benchmark's deciding statistic for the PRs (docs/calibration.md
"The deciding statistic"; the evaluation behind it: docs/statistics.md "A statistic per benchmark").

Why the nightly and not the PR: a statistic chosen from the very values it then judges is a
choice among several tests after seeing the data, and the smallest of several p-values is no
longer a p-value (the false-verdict rate rises with the number of candidates). The nightly's
full-configuration log is measured on other commits, at other times, by other processes than any
PR's trials, so for the PR's comparison the statistic is fixed before its data exist, as the suite
default is: the PR's test keeps its error rate whatever the nightly chose. What the choice can cost
is decisiveness (a statistic that was narrow at night and is wide on the PR), never false verdicts.

The criterion predicts decisiveness at the PR's configuration directly: the nightly's trials are
dealt at random into two PR-sized halves (whole trials, as RMIT gives base and head whole
processes) many times, and each candidate's relative change between the halves is computed. Both
halves are one version, so every change is noise; the candidate whose A/A change varies least
(root mean square over the splits) gives the narrowest CIs, hence the fewest inconclusive verdicts,
at the PR's size. This is the bootstrap's own question asked of the night's data, without
bootstrapping every candidate.

The candidates are few and fixed (:data:`CANDIDATES`): each additional one is another chance for
the night's noise to pick a statistic that only looked narrow. ``p10`` (the default: a floor
interference cannot move, for right-skewed noise), ``median`` (where a minority of processes or
trials is *faster* — carry-over from a warming predecessor, a host running a process at one of two
speeds — p10 sits on the boundary of the fast mode and jumps with how many fast trials a version
drew, while the median stays in the majority mode), and ``p25`` between them. ``mean`` and upper
quantiles are left out: interference moves them (docs/statistics.md "Which statistic decides").

The diagnosis is descriptive — it names the noise the choice answered (right-skewed, a fast
minority, processes that differ) so a person can check it; the spread decides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from gate.stats import bootstrap as bs
from gate.stats.order import kruskal_p

if TYPE_CHECKING:
    from gate.calibration.search import SearchResult

CANDIDATES: tuple[str, ...] = ("p10", "p25", "median")
DEFAULT_CANDIDATE = "p10"
# Another candidate replaces p10 only when its A/A spread is at most half of p10's: the spread is
# itself estimated from one night's 10–20 trials of another commit, and on the µOpTime Go data a
# smaller margin swapped p10 for a statistic that was wider on the PRs more often than not (margin
# 0.1 / 0.25 / 0.5: A/A inconclusive 8.0 / 6.7 / 5.2 % against fixed p10's 4.4 %; docs/statistics.md
# "A statistic per benchmark"). Where p10 sits on a mode boundary its spread is many times the
# median's, far beyond any margin.
MARGIN = 0.5
SPLITS = 400  # random PR-sized A/A splits of the night's trials
MIN_TRIALS = 4  # fewer trials cannot be split into two halves of two trials
# Kruskal-Wallis across the night's trials: "processes differ" (the auto bootstrap's level)
PROCESS_ALPHA = 0.001
SKEW_RATIO = 2.0  # one tail this many times longer than the other names the shape


@dataclass(frozen=True)
class StatisticChoice:
    """The statistic the PRs use for one benchmark, why, and what it was chosen from."""

    statistic: str
    diagnosis: tuple[str, ...]  # e.g. ("fast minority", "processes differ")
    spread_pct: dict[str, float]  # candidate -> RMS of the A/A relative change between halves, %
    half_trials: int  # trials per half (the PR's trials per version, at most half the night's)
    values_per_trial: int
    splits: int

    def to_json(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "diagnosis": list(self.diagnosis),
            "spread_pct": {k: round(v, 4) for k, v in self.spread_pct.items()},
            "half_trials": self.half_trials,
            "values_per_trial": self.values_per_trial,
            "splits": self.splits,
            "candidates": list(CANDIDATES),
            "chosen_by": "A/A spread between PR-sized halves of the night's trials",
        }


def trial_matrix(values: np.ndarray, trials: np.ndarray, per_trial: int | None = None) -> NDArray[np.float64]:
    """(trials × values) of the trials that have at least ``per_trial`` values (default: the most
    common count), each cut to its first ``per_trial`` values — a PR's trial with fewer
    measurements measures the first ones."""
    x = np.asarray(values, dtype=np.float64)
    ids = np.asarray(trials)
    _, codes = np.unique(ids, return_inverse=True)
    groups = [x[codes == k] for k in range(int(codes.max()) + 1)] if x.size else []
    if not groups:
        return np.empty((0, 0))
    if per_trial is None:
        sizes, counts = np.unique([g.size for g in groups], return_counts=True)
        per_trial = int(sizes[np.argmax(counts)])
    kept = [g[:per_trial] for g in groups if g.size >= per_trial]
    return np.vstack(kept) if kept else np.empty((0, per_trial))


def diagnose(matrix: NDArray[np.float64]) -> tuple[str, ...]:
    """Names of the noise in the night's values: the shape (``right-skewed`` — interference
    slows some values; ``fast minority`` — some values are much faster than most, the case where
    p10 sits on a mode boundary; ``symmetric``) and ``processes differ`` when the trials differ
    more than the values inside one vary (the auto bootstrap's test). The shapes describe the
    values as measured: for a higher-is-better benchmark interference makes the *left* tail."""
    x = matrix.ravel()
    if x.size == 0:
        return ()
    p10, p50, p90 = (float(bs.point_estimate(x, s)) for s in ("p10", "median", "p90"))
    low, high = p50 - p10, p90 - p50
    if high > SKEW_RATIO * low:
        shape = "right-skewed"
    elif low > SKEW_RATIO * high:
        shape = "fast minority"
    else:
        shape = "symmetric"
    out = [shape]
    if matrix.shape[0] >= 2 and matrix.shape[1] >= 2:
        codes = np.repeat(np.arange(matrix.shape[0]), matrix.shape[1])
        p = kruskal_p(x, codes)
        if not math.isnan(p) and p < PROCESS_ALPHA:
            out.append("processes differ")
    return tuple(out)


def aa_spread(
    matrix: NDArray[np.float64], half: int, statistic: str, splits: int, rng: np.random.Generator
) -> float:
    """RMS (in %) of the relative change of ``statistic`` between two disjoint random halves of
    ``half`` trials each, over ``splits`` splits (one shared set of splits for every candidate,
    so they are compared on the same draws when ``rng`` is seeded alike)."""
    t, m = matrix.shape
    order = np.argsort(rng.random((splits, t)), axis=1)
    a = matrix[order[:, :half]].reshape(splits, half * m)
    b = matrix[order[:, half : 2 * half]].reshape(splits, half * m)
    ea, eb = bs.point_estimates(a, statistic), bs.point_estimates(b, statistic)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = (eb - ea) / np.abs(ea)
    change = change[np.isfinite(change)]
    return float(np.sqrt(np.mean(change**2)) * 100) if change.size else float("inf")


def choose(
    values: np.ndarray,
    trials: np.ndarray,
    pr_trials: int,
    pr_values_per_trial: int | None = None,
    *,
    seed: int = 0,
    splits: int = SPLITS,
    candidates: Sequence[str] = CANDIDATES,
    margin: float = MARGIN,
) -> StatisticChoice | None:
    """The statistic for a benchmark's PRs from its night's full-configuration ``values`` (with the
    trial of each), for a PR that measures ``pr_trials`` trials of ``pr_values_per_trial`` values per
    version; ``None`` when the night has fewer than :data:`MIN_TRIALS` complete trials (the suite
    default then applies)."""
    matrix = trial_matrix(values, trials, pr_values_per_trial)
    if matrix.shape[0] < MIN_TRIALS or matrix.shape[1] == 0:
        return None
    half = max(2, min(int(pr_trials), matrix.shape[0] // 2))
    spread = {c: aa_spread(matrix, half, c, splits, np.random.default_rng([seed, 17])) for c in candidates}
    best = min(candidates, key=lambda c: (spread[c], candidates.index(c)))
    default = DEFAULT_CANDIDATE if DEFAULT_CANDIDATE in spread else candidates[0]
    if spread[best] > (1 - margin) * spread[default]:
        best = default
    return StatisticChoice(
        statistic=best,
        diagnosis=diagnose(matrix),
        spread_pct=spread,
        half_trials=half,
        values_per_trial=int(matrix.shape[1]),
        splits=splits,
    )


def choices(result: SearchResult, seed: int) -> dict[str, StatisticChoice | None]:
    """Each calibrated benchmark's choice, made on the night's full configuration for a PR that
    runs the benchmark's chosen configuration (its trials: every level but the innermost; its
    values per trial: the innermost)."""
    ds = result.dataset
    out: dict[str, StatisticChoice | None] = {}
    for name, ch in result.choices.items():
        series = ds.series[name]
        config = tuple(ch.config)
        pr_trials = int(np.prod(config[:-1])) if len(config) > 1 else 1
        out[name] = choose(
            series.values(ds.full), series.trials(ds.full), pr_trials, int(config[-1]), seed=seed
        )
    return out


def chosen(result: SearchResult, seed: int) -> dict[str, str]:
    """benchmark -> the statistic chosen for it (the benchmarks with a choice)."""
    return {name: c.statistic for name, c in choices(result, seed).items() if c is not None}


def add_to(body: dict[str, Any], result: SearchResult, seed: int) -> None:
    """Write each calibrated benchmark's ``statistic`` and ``statistic_choice`` into the body of
    calibration.json (``benchmarks``)."""
    for name, made in choices(result, seed).items():
        entry = body["benchmarks"][name]
        entry["statistic"] = None if made is None else made.statistic
        entry["statistic_choice"] = (
            {"statistic": None, "why": f"the night has fewer than {MIN_TRIALS} complete trials"}
            if made is None
            else made.to_json()
        )
