"""`history` on the inputs people hand it: a trial log of one version, and bad files and paths,
each refused with the fix (exit 2, `fix:` on stderr), never a traceback, and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from gate.analysis.compare import AnalysisSettings
from gate.cli import main
from gate.history.store import Store
from gate.stats.quantile import quantile_of
from tests.fakes.nightly import COLUMNS, commit, write_night

DATA = Path(__file__).resolve().parents[1] / "testdata" / "history"


def _one_version_log(out: Path, version: str, meta: dict[str, object] | None) -> Path:
    """A plain run of one version: 3 suite runs × 5 measurements of two benchmarks."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2)
    rows = [COLUMNS]
    for run in range(1, 4):
        for pos, name in enumerate(("parse", "render"), start=1):
            for m in range(1, 6):
                v = (100.0 if name == "parse" else 250.0) * (1 + 0.01 * rng.standard_normal())
                rows.append(
                    f"{name},{version},nightly-runner,{run},random,{pos},1,{m},{v:.6f},ns/op,false,ok"
                )
    (out / "trials.csv").write_text("\n".join(rows) + "\n")
    if meta is not None:
        (out / "meta.json").write_text(json.dumps(meta))
    return out / "trials.csv"


@pytest.mark.parametrize("with_meta", [False, True], ids=["plain-run", "nightly-head-only"])
def test_a_log_of_one_version_is_added(tmp_path: Path, with_meta: bool) -> None:
    meta = (
        {
            "schema_version": 2,
            "created_at": "2026-11-20T02:17:00Z",
            "head": "HEAD",
            "instance": "nightly-runner",
            "versions": {"HEAD": {"role": "head", "sha": commit(7)}},
        }
        if with_meta
        else None
    )
    trials = _one_version_log(tmp_path / "run", "HEAD", meta)
    args = ["history", "add", str(trials), "--store", str(tmp_path / "s")]
    assert main([*args, *([] if with_meta else ["--date", "2026-11-20T02:17:00Z"])]) == 0
    entries = Store(tmp_path / "s").read()
    assert sorted(e.benchmark for e in entries) == ["parse", "render"]
    # Without a [suite] statistic in meta.json the entry holds analyze's default (p10), the
    # statistic a PR verdict on this log would use; its value is that quantile of the version's
    # values: nominal × (1 + 1 % × z_q) for the 1 % normal noise above (z = 0 for median/mean).
    default = AnalysisSettings().statistic
    z = float(norm.ppf(quantile_of(default) or 0.5))
    for e in entries:
        assert e.commit == (commit(7) if with_meta else "HEAD") and e.step is None and e.n == 15
        assert e.statistic == default
        assert e.ci is not None and e.ci[0] <= e.estimate <= e.ci[1]  # type: ignore[operator]
        nominal = 100.0 if e.benchmark == "parse" else 250.0
        assert abs(e.estimate - nominal * (1 + 0.01 * z)) < 0.01 * nominal  # type: ignore[operator]


def test_one_version_log_summary_equals_the_pairs_summary(tmp_path: Path) -> None:
    """The version's summary does not depend on what it is measured beside: a two-version
    night's head entry and the same head alone give the same estimate and CI."""
    trials = write_night(tmp_path / "night", 3, {"a": {}, "b": {}}, np.random.default_rng(4))
    assert main(["history", "add", str(trials), "--store", str(tmp_path / "pair")]) == 0
    head_only = tmp_path / "head" / "trials.csv"
    head_only.parent.mkdir()
    lines = trials.read_text().splitlines()
    head_only.write_text("\n".join([lines[0], *[ln for ln in lines[1:] if f",{commit(3)}," in ln]]) + "\n")
    add = ["history", "add", str(head_only), "--store", str(tmp_path / "alone")]
    assert main([*add, "--date", "2026-09-04T02:17:00Z"]) == 0
    pair = {e.benchmark: e for e in Store(tmp_path / "pair").read() if e.commit == commit(3)}
    alone = {e.benchmark: e for e in Store(tmp_path / "alone").read()}
    for name in ("a", "b"):
        assert alone[name].estimate == pair[name].estimate and alone[name].ci == pair[name].ci


