"""On GitHub a pull request cannot loosen the confinement of its own code through a config file
(gate/config/trusted_keys.py): ``[suite] sandbox`` and ``pass_env`` of a configuration head
chose are ignored with a warning, and a file's ``sandbox = "off"`` (base's too) takes the run
action's input instead. Real git repositories, the real `run` CLI, real bubblewrap."""

from __future__ import annotations

import pytest

from gate.cli import main
from tests.conftest import require_tool
from tests.integration.test_run_cli import PY, load
from tests.integration.test_run_config_from_base import make_repo, warnings_with

# Prints 2 when the variable reached the benchmark, 1 when it did not.
PROBE = f"""{PY} -c 'import os; print(2 if "MY_DEPLOY_TOKEN" in os.environ else 1)'"""


def toml(suite: str) -> str:
    return (
        f'[suite]\nadapter = "command"\ntimeout = 60\n{suite}\n'
        f"[[benchmark]]\nname = \"probe\"\ncommand = '''{PROBE}'''\n"
        "[full]\nsuite_runs = 1\niterations = 3\nmeasurements = 1\n"
    )


HEAD_LOOSENS = toml('sandbox = "off"\npass_env = ["MY_DEPLOY_TOKEN"]')


@pytest.fixture
def github(monkeypatch):
    require_tool("bwrap")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("MY_DEPLOY_TOKEN", "s3cret")
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)


def _run(repo, out, *extra: str) -> int:
    argv = ["run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    return main([*argv, "--out", str(out), "--seed", "5", "--instance", "box", *extra])


def _values(out) -> set[float]:
    df, _ = load(out)
    return set(df["value"].astype(float))


@pytest.mark.parametrize(
    "base_files",
    [{"README": "no gate yet\n"}, {".ordertrap.toml": toml("")}],
    ids=["base-has-no-config", "base-config-without-the-keys"],
)
def test_head_config_cannot_switch_the_sandbox_off_or_pass_secrets_on_github(tmp_path, github, base_files):
    repo = make_repo(tmp_path, base_files, {".ordertrap.toml": HEAD_LOOSENS})
    out = tmp_path / "out"
    assert _run(repo, out) == 0
    _, meta = load(out)
    assert meta["sandbox"]["kind"] == "bwrap"
    assert _values(out) == {1.0}  # the secret did not reach the benchmark
    if ".ordertrap.toml" not in base_files:  # head's file was used (adopting PR): keys ignored
        (w,) = warnings_with(meta, "head_security_keys_ignored")
        assert "[suite] sandbox, [suite] pass_env" in w["message"] and "pull_request" in w["message"]
        assert "sandbox: off" in w["action"]


def test_on_a_push_event_head_config_keeps_its_pass_env(tmp_path, github, monkeypatch):
    """Events only people with write access start measure pushed code with its own files."""
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    repo = make_repo(tmp_path, {"README": "x\n"}, {".ordertrap.toml": toml('pass_env = ["MY_DEPLOY_TOKEN"]')})
    out = tmp_path / "out"
    assert _run(repo, out) == 0
    _, meta = load(out)
    assert _values(out) == {2.0}
    assert not warnings_with(meta, "head_security_keys_ignored")


def test_a_file_cannot_turn_the_sandbox_off_on_github_only_the_workflow_input_can(tmp_path, github):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml('sandbox = "off"')}, {})
    out = tmp_path / "out"
    assert _run(repo, out) == 0
    _, meta = load(out)
    assert meta["sandbox"]["kind"] == "bwrap"
    (w,) = warnings_with(meta, "sandbox_off_ignored")
    assert "`sandbox: off`" in w["action"]

    off = tmp_path / "off"
    assert _run(repo, off, "--sandbox", "off") == 0
    _, meta = load(off)
    assert meta["sandbox"]["kind"] == "none"
    assert not warnings_with(meta, "sandbox_off_ignored")


def test_off_github_the_file_is_obeyed(tmp_path, monkeypatch):
    require_tool("git")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    repo = make_repo(tmp_path, {".ordertrap.toml": toml('sandbox = "off"')}, {})
    out = tmp_path / "out"
    assert _run(repo, out) == 0
    _, meta = load(out)
    assert meta["sandbox"]["kind"] == "none"
