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
  parameter combination. A results folder is read as asv wrote it: ``machine.json`` and
  ``benchmarks.json`` are not results, and a file whose results are all null (its environment
  failed to build) holds nothing; both are skipped and counted.

A series is one benchmark on one machine in one environment (docs/history.md): asv gives the
machine (``params.machine``) and the environment (``env_name``), pytest-benchmark its
``machine_info`` (hardware) and Python; a data.js names neither, so ``--machine`` names the runner
that wrote it (several data.js files from different runners stay apart that way).
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gate.errors import InputError
from gate.history.store import Entry, loads
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


# 1970 … 9999: a date outside is a corrupt value, not a time (time.gmtime overflows on 1e20)
_MS_MAX = 253402300799000


def _iso_ms(ms: Any) -> str | None:
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not math.isfinite(ms):
        return None
    if not 0 <= ms <= _MS_MAX:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(ms) / 1000.0))


def _iso_text(text: Any) -> str | None:
    """An ISO 8601 timestamp with any offset, as UTC with a Z."""
    if not isinstance(text, str):
        return None
    from datetime import UTC, datetime

    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError):
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OverflowError:
        return None


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
            return "github-action-benchmark", loads(body)
        except ValueError as exc:
            raise _bad(
                path, f"data.js does not hold a JSON object after {GAB_PREFIX.strip()!r} ({exc})"
            ) from exc
    try:
        doc = loads(text)
    except ValueError as exc:
        raise _bad(path, f"not JSON ({exc})") from exc
    if isinstance(doc, dict) and isinstance(doc.get("entries"), dict):
        return "github-action-benchmark", doc
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and "machine_info" in doc:
        return "pytest-benchmark", doc
    if isinstance(doc, dict) and "commit_hash" in doc and isinstance(doc.get("results"), dict):
        return "asv", doc
    if isinstance(doc, dict) and set(doc) <= {"machine", "version", "arch", "cpu", "num_cpu", "os", "ram"}:
        return "asv-machine", doc  # results/MACHINE/machine.json
    if isinstance(doc, dict) and path.name == "benchmarks.json" and "version" in doc:
        return "asv-benchmarks", doc  # results/benchmarks.json: the benchmark list
    raise _bad(path, "not a format `history import` reads")


def _gab(path: Path, doc: Any, opts: ImportOptions) -> list[Entry]:
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), dict):
        raise _bad(path, 'data.js must hold {"entries": {SUITE: [runs...]}} (github-action-benchmark)')
    out: list[Entry] = []
    for suite, runs in doc["entries"].items():
        if not isinstance(runs, list):
            raise _bad(path, f"entries[{suite!r}] is not a list")
        for i, r in enumerate(runs):
            if not isinstance(r, dict) or not isinstance(r.get("commit"), dict):
                raise _bad(path, f"entries[{suite!r}][{i}] has no commit object")
            commit = r["commit"].get("id")
            # `date` (ms) is when the action ran; the commit's timestamp stands in only when
            # `date` is absent: a `date` that is no time is a damaged file, not a missing field
            date = (
                _iso_ms(r.get("date"))
                if r.get("date") is not None
                else _iso_text(r["commit"].get("timestamp"))
            )
            if not isinstance(commit, str) or not commit or date is None:
                raise _bad(
                    path,
                    f"entries[{suite!r}][{i}] lacks commit.id or a date (`date` in ms since 1970, or "
                    f"commit.timestamp); got date {r.get('date')!r}",
                )
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
                        # content-based: the same run in a grown data.js has the same id
                        run=f"import-gab:{opts.machine or ''}:{suite}:{commit}:{date}",
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
                        runner=opts.machine,
                        extra=extra,
                    )
                )
    return out


def _pytest_machine(doc: dict[str, Any]) -> tuple[str | None, str | None]:
    """(machine, environment) from ``machine_info``: the hardware and OS (not the host name,
    which changes on every hosted CI runner), and the Python that ran."""
    mi = doc.get("machine_info")
    if not isinstance(mi, dict):
        return None, None
    cpu: dict[str, Any] = mi["cpu"] if isinstance(mi.get("cpu"), dict) else {}
    hw = " ".join(str(x) for x in (mi.get("system"), mi.get("machine"), cpu.get("brand_raw")) if x)
    py = " ".join(str(x) for x in (mi.get("python_implementation"), mi.get("python_version")) if x)
    return hw or None, py or None


def _pytest_benchmark(path: Path, doc: dict[str, Any], opts: ImportOptions) -> list[Entry]:
    info = doc.get("commit_info") or {}
    commit = info.get("id") if isinstance(info, dict) else None
    date = _iso_text(doc.get("datetime")) or _iso_text((info or {}).get("time"))
    if not isinstance(commit, str) or not commit or date is None:
        raise _bad(
            path,
            "the pytest-benchmark file has no commit_info.id or datetime",
            "save runs inside the git checkout (pytest-benchmark reads the commit from git)",
        )
    if isinstance(info, dict) and info.get("dirty") and not opts.allow_dirty:
        raise _bad(
            path,
            f"pytest-benchmark ran on uncommitted changes (commit_info.dirty) at {commit[:12]}: its numbers "
            "are not that commit's",
            "import runs of committed code, or pass --allow-dirty to import it anyway (marked dirty)",
        )
    machine, env = _pytest_machine(doc)
    machine = opts.machine or machine
    if not isinstance(doc.get("benchmarks"), list):
        raise _bad(path, "benchmarks must be a list")
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
        extra: dict[str, Any] = {"format": "pytest-benchmark", "iqr": _finite(stats.get("iqr"))}
        if isinstance(info, dict) and info.get("dirty"):
            extra["dirty"] = True
        out.append(
            Entry(
                run=f"import-pytest-benchmark:{machine or ''}:{env or ''}:{commit}:{date}",
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
                runner=machine,
                env=env,
                extra=extra,
            )
        )
    return out


