"""Compare base and head per benchmark: estimate + CI per version, relative change + CI, verdict.

Verdict rule (µOpTime §4.5: a change needs disjoint 99 % bootstrap CIs *and* at least 3 %; the
other outcomes say honestly why no change can be called):

* ``failed``       — a trial of either version failed (any non-ok row), or a version has no
                     valid value: a crashing or timing-out head must never pass silently.
* ``inconclusive`` — fewer than :data:`MIN_SAMPLES` values in a version, no interval could be
                     computed, or the evidence neither shows a change ≥ threshold nor rules it
                     out. The reason says why and how many samples per version would resolve it.
* ``regression`` / ``improvement`` — significant (independent: the two CIs are disjoint;
                     paired: the CI of the change excludes 0) **and** |change| ≥ threshold, in
                     the direction given by ``higher_is_better``, **and** the rank guards where the
                     bootstrap cannot be trusted alone (gate/stats/rank.py; docs/statistics.md):
                     the exact Mann-Whitney test below 8 values, the test *at* the threshold for a
                     low quantile below its limit (51 values for p10; gate.model.small_sample_limit),
                     and the same over trials when too few to tell whether they differ, or of one
                     value each below that limit.
* ``unchanged``    — the CI of the change lies inside ±threshold.

The resampling scheme (``bootstrap`` flat | two-level | auto, ``pairing`` independent | suite-run)
was chosen by eval/eval_verdicts.py on the µOpTime Go data and the dacite logs (docs/statistics.md
"How the gate decides"). ``auto`` chooses per benchmark (:func:`choose_bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from gate.analysis.remedies import FULL_REMEDY, calibrated_remedy, too_noisy_remedy
from gate.files.settings import BOOTSTRAPS, THRESHOLD_PCT
from gate.model import (
    MAX_VALUES,
    VERDICT_CONFIDENCE,
    Verdict,
    rank_floor,
    small_sample_limit,
)
from gate.statistic import DEFAULT_STATISTIC  # the default statistic and why: gate/statistic.py
from gate.stats import bootstrap as bs
from gate.stats.bootstrap import Statistic
from gate.stats.order import kruskal_p
from gate.stats.quantile import STATISTIC_FORMS, describe, is_statistic, parse_statistic, quantile_of
from gate.stats.rank import rank_test_agrees, shifted_rank_test_agrees, trial_guard
from gate.warning_codes import WarningCode

Bootstrap = Literal["flat", "two-level", "auto"]
Pairing = Literal["independent", "suite-run"]
# ``auto``: the level of the Kruskal-Wallis test across the trials of one version below which the
# trials count as different (docs/statistics.md "How the gate decides").
AUTO_ALPHA = 0.001
PAIRINGS: tuple[str, ...] = ("independent", "suite-run")
MIN_SAMPLES = 3
FloatArray = NDArray[np.float64]
Warning_ = dict[str, str]


@dataclass(frozen=True)
class Sample:
    """The ok values of one benchmark × version, with the trial-log structure when known."""

    values: FloatArray
    unit_id: np.ndarray | None = None  # trial (two-level outer unit) of each value
    suite_run: np.ndarray | None = None  # suite run of each value (pairing)
    n_failed: int = 0
    failures: tuple[str, ...] = ()  # short descriptions of failed trials

    @property
    def n(self) -> int:
        return int(self.values.size)


@dataclass(frozen=True)
class AnalysisSettings:
    statistic: Statistic = DEFAULT_STATISTIC
    confidence: float = VERDICT_CONFIDENCE
    threshold_pct: float = 3.0
    resamples: int = 10_000
    seed: int = 1
    bootstrap: Bootstrap = "auto"
    pairing: Pairing = "independent"
    method: Literal["percentile", "bca"] = "percentile"
    # The upper quantile compared beside the verdict, so that a change of the slowest values only
    # is named (tail.py); "" turns the check off.
    tail_statistic: str = "p90"

    def __post_init__(self) -> None:
        if not is_statistic(self.statistic):
            raise ValueError(f"statistic must be {STATISTIC_FORMS}, got {self.statistic!r}")
        object.__setattr__(self, "statistic", parse_statistic(self.statistic))
        if self.tail_statistic and not is_statistic(self.tail_statistic):
            raise ValueError(f"tail_statistic must be {STATISTIC_FORMS} or empty")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError("confidence must be in (0, 1)")
        if (problem := THRESHOLD_PCT.problem_of(self.threshold_pct)) is not None:
            raise ValueError(f"threshold_pct {self.threshold_pct!r}: {problem}")
        if self.resamples < 100:
            raise ValueError("resamples must be at least 100")
        if self.bootstrap not in BOOTSTRAPS or self.pairing not in PAIRINGS:
            raise ValueError(f"bootstrap in {BOOTSTRAPS}, pairing in {PAIRINGS}")


@dataclass(frozen=True)
class VersionResult:
    estimate: float | None
    ci: tuple[float, float] | None
    n: int
    n_failed: int


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    verdict: Verdict
    reason: str
    change_pct: float | None
    change_ci: tuple[float, float] | None
    base: VersionResult
    head: VersionResult
    significant: bool
    samples_needed: int | None = None
    warnings: list[Warning_] = field(default_factory=list)
    bootstrap: str = "flat"  # the scheme used: flat | two-level
    bootstrap_reason: str = ""  # why (``auto``, or a two-level that could not be); else empty
    statistic: str = "median"  # the statistic that decided (gate/stats/quantile.py)
    tail: dict[str, Any] | None = None  # the upper-quantile finding (gate/analysis/tail.py), if any


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _pct(x: float) -> str:
    return f"{x:+.1f}%"


def _version_result(s: Sample, est: float, lo: float, hi: float) -> VersionResult:
    ci = (float(lo), float(hi)) if math.isfinite(lo) and math.isfinite(hi) else None
    return VersionResult(_finite(est), ci, s.n, s.n_failed)


# ---------------------------------------------------------------------------------------------
# the scheme of one benchmark


def _trials_differ_p(s: Sample) -> float | None:
    """Kruskal-Wallis p-value of "the values of every trial come from one distribution" across the
    trials of one version; ``None`` when the test says nothing (no trial labels, fewer than 2
    trials, one value per trial, or every value identical)."""
    if s.unit_id is None or s.n == 0:
        return None
    _, codes = np.unique(s.unit_id, return_inverse=True)
    k = int(codes.max()) + 1
    if k < 2 or s.n <= k:
        return None
    p = kruskal_p(s.values, codes)
    return None if math.isnan(p) else p


def _by_trial(s: Sample) -> bool:
    """Whether the two-level bootstrap can resample this version's trials (at least two)."""
    return s.unit_id is not None and np.unique(s.unit_id).size >= 2


