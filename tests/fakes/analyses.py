"""Synthetic ``analysis.json`` (and ``calibration.json``) documents for tests.

Every builder returns a document made by :func:`gate.files.analysis_json.document`, the check the
writer (``analyze``) applies: a scenario lacking a field the writer writes is refused, so the
fixtures cannot drift from the format. Deterministic for a given seed (``random.Random``, rounded
floats), so golden files stay stable. The scenarios:

* :func:`all_unchanged` — the common case, decision ``pass``
* :func:`mixed` — regressions, an improvement, unchanged, one inconclusive; ``fail``
* :func:`inconclusive_heavy` — mostly inconclusive (unstable benchmarks); ``inconclusive``
* :func:`failures` — benchmarks whose trials crashed / timed out in one version
* :func:`order_effects` — ``order_check`` with fixed vs random runs, carry-over matrix,
  dissimilar runs and machine-preparation warnings
* :func:`hostile_names` — names, units and messages full of Markdown/HTML/mentions/very long text
* :func:`followup_rounds` — a run with a time budget (``run --budget``): benchmarks resolved by
  follow-up rounds and ones left inconclusive for each reason (with a hostile name and detail)
* :func:`needs_budget` — inconclusive for lack of data, measured without a budget
* :func:`large` — ``n`` benchmarks (default 5,000) for the speed benchmark and truncation

``SCENARIOS`` maps a short name to a zero-argument builder (golden files use these names).
Reused by the publish tests: keep the builders side-effect free.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from gate.analysis.entries import _noise_warning
from gate.analysis.remedies import FULL_REMEDY, calibrated_remedy
from gate.decision import default_decision, noisy_in_head
from gate.files import analysis_json, calibration_json
from gate.files.analysis_json import Analysis
from gate.files.calibration_json import Calibration

SCHEMA_VERSION = analysis_json.SCHEMA
TOOL_VERSION = "0.1.0"
CREATED_AT = "2026-11-26T02:30:00Z"

# analysis.json sort order (docs/contracts.md): regression, failed, inconclusive, improvement, unchanged
VERDICT_ORDER = ("regression", "failed", "inconclusive", "improvement", "unchanged")
DEFAULT_SETTINGS: dict[str, Any] = {
    "statistic": "p10",
    "confidence": 0.99,
    "threshold_pct": 3.0,
    "resamples": 10000,
    "seed": 1,
    "bootstrap": "auto",  # analyze's defaults (gate.analysis.compare.AnalysisSettings)
    "pairing": "independent",
    "interval": "percentile",
    "compared_order": "all",
}


def _r(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits}g}")


def _median(values: Sequence[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _stability(values: Sequence[float]) -> dict[str, float | None]:
    if len(values) < 2:  # not computable: null, like the other "not computable" fields
        return {"cv": None, "rmad": None, "rciw": None}
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    med = _median(values)
    mad = _median([abs(v - med) for v in values])
    return {
        "cv": _r(var**0.5 / mean, 3),
        "rmad": _r(mad / med, 3),
        "rciw": _r(4 * var**0.5 / mean / len(values) ** 0.5, 3),
    }


def benchmark(
    name: str,
    verdict: str = "unchanged",
    *,
    change_pct: float = 0.0,
    base_estimate: float = 0.0123,
    unit: str = "s",
    higher_is_better: bool = False,
    noise: float = 0.01,
    n: int = 15,
    n_failed_base: int = 0,
    n_failed_head: int = 0,
    reason: str | None = None,
    config: dict[str, Any] | None = None,
    order: dict[str, Any] | None = None,
    predecessors: list[dict[str, Any]] | None = None,
    dissimilar_runs: list[str] | None = None,
    warnings: list[dict[str, str]] | None = None,
    warmup: bool = False,
    seed: int = 0,
    samples_needed: int | None = None,
    followup: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One entry of ``analysis["benchmarks"]`` with raw samples drawn around the estimates.

    ``n_failed_head == n`` (or base) yields a version with no values: estimate/CI/change are null
    as the contract says ("null if not computable")."""
    rng = random.Random(f"{name}:{seed}")
    head_estimate = base_estimate * (1 + change_pct / 100)
    total = 2 * n
    seqs = sorted(rng.sample(range(1, 4 * total + 1), total))
    rng.shuffle(seqs)
    base_seq, head_seq = sorted(seqs[:n]), sorted(seqs[n:])

    def draw(center: float, count: int) -> list[float]:
        out = []
        for i in range(count):
            v = center * (1 + rng.gauss(0, noise))
            if warmup and i < 2:
                v *= 1.15 - 0.05 * i
            out.append(_r(v, 5))
        return out

    n_base, n_head = max(n - n_failed_base, 0), max(n - n_failed_head, 0)
    base_vals, head_vals = draw(base_estimate, n_base), draw(head_estimate, n_head)

    def version(vals: list[float], center: float, failed: int) -> dict[str, Any]:
        # The estimate is the requested centre (not the sample median) so a scenario's verdict,
        # change and CI stay coherent whatever the random draw.
        if not vals:
            return {"estimate": None, "ci": None, "n": 0, "n_failed": failed}
        half = center * noise * 2.6 / len(vals) ** 0.5
        return {
            "estimate": _r(center),
            "ci": [_r(center - half), _r(center + half)],
            "n": len(vals),
            "n_failed": failed,
        }

    base = version(base_vals, base_estimate, n_failed_base)
    head = version(head_vals, head_estimate, n_failed_head)
    if base["estimate"] is not None and head["estimate"] is not None:
        change: float | None = _r(change_pct, 4)
        spread = noise * 100 * 2.6 * (2 / max(n - max(n_failed_base, n_failed_head), 1)) ** 0.5
        change_ci: list[float] | None = [_r(change_pct - spread, 4), _r(change_pct + spread, 4)]
    else:
        change, change_ci = None, None
    if reason is None:
        reason = {
            "regression": f"99% CIs are disjoint and the change ({change:+.1f}%) is at least 3%"
            if change is not None
            else "regression",
            "improvement": f"99% CIs are disjoint and the change ({change:+.1f}%) is at least 3%"
            if change is not None
            else "improvement",
            "unchanged": "the change's 99% CI lies within ±3%",
            # the remedy compare.py gives: [full] does not change what a calibrated benchmark runs
            "inconclusive": "the 99% CI of the change is too wide to rule out a 3% change — "
            + (
                calibrated_remedy(samples_needed)
                if (config or {}).get("source") == "calibration"
                else FULL_REMEDY
            ),
            "failed": "every trial of head failed (error: exit status 1) — fix the benchmark or check its log",
        }[verdict]
    return {
        "benchmark": name,
        "unit": unit,
        "higher_is_better": higher_is_better,
        "verdict": verdict,
        "reason": reason,
        "change_pct": change,
        "change_ci": change_ci,
        "base": base,
        "head": head,
        "stability": {"base": _stability(base_vals), "head": _stability(head_vals)},
        "config": config,
        "order": order,
        "carryover": {
            "position": {"p": _r(rng.uniform(0.05, 0.9), 3), "significant": False},
            "predecessors": predecessors or [],
        },
        "similarity": {"dissimilar_runs": dissimilar_runs or [], "dissimilar_instances": []},
        "samples_needed": samples_needed,
        "followup": followup,
        "warnings": warnings or [],
        "samples": {
            "base": {"value": base_vals, "seq": base_seq[:n_base]},
            "head": {"value": head_vals, "seq": head_seq[:n_head]},
        },
    }