def _asv(path: Path, doc: dict[str, Any], opts: ImportOptions) -> list[Entry]:
    commit, date = doc.get("commit_hash"), _iso_ms(doc.get("date"))
    cols = doc.get("result_columns")
    if not isinstance(commit, str) or date is None or not isinstance(cols, list):
        raise _bad(
            path,
            f"the asv results file lacks commit_hash, a date (ms since 1970) or result_columns (asv < 0.5 "
            f"format?); date {doc.get('date')!r}",
        )
    params: dict[str, Any] = doc["params"] if isinstance(doc.get("params"), dict) else {}
    machine = opts.machine or (str(params["machine"]) if params.get("machine") else None)
    env = str(doc.get("env_name") or "") or (f"py{doc['python']}" if doc.get("python") else None)
    out = []
    for name, row in doc["results"].items():
        if not isinstance(row, list):
            raise _bad(path, f"results[{name!r}] is not a list")
        rec = dict(zip(cols, row, strict=False))
        results = rec.get("result")
        if results is None:
            continue  # asv records a benchmark that failed or was skipped as null
        bench_params = rec.get("params") or []
        combos = (
            [", ".join(str(p) for p in c) for c in itertools.product(*bench_params)] if bench_params else [""]
        )
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
                    run=f"import-asv:{machine or ''}:{env or ''}:{commit}:{date}",
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
                    runner=machine,
                    env=env,
                    extra={"format": "asv"},
                )
            )
    return out


@dataclass(frozen=True)
class ImportOptions:
    machine: str | None = None  # names the runner (a data.js names none)
    allow_dirty: bool = False  # pytest-benchmark runs of uncommitted code


@dataclass
class Imported:
    entries: list[Entry] = field(default_factory=list)
    files: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # why → how many files

    def skipped_text(self) -> str:
        return "; ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))


def _asv_all_null(doc: dict[str, Any]) -> bool:
    cols = doc.get("result_columns")
    if not isinstance(cols, list) or "result" not in cols:
        return False
    k = cols.index("result")
    rows = doc["results"].values()
    return all(isinstance(r, list) and (len(r) <= k or r[k] is None) for r in rows)


def _files_of(path: Path) -> list[Path]:
    """A file as given; a folder (an asv ``results`` or ``results/MACHINE`` folder) as its JSON
    files, in name order so an import is reproducible."""
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.json") if p.is_file())
        if not found:
            raise _bad(
                path, "the folder holds no .json file", "pass an asv results folder or the files themselves"
            )
        return found
    return [path]


def import_paths(
    paths: Sequence[str | Path], fmt: str | None = None, opts: ImportOptions | None = None
) -> Imported:
    """Every entry of ``paths`` (files or asv results folders); files that hold no results by
    design are counted in ``skipped``. Nothing is partly read: a bad file refuses the import."""
    opts = opts or ImportOptions()
    out = Imported()
    for given in paths:
        for p in _files_of(Path(given)):
            found, doc = load_document(p)
            if found == "asv-machine":
                out.skipped["machine.json (asv's machine description, not results)"] += 1
                continue
            if found == "asv-benchmarks":
                out.skipped["benchmarks.json (asv's benchmark list, not results)"] += 1
                continue
            if fmt and fmt != found:
                raise _bad(p, f"looks like {found}, not {fmt}", f"pass --format {found}, or the right file")
            if found == "asv" and _asv_all_null(doc):
                out.skipped["asv result file(s) whose results are all null (the environment failed)"] += 1
                continue
            reader = {"github-action-benchmark": _gab, "pytest-benchmark": _pytest_benchmark, "asv": _asv}[
                found
            ]
            entries = reader(p, doc, opts)
            if not entries:
                raise _bad(p, "holds no benchmark result", "check that the tool saved results into this file")
            out.entries.extend(entries)
            out.files += 1
    # the same result given twice in one import (an old and a grown data.js) is kept once
    seen: set[tuple[str, ...]] = set()
    unique = []
    for e in out.entries:
        key = (*e.series_key, e.commit, e.date)
        if key not in seen:
            seen.add(key)
            unique.append(e)
    out.entries = unique
    return out


def import_file(path: str | Path, fmt: str | None = None, opts: ImportOptions | None = None) -> list[Entry]:
    """The entries of one file (or folder); refused when it holds none."""
    got = import_paths([path], fmt, opts)
    if not got.entries:
        raise _bad(Path(path), f"holds no benchmark result ({got.skipped_text() or 'nothing read'})")
    return got.entries
