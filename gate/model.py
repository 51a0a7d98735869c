"""Shared data contracts between the stages (see docs/contracts.md for the full JSON shapes).

Everything another stage reads is named here once: trial-log columns, trial statuses,
verdicts, level names and the schema version of every file the gate writes (pyperf's
``_JSON_VERSION`` habit: a reader can refuse a file it does not understand).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Final

from gate.warning_codes import WarningCode

# ---- schema versions -------------------------------------------------------------------------
TRIAL_LOG_SCHEMA: Final = 2  # trials.csv + meta.json (2: column `round`, meta `adaptive`)
ANALYSIS_SCHEMA: Final = 2  # analysis.json (2: adaptive, benchmarks[].followup)
CALIBRATION_SCHEMA: Final = 2  # .ordertrap/calibration.json (2: benchmarks[].statistic, statistic_choice)
ORDER_CHECK_SCHEMA: Final = 1  # order-check --json

# ---- trial log ---------------------------------------------------------------------------------
# One row per measurement; a failed trial is one row with an empty value. Levels are 1-based
# like the µOpTime data set. ``trial`` is the 1-based index of the trial in the schedule; all
# rows of one process share it (and share ``elapsed_s``, the wall time of the whole trial).
TRIAL_COLUMNS: Final[tuple[str, ...]] = (
    "trial",
    "benchmark",
    "version",
    "instance",
    "suite_run",
    "order_type",
    "position",
    "iteration",
    "measurement",
    "value",
    "unit",
    "higher_is_better",
    "status",
    "reason",
    "started_at",
    "elapsed_s",
    "config",
    "round",  # 0 = planned, k = follow-up round k (schema 2; a log of `run` without it is refused)
)

# The level columns of the gate's own trial logs, outermost first (µOpTime: suite runs ×
# iterations × measurements; the Go data set calls the innermost level ``second``).
LEVELS: Final[tuple[str, ...]] = ("suite_run", "iteration", "measurement")


class TrialStatus(StrEnum):
    OK = "ok"
    ERROR = "error"  # crashed or exited non-zero
    TIMEOUT = "timeout"  # killed after [suite].timeout seconds
    INVALID = "invalid"  # ran, but printed no parsable value, or NaN/inf
    SKIPPED = "skipped"  # adapter refused the trial (e.g. the benchmark is missing in this version)


class OrderType(StrEnum):
    RANDOM = "random"
    FIXED = "fixed"


class ConfigSource(StrEnum):
    FULL = "full"  # the [full] configuration of .ordertrap.toml
    CALIBRATION = "calibration"  # a per-benchmark minimal configuration from calibration.json


class Verdict(StrEnum):
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    UNCHANGED = "unchanged"
    INCONCLUSIVE = "inconclusive"
    FAILED = "failed"


VERDICT_CONFIDENCE: Final = 0.99  # analyze's default CI level (gate.analysis.compare.AnalysisSettings)


def rank_floor(confidence: float = VERDICT_CONFIDENCE) -> int:
    """The fewest values per version (equal sizes) with which the verdict's exact rank test can
    reject at ``1 - confidence`` at all: its smallest two-sided p-value is 2 / C(2n, n)
    (0.95 → 4, 0.99 → 5, 0.999 → 7). Fewer values cannot make a regression or improvement."""
    alpha = 1.0 - confidence
    n = 1
    while 2.0 / math.comb(2 * n, n) > alpha:
        n += 1
    return n


def trial_level(confidence: float) -> float:
    """The one-sided level of :func:`gate.stats.rank.trial_guard`'s randomization test:
    (1 − confidence)/2 in the direction of the change, as no two-sided test has fixed the
    direction before it."""
    return (1.0 - confidence) / 2.0


def trial_floor(confidence: float) -> int:
    """The fewest trials per version (equal counts) with which :func:`gate.stats.rank.trial_guard`
    can pass at all: its smallest p-value is 1 / C(2k, k) (the observed arrangement alone as
    extreme; with too few arrangements inside suite runs it tests over all trials), which must
    reach :func:`trial_level`. 0.95 → 4, 0.99 → 5, 0.9975 → 6. Fewer trials of several values each can
    never make a regression or improvement (docs/statistics.md "Few trials")."""
    level = trial_level(confidence)
    k = 1
    while 1.0 / math.comb(2 * k, k) > level:
        k += 1
    return k


def small_sample_limit(confidence: float = VERDICT_CONFIDENCE, quantile: float = 0.5) -> int:
    """Below this many values a percentile-bootstrap CI of the ``quantile`` cannot be trusted at
    ``confidence``: the fewest n for which a distribution-free CI of that quantile exists at all
    (order statistics: the quantile lies below the smallest of n values with probability
    (1 − q)^n, above the largest with q^n, and each must be ≤ (1 − confidence)/2). The median
    (q = 0.5): 2·0.5^n ≤ 1 − confidence, 0.95 → 6, 0.99 → 8; the 10th percentile: 0.9^n ≤ 0.005,
    0.99 → 51 (0.95 → 36). A resample never reaches below the sample's minimum, so under this
    limit a low quantile's bootstrap CI is too narrow on the side that matters. The verdict's
    rank-test guard applies below (gate/analysis/compare.py)."""
    if not 0.0 < quantile < 1.0:
        raise ValueError("quantile must be in (0, 1)")
    half_alpha = (1.0 - confidence) / 2.0
    tail = max(quantile, 1.0 - quantile)
    return max(1, math.ceil(math.log(half_alpha) / math.log(tail) - 1e-9))


# The domains of the settings a person chooses (threshold_pct, confidence, statistic, bootstrap,
# ...) are declared once in gate/files/settings.py.
STATISTICS: Final = ("median", "mean")


# Values per benchmark and version one run may collect: [full] (suite_runs × iterations ×
# measurements) and meta.json's benchmark_configs are held to it. The width of a bootstrap CI
# shrinks like 1/√n, so beyond a few hundred values more buy little, and analyze holds
# resamples × n indices in memory (10,000 × 10,000 × 8 bytes = 800 MB at this bound; 20,000 values
# per version took 1.7 GB). A typo such as 1e9 is caught before any work.
MAX_VALUES: Final = 10_000

# Size guards for the files a user or a pull request's artifact hands the gate (trial logs in the
# fork-safe workflow_run flow, meta.json and analysis.json come from the PR's own run). Measured with
# benchmarks/bench_big_inputs.py (docs/performance.md "Size guards"): analyze's memory grows with the
# values of one benchmark and version (the bootstrap holds resamples × n indices: 15,000 values per
# version took 2.7 GB, 5,000 took 1.1 GB), so a log holding more than MAX_VALUES values for one
# benchmark and version — more than one run collects — is refused before any statistics. A JSON
# file is parsed whole, so it is refused beyond MAX_JSON_BYTES (the analysis.json analyze wrote for
# 30 benchmarks × 2 × 5,000 values has 7.8 MB; publish read one of 50,000 benchmarks, 61 MB, at a
# peak of 468 MB, so this bound stays near the 2 GB target).
MAX_JSON_BYTES: Final = 256 * 1024 * 1024
# One trial log is read whole by pandas, at about 5 times its size (300,000 rows, 25 MB: 116 MB
# above the interpreter's), so a log of this size needs ~1.2 GB just to read: ~3 million rows,
# 150 times the 10,000 benchmarks of an 8-shard run (200,822 rows, docs/performance.md).
MAX_TRIAL_LOG_BYTES: Final = 256 * 1024 * 1024
# Benchmarks in one analysis: its time grows with them (10,000 took 52 s CPU; 50,000 had not
# finished after 21 minutes at load 13-21, at 710 MB), and no PR comment lists more; the largest
# suite benchmarks/bench_analyze_large.py analyses is this one. Beyond it the suite is split into
# shards, each analysed on its own.
MAX_BENCHMARKS: Final = 100_000


def warning(code: WarningCode, message: str, action: str) -> dict[str, str]:
    """A warning as every stage reports it (docs/contracts.md): what happened, and what to do.
    The code is a :class:`~gate.warning_codes.WarningCode`, stored as its plain string value."""
    if not isinstance(code, WarningCode):
        raise TypeError(
            f"warning code {code!r} is not a WarningCode: add it to gate/warning_codes.py with its category"
        )
    return {"code": code.value, "message": message, "action": action}


def utc_timestamp() -> str:
    """The ``created_at`` stamp of every file the gate writes: UTC, to the second, ISO 8601."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# The schedule's units (gate/engine/schedule.py builds them; the trial log and meta.json store them).
@dataclass(frozen=True)
class LevelConfig:
    """How often one benchmark runs: (suite runs, iterations per suite run, values per trial)."""

    suite_runs: int
    iterations: int
    measurements: int
    config_source: str = ConfigSource.FULL.value


@dataclass(frozen=True)
class Trial:
    trial: int  # 1-based index in the schedule
    instance: str
    suite_run: int
    order_type: str
    position: int  # 1-based inside the suite run
    benchmark: str
    version: str
    iteration: int  # 1-based iteration of this benchmark × version inside the suite run
    measurements: int
    config_source: str  # ConfigSource value; trials.csv column `config`
    round: int = 0  # 0 = planned, k = follow-up round k (gate/rounds/planner.py)

    def as_meta(self) -> dict[str, object]:
        """The meta.json ``schedule`` entry (docs/contracts.md); the round is where it is listed."""
        d = asdict(self)
        del d["config_source"], d["round"]
        return d