def calibration_config(suite_run: int = 2, iteration: int = 3, measurement: int = 1) -> dict[str, Any]:
    return {
        "source": "calibration",
        "suite_run": suite_run,
        "iteration": iteration,
        "measurement": measurement,
    }


def full_config() -> dict[str, Any]:
    return {"source": "full", "suite_run": 3, "iteration": 5, "measurement": 1}


def analysis(
    benchmarks: list[dict[str, Any]],
    *,
    base: str = "main",
    head: str = "HEAD",
    time: dict[str, float] | None = None,
    order_check: dict[str, Any] | None = None,
    carryover_matrix: dict[str, Any] | None = None,
    similarity: dict[str, Any] | None = None,
    environment: dict[str, Any] | None = None,
    warnings: list[dict[str, str]] | None = None,
    decision: str | None = None,
    only_in_base: int = 0,
    adaptive: dict[str, Any] | None = None,
) -> Analysis:
    """Wrap benchmark entries into a full analysis document: sorted as the contract says, counts
    and the default-policy decision computed from the verdicts."""
    counts = dict.fromkeys(("regression", "improvement", "unchanged", "inconclusive", "failed"), 0)
    for b in benchmarks:
        counts[b["verdict"]] += 1
    ordered = sorted(
        benchmarks,
        key=lambda b: (VERDICT_ORDER.index(b["verdict"]), -abs(b["change_pct"] or 0.0), b["benchmark"]),
    )
    # failed with clean base trials and failing (or no) head trials: the change broke it
    failed_in_head_only = sum(
        b["verdict"] == "failed"
        and not b["base"]["n_failed"]
        and b["base"]["n"] > 0
        and (b["head"]["n_failed"] > 0 or b["head"]["n"] == 0)
        for b in benchmarks
    )
    noisy = sum(noisy_in_head(b) for b in benchmarks)
    if decision is None:
        decision = str(
            default_decision(
                counts,
                failed_in_head_only=failed_in_head_only,
                only_in_base=only_in_base,
                noisy_in_head=noisy,
            )
        )
    return analysis_json.document(
        tool_version=TOOL_VERSION,
        created_at=CREATED_AT,
        base=base,
        head=head,
        inputs=["trials.csv"],
        settings=dict(DEFAULT_SETTINGS),
        summary={
            "decision": decision,
            "counts": counts,
            "n_benchmarks": len(benchmarks),
            "failed_in_head_only": failed_in_head_only,
            "noisy_in_head": noisy,
            "only_in_base": only_in_base,
            "only_in_head": 0,
            "time": time,
        },
        adaptive=adaptive,
        benchmarks=ordered,
        order_check=order_check,
        carryover_matrix=carryover_matrix,
        carryover_suite=None,
        similarity=similarity,
        environment=environment or {"cpu_model": "Fake CPU @ 2.0GHz", "cores": 2, "kernel": "6.1.0"},
        warnings=warnings or [],
    )


