"""What the ICPE'23 run-similarity heuristic says about the 5 JMH series of ``icpe_jmh`` in
the reference data folder (``$ORDERTRAP_REFERENCE_DATA``, default ``../shared/data``; eval/reference_data.py).

Usage: .venv/bin/python -m eval.report_icpe_similarity [DATA_DIR]

For each benchmark (10 forks × 3,000 iterations) it prints Algorithm 1's verdict with the
five averaged measures, the number of dissimilar fork pairs, and the forks flagged as unlike
most others (gate.stats.similarity.run_heuristic), next to the published steady-state labels
from index.csv. Those labels say whether each fork reaches a steady state — they are NOT
ground truth for run similarity (none exists publicly), so agreement is not expected.
Prints Markdown, ready for the README.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

from eval.reference_data import reference_data, require
from gate.stats.similarity import MEASURE_NAMES, THETA, run_heuristic

DEFAULT = reference_data("icpe_jmh")


def main(argv: list[str]) -> int:
    data = Path(argv[0]) if argv else DEFAULT
    index = data / "index.csv"
    require(index, "icpe_jmh")
    with index.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    short = {"correlation": "M1", "compression": "M2", "fourier": "M3", "cosine": "M4", "ks": "M5"}
    print(
        "| file | benchmark | Alg. 1 verdict | "
        + " | ".join(f"{short[m]} {m}" for m in MEASURE_NAMES)
        + " | dissimilar pairs /45 | per fork (of 9) | forks flagged | steady-state label | fork labels (S/N) |"
    )
    print("|" + "---|" * (3 + len(MEASURE_NAMES) + 5))
    for row in rows:
        forks = [np.asarray(f, dtype=float) for f in json.loads((data / row["file"]).read_text())]
        res = run_heuristic(forks)
        n_pairs = int(np.triu(res.pair_dissimilar, k=1).sum())
        flagged = ",".join(str(i + 1) for i in np.flatnonzero(res.run_flags)) or "none"
        per_fork = " ".join(str(int(k)) for k in res.pair_dissimilar.sum(axis=1))
        measures = " | ".join(f"**{v:.3f}**" if v > THETA else f"{v:.3f}" for v in res.mean_measures)
        name = row["benchmark"].rsplit(".", 2)
        print(
            f"| {row['file']} | {'.'.join(name[-2:])} | {'dissimilar' if res.dissimilar else 'similar'} | "
            f"{measures} | {n_pairs} | {per_fork} | {flagged} | {row['steady_state_run_label']} | "
            f"{row['steady_state_fork_labels'].replace('|', '')} |"
        )
    print(
        f"\nBold: measure above θ = {THETA}. Per fork: with how many of the other 9 forks the pair vote "
        "(≥ 3 of 5 measures above θ) says dissimilar, forks 1-10 in order; a fork is flagged at ≥ 5 "
        "(a strict majority)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
