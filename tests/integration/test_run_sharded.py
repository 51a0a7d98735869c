"""`run --shard K/N` end to end: real git repositories, worktrees, the command adapter and real
subprocesses for every shard, then `analyze` over the shards' logs (docs/github-actions.md,
"Sharding a suite"): together they measure the suite once; a lost shard is named, never a pass;
logs of different runs are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from gate.cli import main
from tests.integration.test_run_cli import config, make_repo, run_cli

NAMES = ("alpha", "beta", "gamma", "delta", "eps")


def _shards(tmp_path: Path, n: int, *extra: str, instance: str = "box") -> tuple[Path, list[Path]]:
    repo = make_repo(tmp_path, config(names=NAMES, s=2, i=2))
    outs = []
    for k in range(1, n + 1):
        out = tmp_path / f"shard{k}-{instance}"
        argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
        assert main([*argv, "--out", str(out), "--instance", instance, "--shard", f"{k}/{n}", *extra]) == 0
        outs.append(out)
    return repo, outs


def _analyze(tmp_path: Path, logs: list[Path], capsys) -> tuple[int, dict]:
    doc = tmp_path / "analysis.json"
    capsys.readouterr()
    code = main(["analyze", *map(str, logs), "--json", str(doc)])
    return code, json.loads(doc.read_text()) if doc.exists() else {}


@pytest.mark.slow
def test_shards_split_the_suite_once_and_analyze_merges_them(tmp_path: Path, capsys) -> None:
    _, outs = _shards(tmp_path, 3)
    seen: list[str] = []
    for k, out in enumerate(outs, start=1):
        meta = json.loads((out / "meta.json").read_text())
        log = pd.read_csv(out / "trials.csv")
        assert meta["shard"]["index"] == k and meta["shard"]["count"] == 3
        assert meta["shard"]["suite"] == sorted(NAMES)  # the whole suite, in every shard
        mine = sorted(set(log["benchmark"]))
        assert mine == sorted(n for n, s in meta["shard"]["assignment"].items() if s == k)
        # base and head of each benchmark on this one machine, interleaved in its suite runs
        assert (log.groupby("benchmark")["version"].nunique() == 2).all()
        seen += mine
    assert sorted(seen) == sorted(NAMES)  # each benchmark on exactly one shard
    _, doc = _analyze(tmp_path, [o / "trials.csv" for o in outs], capsys)
    assert sorted(b["benchmark"] for b in doc["benchmarks"]) == sorted(NAMES)
    shards = doc["summary"]["shards"]
    assert shards["count"] == 3 and shards["missing"] == [] and shards["not_measured"] == 0
    assert shards["machine_s"] == pytest.approx(sum(x["spent_s"] for x in shards["logs"]), abs=0.01)
    assert shards["slowest_s"] == max(x["spent_s"] for x in shards["logs"])


def _aa_repo(tmp_path: Path) -> Path:
    """Base and head measure the same thing (1 % noise), with enough values that all of it passes."""
    from tests.integration.test_run_cli import PY, git

    benches = "".join(f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} aa.py"\nunit = "x"\n' for n in NAMES)
    repo = make_repo(tmp_path, f'[suite]\nadapter = "command"\ntimeout = 30\n{benches}[full]\nsuite_runs = 2\n'
                     "iterations = 4\nmeasurements = 3\n")  # fmt: skip
    (repo / "aa.py").write_text(
        "import random\nfor _ in range(3):\n    print('result:', 100 + random.random())\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a/a")
    (repo / "version.txt").write_text("3\n")  # head: a commit after it, so base has aa.py too
    git(repo, "commit", "-qam", "head")
    return repo


@pytest.mark.slow
def test_a_missing_shard_names_its_benchmarks_and_is_never_a_pass(tmp_path: Path, capsys) -> None:
    repo = _aa_repo(tmp_path)
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    outs = []
    for k in (1, 2, 3):
        outs.append(tmp_path / f"s{k}")
        assert main([*argv, "--out", str(outs[-1]), "--instance", f"bench-{k}", "--shard", f"{k}/3"]) == 0
    _, whole = _analyze(tmp_path, [o / "trials.csv" for o in outs], capsys)
    assert whole["summary"]["decision"] == "pass"  # every shard there: an A/A change passes
    lost = json.loads((outs[1] / "meta.json").read_text())["shard"]
    lost_names = sorted(n for n, s in lost["assignment"].items() if s == 2)
    _, doc = _analyze(tmp_path, [outs[0] / "trials.csv", outs[2] / "trials.csv"], capsys)
    assert doc["summary"]["decision"] == "inconclusive"
    by_name = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert sorted(by_name) == sorted(NAMES)
    for name in lost_names:
        assert by_name[name]["verdict"] == "inconclusive"
        assert "shard 2/3" in by_name[name]["reason"] and "missing" in by_name[name]["reason"]
    assert doc["summary"]["shards"]["missing"] == ["2/3"]
    assert any(w["code"] == "shard_missing" for w in doc["warnings"])
    # the rendered comment names them too, and publish's policy agrees (it counts the verdicts)
    from gate.decision import default_decision

    assert default_decision(doc["summary"]["counts"]) == "inconclusive"
    capsys.readouterr()
    md = tmp_path / "comment.md"
    assert main(["report", str(tmp_path / "analysis.json"), "--format", "comment", "--out", str(md)]) == 0
    text = md.read_text()
    assert all(n in text for n in lost_names)
    assert "Measured on **3 shards**: the slowest (" in text and "no log from shard 2/3" in text


def test_an_incomplete_shard_counts_its_unfinished_benchmarks_as_not_measured(tmp_path: Path, capsys) -> None:
    _, outs = _shards(tmp_path, 2)
    log = outs[0] / "trials.csv"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[: len(lines) // 2]))  # the run was killed half-way
    _, doc = _analyze(tmp_path, [outs[0] / "trials.csv", outs[1] / "trials.csv"], capsys)
    assert doc["summary"]["decision"] == "inconclusive"
    not_measured = [b for b in doc["benchmarks"] if b["reason"].startswith("not measured")]
    assert not_measured and all("shard 1/2" in b["reason"] for b in not_measured)
    assert any(w["code"] == "shard_incomplete" for w in doc["warnings"])


@pytest.mark.slow
def test_logs_of_different_runs_or_the_same_shard_twice_are_refused(tmp_path: Path, capsys) -> None:
    repo, outs = _shards(tmp_path, 2)
    # an unsharded run of the same suite beside the shards: every benchmark twice
    full = tmp_path / "full"
    assert run_cli(repo, full) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "analyze",
                str(outs[0] / "trials.csv"),
                str(full / "trials.csv"),
                "--json",
                str(tmp_path / "x.json"),
            ]
        )
        == 2
    )
    assert "not a shard's log" in capsys.readouterr().err
    # a shard of a run with another split seed
    other = tmp_path / "other"
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    assert main([*argv, "--out", str(other), "--instance", "box", "--shard", "2/2", "--seed", "99"]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "analyze",
                str(outs[0] / "trials.csv"),
                str(other / "trials.csv"),
                "--json",
                str(tmp_path / "x.json"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "shards of different runs" in err and "fix:" in err
    # the same shard from the same runner twice (a copy with its trials renumbered)
    copy = tmp_path / "copy"
    shutil.copytree(outs[0], copy, ignore=shutil.ignore_patterns("worktrees", "scratch"))
    frame = pd.read_csv(copy / "trials.csv")
    frame.assign(trial=frame["trial"] + 1000).to_csv(copy / "trials.csv", index=False)
    assert (
        main(
            [
                "analyze",
                str(outs[0] / "trials.csv"),
                str(copy / "trials.csv"),
                "--json",
                str(tmp_path / "x.json"),
            ]
        )
        == 2
    )
    assert "both shard 1/2" in capsys.readouterr().err


@pytest.mark.slow
def test_shards_times_instances_keep_each_runner_as_an_instance(tmp_path: Path, capsys) -> None:
    repo = make_repo(tmp_path, config(names=NAMES, s=2, i=2))
    logs = []
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    for k in (1, 2):
        for inst in ("east", "west"):
            out = tmp_path / f"s{k}-{inst}"
            assert main([*argv, "--out", str(out), "--instance", inst, "--shard", f"{k}/2"]) == 0
            logs.append(out / "trials.csv")
    _, doc = _analyze(tmp_path, logs, capsys)
    assert doc["summary"]["shards"]["not_measured"] == 0
    assert {(x["shard"], x["instance"]) for x in doc["summary"]["shards"]["logs"]} == {
        ("1/2", "east"), ("1/2", "west"), ("2/2", "east"), ("2/2", "west"),
    }  # fmt: skip
    for b in doc["benchmarks"]:  # both runners' trials of every benchmark are compared
        assert b["base"]["n"] == 2 * 2 * 2 and b["head"]["n"] == 2 * 2 * 2


def test_a_resume_with_another_shard_is_refused(tmp_path: Path, capsys) -> None:
    repo, outs = _shards(tmp_path, 2)
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    capsys.readouterr()
    assert main([*argv, "--out", str(outs[0]), "--instance", "box", "--shard", "2/2"]) == 2
    assert "resume with --shard 1/2" in capsys.readouterr().err


def test_more_shards_than_benchmarks_and_a_bad_shard_are_refused(tmp_path: Path, capsys) -> None:
    repo = make_repo(tmp_path, config(names=("a", "b"), s=2, i=2))
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--shard", "3/3"]) == 2
    assert "has no benchmark" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # argparse: outside the flag's domain (gate/files/settings.py)
        main([*argv, "--out", str(tmp_path / "p"), "--shard", "4/3"])
    assert refused.value.code == 2 and "K/N" in capsys.readouterr().err


@pytest.mark.slow
def test_a_sharded_night_merges_in_order_check_calibrate_and_history(tmp_path: Path, capsys) -> None:
    repo = make_repo(tmp_path, config(names=NAMES, s=2, i=3, m=2))
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    order_logs, full_logs = [], []
    for k in (1, 2):  # each shard on its own runner, as a matrix gives them
        for mode, logs in (("order", order_logs), ("full", full_logs)):
            out = tmp_path / f"{mode}{k}"
            extra = ["--order-check", "--order-pairs", "2"] if mode == "order" else []
            assert (
                main([*argv, "--out", str(out), "--instance", f"bench-{k}", "--shard", f"{k}/2", *extra]) == 0
            )
            logs.append(out / "trials.csv")
    # the order check splits as the full run does
    for o, f in zip(order_logs, full_logs, strict=True):
        assert set(pd.read_csv(o)["benchmark"]) == set(pd.read_csv(f)["benchmark"])
    capsys.readouterr()
    assert main(["order-check", *map(str, order_logs), "--json", str(tmp_path / "order.json")]) == 0
    tested = {
        t["test"]
        for e in json.loads((tmp_path / "order.json").read_text())["experiments"]
        for t in e["tests"]
    }
    assert tested == set(NAMES)
    # calibrate takes every shard's log at once: each benchmark ran on one runner
    cal = tmp_path / "calibration.json"
    assert main(["calibrate", *map(str, full_logs), "--version", "HEAD~1", "--out", str(cal)]) == 0
    doc = json.loads(cal.read_text())
    assert set(doc["benchmarks"]) | set(doc.get("skipped", {})) == set(NAMES)
    # the history: one entry per benchmark and version, each with the runner that measured it
    store = tmp_path / "history"
    store.mkdir()
    assert main(["history", "add", *map(str, full_logs), "--store", str(store)]) == 0
    from gate.history.store import Store

    entries = Store(store).read()
    assert sorted((e.benchmark, e.seq) for e in entries) == sorted((n, s) for n in NAMES for s in (0, 1))
    split = json.loads((full_logs[0].parent / "meta.json").read_text())["shard"]["assignment"]
    assert all(e.runner == f"bench-{split[e.benchmark]}" for e in entries)


def test_each_shard_runs_its_own_follow_up_rounds_within_the_budget(tmp_path: Path, capsys) -> None:
    from tests.integration.test_run_cli import PY, git

    names = ("calm1", "calm2", "noisy1", "noisy2")
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} {"noisy.py" if n.startswith("noisy") else "bench.py"}"\n'
        'unit = "x"\n'
        for n in names
    )
    repo = make_repo(tmp_path, f'[suite]\nadapter = "command"\ntimeout = 30\n{benches}[full]\nsuite_runs = 2\n'
                     "iterations = 2\nmeasurements = 1\n")  # fmt: skip
    (repo / "noisy.py").write_text("import random\nprint('result:', 1 + 9 * random.random())\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "noisy")
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    logs = []
    for k in (1, 2):
        out = tmp_path / f"s{k}"
        extra = ["--budget", "20s", "--max-rounds", "2", "--instance", f"bench-{k}", "--shard", f"{k}/2"]
        assert main([*argv, "--out", str(out), *extra]) == 0
        meta = json.loads((out / "meta.json").read_text())
        mine = {n for n, s in meta["shard"]["assignment"].items() if s == k}
        final = meta["adaptive"]["final"]
        assert final is not None and set(final["unresolved"]) <= mine  # never another shard's benchmark
        for r in meta["adaptive"]["rounds"]:
            assert set(r["benchmarks"]) <= mine and set(r["not_followed"]) <= mine
        logs.append(out / "trials.csv")
    _, doc = _analyze(tmp_path, logs, capsys)
    assert sorted(b["benchmark"] for b in doc["benchmarks"]) == sorted(names)
    assert doc["adaptive"] is not None and doc["summary"]["shards"]["not_measured"] == 0
