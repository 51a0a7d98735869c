"""Blips before and after: Otava alone (what `history changes` reported before blips were taken
out) against `find_changes` (Hampel filter, minimum segment, step CI that excludes 0), on the
same seeded synthetic series. The table in docs/history.md ("Blips are not change points")::

    .venv/bin/python -m eval.history_blips --reps 60

Scenarios, each ``--reps`` series of ``--nights`` nights with Gaussian noise of ``--noise``
(relative sd): pure noise; noise with blips (2 % of nights, in runs of 1 or 2, 30-60 % off, the
shape seen on django-asv and hyper); steps of 2, 5 and 10 % at a random night in the middle
third, with and without blips. A planted step is detected when a change point lies within
``--tolerance`` nights of it; every other change point is false; a "blip pair" is two false
change points at most 2 nights apart (a regression and an improvement bounding a blip).
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from gate.history.changes import MAX_PVALUE, WINDOW, _otava, find_changes
from gate.history.store import Entry

STEPS = (0.02, 0.05, 0.10)
START = datetime(2026, 1, 1, tzinfo=UTC)


def _blips(rng: np.random.Generator, s: np.ndarray, share: float = 0.02) -> None:
    n = s.size
    for at in rng.choice(np.arange(5, n - 5), size=max(1, int(share * n)), replace=False):
        width = int(rng.integers(1, 3))
        s[at : at + width] *= 1 + float(rng.choice([-1, 1])) * float(rng.uniform(0.3, 0.6))


def scenarios(reps: int, nights: int, noise: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in range(reps):
        rng = np.random.default_rng(5000 + r)
        base = 100.0 * (1 + noise * rng.standard_normal(nights))
        out.append({"name": "noise", "series": base, "planted": None})
        b = base.copy()
        _blips(rng, b)
        out.append({"name": "noise + blips", "series": b, "planted": None})
        for step in STEPS:
            pos = int(rng.integers(nights // 3, 2 * nights // 3))
            s = base.copy()
            s[pos:] *= 1 + step
            out.append({"name": f"step {step:.0%}", "series": s, "planted": pos})
            sb = s.copy()
            _blips(rng, sb)
            out.append({"name": f"step {step:.0%} + blips", "series": sb, "planted": pos})
    return out


def _entries(values: np.ndarray) -> list[Entry]:
    return [
        Entry(
            run=f"n{i}",
            date=(START + timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            seq=0,
            commit=f"c{i}",
            benchmark="b",
            unit="ns",
            higher_is_better=False,
            estimate=float(v),
            ci=None,
            n=1,
        )
        for i, v in enumerate(values)
    ]


def before(values: np.ndarray) -> list[int]:
    cps, _ = _otava()(values.tolist(), window_len=WINDOW, max_pvalue=MAX_PVALUE)
    return sorted(int(c.index) for c in cps)


def after(values: np.ndarray) -> list[int]:
    return sorted(cp["index"] for cp in find_changes(_entries(values))["change_points"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--nights", type=int, default=200)
    ap.add_argument("--noise", type=float, default=0.01)
    ap.add_argument("--tolerance", type=int, default=2)
    args = ap.parse_args(argv)
    rows: dict[tuple[str, str], dict[str, float]] = {}
    times = {"before": 0.0, "after": 0.0}
    for sc in scenarios(args.reps, args.nights, args.noise):
        for label, detect in (("before", before), ("after", after)):
            t0 = time.perf_counter()
            found = detect(sc["series"])
            times[label] += time.perf_counter() - t0
            pos = sc["planted"]
            hit = pos is not None and any(abs(i - pos) <= args.tolerance for i in found)
            false = [i for i in found if pos is None or abs(i - pos) > args.tolerance]
            pairs = sum(1 for a, b in itertools.pairwise(false) if b - a <= 2)
            r = rows.setdefault((sc["name"], label), {"series": 0, "detected": 0, "false": 0, "pairs": 0})
            r["series"] += 1
            r["detected"] += hit
            r["false"] += len(false)
            r["pairs"] += pairs
    print(
        f"{args.reps} series of {args.nights} nights per scenario, noise {args.noise:.0%}, tolerance ±{args.tolerance}"
    )
    print("| scenario | detector | detected | false CPs / 100 points | blip pairs |")
    print("|---|---|---:|---:|---:|")
    for (name, label), r in rows.items():
        det = "—" if name.startswith("noise") else f"{100 * r['detected'] / r['series']:.0f}%"
        per100 = 100 * r["false"] / (r["series"] * args.nights)
        print(f"| {name} | {label} | {det} | {per100:.2f} | {int(r['pairs'])} |")
    print(f"time: before {times['before']:.1f} s, after {times['after']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
