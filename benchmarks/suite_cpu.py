"""CPU time of each test of the gate's own suite: where `make test`'s time goes.

On a shared machine a test's wall time says more about the load than about the test; its CPU
time (the pytest worker's own and that of every process it starts: `ordertrap-gate` verbs,
toolchain builds, benchmark processes) hardly moves with the load. So the split between
`make test` and `make test-slow` is decided on CPU seconds, measured with this plugin:

    PATH=$PWD/.venv/bin:$PATH SUITE_CPU_OUT=/tmp/suite-cpu env -u PYTHONDONTWRITEBYTECODE \\
        .venv/bin/python -m pytest -q -n 4 --dist loadgroup --no-loadscope-reorder \\
        -p benchmarks.suite_cpu
    .venv/bin/python -m benchmarks.suite_cpu /tmp/suite-cpu --top 40

Each worker appends one line per test (setup, call and teardown together, so a module fixture's
build counts for the test that first needs it) to ``$SUITE_CPU_OUT/<worker>.tsv``.

Where the CPU is read from: run as root on a machine with the cgroup-v1 ``cpuacct`` controller
(this development machine), each worker moves itself into a cgroup of its own, and a test's CPU
is that cgroup's ``cpuacct.usage`` before and after it: every descendant counts, sandboxed
benchmarks included. Elsewhere it falls back to ``getrusage(RUSAGE_CHILDREN)``, which misses the
benchmarks that run in the bubblewrap sandbox (bwrap's monitor never waits for the namespace's
PID 1, so their CPU is never added to any ancestor; ``/usr/bin/time`` misses them too) and any
daemon a test does not wait for. The report names the source.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


class _Meter:
    """CPU seconds of this process and everything it starts, since some origin."""

    def __init__(self) -> None:
        self.cgroup: Path | None = None
        group = CPUACCT / f"ordertrap-suite-cpu-{os.getpid()}"
        try:
            group.mkdir(exist_ok=True)
            (group / "cgroup.procs").write_text(str(os.getpid()))
            self.cgroup = group
        except OSError:  # no cgroup-v1 cpuacct, or not root: rusage below
            pass

    @property
    def source(self) -> str:
        return "cgroup" if self.cgroup is not None else "rusage"

    def read(self) -> float:
        if self.cgroup is not None:
            return int((self.cgroup / "cpuacct.usage").read_text()) / 1e9
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + usage.ru_utime + usage.ru_stime

    def close(self) -> None:
        if self.cgroup is None:
            return
        try:
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            self.cgroup.rmdir()  # fails while a leftover daemon is still in it: harmless
        except OSError:
            pass


_meter: _Meter | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    global _meter
    if os.environ.get("SUITE_CPU_OUT"):
        _meter = _Meter()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _meter is not None:
        _meter.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    out = os.environ.get("SUITE_CPU_OUT")
    if not out or _meter is None:
        yield
        return
    wall, cpu = time.monotonic(), _meter.read()
    yield
    wall, cpu = time.monotonic() - wall, _meter.read() - cpu
    slow = "slow" if item.get_closest_marker("slow") else "-"
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    Path(out).mkdir(parents=True, exist_ok=True)
    with open(Path(out) / f"{worker}.tsv", "a", encoding="utf-8") as f:
        f.write(f"{item.nodeid}\t{slow}\t{wall:.2f}\t{cpu:.2f}\t{_meter.source}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="the SUITE_CPU_OUT folder of a run")
    parser.add_argument("--top", type=int, default=30, help="the tests with the most CPU")
    args = parser.parse_args()
    rows = []
    sources: set[str] = set()
    for path in sorted(args.dir.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            nodeid, slow, wall, cpu, source = line.split("\t")
            rows.append((nodeid, slow, float(wall), float(cpu)))
            sources.add(source)
    by_set: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    by_file: dict[str, float] = defaultdict(float)
    for nodeid, slow, wall, cpu in rows:
        entry = by_set[slow]
        entry[0] += 1
        entry[1] += cpu
        entry[2] += wall
        by_file[nodeid.split("::")[0]] += cpu
    print("set\ttests\tCPU s\twall s (summed over workers)")
    for name, (count, cpu, wall) in sorted(by_set.items()):
        print(f"{'slow' if name == 'slow' else 'default'}\t{count:.0f}\t{cpu:.0f}\t{wall:.0f}")
    print(f"\nCPU read from: {', '.join(sorted(sources))} (the module docstring says what each misses)")
    print(f"\ntop {args.top} tests by CPU (s, the worker and every process it started):")
    for nodeid, slow, wall, cpu in sorted(rows, key=lambda r: -r[3])[: args.top]:
        print(f"{cpu:8.1f}  {wall:8.1f} wall  {slow:4}  {nodeid}")
    print(f"\ntop {args.top} files by CPU:")
    for name, cpu in sorted(by_file.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{cpu:8.1f}  {name}")


if __name__ == "__main__":
    main()
