"""The exact Mann-Whitney rank test of two small samples, the guards of a verdict made on few
values (:func:`rank_test_agrees`, :func:`shifted_rank_test_agrees`) or few trials
(:func:`trial_guard`; gate/analysis/compare.py)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

from gate.model import trial_level
from gate.stats.order import kruskal_smallest_p

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

EXACT_PERMUTATIONS = 20_000  # with ties, the exact permutation test up to this many arrangements
# Below this many trials in a version a bootstrap over trials is a few-cluster bootstrap, which
# over-rejects (Cameron, Gelbach & Miller, Rev. Econ. Stat. 2008), and a flat one rests on a test
# across trials of little power: a verdict must also pass the randomization test over trials
# (:func:`trial_guard`; docs/statistics.md "Few trials": 4–8 trials of 5 values gave up to 8 %
# false verdicts without it, 12 trials of 5 values 0.5 % of 5,000).
FEW_TRIALS = 10


class TrialGuard(NamedTuple):
    """What :func:`trial_guard` found: whether the change survives, its p-value, the trials per
    version (``"k_base/k_head"``) and which test applied (``"blind"``, ``"few"`` or ``"single"``)."""

    agrees: bool
    p: float
    trials: str
    kind: Literal["blind", "few", "single"]


def rank_test_p(
    base: FloatArray, head: FloatArray, alternative: Literal["two-sided", "less", "greater"] = "two-sided"
) -> float:
    """Mann-Whitney U p-value (two-sided, or one-sided: ``"greater"`` = head above base), exact
    for the small samples the guard sees: the exact null distribution without ties, the full
    permutation distribution with ties (quantised timings: scipy's "auto" would switch to the
    normal approximation, which is liberal there)."""
    with np.errstate(all="ignore"):
        if np.unique(np.concatenate([base, head])).size == base.size + head.size:
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method="exact").pvalue)
        elif (count := math.comb(base.size + head.size, base.size)) <= EXACT_PERMUTATIONS:
            method = sps.PermutationMethod(n_resamples=count)  # ≤ count: every arrangement, exact
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method=method).pvalue)
        else:
            p = float(sps.mannwhitneyu(head, base, alternative=alternative, method="asymptotic").pvalue)
    return p if math.isfinite(p) else 1.0


def rank_test_agrees(b: FloatArray, h: FloatArray, confidence: float) -> tuple[bool, float]:
    """Whether the distribution-free rank test also calls the samples different at the verdict's
    level. The bootstrap CIs stay the rule (µOpTime §4.5; gate/analysis/compare.py); this guard only removes their
    small-sample failure — it costs one test per candidate change, not per benchmark."""
    if b.max() < h.min() or h.max() < b.min():
        # complete separation: U = 0, exact two-sided p = 2 / C(n_b + n_h, n_b) — no scipy call
        # (~0.5 ms each) for the usual shape of a real change
        p = min(1.0, 2.0 / math.comb(b.size + h.size, b.size))
    else:
        p = rank_test_p(b, h)
    return p <= 1.0 - confidence, p


def shifted_rank_test_agrees(
    base: FloatArray, h: FloatArray, change_pct: float, threshold_pct: float, confidence: float
) -> tuple[bool, float]:
    """Whether the exact rank test shows a change of at least the threshold in the direction of
    ``change_pct``: the one-sided Mann-Whitney test of head against base scaled by
    ``1 ± threshold_pct/100`` (H0: head is no more than the threshold away from base under a
    multiplicative shift; the test inverted for a Hodges–Lehmann shift CI, Hollander & Wolfe,
    "Nonparametric Statistical Methods", §4.3), at 1 − confidence. One-sided at the verdict's
    level because it only asks the size of a change whose direction the bootstrap CIs and the
    rank test have already established, and it is a guard added to that rule: it can only turn a
    regression or improvement into ``inconclusive``. Used for a low quantile below its
    small-sample limit, where the point change is carried by the few lowest values and can
    overshoot the true change."""
    up = change_pct > 0
    scaled = base * (1.0 + (threshold_pct if up else -threshold_pct) / 100.0)
    if (up and scaled.max() < h.min()) or (not up and h.max() < scaled.min()):
        p = 1.0 / math.comb(scaled.size + h.size, scaled.size)  # complete separation, exact
    else:
        p = rank_test_p(scaled, h, "greater" if up else "less")
    return p <= 1.0 - confidence, p


def process_level_unseen(trial_sizes: np.ndarray, alpha: float) -> bool:
    """Whether a Kruskal-Wallis test across trials of these sizes cannot reject at ``alpha``
    whatever the values (its smallest p-value, :func:`gate.stats.order.kruskal_smallest_p`, is
    above it: at 0.001, every design of fewer than 10 trials of 3 values). Such a log cannot show
    that its trials agree."""
    return trial_sizes.size >= 2 and kruskal_smallest_p(trial_sizes) >= alpha


def arrangements(total: int, chosen: int, limit: int) -> IntArray:
    """Which ``chosen`` of ``total`` trials form "head", one row per arrangement: all of them when
    there are at most ``limit`` (the first row is the observed one), else the observed one and
    ``limit`` drawn at random with a fixed seed (a Monte-Carlo randomization test stays valid when
    the observed arrangement is counted in: Ernst, Statistical Science 2004, §2.3)."""
    count = math.comb(total, chosen)
    observed = np.arange(total - chosen, total)[None, :]
    if count <= limit:
        rows = np.array(list(itertools.combinations(range(total), chosen)), dtype=np.int64)
        return np.vstack([observed, rows[(rows != observed).any(axis=1)]])
    rng = np.random.default_rng(0)  # deterministic: the same log gives the same verdict
    drawn = np.argsort(rng.random((limit, total)), axis=1)[:, :chosen]
    return np.vstack([observed, np.sort(drawn, axis=1)])


def stratified_arrangements(strata: IntArray, k_base: int, limit: int) -> IntArray:
    """Like :func:`arrangements`, but head's trials (those after base's ``k_base``) are reassigned
    only inside each stratum (suite run), keeping its count of head trials: the randomization of
    RMIT, which orders both versions' trials at random inside every suite run. The observed
    arrangement is the first row."""
    in_head = np.arange(strata.size) >= k_base
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    chosen = [int(in_head[g].sum()) for g in groups]
    observed = np.flatnonzero(in_head)[None, :]
    count = stratified_count(strata, k_base)
    if count <= limit:
        per = [list(itertools.combinations(g.tolist(), c)) for g, c in zip(groups, chosen, strict=True)]
        rows = np.array(
            [sorted(itertools.chain.from_iterable(parts)) for parts in itertools.product(*per)],
            dtype=np.int64,
        ).reshape(count, -1)
        return np.vstack([observed, rows[(rows != observed).any(axis=1)]])
    rng = np.random.default_rng(0)  # deterministic: the same log gives the same verdict
    parts = [
        g[np.argsort(rng.random((limit, g.size)), axis=1)[:, :c]] for g, c in zip(groups, chosen, strict=True)
    ]
    return np.vstack([observed, np.sort(np.hstack(parts), axis=1)])


def trial_permutation_p(
    base: list[FloatArray],
    head: list[FloatArray],
    estimates: Callable[[FloatArray], FloatArray],
    up: bool,
    strata: IntArray | None = None,
    tie_break: bool = False,
) -> float:
    """One-sided p-value of the randomization test that reassigns whole trials (lists of each
    trial's values) to the versions: the share of arrangements whose change of the statistic
    (``estimates``: the statistic of every row of a 2-D array) is at least the observed one (at
    most, for ``up=False``). Exact when all arrangements are enumerated. ``strata``: the stratum
    (suite run) of every trial, base's first; head's trials are then reassigned only inside each.
    ``tie_break``: arrangements whose change equals the observed one count as extreme only if the
    change of the mean log value is at least as extreme too (a lexicographic statistic, still exact:
    any function of the arrangement is; a low quantile ignores the slow trials, so without it every
    reshuffle of a slow suite run ties with the observed arrangement)."""
    trials = [*base, *head]
    sizes = np.array([t.size for t in trials])
    flat = np.concatenate(trials)
    trial_of_value = np.repeat(np.arange(len(trials)), sizes)
    rows = arrangement_rows(len(base), len(head), strata, EXACT_PERMUTATIONS)
    in_head = np.zeros((rows.shape[0], len(trials)), dtype=bool)
    in_head[np.arange(rows.shape[0])[:, None], rows] = True
    value_in_head = in_head[:, trial_of_value]  # (arrangements, values)
    head_sizes = value_in_head.sum(axis=1)
    change = np.empty(rows.shape[0])
    second = np.zeros(rows.shape[0])
    logs = np.log(flat)
    for size in np.unique(head_sizes):  # rows whose head holds this many values: one matrix each
        sel = np.flatnonzero(head_sizes == size)
        mask = value_in_head[sel]
        every = np.broadcast_to(flat, mask.shape)
        est_head = estimates(every[mask].reshape(sel.size, -1))
        est_base = estimates(every[~mask].reshape(sel.size, -1))
        change[sel] = np.log(est_head) - np.log(est_base)
        if tie_break:
            every_log = np.broadcast_to(logs, mask.shape)
            second[sel] = every_log[mask].reshape(sel.size, -1).mean(axis=1) - every_log[~mask].reshape(
                sel.size, -1
            ).mean(axis=1)
    tol = 1e-12 * max(1.0, abs(float(change[0])))
    sign = 1.0 if up else -1.0
    beyond = sign * (change - change[0]) > tol
    tied = np.abs(change - change[0]) <= tol
    if tie_break:
        tied &= sign * (second - second[0]) >= -1e-12 * max(1.0, abs(float(second[0])))
    return float(np.mean(beyond | tied))


def trial_guard(
    base: FloatArray,
    base_trials: np.ndarray,
    head: FloatArray,
    head_trials: np.ndarray,
    estimates: Callable[[FloatArray], FloatArray],
    change_pct: float,
    threshold_pct: float,
    confidence: float,
    alpha_trials_differ: float,
    base_runs: np.ndarray | None = None,
    head_runs: np.ndarray | None = None,
    single_below: int = 0,
) -> TrialGuard | None:
    """The guard of a verdict at the level of trials, or ``None`` where it does not apply (fewer
    than 2 trials in a version, one value per trial in versions of at least ``single_below``
    trials, or at least :data:`FEW_TRIALS` trials per version of enough values that the test
    across trials at ``alpha_trials_differ`` — ``auto``'s — can see whether they differ).

    Under RMIT a trial (process) is the unit assigned to a version at random; the values inside
    one trial share its process and, on a loaded machine, the interference it met, so they are not
    independent draws, and a bootstrap over values takes a few slowed processes for many slowed
    values. The cluster bootstrap over the trials is no cure when they are few: it over-rejects
    (Cameron, Gelbach & Miller, Rev. Econ. Stat. 2008). So a change must also survive the
    randomization test of the design: reassign whole trials to the versions in every possible way
    and recompute the change of the deciding statistic (Fisher's randomization test, exact whatever
    the process effect; Ernst, "Permutation methods: a basis for exact inference", Statistical
    Science 2004; at the level of the randomised unit, as in a cluster-randomised trial, Donner &
    Klar 2000, ch. 5). Because it uses the statistic itself, trials slowed by interference weigh
    as little as they do in the estimate. Two strengths:

    * ``blind`` — the log cannot even show whether its trials agree (:func:`process_level_unseen`),
      so the bootstrap was flat and blind to the process level, and the test carries the verdict:
      base is first scaled by 1 ± threshold, so it asks for a change of at least the threshold (the
      inversion used for :func:`shifted_rank_test_agrees`), at (1 − confidence)/2 in the direction
      of the change (no two-sided test has fixed the direction before it), over all arrangements.
      Its smallest p-value is 1 / C(k_b + k_h, k_b): 4 trials per version can never show a change
      at 99 % (1/70 > 0.005), 5 can (1/252).
    * ``few`` — fewer than :data:`FEW_TRIALS` trials in a version, whose differences the test
      across trials can see: the bootstrap resampled them (two-level) or found them alike (flat),
      and the test only confirms the direction (base unscaled), at the same (1 − confidence)/2,
      with ties of the statistic broken by the mean log value (:func:`trial_permutation_p`). The
      trials are reassigned inside each suite run (``base_runs`` / ``head_runs``: RMIT orders both
      versions at random inside every suite run, so that is the design's randomization, and a
      suite run's shared state no longer counts against the change) when that leaves enough
      arrangements to reach the level, else over all trials (also when a trial spans suite runs or
      a suite run lacks a version). 4 + 4 trials can never show a change at 99 % (1/70 > 0.005).
    * ``single`` — every trial holds one value and a version has fewer than ``single_below``
      trials (the caller passes a low quantile's small-sample limit,
      :func:`gate.model.small_sample_limit`: 51 for the 10th percentile at 99 %): the flat
      bootstrap is then the bootstrap over trials, but it never reaches below the lowest values a
      low quantile rests on, so its CIs are too narrow (docs/statistics.md "Few trials": re-dealt
      A/A of live 15 + 15 logs, 1.4 % false verdicts). The same test as ``few``."""
    sizes = [np.unique(t, return_counts=True)[1] for t in (base_trials, head_trials)]
    if min(s.size for s in sizes) < 2:
        return None
    single = all(s.size == s.sum() for s in sizes)
    if single and min(s.size for s in sizes) >= single_below:
        return None
    blind = not single and any(process_level_unseen(s, alpha_trials_differ) for s in sizes)
    if not blind and not single and min(s.size for s in sizes) >= FEW_TRIALS:
        return None
    up = change_pct > 0
    shift = (threshold_pct if up else -threshold_pct) if blind else 0.0
    scaled = base * (1.0 + shift / 100.0)
    split = [
        [x[np.asarray(t) == u] for u in np.unique(t)] for x, t in ((scaled, base_trials), (head, head_trials))
    ]
    level = trial_level(confidence)
    strata = None
    if not blind and base_runs is not None and head_runs is not None:
        strata = design_strata((base_trials, base_runs), (head_trials, head_runs), level)
    p = trial_permutation_p(split[0], split[1], estimates, up, strata, tie_break=not blind)
    kind: Literal["blind", "few", "single"] = "blind" if blind else ("single" if single else "few")
    return TrialGuard(p <= level, p, f"{sizes[0].size}/{sizes[1].size}", kind)


def arrangement_rows(k_base: int, k_head: int, strata: IntArray | None, limit: int) -> IntArray:
    """The arrangements of a test over trials (base's ``k_base`` trials first, then head's), the
    observed one first: over all trials, or inside each stratum (suite run) of ``strata``."""
    if strata is None:
        return arrangements(k_base + k_head, k_head, limit)
    return stratified_arrangements(np.asarray(strata), k_base, limit)


def design_strata(
    base: tuple[np.ndarray, np.ndarray], head: tuple[np.ndarray, np.ndarray], level: float
) -> IntArray | None:
    """The suite run of every trial (:func:`trial_strata`; ``(trial labels, suite runs)`` per
    version) when reassigning trials only inside suite runs — RMIT's own randomization — leaves
    enough arrangements to reach ``level`` (smallest p: 1 / their count), else ``None``: the test
    then reassigns over all trials."""
    strata = trial_strata(base, head)
    if strata is None or stratified_count(strata, np.unique(np.asarray(base[0])).size) * level < 1.0:
        return None
    return strata


def stratified_count(strata: IntArray, k_base: int) -> int:
    """How many arrangements keep every stratum's count of head trials (base's trials first)."""
    return math.prod(
        math.comb(int(np.sum(strata == g)), int(np.sum(strata[k_base:] == g))) for g in np.unique(strata)
    )


def trial_strata(*versions: tuple[np.ndarray, np.ndarray]) -> IntArray | None:
    """The suite run of every trial (base's trials, then head's, each in sorted trial order), or
    ``None`` when a trial spans suite runs or a suite run lacks a version (no stratified test)."""
    runs = []
    for trials, suite_runs in versions:
        t, r = np.asarray(trials), np.asarray(suite_runs)
        for u in np.unique(t):
            own = np.unique(r[t == u])
            if own.size != 1:
                return None
            runs.append(own[0])
    strata = np.asarray(runs)
    k_base = np.unique(np.asarray(versions[0][0])).size
    if set(np.unique(strata[:k_base]).tolist()) != set(np.unique(strata[k_base:]).tolist()):
        return None
    return np.unique(strata, return_inverse=True)[1].astype(np.int64)
