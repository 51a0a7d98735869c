#!/usr/bin/env python3
"""Speed of reading trial logs through the one reader (``gate.files.trial_log.read_rows`` and its
parse rules) and its share of ``calibrate`` and ``analyze``.

For a generated trial log of 40,000 and one of 400,000 rows (40 benchmarks x 2 versions x 5
iterations x 5 measurements per suite run), and for the µOpTime Go files of the reference data
when present (``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py),
it times in ONE process, best of ``--repeat``:

* ``plain``: one ``pd.read_csv`` with the types pandas infers (C engine), the floor for reading
  the file, and what calibrate read with before it shared analyze's reader;
* ``read``: calibrate's reading (``read_tables`` + ``normalise``) and analyze's (``load_trials``),
  as they run (the C parser reads the number columns) and text-first (every cell as text, then
  the parse rules: the reader's fallback for a column with a cell that is no number, and how it
  read every log before);
* ``calibrate`` / ``analyze``: the command end to end, in-process (``gate.cli.main``), with its
  defaults (analyze: ``--resamples 1000`` for the 400k log to keep the run short, said in the output).

It prints the ratios read/plain and read/command (the reader's share of the command's wall time).
Times vary with the machine's load (two cores shared here); the ratios measured in one run are
what the docs quote (docs/performance.md "Reading trial logs").

    .venv/bin/python -m benchmarks.bench_read_trials [--rows 40000,400000] [--repeat 3] [--no-reference]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from eval.reference_data import reference_data
from gate.analysis.load import load_trials
from gate.calibration.dataset import normalise, read_tables
from gate.cli import main as cli
from gate.files import trial_log
from gate.model import TRIAL_COLUMNS

BENCHMARKS, ITERATIONS, MEASUREMENTS = 40, 5, 5
ROWS_PER_SUITE_RUN = BENCHMARKS * 2 * ITERATIONS * MEASUREMENTS


def write_log(path: Path, rows: int, seed: int = 1) -> None:
    """A trial log as `run` writes it (every column, RMIT order inside each suite run)."""
    rng = np.random.default_rng(seed)
    suite_runs = max(1, rows // ROWS_PER_SUITE_RUN)
    names = [f"pkg/Benchmark{b:02d}/size-{b % 7}" for b in range(BENCHMARKS)]
    cells = [(b, v, i) for b in range(BENCHMARKS) for v in ("main", "HEAD") for i in range(1, ITERATIONS + 1)]
    trials, position, suite_run, bench, version, iteration = [], [], [], [], [], []
    for s in range(1, suite_runs + 1):
        order = rng.permutation(len(cells))
        for pos, k in enumerate(order, start=1):
            b, v, i = cells[k]
            trials.append(len(trials) + 1)
            position.append(pos)
            suite_run.append(s)
            bench.append(names[b])
            version.append(v)
            iteration.append(i)
    n = len(trials)
    rep = np.repeat  # each trial has MEASUREMENTS rows
    elapsed = rng.uniform(0.1, 0.3, n)
    frame = pd.DataFrame(
        {
            "trial": rep(trials, MEASUREMENTS),
            "benchmark": rep(bench, MEASUREMENTS),
            "version": rep(version, MEASUREMENTS),
            "instance": "box",
            "suite_run": rep(suite_run, MEASUREMENTS),
            "order_type": "random",
            "position": rep(position, MEASUREMENTS),
            "iteration": rep(iteration, MEASUREMENTS),
            "measurement": np.tile(np.arange(1, MEASUREMENTS + 1), n),
            "value": [repr(float(x)) for x in rng.lognormal(3.0, 0.03, n * MEASUREMENTS)],
            "unit": "ns/op",
            "higher_is_better": "false",
            "status": "ok",
            "reason": "",
            "started_at": "2026-11-26T02:17:00.000000+00:00",
            "elapsed_s": [f"{x:.6f}" for x in rep(elapsed, MEASUREMENTS)],
            "config": "full",
            "round": 0,
        }
    )
    assert tuple(frame.columns) == TRIAL_COLUMNS
    frame.to_csv(path, index=False)


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def both(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best times of ``fn`` as the reader runs it (the C parser reads the number columns whose
    cells are all numbers) and text-first (every cell as text, then the parse rules convert the
    numbers: the reader's own fallback, forced here by hiding the header's names from it), runs
    alternated so that both see the same load."""
    now, text_first = [], []
    for _ in range(repeat):
        now.append(best(fn, 1))
        trial_log._raw_names, saved = (lambda path: None), trial_log._raw_names
        try:
            text_first.append(best(fn, 1))
        finally:
            trial_log._raw_names = saved
    return min(now), min(text_first)


