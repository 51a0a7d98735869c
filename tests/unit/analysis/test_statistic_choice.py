"""The statistic that decides: per suite ([suite] statistic → meta.json → analyze), per benchmark
([[benchmark]] statistic), recorded in analysis.json and said by the CLI table; and the tail
finding beside the verdict (gate/analysis/tail.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gate.analysis.compare import AnalysisSettings, Sample, compare_many
from gate.analysis.load import TrialLogs
from gate.analysis.pipeline import build_analysis
from gate.config.project_config import parse_config
from gate.errors import ConfigError
from gate.files import analysis_json
from gate.model import Verdict
from gate.render.terminal import benchmark_table
from tests.fakes.metas import meta_of


def _interfered(rng: np.random.Generator, floor: float, n: int, hit: float) -> np.ndarray:
    """Timings as interference makes them: the floor plus small noise, and a share ``hit`` of
    the values slowed 1.5-4× (../shared/notes/noise.md)."""
    x = floor * (1 + rng.exponential(0.002, n))
    slow = rng.random(n) < hit
    x[slow] *= rng.uniform(1.5, 4.0, slow.sum())
    return x


def _frame(values: dict[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    rows = [
        {"benchmark": b, "version": v, "value": float(x), "status": "ok"}
        for (b, v), xs in values.items()
        for x in xs
    ]
    return pd.DataFrame(rows).assign(source=0, row=range(2, 2 + len(rows)), kind="ok")


def _speedup_hidden_by_interference() -> pd.DataFrame:
    # head is 12 % faster at the floor, but more of its values were hit: the median says little,
    # the 10th percentile sees the floor (the shape of a real xxhash log)
    rng = np.random.default_rng(21)
    return _frame(
        {
            ("hash", "base"): _interfered(rng, 3.45, 45, 0.25),
            ("hash", "head"): _interfered(rng, 3.04, 45, 0.55),
            ("other", "base"): _interfered(rng, 10.0, 45, 0.25),
            ("other", "head"): _interfered(rng, 10.0, 45, 0.55),
        }
    )


def _doc(meta: dict, settings: AnalysisSettings | None = None) -> analysis_json.Analysis:
    return build_analysis(
        TrialLogs(
            _speedup_hidden_by_interference(), metas=[meta_of({"base": "base", "head": "head", **meta})]
        ),
        base=None,
        head=None,
        settings=settings or AnalysisSettings(resamples=2000, statistic="median"),
    )


def test_a_lower_quantile_sees_the_floor_the_median_misses() -> None:
    by_median = {b["benchmark"]: b for b in _doc({})["benchmarks"]}
    by_p10 = {
        b["benchmark"]: b for b in _doc({}, AnalysisSettings(resamples=2000, statistic="p10"))["benchmarks"]
    }
    assert by_median["hash"]["verdict"] != "improvement"
    assert by_p10["hash"]["verdict"] == "improvement"
    assert by_p10["other"]["verdict"] == "unchanged"
    assert by_p10["hash"]["statistic"] == "p10" and by_median["hash"]["statistic"] == "median"


def test_a_benchmark_is_decided_by_its_own_statistic_and_the_table_says_so() -> None:
    doc = _doc({"statistics": {"hash": "p10", "other": "nonsense"}})
    by = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert by["hash"]["statistic"] == "p10" and by["hash"]["verdict"] == "improvement"
    assert by["other"]["statistic"] == "median"  # a bad entry in meta.json is not trusted
    table = benchmark_table(doc)
    assert (
        "decided by: the median of each version (1 benchmark(s) by their own: hash: 10th percentile (Harrell–Davis))"
        in table
    )


def test_old_files_keep_their_median() -> None:
    doc = _doc({})
    old = {
        **doc,
        "benchmarks": [
            {k: v for k, v in b.items() if k not in ("statistic", "tail")} for b in doc["benchmarks"]
        ],
    }
    back = analysis_json.parse(analysis_json.dumps(old))
    assert [analysis_json.benchmark_statistic(back, b) for b in back["benchmarks"]] == ["median", "median"]


def test_suite_statistic_comes_from_the_config(tmp_path: Path) -> None:
    text = '[suite]\nstatistic = "P20"\n[[benchmark]]\nname = "a"\ncommand = "true"\nstatistic = "median"\n'
    config = parse_config(text.encode(), tmp_path / ".ordertrap.toml")
    assert config.suite.statistic == "p20"
    assert config.benchmarks[0].options["statistic"] == "median"


@pytest.mark.parametrize("bad", ['"p0"', '"min"', "10", '"p10.5"'])
def test_a_statistic_the_gate_does_not_know_is_refused(tmp_path: Path, bad: str) -> None:
    for text in (
        f"[suite]\nstatistic = {bad}\n",
        f'[[benchmark]]\nname = "a"\ncommand = "true"\nstatistic = {bad}\n',
    ):
        with pytest.raises(ConfigError) as err:
            parse_config(text.encode(), tmp_path / ".ordertrap.toml")
        assert 'statistic = "p10"' in err.value.fix


def test_settings_canonicalise_and_refuse() -> None:
    assert AnalysisSettings(statistic="P05").statistic == "p5"
    with pytest.raises(ValueError, match="pNN"):
        AnalysisSettings(statistic="p100")


# ---- the tail ------------------------------------------------------------------------------------


def _tail_items(seed: int, tail_factor: float) -> list[tuple[str, Sample, Sample, bool]]:
    """75 values per version; head's slowest 20 % of iterations ``tail_factor`` × slower
    (as more frequent GC pauses do)."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(0.0, 0.01, 75)
    head = rng.lognormal(0.0, 0.01, 75)
    slow = head >= np.quantile(head, 0.8)
    head[slow] *= tail_factor
    trials = np.repeat(np.arange(15), 5)
    return [("gc", Sample(base, trials), Sample(head, trials), False)]


