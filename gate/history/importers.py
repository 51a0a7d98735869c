"""`history import`: bring a past history from the tools users already have.

One reader per external format (habit 9 of ARCHITECTURE.md); each returns store entries with
``source = "import"`` and the format in ``extra["format"]``, so imported data is never mistaken
for the gate's own RMIT nightly measurements.

* github-action-benchmark ``data.js`` (``window.BENCHMARK_DATA = `` + ``JSON.stringify(data,
  null, 2)``, its ``src/write.ts``) and the same object as ``data.json``
  (``external-data-json-path``): ``{"entries": {SUITE: [{"commit": {"id", "timestamp", ...},
  "date": ms, "tool", "benches": [{"name", "value", "unit", "range"?}]}]}}``. A value is one
  number per commit (no CI); bigger-is-better follows the tool as in its ``biggerIsBetter()``.
* pytest-benchmark ``--benchmark-save`` / ``--benchmark-json`` files: ``{"commit_info": {"id",
  "time"}, "datetime", "benchmarks": [{"name", "stats": {"median", "iqr", "rounds", "data"?}}]}``.
  The median of the rounds, with the distribution-free CI of the median when the raw ``data``
  was saved (``--benchmark-save-data``).
* asv results (``results/MACHINE/COMMIT-ENV.json``, asv ≥ 0.5 format version 2):
  ``{"commit_hash", "date": ms, "result_columns": [...], "results": {NAME: [columns...]}}``;
  the result with asv's own 99 % CI (``stats_ci_99_a``/``stats_ci_99_b``), one entry per
  parameter combination.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from gate.errors import InputError
from gate.history.store import Entry
from gate.stats.median_ci import median_ci

FORMATS = ("github-action-benchmark", "pytest-benchmark", "asv")
GAB_PREFIX = "window.BENCHMARK_DATA = "
# github-action-benchmark src/extract.ts biggerIsBetter(): throughput-style tools.
GAB_BIGGER_IS_BETTER = {"benchmarkjs", "pytest", "customBiggerIsBetter"}


def _bad(path: Path, what: str, fix: str = "") -> InputError:
    return InputError(
        f"{path}: {what}",
        fix
        or "pass the file exactly as the tool wrote it (data.js/data.json of github-action-benchmark, a "
        "pytest-benchmark JSON, an asv results JSON), or --format to name it",
    )


def _iso_ms(ms: Any) -> str | None:
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not math.isfinite(ms):
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(ms) / 1000.0))


def _iso_text(text: Any) -> str | None:
    """An ISO 8601 timestamp with any offset, as UTC with a Z."""
    if not isinstance(text, str):
        return None
    from datetime import UTC, datetime

    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _finite(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(float(v)):
        return None
    return float(v)


def load_document(path: Path) -> tuple[str, Any]:
    """The format and parsed document of ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(path, f"unreadable ({exc})") from exc
    stripped = text.lstrip()
    if stripped.startswith(GAB_PREFIX.strip()):
        body = stripped[stripped.index("=") + 1 :].strip().rstrip(";")
        try:
            return "github-action-benchmark", json.loads(body)
        except ValueError as exc:
            raise _bad(
                path, f"data.js does not hold a JSON object after {GAB_PREFIX.strip()!r} ({exc})"
            ) from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise _bad(path, f"not JSON ({exc})") from exc
    if isinstance(doc, dict) and isinstance(doc.get("entries"), dict):
        return "github-action-benchmark", doc
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and "machine_info" in doc:
        return "pytest-benchmark", doc
    if isinstance(doc, dict) and "commit_hash" in doc and isinstance(doc.get("results"), dict):
        return "asv", doc
    raise _bad(path, "not a format `history import` reads")


def _gab(path: Path, doc: dict[str, Any], run_prefix: str) -> list[Entry]:
    out: list[Entry] = []
    for suite, runs in doc["entries"].items():
        if not isinstance(runs, list):
            raise _bad(path, f"entries[{suite!r}] is not a list")
        for i, r in enumerate(runs):
            if not isinstance(r, dict) or not isinstance(r.get("commit"), dict):
                raise _bad(path, f"entries[{suite!r}][{i}] has no commit object")
            commit = r["commit"].get("id")
            date = _iso_ms(r.get("date")) or _iso_text(r["commit"].get("timestamp"))
            if not isinstance(commit, str) or not commit or date is None:
                raise _bad(path, f"entries[{suite!r}][{i}] lacks commit.id or date")
            tool = str(r.get("tool") or "")
            for b in r.get("benches") or []:
                value = _finite(b.get("value")) if isinstance(b, dict) else None
                if value is None or not isinstance(b.get("name"), str):
                    raise _bad(path, f"entries[{suite!r}][{i}] has a bench without a name and numeric value")
                extra = {"format": "github-action-benchmark", "suite": suite, "tool": tool}
                if b.get("range") is not None:
                    extra["range"] = str(b["range"])
                out.append(
                    Entry(
                        run=f"{run_prefix}:{suite}:{i}",
                        date=date,
                        seq=0,
                        commit=commit,
                        benchmark=b["name"] if len(doc["entries"]) == 1 else f"{suite}/{b['name']}",
                        unit=str(b.get("unit") or ""),
                        higher_is_better=tool in GAB_BIGGER_IS_BETTER,
                        estimate=value,
                        ci=None,
                        n=1,
                        source="import",
                        statistic="value",
                        extra=extra,
                    )
                )
    return out


