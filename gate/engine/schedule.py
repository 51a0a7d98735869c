"""The trial schedule: a PURE function of its inputs and the seed (no IO, no clock).

Two designs:

* **RMIT** (µOpTime §2, Fig. 1; Abedi & Brecht's Randomized Multiple Interleaved Trials): every
  suite run executes all trials (benchmark × version × iteration) in a fresh random order, so
  base and head are interleaved on the same machine and neither always runs first or after the
  same neighbour.
* **Order check** (OrderSage §3, Algorithm 1 lines 1-9): runs alternate between ONE fixed
  baseline order (drawn once from the seed, identical in every fixed run) and a fresh random
  permutation per random run. Every run holds each benchmark × version exactly once, because
  Algorithm 1 runs "the same set of trials" in every run and compares per-trial distributions
  across runs; more samples come from more runs (``pairs``), not from repeats inside a run.

With per-benchmark (calibrated) configurations a benchmark needing ``k`` suite runs out of ``S``
is assigned to the ``k`` currently least-loaded runs (ties broken by the seed), so every suite
run keeps mixing many benchmarks: µOpTime §5 ("Ensure proper RMIT execution") warns that
stopping stable benchmarks early leaves late runs with a single benchmark, which is no longer
RMIT. The greedy keeps the number of distinct benchmarks per run within one of each other.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from gate.errors import ConfigError
from gate.model import ConfigSource, LevelConfig, OrderType, Trial

# Trials one schedule may hold. It is built in memory and written in full to meta.json: about
# 2.3 kB of memory and 190 bytes of meta.json per trial (a 1,000,000-trial schedule took 2.3 GB
# and 30 s before the first trial), and each trial starts at least one process, so a longer
# schedule is a typo (e.g. [full] suite_runs = 1e9) or a suite to split, not a run to start.
MAX_TRIALS = 100_000


def _check(benchmarks: Sequence[str], versions: Sequence[str]) -> None:
    if not benchmarks:
        raise ConfigError("no benchmarks to schedule", "add [[benchmark]] entries or widen [suite].include")
    if not versions:
        raise ConfigError("no versions to schedule", "pass --head REF (and --base REF)")
    if len(set(benchmarks)) != len(benchmarks) or len(set(versions)) != len(versions):
        raise ConfigError(
            "benchmark names and version names must be unique",
            "rename the duplicate benchmark, or pass two different revision strings to --base/--head",
        )


def _check_size(trials: int, what: str, fix: str) -> None:
    if trials > MAX_TRIALS:
        raise ConfigError(
            f"the schedule would hold {trials:,} trials ({what}), more than {MAX_TRIALS:,}",
            f"{fix}, or narrow [suite].include and run the rest separately (analyze merges several "
            "trial logs)",
        )


def assign_suite_runs(
    benchmarks: Sequence[str], runs_needed: Mapping[str, int], total_runs: int, rng: random.Random
) -> dict[str, list[int]]:
    """Which suite runs (1-based) each benchmark takes part in, balancing distinct benchmarks per run.

    Benchmarks that need every run take all of them; the others are placed greedily into the
    least-loaded runs, visiting benchmarks with the most runs first and breaking ties randomly,
    so load differs by at most one between runs (µOpTime §5).
    """
    load = [0] * total_runs
    assigned: dict[str, list[int]] = {}
    order = list(benchmarks)
    rng.shuffle(order)
    order.sort(key=lambda b: -runs_needed[b])  # stable: ties keep the shuffled order
    for name in order:
        k = min(runs_needed[name], total_runs)
        tiebreak = [rng.random() for _ in range(total_runs)]
        chosen = sorted(range(total_runs), key=lambda r: (load[r], tiebreak[r]))[:k]
        for r in chosen:
            load[r] += 1
        assigned[name] = sorted(r + 1 for r in chosen)
    return assigned


def rmit_schedule(
    seed: int,
    benchmarks: Sequence[str],
    versions: Sequence[str],
    configs: Mapping[str, LevelConfig],
    instance: str,
) -> list[Trial]:
    """Randomized Multiple Interleaved Trials (µOpTime §2): one fresh random order per suite run."""
    _check(benchmarks, versions)
    _check_size(
        len(versions) * sum(configs[b].suite_runs * configs[b].iterations for b in benchmarks),
        f"{len(benchmarks)} benchmarks × {len(versions)} versions × suite runs × iterations",
        "lower [full].suite_runs or [full].iterations",
    )
    rng = random.Random(seed)
    total_runs = max(configs[b].suite_runs for b in benchmarks)
    runs_of = assign_suite_runs(benchmarks, {b: configs[b].suite_runs for b in benchmarks}, total_runs, rng)
    return _rmit_runs(rng, benchmarks, versions, configs, instance, runs_of, total_runs)


def followup_schedule(
    seed: int,
    round_no: int,
    runs: Mapping[str, int],
    versions: Sequence[str],
    configs: Mapping[str, LevelConfig],
    instance: str,
    *,
    first_trial: int,
    first_suite_run: int,
) -> list[Trial]:
    """The RMIT suite runs of follow-up round ``round_no``: ``max(runs)`` suite runs, benchmark
    ``b`` in the first ``runs[b]`` of them, each run holding all its trials (both versions, every
    iteration) in a fresh random order from ``seed`` (the round's own seed). Trial and suite-run
    numbers continue after ``first_trial - 1`` and ``first_suite_run - 1``."""
    benchmarks = sorted(runs)
    _check(benchmarks, versions)
    total_runs = max(runs.values())
    _check_size(
        len(versions) * sum(runs[b] * configs[b].iterations for b in benchmarks),
        f"follow-up round {round_no}",
        "lower the budget",
    )
    runs_of = {b: list(range(1, runs[b] + 1)) for b in benchmarks}
    trials = _rmit_runs(random.Random(seed), benchmarks, versions, configs, instance, runs_of, total_runs)
    return [
        replace(
            t,
            trial=t.trial + first_trial - 1,
            suite_run=t.suite_run + first_suite_run - 1,
            round=round_no,
        )
        for t in trials
    ]


def _rmit_runs(
    rng: random.Random,
    benchmarks: Sequence[str],
    versions: Sequence[str],
    configs: Mapping[str, LevelConfig],
    instance: str,
    runs_of: Mapping[str, Sequence[int]],
    total_runs: int,
) -> list[Trial]:
    trials: list[Trial] = []
    for suite_run in range(1, total_runs + 1):
        slots = [
            (b, v, it)
            for b in benchmarks
            if suite_run in runs_of[b]
            for v in versions
            for it in range(1, configs[b].iterations + 1)
        ]
        rng.shuffle(slots)
        # Iterations are numbered by their order of appearance inside the run, so iteration 1
        # is always the first execution of benchmark × version in that run (warm-up analysis
        # relies on that).
        seen: dict[tuple[str, str], int] = {}
        for position, (b, v, _) in enumerate(slots, start=1):
            seen[(b, v)] = seen.get((b, v), 0) + 1
            trials.append(
                Trial(
                    trial=len(trials) + 1,
                    instance=instance,
                    suite_run=suite_run,
                    order_type=OrderType.RANDOM.value,
                    position=position,
                    benchmark=b,
                    version=v,
                    iteration=seen[(b, v)],
                    measurements=configs[b].measurements,
                    config_source=configs[b].config_source,
                )
            )
    return trials


def order_check_schedule(
    seed: int,
    benchmarks: Sequence[str],
    versions: Sequence[str],
    pairs: int,
    measurements: int,
    instance: str,
) -> list[Trial]:
    """OrderSage §3 / Algorithm 1: ``pairs`` × (fixed baseline run, random run), interleaved."""
    _check(benchmarks, versions)
    if pairs < 1:
        raise ConfigError(f"--order-pairs must be at least 1, got {pairs}", "pass --order-pairs 10 or more")
    _check_size(
        2 * pairs * len(benchmarks) * len(versions),
        f"2 × {pairs} order pairs × {len(benchmarks)} benchmarks × {len(versions)} versions",
        "lower --order-pairs (default: [full] suite_runs × iterations)",
    )
    rng = random.Random(seed)
    cells = [(b, v) for b in benchmarks for v in versions]
    baseline = list(cells)
    rng.shuffle(baseline)  # ¶ the baseline order: any order, fixed once, drawn from the seed
    trials: list[Trial] = []
    for suite_run in range(1, 2 * pairs + 1):
        fixed = suite_run % 2 == 1  # Algorithm 1: fixed (lines 3-5) then random (lines 7-9)
        if fixed:
            order = baseline
        else:
            order = list(cells)
            rng.shuffle(order)
        for position, (b, v) in enumerate(order, start=1):
            trials.append(
                Trial(
                    trial=len(trials) + 1,
                    instance=instance,
                    suite_run=suite_run,
                    order_type=(OrderType.FIXED if fixed else OrderType.RANDOM).value,
                    position=position,
                    benchmark=b,
                    version=v,
                    iteration=1,
                    measurements=measurements,
                    config_source=ConfigSource.FULL.value,
                )
            )
    return trials
