"""Writes asv-results/: an asv results folder shaped exactly as asv 0.6 writes one for a project
measured in two environments on one machine (django-asv's layout: results/benchmarks.json,
results/MACHINE/machine.json, results/MACHINE/COMMIT8-ENV.json, result format version 2, the
result columns asv writes). 14 commits, each measured in conda-py3.10 and conda-py3.12; Python
3.10 is 60 % slower than 3.12 (as django's old and new Pythons differ); every benchmark gets
+20 % from commit 8 on in both environments; the conda-py3.12 environment of commit 5 failed to
build, which asv records as a file whose results are all null.

Run: python make_asv_results.py   (standard library only; the values are fixed, so the files are
reproducible)
"""

import hashlib
import json
from pathlib import Path

OUT = Path(__file__).parent / "asv-results"
MACHINE = "ubuntu-22.04"
COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
           "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]  # fmt: skip
NOISE = [0, 4, -3, 2, -1, 3, -4, 1, 2, -2, 3, -1, 0, 2]  # per-mille
BENCH = {
    "query.QuerySuite.time_filter": ("time", [], 3.75e-4),
    "query.QuerySuite.time_slice": ("time", [["10", "1000"]], 2.0e-5),
    "query.track_rows": ("track", [], 42.0),
}


def commit(i: int) -> str:
    return f"{i:02x}" + "5e7a9c1d" * 4 + "f00dcafe"[: 40 - 2 - 32]


def result_file(i: int, env: str, failed: bool) -> dict:
    py = env.split("py")[-1]
    slower = 1.6 if py == "3.10" else 1.0
    results = {}
    for name, (kind, params, base) in BENCH.items():
        version = hashlib.sha256(name.encode()).hexdigest()
        started = 1790000000000 + i * 86400000
        if failed:
            results[name] = [None, params, version, started]
            continue
        combos = [1.0] if not params else [1.0, 80.0]
        step = 1.2 if i >= 8 else 1.0
        f = 1 + NOISE[i] / 1000
        value = [base * c * (slower * step * f if kind == "time" else 1.0) for c in combos]
        if kind == "track":
            results[name] = [value, params, version, started, 0.01]
            continue
        results[name] = [value, params, version, started, 1.5,
                         [v * 0.97 for v in value], [v * 1.03 for v in value],
                         [v * 0.99 for v in value], [v * 1.01 for v in value],
                         [100] * len(value), [10] * len(value)]  # fmt: skip
    return {
        "commit_hash": commit(i),
        "env_name": env,
        "date": 1789990000000 + i * 86400000,
        "params": {"machine": MACHINE, "python": py},
        "python": py,
        "requirements": {},
        "env_vars": {},
        "result_columns": COLUMNS,
        "results": results,
        "durations": {"<build>": 16.6},
        "version": 2,
    }


def main() -> None:
    folder = OUT / MACHINE
    folder.mkdir(parents=True, exist_ok=True)
    (OUT / "benchmarks.json").write_text(
        json.dumps({name: {"name": name, "type": kind, "params": params, "unit": "seconds" if kind == "time" else "unit",
                           "version": "0"} for name, (kind, params, _) in BENCH.items()} | {"version": 2}, indent=4)  # fmt: skip
    )
    (folder / "machine.json").write_text(json.dumps({"machine": MACHINE, "version": 1}, indent=4))
    for i in range(14):
        for env in ("conda-py3.10", "conda-py3.12"):
            doc = result_file(i, env, failed=(i == 5 and env == "conda-py3.12"))
            (folder / f"{commit(i)[:8]}-{env}.json").write_text(json.dumps(doc))


if __name__ == "__main__":
    main()
