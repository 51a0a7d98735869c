"""What a run measures: the benchmarks each version has, the configuration of each, and the
schedule (docs/running.md "Running benchmarks").

Discovery asks the adapter (it runs the revision's code, so it takes the checked-out versions);
everything after it is a pure function of the config, the calibration, the seed and the names
found, so a resumed run plans exactly the same trials. Warnings are returned as data; the caller
shows and records them.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.adapters._common import StepProgress
from gate.adapters.base import Adapter, BenchmarkSpec, ProcessRunner, VersionContext
from gate.bidi import show_controls_on_one_line
from gate.config.project_config import ProjectConfig
from gate.engine.schedule import LevelConfig, Trial, order_check_schedule, rmit_schedule
from gate.engine.shard import ShardSpec, assign, expected_costs, loads, refuse_empty
from gate.errors import ConfigError, InputError
from gate.files.calibration_json import Calibration
from gate.model import LEVELS, VERDICT_CONFIDENCE, ConfigSource, rank_floor, trial_floor
from gate.warning_codes import WarningCode


@dataclass(frozen=True)
class RunPlan:
    """The benchmarks to run (per version, as the adapter found and the config selected them),
    the configuration of each, the planned schedule, and the warnings planning gave."""

    per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
    names: Sequence[str]
    levels: Mapping[str, LevelConfig]
    schedule: Sequence[Trial]
    warnings: Sequence[dict[str, str]]
    shard: ShardPlan | None = None  # run --shard: the whole suite's split


@dataclass(frozen=True)
class ShardPlan:
    """``run --shard K/N``: this runner's shard, and the split of the whole suite that every
    runner computes alike (gate/engine/shard.py); meta.json ``shard``."""

    spec: ShardSpec
    seed: int
    suite: Sequence[str]  # every benchmark of the suite, sorted
    assignment: Mapping[str, int]  # benchmark -> shard (1-based)
    expected: Sequence[float]  # expected cost of each shard
    cost_unit: str  # "s" | "values"


def _split(
    spec: ShardSpec | None,
    per_version: Mapping[str, Mapping[str, BenchmarkSpec]],
    names: list[str],
    levels: Mapping[str, LevelConfig],
    calibration: Calibration | None,
    versions: int,
    seed: int,
) -> tuple[dict[str, dict[str, BenchmarkSpec]], list[str], ShardPlan | None]:
    """This shard's benchmarks (per version and sorted) and the split, or everything when unsharded."""
    if spec is None:
        return {v: dict(s) for v, s in per_version.items()}, names, None
    costs, unit = expected_costs(names, levels, calibration, versions)
    assignment = assign(names, costs, spec.count, seed)
    mine = [n for n in names if assignment[n] == spec.index]
    if not mine:
        refuse_empty(spec, len(names))
    keep = set(mine)
    shard = ShardPlan(
        spec,
        seed,
        tuple(names),
        assignment,
        tuple(round(x, 3) for x in loads(assignment, costs, spec.count)),
        unit,
    )
    return {v: {n: s for n, s in specs.items() if n in keep} for v, specs in per_version.items()}, mine, shard


def plan_run(
    per_version: Mapping[str, Mapping[str, BenchmarkSpec]],
    config: ProjectConfig,
    calibration: Calibration | None,
    *,
    order_check: bool,
    revisions: Sequence[str],
    seed: int,
    instance: str,
    order_pairs: int | None,
    shard: ShardSpec | None = None,
) -> RunPlan:
    """The schedule for the benchmarks found: ``--order-check`` alternates a fixed and random
    orders of the full configuration (OrderSage §3); otherwise RMIT with each benchmark's
    calibrated or full configuration. ``shard``: only this shard's benchmarks are scheduled,
    after discovery and by name, so every runner splits alike (gate/engine/shard.py)."""
    names = sorted({name for specs in per_version.values() for name in specs})
    warnings: list[dict[str, str]] = []
    if order_check:
        assert order_pairs is not None
        levels = {n: LevelConfig(1, 1, config.full.measurements) for n in names}
        # the split weighs what the order check runs: 2 × pairs trials of each benchmark × version
        weights = {n: LevelConfig(2 * order_pairs, 1, config.full.measurements) for n in names}
        per_version, names, split = _split(
            shard, per_version, names, weights, calibration, len(revisions), seed
        )
        levels = {n: levels[n] for n in names}
        schedule = order_check_schedule(
            seed, names, revisions, order_pairs, config.full.measurements, instance
        )
        return RunPlan(per_version, names, levels, schedule, warnings, split)
    floor = rank_floor(VERDICT_CONFIDENCE)
    if config.full.values < floor and len(revisions) == 2:
        warnings.append(
            {
                "code": WarningCode.FULL_TOO_SMALL.value,
                "message": f"[full] in {config.path} gives {config.full.values} values per version, fewer "
                f"than {floor}: with so few values no change can be called at 99 %, every change comes "
                "out inconclusive",
                "action": "raise [full].iterations or [full].suite_runs (suite_runs × iterations × "
                f"measurements ≥ {floor})",
            }
        )
    if calibration is not None:
        warnings.extend(check_calibration(calibration, config, names))
    levels = level_configs(names, config, calibration)
    per_version, names, split = _split(shard, per_version, names, levels, calibration, len(revisions), seed)
    levels = {n: levels[n] for n in names}
    schedule = rmit_schedule(seed, names, revisions, levels, instance)
    return RunPlan(per_version, names, levels, schedule, warnings, split)