def choose_bootstrap(base: Sample, head: Sample, settings: AnalysisSettings) -> tuple[Bootstrap, str]:
    """The resampling scheme of one benchmark and why: ``(scheme, reason)``.

    ``flat`` and ``two-level`` are taken as given (reason ``""``). ``auto`` resamples by trial
    (two-level) when, in either version, the values of different trials differ more than the
    values inside one trial vary: a Kruskal-Wallis test across the trials (OrderSage §3 Algorithm 1
    applies it across groups of runs) rejects at :data:`AUTO_ALPHA`. The values of one trial share
    one process (memory layout, JIT state, its share of the CPU), so a random process effect makes
    the flat bootstrap's CI too narrow by up to √m for m values per trial (the design effect;
    Kalibera & Jones, ISMM'13, size the repetitions of each level from such variance components;
    µOpTime §2). Where the trials agree the flat bootstrap stays: µOpTime's rule (§4.5); resampling
    both levels then only widens the CI and costs detection (docs/statistics.md). Where too few
    values per trial let the test see nothing, the verdict's rank guard over trials applies.

    An explicit ``two-level`` with no trial to resample in either version (a log without trial
    labels, or one trial per version) resamples the values flat, and is recorded so, with why."""
    if settings.bootstrap == "two-level" and not (_by_trial(base) or _by_trial(head)):
        why = (
            "the log has no trial labels (no trial column, nor suite_run and iteration)"
            if base.unit_id is None and head.unit_id is None
            else "each version has a single trial"
        )
        return "flat", f"two-level was asked for, but {why}, so the values were resampled flat"
    if settings.bootstrap != "auto":
        return settings.bootstrap, ""
    ps = {role: _trials_differ_p(s) for role, s in (("base", base), ("head", head))}
    tested = {role: p for role, p in ps.items() if p is not None}
    if not tested:
        return "flat", "no trial has more than one value, so there is no process level to resample"
    differ = [role for role, p in tested.items() if p < AUTO_ALPHA]
    shown = ", ".join(f"{role} {p:.2g}" for role, p in tested.items())
    if differ:
        return "two-level", (
            f"the trials of {' and '.join(differ)} differ more than the values inside a trial vary "
            f"(Kruskal-Wallis across trials p < {AUTO_ALPHA:g}: {shown}), so trials were resampled, "
            "then the values inside them"
        )
    return (
        "flat",
        f"the trials of each version agree (Kruskal-Wallis across trials p ≥ {AUTO_ALPHA:g}: {shown})",
    )


