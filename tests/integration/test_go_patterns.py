"""Go sub-benchmark patterns with the real toolchain: ``[[benchmark]] name = "BenchmarkSum/*"``
is expanded in each version by one listing run, the union of the versions' benchmarks runs (a
sub-benchmark that one version lacks is ``skipped`` there), meta.json records the expansion, and
the listing is cached for a resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec
from gate.adapters.registry import get_adapter
from gate.cli import main
from gate.decision import Decision, default_decision
from gate.errors import ConfigError
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.test_adapter_go import go_env
from tests.integration.two_versions import GO_CONFIG, git, make_go_repo, run_and_analyze, statuses, use_go_env


@pytest.fixture(scope="module")
def go_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_go_repo(tmp_path_factory.mktemp("gomissing"))


@pytest.fixture
def go_environment(go_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_go_env(monkeypatch, go_repo.parent)


@pytest.mark.slow
def test_go_pattern_is_expanded_per_version_and_the_union_is_run(
    go_repo: Path, go_environment: None, tmp_path: Path
) -> None:
    config = GO_CONFIG.format(benchmarks='[[benchmark]]\nname = "BenchmarkSum/*"\n')
    trials, meta, analysis = run_and_analyze(go_repo, config, tmp_path / "out", "r1", "r3")
    leaves = ["BenchmarkSum/16B", "BenchmarkSum/4B", "BenchmarkSum/64B"]
    assert sorted(meta["benchmarks"]) == ["BenchmarkNew", "BenchmarkOld", *leaves]
    for leaf in leaves:
        assert meta["benchmarks"][leaf]["pattern"] == "BenchmarkSum/*"
    assert meta["benchmarks"]["BenchmarkSum/16B"]["versions"] == ["r3"]
    assert meta["benchmarks"]["BenchmarkSum/4B"]["versions"] == ["r1", "r3"]
    seen = statuses(trials)
    assert seen[("BenchmarkSum/16B", "r1")] == seen[("BenchmarkOld", "r3")] == {"skipped"}
    assert not any(b["verdict"] == "failed" for b in analysis["benchmarks"])
    assert {b["benchmark"] for b in analysis["benchmarks"]} == {"BenchmarkSum/4B", "BenchmarkSum/64B"}
    summary = analysis["summary"]
    assert (summary["only_in_head"], summary["only_in_base"]) == (2, 1)
    # BenchmarkOld ran in base only: removed by the change, so not compared, and by the policy
    # (gate/decision.py, docs/github-actions.md) a benchmark that ran in base but not in head fails
    # the gate (a rename's regression would be compared with nothing; the accept label is the way
    # through). That count alone decides it: without it the compared benchmarks would not fail.
    assert summary["decision"] == "fail"
    others = {k: summary[k] for k in ("failed_in_head_only", "noisy_in_head")}
    assert default_decision(summary["counts"], **others) is not Decision.FAIL


def test_go_pattern_matching_nothing_in_either_version_stops_the_run(
    go_repo: Path, go_environment: None, tmp_path: Path
) -> None:
    config_path = tmp_path / "c.toml"
    config_path.write_text(GO_CONFIG.format(benchmarks='[[benchmark]]\nname = "BenchmarkSm/*"\n'))
    argv = ["run", "--config", str(config_path), "--repo", str(go_repo), "--base", "r1", "--head", "r2"]
    assert main([*argv, "--out", str(tmp_path / "out")]) != 0
    assert not (tmp_path / "out" / "trials.csv").exists()


def test_go_sub_benchmark_listing_is_cached_across_discoveries(go_repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "listing.log"
    runner = real_runner({**go_env(go_repo.parent), "SUM_LISTING_LOG": str(log)})
    worktree = tmp_path / "wt"
    git(go_repo, "worktree", "add", "-q", "--detach", str(worktree), "r2")
    version = context(worktree, tmp_path / "scratch")
    settings = {"benchtime": "100x", "benchmarks": [{"name": "BenchmarkSum/*"}]}
    adapter = get_adapter("go")
    names = [s.name for s in adapter.discover(version, runner, settings)]
    assert names == [
        "BenchmarkOld",
        "BenchmarkNew",
        "BenchmarkSum/4B",
        "BenchmarkSum/16B",
        "BenchmarkSum/64B",
    ]
    assert log.read_text().count("started") == 1  # one listing run started the parent once
    assert [s.name for s in adapter.discover(version, runner, settings)] == names  # as on resume
    assert log.read_text().count("started") == 1  # the test binary is the same: the cache answered
    # and the leaves run as benchmarks of their own
    values = adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkSum/16B"), version, 2, settings), runner)
    assert len(values) == 2


@pytest.mark.slow
def test_go_parents_are_expanded_to_their_leaves_without_any_benchmark_entry(
    go_repo: Path, go_environment: None, tmp_path: Path
) -> None:
    """No [[benchmark]] entries, as a new user starts: BenchmarkSum has sub-benchmarks, so its
    leaves are measured instead of it (a parent reports no result of its own: every trial of it
    would be invalid)."""
    trials, meta, analysis = run_and_analyze(
        go_repo, GO_CONFIG.format(benchmarks=""), tmp_path / "out", "r1", "r2"
    )
    leaves = ["BenchmarkSum/16B", "BenchmarkSum/4B", "BenchmarkSum/64B"]
    assert sorted(meta["benchmarks"]) == ["BenchmarkNew", "BenchmarkOld", *leaves]
    for leaf in leaves:
        assert meta["benchmarks"][leaf]["pattern"] == "BenchmarkSum/*"  # where the name came from
    assert "pattern" not in meta["benchmarks"]["BenchmarkOld"]
    assert meta["benchmarks"]["BenchmarkSum/16B"]["versions"] == ["r2"]
    assert set(trials["status"]) == {"ok", "skipped"}  # no invalid trial
    seen = statuses(trials)
    assert seen[("BenchmarkSum/16B", "r1")] == seen[("BenchmarkNew", "r1")] == {"skipped"}
    assert seen[("BenchmarkSum/4B", "r1")] == seen[("BenchmarkSum/64B", "r2")] == {"ok"}
    compared = {b["benchmark"]: b["verdict"] for b in analysis["benchmarks"]}
    assert sorted(compared) == ["BenchmarkOld", "BenchmarkSum/4B", "BenchmarkSum/64B"]
    assert "failed" not in compared.values()


def test_go_parent_listing_is_one_cached_run_and_a_named_parent_is_kept(
    go_repo: Path, tmp_path: Path
) -> None:
    log = tmp_path / "listing.log"
    runner = real_runner({**go_env(go_repo.parent), "SUM_LISTING_LOG": str(log)})
    worktree = tmp_path / "wt"
    git(go_repo, "worktree", "add", "-q", "--detach", str(worktree), "r1")
    version = context(worktree, tmp_path / "scratch")
    adapter = get_adapter("go")
    names = [s.name for s in adapter.discover(version, runner, {"benchtime": "100x"})]
    assert names == ["BenchmarkSum/4B", "BenchmarkSum/64B", "BenchmarkOld"]
    assert adapter.discover(version, runner, {"benchtime": "100x"})  # as on resume
    assert log.read_text().count("started") == 1  # one listing run, then the cache
    # a [[benchmark]] entry naming the parent keeps it as it is (and [go] include avoids the listing)
    settings = {"include": "Sum$", "benchmarks": [{"name": "BenchmarkSum"}]}
    assert [s.name for s in adapter.discover(version, runner, settings)] == ["BenchmarkSum"]
    assert log.read_text().count("started") == 1


def test_go_include_picks_sub_benchmarks_level_by_level_as_bench_does(go_repo: Path, tmp_path: Path) -> None:
    """``[go] include`` naming sub-benchmarks (a live run on cespare/xxhash named six of them):
    the first level picks the parents to list, the whole regex the leaves, as ``-bench`` matches
    (gate/adapters/gotest_include.py); before, the regexes were matched against the top-level
    names only, so "BenchmarkSum/4B" matched nothing and discovery found no benchmark."""
    runner = real_runner(go_env(go_repo.parent))
    worktree = tmp_path / "wt"
    git(go_repo, "worktree", "add", "-q", "--detach", str(worktree), "r2")
    version = context(worktree, tmp_path / "scratch")
    adapter = get_adapter("go")

    def names(include: object) -> list[str]:
        return [s.name for s in adapter.discover(version, runner, {"benchtime": "100x", "include": include})]

    assert names(["BenchmarkSum/4B", "^BenchmarkSum$/^64B$"]) == ["BenchmarkSum/4B", "BenchmarkSum/64B"]
    assert names("^BenchmarkSum$") == ["BenchmarkSum/4B", "BenchmarkSum/16B", "BenchmarkSum/64B"]
    assert sorted(names("Old|Sum/16")) == ["BenchmarkOld", "BenchmarkSum/16B"]
    with pytest.raises(ConfigError) as err:
        names("BenchmarkSum/1KB")
    assert "level by level" in err.value.fix and "BenchmarkSum" in str(err.value)
