"""The driver against real subprocesses: faults are recorded and the run goes on; the log survives
a cut at any byte; secrets do not reach benchmarks; benchmark output cannot issue commands."""

from __future__ import annotations

import csv
import io
import os
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gate.adapters.base import (
    BenchmarkSpec,
    ProcessRunner,
    TrialFailure,
    TrialRequest,
    VersionContext,
    check_finite,
    raise_for_process,
)
from gate.engine.driver import run_schedule
from gate.engine.process import SubprocessRunner, is_secret, scrub_env
from gate.engine.schedule import LevelConfig, followup_schedule, rmit_schedule
from gate.errors import InputError
from gate.files.trial_log import TrialLog
from gate.model import TRIAL_COLUMNS

PY = sys.executable


class ScriptAdapter:
    """Runs ``spec.options["code"]`` with ``python -c`` once per measurement; last stdout line is the value."""

    name = "script"

    def discover(self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]):
        return []

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        code = request.benchmark.options["code"]
        if code == "adapter-bug":
            raise KeyError("boom")
        values = []
        for _ in range(request.measurements):
            result = run([PY, "-c", code], cwd=request.version.workdir, timeout=request.timeout)
            raise_for_process(result, request.benchmark.name)
            try:
                values.append(float(result.stdout.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                raise TrialFailure("invalid", f"{request.benchmark.name}: no number in output") from None
        if code.startswith("print(1)#short"):
            return values[:-1]
        return check_finite(values, request.benchmark.name)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _setup(tmp_path: Path, codes: dict[str, str], versions=("base", "head"), s=1, i=1, m=1):
    ctx = {v: VersionContext(name=v, workdir=tmp_path, scratch=tmp_path) for v in versions}
    specs = {v: {n: BenchmarkSpec(n, options={"code": c}) for n, c in codes.items()} for v in versions}
    schedule = rmit_schedule(
        1, sorted(codes), list(versions), {n: LevelConfig(s, i, m) for n in codes}, "box"
    )
    return ctx, specs, schedule


def test_faults_are_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # failure output is fenced on GitHub
    codes = {
        "ok": "print(0.5)",
        "crash": "import sys; print('Traceback: bad'); sys.exit(3)",
        "hang": "import time; time.sleep(60)",
        "garbage": "print('hello world')",
        "nan": "print(float('nan'))",
        "short": "print(1)#short",
        "bug": "adapter-bug",
    }
    ctx, specs, schedule = _setup(tmp_path, codes, m=2)
    del specs["head"]["ok"]  # a benchmark missing in one version
    log = TrialLog(tmp_path / "trials.csv")
    log.recover(schedule)
    err = io.StringIO()
    result = run_schedule(
        schedule,
        adapter=ScriptAdapter(),
        runner=SubprocessRunner(),
        versions=ctx,
        benchmarks=specs,
        adapter_options={},
        timeout=1.0,
        log=log,
        progress=err,
    )
    assert result.ran == len(schedule) == 14 and not result.interrupted
    rows = _read(tmp_path / "trials.csv")
    assert list(rows[0]) == list(TRIAL_COLUMNS)
    by = {(r["benchmark"], r["version"]): r for r in rows}
    ok_rows = [r for r in rows if r["benchmark"] == "ok"]
    assert [(r["version"], r["measurement"], r["value"], r["status"]) for r in ok_rows] == [
        ("base", "1", "0.5", "ok"),
        ("base", "2", "0.5", "ok"),
        ("head", "1", "", "skipped"),
    ]
    assert by[("crash", "base")]["status"] == "error" and "status 3" in by[("crash", "base")]["reason"]
    assert by[("hang", "head")]["status"] == "timeout"
    assert by[("garbage", "base")]["status"] == "invalid"
    assert by[("nan", "base")]["status"] == "invalid" and "non-finite" in by[("nan", "base")]["reason"]
    assert by[("short", "base")]["status"] == "invalid" and "expected 2" in by[("short", "base")]["reason"]
    assert by[("bug", "base")]["status"] == "error" and "KeyError" in by[("bug", "base")]["reason"]
    failed = [r for r in rows if r["status"] != "ok"]
    assert all(r["value"] == "" and r["measurement"] == "1" and r["reason"] for r in failed)
    assert float(by[("hang", "base")]["elapsed_s"]) < 30  # killed, not waited for (not a timing test)
    # progress lines name trial i/N and the benchmark, failures are fenced
    text = err.getvalue()
    assert re.search(r"\[trial 1/14\] elapsed \d\d:\d\d ETA \d\d:\d\d ", text)
    assert "::stop-commands::" in text


def test_progress_of_a_follow_up_round_counts_its_own_trials(tmp_path):
    # a round's trial numbers continue the log's (here 97-100); its progress says 1/4 … 4/4
    ctx, specs, _ = _setup(tmp_path, {"a": "print(1)", "b": "print(2)"})
    configs = {n: LevelConfig(1, 1, 1) for n in ("a", "b")}
    schedule = followup_schedule(
        7, 1, {"a": 1, "b": 1}, ["base", "head"], configs, "box", first_trial=97, first_suite_run=3
    )
    assert [t.trial for t in schedule] == [97, 98, 99, 100]
    log = TrialLog(tmp_path / "trials.csv")
    log.recover(schedule)
    err = io.StringIO()
    run_schedule(
        schedule,
        adapter=ScriptAdapter(),
        runner=SubprocessRunner(),
        versions=ctx,
        benchmarks=specs,
        adapter_options={},
        timeout=10.0,
        log=log,
        progress=err,
        progress_interval=0.0,
    )
    assert re.findall(r"\[trial (\d+/\d+)\]", err.getvalue()) == ["1/4", "2/4", "3/4", "4/4"]
    logged = [r["trial"] for r in _read(tmp_path / "trials.csv")]
    assert logged == ["97", "98", "99", "100"]  # the log keeps the trial numbers


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time; "
        f"p = subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    result = SubprocessRunner()([PY, "-c", code], cwd=tmp_path, timeout=1.0)
    assert result.timed_out
    pid = int(pidfile.read_text())
    for _ in range(100):  # the kernel reaps the killed grandchild via init; wait for it to vanish
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        state = (
            Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
        )
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"grandchild {pid} survived the timeout")


def test_shell_string_cwd_and_missing_executable(tmp_path):
    runner = SubprocessRunner()
    result = runner("pwd; echo err >&2; exit 4", cwd=tmp_path, timeout=10)
    assert (
        result.stdout.strip() == str(tmp_path) and result.stderr.strip() == "err" and result.returncode == 4
    )
    assert result.elapsed_s > 0
    missing = runner(["/nonexistent/tool"], cwd=tmp_path, timeout=10)
    assert missing.returncode == 127 and "cannot start" in missing.stderr


def test_secrets_do_not_reach_benchmarks(tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "GITHUB_TOKEN": "ghs_x",
        "INPUT_GITHUB_TOKEN": "x",
        "ACTIONS_RUNTIME_TOKEN": "x",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "x",
        "NPM_TOKEN": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "DB_PASSWORD": "x",
        "SIGNING_KEY": "x",
        "my_api_key": "x",
        "GOPATH": "/go",
        "KEYBOARD_LAYOUT": "us",
    }
    runner = SubprocessRunner(base_env=env)
    out = runner([PY, "-c", "import os; print(sorted(os.environ))"], cwd=tmp_path, timeout=10).stdout
    seen = set(eval(out))  # a list literal printed by the child
    assert {"PATH", "GOPATH", "KEYBOARD_LAYOUT"} <= seen
    assert not seen & {k for k in env if k not in ("PATH", "GOPATH", "KEYBOARD_LAYOUT")}
    # an adapter's extra env is scrubbed too
    extra = runner(
        [PY, "-c", "import os; print(os.environ.get('X_TOKEN'))"],
        cwd=tmp_path,
        timeout=10,
        env={"X_TOKEN": "1"},
    )
    assert extra.stdout.strip() == "None"
    assert is_secret("github_token") and not is_secret("MONKEY") and not is_secret("PATH")
    for name in ("DB_PASS", "GH_PAT", "APIKEY", "SLACK_WEBHOOK_URL", "NPM_AUTH", "PGPASSWORD", "SENTRY_DSN",
                 "SSH_PRIVATE_KEY_FILE", "SESSION_COOKIE", "PASS_PHRASE", "MYSQL_PWD", "GPG_PASSPHRASE",
                 "AZURE_CREDS", "DATABASE_URL", "REDIS_URL", "SQL_CONNECTION_STRING", "KUBE_CONFIG",
                 "API_KEY_2", "LDAP_BIND_PW", "SSH_AUTH_SOCK", "GITHUB_ENV", "GITHUB_PATH",
                 "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):  # fmt: skip
        assert is_secret(name), name
    for name in ("GIT_AUTHOR_NAME", "PATH", "GOPATH", "PWD", "OLDPWD", "PASSAGE_DIR", "COMPATH", "AUTHORITY",
                 "GOPRIVATE", "TOKENIZERS_PARALLELISM", "JAVA_HOME", "CARGO_HOME", "PKG_CONFIG_PATH",
                 "PYTHONPATH", "LD_LIBRARY_PATH", "GITHUB_WORKSPACE", "RUNNER_TEMP"):  # fmt: skip
        assert not is_secret(name), name
    # [suite] pass_env lets a named variable through, never the tokens or the file commands
    env = {"DATABASE_URL": "postgres://u:p@localhost/db", "GITHUB_TOKEN": "t", "GITHUB_ENV": "/f", "X": "1"}
    assert scrub_env(env, ["DATABASE_URL", "GITHUB_TOKEN", "GITHUB_ENV"]) == {
        "DATABASE_URL": "postgres://u:p@localhost/db",
        "X": "1",
    }
    passing = SubprocessRunner(base_env=env, pass_env=["DATABASE_URL"])
    shown = passing([PY, "-c", "import os; print(sorted(os.environ))"], cwd=tmp_path, timeout=10).stdout
    assert {"DATABASE_URL", "X"} <= set(eval(shown)) and not {"GITHUB_TOKEN", "GITHUB_ENV"} & set(eval(shown))
    assert scrub_env({"A": "1", "B_SECRET": "2"}) == {"A": "1"}


def _full_log(tmp_path: Path, m: int = 2):
    ctx, specs, schedule = _setup(
        tmp_path, {"a": "print(1.25)", "b": "import sys; sys.exit(1)"}, s=1, i=2, m=m
    )
    log = TrialLog(tmp_path / "trials.csv", fsync=False)
    log.recover(schedule)
    run_schedule(
        schedule,
        adapter=ScriptAdapter(),
        runner=SubprocessRunner(),
        versions=ctx,
        benchmarks=specs,
        adapter_options={},
        timeout=10,
        log=log,
        progress=None,
    )
    return schedule, (tmp_path / "trials.csv").read_bytes()


def test_log_recovers_from_a_cut_at_every_byte(tmp_path, monkeypatch):
    """SIGKILL at any moment leaves a prefix of the log on disk (one fsynced append per trial):
    recovery must keep exactly the trials whose rows are all in the prefix and cut the rest."""
    schedule, data = _full_log(tmp_path)
    monkeypatch.setattr("gate.files.trial_log.os.fsync", lambda fd: None)  # durability is not under test here
    path = tmp_path / "cut.csv"
    lines = data.split(b"\n")
    # byte offset where each trial's last row ends
    ends: dict[int, int] = {}
    offset = 0
    for line in lines[:-1]:
        offset += len(line) + 1
        if offset > len(lines[0]) + 1:
            ends[int(line.split(b",")[0])] = offset
    for cut in range(len(data) + 1):
        path.write_bytes(data[:cut])
        finished = TrialLog(path).recover(schedule)
        expected = {t for t, end in ends.items() if end <= cut}
        assert finished == expected, cut
        kept = path.read_bytes()
        assert kept == data[: max([ends[t] for t in expected], default=len(lines[0]) + 1)], cut


def test_log_refuses_a_foreign_file(tmp_path):
    schedule, data = _full_log(tmp_path)
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,b,c\n1,2,3\n")
    with pytest.raises(InputError) as exc:
        TrialLog(path).recover(schedule)
    assert "--out" in exc.value.fix
    path.write_bytes(data.replace(b",a,base,", b",zzz,base,", 1))
    with pytest.raises(InputError, match="does not match the schedule"):
        TrialLog(path).recover(schedule)


def test_endless_output_is_bounded_and_the_trial_still_times_out(tmp_path):
    """`yes` with a timeout: the gate keeps the head and the latest output, not gigabytes."""
    from gate.engine.process import OUTPUT_HEAD, OUTPUT_LIMIT

    result = SubprocessRunner()(["yes", "1.5"], cwd=tmp_path, timeout=2.0)
    assert result.timed_out
    # the bounded capture, plus what was still in the pipe when the group was killed (<= 1 MiB)
    assert OUTPUT_HEAD < len(result.stdout) <= OUTPUT_LIMIT + (1 << 20)
    assert "bytes of output dropped here]" in result.stdout
    assert result.stdout.startswith("1.5\n1.5\n") and "1.5" in result.stdout[-8:]  # head and latest


def test_output_within_the_limit_is_kept_whole(tmp_path):
    code = "import sys; sys.stdout.write('x' * 3_000_000 + '\\n42\\n')"
    result = SubprocessRunner()([PY, "-c", code], cwd=tmp_path, timeout=30)
    assert result.stdout == "x" * 3_000_000 + "\n42\n"
