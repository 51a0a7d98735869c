"""The ``criterion`` adapter end to end on a crate of the test's own (Criterion.rs from crates.io,
``default-features = false``: no rayon, no plotters): two revisions, the second with a planted
slowdown in one of two benchmarks; ``run`` builds each worktree once (``cargo bench --no-run``)
and runs the bench executable per trial; ``analyze`` must call the slowed one a regression.

Both worktrees share one ``CARGO_TARGET_DIR`` under the tests' cache
(``tests/integration/toolchains.py``), so Criterion and its dependencies are compiled once per
machine, not once per worktree and run: cargo names each package's executables by a hash that
includes its source path, so base and head still get executables of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gate.adapters.base import BenchmarkMissing, BenchmarkSpec
from gate.adapters.registry import get_adapter
from gate.cli import main
from gate.model import TrialStatus
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.toolchains import cache_root, cargo
from tests.integration.two_versions import make_repo

pytestmark = pytest.mark.slow

CARGO_TOML = """[package]
name = "sumcrate"
version = "0.1.0"
edition = "2021"

[dev-dependencies]
criterion = { version = "0.8", default-features = false, features = ["cargo_bench_support"] }

[[bench]]
name = "sums"
harness = false
"""

LIB = """pub fn mix(n: u64, seed: u64) -> u64 {
    let mut s = seed;
    for i in 0..n { s = s.wrapping_mul(6364136223846793005).wrapping_add(i); s ^= s >> 29; }
    s
}
"""


def bench_rs(slow_rounds: int) -> str:
    return f"""use criterion::{{criterion_group, criterion_main, Criterion}};
use std::hint::black_box;

fn benches(c: &mut Criterion) {{
    c.bench_function("steady", |b| b.iter(|| sumcrate::mix(black_box(2000), 1)));
    let mut g = c.benchmark_group("work");
    g.bench_function("slow path", |b| b.iter(|| {{
        let mut s = 1;
        for _ in 0..{slow_rounds} {{ s = sumcrate::mix(black_box(2000), s); }}
        s
    }}));
    g.finish();
}}
criterion_group!(all, benches);
criterion_main!(all);
"""


CONFIG = """[suite]
adapter = "criterion"
timeout = 120
build_timeout = 1800
# the shared CARGO_TARGET_DIR is under the tests' cache; /tmp is private to each version otherwise
caches = ["{cache}"]

[criterion]
cargo = "{cargo}"
warm_up_time = 0.2
measurement_time = 0.3

[full]
suite_runs = 2
iterations = 3
measurements = 3
"""


@pytest.fixture(scope="module")
def crate_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cargo()  # skips (fails under CI) when there is no cargo
    root = tmp_path_factory.mktemp("criterion")
    files = {"Cargo.toml": CARGO_TOML, "src/lib.rs": LIB, "benches/sums.rs": bench_rs(1)}
    return make_repo(root, [files, {"benches/sums.rs": bench_rs(3)}])


@pytest.fixture
def shared_target(monkeypatch: pytest.MonkeyPatch) -> Path:
    target = cache_root() / "cargo-target"
    monkeypatch.setenv("CARGO_TARGET_DIR", str(target))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return target


def test_planted_slowdown_is_a_regression(crate_repo: Path, shared_target: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = tmp_path / "criterion.toml"
    config.write_text(CONFIG.format(cargo=cargo(), cache=cache_root()))
    argv = ["run", "--config", str(config), "--repo", str(crate_repo), "--base", "r1", "--head", "r2"]
    assert main([*argv, "--out", str(out), "--seed", "7", "--instance", "box"]) == 0
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    assert set(trials["status"]) == {"ok"} and set(trials["unit"]) == {"ns"}
    assert set(trials["benchmark"]) == {"steady", "work/slow path"}
    per_trial = trials.groupby(["benchmark", "version", "suite_run", "iteration"]).size()
    assert len(per_trial) == 2 * 2 * 2 * 3 and set(per_trial) == {3}
    analysis = out / "analysis.json"
    argv = ["analyze", str(out / "trials.csv"), "--json", str(analysis), "--resamples", "500", "--seed", "1"]
    assert main(argv) == 0
    verdicts = {b["benchmark"]: b["verdict"] for b in json.loads(analysis.read_text())["benchmarks"]}
    assert verdicts["work/slow path"] == "regression", verdicts
    assert verdicts["steady"] in {"unchanged", "inconclusive"}, verdicts


def test_samples_missing_benchmark_and_one_build_per_worktree(
    crate_repo: Path, shared_target: Path, tmp_path: Path
) -> None:
    adapter = get_adapter("criterion")
    version = context(crate_repo, tmp_path / "scratch")
    settings = {"cargo": cargo(), "warm_up_time": 0.1, "measurement_time": 0.2}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["steady", "work/slow path"] and specs[0].unit == "ns"
    # fewer than Criterion's minimum of 10 samples: the last ones are kept
    values = adapter.run_trial(trial(specs[1], version, 3, settings), real_runner())
    assert len(values) == 3 and all(v > 0 for v in values)
    assert len(adapter.run_trial(trial(specs[0], version, 12, settings), real_runner())) == 12
    with pytest.raises(BenchmarkMissing) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="work/slow"), version, 3, settings), real_runner())
    assert err.value.status == TrialStatus.SKIPPED and "no such benchmark" in err.value.reason
    # each trial's CRITERION_HOME is removed; the scratch directory keeps the version's executable
    assert [p.is_file() for p in (tmp_path / "scratch").iterdir()] == [True]
