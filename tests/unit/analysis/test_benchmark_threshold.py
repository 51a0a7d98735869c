"""A [[benchmark]] threshold_pct: run records it, analyze decides that benchmark with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.analysis.compare import AnalysisSettings
from gate.analysis.load import TrialLogs
from gate.analysis.pipeline import build_analysis
from gate.config.project_config import parse_config
from gate.errors import ConfigError
from tests.fakes.metas import meta_of


def _analysis(thresholds: object) -> dict[str, dict]:
    rng = np.random.default_rng(11)
    rows = [
        {"benchmark": b, "version": v, "value": float(rng.normal(mu, 0.05)), "status": "ok"}
        for b in ("tiny", "other")
        for v, mu in (("base", 10.0), ("head", 10.5))  # +5 %, clearly significant
        for _ in range(15)
    ]
    df = pd.DataFrame(rows).assign(source=0, row=range(2, 2 + len(rows)), kind="ok")
    meta = {"base": "base", "head": "head", "thresholds": thresholds}
    doc = build_analysis(
        TrialLogs(df, metas=[meta_of(meta)]), base=None, head=None, settings=AnalysisSettings(resamples=500)
    )
    return {b["benchmark"]: b for b in doc["benchmarks"]}


def test_a_benchmark_is_judged_by_its_own_threshold() -> None:
    by = _analysis({"tiny": 10})
    assert by["other"]["verdict"] == "regression"  # the suite's 3 %
    assert by["tiny"]["verdict"] == "unchanged" and "±10%" in by["tiny"]["reason"]
    assert by["tiny"]["threshold_pct"] == 10 and "threshold_pct" not in by["other"]


@pytest.mark.parametrize("bad", [{"tiny": -1, "other": "x"}, {"tiny": 1e9}, {"tiny": 5000}])
def test_bad_thresholds_in_meta_are_refused_not_trusted(bad: dict) -> None:
    """meta.json's thresholds are held to the domain of .ordertrap.toml and analyze (0-1000 %):
    one outside it leaves the field out (a meta_invalid warning), so the suite's threshold applies."""
    from gate.files import run_meta

    meta, problems = run_meta.from_json(
        {"schema_version": 2, "base": "base", "head": "head", "thresholds": bad}, "meta.json"
    )
    assert problems and "thresholds" in problems[0] and dict(meta.thresholds) == {}


@pytest.mark.parametrize("bad", ["0", "-2", '"ten"', "true", "nan"])
def test_threshold_pct_must_be_a_positive_number(tmp_path: Path, bad: str) -> None:
    text = f'[[benchmark]]\nname = "a"\ncommand = "true"\nthreshold_pct = {bad}\n'
    with pytest.raises(ConfigError, match="threshold_pct must be a percentage above 0 and below 1000") as err:
        parse_config(text.encode(), tmp_path / ".ordertrap.toml")
    assert "threshold_pct = 10" in err.value.fix
