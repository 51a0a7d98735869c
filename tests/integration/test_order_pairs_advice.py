"""The order check's "too few values" warning names `--order-pairs` and the number needed, and
that number is enough: real `run --order-check` runs, then `order-check` on their logs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from gate.cli import main
from gate.stats.median_ci import median_ci
from tests.integration.test_run_cli import config, git, make_repo, run_cli

NOISY_BENCH = """\
import random
from pathlib import Path
print("result:", int(Path("version.txt").read_text()) + random.random())
"""


@pytest.mark.parametrize("confidence", [0.5, 0.75, 0.9, 0.95, 0.99, 1 - 0.05 / 2, 1 - 0.05 / 1000])
def test_min_values_is_the_smallest_sample_with_a_median_interval(confidence: float) -> None:
    from gate.stats.median_ci import min_values

    n = min_values(confidence)
    _, lo, hi = median_ci(np.arange(n, dtype=float), confidence)
    assert np.isfinite(lo) and np.isfinite(hi)
    _, lo, hi = median_ci(np.arange(n - 1, dtype=float), confidence)
    assert not (np.isfinite(lo) and np.isfinite(hi))  # no two-sided interval


def _order_check(log: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["order-check", str(log), "--json", str(out)]) == 0
    return json.loads(out.read_text()), capsys.readouterr().out


@pytest.mark.slow
def test_too_few_pairs_names_order_pairs_and_the_number_that_suffices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, config(names=("a", "b"), s=1, i=1))
    (repo / "bench.py").write_text(NOISY_BENCH)  # values that vary, as real timings do
    git(repo, "commit", "-qam", "noisy values")
    (repo / "version.txt").write_text("3\n")
    git(repo, "commit", "-qam", "head")
    assert run_cli(repo, tmp_path / "few", "--order-check", "--order-pairs", "3", "--seed", "1") == 0
    result, printed = _order_check(tmp_path / "few" / "trials.csv", tmp_path / "few.json", capsys)
    warned = [w for e in result["experiments"] for w in e.get("warnings", [])]
    assert {w["code"] for w in warned} == {"median_ci_undefined"}
    # two benchmarks: Bonferroni alpha 0.025 per benchmark; a 97.5 % interval from the extreme
    # values of n covers the median with probability 1 - 2 * 0.5**n, above 0.975 from n = 7
    needed = 7
    for w in warned:
        assert f"needs {needed} values per order type" in w["message"]
        assert f"`ordertrap-gate run --order-check --order-pairs {needed}`" in w["action"]
    assert f"--order-pairs {needed}" in printed

    # the number named is enough
    (n,) = {int(m) for m in re.findall(r"--order-pairs (\d+)", " ".join(w["action"] for w in warned))}
    assert run_cli(repo, tmp_path / "enough", "--order-check", "--order-pairs", str(n), "--seed", "1") == 0
    result, _ = _order_check(tmp_path / "enough" / "trials.csv", tmp_path / "enough.json", capsys)
    assert not [w for e in result["experiments"] for w in e.get("warnings", [])]
    assert all(t["ci_case"] is not None for e in result["experiments"] for t in e["tests"])
