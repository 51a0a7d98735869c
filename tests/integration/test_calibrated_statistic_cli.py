"""The nightly chooses each benchmark's statistic and the PR uses it, through the real CLI:
`run` (one version, the full configuration) → `calibrate` → `run --calibration` (base and head,
the calibrated configurations) → `analyze` (docs/statistics.md "A statistic per benchmark").

`bimodal` has the demo's kind of noise: a fifth of its processes run 1.3× faster, so the 10th
percentile sits on the boundary of the fast mode; `skewed` has interference's (a tenth of the values
slowed 2×), where p10 stays. Values come from an RNG seeded by the benchmark, the version and a
per-worktree process counter, so every run is reproducible.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_run_cli import git, make_repo

PY = sys.executable

BENCH = """\
import random, sys
from pathlib import Path
name = sys.argv[1]
counter = Path(f".count-{name}")
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
version = Path("version.txt").read_text().strip()
rng = random.Random(f"{name}/{version}/{n}")
x = 100.0 * (1 + rng.expovariate(1 / 0.003))
if name == "bimodal" and rng.random() < 0.2:
    x /= 1.3
if name == "skewed" and rng.random() < 0.1:
    x *= 2.0
print(x)
"""


def gate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [PY, "-m", "gate", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_the_nightly_chooses_and_the_pr_run_and_analyze_use_it(tmp_path: Path) -> None:
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} nbench.py {n}"\nunit = "ns"\n'
        for n in ("bimodal", "skewed")
    )
    config = (
        f'[suite]\nadapter = "command"\ntimeout = 30\nstatistic = "calibrated"\n{benches}'
        "[full]\nsuite_runs = 2\niterations = 6\nmeasurements = 3\n"
    )
    repo = make_repo(tmp_path, config)
    (repo / "nbench.py").write_text(BENCH)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bench")
    git(repo, "tag", "head")
    git(repo, "checkout", "-q", "HEAD~2")  # base gets the script too: version.txt is what differs
    (repo / "nbench.py").write_text(BENCH)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bench on base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "head")
    cfg = str(repo / ".ordertrap.toml")
    night, pr, cal = tmp_path / "night", tmp_path / "pr", tmp_path / "calibration.json"

    gate("run", "--config", cfg, "--head", "head", "--out", str(night), "--seed", "3", cwd=tmp_path)
    gate("calibrate", str(night / "trials.csv"), "--out", str(cal), cwd=tmp_path)
    doc = json.loads(cal.read_text())
    assert doc["schema_version"] == 2
    assert doc["benchmarks"]["bimodal"]["statistic"] == "median"
    assert doc["benchmarks"]["skewed"]["statistic"] == "p10"
    assert doc["benchmarks"]["bimodal"]["statistic_choice"]["diagnosis"][0] == "fast minority"

    gate(
        "run", "--config", cfg, "--base", "base", "--head", "head", "--out", str(pr),
        "--calibration", str(cal), "--seed", "4", cwd=tmp_path,
    )  # fmt: skip
    meta = json.loads((pr / "meta.json").read_text())
    assert meta["statistic"] == "calibrated"
    assert meta["calibrated_statistics"] == {"bimodal": "median", "skewed": "p10"}

    shown = gate("analyze", str(pr / "trials.csv"), "--json", str(pr / "a.json"), cwd=tmp_path).stdout
    by = {b["benchmark"]: b for b in json.loads((pr / "a.json").read_text())["benchmarks"]}
    assert by["bimodal"]["statistic"] == "median" and by["bimodal"]["statistic_source"] == "calibration"
    assert by["skewed"]["statistic"] == "p10"
    assert "bimodal: median, chosen by the nightly calibration" in shown

    # an explicit --statistic is one statistic for every benchmark
    gate("analyze", str(pr / "trials.csv"), "--json", str(pr / "b.json"), "--statistic", "p10", cwd=tmp_path)
    again = json.loads((pr / "b.json").read_text())["benchmarks"]
    assert {b["statistic"] for b in again} == {"p10"} and not any("statistic_source" in b for b in again)