def _pytest_benchmark(path: Path, doc: dict[str, Any], run_prefix: str) -> list[Entry]:
    info = doc.get("commit_info") or {}
    commit = info.get("id") if isinstance(info, dict) else None
    date = _iso_text(doc.get("datetime")) or _iso_text((info or {}).get("time"))
    if not isinstance(commit, str) or not commit or date is None:
        raise _bad(
            path,
            "the pytest-benchmark file has no commit_info.id or datetime",
            "save runs inside the git checkout (pytest-benchmark reads the commit from git)",
        )
    out = []
    for b in doc["benchmarks"]:
        stats = b.get("stats") if isinstance(b, dict) else None
        if not isinstance(stats, dict):
            raise _bad(path, "a benchmark lacks its stats object")
        median = _finite(stats.get("median"))
        if median is None or not isinstance(b.get("name"), str):
            raise _bad(path, "a benchmark lacks name or stats.median")
        data = stats.get("data")
        ci = None
        n = int(stats.get("rounds") or 0)
        confidence = None
        if isinstance(data, list) and data and all(_finite(x) is not None for x in data):
            x = np.asarray(data, dtype=float)
            _, lo, hi = median_ci(x, 0.95)
            n = int(x.size)
            if math.isfinite(lo) and math.isfinite(hi):
                ci, confidence = (lo, hi), 0.95
        out.append(
            Entry(
                run=run_prefix,
                date=date,
                seq=0,
                commit=commit,
                benchmark=str(b.get("fullname") or b["name"]),
                unit="s",
                higher_is_better=False,
                estimate=median,
                ci=ci,
                n=n,
                source="import",
                statistic="median",
                confidence=confidence,
                extra={"format": "pytest-benchmark", "iqr": _finite(stats.get("iqr"))},
            )
        )
    return out


def _asv(path: Path, doc: dict[str, Any], run_prefix: str) -> list[Entry]:
    commit, date = doc.get("commit_hash"), _iso_ms(doc.get("date"))
    cols = doc.get("result_columns")
    if not isinstance(commit, str) or date is None or not isinstance(cols, list):
        raise _bad(path, "the asv results file lacks commit_hash, date or result_columns (asv < 0.5 format?)")
    machine = (doc.get("params") or {}).get("machine") if isinstance(doc.get("params"), dict) else None
    out = []
    for name, row in doc["results"].items():
        if not isinstance(row, list):
            raise _bad(path, f"results[{name!r}] is not a list")
        rec = dict(zip(cols, row, strict=False))
        results = rec.get("result")
        if results is None:
            continue  # asv records a benchmark that failed or was skipped as null
        params = rec.get("params") or []
        combos = [", ".join(str(p) for p in c) for c in itertools.product(*params)] if params else [""]
        lo_all, hi_all = rec.get("stats_ci_99_a") or [], rec.get("stats_ci_99_b") or []
        for j, label in enumerate(combos):
            value = _finite(results[j]) if j < len(results) else None
            if value is None:
                continue
            lo = _finite(lo_all[j]) if j < len(lo_all) else None
            hi = _finite(hi_all[j]) if j < len(hi_all) else None
            ci = (lo, hi) if lo is not None and hi is not None else None
            time_like = name.split(".")[-1].startswith(("time_", "timeraw_"))
            out.append(
                Entry(
                    run=run_prefix,
                    date=date,
                    seq=0,
                    commit=commit,
                    benchmark=f"{name}({label})" if label else name,
                    unit="s" if time_like else "",
                    higher_is_better=False,
                    estimate=value,
                    ci=ci,
                    n=1,
                    source="import",
                    statistic="asv",
                    confidence=0.99 if ci else None,
                    runner=str(machine) if machine else None,
                    extra={"format": "asv", "env": str(doc.get("env_name") or "")},
                )
            )
    return out


def import_file(path: str | Path, fmt: str | None = None) -> list[Entry]:
    p = Path(path)
    found, doc = load_document(p)
    if fmt and fmt != found:
        raise _bad(p, f"looks like {found}, not {fmt}", f"pass --format {found}, or the right file")
    digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    prefix = f"import-{found}-{digest}"
    reader = {"github-action-benchmark": _gab, "pytest-benchmark": _pytest_benchmark, "asv": _asv}[found]
    entries = reader(p, doc, prefix)
    if not entries:
        raise _bad(p, "holds no benchmark result", "check that the tool saved results into this file")
    return entries
