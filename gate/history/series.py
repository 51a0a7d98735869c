"""The series of a history: one benchmark on one machine in one environment, in one unit.

A series mixes nothing that is not the same measurement: the store's ``series_key`` (benchmark
name with its parameters, runner, environment) separates machines and environments, and the
units of a series are converted to its newest entry's unit when they are time units of one family
(``gate/history/units.py``); a series whose units cannot be converted is split by unit, with a
warning. Series are named ``benchmark [machine · environment]`` wherever they are shown.
"""

from __future__ import annotations

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

    @property
    def name(self) -> str:
        """The series' name: the benchmark, and where it ran when the store says."""
        where = " · ".join(x for x in (self.machine, self.environment) if x)
        unit = f" in {self.unit or 'no unit'}" if self.split_unit else ""
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
        for fam in sorted(families):
            members = families[fam]
            target = members[-1].unit  # the newest entry's unit labels the series
            seen: set[str] = set()
            points = []
            for e in members:
                if e.commit in seen:
                    continue
                seen.add(e.commit)
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
                )
            )
    return out, warnings


def series_of(entries: Sequence[Entry], include_pr: bool = False) -> list[Trend]:
    return series_with_warnings(entries, include_pr)[0]