# ---------------------------------------------------------------------------------------------
# replicates per scheme


def _replicates(
    base: Sample, head: Sample, settings: AnalysisSettings, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray, bool, list[Warning_]]:
    """Bootstrap replicates of the statistic for base and head, and whether they are paired."""
    warnings: list[Warning_] = []
    stat = settings.statistic
    b = settings.resamples
    two_level = settings.bootstrap == "two-level"
    if settings.pairing == "suite-run":
        if base.suite_run is not None and head.suite_run is not None:
            common = np.intersect1d(np.unique(base.suite_run), np.unique(head.suite_run))
            if common.size >= 2 and set(np.unique(base.suite_run)) == set(np.unique(head.suite_run)):
                draw = rng.integers(0, common.size, size=(b, common.size), dtype=np.int64)
                out = []
                for s in (base, head):
                    assert s.suite_run is not None
                    if two_level and s.unit_id is not None:
                        w = bs.three_level_weights(
                            s.n,
                            outer=s.suite_run,
                            middle=s.unit_id,
                            outer_draw=draw,
                            outer_order=common,
                            rng=rng,
                        )
                    else:
                        w = bs.hierarchical_weights(
                            s.n, outer=s.suite_run, resamples=b, rng=rng, outer_draw=draw, outer_order=common
                        )
                    out.append(bs.weighted_statistic(s.values, w, stat))
                return out[0], out[1], True, warnings
        warnings.append(
            {
                "code": WarningCode.PAIRING_UNAVAILABLE.value,
                "message": "base and head do not share at least 2 suite runs, so they were compared "
                "as independent samples",
                "action": "run base and head in the same suite runs (`ordertrap-gate run` does), or "
                "use --pairing independent",
            }
        )
    reps = []
    for s in (base, head):
        if two_level and _by_trial(s):
            assert s.unit_id is not None  # _by_trial checked it
            reps.append(
                bs.two_level_replicates(s.values, outer=s.unit_id, statistic=stat, resamples=b, rng=rng)
            )
        else:
            reps.append(bs.flat_replicates_many(s.values[None, :], stat, b, rng)[0])
    return reps[0], reps[1], False, warnings


def _bounds(
    s: Sample, reps: FloatArray, est: float, settings: AnalysisSettings, paired: bool
) -> tuple[float, float]:
    if settings.method == "bca":
        units = s.suite_run if paired else (s.unit_id if settings.bootstrap == "two-level" else None)
        return bs.bca_bounds(s.values, reps, est, settings.confidence, settings.statistic, units)
    lo, hi = bs.percentile_bounds(reps, settings.confidence)
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# verdict


