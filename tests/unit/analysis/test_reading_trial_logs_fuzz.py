"""Hostile trial logs: analyze either explains the problem (GateError) or writes valid JSON."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import load_trials
from gate.analysis.pipeline import build_analysis
from gate.errors import GateError

VALUES = st.sampled_from(
    ["1.0", "1.01", "0.99", "2", "", "nan", "NaN", "inf", "-inf", "-1", "0", "abc", "1e308", "1e-300", " 3 "]
)
STATUS = st.sampled_from(["ok", "ok", "ok", "error", "timeout", "", "weird"])
ROW = st.tuples(
    st.sampled_from(["a", "b", "c,d", "é", "", "x\ry"]),
    st.sampled_from(["main", "HEAD", "other"]),
    VALUES,
    STATUS,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(ROW, max_size=40), with_status=st.booleans(), end=st.sampled_from(["\n", ""]))
def test_any_log_gives_valid_json_or_a_gate_error(
    rows: list[tuple[str, str, str, str]], with_status: bool, end: str
) -> None:
    header = "benchmark,version,value" + (",status" if with_status else "")
    lines = [header]
    for b, v, x, s in rows:
        name = f'"{b}"' if "," in b else b
        lines.append(f"{name},{v},{x}" + (f",{s}" if with_status else ""))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trials.csv"
        path.write_bytes(("\n".join(lines) + end).encode())  # "x\ry": a stray carriage return
        try:
            logs = load_trials([path])
            doc = build_analysis(logs, base="main", head="HEAD", settings=AnalysisSettings(resamples=200))
        except GateError as exc:
            assert exc.fix  # every error names the fix
            return
    text = json.dumps(doc, allow_nan=False)  # no NaN/inf leaks into the JSON
    assert json.loads(text)["summary"]["n_benchmarks"] == len(doc["benchmarks"])
    for b in doc["benchmarks"]:
        if b["verdict"] in ("regression", "improvement"):
            assert (
                b["base"]["n"] >= 3
                and b["head"]["n"] >= 3
                and b["base"]["n_failed"] == b["head"]["n_failed"] == 0
            )
