"""Size and speed of the history trend page on a large history (66 series × 1,600 nights).

    .venv/bin/python -m benchmarks.bench_history_page [--series 66] [--nights 1600] [--keep DIR]

Builds a store through the store's writer (one series per benchmark, 1 % noise, one +5 % step in
the middle of each, a per-night CI of ±1 %), then times each stage of `history report` separately
(reading the store, the change points, the page's view, the HTML), the command alone and as the
nightly workflow runs it (`history changes`, then `history report --changes`), and last
the page in headless Chromium (`--dump-dom`, to the end of the page's filter script, against an
empty page as the browser's own start-up). Prints sizes, times and the load average: on a shared
machine compare the stages of one run with each other, not runs at different loads.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np


def _store(root: Path, n_series: int, nights: int) -> Path:
    from gate.history.store import Entry, Store

    rng = np.random.default_rng(1)
    start = datetime(2021, 1, 1, tzinfo=UTC)
    entries = []
    for s in range(n_series):
        level = 1e3 * (1 + s)
        noise = 1 + 0.01 * rng.standard_normal(nights)
        for k in range(nights):
            v = float(level * (1.05 if k > nights // 2 else 1.0) * noise[k])
            entries.append(
                Entry(
                    run=f"night-{k}",
                    date=(start + timedelta(days=k)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    seq=0,
                    commit=f"{k:040x}",
                    benchmark=f"bench_{s}",
                    unit="ns",
                    higher_is_better=False,
                    estimate=v,
                    ci=(v * 0.99, v * 1.01),
                    n=5,
                )
            )
    Store(root / "store").append(entries)
    return root / "store"


def _chromium(root: Path, page: Path) -> tuple[float, bool]:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        return float("nan"), False
    profile = Path(tempfile.mkdtemp(dir=root, prefix="profile-"))
    start = time.perf_counter()
    proc = subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    took = time.perf_counter() - start
    ok = proc.returncode == 0 and 'id="js-error"' not in proc.stdout
    return took, ok and ('data-ready="1"' in proc.stdout or "<body></body>" in proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=66)
    parser.add_argument("--nights", type=int, default=1600)
    parser.add_argument(
        "--keep", type=Path, help="build in this folder and keep it (default: a temporary one)"
    )
    args = parser.parse_args()

    from gate.cli import main as gate_main
    from gate.history.changes import find_changes
    from gate.history.report import history_view, render_history
    from gate.history.store import Store

    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-history-page-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        store = _store(root, args.series, args.nights)
        print(
            f"store: {args.series} series × {args.nights} nights written in {time.perf_counter() - t:.1f} s"
        )

        stages: dict[str, float] = {}
        t = time.perf_counter()
        entries = Store(store).read()
        stages["read store"] = time.perf_counter() - t
        t = time.perf_counter()
        doc = find_changes(entries)
        stages["change points"] = time.perf_counter() - t
        t = time.perf_counter()
        view = history_view(entries, doc)
        stages["view (charts)"] = time.perf_counter() - t
        t = time.perf_counter()
        html = render_history(view)
        stages["HTML (jinja2)"] = time.perf_counter() - t
        for name, took in stages.items():
            print(f"  {name:<15} {took:7.1f} s")
        print(f"  {'sum':<15} {sum(stages.values()):7.1f} s ({len(doc['change_points'])} change points)")

        page = root / "index.html"
        t = time.perf_counter()
        gate_main(["history", "report", "--store", str(store), "--out", str(page)])
        print(f"`history report` (finds the change points itself): {time.perf_counter() - t:.1f} s")
        changes = root / "changes.json"
        t = time.perf_counter()
        gate_main(["history", "changes", "--store", str(store), "--json", str(changes)])
        changes_s = time.perf_counter() - t
        t = time.perf_counter()
        gate_main(["history", "report", "--store", str(store), "--out", str(page), "--changes", str(changes)])
        print(
            f"the nightly's two commands: `history changes` {changes_s:.1f} s, "
            f"`history report --changes` {time.perf_counter() - t:.1f} s"
        )
        print(
            f"page: {page.stat().st_size / 1e6:.2f} MB ({len(html) / 1e6:.2f} M characters from the stages)"
        )

        empty = root / "empty.html"
        empty.write_text("<!doctype html><html><body></body></html>", encoding="utf-8")
        base_s, base_ok = _chromium(root, empty)
        page_s, page_ok = _chromium(root, page)
        print(
            f"headless Chromium --dump-dom: page {page_s:.1f} s (script ran to its end: {page_ok}), "
            f"empty page {base_s:.1f} s (browser start-up; ok: {base_ok})"
        )
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
