"""The adaptive stage of a run: after the planned trials, with a budget, the follow-up rounds.

:func:`after_planned` is what ``run`` hands the engine (:func:`gate.engine.measure.measure`'s
``then``): the engine runs the planned trials, then this builds :class:`gate.adaptive.loop.Rounds`
from the one :class:`~gate.rounds.config.AdaptiveConfig` of the run and its budget clock. The
loop brings the analysis stack (pandas, scipy), imported only with a budget, which ``run --help``
and a run without a budget do not pay for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gate.engine.measure import MetaFile, Session, Then
from gate.engine.schedule import LevelConfig, Trial
from gate.files.run_meta import RunMeta
from gate.rounds.clock import BudgetClock, WallClock, prior_elapsed_s
from gate.rounds.config import AdaptiveConfig
from gate.warning_codes import WarningCode

Warn = Callable[[Mapping[str, str]], None]


def budget_clock(log_path: Path, finished: set[int]) -> WallClock:
    """The run's budget clock, started before the first planned trial (docs/running.md): the
    trials finished by earlier, interrupted invocations count with their logged time."""
    return WallClock(log_path, prior_s=prior_elapsed_s(log_path, finished))


def after_planned(
    adaptive: AdaptiveConfig, clock: BudgetClock, levels: Mapping[str, LevelConfig], warn: Warn
) -> Then | None:
    """The follow-up rounds to run after the planned trials (None without a budget)."""
    if not adaptive.on:
        return None

    def rounds(session: Session, meta_file: MetaFile, planned: Sequence[Trial]) -> bool:
        from gate.adaptive.loop import Rounds

        meta = meta_file.meta
        assert meta.instance is not None and meta.seed is not None
        loop = Rounds(
            budget=adaptive,
            meta=_warn_planned_over_budget(meta, adaptive, clock, warn),
            save_meta=meta_file.write,
            log_path=session.log.path,
            planned=planned,
            levels=levels,
            versions=list(session.contexts),
            instance=meta.instance,
            seed=meta.seed,
            clock=clock,
            drive=session.drive,
        )
        return loop.run(session.finished)

    return rounds


def planned_over_budget_action(meta: RunMeta) -> str:
    """What to change when the planned trials used the budget. A calibration is the fix only
    where it shortens the planned part: when the one in use saves nothing (every benchmark
    never stable, docs/calibration.md "When nothing is stable"), it is not offered again."""
    raise_budget = (
        "raise --budget / [adaptive].budget above the planned suite's time (see the nightly's time line)"
    )
    if meta.calibration is None:
        return (
            f"{raise_budget}, or measure fewer values per benchmark with a calibration (docs/calibration.md)"
        )
    if not any(c.calibrated for c in meta.benchmark_configs.values()):
        return (
            f"{raise_budget}: the calibration in use saves nothing here (every benchmark runs the full "
            "configuration, never stable), so quiet the machine or see docs/calibration.md, 'When nothing "
            "is stable'"
        )
    return f"{raise_budget}, or recalibrate: the planned part is what the calibrated configurations cost"


def _warn_planned_over_budget(
    meta: RunMeta, adaptive: AdaptiveConfig, clock: BudgetClock, warn: Warn
) -> RunMeta:
    """Planned trials always all run; when they alone used the budget, no round can follow: the
    warning is shown, and recorded in the returned meta (written with the first round's save)."""
    used = clock.used_s()
    if used < adaptive.budget_s or (meta.adaptive is not None and meta.adaptive.rounds):
        return meta
    w = {
        "code": WarningCode.PLANNED_OVER_BUDGET.value,
        "message": f"the planned trials alone took {used:.0f} s, more than the follow-up budget of "
        f"{adaptive.budget_s:.0f} s, so no follow-up round can run",
        "action": planned_over_budget_action(meta),
    }
    warn(w)
    return meta.with_warning(w)
