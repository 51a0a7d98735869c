"""Compare the change-point libraries on synthetic nightly series (the table in docs/history.md).

Each library is run in its own virtual environment, because their pins exclude each other
(apache-otava 0.8.0 pins numpy 2.2.0 on Python < 3.14; signal-processing-algorithms 2.1.6 needs
numpy < 2 and Python 3.11 only)::

    python3 -m venv /tmp/venv-otava && /tmp/venv-otava/bin/pip install apache-otava==0.8.0
    python3 -m venv /tmp/venv-spa && /tmp/venv-spa/bin/pip install signal-processing-algorithms==2.1.6
    /tmp/venv-otava/bin/python eval/changepoint_compare.py --lib otava --json /tmp/otava.json
    /tmp/venv-spa/bin/python eval/changepoint_compare.py --lib spa --json /tmp/spa.json
    python3 eval/changepoint_compare.py --table /tmp/otava.json /tmp/spa.json

Series: 60 nights of a per-night median with Gaussian noise of ``--noise`` (relative sd, default
1 %: the night-to-night spread of a median on a quiet bare-metal runner). Scenarios, each with
``--reps`` seeded series: no change; one step of 1, 2, 5 or 10 % at a random night in 15..45; a
drift of 0.1 %/night over 20 nights (2 % in all) followed by a plateau. A planted step counts as
detected when a change point lies within ``--tolerance`` nights of it (drift: anywhere within
the drift ±tolerance); every other change point is false. Position error is |found - planted|
of the detected ones.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

NIGHTS = 60
STEPS = (0.01, 0.02, 0.05, 0.10)


def scenarios(reps: int, noise: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in range(reps):
        rng = np.random.default_rng(1000 + r)
        base = 100.0 * (1 + noise * rng.standard_normal(NIGHTS))
        out.append({"name": "none", "series": base.tolist(), "planted": []})
        for step in STEPS:
            pos = int(rng.integers(15, 46))
            s = base.copy()
            s[pos:] *= 1 + step
            out.append({"name": f"step {step:.0%}", "series": s.tolist(), "planted": [[pos, pos]]})
        start = int(rng.integers(10, 30))
        drift = np.ones(NIGHTS)
        ramp = np.minimum(np.maximum(np.arange(NIGHTS) - start + 1, 0), 20) * 0.001
        s = base * (drift + ramp)
        out.append({"name": "drift 2% over 20", "series": s.tolist(), "planted": [[start, start + 20]]})
    return out


def detect(lib: str, series: list[float], pvalue: float) -> list[int]:
    if lib == "otava":
        from otava.analysis import compute_change_points

        cps, _ = compute_change_points(series, window_len=30, max_pvalue=pvalue)
        return sorted(int(c.index) for c in cps)
    if lib == "spa":
        from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive

        return sorted(int(i) for i in e_divisive(np.asarray(series), pvalue=pvalue, permutations=100))
    raise SystemExit(f"unknown --lib {lib}")


def run(lib: str, reps: int, noise: float, pvalue: float, tolerance: int) -> dict[str, Any]:
    np.random.seed(7)  # signal-processing-algorithms permutes with the global RNG
    rows: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for sc in scenarios(reps, noise):
        found = detect(lib, sc["series"], pvalue)
        row = rows.setdefault(
            sc["name"], {"series": 0, "planted": 0, "detected": 0, "false": 0, "errors": []}
        )
        row["series"] += 1
        unmatched = list(found)
        for lo, hi in sc["planted"]:
            row["planted"] += 1
            near = [f for f in unmatched if lo - tolerance <= f <= hi + tolerance]
            if near:
                best = min(near, key=lambda f: min(abs(f - lo), abs(f - hi)))
                unmatched.remove(best)
                row["detected"] += 1
                row["errors"].append(0 if lo <= best <= hi else min(abs(best - lo), abs(best - hi)))
        row["false"] += len(unmatched)
    elapsed = time.perf_counter() - t0
    table = {}
    for name, row in rows.items():
        table[name] = {
            "detection": row["detected"] / row["planted"] if row["planted"] else None,
            "false_per_100": 100.0 * row["false"] / (row["series"] * NIGHTS),
            "position_error_mean": float(np.mean(row["errors"])) if row["errors"] else None,
            "series": row["series"],
        }
    return {
        "lib": lib,
        "reps": reps,
        "noise": noise,
        "pvalue": pvalue,
        "tolerance": tolerance,
        "seconds": round(elapsed, 1),
        "table": table,
    }


def markdown(results: list[dict[str, Any]]) -> str:
    lines = [
        "| library (p) | scenario | detected | false CPs / 100 points | mean position error (nights) |",
        "|---|---|---:|---:|---:|",
    ]
    for res in results:
        for name, t in res["table"].items():
            det = "—" if t["detection"] is None else f"{t['detection']:.0%}"
            err = "—" if t["position_error_mean"] is None else f"{t['position_error_mean']:.1f}"
            lines.append(
                f"| {res['lib']} ({res['pvalue']}) | {name} | {det} | {t['false_per_100']:.2f} | {err} |"
            )
    lines.append("")
    lines.append("time for all series: " + ", ".join(f"{r['lib']} {r['seconds']} s" for r in results))
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", choices=("otava", "spa"))
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--noise", type=float, default=0.01)
    p.add_argument("--pvalue", type=float, default=0.001)
    p.add_argument("--tolerance", type=int, default=2)
    p.add_argument("--json", metavar="OUT")
    p.add_argument("--table", nargs="+", metavar="RESULT.json")
    a = p.parse_args()
    if a.table:
        print(markdown([json.loads(Path(f).read_text()) for f in a.table]))
        return 0
    if not a.lib:
        p.error("--lib or --table is required")
    res = run(a.lib, a.reps, a.noise, a.pvalue, a.tolerance)
    text = json.dumps(res, indent=2)
    if a.json:
        Path(a.json).write_text(text + "\n")
    print(markdown([res]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
