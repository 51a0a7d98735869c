"""`ordertrap-gate run` end to end: real git repositories, worktrees, build, the command adapter,
real subprocesses; resume after SIGKILL and after Ctrl-C."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from gate.cli import main
from gate.model import TRIAL_COLUMNS
from tests.conftest import REPO_ROOT, require_tool

PY = sys.executable
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}

BENCH = """\
import sys, time
from pathlib import Path
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)
print("result:", Path("version.txt").read_text().strip())
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


def make_repo(tmp_path: Path, config: str) -> Path:
    """Two commits: version.txt holds 1 at HEAD~1 and 2 at HEAD, so each value proves which
    worktree the benchmark ran in."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "bench.py").write_text(BENCH)
    (repo / ".ordertrap.toml").write_text(config)
    (repo / "version.txt").write_text("1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "version.txt").write_text("2\n")
    git(repo, "commit", "-qam", "head")
    return repo


def config(extra_suite: str = "", sleep: float = 0, names=("a", "b"), s=2, i=2, m=1) -> str:
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} bench.py {n} {sleep}"\nunit = "x"\n' for n in names
    )
    return (
        f'[suite]\nadapter = "command"\ntimeout = 30\n{extra_suite}\n{benches}'
        f"[full]\nsuite_runs = {s}\niterations = {i}\nmeasurements = {m}\n"
    )


def run_cli(repo: Path, out: Path, *extra: str, base: str | None = "HEAD~1") -> int:
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--head", "HEAD", "--out", str(out)]
    if base is not None:
        argv += ["--base", base]
    return main([*argv, "--instance", "box", *extra])


def load(out: Path) -> tuple[pd.DataFrame, dict]:
    return pd.read_csv(out / "trials.csv", keep_default_na=False), json.loads((out / "meta.json").read_text())


def test_two_version_run_end_to_end(tmp_path, capsys):
    build = f'echo "$PWD" >> {tmp_path}/builds.log'  # outside --out, which the sandbox keeps read-only
    # (/tmp is private to each version in the sandbox: the logs' directory is bound as a cache)
    extra = f"build = '{build}'\nreset = 'echo r >> {tmp_path}/resets.log'\ncaches = ['{tmp_path}']"
    repo = make_repo(tmp_path, config(extra))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "42") == 0
    df, meta = load(out)
    assert tuple(df.columns) == TRIAL_COLUMNS
    assert len(df) == 2 * 2 * 2 * 2 and (df.status == "ok").all()
    # the version column holds the revision exactly as given, and each ran its own code
    assert df.groupby("version")["value"].unique().apply(list).to_dict() == {"HEAD": [2], "HEAD~1": [1]}
    assert set(df.instance) == {"box"} and set(df.config) == {"full"} and set(df.order_type) == {"random"}
    assert df.trial.tolist() == list(range(1, 17))
    # meta.json per docs/contracts.md
    for key in (
        "schema_version",
        "tool_version",
        "created_at",
        "seed",
        "mode",
        "config_path",
        "config_hash",
        "adapter",
        "versions",
        "base",
        "head",
        "full",
        "calibration",
        "benchmark_configs",
        "schedule",
        "environment",
        "warnings",
    ):
        assert key in meta, key
    assert (
        meta["seed"] == 42 and meta["mode"] == "rmit" and meta["base"] == "HEAD~1" and meta["head"] == "HEAD"
    )
    assert meta["versions"]["HEAD"]["sha"] == git(repo, "rev-parse", "HEAD")
    assert meta["versions"]["HEAD~1"]["role"] == "base"
    assert meta["full"] == {"suite_run": 2, "iteration": 2, "measurement": 1}
    assert meta["benchmark_configs"]["a"]["source"] == "full"
    assert [t["trial"] for t in meta["schedule"]] == df.trial.tolist()
    assert [(t["benchmark"], t["version"]) for t in meta["schedule"]] == list(
        zip(df.benchmark, df.version, strict=True)
    )
    assert {"cpu_model", "cores", "kernel", "governor", "turbo", "smt", "aslr", "loadavg", "tools"} <= set(
        meta["environment"]
    )
    # build once per version inside its worktree; reset before each of the 2 suite runs
    builds = (tmp_path / "builds.log").read_text().split()
    assert len(builds) == 2 and all("/worktrees/" in b for b in builds)
    assert (tmp_path / "resets.log").read_text().split() == ["r", "r"]
    # worktrees removed after a complete run; the user's checkout untouched
    assert "worktrees" not in git(repo, "worktree", "list")
    assert not (out / "worktrees").exists() and not (out / "scratch").exists()  # no empty folders left
    assert git(repo, "status", "--porcelain") == ""
    # the load at every trial end, per suite run (gate/engine/load.py)
    assert meta["load"]["samples"] == 16 and set(meta["load"]["suite_runs"]) == {"1", "2"}
    assert meta["load"]["min"] <= meta["load"]["max"]
    err = capsys.readouterr().err
    assert "[trial 16/16]" in err
    # rerunning the finished command does nothing
    assert run_cli(repo, out, "--seed", "42") == 0
    assert len(load(out)[0]) == 16
    assert "already" in capsys.readouterr().err


def test_resume_refuses_a_different_seed_or_config(tmp_path, capsys):
    repo = make_repo(tmp_path, config(s=1, i=1))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "1", "--keep-worktrees") == 0
    assert git(repo, "worktree", "list").count("/worktrees/") == 2
    capsys.readouterr()
    assert run_cli(repo, out, "--seed", "2") == 2
    err = capsys.readouterr().err
    assert "different seed" in err and "--out" in err
    # the file on disk is read only with --config-from worktree (by default base's committed file)
    (repo / ".ordertrap.toml").write_text(config(s=1, i=1) + "# changed\n")
    assert run_cli(repo, out, "--config-from", "worktree") == 2
    assert "config_hash" in capsys.readouterr().err
    with (out / ".lock").open("a") as held:  # a concurrent run on the same --out
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert run_cli(repo, out, "--seed", "1") == 2
        assert "another `ordertrap-gate run` is using" in capsys.readouterr().err
    (repo / ".ordertrap.toml").write_text(config(s=1, i=1))
    # the finished run again: nothing to do, and worktrees and scratch left behind are cleaned up
    assert any((out / "scratch").iterdir())
    assert run_cli(repo, out, "--seed", "1") == 0
    assert "already" in capsys.readouterr().err
    assert "/worktrees/" not in git(repo, "worktree", "list")
    assert not (out / "scratch").exists() and not (out / "worktrees").exists()  # not even empty folders


def test_one_version_run_and_calibration(tmp_path):
    repo = make_repo(tmp_path, config(names=("a", "b", "c", "d"), s=3, i=2, m=2))
    cal = tmp_path / "calibration.json"
    cal.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "metric": "cv",
                "threshold": 0.01,
                "levels": ["suite_run", "iteration", "measurement"],
                "discard_warmup": {"level": "measurement", "count": 0},
                "full": {"suite_run": 3, "iteration": 2, "measurement": 2},
                "benchmarks": {
                    "a": {"config": {"suite_run": 1, "iteration": 1, "measurement": 1}},
                    "b": {"config": {"suite_run": 1, "iteration": 2, "measurement": 1}},
                    "c": {"config": {"suite_run": 1, "iteration": 1, "measurement": 2}},
                },
            }
        )
    )
    out = tmp_path / "out"
    assert run_cli(repo, out, "--calibration", str(cal), "--seed", "3", base=None) == 0
    df, meta = load(out)
    assert meta["base"] is None and list(meta["versions"]) == ["HEAD"]
    assert set(df.version) == {"HEAD"}
    assert meta["benchmark_configs"]["d"]["source"] == "full"
    assert meta["benchmark_configs"]["a"] == {
        "suite_run": 1,
        "iteration": 1,
        "measurement": 1,
        "source": "calibration",
        "discard_warmup": 0,
        "warmup_level": "measurement",
        "never_stable": False,
    }
    assert meta["calibration"]["metric"] == "cv"
    # 1-2 values per version cannot make a verdict at 99 % (rank test): the run says so
    (small,) = [w for w in meta["warnings"] if w["code"] == "calibration_too_small"]
    assert (
        "3 benchmark(s) fewer than 5 values" in small["message"] and "a (1), b (2), c (2)" in small["message"]
    )
    assert set(df[df.benchmark == "a"].config) == {"calibration"} and set(df[df.benchmark == "d"].config) == {
        "full"
    }
    assert len(df[df.benchmark == "d"]) == 3 * 2 * 2 and len(df[df.benchmark == "c"]) == 2
    # the three one-run benchmarks are spread: every suite run mixes d with another benchmark
    per_run = df.groupby("suite_run").benchmark.nunique().tolist()
    assert per_run == [2, 2, 2]


def test_calibrated_warmup_positions_are_run_for_the_analysis_to_drop(tmp_path):
    # calibration.json counts positions after the warm-up (docs/contracts.md): with count = 1 at the
    # measurement level a calibrated trial must yield 1 + configured measurements.
    repo = make_repo(tmp_path, config(names=("a", "b"), s=1, i=2, m=2))
    cal = tmp_path / "calibration.json"
    cal.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "levels": ["suite_run", "iteration", "measurement"],
                "discard_warmup": {"level": "measurement", "count": 1},
                "full": {"suite_run": 1, "iteration": 2, "measurement": 2},
                "benchmarks": {"a": {"config": {"suite_run": 1, "iteration": 1, "measurement": 2}}},
            }
        )
    )
    out = tmp_path / "out"
    assert run_cli(repo, out, "--calibration", str(cal), "--seed", "3", base=None) == 0
    df, meta = load(out)
    assert meta["benchmark_configs"]["a"]["discard_warmup"] == 1
    assert meta["benchmark_configs"]["b"]["discard_warmup"] == 0
    assert sorted(df[df.benchmark == "a"].measurement) == [1, 2, 3]
    assert len(df[df.benchmark == "b"]) == 2 * 2


def test_order_check_mode(tmp_path):
    repo = make_repo(
        tmp_path, config(f"reset = 'echo r >> {tmp_path}/resets.log'\ncaches = ['{tmp_path}']", s=1, i=1)
    )
    out = tmp_path / "out"
    assert run_cli(repo, out, "--order-check", "--order-pairs", "2", "--seed", "5") == 0
    df, meta = load(out)
    assert meta["mode"] == "order-check"
    runs = df.groupby("suite_run").order_type.first().tolist()
    assert runs == ["fixed", "random", "fixed", "random"]
    fixed = [
        tuple(zip(g.benchmark, g.version, strict=True))
        for _, g in df[df.order_type == "fixed"].groupby("suite_run")
    ]
    assert len(set(fixed)) == 1 and len(fixed[0]) == 4
    assert (tmp_path / "resets.log").read_text().split() == ["r"] * 4


def test_prefix_and_python_are_per_version(tmp_path):
    check = 'test "$WT" = "$PWD" && test "$PY" = "$PWD/.venv/bin/python" && echo 1'
    text = (
        '[suite]\nadapter = "command"\nprefix = "env WT={worktree} PY={worktree}/.venv/bin/python"\n'
        f"[[benchmark]]\nname = 'p'\ncommand = '{check}'\n[full]\nsuite_runs = 1\niterations = 1\n"
    )
    repo = make_repo(tmp_path, text)
    out = tmp_path / "out"
    assert run_cli(repo, out) == 0
    df, _ = load(out)
    assert (df.status == "ok").all() and len(df) == 2


def test_build_failure_and_bad_revision_name_the_fix(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # the build output is fenced on GitHub
    repo = make_repo(tmp_path, config("build = 'echo ::error::pwned; exit 7'", s=1, i=1))
    out = tmp_path / "out"
    assert run_cli(repo, out) == 2
    captured = capsys.readouterr()
    assert "build of version 'HEAD~1' exited with status 7" in captured.err and "fix:" in captured.err
    assert "::stop-commands::" in captured.err  # build output fenced
    assert (out / "worktrees").is_dir()  # kept for debugging
    assert run_cli(repo, tmp_path / "o2", base="no-such-branch") == 2
    assert "fetch" in capsys.readouterr().err


def test_failing_reset_stops_and_all_failed_trials_keep_the_worktrees(tmp_path, capsys):
    repo = make_repo(tmp_path, config("reset = 'exit 3'", s=1, i=1))
    assert run_cli(repo, tmp_path / "o1") == 2
    err = capsys.readouterr().err
    assert "[suite].reset exited with status 3" in err and "fix:" in err
    (repo / "bench.py").write_text("raise SystemExit(1)\n")
    (repo / ".ordertrap.toml").write_text(config(s=1, i=1))
    git(repo, "commit", "-qam", "broken")
    out = tmp_path / "o2"
    assert run_cli(repo, out, base=None) == 2
    err = capsys.readouterr().err
    assert "all 2 trials failed" in err
    df, _ = load(out)
    assert (df.status == "error").all() and (df.value == "").all()
    assert (out / "worktrees" / "head-HEAD").is_dir()


def test_a_reason_repeated_by_every_failing_trial_is_printed_once_per_benchmark(tmp_path, capsys):
    # every planned trial runs (give_up_after = 0), so every one prints a progress line
    repo = make_repo(tmp_path, config("give_up_after = 0", s=2, i=2))
    (repo / "bench.py").write_text("import sys\nsys.exit('no module named ' + sys.argv[1])\n")
    git(repo, "commit", "-qam", "broken")
    assert run_cli(repo, tmp_path / "out", base=None) == 2
    err = capsys.readouterr().err
    failed = [line for line in err.splitlines() if line.startswith("[trial ")]
    assert len(failed) == 8 and all(": error" in line for line in failed)
    for name in ("a", "b"):
        assert err.count(f"no module named {name}") == 1  # the reason, once
        first = next(i for i, line in enumerate(failed, start=1) if f" {name}@HEAD" in line)
        assert sum(f"(the reason printed for trial {first})" in line for line in failed) == 3
    assert "all 8 trials failed" in err


def _default_sigint() -> None:
    # A test runner started as a background job (`cmd &` without job control, nohup) ignores
    # SIGINT, and the ignore is inherited: the gate would then rightly ignore Ctrl-C too, and the
    # signal tests would wait out the build. The gate under test gets a terminal's default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(repo: Path, out: Path) -> subprocess.Popen:
    cmd = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
           "--head", "HEAD", "--out", str(out), "--seed", "9", "--instance", "box"]  # fmt: skip
    return subprocess.Popen(
        cmd,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )


def _wait_rows(path: Path, rows: int, proc: subprocess.Popen) -> None:
    for _ in range(1200):
        if path.exists() and path.read_bytes().count(b"\n") >= rows + 1:
            return
        if proc.poll() is not None:
            pytest.fail(f"run ended early: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail("the run made no progress")


def _wait_for_pid(path: Path, proc: subprocess.Popen) -> int:
    """The pid (here, outside the sandbox) of the build or reset command that wrote its ``$$`` to
    ``path`` first, once it has started."""
    for _ in range(600):
        if path.exists() and path.read_text().strip():
            return _host_pid(int(path.read_text().split()[0]), proc.pid)
        if proc.poll() is not None:
            pytest.fail(f"run ended early: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail(f"nothing wrote {path}")


def _host_pid(inner: int, ancestor: int) -> int:
    """In the sandbox's PID namespace ``$$`` is that namespace's number: the process is the
    descendant of ``ancestor`` whose last NSpid entry (proc(5)) is ``inner``."""
    parent: dict[int, int] = {}
    candidates = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        parent[int(entry.name)] = int(fields["PPid"])
        if int(fields["NSpid"].split()[-1]) == inner:
            candidates.append(int(entry.name))
    for pid in candidates:
        up = parent.get(pid, 0)
        while up > 1 and up != ancestor:
            up = parent.get(up, 0)
        if up == ancestor:
            return pid
    pytest.fail(f"no descendant of {ancestor} is process {inner} of its namespace")


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited (within 5 s)."""
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _check_complete(out: Path) -> None:
    df, meta = load(out)
    expected = [(t["trial"], t["benchmark"], t["version"]) for t in meta["schedule"]]
    assert list(zip(df.trial, df.benchmark, df.version, strict=True)) == expected  # no loss, no duplicate
    assert (df.status == "ok").all()


