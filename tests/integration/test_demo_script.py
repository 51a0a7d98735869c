"""`make demo` end to end: scripts/demo.sh builds the two-commit demo repository, runs the gate
on it and the analysis finds the planted slowdown and speed-up.

Runs the real script with DEMO_FAST=1 (fewer trials than `make demo`) into a temporary
directory, with the benchmarks on their CPU-time clock (TEXTKIT_BENCH_CLOCK=cpu, see
tests/integration/test_demo_project.py) so other jobs on a shared machine do not decide it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "demo.sh"


@pytest.mark.slow
def test_demo_script_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "demo-output"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DEMO_OUT": str(out),
        "DEMO_FAST": "1",
        "TEXTKIT_BENCH_CLOCK": "cpu",
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    # The demo repository: base and head commits, head = base + the patch.
    log = subprocess.run(
        ["git", "-C", str(out / "repo"), "log", "--format=%s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert len(log) == 2 and "(head)" in log[0] and "(base)" in log[1]

    trials = pd.read_csv(out / "run" / "trials.csv")
    assert (trials["status"] == "ok").all()
    assert set(trials["version"]) == {"HEAD~1", "HEAD"}
    assert trials["benchmark"].nunique() == 6
    assert "medians per version" in proc.stdout

    analysis = json.loads((out / "analysis.json").read_text())
    verdicts = {b["benchmark"]: b["verdict"] for b in analysis["benchmarks"]}
    # Whatever the machine does, the gate must never call the planted changes the wrong way.
    assert verdicts["ngrams"] in {"regression", "inconclusive"}, verdicts
    assert verdicts["wordfreq"] in {"improvement", "inconclusive"}, verdicts
    # Busy machine: more runnable processes than cores at the start (meta.json) or end of the run.
    environment = json.loads((out / "run" / "meta.json").read_text())["environment"]
    cores = environment.get("cores") or os.cpu_count() or 1
    load = max(environment.get("loadavg", [0.0])[0], os.getloadavg()[0])
    loaded = load > cores
    if not loaded:
        assert verdicts["ngrams"] == "regression", verdicts
        assert verdicts["wordfreq"] == "improvement", verdicts
        assert analysis["summary"]["decision"] == "fail"

    assert (out / "report.html").stat().st_size > 10_000
    comment = (out / "comment.md").read_text()
    assert "ngrams" in comment and "wordfreq" in comment
    assert comment.strip() in proc.stdout  # the demo prints the PR comment
    if loaded:
        # On a machine busy with other jobs, inconclusive is the honest verdict (and the run
        # warns about the load); the strict check above runs wherever the machine is quiet, as in CI.
        pytest.skip(f"verdicts not checked strictly: load {load:.1f} on {cores} cores; got {verdicts}")
