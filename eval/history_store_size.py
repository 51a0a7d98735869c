"""What the history store costs for a 500-benchmark suite (the numbers in docs/history.md).

Writes ``--nights`` nights of ``--benchmarks`` benchmarks through the store's own writer, as
`history add` does for a nightly log (two entries per benchmark: base = previous commit, head =
current commit, with the paired step), commits each night to a git repository, and reports the
bytes per night, the files' size after a year, and the size of the git repository after
``git gc`` (``--aggressive`` needed over 3 GB of memory here). Values: medians between 1e3 and 1e6 ns with 0.5 % CIs, 40-character SHAs.

    .venv/bin/python -m eval.history_store_size --nights 365 --benchmarks 500 --dir /tmp/history-size
"""

from __future__ import annotations

import argparse
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from gate.history.store import Entry, Step, Store


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--nights", type=int, default=365)
    p.add_argument("--benchmarks", type=int, default=500)
    p.add_argument("--dir", required=True)
    a = p.parse_args()
    root = Path(a.dir)
    root.mkdir(parents=True)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    rng = np.random.default_rng(1)
    names = [
        f"BenchmarkSuite/pkg{i // 50}/Benchmark{i:03d}/size={2 ** (i % 12)}" for i in range(a.benchmarks)
    ]
    levels = rng.uniform(1e3, 1e6, a.benchmarks)
    sha = [
        f"{rng.integers(1 << 62):016x}{rng.integers(1 << 62):016x}{rng.integers(1 << 30):08x}"
        for _ in range(a.nights + 1)
    ]
    start = datetime(2026, 1, 1, 2, 17, tzinfo=UTC)
    store = Store(root)
    per_night = []
    for k in range(1, a.nights + 1):
        date = (start + timedelta(days=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
        entries = []
        for i, name in enumerate(names):
            for seq, c in ((0, k - 1), (1, k)):
                v = float(levels[i] * (1 + 0.005 * rng.standard_normal()))
                step = Step(sha[k - 1], float(rng.normal(0, 0.3)), (-0.5, 0.5)) if seq else None
                entries.append(
                    Entry(
                        run=f"log-{k:016x}",
                        date=date,
                        seq=seq,
                        commit=sha[c],
                        benchmark=name,
                        unit="ns/op",
                        higher_is_better=False,
                        estimate=v,
                        ci=(v * 0.995, v * 1.005),
                        n=15,
                        statistic="median",
                        confidence=0.99,
                        runner="bare-metal-1",
                        config="3f2a9c1e5b7d4a60",
                        step=step,
                    )
                )
        before = sum(f.stat().st_size for f in store.files())
        store.append(entries)
        per_night.append(sum(f.stat().st_size for f in store.files()) - before)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", f"night {k}"], check=True)
    subprocess.run([*git, "gc", "-q"], check=True)
    files = sum(f.stat().st_size for f in store.files())
    pack = sum(f.stat().st_size for f in (root / ".git" / "objects" / "pack").glob("*.pack"))
    print(f"{a.benchmarks} benchmarks, {a.nights} nights")
    print(f"per night: {np.mean(per_night) / 1e3:.0f} kB of JSON lines ({2 * a.benchmarks} lines)")
    print(f"files after {a.nights} nights: {files / 1e6:.1f} MB in {len(store.files())} month files")
    print(f"git repository after gc: {pack / 1e6:.1f} MB packed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
