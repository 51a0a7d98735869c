"""What to do about a benchmark left inconclusive for lack of values: the remedy its reason names
(docs/statistics.md "How the gate decides"). Plain words, escaped where they are shown."""

from __future__ import annotations

from gate.model import MAX_VALUES

# How to get more values per version: with the full configuration, more repetitions
FULL_REMEDY = "raise [full].iterations or [full].suite_runs in .ordertrap.toml"


def too_noisy_remedy() -> str:
    """Advice when the values needed exceed what one run may collect (``MAX_VALUES`` per benchmark
    and version, a limit ``[full]`` and calibrations are held to): raising the levels is refused,
    so point at the noise and at the benchmark's own threshold instead."""
    return (
        f"more than the {MAX_VALUES:,} values one run may collect per benchmark and version, so more "
        "values will not resolve it: reduce the noise (quiet the runner, see the noise warnings) or, "
        "if a change of this size does not matter for this benchmark, give it a larger "
        "[[benchmark]] threshold_pct"
    )


def calibrated_remedy(needed: int | None) -> str:
    """How to get more values for a benchmark that ran its calibrated minimal configuration:
    [full] does not change what it runs, a calibration with a higher floor does. Worded for one
    benchmark and for several alike: the comment gives benchmarks with the same next step one line
    (gate/render/comment_lines.py)."""
    floor = f" --min-values {needed}" if needed else " --min-values N"
    return (
        f"recalibrate from a full-configuration log with `ordertrap-gate calibrate TRIALS.csv{floor}` "
        "(no configuration with fewer values per version is then chosen; [full] does not change a "
        "calibrated one, and if [full] itself gives fewer, raise it first), or run without --calibration"
    )
