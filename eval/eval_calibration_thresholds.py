"""What a looser stability threshold does to a calibration (docs/calibration.md, "When nothing
is stable"): per metric and threshold, on the µOpTime Go data, the time saved, the benchmarks
never stable, the chosen configurations that do not hold on the later suite runs
(gate/calibration/later_runs.py), and the audit's verdicts: how many changes the minimal and
the full configurations decide (regression or improvement), and on how many of the full
configuration's decided verdicts the minimal one agrees.

    .venv/bin/python -m eval.eval_calibration_thresholds [--settings cv:0.01,rmad:0.1]

Runs the real ``ordertrap-gate calibrate --audit`` (configurations chosen on each project's first
version and replayed on the later ones, µOpTime RQ4) once per project and setting; exit status 2
without the data.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from eval.reference_data import missing_message, reference_data

PROJECTS = ("toml", "prometheus-common")
SETTINGS = "cv:0.01,cv:0.02,cv:0.05,rmad:0.01,rmad:0.02,rmad:0.05,rmad:0.1"
DECIDED = ("regression", "improvement")


def run(project: Path, metric: str, threshold: str, out: Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "gate", "calibrate", str(project / "measurements.csv"), "--levels",
         "suite_run,iteration,second", "--value", "ns_per_op", "--instance", "1", "--metric", metric,
         "--threshold", threshold, "--audit", "--out", str(out)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", default=SETTINGS, help="metric:threshold,... (default: %(default)s)")
    parser.add_argument(
        "--data", type=Path, default=None, help="the uoptime_go folder (default: the reference data)"
    )
    args = parser.parse_args(argv)
    root = args.data or reference_data("uoptime_go")
    if not all((root / p / "measurements.csv").is_file() for p in PROJECTS):
        print(missing_message(root, "uoptime_go"), file=sys.stderr)
        return 2
    print(
        "| metric < threshold | saved | never stable | later ≥ threshold | not holding (later ≥ 2× threshold) "
        "| decided full / minimal | agree on full's decided |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        for setting in args.settings.split(","):
            metric, threshold = setting.split(":")
            full_cost = minimal_cost = 0.0
            n = never = checked = not_holding = above = decided_full = decided_min = agree = 0
            for p in PROJECTS:
                doc = run(root / p, metric, threshold, Path(tmp) / f"{p}.json")
                s = doc["summary"]
                full_cost += s["full_cost"]
                minimal_cost += s["minimal_cost"]
                n += s["n_benchmarks"]
                never += s["n_never_stable"]
                later = s.get("later_suite_runs") or {}
                checked += later.get("checked", 0)
                not_holding += later.get("not_holding", 0)
                above += sum(
                    1
                    for b in doc["benchmarks"].values()
                    if (w := (b.get("later_suite_runs") or {}).get("worst")) is not None
                    and w >= float(threshold)
                )
                for pair in doc["audit"]["pairs"]:
                    for v in pair["verdicts"].values():
                        decided_full += v["full"] in DECIDED
                        decided_min += v["minimal"] in DECIDED
                        agree += v["full"] in DECIDED and v["minimal"] == v["full"]
            saved = 100 * (1 - minimal_cost / full_cost) if full_cost else 0.0
            print(
                f"| {metric} < {threshold} | {saved:.1f}% | {never} of {n} | {above} of {checked} | {not_holding} of {checked} "
                f"| {decided_full} / {decided_min} | {agree} of {decided_full} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
