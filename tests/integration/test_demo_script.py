"""`make demo` end to end: scripts/demo.sh builds the two-commit demo repository, runs the gate
on it with the demo's own configuration, prints the median view and the PR comment, writes the
HTML report, and the analysis finds the planted slowdown (ngrams) and speed-up (wordfreq).

The script writes into a temporary directory (DEMO_OUT) so it never touches ./demo-output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "demo.sh"
# The strict verdict check needs a machine quiet enough to resolve a 15-20 % change with 25
# values per version. Measured on the shared 2-core VM: in quiet runs the planted benchmarks'
# relative median absolute deviation was 3-8.4 % and both changes were resolved; with other jobs
# on the cores it was 15-24 % and verdicts came out inconclusive. Noisy runs may be inconclusive,
# but never the wrong way round, which is checked every time. The benchmarks measure CPU time here
# (TEXTKIT_BENCH_CLOCK=cpu, passed through to them), which other jobs on the shared cores disturb
# far less than the wall time `make demo` shows; the script and the gate are the same.
# A run is also too disturbed when any benchmark's RMAD passes DISTURBED_RMAD: one such run here had
# 8.8 % on wordfreq and 20 % on vocab, and wordfreq (-21.9 %) stayed inconclusive because a few
# slow trials widened its bootstrap CI although its RMAD looked almost quiet.
QUIET_RMAD = 0.085
DISTURBED_RMAD = 0.15


@pytest.mark.slow
def test_demo_script_end_to_end() -> None:
    # Outside the temporary directories, like `make demo`'s default demo-output/ in the checkout:
    # the sandbox lets benchmarks write there only what the gate grants them.
    out = Path(tempfile.mkdtemp(dir=ROOT, prefix=".demo-test-")) / "demo-output"
    try:
        _demo_end_to_end(out)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)


def _demo_end_to_end(out: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DEMO_OUT": str(out),
        "TEXTKIT_BENCH_CLOCK": "cpu",
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
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

    assert (out / "report.html").stat().st_size > 10_000
    comment = (out / "comment.md").read_text()
    assert "ngrams" in comment and "wordfreq" in comment
    assert comment.strip() in proc.stdout  # the demo prints the PR comment

    analysis = json.loads((out / "analysis.json").read_text())
    by_name = {b["benchmark"]: b for b in analysis["benchmarks"]}
    verdicts = {name: b["verdict"] for name, b in by_name.items()}
    # Whatever the machine does, the gate must never call the planted changes the wrong way.
    assert verdicts["ngrams"] in {"regression", "inconclusive"}, verdicts
    assert verdicts["wordfreq"] in {"improvement", "inconclusive"}, verdicts
    rmad = max(by_name[n]["stability"][v]["rmad"] for n in ("ngrams", "wordfreq") for v in ("base", "head"))
    run_rmad = max(b["stability"][v]["rmad"] for b in by_name.values() for v in ("base", "head"))
    resolved = verdicts["ngrams"] == "regression" and verdicts["wordfreq"] == "improvement"
    if not resolved and (rmad > QUIET_RMAD or run_rmad > DISTURBED_RMAD):
        # only a miss on a noisy run is excused, and reported
        pytest.skip(
            f"verdicts not checked strictly: RMAD {rmad:.1%} (quiet <= {QUIET_RMAD:.1%}), largest in the run "
            f"{run_rmad:.1%} (undisturbed <= {DISTURBED_RMAD:.0%}); got {verdicts}"
        )
    assert resolved, (rmad, verdicts)
    assert analysis["summary"]["decision"] == "fail"
