"""order-check reproduces expected_ordertrap.csv on the OrderSage STREAM/NPB experiment."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gate.cli import main
from tests.conftest import require_shared_data

FLOATS = ("kw_h", "kw_p", "eta2", "delta_pct", "alpha_bc")
EXACT = (
    "n_fixed",
    "n_random",
    "fixed_median",
    "fixed_ci_low",
    "fixed_ci_high",
    "random_median",
    "random_ci_low",
    "random_ci_high",
    "ci_case",
    "significant",
)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = require_shared_data("ordersage_stream_npb")
    out = tmp_path_factory.mktemp("order") / "out.json"
    assert main(["order-check", str(folder / "trials.csv"), "--json", str(out), "--alpha", "0.05"]) == 0
    return json.loads(out.read_text())


def _expected() -> pd.DataFrame:
    return pd.read_csv(require_shared_data("ordersage_stream_npb", "expected_ordertrap.csv"))


def test_every_expected_test_is_reproduced(result: dict) -> None:
    expected = _expected()
    assert [e["experiment"] for e in result["experiments"]] == sorted(set(expected["experiment"]))
    for exp_name, exp_rows in expected.groupby("experiment"):
        exp = next(e for e in result["experiments"] if e["experiment"] == exp_name)
        got = {t["test"]: t for t in exp["tests"]}
        assert set(got) == set(exp_rows["test"])
        for _, row in exp_rows.iterrows():
            t = got[row["test"]]
            for col in FLOATS:
                np.testing.assert_allclose(
                    t[col], row[col], rtol=1e-9, atol=0, err_msg=f"{row['test']} {col}"
                )
            for col in EXACT:
                want = bool(row[col]) if col == "significant" else row[col]
                assert t[col] == want, f"{row['test']} {col}: {t[col]} != {want}"


def test_experiment_level_fields(result: dict) -> None:
    expected = _expected()
    (exp,) = result["experiments"]
    assert exp["alpha"] == 0.05
    assert exp["alpha_bc"] == pytest.approx(0.05 / expected["test"].nunique())
    assert exp["order_matters"] == bool(expected["significant"].any())


def test_shared_position_of_stream_values_is_accepted(result: dict) -> None:
    # The 4 STREAM tests come from one command and share one position_in_run: still 240 + 240.
    trials = pd.read_csv(require_shared_data("ordersage_stream_npb", "trials.csv"))
    dup = trials.duplicated(["experiment", "run_index", "order_type", "position_in_run"], keep=False)
    assert set(trials.loc[dup, "test"]) == {"add_omp", "copy_omp", "scale_omp", "triad_omp"}
    stream = [t for t in result["experiments"][0]["tests"] if t["test"].endswith("_omp")]
    assert len(stream) == 4 and all(t["n_fixed"] == t["n_random"] == 240 for t in stream)


def test_json_is_strict(result: dict) -> None:
    json.dumps(result, allow_nan=False)