def samples_needed(n_base: int, n_head: int, rel_half_base: float, rel_half_head: float, thr: float) -> int:
    """Samples per version for disjoint CIs at a change of ``thr`` (CI half-widths ∝ 1/√n)."""
    total = rel_half_base + rel_half_head
    if not math.isfinite(total) or total <= 0:
        return max(n_base, n_head, MIN_SAMPLES)
    factor = (total / (thr / 100.0)) ** 2
    return math.ceil(max(n_base, n_head) * factor)


def compare_one(
    benchmark: str,
    base: Sample,
    head: Sample,
    higher_is_better: bool,
    settings: AnalysisSettings,
    rng: np.random.Generator,
    calibrated: bool = False,
) -> Comparison:
    """Compare one benchmark (for many benchmarks, :func:`compare_many` is faster).
    ``calibrated``: it ran a calibrated minimal configuration (changes the advice only)."""
    if base.n == 0 or head.n == 0:
        return _no_data(benchmark, base, head)
    scheme, why = choose_bootstrap(base, head, settings)
    chosen = replace(settings, bootstrap=scheme) if scheme != settings.bootstrap else settings
    rb, rh, paired, warnings = _replicates(base, head, chosen, rng)
    eb = bs.point_estimate(base.values, settings.statistic)
    eh = bs.point_estimate(head.values, settings.statistic)
    lo_b, hi_b = _bounds(base, rb, eb, chosen, paired)
    lo_h, hi_h = _bounds(head, rh, eh, chosen, paired)
    change_reps = _change_reps(rb, rh)
    c = _compare_estimates(
        benchmark, base, head, higher_is_better, settings, (eb, lo_b, hi_b), (eh, lo_h, hi_h), change_reps,
        paired, warnings, calibrated,
    )  # fmt: skip
    return replace(c, bootstrap=scheme, bootstrap_reason=why, statistic=settings.statistic)


def _change_reps(rb: FloatArray, rh: FloatArray) -> FloatArray | None:
    if np.any(rb <= 0) or not np.all(np.isfinite(rb)) or not np.all(np.isfinite(rh)):
        return None
    return np.asarray((rh / rb - 1.0) * 100.0, dtype=np.float64)


def _no_data(benchmark: str, base: Sample, head: Sample) -> Comparison:
    missing = [name for name, s in (("base", base), ("head", head)) if s.n == 0]
    failed = base.n_failed + head.n_failed
    reason = f"no valid value for {' and '.join(missing)}" + (
        f" ({failed} failed trial(s): {'; '.join((base.failures + head.failures)[:3])})" if failed else ""
    )
    return Comparison(
        benchmark,
        Verdict.FAILED,
        reason + "; fix the benchmark so that it runs and prints a positive value in both versions",
        None,
        None,
        VersionResult(
            _finite(float(np.median(base.values))) if base.n else None, None, base.n, base.n_failed
        ),
        VersionResult(
            _finite(float(np.median(head.values))) if head.n else None, None, head.n, head.n_failed
        ),
        False,
    )