# ---- scenarios ---------------------------------------------------------------------------------------


def all_unchanged() -> dict[str, Any]:
    names = ["parse", "render", "serialize", "tokenize", "compress"]
    benches = [
        benchmark(
            n_,
            "unchanged",
            change_pct=(i - 2) * 0.4,
            base_estimate=0.01 * (i + 1),
            config=calibration_config(),
            seed=i,
        )
        for i, n_ in enumerate(names)
    ]
    return analysis(benches, time={"spent_s": 41.2, "full_s": 120.5, "saved_pct": 65.8})


def mixed() -> dict[str, Any]:
    carry = [{"predecessor": "load", "effect_pct": -7.1, "p_adj": 0.001}]
    benches = [
        benchmark("parse", "regression", change_pct=20.3, base_estimate=0.0123, config=calibration_config()),
        benchmark(
            "alloc_small", "regression", change_pct=4.8, base_estimate=812.0, unit="ns/op", noise=0.005
        ),
        benchmark(
            "throughput",
            "improvement",
            change_pct=12.0,
            base_estimate=410.0,
            unit="MB/s",
            higher_is_better=True,
            config=calibration_config(1, 2, 1),
        ),
        benchmark(
            "render",
            "unchanged",
            change_pct=0.8,
            base_estimate=0.051,
            predecessors=carry,
            warnings=[
                {
                    "code": "carryover",
                    "message": "render is 7.1% faster right after load",
                    "action": "reset state between benchmarks ([suite].reset) or drop the shared cache",
                }
            ],
        ),
        benchmark("tokenize", "unchanged", change_pct=-0.5, base_estimate=0.0031),
        benchmark("serialize", "unchanged", change_pct=1.1, base_estimate=0.0072),
        benchmark(
            "query",
            "inconclusive",
            change_pct=3.4,
            base_estimate=0.22,
            noise=0.04,
            reason="the 99% CI of the change [-1.2%, +8.0%] is too wide to rule out a 3% change — raise "
            "[full].iterations or [full].suite_runs in .ordertrap.toml",
        ),
    ]
    # the tail check's finding (gate/analysis/tail.py) and a benchmark with its own statistic
    tokenize, serialize = benches[4], benches[5]
    tokenize["tail"] = {
        "statistic": "p90",
        "verdict": "regression",
        "change_pct": 41.5,
        "change_ci": [22.0, 63.1],
        "base": {"estimate": 0.0036, "ci": [0.0034, 0.0038]},
        "head": {"estimate": 0.0051, "ci": [0.0044, 0.0059]},
    }
    tokenize["warnings"] = [
        {
            "code": "tail_change",
            "message": "the slowest values got slower — the 90th percentile (Harrell–Davis) "
            "changed +41.5% (CI of the change [+22.0%, +63.1%]; regression by the same rule), while the "
            "10th percentile (Harrell–Davis), which decides, is `unchanged`",
            "action": "look for a change that shows only in some runs (GC pauses, a slow path, contention); "
            'to let the tail decide, set statistic = "median" or a higher pNN for this benchmark in its '
            "[[benchmark]] entry (docs/statistics.md: Tail changes)",
        }
    ]
    serialize["statistic"] = "median"
    matrix = {
        "benchmarks": ["parse", "render", "tokenize"],
        "predecessors": ["load", "parse", "render"],
        "effect_pct": [[0.4, None, -0.3], [-7.1, 0.2, None], [0.1, -0.2, 0.3]],
    }
    return analysis(
        benches,
        time={"spent_s": 95.0, "full_s": 240.0, "saved_pct": 60.4},
        carryover_matrix=matrix,
    )


