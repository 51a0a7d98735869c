"""Time and peak memory of `ordertrap-gate analyze` (and `publish`'s reader) on very large inputs:
what a huge trial log, meta.json or analysis.json costs before any guard refuses it.

Each case writes its files into a temporary folder (in a child process of its own) and runs the
real CLI in a child process; the child's wall time and peak resident set size come from
``os.wait4`` (its own rusage, so other children do not mix in). Linux keeps a process's peak RSS
across ``exec``, so this script itself stays small (only the imports the children have too) and
never holds the generated data. Shapes (``--rows`` rows each, default 300,000):

* ``values``: 10 benchmarks x 2 versions, ``rows / 20`` values each (above MAX_VALUES per version);
* ``bounded``: 30 benchmarks x 2 versions x ``rows / 60`` values (at most MAX_VALUES each);
* ``benchmarks``: ``rows / 6`` benchmarks x 2 versions x 3 values;
* ``read``: the ``bounded`` log read alone (``gate.analysis.load.load_trials``), and the bare
  interpreter with the gate's imports for comparison;
* ``analysis``: an analysis.json with ``rows / 6`` benchmarks read by ``publish`` (no token: the
  summary and outputs only).

    .venv/bin/python -m benchmarks.bench_big_inputs [--rows 300000] [--cases values,benchmarks]

Times vary with the machine's load; quote them with the load average printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gate.model import TRIAL_COLUMNS


def trial_log(path: Path, benchmarks: int, values: int, *, seed: int = 1) -> int:
    """A trials.csv in the gate's own columns: ``benchmarks`` x 2 versions x ``values`` rows, one
    value per trial, 5 measurements per iteration; returns the number of rows."""
    rng = np.random.default_rng(seed)
    n = benchmarks * 2 * values
    index = np.arange(n)
    within = index % values
    version = np.where((index // values) % 2 == 0, "base", "head")
    bench = np.char.add("bench_", (index // (2 * values)).astype(str))
    frame = pd.DataFrame(
        {
            "trial": index + 1,
            "benchmark": bench,
            "version": version,
            "instance": "h",
            "suite_run": within // 25 + 1,
            "order_type": "random",
            "position": 1,
            "iteration": (within // 5) % 5 + 1,
            "measurement": within % 5 + 1,
            "value": rng.lognormal(0.0, 0.05, n),
            "unit": "s",
            "higher_is_better": False,
            "status": "ok",
            "reason": "",
            "started_at": "",
            "elapsed_s": 0.01,
            "config": "full",
            "round": 0,
        },
        columns=list(TRIAL_COLUMNS),
    )
    frame.to_csv(path, index=False)
    return n


def write_in_child(kind: str, path: Path, *sizes: int) -> None:
    """Write a file of ``kind`` ("log" or "analysis") in a child process (see the docstring)."""
    argv = [sys.executable, "-m", "benchmarks.bench_big_inputs", "--write", kind, str(path), *map(str, sizes)]
    subprocess.run(argv, check=True)


def analysis_file(path: Path, benchmarks: int) -> None:
    from tests.fakes import analyses

    bench = [analyses.benchmark(f"bench_{i}", "unchanged", change_pct=0.1) for i in range(benchmarks)]
    path.write_text(json.dumps(analyses.analysis(bench)))


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB, exit status of ``cmd`` run as a child."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace").strip().splitlines()
    if proc.returncode:
        print(f"    exit {proc.returncode}: {' | '.join(err[-2:])[:300]}")
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--cases", default="values,bounded,benchmarks,read,analysis")
    parser.add_argument(
        "--resamples", type=int, default=None, help="analyze's --resamples (its default if absent)"
    )
    parser.add_argument("--write", nargs="+", help=argparse.SUPPRESS)  # the child that writes a file
    args = parser.parse_args()
    if args.write:
        kind, path, *sizes = args.write
        if kind == "log":
            trial_log(Path(path), int(sizes[0]), int(sizes[1]))
        else:
            analysis_file(Path(path), int(sizes[0]))
        return 0
    gate = [sys.executable, "-m", "gate"]
    extra = ["--resamples", str(args.resamples)] if args.resamples else []
    shapes = {
        "values": (10, args.rows // 20),
        "bounded": (30, args.rows // 60),
        "benchmarks": (args.rows // 6, 3),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            folder = Path(tmp) / case
            folder.mkdir()
            if case == "analysis":
                target = folder / "analysis.json"
                write_in_child("analysis", target, args.rows // 6)
                env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
                env |= {"GITHUB_EVENT_NAME": "push", "GITHUB_SHA": "a" * 40}
                size = target.stat().st_size / 1e6
                wall, rss, code = measure([*gate, "publish", "--analysis", str(target)], env)
                print(
                    f"{case}: {args.rows // 6:,} benchmarks, {size:.0f} MB: wall {wall:.1f} s, peak RSS {rss:.0f} MB, exit {code}"
                )
                continue
            if case == "read":
                log = folder / "trials.csv"
                write_in_child("log", log, *shapes["bounded"])
                code = "from gate.analysis.load import load_trials; import sys; load_trials([sys.argv[1]])"
                wall, rss, _ = measure([sys.executable, "-c", code, str(log)])
                bare, bare_rss, _ = measure([sys.executable, "-c", "import gate.analysis.load"])
                print(f"{case}: load_trials of the bounded log: wall {wall:.1f} s, peak RSS {rss:.0f} MB "
                      f"(imports alone: {bare:.1f} s, {bare_rss:.0f} MB)")  # fmt: skip
                continue
            benchmarks, values = shapes[case]
            log = folder / "trials.csv"
            write_in_child("log", log, benchmarks, values)
            rows = benchmarks * 2 * values
            size = log.stat().st_size / 1e6
            cmd = [*gate, "analyze", str(log), "--base", "base", "--head", "head",
                   "--json", str(folder / "analysis.json"), *extra]  # fmt: skip
            wall, rss, code = measure(cmd)
            print(f"{case}: {rows:,} rows ({benchmarks:,} benchmarks x 2 x {values:,} values, {size:.0f} MB): "
                  f"wall {wall:.1f} s, peak RSS {rss:.0f} MB, exit {code}")  # fmt: skip
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
