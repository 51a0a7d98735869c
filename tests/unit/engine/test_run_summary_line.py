"""The last line of `ordertrap-gate run` counts the trials of this invocation and, after a resume,
says how many the log held before, so a resumed run's statuses do not read as lost trials."""

from __future__ import annotations

from pathlib import Path

from gate.engine.driver import DriverResult
from gate.engine.measure import done_line


def test_a_fresh_run_counts_every_trial_with_its_status():
    result = DriverResult(total=180, ran=180, elapsed_s=104.84, statuses={"ok": 178, "error": 2})
    assert done_line(result, Path("perf/trials.csv")) == (
        "ordertrap-gate run: 180 trials done (error 2, ok 178) in 104.8 s; log: perf/trials.csv"
    )


def test_a_resumed_run_says_how_many_trials_were_done_before_it():
    result = DriverResult(total=180, ran=160, skipped_done=20, elapsed_s=94.4, statuses={"ok": 160})
    line = done_line(result, Path("perf/trials.csv"))
    assert line == (
        "ordertrap-gate run: 180 trials done: 20 before the resume, 160 now (ok 160) in 94.4 s; "
        "log: perf/trials.csv"
    )


def test_a_resume_of_a_finished_run_has_no_empty_statuses():
    """`run --budget` on a finished --out (follow-up rounds added later) ran no trial now:
    the line said "0 now () in 0.0 s"."""
    result = DriverResult(total=72, ran=0, skipped_done=72, elapsed_s=0.0, statuses={})
    assert done_line(result, Path("pr/trials.csv")) == (
        "ordertrap-gate run: 72 trials done: 72 before the resume, 0 now; log: pr/trials.csv"
    )