def inconclusive_heavy() -> dict[str, Any]:
    benches = []
    for i in range(8):
        verdict = "inconclusive" if i < 6 else "unchanged"
        bench = benchmark(
            f"bench_{i:02d}",
            verdict,
            change_pct=(2.5 + i * 0.3) if verdict == "inconclusive" else 0.2,
            base_estimate=1000.0 + 100 * i,
            unit="ns/op",
            noise=(0.12 if i < 2 else 0.06) if verdict == "inconclusive" else 0.01,
            n=6,
            config=calibration_config(1, 2, 1),
            dissimilar_runs=["HEAD/run 2"] if i == 0 else None,
            seed=i,
        )
        # the noise warning analyze writes for values this spread (gate/analysis/entries.py)
        noisy = _noise_warning(bench["benchmark"], bench["stability"])
        if noisy is not None:
            bench["warnings"].append(noisy)
        benches.append(bench)
    return analysis(
        benches,
        time={"spent_s": 12.0, "full_s": 80.0, "saved_pct": 85.0},
        warnings=[
            {
                "code": "governor",
                "message": "CPU frequency governor is 'powersave', not 'performance'",
                "action": "run `sudo cpupower frequency-set -g performance` on the benchmark host",
            },
            {
                "code": "load",
                "message": "load average 3.1 on 2 cores while measuring",
                "action": "stop other jobs on the runner (one benchmark job per machine)",
            },
        ],
    )


def failures() -> dict[str, Any]:
    benches = [
        benchmark(
            "crashes_in_head",
            "failed",
            n_failed_head=15,
            reason="every trial of head failed (error: exit status 1: KeyError 'x') — fix the benchmark "
            "in head or check the trial log",
        ),
        benchmark(
            "timeout_in_base",
            "failed",
            n_failed_base=15,
            reason="every trial of main timed out after 60 s — raise [suite].timeout or fix the benchmark",
        ),
        benchmark(
            "flaky",
            "inconclusive",
            change_pct=1.0,
            n_failed_head=6,
            reason="6 of 15 head trials failed (error); too few values for a 99% CI — fix the flaky failure",
        ),
        benchmark("parse", "unchanged", change_pct=0.3),
        benchmark("render", "regression", change_pct=9.5, base_estimate=0.051),
    ]
    return analysis(benches, time=None)