def _compare_estimates(
    benchmark: str,
    base: Sample,
    head: Sample,
    higher_is_better: bool,
    settings: AnalysisSettings,
    b: tuple[float, float, float],
    h: tuple[float, float, float],
    change_reps: FloatArray | None,
    paired: bool,
    warnings: list[Warning_],
    calibrated: bool = False,
) -> Comparison:
    thr = settings.threshold_pct

    def remedy(needed: int | None) -> str:
        if needed is not None and needed > MAX_VALUES:
            return too_noisy_remedy()
        return calibrated_remedy(needed) if calibrated else FULL_REMEDY

    conf_pct = f"{settings.confidence * 100:g}%"
    eb, lo_b, hi_b = b
    eh, lo_h, hi_h = h
    vb, vh = _version_result(base, eb, lo_b, hi_b), _version_result(head, eh, lo_h, hi_h)
    change = (eh / eb - 1.0) * 100.0 if eb > 0 else float("nan")
    change_pct = _finite(change)
    change_ci: tuple[float, float] | None = None
    if change_reps is not None:
        clo, chi = bs.percentile_bounds(change_reps, settings.confidence)
        if math.isfinite(float(clo)) and math.isfinite(float(chi)):
            change_ci = (float(clo), float(chi))
    if paired:
        significant = change_ci is not None and (change_ci[0] > 0 or change_ci[1] < 0)
        sig_text = f"the {conf_pct} CI of the change excludes 0 (paired by suite run)"
    else:
        significant = vb.ci is not None and vh.ci is not None and (hi_b < lo_h or hi_h < lo_b)
        sig_text = f"{conf_pct} CIs are disjoint"

    def result(verdict: Verdict, reason: str, needed: int | None = None) -> Comparison:
        return Comparison(
            benchmark, verdict, reason, change_pct, change_ci, vb, vh, significant, needed, warnings
        )

    failed = base.n_failed + head.n_failed
    if failed:
        where = ", ".join(
            f"{name}: {s.n_failed}" for name, s in (("base", base), ("head", head)) if s.n_failed
        )
        detail = "; ".join((base.failures + head.failures)[:3])
        return result(
            Verdict.FAILED,
            f"{failed} trial(s) failed ({where}{': ' + detail if detail else ''}); a failing trial "
            "is a failure, not a value — fix the benchmark or rerun",
        )
    if base.n < MIN_SAMPLES or head.n < MIN_SAMPLES:
        return result(
            Verdict.INCONCLUSIVE,
            f"only {base.n} base and {head.n} head value(s); at least {MIN_SAMPLES} per version are "
            f"needed — {remedy(MIN_SAMPLES)}",
            MIN_SAMPLES,
        )
    if vb.ci is None or vh.ci is None or change_pct is None or change_ci is None:
        return result(
            Verdict.INCONCLUSIVE,
            "no confidence interval could be computed (non-positive or non-finite values) — "
            "check the benchmark's output",
        )
    worse = change > 0 if not higher_is_better else change < 0
    if significant and abs(change) >= thr:
        q = quantile_of(settings.statistic)
        limit = small_sample_limit(settings.confidence)
        agrees, p = (True, 0.0)
        if min(base.n, head.n) < limit:  # too few values to trust the bootstrap CIs alone
            agrees, p = rank_test_agrees(base.values, head.values, settings.confidence)
        clears = change_ci[0] >= thr if change > 0 else change_ci[1] <= -thr
        q_limit = small_sample_limit(settings.confidence, q) if q is not None else 0
        if agrees and not clears and min(base.n, head.n) < q_limit and q is not None:
            # A low quantile of few values rests on the lowest one or two, and its bootstrap CI never
            # reaches below the sample's minimum: one low base value turned a real +1.4 % into +3.5 %
            # with disjoint CIs (toml, calibrate --audit; docs/statistics.md "Small samples").
            ok, p_size = shifted_rank_test_agrees(base.values, head.values, change, thr, settings.confidence)
            if not ok:
                return result(
                    Verdict.INCONCLUSIVE,
                    f"the change ({_pct(change)}) looks beyond {thr:g}% ({sig_text}), but with "
                    f"{base.n}/{head.n} values the {describe(settings.statistic)} rests on the few "
                    f"lowest values, and the exact rank test does not show a change of at least "
                    f"{thr:g}% (one-sided p = {p_size:.2g} against {thr:g}%) — about {2 * max(base.n, head.n)} "
                    f"values per version would resolve it ({q_limit} "
                    f"or more let the CIs decide alone): {remedy(2 * max(base.n, head.n))}, or rerun",
                    2 * max(base.n, head.n),
                )
        trial = (  # few trials, or single values below q's limit: the test over trials (rank.py)
            trial_guard(base.values, base.unit_id, head.values, head.unit_id,
                        partial(bs.point_estimates, statistic=settings.statistic), change, thr,
                        settings.confidence, AUTO_ALPHA, base.suite_run, head.suite_run, q_limit)
            if agrees and not paired and base.unit_id is not None and head.unit_id is not None else None
        )  # fmt: skip
        if trial is not None and not trial.agrees:
            blind = trial.kind == "blind"
            too_few = {"blind": "to tell whether they differ", "few": "for a bootstrap over trials"}.get(trial.kind, "for a quantile's bootstrap CIs (one value each)")  # fmt: skip
            why = f"its values come from only {trial.trials} trials (processes), too few {too_few}"
            shown = f"a change of at least {thr:g}%" if blind else "the change"
            return result(
                Verdict.INCONCLUSIVE,
                f"the change ({_pct(change)}) looks beyond {thr:g}% ({sig_text}), but {why}, and reassigning "
                f"whole trials to the versions does not show {shown} in the "
                f"{describe(settings.statistic)} (one-sided p = {trial.p:.2g}) — about twice the trials per version would resolve it: "
                f"{remedy(2 * max(base.n, head.n))}, or rerun", 2 * max(base.n, head.n),
            )  # fmt: skip
        if agrees:
            verdict = Verdict.REGRESSION if worse else Verdict.IMPROVEMENT
            return result(verdict, f"{sig_text} and the change ({_pct(change)}) is at least {thr:g}%")
        floor = rank_floor(settings.confidence)
        needed = max(floor, min(limit, min(base.n, head.n) + 1))
        cannot = (
            f"; with fewer than {floor} values per version it cannot" if min(base.n, head.n) < floor else ""
        )
        return result(
            Verdict.INCONCLUSIVE,
            f"the change ({_pct(change)}) looks real ({sig_text}) but {base.n}/{head.n} values are too "
            f"few to trust bootstrap CIs, and the exact rank test does not confirm it at {conf_pct} "
            f"(p = {p:.2g}{cannot}) — {needed} or more values per version would resolve it "
            f"({limit} or more let the CIs decide alone): {remedy(needed)}, or rerun",
            needed,
        )
    if -thr < change_ci[0] and change_ci[1] < thr:
        if significant:
            why = f"the change ({_pct(change)}) is real but its {conf_pct} CI [{change_ci[0]:+.1f}%, {change_ci[1]:+.1f}%] lies within ±{thr:g}%"
        else:
            why = f"the {conf_pct} CI of the change [{change_ci[0]:+.1f}%, {change_ci[1]:+.1f}%] lies within ±{thr:g}%"
        return result(Verdict.UNCHANGED, why)
    rel_b = (hi_b - lo_b) / 2 / eb if eb > 0 else math.inf
    rel_h = (hi_h - lo_h) / 2 / eh if eh > 0 else math.inf
    needed = samples_needed(base.n, head.n, rel_b, rel_h, thr)
    if needed <= max(base.n, head.n):
        # Noise already allows a 3% change to be seen; the change sits near the threshold, so
        # the change CI must shrink to within the gap |thr - |change|| (floored at thr/10).
        half = (change_ci[1] - change_ci[0]) / 2
        gap = max(abs(thr - abs(change)), thr / 10)
        needed = max(max(base.n, head.n) + 1, math.ceil(max(base.n, head.n) * (half / gap) ** 2))
    if significant:
        why = (
            f"the change ({_pct(change)}) is significant but below {thr:g}%, and its {conf_pct} CI "
            f"[{change_ci[0]:+.1f}%, {change_ci[1]:+.1f}%] does not rule out {thr:g}%"
        )
    elif abs(change) >= thr:
        why = f"the change ({_pct(change)}) is beyond ±{thr:g}% but the {conf_pct} CIs overlap"
    else:
        why = (
            f"the {conf_pct} CI of the change [{change_ci[0]:+.1f}%, {change_ci[1]:+.1f}%] is too wide "
            f"to rule out a {thr:g}% change"
        )
    return result(
        Verdict.INCONCLUSIVE,
        f"{why}; about {needed} values per version (now {base.n}/{head.n}) would resolve a {thr:g}% "
        f"change at this noise — {remedy(needed)}",
        needed,
    )


