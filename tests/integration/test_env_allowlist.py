"""What environment builds and benchmarks get (gate/engine/process.py): on a pull request's run
an allowlist (plus ``[suite] pass_env``); elsewhere every name the secret heuristic lets through,
which now also catches ``*_URI``, ``SSHPASS``, ``*_PEM``, ``*_B64`` and URLs with a password."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from gate.engine.process import SubprocessRunner, runs_pull_request_code, scrub_env
from tests.conftest import REPO_ROOT
from tests.integration.test_run_cli import make_repo

PY = sys.executable

LEAKY = {
    "MONGO_URI": "mongodb://db/x",
    "ARTIFACT_MIRROR": "https://deploy:hunter2@mirror.example.com/maven",
    "SSHPASS": "hunter2",
    "DEPLOY_PEM": "-----BEGIN PRIVATE KEY-----",
    "SIGNING_CERT_B64": "LS0tLS1CRUdJTg==",
}


def test_the_heuristic_drops_uris_userinfo_sshpass_pem_and_b64():
    kept = scrub_env({**LEAKY, "GOPATH": "/go", "HOMEPAGE": "https://example.com/x"})
    assert kept == {"GOPATH": "/go", "HOMEPAGE": "https://example.com/x"}


def test_the_allowlist_passes_what_toolchains_need_and_pass_env_only(tmp_path):
    env = {**LEAKY, "PATH": os.environ["PATH"], "HOME": str(tmp_path), "LC_ALL": "C.UTF-8", "GOPATH": "/go",
           "COMPANY_SETTING": "x", "NPM_TOKEN": "t", "GITHUB_TOKEN": "t"}  # fmt: skip
    runner = SubprocessRunner(base_env=env, pass_env=["COMPANY_SETTING", "GITHUB_TOKEN"], allowlist=True)
    out = runner(
        [PY, "-c", "import os, json; print(json.dumps(sorted(os.environ)))"], cwd=tmp_path, timeout=30
    )
    seen = set(json.loads(out.stdout)) - {"PWD", "SHLVL", "_"}  # set by a shell on its way
    assert seen == {"PATH", "HOME", "LC_ALL", "GOPATH", "COMPANY_SETTING"}


def test_a_pull_request_event_is_recognised():
    assert runs_pull_request_code({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"})
    assert runs_pull_request_code({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_run"})
    assert not runs_pull_request_code({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule"})
    assert not runs_pull_request_code({"GITHUB_EVENT_NAME": "pull_request"})  # not on GitHub


def test_run_on_a_pull_request_event_gives_benchmarks_the_allowlist_only(tmp_path):
    dump = tmp_path / "env"
    dump.mkdir()
    script = dump / "dump.py"  # dump is bound writable ([suite] caches): /tmp is private in the sandbox
    script.write_text(
        "import json, os, sys, uuid\n"
        f"open(os.path.join({str(dump)!r}, uuid.uuid4().hex + '.env'), 'w').write(json.dumps(dict(os.environ)))\n"
        "print(1)\n"
    )
    toml = (
        f'[suite]\nadapter = "command"\ntimeout = 60\ncaches = ["{dump}"]\n'
        f'[[benchmark]]\nname = "env"\ncommand = "{PY} {script}"\nunit = "x"\n'
        "[full]\nsuite_runs = 1\niterations = 1\nmeasurements = 1\n"
    )
    repo = make_repo(tmp_path, toml)
    seen: dict[str, set[str]] = {}
    for event in ("pull_request", "push"):
        for f in dump.glob("*.env"):
            f.unlink()
        env = {
            **os.environ,
            **LEAKY,
            "COMPANY_SETTING": "x",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event,
        }
        argv = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
                "--head", "HEAD", "--out", str(tmp_path / event), "--seed", "1"]  # fmt: skip
        done = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        names = [set(json.loads(f.read_text())) for f in dump.glob("*.env")]
        assert len(names) == 2
        seen[event] = names[0]
    assert not seen["pull_request"] & {*LEAKY, "COMPANY_SETTING"}
    assert "PATH" in seen["pull_request"] and "HOME" in seen["pull_request"]
    assert "COMPANY_SETTING" in seen["push"] and not seen["push"] & set(LEAKY)
