"""Is head's spread far larger than base's? The ``noisy_head`` rule (gate/analysis/entries.py,
gate/decision.py; docs/statistics.md "How the gate decides"), tested over whole trials.

The size criterion is the ratio of the two versions' RMADs (gate/stats/stability.py). The test
asks whether head's log values deviate more than base's, with the one-sided Brown–Forsythe-type
rank statistic of scale (Conover, Johnson & Johnson, Technometrics 1981: the Mann-Whitney U of
the absolute deviations, as a share of the (head, base) pairs), taken twice:

* **pooled** — deviations from each version's median: all of the spread, across and inside
  processes;
* **within trials** — deviations from each trial's own median: the spread inside a process, which
  a slowdown of the whole process (interference for its lifetime) leaves as it was.

Their reference distribution is **not** the Mann-Whitney table: that treats every value as an
independent draw, while the values of one trial share one process and, on a loaded machine, the
interference it met — a few slowed head processes made every one of their values "more spread",
and the table took that for many independent deviations (with 20–40 % of the trials slowed by
5–50 %, 6 trials of 3 values per version, it flagged 10–18 % of A/A benchmarks at a nominal 1 %:
eval/eval_noisy_head.py, docs/statistics.md). Under RMIT the trial (process) is the unit assigned to a version at
random, inside each suite run; so both statistics are recomputed over the arrangements that
reassign whole trials to the versions — inside each suite run where that leaves enough of them to
reach the level — which is Fisher's randomization test, exact whatever the process effect (Ernst,
Statistical Science 2004; the machinery of :func:`gate.stats.rank.trial_guard`). The two are
combined by the smaller of their p-values over the same arrangements (Tippett's combining function
of the nonparametric combination, Pesarin & Salmaso, "Permutation Tests for Complex Data", 2010,
§4.2), whose own randomization distribution gives the p-value: exact, and the within-trial
statistic keeps the rule sensitive when interference spreads both versions' processes. Where no
arrangement of the trials can reach the level (e.g. 4 + 4 trials: 70 arrangements, smallest p
1/70), the rule does not fire.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

# scipy (and gate.stats.rank, which imports it) only once the test is run: ~1.9 s of a process's
# start-up, which `report` and `publish` skip while no head spreads twice as much as base
# (tests/unit/test_cli.py)

FloatArray = NDArray[np.float64]

# "Far more": head's RMAD at least this many times base's (a significant but harmless difference,
# 0.1 % against 0.3 %, does not count), and the randomization test over trials at this level.
NOISIER_RATIO = 2.0
NOISIER_ALPHA = 0.01
_CELLS = 1 << 21  # arrangement × value cells computed at once (16 MiB per float array)
# Every arrangement up to this many, else this many drawn at random plus the observed one (valid
# whatever their number: Ernst 2004 §2.3). At a true p of 0.005 the Monte-Carlo p has a standard
# error of 0.001, and one test of 15 + 15 trials of 5 values costs ~0.8 s on the loaded 2-core
# machine (~4 s with rank.py's 20,000). Each arrangement sorts every value, so large samples draw
# fewer — as many as keep arrangements × values within _WORK, never fewer than MIN_ARRANGEMENTS
# (smallest p 1/1001, still well below the level): 5,000 values per version then take ~20 s
# instead of ~70 s (load ≈ 8).
ARRANGEMENTS = 5_000
MIN_ARRANGEMENTS = 1_000
_WORK = 2_000_000


class Noisier(NamedTuple):
    """What :func:`head_noisier` found. ``ratio``: head's RMAD / base's (None when base's is 0);
    ``p``: the one-sided p-value over trials (None when the test was not run: too few values, the
    ratio below :data:`NOISIER_RATIO`, or too few trials to reach the level); ``trials``: trials
    per version (``"k_base/k_head"``); ``reachable``: whether any outcome of the test could reach
    :data:`NOISIER_ALPHA` with these trials (None when the size criterion already said no)."""

    noisier: bool
    ratio: float | None
    p: float | None
    trials: str
    reachable: bool | None


def _rmad(x: FloatArray) -> float:
    med = float(np.median(x))
    return float(np.median(np.abs(x - med)) / med)


def _size_criterion(b: FloatArray, h: FloatArray) -> tuple[bool | None, float | None]:
    """(whether head's RMAD is at least :data:`NOISIER_RATIO` times base's — or base's is 0 and
    head's is not; None where the values cannot be judged: fewer than 3 a version, one not
    positive, an RMAD not finite) and the ratio (None when base's RMAD is 0 or not judged)."""
    if b.size < 3 or h.size < 3 or np.any(b <= 0) or np.any(h <= 0):
        return None, None
    rb, rh = _rmad(b), _rmad(h)
    if not (math.isfinite(rb) and math.isfinite(rh)):
        return None, None
    ratio = rh / rb if rb > 0 else None
    return rh > 0 and (ratio is None or ratio >= NOISIER_RATIO), ratio


def _units(values: FloatArray, trials: ArrayLike | None) -> NDArray[np.int64]:
    """The trial of every value as codes 0..k-1; every value its own unit without labels."""
    if trials is None:
        return np.arange(values.size, dtype=np.int64)
    t = np.asarray(trials)
    if t.shape != values.shape:
        raise ValueError(f"{t.size} trial labels for {values.size} values")
    return np.unique(t, return_inverse=True)[1].astype(np.int64).ravel()


def head_noisier(
    base: ArrayLike,
    head: ArrayLike,
    base_trials: ArrayLike | None = None,
    head_trials: ArrayLike | None = None,
    base_runs: ArrayLike | None = None,
    head_runs: ArrayLike | None = None,
) -> Noisier:
    """Whether head's values are far more spread than base's (see the module), given each value's
    trial (process) and suite run. Without trial labels every value is its own unit. Computed on
    log values (interference scales timings); fewer than 3 values per version never count."""
    b, h = np.asarray(base, dtype=np.float64).ravel(), np.asarray(head, dtype=np.float64).ravel()
    ub, uh = _units(b, base_trials), _units(h, head_trials)
    kb, kh = np.unique(ub).size, np.unique(uh).size
    trials = f"{kb}/{kh}"
    far, ratio = _size_criterion(b, h)
    if far is None:
        return Noisier(False, None, None, trials, False)
    if not far:
        return Noisier(False, ratio, None, trials, None)
    from gate.stats.rank import design_strata

    strata = None
    if base_runs is not None and head_runs is not None:
        strata = design_strata((ub, np.asarray(base_runs)), (uh, np.asarray(head_runs)), NOISIER_ALPHA)
    if strata is None and math.comb(kb + kh, kb) * NOISIER_ALPHA < 1.0:
        return Noisier(False, ratio, None, trials, False)
    split = [[np.log(x[u == i]) for i in range(int(u.max()) + 1)] for x, u in ((b, ub), (h, uh))]
    p = trial_spread_p(split[0], split[1], strata)
    return Noisier(p <= NOISIER_ALPHA, ratio, p, trials, True)


def trial_spread_p(
    base: list[FloatArray], head: list[FloatArray], strata: NDArray[np.int64] | None = None
) -> float:
    """One-sided p-value of "head's log values are more spread than base's" by reassigning whole
    trials (lists of each trial's log values) to the versions: the share of arrangements whose
    combined statistic (the module's: the smaller of the pooled and the within-trial statistic's
    p-values) is at most the observed one's. Exact when every arrangement is enumerated (up to
    :data:`ARRANGEMENTS`, fewer for large samples), else Monte Carlo with the observed arrangement
    counted in. ``strata``:
    the suite run of every trial, base's first; head's trials are then reassigned only inside each."""
    from scipy.stats import rankdata

    # the arrangement machinery of the guard over trials, shared rather than written twice
    from gate.stats.rank import arrangement_rows

    trials = [*base, *head]
    sizes = np.array([t.size for t in trials])
    flat = np.concatenate(trials)
    trial_of_value = np.repeat(np.arange(len(trials)), sizes)
    limit = min(ARRANGEMENTS, max(MIN_ARRANGEMENTS, _WORK // flat.size))
    rows = arrangement_rows(len(base), len(head), strata, limit)
    # inside a trial the deviations do not depend on the arrangement: rank them once
    within_ranks = rankdata(np.concatenate([np.abs(t - np.median(t)) for t in trials]))
    pooled, within = np.empty(rows.shape[0]), np.empty(rows.shape[0])
    step = max(1, _CELLS // flat.size)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step]
        in_head = np.zeros((block.shape[0], len(trials)), dtype=bool)
        in_head[np.arange(block.shape[0])[:, None], block] = True
        value_in_head = in_head[:, trial_of_value]
        pooled[start : start + step] = _scale_statistic(flat, value_in_head)
        nh = value_in_head.sum(axis=1).astype(np.float64)
        u = np.einsum("ij,j->i", value_in_head.astype(np.float64), within_ranks) - nh * (nh + 1) / 2
        within[start : start + step] = u / (nh * (flat.size - nh))
    combined = np.minimum(_tail_shares(pooled), _tail_shares(within))
    return float(np.mean(combined <= combined[0] + _TOL))


_TOL = 1e-12  # the statistics are shares in [0, 1]: equal up to rounding counts as a tie


def _tail_shares(stat: FloatArray) -> FloatArray:
    """For every arrangement, the share of arrangements whose statistic is at least its own (its
    p-value in the randomization distribution)."""
    ordered = np.sort(stat)
    return (stat.size - np.searchsorted(ordered, stat - _TOL, side="left")) / stat.size


def _scale_statistic(flat: FloatArray, value_in_head: NDArray[np.bool_]) -> FloatArray:
    """Per arrangement (row of ``value_in_head``): the share of (head, base) pairs of values whose
    head deviation from head's median exceeds the base deviation from base's median (ties ½)."""
    from scipy.stats import rankdata

    out = np.empty(value_in_head.shape[0])
    head_sizes = value_in_head.sum(axis=1)
    every = np.broadcast_to(flat, value_in_head.shape)
    for size in np.unique(head_sizes):  # rows whose head holds this many values: one matrix each
        sel = np.flatnonzero(head_sizes == size)
        mask = value_in_head[sel]
        hv = every[mask].reshape(sel.size, -1)
        bv = every[~mask].reshape(sel.size, -1)
        dh = np.abs(hv - np.median(hv, axis=1, keepdims=True))
        db = np.abs(bv - np.median(bv, axis=1, keepdims=True))
        # U of head's deviations among all: midranks of the pooled deviations, head's summed
        pooled = np.concatenate([dh, db], axis=1)
        ranks = rankdata(pooled, axis=1)  # midranks: every median value ties at 0
        nh, nb = dh.shape[1], db.shape[1]
        u = ranks[:, :nh].sum(axis=1) - nh * (nh + 1) / 2.0
        out[sel] = u / (nh * nb)
    return out


def value_level_noisier(base: ArrayLike, head: ArrayLike) -> bool:
    """The rule an analysis.json written before the test over trials was decided by (its samples
    carry no ``trial``): the same ratio and statistic, p from the exact Mann-Whitney table, every
    value an independent draw. Kept so that such a file keeps its decision (``publish`` re-derives
    it); eval/eval_noisy_head.py measures it against :func:`head_noisier`."""
    b, h = np.asarray(base, dtype=np.float64).ravel(), np.asarray(head, dtype=np.float64).ravel()
    if not _size_criterion(b, h)[0]:
        return False
    from scipy.stats import mannwhitneyu

    lb, lh = np.log(b), np.log(h)
    db, dh = np.abs(lb - np.median(lb)), np.abs(lh - np.median(lh))
    return bool(mannwhitneyu(dh, db, alternative="greater").pvalue < NOISIER_ALPHA)
