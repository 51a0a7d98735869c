"""A benchmark that fails every time is given up after its first trials in each version
(docs/running.md "Giving up on a failing benchmark", gate/engine/give_up.py): real `run` on a
real git repository with the command adapter, real subprocesses, SIGKILL and resume."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from gate.cli import main
from tests.conftest import REPO_ROOT
from tests.integration.test_run_cli import PY, _default_sigint, git, load, make_repo, run_cli

# "broken" fails in every version; "head_only" fails where version.txt says 2 (HEAD); "hang"
# sleeps past any small timeout; "flaky" fails its first trial in each version, then works.
# Each start is appended to starts.log outside the worktree (counted by the tests).
BENCH = """\
import os, sys, time
from pathlib import Path
name = sys.argv[1]
version = Path("version.txt").read_text().strip()
with open(sys.argv[2], "a") as log:
    log.write(f"{name} {version}\\n")
if name == "broken":
    sys.exit("cannot open input.json: no such file")
if name == "head_only" and version == "2":
    sys.exit("head broke it: KeyError 'size'")
if name == "hang":
    time.sleep(60)
if name == "flaky":
    marker = Path(sys.argv[2]).with_name(f"flaky-{version}")
    if not marker.exists():
        marker.write_text("x")
        sys.exit("first start fails")
