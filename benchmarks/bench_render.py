"""Speed of the reports: render an analysis of N benchmarks (default 5,000) into all three formats.

    .venv/bin/python -m benchmarks.bench_render [--benchmarks 5000] [--repeat 3]

Prints the best wall (and CPU) time of ``repeat`` runs of comment + summary + HTML (the figure in the
README). The analysis is built first (tests/fakes/analyses.large) and not timed; the first run
also pays for compiling the templates and warming matplotlib, so the best-of is what a repeated
CLI call costs after import (the import of matplotlib itself is reported separately).
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    from gate.render import (
        plots,  # noqa: F401  (matplotlib import, timed separately)
        render,
    )

    import_s = time.perf_counter() - t0
    from tests.fakes.analyses import calibration, large

    analysis = large(args.benchmarks)
    cal = calibration([b["benchmark"] for b in analysis["benchmarks"][:200]])
    from gate.render import RenderContext

    context = RenderContext(calibration=cal, report_url="https://example.invalid/report.html")
    best = best_cpu = float("inf")
    sizes: dict[str, int] = {}
    for _ in range(args.repeat):
        parts: dict[str, float] = {}
        start, start_cpu = time.perf_counter(), time.process_time()
        for fmt in ("comment", "summary", "html"):
            t = time.perf_counter()
            text = render(analysis, fmt, context)  # type: ignore[arg-type]
            parts[fmt] = time.perf_counter() - t
            sizes[fmt] = len(text)
        total, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        best, best_cpu = min(best, total), min(best_cpu, cpu)
        print(
            f"run: {total:.2f} s wall, {cpu:.2f} s CPU (comment {parts['comment']:.2f} s, summary {parts['summary']:.2f} s, "
            f"html {parts['html']:.2f} s)"
        )
    print(f"import of gate.render + matplotlib: {import_s:.2f} s")
    print(
        f"sizes: comment {sizes['comment']:,} chars, summary {sizes['summary']:,} chars, html {sizes['html']:,} chars"
    )
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(
        f"best of {args.repeat}: {best:.2f} s wall ({best_cpu:.2f} s CPU) for {args.benchmarks:,} benchmarks "
        "into comment + summary + html"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
