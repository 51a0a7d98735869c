"""The run action (gate/action/run_action.py, what run/action.yml runs after the install) in
process, in real git clones: which commits and files `run` gets, the artifact folder and the step
outputs, the checks before anything runs, and that no token reaches the benchmarks. `run` itself
is replaced by a recorder of its request and of the environment it would hand the benchmarks;
tests/integration/test_run_action_config_from_base.py runs the real step script with the real
gate, and test_action_isolation.py the whole action from a hostile checkout."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gate.action import run_action
from gate.commands.run import RunRequest
from tests.conftest import require_tool
from tests.integration.test_run_config_from_base import CAL, calibration, make_repo, toml

REPOSITORY = "acme/widgets"


def _git(cwd: Path, *args: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """main: A ← B; feature (checked out): A ← C."""
    require_tool("git")
    path = tmp_path / "repo"
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    shas = {}
    for name in ("A", "B"):
        (path / "f").write_text(name)
        _git(path, "add", "f")
        _git(path, "commit", "-q", "-m", name)
        shas[name] = _git(path, "rev-parse", "HEAD")
    _git(path, "checkout", "-q", "-b", "feature", shas["A"])
    (path / "g").write_text("C")
    _git(path, "add", "g")
    _git(path, "commit", "-q", "-m", "C")
    shas["C"] = _git(path, "rev-parse", "HEAD")
    return path, shas


@dataclass
class Outcome:
    status: int
    stdout: str
    outputs: dict[str, str]
    requests: list[RunRequest] = field(default_factory=list)
    environments: list[dict[str, str]] = field(default_factory=list)

    @property
    def request(self) -> RunRequest:
        (request,) = self.requests
        return request


def pr_event(path: Path, base: str, head: str) -> dict[str, str]:
    event = path.parent / "event.json"
    event.write_text(json.dumps({
        "action": "synchronize", "number": 5,
        "pull_request": {"number": 5, "head": {"sha": head, "ref": "feature", "repo": {"full_name": REPOSITORY}},
                         "base": {"sha": base, "ref": "main", "repo": {"full_name": REPOSITORY}}},
    }))  # fmt: skip
    return {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}


def act(monkeypatch, capsys, path: Path, env: dict[str, str], status: int = 0) -> Outcome:
    """run_action.main in ``path`` with only ``env`` as the Actions environment."""
    for key in list(os.environ):
        if key.startswith(("INPUT_", "GITHUB_", "ACTIONS_", "RUNNER_")):
            monkeypatch.delenv(key)
    output = path.parent / "github_output"
    output.write_text("")
    for key, value in {"GITHUB_OUTPUT": str(output), "GITHUB_REPOSITORY": REPOSITORY, "RUNNER_NAME": "r1",
                       "INPUT_CALIBRATION": "none", **env}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(path)
    outcome = Outcome(0, "", {})

    def record(request: RunRequest) -> int:
        outcome.requests.append(request)
        outcome.environments.append(dict(os.environ))
        return status

    outcome.status = run_action.main(run=record)
    outcome.stdout = capsys.readouterr().out
    outcome.outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return outcome


def test_a_pull_request_measures_the_merge_base_with_the_base_tip_s_settings(repo, monkeypatch, capsys):
    path, shas = repo
    out = act(monkeypatch, capsys, path, pr_event(path, shas["B"], shas["C"]))
    assert out.status == 0, out.stdout
    assert (out.request.base, out.request.head) == (shas["A"], shas["C"])
    assert (out.request.config_from, out.request.config_rev) == ("base", shas["B"])
    assert {k: out.outputs[k] for k in ("base", "head")} == {"base": shas["A"], "head": shas["C"]}
    assert f"ordertrap-gate: base {shas['A']}, head {shas['C']}" in out.stdout
    # the PR info for a workflow_run publisher, beside the runner's folder
    info = json.loads((path / "ordertrap-trials" / "ordertrap-pr.json").read_text())
    assert info["pr_number"] == 5 and info["head_sha"] == shas["C"]


def test_a_push_measures_the_commit_before_and_the_inputs_win(repo, monkeypatch, capsys):
    path, shas = repo
    event = path.parent / "push.json"
    event.write_text(json.dumps({"before": shas["A"]}))
    push = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": shas["B"]}
    out = act(monkeypatch, capsys, path, push)
    assert (out.request.base, out.request.head, out.request.config_from) == (shas["A"], shas["B"], "head")
    out = act(monkeypatch, capsys, path, {"GITHUB_EVENT_NAME": "schedule", "GITHUB_SHA": shas["B"]})
    assert (out.request.base, out.request.head) == (shas["A"], shas["B"])  # head~1 in the clone
    out = act(monkeypatch, capsys, path, {**push, "INPUT_BASE": "main", "INPUT_HEAD": "feature"})
    assert (out.request.base, out.request.head, out.request.config_rev) == ("main", "feature", None)
    assert not (path / "ordertrap-trials" / "ordertrap-pr.json").exists()  # not a pull request


def test_a_pull_request_without_its_base_in_the_clone_names_the_fix(repo, monkeypatch, capsys):
    path, shas = repo
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")  # no origin: the fetch fails at once
    out = act(monkeypatch, capsys, path, pr_event(path, "0" * 39 + "1", shas["C"]))
    assert out.status == 1 and out.requests == []
    assert "::error title=ordertrap-gate::no merge-base of " in out.stdout
    assert "fix: use actions/checkout with fetch-depth: 0" in out.stdout
    assert "artifact" not in out.outputs  # nothing to upload


def test_the_artifact_folder_is_named_per_runner_and_shard_and_emptied(repo, monkeypatch, capsys):
    path, shas = repo
    stale = path / "ordertrap-trials" / "old" / "trials.csv"
    stale.parent.mkdir(parents=True)
    stale.write_text("stale")
    env = {"GITHUB_SHA": shas["C"], "RUNNER_NAME": 'bench 1: fast/a"', "INPUT_SHARD": "2/4"}
    out = act(monkeypatch, capsys, path, env)
    name = "ordertrap-trials-shard-2-of-4-bench-1--fast-a-"
    assert out.outputs["artifact"] == name and out.outputs["out"] == "ordertrap-trials"
    assert out.outputs["dir"] == f"ordertrap-trials/{name}"
    assert not stale.exists() and (path / out.outputs["dir"]).is_dir()
    assert Path(out.request.out) == Path("ordertrap-trials", name)  # relative to the workspace
    assert (out.request.shard, out.request.instance) == ("2/4", 'bench 1: fast/a"')


def test_out_may_not_name_the_workspace(repo, monkeypatch, capsys):
    path, shas = repo
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"], "INPUT_OUT": "."})
    assert out.status == 1 and "the input out (.) is the workspace" in out.stdout
    assert (path / "f").exists() and out.requests == []


def test_no_token_reaches_the_benchmarks(repo, monkeypatch, capsys):
    path, shas = repo
    tokens = {name: "ghs_secret" for name in run_action.TOKEN_VARIABLES}
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"], **tokens, "INPUT_INSTANCE": "i9"})
    assert out.status == 0
    (inherited,) = out.environments
    assert "ghs_secret" not in json.dumps(inherited) and out.request.instance == "i9"


@pytest.mark.parametrize(
    ("budget", "max_rounds", "expected"),
    [("15m", "2", (900.0, 2)), ("1h30m", "", (5400.0, None)), ("900", "20", (900.0, 20)), ("0", "", (0.0, None)),
     ("", "", (None, None))],  # the last: the config's [adaptive] decides
)  # fmt: skip
def test_the_budget_inputs_reach_run(repo, monkeypatch, capsys, budget, max_rounds, expected):
    path, shas = repo
    env = {"GITHUB_SHA": shas["C"], "INPUT_BUDGET": budget, "INPUT_MAX_ROUNDS": max_rounds}
    out = act(monkeypatch, capsys, path, env)
    assert (out.request.budget, out.request.max_rounds) == expected


def test_the_order_check_run_has_no_follow_up_rounds(repo, monkeypatch, capsys):
    """The nightly order check measures fixed and random orders as planned: no budget reaches it."""
    path, shas = repo
    env = {
        "GITHUB_SHA": shas["C"],
        "INPUT_ORDER_CHECK": "True",
        "INPUT_BUDGET": "15m",
        "INPUT_MAX_ROUNDS": "2",
    }
    out = act(monkeypatch, capsys, path, env)
    assert out.request.order_check is True and (out.request.budget, out.request.max_rounds) == (None, None)


def test_the_seed_is_the_input_else_the_run_id(repo, monkeypatch, capsys):
    path, shas = repo
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"], "GITHUB_RUN_ID": "77", "INPUT_SEED": "-3"})
    assert out.request.seed == -3
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"], "GITHUB_RUN_ID": "77"})
    assert out.request.seed == 77


@pytest.mark.parametrize(
    ("name", "value"), [("ORDER_CHECK", "yes"), ("SEED", "abc"), ("BUDGET", "15x"), ("MAX_ROUNDS", "21"),
                        ("SHARD", "2of4"), ("SANDBOX", "none")]
)  # fmt: skip
def test_a_bad_input_stops_the_action_before_anything_runs(repo, monkeypatch, capsys, name, value):
    path, shas = repo
    (path / "ordertrap-trials").mkdir()
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"], f"INPUT_{name}": value})
    assert out.status == 1 and out.requests == []
    assert f"::error title=ordertrap-gate::the input {name.lower()} is not" in out.stdout
    assert "fix: " in out.stdout and value not in out.stdout
    # nothing happened: no outputs (so no upload of an empty folder), the old folder left alone
    assert out.outputs == {} and (path / "ordertrap-trials").is_dir()


@pytest.mark.parametrize(
    ("worktrees", "url"), [(False, ' "https://github.com/"'), (True, ' "https://x/"'), (True, "")]
)
def test_a_token_included_the_way_checkout_v6_stores_it_is_refused(
    repo, tmp_path, monkeypatch, capsys, worktrees, url
):
    path, shas = repo
    credentials = tmp_path / "runner_temp" / "git-credentials-1.config"
    credentials.parent.mkdir()
    credentials.write_text(f"[http{url}]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n")
    condition = f"gitdir:{path}/.git/worktrees/*" if worktrees else f"gitdir:{path}/.git"
    _git(path, "config", "--local", f"includeIf.{condition}.path", str(credentials))
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"]})
    assert out.status == 1 and out.requests == []
    assert "persist-credentials: false" in out.stdout and "c2VjcmV0" not in out.stdout


def test_a_token_persisted_by_actions_checkout_is_refused(repo, monkeypatch, capsys):
    path, shas = repo
    # what actions/checkout writes with its default persist-credentials: true
    _git(path, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic c2VjcmV0")
    out = act(monkeypatch, capsys, path, {"GITHUB_SHA": shas["C"]})
    assert out.status == 1 and out.requests == []
    assert "::error title=ordertrap-gate::the checkout stored the job token" in out.stdout


def test_a_failed_run_keeps_its_status_and_still_stores_the_pr_info(repo, monkeypatch, capsys):
    path, shas = repo
    out = act(monkeypatch, capsys, path, pr_event(path, shas["B"], shas["C"]), status=130)
    assert out.status == 130 and out.outputs["artifact"] == "ordertrap-trials-r1"
    assert (path / "ordertrap-trials" / "ordertrap-pr.json").is_file()


# ---- the calibration follows the commits, not the checkout -------------------------------------


def pr_repo(
    tmp_path: Path, base: dict[str, str | None], head: dict[str, str | None]
) -> tuple[Path, dict[str, str]]:
    path = make_repo(tmp_path, base, head)
    shas = {rev: _git(path, "rev-parse", rev) for rev in ("HEAD~1", "HEAD")}
    return path, pr_event(path, shas["HEAD~1"], shas["HEAD"])


@pytest.mark.parametrize(
    ("base", "head", "stray", "expected"),
    [
        # head deletes base's calibration: the checkout has none, base's still applies
        ({CAL: calibration()}, {CAL: None}, False, CAL),
        # only head adds one: passed, so that run reports it (and runs the full configuration)
        ({}, {CAL: calibration()}, False, CAL),
        # an uncommitted file in the checkout is no calibration of either revision
        ({}, {}, True, None),
    ],
    ids=["head-deletes", "head-adds", "uncommitted"],
)
def test_the_calibration_follows_the_commits_not_the_checkout(
    tmp_path, monkeypatch, capsys, base, head, stray, expected
):
    path, event = pr_repo(tmp_path, {".ordertrap.toml": toml(), **base}, head)
    if stray:
        (path / CAL).parent.mkdir(exist_ok=True)
        (path / CAL).write_text(calibration(hot=(1, 1, 1)))
    out = act(monkeypatch, capsys, path, {**event, "INPUT_CALIBRATION": ""})
    assert out.request.calibration == expected and out.request.config_from == "base"
    assert ("(from the base revision)" in out.stdout) is bool(expected)


@pytest.mark.parametrize("event", ["schedule", "push", "workflow_dispatch"])
def test_merged_or_pushed_code_is_measured_with_its_own_files(tmp_path, monkeypatch, capsys, event):
    """The nightly run (base = the previous commit) must not lag behind a configuration change;
    and a calibration that head deleted is not passed then."""
    path = make_repo(tmp_path, {".ordertrap.toml": toml(), CAL: calibration()}, {CAL: None})
    env = {"GITHUB_EVENT_NAME": event, "GITHUB_SHA": _git(path, "rev-parse", "HEAD"), "INPUT_CALIBRATION": ""}
    out = act(monkeypatch, capsys, path, env)
    assert out.request.config_from == "head" and out.request.calibration is None


def test_calibration_none_still_runs_the_full_configuration(tmp_path, monkeypatch, capsys):
    path, event = pr_repo(tmp_path, {".ordertrap.toml": toml(), CAL: calibration()}, {})
    out = act(monkeypatch, capsys, path, {**event, "INPUT_CALIBRATION": "none"})
    assert out.request.calibration is None
    assert "ordertrap-gate: calibration: none, running the full configuration" in out.stdout


def test_a_fork_pull_request_is_refused_before_anything_is_resolved(repo, monkeypatch, capsys):
    """The second layer behind the guard job: a fork's PR without the maintainer's label."""
    path, shas = repo
    env = pr_event(path, shas["B"], shas["C"])
    payload = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    payload["pull_request"]["head"]["repo"]["full_name"] = "mallory/widgets"
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps(payload))
    out = act(monkeypatch, capsys, path, env)
    assert out.status == 1 and out.requests == []
    assert "::error title=fork PR not benchmarked::PR from mallory/widgets" in out.stdout
    assert out.outputs["allowed"] == "false" and "artifact" not in out.outputs
