#!/usr/bin/env python3
"""Where the test suite's CPU goes: the start-up of each CLI verb, and the gate subprocesses the
tests start (docs/development.md, "How long make test takes").

``startup`` (the default) times, per verb, ``python -m gate VERB --help`` — interpreter start,
the imports of the verb's module and argparse — and ``python -c "import X"`` for each heavy
library, as user+system CPU seconds of the child (``resource.RUSAGE_CHILDREN``, so the load of
other processes on the machine does not count), the median of ``--reps`` runs, with the ratio to
a bare ``python -c pass``:

    .venv/bin/python -m benchmarks.bench_cli_startup --reps 5
    .venv/bin/python -m benchmarks.bench_cli_startup --importtime analyze   # top imports of a verb

``count`` runs pytest on the given paths with a ``sitecustomize`` on ``PYTHONPATH`` that makes
every ``ordertrap-gate``/``python -m gate`` process append its verb, its own CPU time and the test
that started it (``PYTEST_CURRENT_TEST``, inherited) to a log, then sums the log per verb and per
test file. A process started with a scrubbed environment (``env={...}`` without ``PYTHONPATH``,
or ``python -I``) is not seen: the counts are a lower bound.

    .venv/bin/python -m benchmarks.bench_cli_startup count tests/integration -- -n 4
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

VERBS = ("run", "analyze", "order-check", "calibrate", "report", "publish", "history", "action", "run-action")
LIBRARIES = ("numpy", "pandas", "scipy.stats", "matplotlib.pyplot", "jinja2", "github", "requests")

# Written into a temporary folder put on PYTHONPATH by ``count``: every Python process started
# under the tests imports it; only the gate's own CLI processes log anything.
SITECUSTOMIZE = """
import atexit, json, os, resource, sys, time

def _log():
    argv = list(getattr(sys, "orig_argv", sys.argv))
    is_gate = "gate" in argv[argv.index("-m") + 1 : argv.index("-m") + 2] if "-m" in argv else False
    if not (is_gate or os.path.basename(argv[1] if len(argv) > 1 else "") == "ordertrap-gate"):
        return
    words = [a for a in sys.argv[1:] if not a.startswith("-")]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record = {
        "verb": words[0] if words else "(none)",
        "cpu": round(usage.ru_utime + usage.ru_stime, 3),
        "wall": round(time.monotonic() - _START, 3),
        "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0],
    }
    with open(os.environ["GATE_CALLS_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\\n")

_START = time.monotonic()
if os.environ.get("GATE_CALLS_LOG"):
    atexit.register(_log)
"""


def child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) the finished child ``argv`` used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(reps: int) -> None:
    py = sys.executable
    bare = statistics.median(child_cpu([py, "-c", "pass"]) for _ in range(reps))
    print(f"{'python -c pass':40s} {bare:6.3f} s CPU  1.0×")
    for lib in LIBRARIES:
        cpu = statistics.median(child_cpu([py, "-c", f"import {lib}"]) for _ in range(reps))
        print(f"{'import ' + lib:40s} {cpu:6.3f} s CPU  {cpu / bare:5.1f}×")
    for verb in VERBS:
        cpu = statistics.median(child_cpu([py, "-m", "gate", verb, "--help"]) for _ in range(reps))
        print(f"{'python -m gate ' + verb + ' --help':40s} {cpu:6.3f} s CPU  {cpu / bare:5.1f}×")
    print(f"(median of {reps} runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def importtime(verb: str, top: int) -> None:
    """The ``top`` imports of ``python -m gate VERB --help`` by cumulative time (µs)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gate", verb, "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.rstrip()))
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"{cumulative / 1e6:7.3f} s  {name}")


def count(pytest_args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        log = Path(tmp) / "calls.jsonl"
        env = {**os.environ, "GATE_CALLS_LOG": str(log)}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (tmp, env.get("PYTHONPATH", "")) if p)
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args], env=env
        )
        records = (
            [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            if log.exists()
            else []
        )
    by_verb: dict[str, list[float]] = collections.defaultdict(list)
    by_file: dict[str, list[float]] = collections.defaultdict(list)
    for record in records:
        by_verb[record["verb"]].append(record["cpu"])
        by_file[record["test"].split("::", 1)[0] or "(unknown)"].append(record["cpu"])
    total = sum(r["cpu"] for r in records)
    print(f"\n{len(records)} gate processes, {total:.1f} s CPU in them")
    print("per verb: processes, CPU s, median CPU s per process")
    for verb, cpus in sorted(by_verb.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {verb:18s} {len(cpus):5d} {sum(cpus):8.1f} {statistics.median(cpus):6.2f}")
    print("per test file: processes, CPU s")
    for name, cpus in sorted(by_file.items(), key=lambda kv: -sum(kv[1]))[:25]:
        print(f"  {name:60s} {len(cpus):5d} {sum(cpus):8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=("startup", "count"), default="startup")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="count: pytest's arguments")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--importtime", metavar="VERB", help="the top imports of VERB --help instead")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if args.importtime:
        importtime(args.importtime, args.top)
    elif args.mode == "count":
        count([a for a in args.rest if a != "--"])
    else:
        startup(args.reps)


if __name__ == "__main__":
    main()
