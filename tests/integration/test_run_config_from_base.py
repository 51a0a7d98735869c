"""`run` reads .ordertrap.toml and the calibration from the base revision: a pull request cannot
choose what its own gate measures. Real git repositories (base and head commits), the real `run`
and `analyze` CLI, real benchmark processes.

Each scenario is a change a pull request could make to pass its own gate; before the files came
from base, each one turned a +50 % regression of `hot` into `pass` or `inconclusive`."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from gate.cli import main
from tests.conftest import REPO_ROOT, require_tool
from tests.integration.test_run_cli import PY, _check_complete, _default_sigint, _wait_rows, git, load

# Prints the number in <name>.txt: hot is 100 in base and 150 in head, cold 100 in both.
VALUE = """\
import sys, time
from pathlib import Path
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)
print(Path(sys.argv[1] + ".txt").read_text().strip())
"""
CAL = ".ordertrap/calibration.json"


def toml(extra_suite: str = "", sleep: float = 0) -> str:
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} value.py {n} {sleep}"\nunit = "ms"\n'
        for n in ("hot", "cold")
    )
    return f'[suite]\nadapter = "command"\ntimeout = 30\n{extra_suite}\n{benches}[full]\nsuite_runs = 1\niterations = 5\nmeasurements = 1\n'


def calibration(hot=(1, 5, 1), warmup=None) -> str:
    levels = ("suite_run", "iteration", "measurement")
    return json.dumps(
        {
            "schema_version": 1,
            "metric": "cv",
            "threshold": 0.01,
            "levels": list(levels),
            "discard_warmup": warmup or {"level": "measurement", "count": 0},
            "full": {"suite_run": 1, "iteration": 5, "measurement": 1},
            "benchmarks": {
                "hot": {"config": dict(zip(levels, hot, strict=True))},
                "cold": {"config": {"suite_run": 1, "iteration": 5, "measurement": 1}},
            },
        }
    )


def make_repo(tmp_path: Path, base: dict[str, str | None], head: dict[str, str | None]) -> Path:
    """Base commit with ``base`` files, head commit with ``head`` applied (None deletes) and hot
    regressed from 100 to 150; the checkout is left at head, as actions/checkout leaves a PR."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "value.py").write_text(VALUE)
    (repo / "hot.txt").write_text("100\n")
    (repo / "cold.txt").write_text("100\n")

    def apply(files: dict[str, str | None]) -> None:
        for name, text in files.items():
            path = repo / name
            if text is None:
                git(repo, "rm", "-q", name)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)

    apply(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "hot.txt").write_text("150\n")
    apply(head)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head: +50 % in hot, and a change to what the gate measures")
    return repo


def run(repo: Path, out: Path, *extra: str, config: str | None = None) -> int:
    argv = ["run", "--config", config or str(repo / ".ordertrap.toml"), "--base", "HEAD~1", "--head", "HEAD"]
    return main([*argv, "--out", str(out), "--seed", "7", "--instance", "box", *extra])


def analyze(out: Path) -> dict:
    target = out / "analysis.json"
    assert main(["analyze", str(out / "trials.csv"), "--json", str(target), "--resamples", "500"]) == 0
    return json.loads(target.read_text())


def verdicts(doc: dict) -> dict[str, str]:
    return {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]}


def warnings_with(meta_or_doc: dict, code: str) -> list[dict]:
    return [w for w in meta_or_doc["warnings"] if w.get("code") == code]


def committed_sha256(repo: Path, rev: str, path: str) -> str:
    blob = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"], capture_output=True, check=True)
    return hashlib.sha256(blob.stdout).hexdigest()


def test_head_excluding_its_regressed_benchmark_is_measured_with_base_config(tmp_path, capsys):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml()}, {".ordertrap.toml": toml('exclude = ["^hot$"]')})
    out = tmp_path / "out"
    assert run(repo, out) == 0
    df, meta = load(out)
    assert df.groupby("version").benchmark.apply(lambda s: sorted(set(s))).to_dict() == {
        "HEAD": ["cold", "hot"],
        "HEAD~1": ["cold", "hot"],
    }
    assert "config .ordertrap.toml from base HEAD~1" in capsys.readouterr().err
    # meta.json: which revision the file came from, its hash, and what head changes
    source = meta["sources"]["config"]
    assert source["from"] == "base" and source["path"] == ".ordertrap.toml" and source["revision"] == "HEAD~1"
    assert source["sha"] == git(repo, "rev-parse", "HEAD~1")
    assert source["sha256"] == committed_sha256(repo, "HEAD~1", ".ordertrap.toml")
    assert meta["config_hash"] == "sha256:" + source["sha256"]
    assert any("excludes 1 benchmark(s)" in c and "hot" in c for c in source["changed_in_head"])
    (w,) = warnings_with(meta, "head_config_change")
    assert "excludes 1 benchmark(s) that base's file runs: hot" in w["message"]
    assert "once this pull request is merged" in w["action"]
    # the regression is found, and the warning reaches the analysis (comment, summary, report)
    doc = analyze(out)
    assert verdicts(doc)["hot"] == "regression" and doc["summary"]["decision"] == "fail"
    assert warnings_with(doc, "head_config_change")


