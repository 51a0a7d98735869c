#!/usr/bin/env python3
"""What the sandbox costs per trial, and whether it biases the value the gate records.

Every workload runs through the real adapter and the real :class:`~gate.engine.process.SubprocessRunner`
twice per repetition, once without and once inside the sandbox ``run`` uses (:func:`gate.engine.sandbox.plan`,
bubblewrap), in alternating order so that load from other processes hits both sides alike:

* ``true``: the command adapter, ``value = "wall"``, ``/bin/true``;
* ``sh-1ms`` / ``sh-50ms``: the command adapter, ``value = "wall"``, a CPU-bound shell loop
  (``--loop-1ms`` / ``--loop-50ms`` iterations; about 1 ms / 50 ms on an idle core);
* ``go``: a Go benchmark through its prebuilt test binary (``benchtime = 2000x``, ns/op);
* ``pytest-benchmark``: one test, ``min_rounds = 20`` (seconds per call).

For each it prints the median wall time of ``adapter.run_trial`` (what the run pays) and the
median value recorded (what the verdict sees) on both sides, their ratios sandboxed/unsandboxed,
the extra wall time per trial and a Mann-Whitney test of the values (p < 0.01: the sandbox
shifts the value, not only the wall time).

``--parts`` instead splits bwrap's own cost (``bwrap ... /bin/true`` without the driver), adding
one part of the sandbox's command line at a time, interleaved: what a cheaper sandbox could save.

    .venv/bin/python -m benchmarks.bench_sandbox --reps 60 --framework-reps 20
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scipy import stats

from gate.adapters.base import BenchmarkSpec, TrialRequest, VersionContext
from gate.adapters.registry import get_adapter
from gate.engine import sandbox
from gate.engine.process import SubprocessRunner

GO_TEST = """package work

import "testing"

var sink int

