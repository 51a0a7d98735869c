"""Blips are not change points (docs/history.md, "Blips"): a level must hold MIN_SEGMENT points;
one or two outlying nights are named as outliers; a step in the newest nights waits; a change
point whose step CI holds zero is no change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from gate.history.changes import MIN_SEGMENT, find_changes
from gate.history.store import Entry


def _entries(values: np.ndarray, name: str = "b") -> list[Entry]:
    start = datetime(2026, 1, 1, 2, tzinfo=UTC)
    return [
        Entry(
            run=f"n{i}",
            date=(start + timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            seq=0,
            commit=f"c{i:03d}",
            benchmark=name,
            unit="ns",
            higher_is_better=False,
            estimate=float(v),
            ci=None,
            n=1,
        )
        for i, v in enumerate(values)
    ]


def test_a_two_night_blip_is_outliers_not_a_pair_of_change_points() -> None:
    rng = np.random.default_rng(1)
    v = 100 * (1 + 0.005 * rng.standard_normal(60))
    v[40:42] *= 0.6  # two fast nights, then back: Otava alone reports a step down and one up
    doc = find_changes(_entries(v))
    assert doc["change_points"] == []
    assert [o["commit"] for o in doc["outliers"]] == ["c040", "c041"]


def test_a_lasting_step_beside_a_blip_is_found_at_its_commit() -> None:
    rng = np.random.default_rng(2)
    v = 100 * (1 + 0.005 * rng.standard_normal(60))
    v[30:] *= 1.10
    v[15] *= 1.6  # a single slow night before it
    v[16] *= 1.6
    doc = find_changes(_entries(v))
    (cp,) = doc["change_points"]
    assert cp["after"] == "c030" and cp["before"] == "c029" and 8 < cp["change_pct"] < 12
    assert {o["commit"] for o in doc["outliers"]} == {"c015", "c016"}


def test_a_step_in_the_newest_nights_is_pending_until_it_holds() -> None:
    rng = np.random.default_rng(3)
    v = 100 * (1 + 0.004 * rng.standard_normal(40))
    v[-(MIN_SEGMENT - 1) :] *= 1.3
    doc = find_changes(_entries(v))
    assert doc["change_points"] == []
    (p,) = doc["pending"]
    assert p["after"] == f"c{40 - (MIN_SEGMENT - 1):03d}" and p["points_since"] == MIN_SEGMENT - 1
    # one more night at the new level confirms it
    w = np.append(v, 130 * (1 + 0.004 * rng.standard_normal()))
    (cp,) = find_changes(_entries(w))["change_points"]
    assert cp["after"] == p["after"]


def test_a_change_point_without_a_level_change_is_dropped() -> None:
    # the spread grows but the level stays: E-Divisive (a test of distributions) finds a change
    # point at index 38 on this seed; its step CI holds 0, so it is no change to report
    rng = np.random.default_rng(0)
    v = np.concatenate(
        [100 * (1 + 0.001 * rng.standard_normal(30)), 100 * (1 + 0.05 * rng.standard_normal(30))]
    )
    doc = find_changes(_entries(v))
    for cp in doc["change_points"]:
        lo, hi = cp["change_ci"]
        assert not lo <= 0.0 <= hi, cp


def test_every_reported_change_point_is_bounded_by_levels_that_hold() -> None:
    rng = np.random.default_rng(7)
    v = 100 * (1 + 0.01 * rng.standard_normal(300))
    for at in rng.choice(300, size=12, replace=False):
        v[at] *= 1.4  # scattered one-night spikes
    v[150:] *= 1.08
    doc = find_changes(_entries(v))
    for cp in doc["change_points"]:
        assert cp["nights_before"] >= MIN_SEGMENT and cp["nights_after"] >= MIN_SEGMENT
    assert any(abs(cp["index"] - 150) <= 1 for cp in doc["change_points"])
