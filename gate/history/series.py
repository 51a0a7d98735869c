"""The series of a history: one benchmark on one machine in one environment, in one unit.

A series mixes nothing that is not the same measurement: the store's ``series_key`` (benchmark
name with its parameters, runner, environment) separates machines and environments, and the
units of a series are converted to its newest entry's unit when they are time units of one family
(``gate/history/units.py``); a series whose units cannot be converted is split by unit, with a
warning. Nor does it mix statistics: a night decided by the 10th percentile and one decided by the
median differ in level with no change in performance (docs/statistics.md), so a benchmark whose
nights used several statistics is split into a series per statistic, with a warning naming each
change ("statistic changed: median → p10"), and change points are found within each.
Series are named ``benchmark [machine · environment]`` wherever they are shown.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from gate.history import units
from gate.history.store import Entry, branch_entries


@dataclass(frozen=True)
class Point:
    commit: str
    date: str
    run: str
    estimate: float
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class Trend:
    benchmark: str
    unit: str
    higher_is_better: bool
    points: tuple[Point, ...]
    machine: str | None = None
    environment: str | None = None
    split_unit: bool = False  # the benchmark's units could not be converted: this is one of them
    statistic: str | None = None  # the statistic of every point (entries: the one that decided)
    split_statistic: bool = False  # the benchmark's nights used several statistics: this is one

    @property
    def name(self) -> str:
        """The series' name: the benchmark, and where it ran when the store says."""
        where = " · ".join(x for x in (self.machine, self.environment) if x)
        unit = f" in {self.unit or 'no unit'}" if self.split_unit else ""
        if self.split_statistic:
            unit += f" ({self.statistic})"
        return (
            f"{self.benchmark} [{where}]{unit}"
            if where
            else f"{self.benchmark}{unit}"
            if unit
            else self.benchmark
        )


def _converted(e: Entry, target: str) -> tuple[float, tuple[float, float] | None]:
    assert e.estimate is not None
    if e.unit == target:
        return e.estimate, e.ci
    ci = (units.convert(e.ci[0], e.unit, target), units.convert(e.ci[1], e.unit, target)) if e.ci else None
    return units.convert(e.estimate, e.unit, target), ci


def series_with_warnings(entries: Sequence[Entry], include_pr: bool = False) -> tuple[list[Trend], list[str]]:
    """One series per (benchmark, machine, environment, unit family), one point per commit in
    branch order, and a message per benchmark whose units had to be split.

    A nightly run measures the previous commit again as its base; the point of a commit is its
    first measurement (as head the night it was new), later ones stay in the store but would
    count one commit twice in the series."""
    by_key: dict[tuple[str, str, str], list[Entry]] = {}
    for e in branch_entries(entries, include_pr=include_pr):
        if e.estimate is not None:
            by_key.setdefault(e.series_key, []).append(e)
    out: list[Trend] = []
    warnings: list[str] = []
    for key in sorted(by_key):
        group = by_key[key]
        families: dict[str, list[Entry]] = {}
        for e in group:
            families.setdefault(units.parse(e.unit)[0], []).append(e)
        split = len(families) > 1
        base = Trend(key[0], "", False, (), key[1] or None, key[2] or None)
        if split:
            found = ", ".join(sorted({e.unit or "no unit" for e in group}))
            warnings.append(
                f"{base.name}: units {found} cannot be converted into each other, so it is split into "
                f"{len(families)} series, one per unit (fix: give the benchmark one unit, or rename it when "
                "what it measures changes)"
            )
        changed = _statistic_changes(group)
        if changed:
            shown = "; ".join(changed[:3]) + (f"; and {len(changed) - 3} more" if len(changed) > 3 else "")
            warnings.append(
                f"{base.name}: {shown}. The values of different statistics differ in level without any "
                "change in performance, so the nights of each statistic form a series of their own and "
                "no change point is found where the statistic changed (fix: none needed; to keep one "
                'series, give the benchmark one statistic: [suite] or [[benchmark]] statistic instead of "calibrated")'
            )
        by_statistic: dict[tuple[str, str], list[Entry]] = {}
        for fam, members in families.items():
            for e in members:
                by_statistic.setdefault((fam, e.statistic), []).append(e)
        for fam, statistic in sorted(by_statistic):
            members = by_statistic[(fam, statistic)]
            target = members[-1].unit  # the newest entry's unit labels the series
            points = []
            for e in _first_per_commit(members):
                est, ci = _converted(e, target)
                points.append(Point(e.commit, e.date, e.run, est, ci))
            out.append(
                Trend(
                    key[0],
                    target,
                    members[-1].higher_is_better,
                    tuple(points),
                    key[1] or None,
                    key[2] or None,
                    split,
                    statistic,
                    bool(changed),
                )
            )
    return out, warnings


def _first_per_commit(entries: Sequence[Entry]) -> list[Entry]:
    """Each commit's first measurement, in order: the point of a commit (series_with_warnings)."""
    seen: set[str] = set()
    out = []
    for e in entries:
        if e.commit not in seen:
            seen.add(e.commit)
            out.append(e)
    return out


def _statistic_changes(group: Sequence[Entry]) -> list[str]:
    """ "statistic changed: median → p10 at COMMIT (DATE)" for each night whose statistic differs
    from the night before (entries in branch order). An entry written before the store recorded a
    statistic reads as the median (gate/history/store.py), which is what it was."""
    out = []
    for before, after in itertools.pairwise(_first_per_commit(group)):
        if after.statistic != before.statistic:
            out.append(
                f"statistic changed: {before.statistic} → {after.statistic} at {after.commit[:12]} ({after.date[:10]})"
            )
    return out


def series_of(entries: Sequence[Entry], include_pr: bool = False) -> list[Trend]:
    return series_with_warnings(entries, include_pr)[0]
