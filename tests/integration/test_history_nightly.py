"""A 60-night history built through the CLI from synthetic nightly logs with planted steps.

The planted steps are the sizes docs/history.md measures (eval/changepoint_compare.py): a 5 %
and a 10 % step are found there in 98-100 % of series at the exact night, a 2 % step in 92 %
within a night, with fewer than 1 false change point per 100 nights; so this seeded history must
show each of them, name their commit ranges, and group the two benchmarks that moved together.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gate.cli import main
from gate.history.store import Store
from tests.fakes.nightly import commit, write_night

pytestmark = pytest.mark.slow

NIGHTS = 60
PLAN = {
    "steady": {},
    "alloc_a": {30: 0.05},  # one cause, two benchmarks
    "alloc_b": {30: 0.05},
    "parse": {42: -0.10},  # an improvement
    "tiny_step": {20: 0.02},
}


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nightly")
    store = root / "store"
    rng = np.random.default_rng(5)
    for k in range(1, NIGHTS + 1):
        trials = write_night(root / f"night-{k}", k, PLAN, rng)
        assert main(["history", "add", str(trials), "--store", str(store)]) == 0
    return store


def test_store_holds_one_entry_per_version_and_benchmark(history: Path) -> None:
    entries = Store(history).read()
    assert len(entries) == NIGHTS * 2 * len(PLAN)
    head = [e for e in entries if e.step is not None]
    assert {e.step.previous for e in head if e.commit == commit(30)} == {commit(29)}  # type: ignore[union-attr]
    assert all(e.source == "nightly" and e.ci is not None and e.n == 15 for e in entries)
    # September and October: one file per month, each line one JSON object
    assert sorted(p.name for p in (history / "data").iterdir()) == ["2026-09.jsonl", "2026-10.jsonl"]


def test_planted_steps_are_found_with_their_commit_range(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "changes.json"
    assert main(["history", "changes", "--store", str(history), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    cps = doc["change_points"]
    by = {(cp["benchmark"], cp["after"]): cp for cp in cps}
    # a series is named by its benchmark and the machine the nightly ran on
    together = [f"{name} [{by[(name, commit(30))]['machine']}]" for name in ("alloc_a", "alloc_b")]
    assert all(by[(name, commit(30))]["machine"] for name in ("alloc_a", "alloc_b"))
    for name in ("alloc_a", "alloc_b"):
        cp = by[(name, commit(30))]
        assert cp["before"] == commit(29)
        assert cp["direction"] == "regression"
        lo, hi = cp["change_ci"]
        assert lo < 5.0 + 1.5 and hi > 5.0 - 1.5 and lo > 0  # the planted +5 %, not zero
        assert cp["moved_together"] == together
    parse = by[("parse", commit(42))]
    assert parse["direction"] == "improvement" and parse["change_ci"][1] < 0
    tiny = [cp for cp in cps if cp["benchmark"] == "tiny_step" and abs(cp["index"] - 20) <= 1]
    assert len(tiny) == 1 and 0 < tiny[0]["change_pct"] < 4
    assert not [cp for cp in cps if cp["benchmark"] == "steady"]
    planted = {("alloc_a", 30), ("alloc_b", 30), ("parse", 42), ("tiny_step", tiny[0]["index"])}
    false = [cp for cp in cps if (cp["benchmark"], cp["index"]) not in planted]
    assert 100.0 * len(false) / (NIGHTS * len(PLAN)) < 1.0, false
    groups = {(g["before"], g["after"]): g["benchmarks"] for g in doc["groups"]}
    assert groups[(commit(29), commit(30))] == together
    dates = [g["after_date"] for g in doc["groups"]]
    assert dates == sorted(dates, reverse=True)  # newest commit range first


def test_adding_the_same_log_twice_is_refused_and_loses_nothing(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p.name: p.read_bytes() for p in (history / "data").iterdir()}
    trials = write_night(tmp_path / "again", 1, PLAN, np.random.default_rng(5))
    assert main(["history", "add", str(trials), "--store", str(history)]) == 2
    err = capsys.readouterr().err
    assert "already in the history" in err and "fix:" in err
    assert {p.name: p.read_bytes() for p in (history / "data").iterdir()} == before