def order_effects() -> dict[str, Any]:
    order_warn = {
        "code": "order",
        "message": "alloc_big's median differs by 9.2% between fixed and random order (Case 1: CIs disjoint)",
        "action": "keep randomized order (the default); do not compare against fixed-order baselines",
    }
    benches = [
        benchmark(
            "alloc_big",
            "unchanged",
            change_pct=0.9,
            base_estimate=2.4e-3,
            order={"significant": True, "kw_p": 0.0004, "eta2": 0.31, "delta_pct": 9.2, "ci_case": 1},
            predecessors=[{"predecessor": "gc_heavy", "effect_pct": 11.5, "p_adj": 0.0002}],
            warnings=[
                order_warn,
                {
                    "code": "carryover",
                    "message": "alloc_big is 11.5% slower right after gc_heavy",
                    "action": "reset state between benchmarks ([suite].reset = 'gc') or isolate gc_heavy",
                },
            ],
            warmup=True,
        ),
        benchmark(
            "gc_heavy",
            "regression",
            change_pct=6.1,
            base_estimate=0.031,
            order={"significant": False, "kw_p": 0.21, "eta2": 0.02, "delta_pct": 1.1, "ci_case": 2},
        ),
        benchmark(
            "hash",
            "unchanged",
            change_pct=-0.2,
            base_estimate=9.5e-4,
            order={"significant": False, "kw_p": 0.08, "eta2": 0.06, "delta_pct": 2.7, "ci_case": 3},
            dissimilar_runs=["main/run 2"],
            warnings=[
                {
                    "code": "dissimilar",
                    "message": "run 2 of main differs from the other runs (KS p=0.001)",
                    "action": "check the runner for background load during run 2, then rerun",
                }
            ],
        ),
    ]

    def test(name: str, fixed: float, random_: float, case: int, sig: bool) -> dict[str, Any]:
        return {
            "test": name,
            "n_fixed": 30,
            "n_random": 30,
            "kw_h": 12.5 if sig else 1.2,
            "kw_p": 0.0004 if sig else 0.27,
            "eta2": 0.31 if sig else 0.02,
            "delta_pct": _r((random_ - fixed) / fixed * 100, 3),
            "alpha_bc": 0.05 / 3,
            "significant": sig,
            "fixed_median": fixed,
            "fixed_ci_low": _r(fixed * 0.985),
            "fixed_ci_high": _r(fixed * 1.015),
            "random_median": random_,
            "random_ci_low": _r(random_ * 0.98),
            "random_ci_high": _r(random_ * 1.02),
            "ci_case": case,
        }

    order_check = {
        "experiment": "main",
        "alpha": 0.05,
        "alpha_bc": 0.05 / 3,
        "order_matters": True,
        "tests": [
            test("alloc_big", 2.4e-3, 2.62e-3, 1, True),
            test("gc_heavy", 0.031, 0.0313, 2, False),
            test("hash", 9.5e-4, 9.75e-4, 3, False),
        ],
    }
    matrix = {
        "benchmarks": ["alloc_big", "gc_heavy", "hash"],
        "predecessors": ["alloc_big", "gc_heavy", "hash"],
        "effect_pct": [[None, 11.5, 0.4], [-0.8, None, 0.2], [0.3, -0.1, None]],
    }
    return analysis(
        benches,
        time={"spent_s": 300.0, "full_s": 300.0, "saved_pct": 0.0},
        order_check=order_check,
        carryover_matrix=matrix,
        similarity={
            "instances": {"host-a": {"n": 90}},
            "warnings": [
                {
                    "code": "dissimilar",
                    "message": "run 2 of main is dissimilar to the others",
                    "action": "look for background load on the runner during that run, then rerun",
                }
            ],
        },
        warnings=[
            {
                "code": "aslr",
                "message": "address-space layout randomisation is on",
                "action": "keep it on for realism, or `sysctl kernel.randomize_va_space=0` for lower noise",
            }
        ],
    )


HOSTILE = [
    "a|b|c",
    "`tick` ``double``",
    "<script>alert(1)</script>",
    "@octocat please look",
    "fixes #123 and GH-7",
    "**bold** _it_ [link](https://evil.example) ![img](https://evil.example/x.png)",
    "<!-- ordertrap-gate:comment -->",
    "</details><img src=x onerror=alert(2)>",
    "line\nbreak",
    "x" * 400,
    "&amp; &lt; {{ jinja }} {% raw %}",
]


def hostile_names() -> dict[str, Any]:
    benches = []
    verdicts = ["regression", "inconclusive", "unchanged", "improvement", "failed"]
    for i, name in enumerate(HOSTILE):
        verdict = verdicts[i % len(verdicts)]
        benches.append(
            benchmark(
                name,
                verdict,
                change_pct={"regression": 8.0, "improvement": -8.0, "inconclusive": 3.5}.get(verdict, 0.1),
                unit="ns|<b>op</b>`" if i % 2 else "s",
                n_failed_head=15 if verdict == "failed" else 0,
                reason=f"reason mentioning {name}",
                warnings=[{"code": "carryover", "message": f"after {name}", "action": f"@team fix {name}"}],
                seed=i,
            )
        )
    matrix = {"benchmarks": HOSTILE[:3], "predecessors": HOSTILE[3:6], "effect_pct": [[1.0, 2.0, 3.0]] * 3}
    return analysis(
        benches,
        base="<main>|`x`",
        head="@head #9",
        carryover_matrix=matrix,
        warnings=[{"code": "<b>x</b>", "message": "msg with | and `", "action": "@someone #42 <i>do</i>"}],
    )