def test_a_tail_only_slowdown_is_a_named_finding_beside_the_verdict() -> None:
    [c] = compare_many(_tail_items(1, 1.5), AnalysisSettings(statistic="p10", resamples=2000))
    assert c.verdict == Verdict.UNCHANGED  # the floor did not move
    assert c.tail is not None and c.tail["statistic"] == "p90" and c.tail["verdict"] == "regression"
    assert c.tail["change_pct"] > 30
    [w] = [w for w in c.warnings if w["code"] == "tail_change"]
    assert "slowest values got slower" in w["message"] and "10th percentile" in w["message"]


def test_no_tail_finding_without_a_tail_change_or_with_the_check_off() -> None:
    [same] = compare_many(_tail_items(2, 1.0), AnalysisSettings(statistic="p10", resamples=2000))
    assert same.tail is None and not same.warnings
    [off] = compare_many(
        _tail_items(1, 1.5), AnalysisSettings(statistic="p10", resamples=2000, tail_statistic="")
    )
    assert off.tail is None


def test_the_tail_finding_reaches_analysis_json_and_the_table() -> None:
    items = _tail_items(1, 1.5)
    _, base, head, _ = items[0]
    df = _frame({("gc", "base"): base.values, ("gc", "head"): head.values})
    doc = build_analysis(
        TrialLogs(df, metas=[meta_of({"base": "base", "head": "head"})]),
        base=None,
        head=None,
        settings=AnalysisSettings(resamples=2000, statistic="p10"),
    )
    [b] = analysis_json.parse(analysis_json.dumps(doc))["benchmarks"]
    assert b["tail"] is not None and b["tail"]["verdict"] == "regression"
    assert "tail change: gc: p90 +" in benchmark_table(doc)


# ---- the tail check's switch ---------------------------------------------------------------------


def test_tail_check_comes_from_the_config_and_a_wrong_value_is_refused(tmp_path: Path) -> None:
    on = parse_config(
        b'[suite]\ntail_check = false\n[[benchmark]]\nname = "a"\ncommand = "true"\n', tmp_path / "c"
    )
    assert on.suite.tail_check is False
    unset = parse_config(b'[[benchmark]]\nname = "a"\ncommand = "true"\n', tmp_path / "c")
    assert unset.suite.tail_check is None
    with pytest.raises(ConfigError) as err:
        parse_config(b'[suite]\ntail_check = "no"\n', tmp_path / "c")
    assert "tail_check" in str(err.value)


def test_the_run_s_tail_check_reaches_analyze_and_the_flag_beats_it(tmp_path: Path) -> None:
    import json

    from gate.cli import main

    items = _tail_items(1, 1.5)
    _, base, head, _ = items[0]
    df = _frame({("gc", "base"): base.values, ("gc", "head"): head.values})
    log = tmp_path / "trials.csv"
    df[["benchmark", "version", "value", "status"]].to_csv(log, index=False)

    def tail_of(*flags: str, meta: dict | None = None) -> object:
        if meta is not None:
            (tmp_path / "meta.json").write_text(
                json.dumps({"schema_version": 2, "base": "base", "head": "head", **meta})
            )
        out = tmp_path / "a.json"
        main(
            [
                "analyze",
                str(log),
                "--base",
                "base",
                "--head",
                "head",
                "--resamples",
                "1000",
                "--json",
                str(out),
                *flags,
            ]
        )
        [b] = json.loads(out.read_text())["benchmarks"]
        return b["tail"]

    assert tail_of() is not None  # on by default
    assert tail_of("--no-tail-check") is None
    assert tail_of(meta={"tail_check": False}) is None  # [suite] tail_check = false, via meta.json
    assert tail_of("--tail-check") is not None