func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := 0
		for j := 0; j < 2000; j++ {
			s += j * j
		}
		sink = s
	}
}
"""
PY_TEST = "def test_work(benchmark):\n    benchmark(lambda: sum(i * i for i in range(2000)))\n"


def loop(iterations: int) -> str:
    return f"i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done"


def workloads(args: argparse.Namespace, work: Path) -> list[tuple[str, str, BenchmarkSpec, dict[str, Any]]]:
    """(label, adapter, spec, options) of each workload whose toolchain is here."""
    wall = {"value": "wall"}
    found = [
        ("true", "command", BenchmarkSpec("true", command="/bin/true", options=wall), {}),
        ("sh-1ms", "command", BenchmarkSpec("l1", command=loop(args.loop_1ms), options=wall), {}),
        ("sh-50ms", "command", BenchmarkSpec("l50", command=loop(args.loop_50ms), options=wall), {}),
    ]
    if shutil.which("go"):
        (work / "go.mod").write_text("module example.com/work\n\ngo 1.19\n")
        (work / "work_test.go").write_text(GO_TEST)
        found.append(("go", "go", BenchmarkSpec("BenchmarkWork", unit="ns/op"), {"benchtime": "2000x"}))
    else:
        print("go: not installed, left out")
    (work / "test_work.py").write_text(PY_TEST)
    found.append(
        (
            "pytest-benchmark",
            "pytest-benchmark",
            BenchmarkSpec("test_work.py::test_work", unit="s"),
            {"min_rounds": 20, "max_time": "0"},
        )
    )
    return found


def parts(box: sandbox.Sandbox, cwd: Path, reps: int) -> None:
    """bwrap's start-up and teardown, one part of the sandbox's command line more per row."""
    full = box.options(box._area_of(str(cwd)))
    fd_note = ["--seccomp", "FD"] if box.seccomp is not None else []
    steps: list[tuple[str, list[str]]] = [
        ("/bin/true without bwrap", []),
        ("bwrap --ro-bind / /", ["--ro-bind", "/", "/"]),
        ("+ --unshare-pid --proc /proc", ["--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc"]),
        ("+ --dev /dev", ["--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]),
        (
            "+ --unshare-net",
            ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"],
        ),
        (f"the sandbox's own ({full.count('--bind') + full.count('--ro-bind')} binds)", full),
        ("+ the seccomp filter", [*full, *fd_note]),
    ]
    times: dict[str, list[float]] = {label: [] for label, _ in steps}
    for rep in range(reps):
        for label, options in steps[:: 1 if rep % 2 == 0 else -1]:
            fd = box.filter_fd() if "FD" in options else None
            argv = [str(fd) if o == "FD" else o for o in options]
            argv = [box.bwrap, *argv, "--", "/bin/true"] if options else ["/bin/true"]
            start = time.perf_counter()
            subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, check=True, pass_fds=(fd,) if fd else ())
            times[label].append(time.perf_counter() - start)
            if fd is not None:
                os.close(fd)
    base = statistics.median(times[steps[0][0]])
    print("| command line | median (ms) | over /bin/true (ms) |")
    print("|---|---|---|")
    for label, values in times.items():
        m = statistics.median(values)
        print(f"| {label} | {m * 1e3:.2f} | {(m - base) * 1e3:+.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=60, help="trials per side of each command workload")
    parser.add_argument(
        "--framework-reps", type=int, default=20, help="trials per side of go, pytest-benchmark"
    )
    parser.add_argument("--loop-1ms", type=int, default=100, help="shell loop iterations of sh-1ms")
    parser.add_argument("--loop-50ms", type=int, default=5000, help="shell loop iterations of sh-50ms")
    parser.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    parser.add_argument("--parts", action="store_true", help="split bwrap's own cost instead")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        root = Path(tmp)
        work, scratch, out = root / "work", root / "scratch", root / "out"
        for d in (work, scratch, out):
            d.mkdir()
        isolation = sandbox.choose_isolation(
            "on",
            lambda bwrap: sandbox.plan(repo=work, out=out, versions=[(work, scratch)], bwrap=bwrap),
            cwd=work,
            env={**os.environ, "GITHUB_ACTIONS": ""},
        )
        assert isolation.sandbox is not None
        runners = {"plain": SubprocessRunner(), "sandboxed": SubprocessRunner(sandbox=isolation.sandbox)}
        version = VersionContext(name="v", workdir=work, python=sys.executable, scratch=scratch)
        load = os.getloadavg()
        print(f"bwrap {isolation.meta['version']}, {os.cpu_count()} cores, load {load[0]:.2f} at the start")
        if args.parts:
            parts(isolation.sandbox, work, args.reps)
            print(f"load {os.getloadavg()[0]:.2f} at the end; {args.reps} runs per row, alternating order")
            return 0
        print(
            "| workload | wall plain (ms) | wall sandboxed (ms) | ratio | extra (ms) "
            "| value plain | value sandboxed | value ratio | Mann-Whitney p |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        only = {n for n in args.only.split(",") if n}
        for label, adapter_name, spec, options in workloads(args, work):
            if only and label not in only:
                continue
            adapter = get_adapter(adapter_name)
            if adapter_name != "command":  # discovery builds (go test -c) outside the sandbox, once
                found = adapter.discover(version, runners["plain"], options)
                spec = next(s for s in found if s.name == spec.name)
            request = TrialRequest(
                benchmark=spec, version=version, measurements=1, timeout=600, options=options
            )
            walls: dict[str, list[float]] = {side: [] for side in runners}
            values: dict[str, list[float]] = {side: [] for side in runners}
            for side in runners:  # not recorded: first-run effects (page cache, bytecode)
                adapter.run_trial(request, runners[side])
            for rep in range(args.reps if adapter_name == "command" else args.framework_reps):
                for side in list(runners)[:: 1 if rep % 2 == 0 else -1]:
                    start = time.perf_counter()
                    got = adapter.run_trial(request, runners[side])
                    walls[side].append(time.perf_counter() - start)
                    values[side].append(statistics.median(got))
            wp, ws = statistics.median(walls["plain"]), statistics.median(walls["sandboxed"])
            vp, vs = statistics.median(values["plain"]), statistics.median(values["sandboxed"])
            p = stats.mannwhitneyu(values["plain"], values["sandboxed"]).pvalue
            print(
                f"| {label} | {wp * 1e3:.2f} | {ws * 1e3:.2f} | {ws / wp:.3f} | {(ws - wp) * 1e3:+.2f} "
                f"| {vp:.4g} | {vs:.4g} | {vs / vp:.3f} | {p:.2g} |"
            )
            sys.stdout.flush()
        end = os.getloadavg()
        print(f"load {end[0]:.2f} at the end; trials alternate between the sides")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