# ---------------------------------------------------------------------------------------------
# many benchmarks


def compare_many(
    items: Sequence[tuple[str, Sample, Sample, bool]],
    settings: AnalysisSettings,
    calibrated: Collection[str] = (),
    thresholds: Mapping[str, float] | None = None,
    statistics: Mapping[str, str] | None = None,
) -> list[Comparison]:
    """Compare every (benchmark, base, head, higher_is_better) item.

    Flat + independent comparisons of benchmarks with the same sample sizes run as one
    vectorised batch (shared resample indices); other schemes run per benchmark. The random
    stream is derived from ``settings.seed`` and the benchmark's position, so a result does not
    depend on which other benchmarks were compared. ``calibrated``: the benchmarks that ran a
    calibrated minimal configuration (their advice names recalibration, not [full]).
    ``thresholds``: a benchmark's own ``threshold_pct`` (its [[benchmark]] entry), used instead of
    ``settings.threshold_pct`` for it. ``statistics``: a benchmark's own statistic (its
    [[benchmark]] ``statistic``), used instead of ``settings.statistic`` for it.

    With ``settings.tail_statistic`` set, every benchmark is compared a second time by that upper
    quantile (gate/analysis/tail.py) and a change found there but not by the deciding statistic is
    attached as ``Comparison.tail``.
    """
    main = _compare_all(items, settings, calibrated, thresholds or {}, statistics or {})
    if not settings.tail_statistic:
        return main
    from gate.analysis.tail import attach_tail_findings  # the check compares with this module

    return attach_tail_findings(items, main, settings, calibrated, thresholds or {}, statistics or {})