def discover(
    adapter: Adapter, runner: ProcessRunner, contexts: Mapping[str, VersionContext], config: ProjectConfig
) -> tuple[dict[str, dict[str, BenchmarkSpec]], dict[str, list[str]]]:
    """The benchmarks to run per version, and every name the adapter found (before include/exclude)."""
    settings = config.adapter_options()
    per_version: dict[str, dict[str, BenchmarkSpec]] = {}
    found: dict[str, list[str]] = {}
    produced: set[str] = set()  # names found, and the [[benchmark]] patterns they were expanded from
    for revision, ctx in contexts.items():
        # discovery may build (cargo, go test -c, a JVM listing): say so, and how long it took
        step = StepProgress(f"finding the {adapter.name} benchmarks of {show_controls_on_one_line(revision)}")
        specs = adapter.discover(ctx, runner, settings)
        step.done(f"{len(specs)} found")
        found[revision] = [s.name for s in specs]
        produced.update(n for s in specs for n in (s.name, s.options.get("pattern")) if isinstance(n, str))
        per_version[revision] = {s.name: config.override(s) for s in specs if config.selects(s.name)}
    lost = [b.name for b in config.benchmarks if b.name not in produced]
    if lost:
        raise ConfigError(
            f"[[benchmark]] {lost[0]!r} matches no benchmark in {' or '.join(contexts)}",
            "correct the name (a pattern such as BenchmarkSum64/* is matched level by level, * standing "
            'for any characters within a level; docs/frameworks.md, "[go]"), or remove the entry',
        )
    if not any(per_version.values()):
        names = sorted({n for listed in found.values() for n in listed})
        raise ConfigError(
            f"no benchmark is left to run after [suite].include/exclude; found {len(names)}"
            + (
                f", e.g. {', '.join(show_controls_on_one_line(n) for n in _closest(names, config))}"
                if names
                else ""
            ),
            "widen [suite].include or narrow [suite].exclude (names are matched with re.search)",
        )
    return per_version, found


def _closest(names: Sequence[str], config: ProjectConfig, most: int = 3) -> list[str]:
    """Names found that look most like the include patterns: a name's form (JMH's
    ``Class.method:key=value``, Criterion's ``group/function``) is what a pattern gets wrong."""
    picked: list[str] = []
    for pattern in config.suite.include:
        picked += difflib.get_close_matches(pattern, names, n=most, cutoff=0.0)
    picked += names
    return list(dict.fromkeys(picked))[:most]


def level_configs(
    benchmarks: Sequence[str], config: ProjectConfig, calibration: Calibration | None
) -> dict[str, LevelConfig]:
    full = LevelConfig(config.full.suite_runs, config.full.iterations, config.full.measurements)
    level, count = warmup_of(calibration)
    out: dict[str, LevelConfig] = {}
    for name in benchmarks:
        c = calibration.config_for(name) if calibration else None
        if c is None or never_stable(calibration, name):
            # µOpTime §5: a benchmark no configuration made stable keeps the full configuration;
            # it is labelled full, so no report counts it as a calibrated minimal one
            out[name] = full
        else:
            # calibration.json counts positions *after* the warm-up (docs/contracts.md): run the
            # discarded warm-up positions too, so the analysis can drop them as calibrate did.
            out[name] = LevelConfig(
                c.get("suite_run", full.suite_runs),
                c.get("iteration", full.iterations) + (count if level == "iteration" else 0),
                c.get("measurement", full.measurements) + (count if level == "measurement" else 0),
                ConfigSource.CALIBRATION.value,
            )
    return out


