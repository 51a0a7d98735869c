"""The real-history check of docs/history.md: change points per series before and after, and what
the data show around given commits (hyper's `perf(...)` commits). Reads two `history changes
--json` files of the same data (the code before and after) and, for ``--commits``, the
github-action-benchmark data.js they came from::

    .venv/bin/python -m eval.history_real_check BEFORE.changes.json AFTER.changes.json \
        [--data-js hyper-data.js --commits d6aadb8,4d2125c,...] [--by-benchmark]

``--by-benchmark`` sums the after side's series per benchmark (django-asv: one series per
environment after, one per benchmark before). Nothing is fetched; the third-party data stay
where the user put them (never in this repository).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
from pathlib import Path
from typing import Any

SIDE = 5  # points on each side of a commit for its step


def _series(cp: dict[str, Any]) -> str:
    return str(cp.get("series") or cp["benchmark"])


def per_series_table(before: dict[str, Any], after: dict[str, Any], by_benchmark: bool) -> str:
    rows: dict[str, list[int]] = collections.defaultdict(lambda: [0] * 6)

    def short(cp: dict[str, Any]) -> bool:
        return bool(cp["nights_before"] <= 2 or cp["nights_after"] <= 2)

    for cp in before["change_points"]:
        r = rows[_series(cp)]
        ci = cp.get("change_ci")
        r[0] += 1
        r[1] += short(cp)
        r[2] += bool(ci and ci[0] <= 0 <= ci[1])
    for cp in after["change_points"]:
        r = rows[cp["benchmark"] if by_benchmark else _series(cp)]
        r[3] += 1
        r[4] += short(cp)
    for o in after.get("outliers", []):
        rows[o["benchmark"] if by_benchmark else _series(o)][5] += 1
    lines = [
        "| series | CPs before | ≤2-point | CI holds 0 | CPs after | ≤2-point | outliers named |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    total = [0] * 6
    for name in sorted(rows):
        total = [a + b for a, b in zip(total, rows[name], strict=True)]
        lines.append(f"| `{name}` | " + " | ".join(str(x) for x in rows[name]) + " |")
    lines.append("| **total** | " + " | ".join(f"**{x:,}**" for x in total) + " |")
    return "\n".join(lines)


def around_commits(data_js: Path, after: dict[str, Any], commits: list[str]) -> str:
    text = data_js.read_text(encoding="utf-8")
    data = json.loads(text[text.index("{") :])
    outliers = {(o["series"], o["commit"][:7]) for o in after.get("outliers", [])}
    series: dict[str, list[tuple[str, float]]] = {}
    for suite, runs in data["entries"].items():
        for run in runs:
            for b in run["benches"]:
                series.setdefault(f"{suite}/{b['name']}", []).append(
                    (run["commit"]["id"][:7], float(b["value"]))
                )
    out = []
    for c in commits:
        rows = []
        for name, pts in series.items():
            ids = [p[0] for p in pts]
            if c[:7] not in ids:
                continue
            i = ids.index(c[:7])
            keep = [k for k in range(len(pts)) if (name, pts[k][0]) not in outliers or k == i]
            j = keep.index(i)
            pre = [pts[k][1] for k in keep[max(0, j - SIDE) : j]]
            post = [pts[k][1] for k in keep[j : j + SIDE]]
            if len(pre) < 2 or len(post) < 2:
                continue
            vals = [pts[k][1] for k in keep]
            near = range(max(1, j - 30), min(len(vals), j + 30))
            noise = 1.4826 * statistics.median(abs(vals[k] / vals[k - 1] - 1) for k in near) / 2**0.5
            step = statistics.median(post) / statistics.median(pre) - 1
            cps = sorted(
                ((cp["index"] - i, cp["after"][:7], cp["change_pct"]) for cp in after["change_points"]
                 if _series(cp) == name),
                key=lambda t: abs(t[0]),
            )  # fmt: skip
            nearest = f"{cps[0][2]:+.1f} % at {cps[0][1]} ({cps[0][0]:+d})" if cps else "none"
            rows.append((abs(step) / noise if noise else 0.0, name, step, noise, nearest, len(pts) - i))
        rows.sort(reverse=True)
        out.append(f"{c}: in {len(rows)} series; largest steps against the noise:")
        for ratio, name, step, noise, nearest, left in rows[:4]:
            out.append(
                f"  {name}: {step * 100:+.1f} % (noise {noise * 100:.1f} %, {ratio:.1f}×), "
                f"nearest change point {nearest}, {left} point(s) from it to the end"
            )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--by-benchmark", action="store_true")
    parser.add_argument("--data-js", type=Path)
    parser.add_argument("--commits", default="", help="comma-separated commit prefixes (7+ characters)")
    args = parser.parse_args()
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    print(per_series_table(before, after, args.by_benchmark))
    if args.data_js and args.commits:
        print()
        print(around_commits(args.data_js, after, [c for c in args.commits.split(",") if c]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
