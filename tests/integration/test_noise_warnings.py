"""Noise warnings a person can act on: judged by the robust spread (RMAD), so a few outliers
do not flag a benchmark whose median and CI are tight; warnings that share an action are
printed with the action once. `ordertrap-gate analyze` as a real process."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from gate.stats import stability
from tests.integration.test_analyze_cli import analyze, by_name, make_log

PLAN = {
    "tight_with_outliers": (1.0, 0.003, False),
    "spread_a": (1.0, 0.15, False),
    "spread_b": (1.0, 0.15, False),
}


def _log_with_outliers(out: Path) -> Path:
    """3 of the 45 values per version of tight_with_outliers are 4× the rest (a GC pause, a
    page-cache miss): the CV exceeds 10 % while the median does not move."""
    path = make_log(out, PLAN)
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        if r["benchmark"] == "tight_with_outliers" and r["iteration"] == "1" and r["measurement"] == "1":
            r["value"] = f"{float(r['value']) * 4:.9g}"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_outliers_alone_do_not_make_a_benchmark_noisy(tmp_path: Path) -> None:
    log = _log_with_outliers(tmp_path / "run")
    proc = analyze(log, "--json", tmp_path / "a.json", "--resamples", "2000")
    assert proc.returncode == 0, proc.stderr
    got = by_name(json.loads((tmp_path / "a.json").read_text()))
    tight = got["tight_with_outliers"]
    assert tight["stability"]["base"]["cv"] > 0.10 and tight["stability"]["head"]["cv"] > 0.10
    assert tight["verdict"] == "unchanged"  # the median's CI is tight: the verdict is clear
    assert [w["code"] for w in tight["warnings"]] == []
    assert "tight_with_outliers" not in proc.stderr


def test_a_wide_spread_gets_one_warning_per_benchmark_naming_the_rmad(tmp_path: Path) -> None:
    log = _log_with_outliers(tmp_path / "run")
    proc = analyze(log, "--json", tmp_path / "a.json", "--resamples", "2000")
    got = by_name(json.loads((tmp_path / "a.json").read_text()))
    for name in ("spread_a", "spread_b"):
        (w,) = [w for w in got[name]["warnings"] if w["code"] == "unstable"]
        rmad = {role: got[name]["stability"][role]["rmad"] for role in ("base", "head")}
        assert min(rmad.values()) > 0.6745 * 0.10  # the spread is real, not a few outliers
        assert "RMAD" in w["message"] and f"{rmad['base'] * 100:.1f}% in base" in w["message"]
        assert f"{rmad['head'] * 100:.1f}% in head" in w["message"]
        assert abs(stability.rmad(got[name]["samples"]["base"]["value"]) - rmad["base"]) < 1e-12
    # stderr: one line per benchmark, the shared action once after them
    err = proc.stderr.splitlines()
    noisy = [i for i, line in enumerate(err) if line.startswith("warning [unstable] spread_")]
    assert len(noisy) == 2 and noisy[1] == noisy[0] + 1
    assert all(f"{name}: {name}" not in proc.stderr for name in ("spread_a", "spread_b"))  # named once
    assert err[noisy[1] + 1].startswith("  action (for all 2 of them): quiet the runner")
    assert sum(line.lstrip().startswith("action") and "quiet the runner" in line for line in err) == 1