def never_stable(calibration: Calibration | None, name: str) -> bool:
    return calibration is not None and calibration.never_stable(name)


def calibration_line(calibration: Calibration | None, levels: Mapping[str, LevelConfig]) -> str | None:
    """What the calibration changes in this run, counted from what each benchmark will run:
    '3 of 12 benchmark(s) run a calibrated minimal configuration; 9 are never stable in
    calibration.json and run the full configuration (the calibration saves nothing for them)'.
    A never-stable benchmark is in the file but runs [full] (µOpTime §5): counting it as
    calibrated would hide a calibration that saves nothing."""
    if calibration is None:
        return None
    minimal = sum(1 for c in levels.values() if c.config_source == ConfigSource.CALIBRATION.value)
    never = sum(1 for n in levels if never_stable(calibration, n))
    missing = len(levels) - minimal - never
    text = f"{minimal} of {len(levels)} benchmark(s) run a calibrated minimal configuration"
    if never:
        text += (
            f"; {never} {'is' if never == 1 else 'are'} never stable in {calibration.path} and run the full "
            "configuration (the calibration saves nothing for them"
            + (": see docs/calibration.md, 'When nothing is stable')" if minimal == 0 else ")")
        )
    if missing:
        text += f"; {missing} not in the file run the full configuration"
    return text


def check_calibration(
    calibration: Calibration, config: ProjectConfig, names: Sequence[str]
) -> list[dict[str, str]]:
    """Refuse a calibration that does not fit this suite; warn when it covers few benchmarks.

    A file calibrated on other levels (e.g. the µOpTime data's ``second``) or for a larger [full]
    would otherwise be applied silently, half of it ignored or more work run than the full
    configuration itself."""
    fix = "recalibrate from a full run of this suite: `ordertrap-gate calibrate TRIALS.csv --out FILE`"
    if tuple(calibration.levels) != LEVELS:
        raise InputError(
            f"calibration {calibration.path} has levels {', '.join(calibration.levels)}; runs use "
            f"{', '.join(LEVELS)}",
            fix,
        )
    full = {"suite_run": config.full.suite_runs, "iteration": config.full.iterations,
            "measurement": config.full.measurements}  # fmt: skip
    for name, levels in calibration.configs.items():
        over = {k: v for k, v in levels.items() if v > full.get(k, v)}
        if over:
            raise InputError(
                f"calibration {calibration.path}: {name} asks for {over}, more than [full] "
                f"({full['suite_run']}×{full['iteration']}×{full['measurement']}) of {config.path}",
                fix + " (the file was made for another [full] configuration)",
            )
    # `calibrate --discard-warmup N` refuses an N that drops every position of the level, so a file
    # calibrated from a full run of this suite discards fewer than [full] has; runs execute the
    # discarded positions on top of the calibrated ones.
    level, count = warmup_of(calibration)
    if count >= full.get(level, count + 1):
        raise InputError(
            f"calibration {calibration.path} discards the first {count} {level}(s) as warm-up, but [full] "
            f"of {config.path} has only {full[level]}",
            fix + f" (with --discard-warmup below {full[level]})",
        )
    warnings = []
    known = [n for n in names if calibration.config_for(n) is not None]
    if len(known) < len(names) / 2:
        warnings.append(
            {
                "code": WarningCode.CALIBRATION_COVERAGE.value,
                "message": f"calibration {calibration.path} covers {len(known)} of {len(names)} benchmarks; "
                "the others run the full configuration",
                "action": "recalibrate (the nightly workflow does) if benchmarks were renamed or added",
            }
        )
    # A calibration made before the verdict's rank-test guard may give 3-4 values per version, one
    # made before the test over trials 3-4 trials of several values: with those, no change can be
    # called at 99 % (gate/analysis/compare.py, rank_floor; gate/model.py, trial_floor;
    # gate/calibration/decidable.py).
    floor = rank_floor(VERDICT_CONFIDENCE)
    small = {
        n: math.prod(c.values())
        for n in known
        if (c := calibration.config_for(n)) and math.prod(c.values()) < floor
    }
    trials_floor = trial_floor(VERDICT_CONFIDENCE)
    few_trials = {}
    for n in known:
        c = calibration.config_for(n) or {}
        trials, per_trial = c.get("suite_run", 1) * c.get("iteration", 1), c.get("measurement", 1)
        if n not in small and per_trial >= 2 and 2 <= trials < trials_floor:
            few_trials[n] = f"{trials} trials of {per_trial}"
    if small or few_trials:
        shown = ", ".join(f"{n} ({v})" for n, v in list(small.items())[:5]) + (" …" if len(small) > 5 else "")
        shown_trials = ", ".join(f"{n} ({v})" for n, v in list(few_trials.items())[:5]) + (
            " …" if len(few_trials) > 5 else ""
        )
        which = " and ".join(
            part
            for part in (
                f"{len(small)} benchmark(s) fewer than {floor} values per version: {shown}" if small else "",
                f"{len(few_trials)} benchmark(s) fewer than {trials_floor} trials (processes) of several "
                f"values per version: {shown_trials}"
                if few_trials
                else "",
            )
            if part
        )
        warnings.append(
            {
                "code": WarningCode.CALIBRATION_TOO_SMALL.value,
                "message": f"calibration {calibration.path} gives {which}; with so few no change can be "
                "called at 99 %, they come out inconclusive",
                "action": (
                    "recalibrate with this gate version (`ordertrap-gate calibrate` picks at least "
                    f"{floor} values and {trials_floor} trials), or run without --calibration"
                    if config.full.values >= floor
                    else f"raise [full].iterations or [full].suite_runs (their product with measurements "
                    f"≥ {floor}; now {config.full.values}), rerun the full configuration and recalibrate"
                ),
            }
        )
    return warnings