@pytest.mark.parametrize(
    ("head_calibration", "needle"),
    [
        (calibration(hot=(1, 1, 1)), "calibrated levels of 1 benchmark(s): hot 1×5×1 → 1×1×1"),
        (calibration(warmup={"level": "iteration", "count": -3}), "discard_warmup"),
    ],
    ids=["one-value-calibration", "negative-discard-warmup"],
)
def test_head_changing_the_calibration_is_measured_with_base_calibration(
    tmp_path, monkeypatch, head_calibration, needle
):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml(), CAL: calibration()}, {CAL: head_calibration})
    # as the action runs it: from the checkout, with paths relative to the repository root
    monkeypatch.chdir(repo)
    out = tmp_path / "out"
    assert main(["run", "--base", "HEAD~1", "--head", "HEAD", "--out", str(out), "--seed", "7",
                 "--calibration", CAL]) == 0  # fmt: skip
    df, meta = load(out)
    assert meta["benchmark_configs"]["hot"]["iteration"] == 5
    assert meta["benchmark_configs"]["hot"]["discard_warmup"] == 0
    assert df[df.benchmark == "hot"].groupby("version").size().to_dict() == {"HEAD": 5, "HEAD~1": 5}
    cal = meta["sources"]["calibration"]
    assert cal["from"] == "base" and cal["sha"] == git(repo, "rev-parse", "HEAD~1")
    assert cal["sha256"] == committed_sha256(repo, "HEAD~1", CAL) == meta["calibration"]["sha256"]
    (w,) = warnings_with(meta, "head_calibration_change")
    assert needle in w["message"] and "nightly recalibration" in w["action"]
    assert verdicts(analyze(out))["hot"] == "regression"


def test_config_from_head_uses_head_files_and_says_so(tmp_path):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml()}, {".ordertrap.toml": toml('exclude = ["^hot$"]')})
    out = tmp_path / "out"
    assert run(repo, out, "--config-from", "head") == 0
    df, meta = load(out)
    assert set(df.benchmark) == {"cold"}
    assert meta["sources"]["config"]["from"] == "head"
    assert meta["sources"]["config"]["sha"] == git(repo, "rev-parse", "HEAD")
    (w,) = warnings_with(meta, "config_chosen_by_head")
    assert "--config-from head" in w["message"] and "hot" in w["message"]


