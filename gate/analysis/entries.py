"""One benchmark's entry of analysis.json (docs/contracts.md, ``benchmarks[]``): its comparison,
its own threshold, the stability of each version's values and the warnings about it (noise,
noisy head, identical values, order effect, carry-over, similarity), and the reason of a
benchmark its run gave up on. :func:`gate.analysis.pipeline.build_analysis` builds the document."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from gate.analysis.compare import AnalysisSettings, Comparison, Sample, VersionResult
from gate.analysis.load import TrialLogs
from gate.files.run_meta import GiveUpRecord, RunMeta
from gate.model import Verdict, warning
from gate.stats import spread, stability
from gate.warning_codes import WarningCode

# A benchmark this unstable gets a warning even when its verdict is clear (µOpTime §3: "stable"
# means CV < 1 %; 10× that is noise the user should look at). The spread is judged by the RMAD,
# not the CV: one outlier in 15 values can lift the CV above 10 % while the median and its CI do
# not move (the CV's breakdown point is 0, the MAD's 50 %: Rousseeuw & Croux, JASA 1993), and the
# verdict is made on the median. The limit is the RMAD of a normal sample whose CV is 10 %
# (MAD = 0.6745 σ; the RMAD here has no 1.4826 factor, see gate.stats.stability).
UNSTABLE_CV = 0.10
UNSTABLE_RMAD = 0.6745 * UNSTABLE_CV


def _stability(values: np.ndarray, estimate: float | None, ci: tuple[float, float] | None) -> dict[str, Any]:
    if values.size == 0:
        return {"cv": None, "rmad": None, "rciw": None}
    cv, rmad = stability.cv(values), stability.rmad(values)
    rciw = (ci[1] - ci[0]) / estimate if ci and estimate else None
    return {
        "cv": float(cv) if math.isfinite(cv) else None,
        "rmad": float(rmad) if math.isfinite(rmad) else None,
        "rciw": float(rciw) if rciw is not None and math.isfinite(rciw) else None,
    }


# What to do about a noisy benchmark. How to get more values is left to the one next step the
# reports give (gate/render/advice.py): [full].iterations does nothing for a benchmark that ran a
# calibrated minimal configuration, and more values do not resolve one that needs more than a run
# may collect, so naming one way here contradicted that step.
QUIET_THE_RUNNER = (
    "quiet the runner (`ordertrap-gate run` warns about governor, turbo and load) and look for work "
    "that varies from run to run in the benchmark (I/O, allocation, GC, network)"
)
NOISE_ACTION = f"{QUIET_THE_RUNNER}; more values narrow the CI but not the spread"
# A benchmark whose values depend on when it ran (an order effect, a drift with its position):
# that dependence is part of its spread, and more values keep it.
BIASED_NOISE_ACTION = (
    "part of this spread comes from when it ran (its order-effect or position-drift warning), which "
    "more values keep: follow that warning first, then quiet the runner (`ordertrap-gate run` warns "
    "about governor, turbo and load)"
)


def _noise_warning(
    name: str, stability: dict[str, dict[str, Any]], biased: bool = False
) -> dict[str, str] | None:
    """One warning per benchmark whose typical spread (RMAD) exceeds :data:`UNSTABLE_RMAD` in a
    version; outliers alone (a high CV with a small RMAD) do not count. ``biased``: an order
    effect or a position drift is named for the benchmark (its action then starts there)."""
    high = {
        role: st["rmad"]
        for role, st in stability.items()
        if st["rmad"] is not None and abs(st["rmad"]) > UNSTABLE_RMAD
    }
    if not high:
        return None
    # one decimal, or as many as it takes for every value to read above the threshold
    # (6.75 % against 6.745 % would both read "6.7%")
    digits = next(
        (
            d
            for d in (1, 2, 3, 4)
            if all(f"{abs(r) * 100:.{d}f}" != f"{UNSTABLE_RMAD * 100:.{d}f}" for r in high.values())
        ),
        4,
    )
    where = " and ".join(f"{abs(r) * 100:.{digits}f}% in {role}" for role, r in high.items())
    return warning(
        WarningCode.UNSTABLE,
        f"{name} is noisy: its values typically lie {where} from their median (RMAD), above "
        f"{UNSTABLE_RMAD * 100:.{digits}f}% (what a 10% CV is without outliers)",
        BIASED_NOISE_ACTION if biased else NOISE_ACTION,
    )


def _config(meta: RunMeta | None, benchmark: str) -> dict[str, Any] | None:
    config = meta.benchmark_configs.get(benchmark) if meta is not None else None
    return config.to_json() if config is not None else None


def own_thresholds(meta: RunMeta | None) -> Mapping[str, float]:
    """Per-benchmark ``threshold_pct`` from meta.json ``thresholds`` (run writes what the
    [[benchmark]] entries set; the reader keeps only positive finite numbers)."""
    return meta.thresholds if meta is not None else {}


def given_up_reasons(
    comparisons: list[Comparison], metas: Sequence[RunMeta], base: str, head: str
) -> list[Comparison]:
    """A failed benchmark whose run gave up on it (meta.json ``given_up``, gate/engine/give_up.py)
    says so first in its reason: how many trials failed, why, and how many were not run. When
    the given-up versions hold all its failed trials, that is the whole story and replaces the
    generic reason (which would repeat the same failure); otherwise the generic reason follows."""
    records: dict[str, list[GiveUpRecord]] = {}
    for m in metas:
        for g in m.given_up:
            if g.version in (base, head):
                records.setdefault(g.benchmark, []).append(g)
    if not records:
        return comparisons
    out = []
    for c in comparisons:
        mine = records.get(c.benchmark)
        if mine and c.verdict is Verdict.FAILED:
            versions = " and ".join(g.version for g in mine)
            each = " each" if len(mine) > 1 else ""
            why = "; ".join(dict.fromkeys(f"{g.status}: {g.reason.strip()}" for g in mine))
            said = (
                f"given up in {versions} after {max(g.failed for g in mine)} failed trial(s){each}, "
                f"{sum(g.not_run for g in mine)} trial(s) not run (fix the benchmark, or set [suite] "
                f"give_up_after = 0 to run them all): {why}"
            )
            failing = {v for v, r in ((base, c.base), (head, c.head)) if r.n_failed}
            if failing <= {g.version for g in mine}:
                c = replace(c, reason=said)
            else:
                c = replace(c, reason=f"{said}; {c.reason}")
        out.append(c)
    return out


def benchmark_entry(
    c: Comparison,
    meta_rows: dict[str, tuple[str, bool]],
    samples: dict[str, tuple[Sample, Sample, np.ndarray, np.ndarray]],
    logs: TrialLogs,
    order_map: dict[str, dict[str, Any]],
    carry: Any,
    simil: Any,
    settings: AnalysisSettings,
) -> dict[str, Any]:
    name = c.benchmark
    unit, hib = meta_rows[name]
    sb, sh, seq_b, seq_h = samples[name]
    warnings = list(c.warnings)
    entry: dict[str, Any] = {"benchmark": name, "unit": unit, "higher_is_better": hib}
    entry.update(comparison_dict(c))
    own = own_thresholds(logs.meta).get(name)
    if own is not None:
        entry["threshold_pct"] = own  # its [[benchmark]] threshold_pct, instead of the suite's
    entry["samples_needed"] = c.samples_needed
    entry["stability"] = {
        "base": _stability(sb.values, c.base.estimate, c.base.ci),
        "head": _stability(sh.values, c.head.estimate, c.head.ci),
    }
    order = order_map.get(name)
    extra_warnings = [
        w for extra in (carry, simil) if extra is not None for w in extra.warnings.get(name, [])
    ]
    biased = bool(order and order.get("significant")) or any(
        w["code"] == WarningCode.POSITION_DRIFT.value for w in extra_warnings
    )
    noisy = _noise_warning(name, entry["stability"], biased)
    if noisy is not None:
        warnings.append(noisy)
    if c.verdict is Verdict.INCONCLUSIVE:
        found = spread.head_noisier(sb.values, sh.values, sb.unit_id, sh.unit_id, sb.suite_run, sh.suite_run)
        if found.noisier:
            times = "" if found.ratio is None else f"{found.ratio:.1f}× "
            warnings.append(
                warning(
                    WarningCode.NOISY_HEAD,
                    f"{name}: head's values are {times}as spread as base's (RMAD "
                    f"{entry['stability']['head']['rmad'] * 100:.2g}% vs "
                    f"{entry['stability']['base']['rmad'] * 100:.2g}%), more than reassigning whole trials "
                    f"({found.trials} per version) to the versions gives (one-sided p = {found.p:.2g}), "
                    "so it is not just which processes met interference, and a regression could hide "
                    "in the noise: this fails the gate like a regression",
                    "find what in this change makes the benchmark vary (a new random input, I/O, a "
                    "thread pool); if the noise is intended, a maintainer adds the accept label",
                )
            )
    for role, s in (("base", sb), ("head", sh)):
        if s.n > 0 and np.ptp(s.values) == 0 and s.n >= 3:
            warnings.append(
                warning(
                    WarningCode.IDENTICAL_VALUES,
                    f"all {s.n} {role} values of {name} are identical ({s.values[0]:g}); the CI has zero width",
                    "check that the benchmark reports a measured value, not a constant or a rounded one",
                )
            )
    entry["config"] = _config(logs.meta, name)
    entry["order"] = order
    if order and order.get("significant"):
        warnings.append(
            warning(
                WarningCode.ORDER_EFFECT,
                f"{name}: fixed and random order give different results (Kruskal-Wallis p={order.get('kw_p'):.3g}, "
                f"Δ {order.get('delta_pct'):+.1f}%)",
                "keep RMIT's random order (the default) and add a reset between benchmarks ([suite].reset)",
            )
        )
    entry["carryover"] = carry.per_benchmark.get(name) if carry is not None else None
    entry["similarity"] = simil.per_benchmark.get(name) if simil is not None else None
    warnings.extend(extra_warnings)
    entry["warnings"] = warnings
    entry["samples"] = {
        role: {
            "value": s.values.tolist(),
            "seq": seq.tolist(),
            # what the noisy_head rule needs to be re-derived (gate/decision.py): null without labels
            "trial": None if s.unit_id is None else s.unit_id.tolist(),
            "suite_run": None if s.suite_run is None else s.suite_run.tolist(),
        }
        for role, s, seq in (("base", sb, seq_b), ("head", sh, seq_h))
    }
    return entry


def comparison_dict(c: Comparison) -> dict[str, Any]:
    def version(v: VersionResult) -> dict[str, Any]:
        return {
            "estimate": v.estimate,
            "ci": list(v.ci) if v.ci else None,
            "n": v.n,
            "n_failed": v.n_failed,
        }

    return {
        "verdict": str(c.verdict),
        "reason": c.reason,
        "change_pct": c.change_pct,
        "change_ci": list(c.change_ci) if c.change_ci else None,
        "base": version(c.base),
        "head": version(c.head),
        "bootstrap": {"scheme": c.bootstrap, "reason": c.bootstrap_reason},
        "statistic": c.statistic,
        "tail": c.tail,
    }