time.sleep(float(os.environ.get("BENCH_SLEEP", "0")))
print("result:", version)
"""


def setup(tmp_path: Path, names: tuple[str, ...], suite: str = "", s: int = 3, i: int = 2) -> Path:
    starts = tmp_path / "starts.log"
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} bench.py {n} {starts}"\nunit = "x"\n' for n in names
    )
    if "timeout" not in suite:
        suite += "\ntimeout = 30"
    suite += f"\ncaches = ['{tmp_path}']"  # starts.log: /tmp is private to each version in the sandbox
    config = (
        f'[suite]\nadapter = "command"\n{suite}\n{benches}'
        f"[full]\nsuite_runs = {s}\niterations = {i}\nmeasurements = 1\n"
    )
    repo = make_repo(tmp_path, config)
    (repo / "bench.py").write_text(BENCH)
    (repo / "version.txt").write_text("1\n")
    git(repo, "commit", "-qam", "version 1")  # both versions get the same bench.py
    (repo / "version.txt").write_text("2\n")
    git(repo, "commit", "-qam", "version 2")
    return repo


def rows(df: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    return {(str(b), str(v)): list(g["status"]) for (b, v), g in df.groupby(["benchmark", "version"])}


def starts(tmp_path: Path) -> dict[str, int]:
    lines = (tmp_path / "starts.log").read_text().splitlines()
    return {key: lines.count(key) for key in sorted(set(lines))}


def analyze(out: Path) -> dict:
    argv = ["analyze", str(out / "trials.csv"), "--json", str(out / "a.json"), "--threshold-pct", "500"]
    assert main([*argv, "--resamples", "200", "--seed", "1"]) == 0
    return {b["benchmark"]: b for b in json.loads((out / "a.json").read_text())["benchmarks"]}


def test_a_benchmark_failing_every_time_stops_after_two_trials_per_version(tmp_path, capsys):
    repo = setup(tmp_path, ("ok", "broken"))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    df, meta = load(out)
    got = rows(df)
    # the other benchmark runs every planned trial; the broken one two per version, no fake rows
    assert got[("ok", "HEAD")] == ["ok"] * 6 and got[("ok", "HEAD~1")] == ["ok"] * 6
    assert got[("broken", "HEAD")] == ["error"] * 2 and got[("broken", "HEAD~1")] == ["error"] * 2
    assert starts(tmp_path)["broken 1"] == 2 and starts(tmp_path)["broken 2"] == 2
    records = {g["version"]: g for g in meta["given_up"]}
    assert set(records) == {"HEAD", "HEAD~1"}
    for g in records.values():
        assert g["benchmark"] == "broken" and g["failed"] == 2 and g["status"] == "error"
        assert g["not_run"] == 4 and "cannot open input.json" in g["reason"]
    err = capsys.readouterr().err
    assert "giving up on broken@HEAD" in err and "giving up on broken@HEAD~1" in err
    last = [line for line in err.splitlines() if "trials done" in line][-1]
    assert "16 trials done" in last and "8 trials not run: broken@" in last and "in every trial" in last
    doc = analyze(out)
    assert doc["broken"]["verdict"] == "failed" and doc["ok"]["verdict"] != "failed"
    reason = doc["broken"]["reason"]
    assert reason.startswith("given up in HEAD~1 and HEAD after 2 failed trial(s) each, 8 trial(s) not run")
    assert "cannot open input.json" in reason


def test_a_benchmark_broken_in_head_only_stops_there_and_ends_failed(tmp_path):
    repo = setup(tmp_path, ("ok", "head_only"))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    df, meta = load(out)
    got = rows(df)
    assert got[("head_only", "HEAD~1")] == ["ok"] * 6  # base measured in full
    assert got[("head_only", "HEAD")] == ["error"] * 2
    assert [(g["benchmark"], g["version"]) for g in meta["given_up"]] == [("head_only", "HEAD")]
    doc = analyze(out)
    assert doc["head_only"]["verdict"] == "failed"
    assert doc["head_only"]["reason"].startswith(
        "given up in HEAD after 2 failed trial(s), 4 trial(s) not run"
    )
    assert "KeyError 'size'" in doc["head_only"]["reason"]


def test_a_hanging_benchmark_gives_up_after_its_first_timeout(tmp_path, capsys):
    repo = setup(tmp_path, ("ok", "hang"), suite="timeout = 1", s=2, i=2)
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    df, meta = load(out)
    got = rows(df)
    assert got[("hang", "HEAD")] == ["timeout"] and got[("hang", "HEAD~1")] == ["timeout"]
    assert got[("ok", "HEAD")] == ["ok"] * 4
    assert {(g["version"], g["failed"], g["status"], g["not_run"]) for g in meta["given_up"]} == {
        ("HEAD", 1, "timeout", 3),
        ("HEAD~1", 1, "timeout", 3),
    }
    assert "6 trials not run" in capsys.readouterr().err


def test_a_benchmark_that_fails_once_then_works_is_measured_in_full(tmp_path):
    repo = setup(tmp_path, ("ok", "flaky"))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    df, meta = load(out)
    got = rows(df)
    for version in ("HEAD", "HEAD~1"):
        assert got[("flaky", version)] == ["error"] + ["ok"] * 5
    assert meta["given_up"] == []


def test_give_up_after_0_runs_every_planned_trial(tmp_path, capsys):
    repo = setup(tmp_path, ("ok", "broken"), suite="give_up_after = 0")
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    df, meta = load(out)
    assert rows(df)[("broken", "HEAD")] == ["error"] * 6 and meta["given_up"] == []
    err = capsys.readouterr().err
    assert "giving up" not in err and "not run" not in err and "24 trials done" in err


def _spawn(repo: Path, out: Path, env: dict[str, str]) -> subprocess.Popen:
    cmd = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
           "--head", "HEAD", "--out", str(out), "--seed", "5", "--instance", "box"]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )  # fmt: skip


@pytest.mark.slow
def test_sigkill_after_a_give_up_resumes_without_running_it_again(tmp_path):
    import os

    repo = setup(tmp_path, ("ok", "broken"))
    env = {**os.environ, "BENCH_SLEEP": "0.3"}  # ok's 12 trials take ~4 s: time to kill mid-run
    out = tmp_path / "out"
    proc = _spawn(repo, out, env)
    for _ in range(1200):
        meta_path = out / "meta.json"
        if meta_path.exists() and len(json.loads(meta_path.read_text()).get("given_up") or []) == 2:
            break
        if proc.poll() is not None:
            pytest.fail(f"run ended before giving up twice: {proc.communicate()}")
        time.sleep(0.02)
    else:
        pytest.fail("the run never gave up")
    proc.kill()
    proc.communicate()
    df_killed, _ = load(out)
    assert len(df_killed) < 16, "killed too late to test the resume"
    proc = _spawn(repo, out, env)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "resuming" in err and "8 trials not run: broken@" in err
    df, meta = load(out)
    got = rows(df)
    assert got[("broken", "HEAD")] == ["error"] * 2 and got[("broken", "HEAD~1")] == ["error"] * 2
    assert got[("ok", "HEAD")] == ["ok"] * 6 and got[("ok", "HEAD~1")] == ["ok"] * 6
    assert starts(tmp_path)["broken 1"] == 2 and starts(tmp_path)["broken 2"] == 2  # none ran again
    assert len(meta["given_up"]) == 2
    # the trials not run are not missing: the finished run is complete
    proc = _spawn(repo, out, env)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "already in" in err, err
    # the same verdicts as an uninterrupted run with the same seed
    killed_run = analyze(out)
    other = tmp_path / "other"
    proc = _spawn(repo, other, env)
    assert proc.communicate(timeout=300) and proc.returncode == 0
    uninterrupted = analyze(other)
    assert {n: b["verdict"] for n, b in killed_run.items()} == {
        n: b["verdict"] for n, b in uninterrupted.items()
    }
    assert killed_run["broken"]["verdict"] == "failed"


def test_the_follow_up_rounds_keep_the_record_and_the_order_check_gives_up_alike(tmp_path):
    repo = setup(tmp_path, ("ok", "broken"))
    out = tmp_path / "out"
    # the rounds rewrite meta.json (each round, then `final`): the records written before stay
    assert run_cli(repo, out, "--seed", "3", "--budget", "60s", "--max-rounds", "1") == 0
    df, meta = load(out)
    assert meta["adaptive"]["final"] is not None
    assert sorted(g["version"] for g in meta["given_up"]) == ["HEAD", "HEAD~1"]
    assert all("broken" not in r["benchmarks"] for r in meta["adaptive"]["rounds"])
    assert rows(df)[("broken", "HEAD")] == ["error"] * 2
    # --order-check: 3 (fixed, random) pairs, each benchmark × version once per suite run
    out = tmp_path / "order"
    assert run_cli(repo, out, "--order-check", "--order-pairs", "3", "--seed", "5") == 0
    df, meta = load(out)
    got = rows(df)
    assert got[("ok", "HEAD")] == ["ok"] * 6 and got[("broken", "HEAD~1")] == ["error"] * 2
    assert len(meta["given_up"]) == 2


def test_a_kill_between_the_last_failure_and_its_record_gives_up_on_resume(tmp_path, capsys):
    repo = setup(tmp_path, ("ok", "broken"))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "3") == 0
    # the state a SIGKILL leaves right after broken@HEAD's second failed trial was appended,
    # before meta.json recorded the give-up: the log ends there, meta.json has no record
    df, meta = load(out)
    second = df.loc[(df.benchmark == "broken") & (df.version == "HEAD"), "trial"].tolist()[1]
    lines = (out / "trials.csv").read_text().splitlines(keepends=True)
    (out / "trials.csv").write_text("".join(lines[: 1 + int((df.trial <= second).sum())]))
    (out / "meta.json").write_text(json.dumps({**meta, "given_up": []}))
    before = starts(tmp_path)["broken 2"]
    assert run_cli(repo, out, "--seed", "3") == 0
    assert starts(tmp_path)["broken 2"] == before  # the resume counted the logged failures
    df, meta = load(out)
    assert rows(df)[("broken", "HEAD")] == ["error"] * 2
    assert ("broken", "HEAD") in {(g["benchmark"], g["version"]) for g in meta["given_up"]}