def _followup(rounds: int, base: int, head: int, unresolved: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"rounds": rounds, "extra_values": {"base": base, "head": head}, "unresolved": unresolved}


HOSTILE_FOLLOWUP = "<b>x</b>|@octocat `y` #7"


def followup_rounds() -> dict[str, Any]:
    """A 15-minute budget spent in 2 follow-up rounds: two benchmarks resolved by them, one left
    for the budget, one hopeless, two where more values would not help (one an order effect, one
    with a hostile name and detail)."""
    cal = calibration_config(1, 3, 1)
    per_look = "99.75% CI"
    benches = [
        benchmark("parse", "unchanged", change_pct=0.6, config=cal, n=45, followup=_followup(2, 40, 40)),
        benchmark(
            "alloc",
            "regression",
            change_pct=5.2,
            base_estimate=812.0,
            unit="ns/op",
            config=cal,
            n=15,
            followup=_followup(1, 10, 10),
        ),
        benchmark("render", "unchanged", change_pct=-0.3, config=cal, n=5, followup=_followup(0, 0, 0)),
        benchmark(
            "query",
            "inconclusive",
            change_pct=2.1,
            noise=0.03,
            config=cal,
            n=43,
            samples_needed=90,
            reason=f"the {per_look} of the change [-0.9%, +5.2%] is too wide to rule out a 3% change; about "
            "90 values per version (now 45/43) would resolve a 3% change at this noise",
            followup=_followup(
                2,
                40,
                40,
                {
                    "reason": "budget_spent",
                    "detail": "the CI is too wide",
                    "values_needed": 90,
                    "needs_s": 1500.0,
                },
            ),
        ),
        benchmark(
            "flaky_io",
            "inconclusive",
            change_pct=4.0,
            noise=0.2,
            config=cal,
            n=5,
            samples_needed=4000,
            reason=f"the {per_look} of the change [-40.2%, +61.0%] is too wide to rule out a 3% change; about "
            "4000 values per version (now 5/5) would resolve a 3% change at this noise",
            followup=_followup(
                0,
                0,
                0,
                {"reason": "hopeless", "detail": "", "values_needed": 4000, "needs_s": 5400.0},
            ),
        ),
        benchmark(
            "sorted_insert",
            "inconclusive",
            change_pct=3.5,
            config=cal,
            n=5,
            reason="no confidence interval could be computed (non-positive or non-finite values) — check the "
            "benchmark's output",
            warnings=[
                {
                    "code": "order_effect",
                    "message": "sorted_insert: fixed and random order give different results (Kruskal-Wallis "
                    "p=0.002, Δ +6.0%)",
                    "action": "keep RMIT's random order (the default) and add a reset between benchmarks "
                    "([suite].reset)",
                }
            ],
            followup=_followup(
                0,
                0,
                0,
                {
                    "reason": "not_lack_of_data",
                    "detail": "no confidence interval could be computed",
                    "values_needed": None,
                    "needs_s": None,
                },
            ),
        ),
        benchmark(
            HOSTILE_FOLLOWUP,
            "inconclusive",
            change_pct=3.1,
            config=cal,
            n=10,
            reason="values cannot be compared: <script>alert(1)</script> @team",
            followup=_followup(
                1,
                5,
                5,
                {
                    "reason": "not_lack_of_data",
                    "detail": "</details> **bold** @octocat #12 |pipe| [x](javascript:alert(1))",
                    "values_needed": None,
                    "needs_s": None,
                },
            ),
        ),
    ]
    adaptive = {
        "budget_s": 900.0,
        "used_s": 880.3,
        "planned_s": 180.2,
        "followup_s": 700.1,
        "full_s": 2460.0,
        "rounds": 2,
        "max_rounds": 3,
        "rule": {"name": "bonferroni-looks", "confidence": 0.99, "looks": 4, "confidence_per_look": 0.9975},
        "stop_reason": "budget_spent",
    }
    doc = analysis(benches, time={"spent_s": 880.3, "full_s": 2460.0, "saved_pct": 64.2}, adaptive=adaptive)
    doc["settings"]["confidence"] = 0.9975
    return doc


