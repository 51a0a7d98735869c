#!/usr/bin/env python3
"""Benchmark of the run engine itself: per-trial overhead of the driver vs a plain loop.

Both sides run the same trivial command (``/bin/true`` through ``/bin/sh -c``, as the command
adapter runs ``[[benchmark]].command``) with output captured:

* plain:  ``subprocess.run(["/bin/sh", "-c", CMD], capture_output=True)`` in a loop;
* driver: :func:`gate.engine.driver.run_schedule` over an RMIT schedule, with the real command adapter,
  the real :class:`~gate.engine.process.SubprocessRunner` (new session, scrubbed env, group kill) and the
  real trial log (one append + flush + fsync per trial), progress lines to /dev/null.

* sandboxed: the same driver with the sandbox ``run`` uses (:mod:`gate.engine.sandbox`, bubblewrap: a
  new PID and mount namespace per process), when bwrap works here.

The sides are interleaved in chunks (plain, driver, sandboxed, then rotated) so that load from
other processes hits them alike; the ratios are total times over the same number of trials, in
one run. Target for driver/plain: <= 1.10 over 1,000 trials. The median ``value = "wall"`` each
side logged shows what the benchmark's own measurement sees: the sandbox is set up before the
timed part starts.

    .venv/bin/python -m benchmarks.bench_driver --trials 1000
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from gate.adapters.base import BenchmarkSpec, ProcessResult, VersionContext
from gate.adapters.registry import get_adapter
from gate.engine import sandbox
from gate.engine.driver import run_schedule
from gate.engine.process import SubprocessRunner
from gate.engine.schedule import LevelConfig, Trial, rmit_schedule
from gate.files.trial_log import TrialLog


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=100, help="interleaved chunks per side")
    parser.add_argument("--command", default="/bin/true")
    parser.add_argument("--target", type=float, default=1.10)
    parser.add_argument("--check", action="store_true", help="exit 1 when the ratio exceeds --target")
    parser.add_argument("--no-sandbox", action="store_true", help="leave out the sandboxed side")
    args = parser.parse_args()

    names = [f"b{i}" for i in range(10)]
    per_cell = max(1, args.trials // (len(names) * 2))
    levels = {n: LevelConfig(1, per_cell, 1) for n in names}
    schedule = rmit_schedule(1, names, ["base", "head"], levels, "bench")
    n = len(schedule)
    chunks = [schedule[i * n // args.chunks : (i + 1) * n // args.chunks] for i in range(args.chunks)]

    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
        work = Path(tmp)
        ctx = {v: VersionContext(name=v, workdir=work, scratch=work) for v in ("base", "head")}
        spec = {n: BenchmarkSpec(n, command=args.command, options={"value": "wall"}) for n in names}
        benchmarks = {v: spec for v in ctx}
        adapter = get_adapter("command")
        sides: dict[str, SubprocessRunner] = {
            "driver": SubprocessRunner(pid_file=work / ".running")  # as `run` builds it
        }
        box_note = "left out (--no-sandbox)"
        if not args.no_sandbox:
            (work / "out").mkdir()
            isolation = sandbox.choose_isolation(
                "auto",
                lambda bwrap: sandbox.plan(repo=work, out=work / "out", versions=[(work, work)], bwrap=bwrap),
                cwd=work,
                env={**os.environ, "GITHUB_ACTIONS": ""},
            )
            if isolation.sandbox is not None:
                sides["sandboxed"] = SubprocessRunner(
                    pid_file=work / ".running-box", sandbox=isolation.sandbox
                )
                box_note = f"bwrap {isolation.meta['version']}"
            else:
                box_note = f"unavailable: {isolation.meta['reason']}"
        logs = {name: TrialLog(work / f"trials-{name}.csv") for name in sides}
        for log in logs.values():
            log.recover(schedule)
            log.open()  # kept open across chunks, as in one real run (run_schedule leaves it open)
        argv = ["/bin/sh", "-c", args.command]
        totals = dict.fromkeys(["plain", *sides], 0.0)
        chunk_ratios: list[float] = []
        all_numbers = {t.trial for t in schedule}

        def run_plain(count: int) -> float:
            t0 = time.perf_counter()
            for _ in range(count):
                subprocess.run(argv, capture_output=True, check=False, cwd=work)
            return time.perf_counter() - t0

        def run_side(name: str, chunk: list[Trial]) -> float:
            numbers = {t.trial for t in chunk}
            t0 = time.perf_counter()
            result = run_schedule(
                schedule,
                adapter=adapter,
                runner=sides[name],
                versions=ctx,
                benchmarks=benchmarks,
                adapter_options={},
                timeout=60,
                log=logs[name],
                finished=all_numbers - numbers,
                progress=devnull,
            )
            assert result.ran == len(chunk) and result.failed == 0, result
            return time.perf_counter() - t0

        order = ["plain", *sides]
        for index, chunk in enumerate(chunks):
            spent: dict[str, float] = {}
            for name in order[index % len(order) :] + order[: index % len(order)]:  # rotate who goes first
                spent[name] = run_plain(len(chunk)) if name == "plain" else run_side(name, chunk)
                totals[name] += spent[name]
            chunk_ratios.append(spent["driver"] / spent["plain"])
        walls: dict[str, float] = {}
        for name, log in logs.items():
            log.close()
            with log.path.open(newline="") as fh:
                walls[name] = statistics.median(float(r["value"]) for r in csv.DictReader(fh))
        rows = logs["driver"].path.read_bytes().count(b"\n") - 1

    # The driver's own bookkeeping (adapter call, rows, log append, progress) without any
    # process: stable even on a loaded machine, where the ratio above is noisy.
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
        work = Path(tmp)
        log = TrialLog(work / "trials.csv")
        log.recover(schedule)

        def no_process(argv: object, *, cwd: Path, timeout: float, env: object = None) -> ProcessResult:
            return ProcessResult(0, "", "", 0.001)

        t0 = time.perf_counter()
        run_schedule(
            schedule,
            adapter=adapter,
            runner=no_process,
            versions={v: VersionContext(name=v, workdir=work, scratch=work) for v in ("base", "head")},
            benchmarks=benchmarks,
            adapter_options={},
            timeout=60,
            log=log,
            progress=devnull,
        )
        bookkeeping = (time.perf_counter() - t0) / n

    plain, driver = totals["plain"], totals["driver"]
    ratio = driver / plain
    print(f"trials:            {n} per side ({rows} rows logged), {args.chunks} interleaved chunks")
    print(f"command:           /bin/sh -c {args.command}")
    print(f"plain loop:        {plain:.3f} s  ({plain / n * 1e6:.0f} µs/trial)")
    print(f"driver:            {driver:.3f} s  ({driver / n * 1e6:.0f} µs/trial)")
    print(f"overhead/trial:    {(driver - plain) / n * 1e6:.0f} µs")
    print(f"driver bookkeeping without a process: {bookkeeping * 1e6:.0f} µs/trial")
    print(f"median chunk ratio: {statistics.median(chunk_ratios):.3f}  (robust to load bursts)")
    print(f"ratio driver/plain: {ratio:.3f}  (target <= {args.target:.2f})")
    print(f"sandbox:           {box_note}")
    if "sandboxed" in totals:
        boxed = totals["sandboxed"]
        print(
            f"sandboxed driver:  {boxed:.3f} s  ({boxed / n * 1e6:.0f} µs/trial, +{(boxed - driver) / n * 1e6:.0f} µs)"
        )
        print(f"ratio sandboxed/unsandboxed driver: {boxed / driver:.3f}")
    shown = ", ".join(f"{name} {value * 1e3:.3f} ms" for name, value in walls.items())
    print(f'median value = "wall" logged: {shown}')
    return 1 if args.check and ratio > args.target else 0


if __name__ == "__main__":
    raise SystemExit(main())
