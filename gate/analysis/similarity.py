"""Run similarity across suite runs and across instances (ICPE'23 heuristic, §3.2).

For every benchmark and version:

* **suite runs** — on each instance, each suite run's ok values in execution order
  (position, then iteration, then measurement) form one series; the five measures are
  computed for every pair of series (:func:`gate.stats.similarity.run_heuristic`). Runs are
  compared within one runner, so a runner difference is not counted again at run level.
* **instances** — each instance's values in execution order (suite run, position, …) form
  one series, compared the same way.

Aggregation (ours; the paper judges a whole set of runs at once, Algorithm 1): a run or an
instance is *dissimilar* when the pairwise majority vote calls it dissimilar from a strict
majority of the others (needs ≥ 3 series). With exactly two series a "dissimilar" pair
verdict is reported as such (``pair_dissimilar``) without naming an odd one. Algorithm 1's own
verdict on the set is kept as ``heuristic``.

Series shorter than ``MIN_VALUES`` (50) are not judged. On independent noise M1 (≈ 1: no
shared shape) and M2 (≈ 0.6: noise does not compress) are above θ whatever the runs, so the
vote reduces to "is M3, M4 or M5 above θ" — in practice the KS statistic, which is coarse on
short runs. Share of runs flagged on pure i.i.d. noise (5 runs each; 100 seeds): 79 % at 10
values, 10 % at 25, 8 % at 30, 0.8 % at 50, 0 at 100 (``tests/unit/analysis/test_similarity_analysis.py``
pins the rate at the threshold).

Suite level: an instance is reported dissimilar when it is flagged for at least half of the
benchmark×version groups that could judge it (and at least two of them): a runner that
differs for most benchmarks is a runner problem, not a benchmark problem.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gate.model import TrialStatus, warning
from gate.stats.similarity import MEASURE_NAMES, THETA, run_heuristic
from gate.warning_codes import WarningCode

MIN_VALUES = 50
SUITE_FRACTION = 0.5
SUITE_MIN_GROUPS = 2


@dataclass(frozen=True)
class SimilarityResult:
    per_benchmark: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    suite: dict[str, Any] | None = None


def _ok_values(trials: pd.DataFrame) -> pd.DataFrame:
    df = trials
    if "status" in df.columns:
        df = df.loc[df["status"].astype(str) == TrialStatus.OK.value]
    df = df.assign(value=pd.to_numeric(df["value"], errors="coerce"))
    df = df.loc[np.isfinite(df["value"].to_numpy(dtype=float))]
    df = df.assign(
        benchmark=df["benchmark"].astype(str),
        version=df["version"].astype(str),
        instance=df["instance"].astype(str) if "instance" in df.columns else "",
        suite_run=df["suite_run"] if "suite_run" in df.columns else 1,
    )
    # Grouping keys first, then execution order inside a run.
    order = ["benchmark", "version", "instance", "suite_run"] + [
        c for c in ("position", "trial", "iteration", "measurement") if c in df.columns
    ]
    return df.sort_values(order, kind="stable")


def _starts(n: int, *columns: np.ndarray) -> np.ndarray:
    """Indices where any of the (sorted) key columns changes: the first row of each group."""
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
    for col in columns:
        change[1:] |= col[1:] != col[:-1]
    return np.flatnonzero(change)


def _groups(starts: np.ndarray, lo: int, hi: int) -> list[tuple[int, int]]:
    """(start, end) row ranges of the groups beginning inside [lo, hi)."""
    i, j = np.searchsorted(starts, [lo, hi])
    bounds = [*starts[i:j].tolist(), hi]
    return list(itertools.pairwise(bounds))


def _judge(series: list[np.ndarray], labels: list[str]) -> dict[str, Any]:
    """Heuristic over labelled series; series shorter than MIN_VALUES are left out."""
    keep = [i for i, s in enumerate(series) if s.size >= MIN_VALUES]
    short = [labels[i] for i in range(len(series)) if i not in keep]
    out: dict[str, Any] = {"n": len(keep), "too_short": short}
    if len(keep) < 2:
        return out
    res = run_heuristic([series[i] for i in keep])
    kept = [labels[i] for i in keep]
    out.update(
        {
            "heuristic": "dissimilar" if res.dissimilar else "similar",
            "mean_measures": dict(
                zip(MEASURE_NAMES, (round(float(v), 4) for v in res.mean_measures), strict=True)
            ),
            "dissimilar": [kept[i] for i in np.flatnonzero(res.run_flags)],
            "pair_dissimilar": bool(len(keep) == 2 and res.pair_dissimilar[0, 1]),
            "dissimilar_pairs": [
                [kept[i], kept[j]]
                for i in range(len(keep))
                for j in range(i + 1, len(keep))
                if res.pair_dissimilar[i, j]
            ],
        }
    )
    return out


def analyze_similarity(trials: pd.DataFrame) -> SimilarityResult:
    """ICPE'23 run similarity per benchmark across suite runs and instances (module docs)."""
    needed = {"benchmark", "version", "value"}
    if not needed <= set(trials.columns) or trials.empty:
        return SimilarityResult({}, {}, None)
    df = _ok_values(trials)
    several_instances = df["instance"].nunique() > 1
    per: dict[str, dict[str, Any]] = {}
    warns: dict[str, list[dict[str, str]]] = {}
    inst_flagged: dict[str, int] = {}
    inst_assessed: dict[str, int] = {}

    # Plain arrays sliced by group: pandas' per-group overhead would dominate on thousands of
    # benchmarks.
    n = len(df)
    col_b = df["benchmark"].to_numpy(dtype=object)
    col_v = df["version"].to_numpy(dtype=object)
    col_i = df["instance"].to_numpy(dtype=object)
    col_r = df["suite_run"].to_numpy()
    values = df["value"].to_numpy(dtype=float)
    bv_starts = _starts(n, col_b, col_v)
    inst_starts = _starts(n, col_b, col_v, col_i)
    run_starts = _starts(n, col_b, col_v, col_i, col_r)

    for lo, hi in _groups(bv_starts, 0, n):
        bench, version = str(col_b[lo]), str(col_v[lo])
        entry = per.setdefault(
            bench, {"dissimilar_runs": [], "dissimilar_instances": [], "versions": {}, "notes": []}
        )
        # Suite runs are compared within one runner: differences between runners are the
        # instance level's business, below.
        vres: dict[str, Any] = {"runs": {}}
        inst_ranges = _groups(inst_starts, lo, hi)
        for ilo, ihi in inst_ranges:
            inst = str(col_i[ilo])
            runs = _groups(run_starts, ilo, ihi)
            where = f"{version}@{inst}" if several_instances else version
            labels = [f"{where}/run {col_r[a]}" for a, _ in runs]
            series = [values[a:b] for a, b in runs]
            run_res = _judge(series, labels)
            vres["runs"][inst] = run_res
            entry["dissimilar_runs"].extend(run_res.get("dissimilar", []))
            if run_res["too_short"] and len(series) >= 2:
                entry["notes"].append(
                    f"{where}: {len(run_res['too_short'])} suite run(s) have fewer than {MIN_VALUES} values; "
                    "run similarity not judged for them"
                )
            if run_res.get("pair_dissimilar"):
                warns.setdefault(bench, []).append(
                    warning(
                        WarningCode.RUNS_DISSIMILAR,
                        f"{bench} ({where}): its two suite runs look dissimilar (ICPE'23 heuristic, "
                        f"≥3 of 5 measures above {THETA})",
                        "run a third suite run ([full].suite_runs ≥ 3) to tell which one is odd",
                    )
                )
            flagged = run_res.get("dissimilar", [])
            if flagged and len(flagged) == run_res["n"]:
                warns.setdefault(bench, []).append(
                    warning(
                        WarningCode.RUNS_DISSIMILAR,
                        f"{bench} ({where}): all {len(flagged)} suite runs differ from one another (ICPE'23 "
                        "heuristic) — there is no typical run: the benchmark is unstable (no steady state, "
                        "bimodal, or drifting), not one run disturbed",
                        "stabilise the benchmark (more warm-up iterations, fixed input sizes, pinned CPU "
                        "frequency) or read its verdict with care; more suite runs will not fix this",
                    )
                )
            elif flagged:
                warns.setdefault(bench, []).append(
                    warning(
                        WarningCode.RUNS_DISSIMILAR,
                        f"{bench} ({where}): suite run(s) {', '.join(flagged)} are unlike the "
                        "other runs (ICPE'23 heuristic: dissimilar from most other runs) — likely warm-up that "
                        "never settles, a bimodal benchmark, or interference on the runner during that run",
                        "look at that run's values in the report; if the benchmark itself is bimodal, add "
                        "warm-up iterations or fix its setup; otherwise re-run and check the runner's load",
                    )
                )

        if several_instances:
            ilabels = [str(col_i[a]) for a, _ in inst_ranges]
            ires = _judge([values[a:b] for a, b in inst_ranges], ilabels)
            vres["instances"] = ires
            if ires["n"] >= 3:
                judged = [lab for lab in ilabels if lab not in ires["too_short"]]
                for lab in judged:
                    inst_assessed[lab] = inst_assessed.get(lab, 0) + 1
                for lab in ires.get("dissimilar", []):
                    inst_flagged[lab] = inst_flagged.get(lab, 0) + 1
            entry["dissimilar_instances"].extend(ires.get("dissimilar", []))
            if ires.get("dissimilar"):
                warns.setdefault(bench, []).append(
                    warning(
                        WarningCode.INSTANCES_DISSIMILAR,
                        f"{bench} ({version}): runner(s) {', '.join(ires['dissimilar'])} measure it unlike the "
                        "other runners (ICPE'23 heuristic)",
                        "compare the runners' environment fingerprints (CPU model, governor, turbo) in the "
                        "report and take the odd runner out of the matrix if it differs",
                    )
                )
            elif ires.get("pair_dissimilar"):
                warns.setdefault(bench, []).append(
                    warning(
                        WarningCode.INSTANCES_DISSIMILAR,
                        f"{bench} ({version}): the two runners measure it differently (ICPE'23 heuristic)",
                        "add a third runner to the matrix to tell which one is odd, or compare their "
                        "environment fingerprints",
                    )
                )
        entry["versions"][version] = vres

    for entry in per.values():
        entry["dissimilar_instances"] = sorted(set(entry["dissimilar_instances"]))

    suite: dict[str, Any] | None = None
    if several_instances:
        instances: dict[str, dict[str, Any]] = {
            inst: {
                "assessed": n,
                "flagged": inst_flagged.get(inst, 0),
                "fraction": round(inst_flagged.get(inst, 0) / n, 4) if n else None,
            }
            for inst, n in sorted(inst_assessed.items())
        }
        odd = [
            i
            for i, v in instances.items()
            if v["flagged"] >= SUITE_MIN_GROUPS and v["flagged"] >= SUITE_FRACTION * v["assessed"]
        ]
        swarn = [
            warning(
                WarningCode.RUNNER_DISSIMILAR,
                f"runner {i} measured {instances[i]['flagged']} of {instances[i]['assessed']} benchmark groups "
                "unlike the other runners — a runner-level difference (hardware, frequency scaling, noisy "
                "neighbour), not a benchmark problem",
                f"check runner {i}'s environment fingerprint against the others and remove it from the "
                "runner matrix until it matches",
            )
            for i in odd
        ]
        suite = {"instances": instances, "dissimilar_instances": odd, "warnings": swarn}
    return SimilarityResult(per_benchmark=per, warnings=warns, suite=suite)