def test_two_releases_measured_with_files_on_disk_get_one_note_not_an_alarm(tmp_path):
    # README: to compare two revisions that predate the file, leave it uncommitted and pass
    # --config-from worktree; the config and the calibration on disk get one note together
    repo = make_repo(tmp_path, {"README": "r\n"}, {})
    (repo / ".ordertrap.toml").write_text(toml())
    (repo / ".ordertrap").mkdir()
    (repo / CAL).write_text(calibration())
    out = tmp_path / "out"
    assert run(repo, out, "--config-from", "worktree", "--calibration", str(repo / CAL)) == 0
    _, meta = load(out)
    assert not warnings_with(meta, "config_chosen_by_head")  # not "the measured code chose"
    (w,) = warnings_with(meta, "config_from_worktree")
    assert ".ordertrap.toml: adds the file" in w["message"] and f"{CAL}: adds the file" in w["message"]
    assert w["action"].startswith("nothing when comparing releases")
    analyze(out)
    comment = subprocess.run(
        [PY, "-m", "gate", "report", str(out / "analysis.json"), "--format", "comment"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert comment.count("--config-from worktree") == 1
    assert "measured code chose" not in comment and "instead of base's" not in comment


def test_a_resumed_run_keeps_base_config(tmp_path):
    repo = make_repo(
        tmp_path,
        {".ordertrap.toml": toml(sleep=0.05)},
        {".ordertrap.toml": toml('exclude = ["^hot$"]', 0.05)},
    )
    out = tmp_path / "out"
    cmd = [PY, "-m", "gate", "run", "--config", str(repo / ".ordertrap.toml"), "--base", "HEAD~1",
           "--head", "HEAD", "--out", str(out), "--seed", "9", "--instance", "box"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)  # fmt: skip
    _wait_rows(out / "trials.csv", 2, proc)
    proc.kill()
    proc.communicate()
    # the checkout changes again between the kill and the resume: the run still reads base
    (repo / ".ordertrap.toml").write_text(toml('exclude = ["^(hot|cold)$"]\ntimeout = 1'))
    assert run(repo, out, "--seed", "9") == 0
    _check_complete(out)
    df, meta = load(out)
    assert set(df.benchmark) == {"hot", "cold"} and len(df) == 2 * 2 * 5
    assert meta["config_hash"] == "sha256:" + committed_sha256(repo, "HEAD~1", ".ordertrap.toml")


def test_a_repository_adopting_the_gate_runs_with_head_config_and_a_warning(tmp_path):
    repo = make_repo(tmp_path, {"README": "no gate yet\n"}, {".ordertrap.toml": toml()})
    out = tmp_path / "out"
    assert run(repo, out) == 0
    _, meta = load(out)
    assert meta["sources"]["config"]["from"] == "head"
    (w,) = warnings_with(meta, "config_chosen_by_head")
    assert "base HEAD~1 has no .ordertrap.toml" in w["message"]


def test_a_calibration_added_by_head_is_not_applied_before_it_is_merged(tmp_path):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml()}, {CAL: calibration(hot=(1, 1, 1))})
    out = tmp_path / "out"
    assert run(repo, out, "--calibration", str(repo / CAL)) == 0
    df, meta = load(out)
    assert meta["calibration"] is None and meta["benchmark_configs"]["hot"]["source"] == "full"
    assert len(df[df.benchmark == "hot"]) == 2 * 5
    assert (
        meta["sources"]["calibration"]["from"] == "base" and meta["sources"]["calibration"]["sha256"] is None
    )
    (w,) = warnings_with(meta, "head_calibration_change")
    assert "adds the file (2 benchmark(s) calibrated" in w["message"] and "; base has none)" in w["message"]


def test_a_config_outside_the_repository_is_the_operators_and_used_as_given(tmp_path, capsys):
    repo = make_repo(tmp_path, {".ordertrap.toml": toml()}, {})
    mine = tmp_path / "operator.toml"
    mine.write_text(toml('exclude = ["^cold$"]'))
    out = tmp_path / "out"
    assert run(repo, out, "--repo", str(repo), config=str(mine)) == 0
    assert "outside the repository" in capsys.readouterr().err
    df, meta = load(out)
    assert set(df.benchmark) == {"hot"}
    assert meta["sources"]["config"]["from"] == "outside" and meta["sources"]["config"]["sha"] is None


def test_head_turning_the_config_into_a_symlink_is_reported_not_followed(tmp_path):
    """A committed symbolic link would point at a file the pull request controls; neither the
    link in head nor the one checked out may pick another file or another repository."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evil.toml").write_text(toml('exclude = ["^hot$"]'))
    repo = make_repo(tmp_path, {".ordertrap.toml": toml()}, {".ordertrap.toml": None})
    (repo / ".ordertrap.toml").symlink_to(elsewhere / "evil.toml")
    git(repo, "add", ".ordertrap.toml")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    out = tmp_path / "out"
    assert run(repo, out) == 0
    df, meta = load(out)
    assert set(df.benchmark) == {"hot", "cold"} and meta["sources"]["config"]["from"] == "base"
    (w,) = warnings_with(meta, "head_config_change")
    assert "symbolic link" in w["message"]


def test_a_config_committed_nowhere_names_the_flag_for_local_experiments(tmp_path, capsys):
    repo = make_repo(tmp_path, {"README": "x\n"}, {})
    (repo / ".ordertrap.toml").write_text(toml())  # on disk only
    assert run(repo, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "is not committed neither" not in err
    assert "committed neither in base HEAD~1 nor in head HEAD" in err and "--config-from worktree" in err
    assert run(repo, tmp_path / "out2", "--config-from", "worktree") == 0


def test_head_changes_are_reported_before_a_build_with_base_settings_fails(tmp_path, capsys):
    """Base's [suite].build runs on head's code too; when head's code needs head's new build
    command, the run fails in the build, and the warning that names the change comes first."""
    repo = make_repo(
        tmp_path,
        {".ordertrap.toml": toml("build = 'sh build.sh'"), "build.sh": "true\n"},
        {".ordertrap.toml": toml("build = 'true'"), "build.sh": None},
    )
    assert run(repo, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "[suite].build changed" in err and "build of version 'HEAD' exited" in err
    assert err.index("[suite].build changed") < err.index("build of version 'HEAD' exited")
    assert "this build command is base's" in err