def warmup_of(calibration: Calibration | None) -> tuple[str, int]:
    """(level, count) of the warm-up that calibrate discarded (µOpTime RQ3), ("measurement", 0) if none."""
    if calibration is None:
        return "measurement", 0
    level = str(calibration.discard_warmup.get("level") or "measurement")
    count = int(calibration.discard_warmup.get("count") or 0)
    if level not in ("measurement", "iteration") and count:
        raise InputError(
            f"calibration {calibration.path} discards warm-up at level {level!r}, which runs cannot repeat",
            "recalibrate with --warmup-level measurement or iteration",
        )
    return level, count


def thresholds(
    config: ProjectConfig, names: Sequence[str], per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
) -> dict[str, float]:
    """``threshold_pct`` of each benchmark whose [[benchmark]] entry (its name, or the pattern it
    was expanded from) sets one; analyze uses it instead of the suite-wide threshold."""
    given = {b.name: b.options["threshold_pct"] for b in config.benchmarks if "threshold_pct" in b.options}
    out: dict[str, float] = {}
    for n in names:
        spec = next((specs[n] for specs in per_version.values() if n in specs), None)
        pattern = spec.options.get("pattern") if spec is not None else None
        t = given.get(n, given.get(pattern) if isinstance(pattern, str) else None)
        if t is not None:
            out[n] = float(t)
    return out


def statistics(
    config: ProjectConfig, names: Sequence[str], per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
) -> dict[str, str]:
    """``statistic`` of each benchmark whose [[benchmark]] entry (its name, or the pattern it was
    expanded from) sets one; analyze uses it instead of the suite's statistic."""
    given = {b.name: b.options["statistic"] for b in config.benchmarks if "statistic" in b.options}
    out: dict[str, str] = {}
    for n in names:
        spec = next((specs[n] for specs in per_version.values() if n in specs), None)
        pattern = spec.options.get("pattern") if spec is not None else None
        st = given.get(n, given.get(pattern) if isinstance(pattern, str) else None)
        if st is not None:
            out[n] = str(st)
    return out


def calibrated_statistics(calibration: Calibration | None, names: Sequence[str]) -> dict[str, str]:
    """The statistic calibration.json chose for each planned benchmark's PRs (meta.json
    ``calibrated_statistics``); whether it decides is gate/analysis/statistic_source.py's rule."""
    if calibration is None:
        return {}
    return {n: st for n in names if (st := calibration.statistic_for(n)) is not None}


def benchmark_meta(
    names: Sequence[str], per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
) -> dict[str, Any]:
    """Unit, direction and the versions that have each benchmark (a missing one is ``skipped``)."""
    out: dict[str, Any] = {}
    for n in names:
        have = [rev for rev, specs in per_version.items() if n in specs]
        spec = per_version[have[0]][n]
        out[n] = {"unit": spec.unit, "higher_is_better": spec.higher_is_better, "versions": have}
        if isinstance(spec.options.get("pattern"), str):  # expanded from this [[benchmark]] pattern
            out[n]["pattern"] = spec.options["pattern"]
    return out
