"""`run --budget`: follow-up rounds end to end on real processes (command adapter, temp git repo).

The suite: `quiet` (unchanged, tiny noise: decided at the planned look), `noisy` (unchanged, noise
from a seeded RNG so that the planned 6 values per version cannot decide but rounds can), `slow`
(a planted 20 % slowdown). Values are drawn from an RNG seeded by the benchmark, the version's
file and a per-worktree trial counter, so each run is reproducible and every trial differs.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from gate.cli import build_parser, main
from gate.commands import run as run_cmd
from gate.files import run_meta
from tests.integration.test_run_cli import git, make_repo

PY = sys.executable

NOISY_BENCH = """\
import random, sys, time
from pathlib import Path
name, sigma, sleep = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
counter = Path(f".count-{name}")
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
version = int(Path("version.txt").read_text().strip())
slowdown = 1.2 if name == "slow" and version == 2 else 1.0
rng = random.Random(f"{name}/{version}/{n}")
time.sleep(sleep)
print(100.0 * slowdown * (1 + rng.gauss(0, sigma)))
"""

SIGMAS = {"quiet": 0.001, "noisy": 0.02, "slow": 0.001}


def suite(tmp_path: Path, sigmas=SIGMAS, sleep: dict[str, float] | None = None, adaptive: str = "") -> Path:
    benches = "".join(
        f'[[benchmark]]\nname = "{n}"\ncommand = "{PY} nbench.py {n} {s} {(sleep or {}).get(n, 0)}"\nunit = "x"\n'
        for n, s in sigmas.items()
    )
    config = (
        f'[suite]\nadapter = "command"\ntimeout = 30\n{benches}'
        f"[full]\nsuite_runs = 2\niterations = 3\nmeasurements = 1\n{adaptive}"
    )
    repo = make_repo(tmp_path, config)
    (repo / "nbench.py").write_text(NOISY_BENCH)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bench")
    git(repo, "tag", "head")
    # the base commit gets the benchmark script too: version.txt is what differs
    git(repo, "checkout", "-q", "HEAD~2")
    (repo / "nbench.py").write_text(NOISY_BENCH)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bench on base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "head")
    return repo


def argv(repo: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run", "--config", str(repo / ".ordertrap.toml"), "--base", "base", "--head", "head",
        "--out", str(out), "--instance", "box", "--seed", "7", *extra,
    ]  # fmt: skip


def load(out: Path) -> tuple[pd.DataFrame, dict]:
    return pd.read_csv(out / "trials.csv", keep_default_na=False), json.loads((out / "meta.json").read_text())


def analyze(out: Path, *extra: str) -> dict:
    assert main(["analyze", str(out / "trials.csv"), "--json", str(out / "a.json"), *extra]) == 0
    return json.loads((out / "a.json").read_text())


def assert_meta_round_trips(out: Path) -> run_meta.AdaptiveRecord:
    """meta.json as ``run --budget`` wrote it reads strictly (as a resume does) into typed records,
    and writing those back gives the same bytes."""
    meta = run_meta.read(out / "meta.json")
    assert isinstance(meta.adaptive, run_meta.AdaptiveRecord)
    run_meta.write(out / "again.json", meta)
    assert (out / "again.json").read_bytes() == (out / "meta.json").read_bytes()
    return meta.adaptive


def verdicts(doc: dict) -> dict[str, str]:
    return {b["benchmark"]: b["verdict"] for b in doc["benchmarks"]}


@pytest.fixture
def looks(monkeypatch):
    """The verdicts of every look the run itself made (its in-process analyses)."""
    import gate.adaptive.loop as followup

    seen: list[dict[str, str]] = []
    real = followup.build_analysis

    def spy(*args, **kwargs):
        doc = real(*args, **kwargs)
        seen.append(verdicts(doc))
        return doc

    monkeypatch.setattr(followup, "build_analysis", spy)
    return seen


@pytest.mark.slow
def test_rounds_measure_only_the_unresolved_and_analyze_reproduces_the_verdicts(tmp_path, looks, capsys):
    repo = suite(tmp_path)
    out = tmp_path / "out"
    assert main(argv(repo, out, "--budget", "1h", "--max-rounds", "3")) == 0
    df, meta = load(out)
    planned = len(meta["schedule"])
    assert looks[0] == {"quiet": "unchanged", "noisy": "inconclusive", "slow": "regression"}
    assert looks[-1] == {"quiet": "unchanged", "noisy": "unchanged", "slow": "regression"}
    ad = meta["adaptive"]
    assert ad["budget_s"] == 3600 and ad["max_rounds"] == 3
    assert ad["rule"] == {
        "name": "bonferroni-looks",
        "confidence": 0.99,
        "looks": 4,
        "confidence_per_look": 0.9975,
    }
    assert 1 <= len(ad["rounds"]) == len(looks) - 1
    assert ad["final"]["stop_reason"] == "all_resolved" and ad["final"]["unresolved"] == {}
    assert ad["final"]["used_s"] >= ad["final"]["planned_s"] > 0
    record = assert_meta_round_trips(out)
    assert record.final is not None and record.final.stop_reason == "all_resolved"
    assert [r.benchmarks["noisy"].suite_runs for r in record.rounds] == [
        e["benchmarks"]["noisy"]["suite_runs"] for e in ad["rounds"]
    ]
    # the rounds held only the unresolved benchmark, base and head in every suite run
    followed = df.loc[df["round"] > 0]
    assert set(followed.benchmark) == {"noisy"} and set(followed.version) == {"base", "head"}
    assert set(df.loc[df["round"] == 0].trial) == set(range(1, planned + 1))
    for entry in ad["rounds"]:
        assert set(entry["benchmarks"]) == {"noisy"}
        info = entry["benchmarks"]["noisy"]
        assert info["values_needed"] > info["values_now"] and info["suite_runs"] >= 1 and info["why"]
        rows = df.loc[df["round"] == entry["round"]]
        assert sorted(set(rows.trial)) == [t["trial"] for t in entry["schedule"]]
        assert rows.suite_run.nunique() == info["suite_runs"]
    # trial and suite-run numbers continue; no trial twice
    assert df.trial.tolist() == sorted(df.trial.tolist()) and df.trial.is_unique
    assert df.trial.max() == planned + sum(len(e["schedule"]) for e in ad["rounds"])
    assert followed.suite_run.min() == df.loc[df["round"] == 0].suite_run.max() + 1
    # analyze reads the per-look confidence from meta.json and reproduces the last look
    doc = analyze(out)
    assert doc["settings"]["confidence"] == pytest.approx(0.9975)
    assert verdicts(doc) == looks[-1]
    err = capsys.readouterr().err
    # each check says in plain words what it does and why its intervals are wider than 99 %
    assert (
        "checking which benchmarks are decided after the planned runs "
        "(99.75 % intervals, so that the run as a whole keeps 99 %): "
    ) in err
    assert "look 0" not in err and "follow-up round 1: 1 benchmark(s)" in err
    assert "stopped: every benchmark resolved;" in err  # the report's words, not the stop code
    # an explicit --confidence wins
    assert analyze(out, "--confidence", "0.95")["settings"]["confidence"] == 0.95


def test_without_a_budget_nothing_changes_but_the_round_column(tmp_path, looks):
    repo = suite(tmp_path)
    out = tmp_path / "out"
    assert main(argv(repo, out)) == 0
    df, meta = load(out)
    assert meta["adaptive"] is None and meta["schema_version"] == 2
    assert set(df["round"]) == {0} and df.trial.max() == len(meta["schedule"])
    assert looks == []  # no in-process analysis
    assert analyze(out)["settings"]["confidence"] == 0.99


@pytest.mark.slow
def test_a_budget_added_to_a_finished_run_adds_rounds_and_keeps_its_trials(tmp_path, looks, capsys):
    repo = suite(tmp_path)
    out = tmp_path / "out"
    assert main(argv(repo, out)) == 0  # no budget: the planned trials only
    planned_rows = (out / "trials.csv").read_bytes()
    assert json.loads((out / "meta.json").read_text())["adaptive"] is None
    capsys.readouterr()
    assert main(argv(repo, out, "--budget", "1h", "--max-rounds", "3")) == 0
    assert "adding follow-up rounds" in capsys.readouterr().err
    df, meta = load(out)
    # the planned trials were not measured again: the log grew only by round rows
    assert (out / "trials.csv").read_bytes().startswith(planned_rows)
    assert set(df.loc[df["round"] == 0].trial) == set(range(1, len(meta["schedule"]) + 1))
    assert set(df.loc[df["round"] > 0].benchmark) == {"noisy"}
    ad = meta["adaptive"]
    assert ad["budget_s"] == 3600 and ad["rounds"] and ad["final"]["stop_reason"] == "all_resolved"
    assert looks[0]["noisy"] == "inconclusive" and looks[-1]["noisy"] == "unchanged"
    assert verdicts(analyze(out)) == looks[-1]
    # the same command again finds it complete; another budget is still refused
    assert main(argv(repo, out, "--budget", "1h", "--max-rounds", "3")) == 0
    assert "already in" in capsys.readouterr().err
    assert main(argv(repo, out, "--budget", "2h", "--max-rounds", "3")) != 0
    assert "resume with --budget 3600s" in capsys.readouterr().err


class SimClock:
    """Simulated time: every logged trial took ``cost`` seconds; the planner is told ``guess``."""

    def __init__(self, log: Path, cost: float = 1.0, guess: float = 1.0) -> None:
        self.log, self.cost, self.guess = log, cost, guess
        self.calls: list[float] = []

    def trials(self) -> int:
        with self.log.open(newline="") as fh:
            return len({row["trial"] for row in csv.DictReader(fh)})

    def used_s(self) -> float:
        used = self.trials() * self.cost
        self.calls.append(used)
        return used

    def trial_s(self, benchmark, version, rows) -> float:
        return self.guess


def run_with(clock_of, repo: Path, out: Path, *extra: str) -> tuple[int, object]:
    out.mkdir(parents=True, exist_ok=True)
    clock = clock_of(out / "trials.csv")
    args = build_parser(["run"]).parse_args(argv(repo, out, *extra))
    return run_cmd.run(args, clock), clock


@pytest.mark.slow
def test_a_round_is_shrunk_to_the_time_left_and_stops_at_the_budget(tmp_path, looks):
    repo = suite(tmp_path)
    # planned: 3 benchmarks × 2 versions × 2 suite runs × 3 iterations = 36 simulated seconds;
    # a budget of 43 s leaves 7 s: the planner is told a trial takes 0.25 s, but each takes 1 s
    out = tmp_path / "out"
    code, _ = run_with(lambda log: SimClock(log, cost=1.0, guess=0.25), repo, out, "--budget", "43")
    assert code == 0
    df, meta = load(out)
    ad = meta["adaptive"]
    assert len(ad["rounds"]) == 1
    entry = ad["rounds"][0]
    assert entry["time_left_s"] == 7 and entry["estimated_s"] <= 7  # shrunk to fit what was left
    assert entry["estimated_s"] == entry["benchmarks"]["noisy"]["suite_runs"] * 6 * 0.25
    ran = df.loc[df["round"] == 1].trial.nunique()
    assert 0 < ran < len(entry["schedule"])  # the round was cut when the budget was spent
    used = df.trial.nunique() * 1.0
    assert 43 <= used <= 43 + 1  # never more than one trial over
    assert ad["final"]["used_s"] == used
    # the cut round (7 of 24 trials) gave 3-4 more values per version; whatever is still
    # inconclusive now is so for the budget
    assert ad["final"]["stop_reason"] in ("budget_spent", "all_resolved")
    assert all(u["reason"] == "budget_spent" for u in ad["final"]["unresolved"].values())
    # a rerun finds the run complete: the trials the budget cut are not run later
    code, _ = run_with(lambda log: SimClock(log), repo, out, "--budget", "43")
    assert code == 0 and load(out)[0].trial.nunique() == df.trial.nunique()


def test_no_round_when_the_planned_trials_used_the_budget(tmp_path, looks, capsys):
    repo = suite(tmp_path)
    out = tmp_path / "out"
    code, _ = run_with(lambda log: SimClock(log), repo, out, "--budget", "30")
    assert code == 0
    df, meta = load(out)
    assert set(df["round"]) == {0} and df.trial.nunique() == len(meta["schedule"])  # planned all ran
    assert meta["adaptive"]["rounds"] == [] and meta["adaptive"]["final"]["stop_reason"] == "budget_spent"
    assert any(w["code"] == "planned_over_budget" for w in meta["warnings"])
    err = capsys.readouterr().err
    assert "planned trials alone took" in err and "stopped: the budget was spent;" in err
    # the per-look confidence depends on the budget settings: a resume must keep them
    code = main(argv(repo, out, "--budget", "30", "--max-rounds", "2"))
    assert code != 0 and "--budget 30s --max-rounds 3" in capsys.readouterr().err


@pytest.mark.slow
def test_max_rounds_is_respected(tmp_path, looks):
    # too noisy to resolve in one round: the rounds stop after --max-rounds 1, not at the budget
    repo = suite(tmp_path, sigmas={"quiet": 0.001, "noisy": 0.05})
    out = tmp_path / "out"
    code, _ = run_with(lambda log: SimClock(log), repo, out, "--budget", "100000", "--max-rounds", "1")
    assert code == 0
    meta = load(out)[1]
    ad = meta["adaptive"]
    assert len(ad["rounds"]) == 1 and ad["rule"]["looks"] == 2
    assert ad["final"]["stop_reason"] == "rounds_spent"
    assert ad["final"]["unresolved"]["noisy"]["reason"] == "rounds_spent"
    final = assert_meta_round_trips(out).final
    assert final is not None and final.unresolved["noisy"].values_needed is not None
    assert looks[-1]["noisy"] == "inconclusive" and len(looks) == 2


@pytest.mark.parametrize(
    "bad",
    [
        ("--budget", "15 minutes"),
        ("--budget", "15m", "--order-check"),
        ("--max-rounds", "0", "--budget", "1m"),
    ],
)
def test_bad_budget_options_are_errors_naming_the_fix(tmp_path, capsys, bad):
    repo = suite(tmp_path)
    try:
        code = main(argv(repo, tmp_path / "out", *bad))
    except SystemExit as exit_:  # argparse: a flag's value outside its domain (gate/files/settings.py)
        code = exit_.code
    assert code != 0
    err = capsys.readouterr().err
    assert "error" in err and ("15m" in err or "--budget 0" in err or "e.g. --max-rounds 3" in err)


def test_a_budget_needs_base(tmp_path, capsys):
    repo = suite(tmp_path)
    args = [a for a in argv(repo, tmp_path / "out", "--budget", "1m") if a not in ("--base", "base")]
    assert main(args) != 0
    assert "pass --base REF" in capsys.readouterr().err


# ---- SIGKILL and resume ------------------------------------------------------------------------
def gate_process(repo: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-m", "gate", *argv(repo, out, "--budget", "1h", *extra)],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


def wait_for(predicate, proc: subprocess.Popen, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else "exited"
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def round_rows(out: Path, number: int) -> int:
    log = out / "trials.csv"
    if not log.exists():
        return 0
    with log.open(newline="") as fh:
        return sum(1 for row in csv.DictReader(fh) if row.get("round") == str(number))


def check_resumed(out: Path) -> None:
    df, meta = load(out)
    ad = meta["adaptive"]
    schedule = meta["schedule"] + [t for e in ad["rounds"] for t in e["schedule"]]
    # every recorded trial ran exactly once, with the benchmark and version its schedule says
    assert df.trial.is_unique  # one measurement per trial
    assert sorted(df.trial) == [t["trial"] for t in schedule]
    by_trial = {t["trial"]: t for t in schedule}
    for row in df.itertuples():
        t = by_trial[row.trial]
        assert (row.benchmark, row.version, row.suite_run) == (t["benchmark"], t["version"], t["suite_run"])
    assert ad["final"] is not None and ad["final"]["stop_reason"] == "all_resolved"
    assert_meta_round_trips(out)
    assert verdicts(analyze(out)) == {"quiet": "unchanged", "noisy": "unchanged", "slow": "regression"}


@pytest.mark.slow
def test_sigkill_in_a_follow_up_round_resumes_without_loss_or_duplicates(tmp_path):
    repo = suite(tmp_path, sleep={"noisy": 0.05})
    out = tmp_path / "out"
    proc = gate_process(repo, out)
    try:
        wait_for(lambda: round_rows(out, 1) >= 2, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
    meta = load(out)[1]
    assert meta["adaptive"]["final"] is None and len(meta["adaptive"]["rounds"]) == 1
    assert 2 <= round_rows(out, 1) < len(meta["adaptive"]["rounds"][0]["schedule"])
    assert main(argv(repo, out, "--budget", "1h")) == 0
    check_resumed(out)


KILL_BETWEEN_ROUNDS = """\
import os, signal, sys, csv
from pathlib import Path
from gate.cli import build_parser
from gate.commands import run as run_cmd
from gate.files import run_meta
from gate.rounds.clock import WallClock