@pytest.mark.slow
def test_sigkill_then_resume_loses_and_repeats_nothing(tmp_path):
    repo = make_repo(tmp_path, config(sleep=0.05, s=2, i=2))
    out = tmp_path / "out"
    for kill_after in (1, 4, 9):
        proc = _spawn(repo, out)
        _wait_rows(out / "trials.csv", kill_after, proc)
        proc.kill()
        proc.communicate()
    proc = _spawn(repo, out)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "resuming" in err
    _check_complete(out)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_build_kills_the_build_and_exits_130(tmp_path, sig):
    build = f"echo $$ > {tmp_path}/build.pid; exec sleep 60"
    repo = make_repo(tmp_path, config(f"build = '{build}'\ncaches = ['{tmp_path}']", s=1, i=1))
    out = tmp_path / "out"
    proc = _spawn(repo, out)
    build_pid = _wait_for_pid(tmp_path / "build.pid", proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    if not _gone(build_pid):  # the build's group was killed, not orphaned
        os.kill(build_pid, signal.SIGKILL)
        pytest.fail("the build survived the gate")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_reset_kills_it_at_once_and_the_run_resumes(tmp_path, sig):
    """The reset runs between trials, where "finish the current trial" has nothing to finish: a
    stop signal kills it at once (not after its timeout) and the run resumes."""
    reset = "echo $$ >> ../reset.pids; [ -f ../quick ] || exec sleep 60"
    repo = make_repo(tmp_path, config(f"reset = '{reset}'\ncaches = ['{tmp_path}']", s=1, i=1))
    out = tmp_path / "out"
    proc = _spawn(repo, out)
    reset_pid = _wait_for_pid(tmp_path / "reset.pids", proc)
    started = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.monotonic() - started < 30  # not the 60 s of the reset (not a timing test)
    assert _gone(reset_pid)
    (tmp_path / "quick").touch()
    proc = _spawn(repo, out)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "killed" not in err  # nothing was left to reap
    _check_complete(out)


@pytest.mark.slow
def test_ctrl_c_stops_after_the_current_trial_and_resumes(tmp_path):
    build = f"build = 'echo $PWD >> {tmp_path}/builds.log'\ncaches = ['{tmp_path}']"
    repo = make_repo(tmp_path, config(build, sleep=0.3, s=1, i=2))
    out = tmp_path / "out"
    proc = _spawn(repo, out)
    _wait_rows(out / "trials.csv", 1, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Run the same command again to resume" in err
    df, meta = load(out)
    assert 1 <= len(df) < len(meta["schedule"])  # the trial running at Ctrl-C completed, then it stopped
    before = df.trial.nunique()
    assert (df.status == "ok").all()
    assert (out / "worktrees").is_dir()
    assert len((tmp_path / "builds.log").read_text().split()) == 2
    # a checkout that a kill interrupted (no completion marker) is redone, and rebuilt
    (out / "worktrees" / "head-HEAD.checked-out").unlink()
    proc = _spawn(repo, out)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    total = len(meta["schedule"])
    assert (
        f"{total} trials done: {before} before the resume, {total - before} now (ok {total - before})" in err
    )
    _check_complete(out)
    builds = (tmp_path / "builds.log").read_text().split()
    assert len(builds) == 3 and builds[-1].endswith("head-HEAD")  # base was reused, not rebuilt


def test_a_token_persisted_in_git_config_is_refused(tmp_path, capsys):
    # actions/checkout's default persist-credentials writes it there; worktrees share the config.
    repo = make_repo(tmp_path, config(s=1, i=1))
    git(repo, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic c2VjcmV0")
    assert run_cli(repo, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "persist-credentials: false" in err and "c2VjcmV0" not in err
    assert not (tmp_path / "out" / "trials.csv").exists()


@pytest.mark.parametrize("condition", ["gitdir:{repo}/.git", "gitdir:{repo}/.git/worktrees/*", None])
def test_a_token_included_from_another_file_is_refused(tmp_path, capsys, condition):
    """actions/checkout v6 keeps the header in a file under RUNNER_TEMP and includes it with
    includeIf.gitdir for the repository and for its worktrees: `--local` alone misses it."""
    repo = make_repo(tmp_path, config(s=1, i=1))
    credentials = tmp_path / "runner_temp" / "git-credentials-1234.config"
    credentials.parent.mkdir()
    credentials.write_text('[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n')
    key = "include.path" if condition is None else f"includeIf.{condition.format(repo=repo)}.path"
    git(repo, "config", "--local", key, str(credentials))
    assert run_cli(repo, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "persist-credentials: false" in err and "c2VjcmV0" not in err
    assert str(credentials) in err and "--unset-all http.https://github.com/.extraheader" in err
    assert not (tmp_path / "out" / "trials.csv").exists()


@pytest.mark.parametrize("layout", ["no-url", "nested", "space-in-path", "relative", "cycle"])
def test_every_reachable_header_is_found(tmp_path, layout):
    """Every header git would send is found: a URL-less http.extraheader, an include inside an
    included file, a repository path with a space (keys contain it) and relative paths; include
    cycles end."""
    from gate.host.worktree import persisted_auth_headers

    root = tmp_path / ("with space" if layout == "space-in-path" else "plain")
    root.mkdir()
    repo = make_repo(root, config(s=1, i=1))
    header = "[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n"
    if layout == "no-url":
        git(repo, "config", "--local", "http.extraheader", "AUTHORIZATION: basic c2VjcmV0")
        expected = "http.extraheader"
    else:
        inner = root / "inner.config"
        inner.write_text(header)
        outer = root / "outer.config"
        outer.write_text(f"[include]\n\tpath = {inner}\n")
        target = {
            "nested": outer,
            "space-in-path": inner,
            "relative": Path("..") / ".." / "inner.config",
        }.get(layout, outer)
        if layout == "cycle":
            outer.write_text(f"[include]\n\tpath = {outer}\n\tpath = {inner}\n")
        git(repo, "config", "--local", f"includeIf.gitdir:{repo}/.git/worktrees/*.path", str(target))
        expected = "http.extraheader"
    found = persisted_auth_headers(repo)
    assert [key for key, _ in found] == [expected]
    assert "c2VjcmV0" not in repr(found)


def test_the_check_reads_per_worktree_config_and_names_what_it_cannot_read(tmp_path):
    """config.worktree (extensions.worktreeConfig) is read; a broken include, a directory that is
    no repository and a missing git are named, never passed silently or with a traceback."""
    repo = make_repo(tmp_path, config(s=1, i=1))
    git(repo, "config", "extensions.worktreeConfig", "true")
    git(repo, "config", "--worktree", "http.extraheader", "AUTHORIZATION: basic c2VjcmV0")
    assert main(["check-credentials", str(repo)]) == 3
    git(repo, "config", "--worktree", "--unset", "http.extraheader")
    assert main(["check-credentials", str(repo)]) == 0
    broken = tmp_path / "broken.config"
    broken.write_text("[bad\n")
    git(repo, "config", "--local", "include.path", str(broken))
    assert main(["check-credentials", str(repo)]) == 2
    assert main(["check-credentials", str(tmp_path / "nowhere")]) == 2
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "gate", "check-credentials", str(repo)],
        env={"PATH": "/nonexistent"}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "git is not installed" in proc.stderr


def test_an_include_without_a_header_does_not_stop_the_run(tmp_path):
    repo = make_repo(tmp_path, config(s=1, i=1))
    harmless = tmp_path / "harmless.config"
    harmless.write_text("[core]\n\tautocrlf = false\n")
    git(repo, "config", "--local", f"includeIf.gitdir:{repo}/.git.path", str(harmless))
    assert run_cli(repo, tmp_path / "out") == 0


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (  # calibrated on the µOpTime Go data's levels
            {
                "levels": ["suite_run", "iteration", "second"],
                "full": {"suite_run": 2, "iteration": 2, "second": 1},
                "benchmarks": {"a": {"config": {"suite_run": 1, "iteration": 1, "second": 1}}},
            },
            "has levels suite_run, iteration, second",
        ),
        (
            {"benchmarks": {"a": {"config": {"suite_run": 5, "iteration": 1, "measurement": 1}}}},
            "more than [full]",
        ),
    ],
)
def test_a_calibration_that_does_not_fit_the_suite_is_refused(tmp_path, capsys, change, needle):
    repo = make_repo(tmp_path, config(s=2, i=2))
    cal = {
        "schema_version": 1,
        "levels": ["suite_run", "iteration", "measurement"],
        "full": {"suite_run": 2, "iteration": 2, "measurement": 1},
        "benchmarks": {"a": {"config": {"suite_run": 1, "iteration": 1, "measurement": 1}}},
        **change,
    }
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    assert run_cli(repo, tmp_path / "out", "--calibration", str(path)) == 2
    err = capsys.readouterr().err
    assert needle in err and "recalibrate" in err


def test_a_moved_branch_cannot_resume_and_the_fix_says_what_works(tmp_path, capsys):
    repo = make_repo(tmp_path, config(s=1, i=1))
    out = tmp_path / "out"
    assert run_cli(repo, out) == 0
    (repo / "version.txt").write_text("3")
    git(repo, "commit", "-qam", "three")
    capsys.readouterr()
    assert run_cli(repo, out) == 2
    err = capsys.readouterr().err
    assert "now points to" in err and "new --out" in err and "git branch old-" in err


def test_on_github_a_benchmark_name_cannot_issue_a_workflow_command(tmp_path, capsys, monkeypatch):
    """The progress line and the failure report quote the name; only the gate's own commands
    (warnings, fences) reach the runner."""
    from tests.unit.test_inert_output import runner_commands

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    # Progress lines are throttled and the order is random, so which trials get a line varies;
    # the last trial and every failed trial always get one. One benchmark, failing at HEAD only,
    # so its name is shown whatever the order, in a progress line and in a failure report.
    repo = make_repo(tmp_path, config(names=("a",), s=1, i=1))
    (repo / "fail_at_head.py").write_text(
        "import sys\nv = open('version.txt').read().strip()\n"
        "print('::error::from-output', file=sys.stderr)\nprint('result:', v)\nsys.exit(v == '2')\n"
    )
    toml = (repo / ".ordertrap.toml").read_text()
    toml = toml.replace('name = "a"', 'name = "##[error title=spoof;]gate passed"')
    toml = toml.replace("bench.py a 0", "fail_at_head.py")
    (repo / ".ordertrap.toml").write_text(toml)
    git(repo, "add", "fail_at_head.py")
    git(repo, "commit", "-qam", "spoofing name")
    # head's file (base's has no such name); the warning that says so quotes the names too
    run_cli(repo, tmp_path / "out", "--config-from", "head")
    out, err = capsys.readouterr()
    assert "gate passed" in err and "from-output" in err  # the name and the output are shown...
    assert set(runner_commands(out + "\n" + err)) <= {"warning", "stop-commands"}  # ...but inert


def test_a_full_configuration_too_small_for_a_verdict_is_named(tmp_path):
    """With fewer than 5 values per version no change can ever be called (the verdict's rank
    test); the run says so and which [full] keys to raise."""
    repo = make_repo(tmp_path, config(names=("a",), s=3, i=1, m=1))
    assert run_cli(repo, tmp_path / "out") == 0
    _, meta = load(tmp_path / "out")
    (w,) = [w for w in meta["warnings"] if w["code"] == "full_too_small"]
    assert "3 values per version, fewer than 5" in w["message"] and "[full].iterations" in w["action"]
    (tmp_path / "repo2").mkdir()
    repo = make_repo(tmp_path / "repo2", config(names=("a",), s=1, i=5, m=1))
    assert run_cli(repo, tmp_path / "out2") == 0
    _, meta = load(tmp_path / "out2")
    assert not [w for w in meta["warnings"] if w["code"] == "full_too_small"]
