"""Which statistic decides each benchmark, and who chose it (docs/statistics.md "A statistic per
benchmark"): the one resolution ``analyze``, the run's follow-up rounds and ``history add`` share.

Precedence, most explicit first:

1. a benchmark's own ``[[benchmark]] statistic`` (meta.json ``statistics``);
2. ``analyze --statistic`` / the action's ``statistic`` input;
3. ``[suite] statistic`` (meta.json ``statistic``);
4. the statistic the nightly calibration chose for the benchmark (calibration.json
   ``benchmarks[].statistic``, copied by ``run --calibration`` into meta.json
   ``calibrated_statistics``) — when the suite opts in with ``statistic = "calibrated"`` (in 2. or 3.),
   or without a word when :data:`CALIBRATED_BY_DEFAULT`;
5. the default, p10.

An explicit statistic in 2. or 3. is one statistic for every benchmark, so it replaces the
calibrated choices; a ``[[benchmark]]`` entry replaces them for its benchmark only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gate.analysis.compare import DEFAULT_STATISTIC
from gate.files.run_meta import RunMeta
from gate.model import warning
from gate.statistic import CALIBRATED
from gate.warning_codes import WarningCode

# Decided by eval/eval_statistic_choice.py (docs/statistics.md "A statistic per benchmark").
CALIBRATED_BY_DEFAULT = False

BENCHMARK = "benchmark"  # its [[benchmark]] entry
CALIBRATION = "calibration"  # chosen by the nightly calibration


@dataclass(frozen=True)
class StatisticPlan:
    """``suite``: the statistic of every benchmark not in ``own``; ``own``: a benchmark's own;
    ``sources``: who chose each of ``own`` (:data:`BENCHMARK` or :data:`CALIBRATION`)."""

    suite: str = DEFAULT_STATISTIC
    own: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    calibrated: bool = False  # whether the calibration's choices applied
    # the suite asked for the calibrated choices and the run recorded none (analysis.json warnings)
    warnings: Sequence[Mapping[str, Any]] = ()


def resolve(requested: str | None, meta: RunMeta | None) -> StatisticPlan:
    """The plan for ``requested`` (``--statistic``, canonical or ``"calibrated"``; None: not given)
    and the run's meta.json (``[suite] statistic``, ``[[benchmark]]`` statistics, the calibrated
    choices)."""
    run = meta.statistic if meta is not None else None
    if requested is not None and requested != CALIBRATED:
        suite, calibrated = requested, False
    elif requested == CALIBRATED:
        suite, calibrated = (run if run not in (None, CALIBRATED) else DEFAULT_STATISTIC), True
    elif run == CALIBRATED:
        suite, calibrated = DEFAULT_STATISTIC, True
    elif run is not None:
        suite, calibrated = run, False
    else:
        suite, calibrated = DEFAULT_STATISTIC, CALIBRATED_BY_DEFAULT
    given = dict(meta.statistics) if meta is not None else {}
    chosen = dict(meta.calibrated_statistics) if (meta is not None and calibrated) else {}
    own = {**chosen, **given}
    sources = {n: (BENCHMARK if n in given else CALIBRATION) for n in own}
    asked = CALIBRATED in (requested, run)
    unmet = [] if not asked or chosen else [_no_choices(suite)]
    return StatisticPlan(suite=suite, own=own, sources=sources, calibrated=calibrated, warnings=unmet)


def _no_choices(suite: str) -> dict[str, str]:
    return warning(
        WarningCode.NO_CALIBRATED_STATISTIC,
        f'statistic = "calibrated", but the run recorded no statistic chosen by a calibration '
        f"(meta.json calibrated_statistics): every benchmark was decided by the suite's {suite}",
        "run with --calibration FILE (the action's calibration input) naming a calibration.json "
        "that calibrate of this version wrote (schema 2, whose benchmarks have a statistic), or "
        'name the statistic instead of "calibrated"',
    )
