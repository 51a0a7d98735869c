"""The ``tinybench`` adapter end to end on a package of the test's own (tinybench from npm,
pinned by a committed package-lock.json): two revisions, the second with a planted slowdown in
one of two tasks; ``run`` installs each worktree from npm's cache (``npm ci --prefer-offline``,
the cache filled once by the fixture) and runs one Node.js process per trial; ``analyze`` must
call the slowed task a regression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from gate.adapters.base import BenchmarkMissing, BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.cli import main
from gate.errors import ConfigError, RunError
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.toolchains import cache_root, npm_cache, run_checked
from tests.integration.two_versions import make_repo

pytestmark = pytest.mark.slow

TINYBENCH = "6.2.5"
PACKAGE = json.dumps(
    {"name": "bench-demo", "version": "1.0.0", "private": True, "type": "module",
     "devDependencies": {"tinybench": TINYBENCH}},
    indent=2,
)  # fmt: skip


def suite(slow_rounds: int) -> str:
    """``steady`` is the same in both revisions; ``slow`` repeats its work ``slow_rounds`` times."""
    return f"""import {{ Bench }} from "tinybench";
import {{ pathToFileURL }} from "node:url";

const work = (n, seed) => {{ let s = seed; for (let i = 0; i < n; i++) s = (s * 31 + i) | 0; return s; }};
const bench = new Bench({{ name: "demo" }});
bench.add("steady", () => work(20000, 1));
bench.add("slow path", () => {{ let s = 1; for (let r = 0; r < {slow_rounds}; r++) s = work(20000, s); return s; }});
bench.add("fails", () => {{ throw new Error("input missing"); }});
export default bench;

if (import.meta.url === pathToFileURL(process.argv[1]).href) {{
  await bench.run();
  console.table(bench.table());
}}
"""


def npm_ci() -> str:
    # --prefer-offline, not --offline: this npm writes lock files without "resolved" addresses,
    # and `npm ci --offline` then asks the cache for a packument form `npm install` did not store.
    return f"npm ci --cache {npm_cache()} --prefer-offline --no-audit --no-fund --loglevel=error"


CONFIG = """[suite]
adapter = "tinybench"
timeout = 60
build = "{build}"
caches = ["{cache}"]  # npm's cache for the offline install; /tmp is private otherwise
exclude = ["^fails$"]

[tinybench]
file = "bench.mjs"
warmup_iterations = 20
warmup_time = 0

[full]
suite_runs = 2
iterations = 3
measurements = 5
"""


@pytest.fixture(scope="module")
def js_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("node")
    require_tool("npm")
    root = tmp_path_factory.mktemp("tinybench")
    # The one online install: resolves the lock file and fills npm's cache for `npm ci --offline`.
    warm = root / "warm"
    warm.mkdir()
    (warm / "package.json").write_text(PACKAGE)
    run_checked(["npm", "install", "--cache", str(npm_cache()), "--no-audit", "--no-fund"], cwd=warm)
    lock = (warm / "package-lock.json").read_text()
    files = {
        "package.json": PACKAGE,
        "package-lock.json": lock,
        "bench.mjs": suite(1),
        ".gitignore": "node_modules/\n",
    }
    repo = make_repo(root, [files, {"bench.mjs": suite(3)}])
    shutil.rmtree(warm)
    return repo


def test_planted_slowdown_is_a_regression(
    js_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out = tmp_path / "out"
    config = tmp_path / "tinybench.toml"
    config.write_text(CONFIG.format(build=npm_ci(), cache=cache_root()))
    argv = ["run", "--config", str(config), "--repo", str(js_repo), "--base", "r1", "--head", "r2"]
    assert main([*argv, "--out", str(out), "--seed", "7", "--instance", "box"]) == 0
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    assert set(trials["status"]) == {"ok"} and set(trials["unit"]) == {"ms"}
    assert set(trials["benchmark"]) == {"steady", "slow path"}
    per_trial = trials.groupby(["benchmark", "version", "suite_run", "iteration"]).size()
    assert len(per_trial) == 2 * 2 * 2 * 3 and set(per_trial) == {5}
    analysis = out / "analysis.json"
    argv = ["analyze", str(out / "trials.csv"), "--json", str(analysis), "--resamples", "500", "--seed", "1"]
    assert main(argv) == 0
    verdicts = {b["benchmark"]: b["verdict"] for b in json.loads(analysis.read_text())["benchmarks"]}
    assert verdicts["slow path"] == "regression", verdicts
    assert verdicts["steady"] in {"unchanged", "inconclusive"}, verdicts


def test_listing_samples_errors_and_missing_tasks(js_repo: Path, tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    run_checked(["git", "clone", "-q", str(js_repo), str(checkout)], cwd=tmp_path)
    run_checked(npm_ci().split(), cwd=checkout)
    adapter = get_adapter("tinybench")
    version = context(checkout, tmp_path / "scratch")
    settings = {"warmup_iterations": 2}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["steady", "slow path", "fails"] and specs[0].unit == "ms"
    values = adapter.run_trial(trial(specs[1], version, 7, settings), real_runner())
    assert len(values) == 7 and all(v > 0 for v in values)
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(specs[2], version, 3, settings), real_runner())
    assert err.value.status == TrialStatus.ERROR and "input missing" in err.value.reason
    with pytest.raises(BenchmarkMissing) as missing:
        adapter.run_trial(trial(BenchmarkSpec(name="slow"), version, 3, settings), real_runner())
    assert missing.value.status == TrialStatus.SKIPPED
    assert not any((tmp_path / "scratch").iterdir())  # the runner's JSON files are removed
    (checkout / "other.mjs").write_text("export const bench = 1;\n")
    with pytest.raises(RunError) as setup:
        adapter.discover(version, real_runner(), {"file": "other.mjs"})
    assert "exports no tinybench Bench" in str(setup.value) and "export default bench" in setup.value.fix
    with pytest.raises(ConfigError):
        adapter.discover(version, real_runner(), {"warmup_time": "250ms"})


SELF_RUNNING = """import { Bench } from "tinybench";

const bench = new Bench({ name: "runs on import", time: 100 });
bench.add("sum", () => { let s = 0; for (let i = 0; i < 10000; i++) s += i; return s; });
bench.add("join", () => Array.from({ length: 200 }, (_, i) => i).join(","));
await bench.run();
console.table(bench.table());
"""


def test_the_documented_wrapper_runs_a_suite_that_runs_itself_on_import(
    js_repo: Path, tmp_path: Path
) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "adapters.md").read_text(encoding="utf-8")
    section = docs.split("## A tinybench suite that runs itself on import", 1)[1]
    wrapper = section.split("```js\n", 1)[1].split("```", 1)[0]
    checkout = tmp_path / "checkout"
    run_checked(["git", "clone", "-q", str(js_repo), str(checkout)], cwd=tmp_path)
    run_checked(npm_ci().split(), cwd=checkout)
    (checkout / "bench.mjs").write_text(SELF_RUNNING)
    (checkout / "bench.gate.mjs").write_text(wrapper)
    adapter = get_adapter("tinybench")
    version = context(checkout, tmp_path / "scratch")
    settings = {"file": "bench.gate.mjs", "warmup_iterations": 2}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["sum", "join"]
    values = adapter.run_trial(trial(specs[1], version, 5, settings), real_runner())
    assert len(values) == 5 and all(v > 0 for v in values)