out = Path(sys.argv[1])
meta_path = out / "meta.json"

class KillAfterRoundOne(WallClock):
    def used_s(self):
        # first call after every trial of round 1 is logged: the look that plans round 2
        import json
        meta = json.loads(meta_path.read_text())
        rounds = (meta.get("adaptive") or {}).get("rounds") or []
        if rounds:
            wanted = {t["trial"] for t in rounds[0]["schedule"]}
            with (out / "trials.csv").open(newline="") as fh:
                have = {int(r["trial"]) for r in csv.DictReader(fh)}
            if wanted <= have:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().used_s()

args = build_parser(["run"]).parse_args(sys.argv[2:])
run_cmd.run(args, KillAfterRoundOne(out / "trials.csv"))
"""


@pytest.mark.slow
def test_sigkill_between_two_rounds_resumes_with_the_next_look(tmp_path, capsys):
    repo = suite(tmp_path, sigmas={"quiet": 0.001, "noisy": 0.03, "slow": 0.001})
    out = tmp_path / "out"
    script = tmp_path / "kill_between.py"
    script.write_text(KILL_BETWEEN_ROUNDS)
    proc = subprocess.run(
        [PY, str(script), str(out), *argv(repo, out, "--budget", "1h")],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    meta = load(out)[1]
    assert len(meta["adaptive"]["rounds"]) == 1 and meta["adaptive"]["final"] is None
    assert round_rows(out, 1) == len(meta["adaptive"]["rounds"][0]["schedule"])
    capsys.readouterr()
    assert main(argv(repo, out, "--budget", "1h")) == 0
    # the check after round 1 ran on resume
    assert "checking which benchmarks are decided after follow-up round 1 (" in capsys.readouterr().err
    check_resumed(out)


def test_the_config_sets_the_budget_and_the_command_line_overrides_it(tmp_path, looks):
    repo = suite(tmp_path, sigmas={"quiet": 0.001}, adaptive='[adaptive]\nbudget = "2h"\nmax_rounds = 2\n')
    code, _ = run_with(lambda log: SimClock(log), repo, tmp_path / "from-file")
    assert code == 0
    ad = load(tmp_path / "from-file")[1]["adaptive"]
    assert (ad["budget_s"], ad["max_rounds"], ad["rule"]["looks"]) == (7200, 2, 3)
    assert ad["final"]["stop_reason"] == "all_resolved"
    code, _ = run_with(lambda log: SimClock(log), repo, tmp_path / "off", "--budget", "0")
    assert code == 0 and load(tmp_path / "off")[1]["adaptive"] is None


@pytest.mark.slow
@pytest.mark.parametrize("where", ["schedule", "rounds"])
def test_a_resume_refuses_a_schedule_entry_it_cannot_rebuild(tmp_path, capsys, where):
    repo = suite(tmp_path)
    out = tmp_path / "out"
    assert main(argv(repo, out, "--budget", "1h", "--max-rounds", "1")) == 0
    meta = load(out)[1]
    entries = meta["schedule"] if where == "schedule" else meta["adaptive"]["rounds"][0]["schedule"]
    entries[0]["colour"] = "red"  # a key no trial has
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    capsys.readouterr()
    assert main(argv(repo, out, "--budget", "1h", "--max-rounds", "1")) != 0
    err = capsys.readouterr().err
    named = "schedule[0]" if where == "schedule" else "adaptive.rounds[0].schedule[0]"
    assert f"{named} (unknown 'colour'" in err and "pass a new --out" in err
    assert "Traceback" not in err and "TypeError" not in err


def test_run_says_the_rest_need_more_time_than_is_left_not_that_values_would_not_help(
    tmp_path, looks, capsys
):
    """The planner stops with "no_candidates" also when what the rest need is more than the time
    left; `run` said "more values would not resolve the rest" there (Masterminds/semver with
    `--budget 4m`), under a comment pricing the budget that would resolve them."""
    repo = suite(tmp_path, sigmas={"quiet": 0.001, "noisy": 0.3})
    out = tmp_path / "out"
    # planned: 2 benchmarks × 2 versions × 2 suite runs × 3 iterations = 24 simulated seconds
    code, _ = run_with(lambda log: SimClock(log), repo, out, "--budget", "30")
    assert code == 0
    final = load(out)[1]["adaptive"]["final"]
    assert final["stop_reason"] == "no_candidates"
    assert final["unresolved"]["noisy"]["reason"] == "hopeless"
    err = capsys.readouterr().err
    assert "follow-up rounds: 0 run, stopped: what the rest need (at least " in err
    assert "more than the 6 s left of the budget" in err
    assert "more values would not resolve" not in err
