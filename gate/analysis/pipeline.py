"""Build the analysis.json document (docs/contracts.md) from loaded trial logs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from gate import __version__
from gate.analysis import carryover_exclusion, shards
from gate.analysis.compare import AnalysisSettings, Comparison, Sample, compare_many
from gate.analysis.entries import benchmark_entry, given_up_reasons, own_thresholds
from gate.analysis.load import TrialLogs
from gate.analysis.statistic_source import StatisticPlan
from gate.decision import default_decision, fails_in_head_only, noisy_in_head
from gate.errors import ConfigError
from gate.files import analysis_json, run_meta
from gate.files.analysis_json import Analysis
from gate.files.run_meta import RunMeta
from gate.model import Verdict, utc_timestamp, warning
from gate.rounds import summary as followup
from gate.warning_codes import WarningCode

VERDICT_ORDER = {
    Verdict.REGRESSION: 0,
    Verdict.FAILED: 1,
    Verdict.INCONCLUSIVE: 2,
    Verdict.IMPROVEMENT: 3,
    Verdict.UNCHANGED: 4,
}


def resolve_versions(logs: TrialLogs, base: str | None, head: str | None) -> tuple[str, str]:
    meta = logs.meta or RunMeta()
    base = base or meta.base
    head = head or meta.head
    present = sorted(logs.frame["version"].unique())
    if not base or not head:
        raise ConfigError(
            f"base and head versions are unknown (no meta.json with base/head beside the log); the log has "
            f"versions: {', '.join(present[:10])}",
            "pass --base NAME --head NAME",
        )
    if base == head:
        raise ConfigError(f"--base and --head are both {base!r}", "pass two different versions")
    for role, name in (("base", base), ("head", head)):
        if name not in present:
            raise ConfigError(
                f"{role} version {name!r} is not in the trial log (versions: {', '.join(present[:10])})",
                f"pass --{role} with one of the versions in the log's version column",
            )
    return base, head


@dataclass(frozen=True)
class _Columns:
    """The trial-log columns as numpy arrays, rows sorted by (version, benchmark, file order)."""

    version: np.ndarray
    benchmark: np.ndarray
    value: np.ndarray
    ok: np.ndarray
    failed: np.ndarray
    unit: np.ndarray | None  # two-level outer unit (trial) code per row
    run: np.ndarray | None  # suite run code per row (pairing)
    seq: np.ndarray
    trial_key: np.ndarray  # code of (source, trial) for counting failed trials
    status: np.ndarray
    reason: np.ndarray

    @classmethod
    def of(cls, frame: pd.DataFrame) -> _Columns:
        f = frame.reset_index(drop=True)
        f = f.assign(_order=np.arange(len(f))).sort_values(["version", "benchmark", "_order"], kind="stable")

        def codes(cols: list[str]) -> np.ndarray | None:
            if not set(cols) <= set(f.columns) or f[cols].isna().to_numpy().any():
                return None
            return f.groupby(cols, sort=False).ngroup().to_numpy()

        unit = codes(["source", "trial"]) if "trial" in f.columns else None
        if unit is None:
            unit = codes([c for c in ("source", "instance", "suite_run", "iteration") if c in f.columns])
            if not {"suite_run", "iteration"} <= set(f.columns):
                unit = None
        run = (
            codes([c for c in ("source", "instance", "suite_run") if c in f.columns])
            if "suite_run" in f.columns
            else None
        )
        has_trial = "trial" in f.columns and not f["trial"].isna().any()
        seq = f["trial"].to_numpy(dtype=np.int64) if has_trial else f["_order"].to_numpy(dtype=np.int64)
        trial_key = codes(["source", "trial"]) if has_trial else None
        kind = f["kind"].to_numpy()
        return cls(
            version=f["version"].to_numpy(dtype=str),
            benchmark=f["benchmark"].to_numpy(dtype=str),
            value=f["value"].to_numpy(dtype=np.float64),
            ok=kind == "ok",
            failed=kind == "failed",
            unit=unit,
            run=run,
            seq=seq,
            trial_key=trial_key if trial_key is not None else np.arange(len(f)),
            status=f["status"].astype(str).to_numpy() if "status" in f.columns else np.full(len(f), "failed"),
            reason=f["reason"].astype(str).to_numpy() if "reason" in f.columns else np.full(len(f), ""),
        )

    def groups(self) -> dict[tuple[str, str], slice]:
        """(version, benchmark) → slice of the sorted rows."""
        n = self.version.size
        if n == 0:
            return {}
        change = (
            np.flatnonzero(
                (self.version[1:] != self.version[:-1]) | (self.benchmark[1:] != self.benchmark[:-1])
            )
            + 1
        )
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [n]])
        return {
            (str(self.version[a]), str(self.benchmark[a])): slice(int(a), int(b))
            for a, b in zip(starts, ends, strict=True)
        }

    def sample(self, sl: slice) -> tuple[Sample, np.ndarray]:
        ok = self.ok[sl]
        bad = self.failed[sl]
        n_failed = int(np.unique(self.trial_key[sl][bad]).size) if bad.any() else 0
        failures: tuple[str, ...] = ()
        if n_failed:
            texts = []
            for st, rs in zip(self.status[sl][bad][:3], self.reason[sl][bad][:3], strict=True):
                texts.append(f"{st}: {rs.strip()}" if rs.strip() else str(st))
            failures = tuple(dict.fromkeys(texts))
        return (
            Sample(
                values=self.value[sl][ok],
                unit_id=self.unit[sl][ok] if self.unit is not None else None,
                suite_run=self.run[sl][ok] if self.run is not None else None,
                n_failed=n_failed,
                failures=failures,
            ),
            self.seq[sl][ok],
        )


def _per_benchmark_first(frame: pd.DataFrame, col: str) -> dict[str, Any]:
    if col not in frame.columns:
        return {}
    vals = frame[["benchmark", col]]
    if vals[col].dtype == object:
        vals = vals.loc[vals[col].astype(str).str.strip() != ""]
    return {str(k): v for k, v in vals.groupby("benchmark", sort=False)[col].first().items()}


def _version_mismatches(pair: pd.DataFrame, base: str, head: str) -> dict[str, str]:
    """Benchmarks whose ``unit`` or ``higher_is_better`` differs between (or within) the versions:
    0.5 s logged as 500 ms in one version would read as a -99.9 % "improvement". Only merged or
    external logs can do this (the gate's own adapters normalise units). Vectorised: one
    groupby per column (a per-benchmark loop cost 12-14 s of CPU on 100,000 benchmarks)."""
    out: dict[str, str] = {}
    for col, what in (("unit", "units"), ("higher_is_better", "higher_is_better")):
        if col not in pair.columns:
            continue
        vals = pair[["benchmark", "version", col]].astype({col: str})
        vals = vals.loc[(vals[col].str.strip() != "") & vals["version"].isin([base, head])]
        distinct = vals.drop_duplicates()
        per_version = distinct.groupby(["benchmark", "version"], sort=False)[col].size()
        per_benchmark = distinct.groupby("benchmark", sort=False)[col].nunique()
        suspects = set(per_benchmark.index[per_benchmark > 1]) | {
            b for b, _ in per_version.index[per_version > 1]
        }
        if not suspects:
            continue
        rows = distinct.loc[distinct["benchmark"].isin(suspects)]
        for name, group in rows.groupby("benchmark", sort=False):
            b = sorted(group.loc[group["version"] == base, col])
            h = sorted(group.loc[group["version"] == head, col])
            if len(b) > 1 or len(h) > 1 or (b and h and b != h):
                out.setdefault(
                    str(name),
                    f"{base} has {what} {', '.join(b) or '—'} and {head} has {what} {', '.join(h) or '—'}",
                )
    return out


def time_summary(frame: pd.DataFrame, meta: RunMeta | None) -> dict[str, Any] | None:
    """spent_s = Σ elapsed_s over trials (one per trial id); full_s = per benchmark the mean
    duration of one measurement × measurements of the full configuration × versions."""
    if meta is None or meta.full is None or "elapsed_s" not in frame.columns or "trial" not in frame.columns:
        return None
    full_n = meta.full.values
    trials = frame.dropna(subset=["trial", "elapsed_s"]).drop_duplicates(["source", "trial"])
    if trials.empty:
        return None
    spent = float(trials["elapsed_s"].sum())
    rows = frame.groupby(["source", "trial"]).size().rename("rows")
    t = trials.join(rows, on=["source", "trial"])
    # one groupby for every benchmark (a loop over 10,000 benchmarks took ~10 s)
    per = t.groupby("benchmark").agg(
        elapsed=("elapsed_s", "sum"), rows=("rows", "sum"), versions=("version", "nunique")
    )
    per_measurement = per["elapsed"].astype(float) / per["rows"].clip(lower=1)
    total = float((per_measurement * full_n * per["versions"]).sum())
    full: float | None = total
    saved = (1.0 - spent / total) * 100.0 if total > 0 else None
    if meta.has("benchmark_configs") and not any(c.calibrated for c in meta.benchmark_configs.values()):
        # every benchmark ran the full configuration: spent and estimate differ only by noise
        # and by trials that ended early (a failure is faster), which is no saving
        full, saved = None, None
    return {
        "spent_s": round(spent, 3),
        "full_s": None if full is None else round(full, 3),
        "saved_pct": None if saved is None else round(saved, 1),
    }


def _order_by_benchmark(order_check: dict[str, Any] | None, head: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if not order_check:
        return out
    for exp in order_check.get("experiments", []):
        for test in exp.get("tests", []):
            name = str(test.get("test"))
            entry = {k: test.get(k) for k in ("significant", "kw_p", "eta2", "delta_pct", "ci_case")}
            entry["experiment"] = exp.get("experiment")
            # Keep a significant entry over a non-significant one; otherwise prefer head's.
            prev = out.get(name)
            if (
                prev is None
                or (entry["significant"] and not prev["significant"])
                or (str(exp.get("experiment", "")).startswith(head) and not prev["significant"])
            ):
                out[name] = entry
    return out


def _extras(frame: pd.DataFrame) -> tuple[dict[str, Any] | None, Any, Any, list[dict[str, str]]]:
    from gate.analysis.carryover import analyze_carryover
    from gate.analysis.order import order_check_from_trials
    from gate.analysis.similarity import analyze_similarity

    trials = _extras_input(frame)
    warnings: list[dict[str, str]] = []
    order_check = order_check_from_trials(trials)
    if order_check:
        warnings.extend(order_check.get("warnings", []) or [])
    return order_check, analyze_carryover(trials), analyze_similarity(trials), warnings


def _extras_input(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows the order, carry-over and similarity checks see: failed trials stay (as a NaN
    value: they keep their place in the suite run), dropped and absent rows do not."""
    trials = frame.loc[~frame["kind"].isin(["dropped", "absent"])].drop(columns=["kind", "row"])
    return trials.assign(value=trials["value"].where(frame["kind"] == "ok"))


def order_check_of_logs(logs: TrialLogs, alpha: float = 0.05) -> dict[str, Any] | None:
    """The order check of ``order-check`` on trial logs (every version): the rows ``analyze``
    keeps, by its load rules and with the calibrated warm-up discarded, so that both commands
    test the same trials. None when the logs have no fixed-order runs."""
    from gate.analysis.order import order_check_from_trials

    frame = logs.frame
    usable = _discard_warmup(frame.loc[~frame["kind"].isin(["dropped", "absent"])], logs.meta)
    return order_check_from_trials(_extras_input(usable), alpha=alpha)


def _discard_warmup(frame: pd.DataFrame, meta: RunMeta | None) -> pd.DataFrame:
    """Drop the first ``discard_warmup`` ok measurements of every trial of a benchmark whose
    calibrated configuration says so (meta.json ``benchmark_configs``; calibration decided that
    its first measurements are warm-up)."""
    if meta is None:
        return frame
    drop = np.zeros(len(frame), dtype=bool)
    for name, cfg in meta.benchmark_configs.items():
        k, level = cfg.discard_warmup, cfg.warmup_level
        # run --calibration executed k extra positions at this level first (docs/contracts.md)
        if k > 0 and level in frame.columns:
            drop |= ((frame["benchmark"] == name) & (frame["kind"] == "ok") & (frame[level] <= k)).to_numpy()
    return frame.loc[~drop] if drop.any() else frame


def build_analysis(
    logs: TrialLogs,
    *,
    base: str | None,
    head: str | None,
    settings: AnalysisSettings,
    created_at: str | None = None,
    carryover: str = "exclude",
    statistics: StatisticPlan | None = None,
) -> Analysis:
    """The analysis.json document for ``base`` vs ``head`` (defaults from meta.json), checked
    as the writer checks it (:func:`gate.files.analysis_json.document`). ``carryover``:
    ``exclude`` leaves out the trials right after a disturbing predecessor where
    :mod:`gate.analysis.carryover_exclusion` allows it, ``report`` only reports them.
    ``statistics``: each benchmark's own statistic and who chose it (gate/analysis/statistic_source.py;
    ``settings.statistic`` must be its ``suite``); without it, the [[benchmark]] statistics of
    meta.json only."""
    base, head = resolve_versions(logs, base, head)
    coverage = shards.coverage(logs)  # refuses shards of different runs before anything is compared
    if coverage is not None:
        logs = replace(logs, metas=[shards.merged_meta(logs) or RunMeta(), *logs.metas[1:]])
    not_measured = set(coverage.not_measured) if coverage is not None else set()
    frame = logs.frame
    top_warnings = list(logs.warnings)
    for log_meta in logs.metas:
        top_warnings.extend(dict(w) for w in log_meta.warnings)

    usable = _discard_warmup(frame.loc[~frame["kind"].isin(["dropped", "absent"])], logs.meta)
    # Order-check logs (`run --order-check`) alternate fixed- and random-order suite runs. Fixed
    # order is the bias OrderSage tests for, so base/head are compared on the random-order
    # (RMIT) runs only; the fixed runs feed the order check.
    compared = usable
    compared_order = "all"
    if "order_type" in usable.columns:
        order_type = usable["order_type"].astype(str).str.strip().str.lower()
        if (order_type == "fixed").any() and (order_type == "random").any():
            compared = usable.loc[(order_type != "fixed").to_numpy()]
            compared_order = "random"
    cols = _Columns.of(compared)
    slices = cols.groups()
    base_names = {b for v, b in slices if v == base}
    head_names = {b for v, b in slices if v == head}
    # A version whose values were all zero or negative ("dropped") still ran: the benchmark must
    # come out `failed`, not vanish from the comparison as if it ran in one version only.
    dropped = frame.loc[frame["kind"] == "dropped"]
    base_names |= set(dropped.loc[dropped["version"] == base, "benchmark"].astype(str))
    head_names |= set(dropped.loc[dropped["version"] == head, "benchmark"].astype(str))
    base_names -= not_measured  # a shard that stopped early: listed as not measured, not compared
    head_names -= not_measured
    # Rows of a version that the warm-up discard or the order filter left without a value: the
    # benchmark ran, so it comes out `failed` (no value) and is named, never dropped unseen.
    ran = frame.loc[~frame["kind"].isin(["dropped", "absent"])]
    emptied: set[str] = set()
    for version, names_of in ((base, base_names), (head, head_names)):
        lost = set(ran.loc[ran["version"] == version, "benchmark"].astype(str)) - names_of - not_measured
        names_of |= lost
        emptied |= lost
    if emptied:
        listed = sorted(emptied)
        shown = ", ".join(listed[:10]) + (f" and {len(listed) - 10} more" if len(listed) > 10 else "")
        top_warnings.append(
            warning(
                WarningCode.NO_VALUES_LEFT,
                f"{len(listed)} benchmark(s) have trials in the log but no value left once the warm-up "
                f"(meta.json benchmark_configs) and fixed-order runs are set aside: {shown}; they count "
                "as failed",
                "rerun the benchmark with the full configuration (or let the run resume to the end); "
                "check meta.json's discard_warmup against the trials the log holds",
            )
        )
    only_base = sorted(base_names - head_names)
    only_head = sorted(head_names - base_names)
    for names, present, absent, action in (
        (only_base, base, head, "the benchmark was removed or renamed in head; if not, check head's build"),
        (only_head, head, base, "a new benchmark has no baseline yet; it is compared once base has it"),
    ):
        if names:
            shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
            top_warnings.append(
                warning(
                    WarningCode.ONE_VERSION_ONLY,
                    f"{len(names)} benchmark(s) ran only in {present}, not in {absent}, so were not compared: {shown}",
                    action,
                )
            )
    renames = likely_renames(only_base, only_head)
    if renames:
        shown = ", ".join(f"{old} → {new}" for old, new in renames[:10])
        top_warnings.append(
            warning(
                WarningCode.LIKELY_RENAME,
                f"{len(renames)} benchmark(s) of {base} look renamed in {head}, so neither was compared: {shown}",
                "if the workload is the same, keep the old name until this change is merged (it is compared "
                "under the new name from the next pull request on); if it changed, nothing to do",
            )
        )
    # Skipped in both versions: a configured name that exists in neither (a typo, or a benchmark
    # removed long ago). Not a change, so not counted; but it must not vanish without a word.
    skipped_rows = frame.loc[(frame["kind"] == "absent") & frame["version"].isin([base, head])]
    nowhere = sorted(set(skipped_rows["benchmark"].astype(str)) - base_names - head_names - not_measured)
    if nowhere:
        shown = ", ".join(nowhere[:10]) + (f" and {len(nowhere) - 10} more" if len(nowhere) > 10 else "")
        top_warnings.append(
            warning(
                WarningCode.IN_NO_VERSION,
                f"{len(nowhere)} benchmark(s) exist in neither {base} nor {head} (every trial was "
                f"skipped: the framework has no such benchmark), so were not compared: {shown}",
                "correct or remove the [[benchmark]] entry in .ordertrap.toml; the trial log's "
                "reason column quotes what the framework said",
            )
        )
    names = sorted(base_names & head_names)
    if cols.run is not None and names:
        runs_b = set(cols.run[(cols.version == base) & cols.ok].tolist())
        runs_h = set(cols.run[(cols.version == head) & cols.ok].tolist())
        if runs_b and runs_h and not runs_b & runs_h:
            # eval/eval_verdicts.py --split suite-runs: with base and head from different suite
            # runs the flat bootstrap's A/A false-positive rate rose from 0 % to 8 % (docs/statistics.md "How the gate decides").
            top_warnings.append(
                warning(
                    WarningCode.NOT_INTERLEAVED,
                    f"{base} and {head} were measured in different suite runs, so run-to-run variation "
                    "is not in the confidence intervals and regressions/improvements may be false alarms",
                    "measure base and head together with `ordertrap-gate run --base ... --head ...` "
                    "(RMIT interleaves them in every suite run)",
                )
            )
    pair = usable.loc[usable["version"].isin([base, head])]
    units = _per_benchmark_first(pair, "unit")
    hibs = _per_benchmark_first(pair, "higher_is_better")
    items: list[tuple[str, Sample, Sample, bool]] = []
    meta_rows: dict[str, tuple[str, bool]] = {}
    samples: dict[str, tuple[Sample, Sample, np.ndarray, np.ndarray]] = {}
    for name in names:
        sb, seq_b = cols.sample(slices.get((base, name), slice(0, 0)))
        sh, seq_h = cols.sample(slices.get((head, name), slice(0, 0)))
        hib = bool(hibs.get(name, False))
        meta_rows[name] = (str(units.get(name, "")), hib)
        items.append((name, sb, sh, hib))
        samples[name] = (sb, sh, seq_b, seq_h)
    configs = logs.meta.benchmark_configs if logs.meta is not None else {}
    calibrated = {n for n, config in configs.items() if config.calibrated} & set(names)
    thresholds = own_thresholds(logs.meta)
    order_check, carry, simil, extra_warnings = _extras(pair) if names else (None, None, None, [])
    plan = statistics or StatisticPlan(settings.statistic, logs.meta.statistics if logs.meta else {})
    comparisons = compare_many(items, settings, calibrated, thresholds, plan.own)
    exclusions: dict[str, dict[str, Any]] = {}
    if carryover == "exclude" and carry is not None:

        def compare_rows(rows: pd.DataFrame, which: Sequence[str]) -> list[Comparison]:
            sub = _Columns.of(rows)
            sub_slices = sub.groups()
            sub_items = [
                (
                    n,
                    sub.sample(sub_slices.get((base, n), slice(0, 0)))[0],
                    sub.sample(sub_slices.get((head, n), slice(0, 0)))[0],
                    meta_rows[n][1],
                )
                for n in which
            ]
            return compare_many(sub_items, settings, calibrated, thresholds, plan.own)

        comparisons, exclusions = carryover_exclusion.take_out(
            compared,
            _extras_input(pair),
            comparisons,
            carry,
            compare_rows,
            base=base,
            head=head,
            thresholds={n: thresholds.get(n, settings.threshold_pct) for n in names},
            higher_is_better={n: meta_rows[n][1] for n in names},
        )
    mismatched = _version_mismatches(pair, base, head)
    if mismatched:
        fix = (
            "log both versions with the same unit and direction (same adapter settings), or convert "
            "the values before merging the logs"
        )
        comparisons = [
            replace(
                c,
                verdict=Verdict.INCONCLUSIVE,
                reason=f"values cannot be compared: {mismatched[c.benchmark]}; {fix}",
                samples_needed=None,
                warnings=[
                    *c.warnings,
                    warning(WarningCode.VERSION_MISMATCH, f"{mismatched[c.benchmark]}: not compared", fix),
                ],
            )
            if c.benchmark in mismatched and c.verdict is not Verdict.FAILED
            else c
            for c in comparisons
        ]
    comparisons = given_up_reasons(comparisons, logs.metas, base, head)
    if coverage is not None:
        top_warnings.extend(coverage.warnings)
        unmeasured = shards.not_measured_comparisons(coverage)
        for c in unmeasured:
            meta_rows[c.benchmark] = (str(units.get(c.benchmark, "")), bool(hibs.get(c.benchmark, False)))
            empty = Sample(values=np.empty(0))
            samples[c.benchmark] = (empty, empty, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
        comparisons = [*comparisons, *unmeasured]

    top_warnings.extend(extra_warnings)
    top_warnings.extend(dict(w) for w in plan.warnings)
    # Suite-wide carry-over (every benchmark pooled by its predecessor): a leak that is too small
    # to reach significance per benchmark, like the demo's warm-start file, still shows here.
    suite_carry = getattr(carry, "suite", None) or {}
    top_warnings.extend(suite_carry.get("warnings", []) or [])
    order_map = _order_by_benchmark(order_check, head)
    followups = followup.per_benchmark(
        frame, compared, logs.meta, base, head, ((c.benchmark, c.verdict) for c in comparisons)
    )
    benchmarks = []
    for c in comparisons:
        entry = benchmark_entry(c, meta_rows, samples, logs, order_map, carry, simil, settings)
        entry["followup"] = followups[c.benchmark]
        if c.benchmark in plan.sources:
            entry["statistic_source"] = plan.sources[c.benchmark]
        if c.benchmark in exclusions:
            entry["carryover_exclusion"] = exclusions[c.benchmark]
        benchmarks.append(entry)
    benchmarks.sort(
        key=lambda b: (VERDICT_ORDER[Verdict(b["verdict"])], -abs(b["change_pct"] or 0.0), b["benchmark"])
    )
    counts = {str(v): 0 for v in Verdict}
    for b in benchmarks:
        counts[b["verdict"]] += 1
    failed_in_head_only = sum(fails_in_head_only(b) for b in benchmarks)
    noisy = sum(noisy_in_head(b) for b in benchmarks)
    meta = logs.meta
    time = time_summary(frame, meta)
    return analysis_json.document(
        tool_version=__version__,
        created_at=created_at or utc_timestamp(),
        base=base,
        head=head,
        inputs=list(logs.paths),
        settings={
            "statistic": settings.statistic,
            "confidence": settings.confidence,
            "threshold_pct": settings.threshold_pct,
            "resamples": settings.resamples,
            "seed": settings.seed,
            "bootstrap": settings.bootstrap,
            "pairing": settings.pairing,
            "interval": settings.method,
            "compared_order": compared_order,
            "carryover": carryover,
            # the upper quantile compared beside the verdict ("" = the tail check was off)
            "tail_statistic": settings.tail_statistic,
        },
        summary={
            "decision": str(
                default_decision(
                    counts,
                    failed_in_head_only=failed_in_head_only,
                    only_in_base=len(only_base),
                    noisy_in_head=noisy,
                )
            ),
            "counts": counts,
            "n_benchmarks": len(benchmarks),
            "failed_in_head_only": failed_in_head_only,
            "noisy_in_head": noisy,
            "only_in_base": len(only_base),
            "only_in_head": len(only_head),
            "time": time,
            **({} if coverage is None else {"shards": coverage.summary()}),
        },
        adaptive=followup.summary(frame, meta, time),
        benchmarks=benchmarks,
        order_check=order_check,
        carryover_matrix=getattr(carry, "matrix", None),
        carryover_suite=getattr(carry, "suite", None),
        similarity=getattr(simil, "suite", None),
        environment=run_meta.plain(meta.environment) if meta is not None else None,
        warnings=top_warnings,
    )


RENAME_SIMILARITY = 0.75  # difflib ratio above which two names are called alike


def likely_renames(only_base: Sequence[str], only_head: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs (name in base only, name in head only) that look like one benchmark renamed: one
    name extends the other by a level (``nth`` → ``nth/8``, ``Bench.m`` → ``Bench.m:size=10``), or
    the names are alike (difflib's ratio at least :data:`RENAME_SIMILARITY`, e.g. ``parse_json`` →
    ``parse_json_fast``). Each name is used once, closest pairs first. A hint for the reader, not a
    comparison: a renamed benchmark has no baseline either way."""
    import difflib

    candidates = []
    for old in only_base:
        for new in only_head:
            extends = any(
                longer.startswith(shorter) and longer[len(shorter)] in "/:_-. "
                for shorter, longer in ((old, new), (new, old))
                if len(longer) > len(shorter)
            )
            ratio = difflib.SequenceMatcher(None, old, new).ratio()
            if extends or ratio >= RENAME_SIMILARITY:
                candidates.append((not extends, -ratio, old, new))
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for _, _, old, new in sorted(candidates):
        if old not in used and new not in used:
            pairs.append((old, new))
            used |= {old, new}
    return sorted(pairs)
