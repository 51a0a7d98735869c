"""Every warning code the gate writes, each with the category a reader sees it under.

A warning is data, ``{"code", "message", "action"}`` (docs/contracts.md), in analysis.json,
meta.json and calibration.json. The code's value is the string in those files, so files written
before this enum existed read the same. Each member carries its :class:`WarningCategory`: the
comment, the job summary and the HTML report group warnings by it (gate/render/view.py), and a
new code cannot be written without one. Only the host checks of gate/engine/environment.py are
``machine``: a data or log problem filed there would send the reader to the wrong place.
"""

from __future__ import annotations

from enum import StrEnum


class WarningCategory(StrEnum):
    """The sections of the rendered warnings; labels and order are in gate/render/view.py."""

    CONFIG = "config"
    ISOLATION = "isolation"
    ORDER = "order"
    CARRYOVER = "carryover"
    DISSIMILAR = "dissimilar"
    BENCHMARKS = "benchmarks"
    LOG = "log"
    MACHINE = "machine"
    NOISE = "noise"
    OTHER = "other"


_C = WarningCategory


class WarningCode(StrEnum):
    """A warning code (its value, as written to the files) and its category."""

    category: WarningCategory

    def __new__(cls, value: str, category: WarningCategory) -> WarningCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.category = category
        return member

    # host checks (gate/engine/environment.py): the only codes about machine preparation
    GOVERNOR = "governor", _C.MACHINE
    CPUFREQ_UNKNOWN = "cpufreq_unknown", _C.MACHINE
    TURBO = "turbo", _C.MACHINE
    SMT = "smt", _C.MACHINE
    ASLR = "aslr", _C.MACHINE
    LOAD = "load", _C.MACHINE
    # where run read .ordertrap.toml / calibration.json from, and what head changes (gate/config/config_files.py)
    HEAD_CONFIG_CHANGE = "head_config_change", _C.CONFIG
    HEAD_CALIBRATION_CHANGE = "head_calibration_change", _C.CONFIG
    CONFIG_CHOSEN_BY_HEAD = "config_chosen_by_head", _C.CONFIG
    # --config-from worktree, asked for by the operator: one note with a neutral action
    CONFIG_FROM_WORKTREE = "config_from_worktree", _C.CONFIG
    # the base branch changed the file since the pull request branched (run --config-rev)
    BASE_CONFIG_MOVED = "base_config_moved", _C.CONFIG
    BASE_CALIBRATION_MOVED = "base_calibration_moved", _C.CONFIG
    # the trials ran without the bubblewrap sandbox (gate/engine/sandbox.py)
    NO_SANDBOX = "no_sandbox", _C.ISOLATION
    SANDBOX_OFF = "sandbox_off", _C.ISOLATION
    # no seccomp filter for this host's architecture: unix sockets reachable (gate/engine/seccomp.py)
    UNIX_SOCKETS_UNFILTERED = "unix_sockets_unfiltered", _C.ISOLATION
    # on GitHub: security keys of a configuration head chose, and a file's sandbox = "off",
    # are not obeyed (gate/config/trusted_keys.py)
    HEAD_SECURITY_KEYS_IGNORED = "head_security_keys_ignored", _C.ISOLATION
    SANDBOX_OFF_IGNORED = "sandbox_off_ignored", _C.ISOLATION
    # order check (analysis/order.py, entries.py) and position drift (analysis/carryover.py)
    ORDER_EFFECT = "order_effect", _C.ORDER
    ORDER_UNTESTABLE = "order_untestable", _C.ORDER
    MEDIAN_CI_UNDEFINED = "median_ci_undefined", _C.ORDER
    ORDER_CHECK_INCOMPLETE = "order_check_incomplete", _C.ORDER
    POSITION_DRIFT = "position_drift", _C.ORDER
    # carry-over (analysis/carryover.py) and trials run without a reset between them (run)
    CARRYOVER = "carryover", _C.CARRYOVER
    CARRYOVER_SUITE = "carryover_suite", _C.CARRYOVER
    NO_RESET = "no_reset", _C.CARRYOVER
    # run similarity (analysis/similarity.py); DISSIMILAR is the renderer's line for a benchmark
    # whose similarity flags carry no warning of their own
    DISSIMILAR = "dissimilar", _C.DISSIMILAR
    RUNS_DISSIMILAR = "runs_dissimilar", _C.DISSIMILAR
    INSTANCES_DISSIMILAR = "instances_dissimilar", _C.DISSIMILAR
    RUNNER_DISSIMILAR = "runner_dissimilar", _C.DISSIMILAR
    # benchmarks left out of the comparison, or whose values or configuration are not as intended
    ONE_VERSION_ONLY = "one_version_only", _C.BENCHMARKS
    IN_NO_VERSION = "in_no_version", _C.BENCHMARKS
    LIKELY_RENAME = "likely_rename", _C.BENCHMARKS
    BENCHMARK_SOURCE_CHANGED = "benchmark_source_changed", _C.BENCHMARKS
    VERSION_MISMATCH = "version_mismatch", _C.BENCHMARKS
    IDENTICAL_VALUES = "identical_values", _C.BENCHMARKS
    CALIBRATION_COVERAGE = "calibration_coverage", _C.BENCHMARKS
    CALIBRATION_TOO_SMALL = "calibration_too_small", _C.BENCHMARKS
    # the slowest values changed while the deciding (lower) statistic did not (gate/analysis/tail.py)
    TAIL_CHANGE = "tail_change", _C.BENCHMARKS
    FULL_TOO_SMALL = "full_too_small", _C.BENCHMARKS  # run and calibrate alike
    # rows or files of the trial logs that were skipped, and base/head not measured together
    EMPTY_LOG = "empty_log", _C.LOG
    UNREADABLE_LOG = "unreadable_log", _C.LOG
    META_UNREADABLE = "meta_unreadable", _C.LOG
    META_INVALID = "meta_invalid", _C.LOG
    MISSING_NAME = "missing_name", _C.LOG
    DUPLICATE_TRIALS = "duplicate_trials", _C.LOG
    CUT_OFF_ROW = "cut_off_row", _C.LOG  # analyze and calibrate alike
    # run --shard: a shard's log missing or incomplete, or replicated unevenly (gate/analysis/shards.py)
    SHARD_MISSING = "shard_missing", _C.LOG
    SHARD_INCOMPLETE = "shard_incomplete", _C.LOG
    SHARD_REPLICAS = "shard_replicas", _C.LOG
    INVALID_VALUE = "invalid_value", _C.LOG
    NON_POSITIVE_VALUE = "non_positive_value", _C.LOG
    EMPTY_VALUES = "empty_values", _C.LOG
    NO_VALUES_LEFT = "no_values_left", _C.LOG  # a benchmark of the log the analysis has no value of
    NOT_INTERLEAVED = "not_interleaved", _C.LOG
    PAIRING_UNAVAILABLE = "pairing_unavailable", _C.LOG
    REAPED = "reaped", _C.LOG
    # rows calibrate leaves out or treats as gaps (gate/calibration/dataset.py)
    CALIBRATED_ROWS_IGNORED = "calibrated-rows-ignored", _C.LOG
    FIXED_ORDER_ROWS_IGNORED = "fixed-order-rows-ignored", _C.LOG
    FAILED_TRIALS = "failed-trials", _C.LOG
    GAPS = "gaps", _C.LOG
    BAD_VALUES_AS_GAPS = "bad-values-as-gaps", _C.LOG
    NO_DURATIONS = "no-durations", _C.LOG
    AUDIT_CALIBRATED_ELSEWHERE = "audit-calibrated-elsewhere", _C.LOG
    # the planned trials used the whole follow-up budget of `run --budget` (gate/adaptive/stage.py)
    PLANNED_OVER_BUDGET = "planned_over_budget", _C.CONFIG
    # statistic = "calibrated" on a run that recorded no calibrated statistic (gate/analysis/statistic_source.py)
    NO_CALIBRATED_STATISTIC = "no_calibrated_statistic", _C.CONFIG
    # values too spread to resolve a small change
    UNSTABLE = "unstable", _C.NOISE
    # head's values far more spread than base's on an inconclusive benchmark (gate/decision.py)
    NOISY_HEAD = "noisy_head", _C.NOISE
    NOT_CALIBRATED = "not-calibrated", _C.NOISE
    # calibrate found no stable configuration for any benchmark: it saves nothing (gate/commands/calibrate.py)
    NOTHING_STABLE = "nothing-stable", _C.NOISE
    # a chosen configuration is not stable on the log's later suite runs (gate/calibration/later_runs.py)
    CALIBRATION_NOT_HOLDING = "calibration-not-holding", _C.NOISE


_BY_VALUE: dict[str, WarningCode] = {m.value: m for m in WarningCode}


def lookup(code: str) -> WarningCode | None:
    """The member for ``code`` as found in a file (surrounding space and case ignored), or None
    for a code the gate does not write (another tool's, shown as it is)."""
    return _BY_VALUE.get(code.strip().lower())