def _compare_all(
    items: Sequence[tuple[str, Sample, Sample, bool]],
    settings: AnalysisSettings,
    calibrated: Collection[str],
    thresholds: Mapping[str, float],
    statistics: Mapping[str, str],
) -> list[Comparison]:
    def own(name: str) -> AnalysisSettings:
        t = thresholds.get(name, settings.threshold_pct)
        st = statistics.get(name, settings.statistic)
        if t == settings.threshold_pct and st == settings.statistic:
            return settings
        return replace(settings, threshold_pct=t, statistic=st)

    results: list[Comparison | None] = [None] * len(items)
    batch: dict[tuple[int, int, str], list[int]] = {}
    flat_reason: dict[int, str] = {}
    for i, (name, base, head, hib) in enumerate(items):
        if base.n == 0 or head.n == 0:
            results[i] = replace(_no_data(name, base, head), statistic=own(name).statistic)
            continue
        scheme, flat_reason[i] = choose_bootstrap(base, head, settings)
        structured = settings.pairing == "suite-run" or (
            scheme == "two-level" and (base.unit_id is not None or head.unit_id is not None)
        )
        if structured or settings.method == "bca":
            rng = np.random.default_rng([settings.seed, i])
            results[i] = compare_one(name, base, head, hib, own(name), rng, name in calibrated)
        else:
            batch.setdefault((base.n, head.n, own(name).statistic), []).append(i)
    for (nb, nh, stat), members in batch.items():
        rng = np.random.default_rng([settings.seed, 1_000_003, nb, nh])
        step = max(1, bs._CHUNK_ELEMENTS // (settings.resamples * 4))
        for start in range(0, len(members), step):
            rows = members[start : start + step]
            xb = np.vstack([items[i][1].values for i in rows])
            xh = np.vstack([items[i][2].values for i in rows])
            rb = bs.flat_replicates_many(xb, stat, settings.resamples, rng)
            rh = bs.flat_replicates_many(xh, stat, settings.resamples, rng)
            lo_b, hi_b = bs.percentile_bounds(rb, settings.confidence)
            lo_h, hi_h = bs.percentile_bounds(rh, settings.confidence)
            eb, eh = bs.point_estimates(xb, stat), bs.point_estimates(xh, stat)
            for j, i in enumerate(rows):
                name, base, head, hib = items[i]
                c = _compare_estimates(
                    name, base, head, hib, own(name), (float(eb[j]), float(lo_b[j]), float(hi_b[j])),
                    (float(eh[j]), float(lo_h[j]), float(hi_h[j])), _change_reps(rb[j], rh[j]), False, [],
                    name in calibrated,
                )  # fmt: skip
                results[i] = replace(c, bootstrap="flat", bootstrap_reason=flat_reason[i], statistic=stat)
    return [r for r in results if r is not None]