def _bad(tmp_path: Path, name: str) -> list[str]:
    """The command line of one bad input (files are made in ``tmp_path``)."""
    store = str(tmp_path / "store")
    f = tmp_path / "in"
    f.mkdir(exist_ok=True)
    if name == "deep-nesting":
        (f / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
        return ["history", "import", str(f / "deep.json"), "--store", store]
    if name == "deep-nesting-data-js":
        (f / "data.js").write_text("window.BENCHMARK_DATA = " + "[" * 100_000 + "]" * 100_000)
        return ["history", "import", str(f / "data.js"), "--store", store]
    if name == "binary-file":
        (f / "bin.json").write_bytes(bytes(range(256)) * 4)
        return ["history", "import", str(f / "bin.json"), "--store", store]
    if name == "date-1e20":
        doc = json.loads((DATA / "data.json").read_text())
        next(iter(doc["entries"].values()))[0]["date"] = 1e20
        (f / "data.json").write_text(json.dumps(doc))
        return ["history", "import", str(f / "data.json"), "--store", store]
    if name == "asv-date-1e20":
        (asv,) = (DATA / "asv").glob("*-existing-*.json")
        doc = json.loads(asv.read_text())
        doc["date"] = 1e20
        (f / "r.json").write_text(json.dumps(doc))
        return ["history", "import", str(f / "r.json"), "--store", store]
    if name == "entries-list":
        (f / "data.js").write_text('window.BENCHMARK_DATA = {"entries": []}')
        return ["history", "import", str(f / "data.js"), "--store", store]
    if name == "entries-list-json":
        (f / "data.json").write_text('{"entries": []}')
        return ["history", "import", str(f / "data.json"), "--store", store]
    if name == "store-is-a-file-import":
        (tmp_path / "store").write_text("x")
        return ["history", "import", str(DATA / "data.json"), "--store", store]
    if name == "store-is-a-file-changes":
        (tmp_path / "store").write_text("x")
        return ["history", "changes", "--store", store]
    if name == "binary-month-file":
        assert main(["history", "import", str(DATA / "data.json"), "--store", store]) == 0
        month = sorted((tmp_path / "store" / "data").iterdir())[0]
        month.write_bytes(b"\xff\xfe" + month.read_bytes())
        return ["history", "changes", "--store", store]
    if name == "out-is-a-folder":
        assert main(["history", "import", str(DATA / "data.json"), "--store", store]) == 0
        (tmp_path / "page").mkdir()
        return ["history", "report", "--store", store, "--out", str(tmp_path / "page")]
    if name == "out-under-a-file":
        assert main(["history", "import", str(DATA / "data.json"), "--store", store]) == 0
        (tmp_path / "afile").write_text("x")
        return ["history", "report", "--store", store, "--out", str(tmp_path / "afile" / "index.html")]
    raise AssertionError(name)


BAD = [
    ("deep-nesting", "nested too deeply"),
    ("deep-nesting-data-js", "nested too deeply"),
    ("binary-file", "unreadable"),
    ("date-1e20", "1e+20"),
    ("asv-date-1e20", "1e+20"),
    ("entries-list", '{"entries": {SUITE'),
    ("entries-list-json", "not a format"),
    ("store-is-a-file-import", "is a file, not a folder"),
    ("store-is-a-file-changes", "is a file, not a folder"),
    ("binary-month-file", "not UTF-8"),
    ("out-is-a-folder", "is a folder"),
    ("out-under-a-file", "cannot be written"),
]


@pytest.mark.parametrize(("name", "said"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_clear_error_with_a_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    argv = _bad(tmp_path, name)
    capsys.readouterr()
    store = tmp_path / "store"
    before = sorted(p.name for p in store.rglob("*")) if store.is_dir() else None
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "fix:" in err and "Traceback" not in err, err
    assert (sorted(p.name for p in store.rglob("*")) if store.is_dir() else None) == before
