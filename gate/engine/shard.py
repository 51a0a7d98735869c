"""Split one suite over N runners (``run --shard K/N``): a PURE function of the names found, their
expected cost and the seed, so every runner of a GitHub Actions matrix computes the same split
without talking to the others (docs/github-actions.md, "Sharding a suite").

The unit of the split is the benchmark, both versions together: a benchmark's base and head
trials stay on one machine, interleaved in RMIT order (µOpTime §2), so the comparison never
mixes machines. Discovery runs first on every runner (Go sub-benchmarks, pytest ids); the split
is made from the union of the names found in base and head, sorted, so the same revisions give
the same names and the same split everywhere.

Balance is by expected time, not by count: **greedy longest-processing-time first** (LPT, Graham
1969, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2)): benchmarks in
decreasing cost, each to the shard with the least expected time so far. Its slowest shard is at
most 4/3 − 1/(3N) times the optimal makespan, and in practice within a few percent of the ideal
total/N when no single benchmark dominates (the evaluation in docs/performance.md). An exact
split is NP-hard (multiway number partitioning) and would buy little over LPT where the costs
themselves are estimates from the nightly run.

Expected cost of a benchmark: the calibration's ``cost`` of its chosen configuration per value
(seconds when the nightly logged durations), times the values the run plans for it (its level
configuration, warm-up included) and the versions; a benchmark the calibration does not know
costs the median per-value cost of those it does. Without a calibration every value costs the
same, so the split balances values. Ties (equal costs) are broken by a hash of the seed and the
name, so benchmarks with similar names (one family of sub-benchmarks) spread over the shards
instead of filling one.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.engine.schedule import LevelConfig
from gate.errors import ConfigError
from gate.files.calibration_json import Calibration
from gate.files.schema import Invalid
from gate.files.settings import MAX_SHARDS, SHARD

METHOD = "lpt"


@dataclass(frozen=True)
class ShardSpec:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, where: str = "--shard") -> ShardSpec:
    """``K/N`` with 1 ≤ K ≤ N ≤ :data:`MAX_SHARDS`."""
    fix = (
        f"write {where} as K/N, this runner's shard K of N (1 ≤ K ≤ N ≤ {MAX_SHARDS}), e.g. 2/4; "
        "in a workflow matrix: shard: ${{ matrix.shard }}/4"
    )
    try:
        return ShardSpec(*SHARD.text(str(text), where))  # the domain: gate/files/settings.py
    except Invalid as bad:
        raise ConfigError(f"{where} {text!r} is {SHARD.problem(bad)}", fix) from None


def _values(level: LevelConfig) -> int:
    return level.suite_runs * level.iterations * level.measurements


def expected_costs(
    names: Sequence[str],
    levels: Mapping[str, LevelConfig],
    calibration: Calibration | None,
    versions: int,
) -> tuple[dict[str, float], str]:
    """Expected cost of each benchmark (module doc) and its unit: ``s`` or ``values``."""
    per_value: dict[str, float] = {}
    unit = "values"
    if calibration is not None and calibration.summary.get("cost_unit") == "s":
        unit = "s"
        for name, choice in calibration.benchmarks.items():
            n = 1
            for count in choice.config.values():
                n *= int(count)
            if choice.cost is not None and choice.cost > 0 and n > 0:
                per_value[name] = float(choice.cost) / n
    fallback = statistics.median(per_value.values()) if per_value else 1.0
    if not per_value:
        unit = "values"
    return {n: per_value.get(n, fallback) * _values(levels[n]) * max(1, versions) for n in names}, unit


def _tiebreak(seed: int, name: str) -> bytes:
    return hashlib.sha256(f"{seed}\0{name}".encode()).digest()


def assign(names: Sequence[str], costs: Mapping[str, float], count: int, seed: int) -> dict[str, int]:
    """Shard (1-based) of every benchmark: LPT over ``costs`` (module doc). Depends only on the
    set of names, their costs, ``count`` and ``seed``, not on the order of ``names``."""
    if count < 1:
        raise ValueError("count must be at least 1")
    order = sorted(set(names), key=lambda n: (-float(costs[n]), _tiebreak(seed, n)))
    load = [0.0] * count
    out: dict[str, int] = {}
    for name in order:
        k = min(range(count), key=lambda i: (load[i], i))
        load[k] += float(costs[name])
        out[name] = k + 1
    return out


def loads(assignment: Mapping[str, int], costs: Mapping[str, float], count: int) -> list[float]:
    """Expected cost of each shard (index 0 = shard 1)."""
    out = [0.0] * count
    for name, k in assignment.items():
        out[k - 1] += float(costs[name])
    return out


def refuse_empty(spec: ShardSpec, total: int) -> None:
    """A shard with no benchmark: more shards than benchmarks."""
    raise ConfigError(
        f"shard {spec} has no benchmark: the suite has {total} benchmark(s) for {spec.count} shards",
        f"use at most {total} shards (docs/github-actions.md, 'Choosing N'), or run without --shard",
    )