def quiet(args: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli(args)
    if code != 0:
        raise SystemExit(f"ordertrap-gate {' '.join(args)} exited {code}")


def measure(
    label: str, path: Path, calibrate_args: list[str], levels: tuple[str, ...] | None, value: str | None,
    analyze_args: list[str] | None, repeat: int, tmp: Path,
) -> None:  # fmt: skip
    rows = sum(1 for _ in path.open("rb")) - 1
    plain = best(lambda: pd.read_csv(path), repeat)
    read_cal, cal_cells = both(
        lambda: normalise(read_tables([path], numbers=[*(levels or ()), value or "value"]), levels, value),
        repeat,
    )
    calibrate = best(
        lambda: quiet(["calibrate", str(path), "--out", str(tmp / "cal.json"), *calibrate_args]), repeat
    )
    print(f"{label} ({rows} rows)")
    print(f"  plain pd.read_csv {plain:7.3f} s")
    print(
        f"  calibrate: reading {read_cal:7.3f} s = {read_cal / plain:4.1f}x plain (text-first "
        f"{cal_cells:7.3f} s = {cal_cells / plain:4.1f}x); end to end {calibrate:7.3f} s, reading "
        f"{100 * read_cal / calibrate:4.1f} %"
    )
    if analyze_args is not None:
        read_an, an_cells = both(lambda: load_trials([path]), repeat)
        analyze = best(
            lambda: quiet(["analyze", str(path), "--json", str(tmp / "a.json"), *analyze_args]), repeat
        )
        print(
            f"  analyze:   reading {read_an:7.3f} s = {read_an / plain:4.1f}x plain (text-first "
            f"{an_cells:7.3f} s = {an_cells / plain:4.1f}x); end to end {analyze:7.3f} s "
            f"({' '.join(analyze_args)}), reading {100 * read_an / analyze:4.1f} %"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", default="40000,400000", help="sizes of the generated logs")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--no-reference", action="store_true", help="skip the µOpTime reference data")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for rows in (int(r) for r in args.rows.split(",")):
            log = tmp / f"trials-{rows}.csv"
            write_log(log, rows)
            analyze = ["--base", "main", "--head", "HEAD"] + (
                ["--resamples", "1000"] if rows > 100_000 else []
            )
            measure("generated log", log, ["--version", "main"], None, None, analyze, args.repeat, tmp)
        files = sorted(reference_data("uoptime_go").glob("*/measurements.csv"))
        if not args.no_reference and not files:
            print(f"reference data: none under {reference_data('uoptime_go')} (skipped)")
        for f in [] if args.no_reference else files:
            version = str(pd.read_csv(f, usecols=["version"], dtype=str, nrows=1)["version"].iloc[0])
            go = ["--levels", "suite_run,iteration,second", "--value", "ns_per_op", "--instance", "1"]
            measure(
                f"µOpTime {f.parent.name}", f, [*go, "--version", version],
                ("suite_run", "iteration", "second"), "ns_per_op", None, args.repeat, tmp,
            )  # fmt: skip
    with contextlib.suppress(OSError):
        load = Path("/proc/loadavg").read_text().split()[:3]
        print("load average at the end (other processes share the CPUs):", *load)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