def needs_budget() -> dict[str, Any]:
    """No budget; two benchmarks inconclusive for lack of data (samples_needed), one not."""
    cal = calibration_config(1, 2, 1)
    benches = [
        benchmark("parse", "unchanged", change_pct=0.4, config=cal, n=6),
        benchmark("query", "inconclusive", change_pct=2.6, noise=0.03, config=cal, n=6, samples_needed=30),
        benchmark("scan", "inconclusive", change_pct=-2.9, noise=0.03, config=cal, n=6, samples_needed=18),
        benchmark(
            "broken",
            "inconclusive",
            change_pct=0.5,
            n=6,
            reason="no confidence interval could be computed (non-positive or non-finite values) — check the "
            "benchmark's output",
        ),
    ]
    return analysis(benches, time={"spent_s": 30.0, "full_s": 150.0, "saved_pct": 80.0})


def large(n: int = 5000, seed: int = 7) -> dict[str, Any]:
    """``n`` benchmarks: ~1% regressions, ~1% improvements, ~3% inconclusive, a few failed,
    the rest unchanged; 15 samples per version each."""
    rng = random.Random(seed)
    benches = []
    for i in range(n):
        u = rng.random()
        if u < 0.01:
            verdict, change = "regression", rng.uniform(3.5, 30)
        elif u < 0.02:
            verdict, change = "improvement", -rng.uniform(3.5, 30)
        elif u < 0.05:
            verdict, change = "inconclusive", rng.uniform(1.5, 4.5)
        elif u < 0.052:
            verdict, change = "failed", 0.0
        else:
            verdict, change = "unchanged", rng.uniform(-1.5, 1.5)
        benches.append(
            benchmark(
                f"pkg{i // 100:02d}/Benchmark{i:05d}",
                verdict,
                change_pct=change,
                base_estimate=rng.uniform(1e-4, 1.0),
                n_failed_head=15 if verdict == "failed" else 0,
                config=calibration_config() if i % 3 else None,
                seed=i,
            )
        )
    return analysis(benches, time={"spent_s": 3600.0, "full_s": 14400.0, "saved_pct": 75.0})


def calibration(
    benchmarks: Sequence[str] = ("parse", "render", "tokenize", "serialize", "compress"),
) -> Calibration:
    """A calibration.json for the given benchmark names, as its reader returns it."""
    return calibration_json.from_document(calibration_document(benchmarks))


def calibration_document(
    benchmarks: Sequence[str] = ("parse", "render", "tokenize", "serialize", "compress"),
) -> dict[str, Any]:
    """The JSON object of :func:`calibration` (docs/contracts.md), to edit before reading it."""
    rng = random.Random("calibration")
    entries = {}
    for name in benchmarks:
        never = name == "compress"
        entries[name] = {
            "config": {"suite_run": rng.randint(1, 3), "iteration": rng.randint(1, 5), "measurement": 1},
            "instability": _r(rng.uniform(0.002, 0.03 if never else 0.0099), 3),
            "cost": float(rng.randint(3, 40)),
            "stable": not never,
            "never_stable": never,
            "advice": "raise [full].suite_run or stabilise the machine" if never else None,
            "n_measurements": 6,
            "full_instability": _r(rng.uniform(0.001, 0.004), 3),
        }
    return {
        "schema_version": 1,
        "tool_version": TOOL_VERSION,
        "created_at": CREATED_AT,
        "source": {"trials": ["trials.csv"], "version": "main", "instance": "1"},
        "metric": "cv",
        "threshold": 0.01,
        "levels": ["suite_run", "iteration", "measurement"],
        "discard_warmup": {"level": "measurement", "count": 0},
        "full": {"suite_run": 3, "iteration": 5, "measurement": 1},
        "benchmarks": entries,
        "summary": {
            "full_cost": 75.0 * len(entries),
            "minimal_cost": sum(e["cost"] for e in entries.values()),
            "saved_pct": 70.0,
            "cost_unit": "s",
            "n_benchmarks": len(entries),
            "n_never_stable": sum(e["never_stable"] for e in entries.values()),
        },
        "audit": None,
    }


SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    "all_unchanged": all_unchanged,
    "mixed": mixed,
    "inconclusive_heavy": inconclusive_heavy,
    "failures": failures,
    "order_effects": order_effects,
    "hostile_names": hostile_names,
    "followup_rounds": followup_rounds,
    "needs_budget": needs_budget,
}
