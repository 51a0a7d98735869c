"""Planning of follow-up rounds (gate/rounds/planner.py): each rule on hand-made looks, the
duration syntax, [adaptive] in .ordertrap.toml, and the RMIT schedule of a round."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from gate.config.project_config import parse_config
from gate.engine.schedule import LevelConfig, followup_schedule, rmit_schedule
from gate.errors import ConfigError
from gate.rounds.clock import WallClock
from gate.rounds.config import look_rule, parse_duration, per_look_confidence
from gate.rounds.planner import ROUGH_ESTIMATE_BELOW, Look, needs_s, plan_round, round_seed


def look(name, verdict="inconclusive", needed=40, now=15, vps=5, suite_run_s=10.0, reason="CI too wide"):
    return Look(name, verdict, reason, needed, now, vps, suite_run_s)


# ---- durations and settings ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("900", 900),
        ("900s", 900),
        ("15m", 900),
        ("1h30m", 5400),
        ("1h", 3600),
        ("0", 0),
        (120, 120),
        ("2m30s", 150),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["15 minutes", "m", "", "-5", "1d", True, "9999h", [1]])
def test_bad_durations_name_the_fix(text):
    with pytest.raises(ConfigError) as e:
        parse_duration(text, "--budget")
    assert "15m" in e.value.fix


def test_adaptive_table_and_its_typos():
    base = b'[suite]\nadapter = "go"\n'
    c = parse_config(base + b'[adaptive]\nbudget = "15m"\nmax_rounds = 2\n', Path("x.toml"))
    assert (c.adaptive.budget_s, c.adaptive.max_rounds, c.adaptive.on) == (900, 2, True)
    assert not parse_config(base, Path("x.toml")).adaptive.on
    with pytest.raises(ConfigError, match="budgett") as e:
        parse_config(base + b'[adaptive]\nbudgett = "15m"\n', Path("x.toml"))
    assert "did you mean `budget`" in e.value.fix
    with pytest.raises(ConfigError, match="did you mean"):
        parse_config(base + b'[adaptiv]\nbudget = "15m"\n', Path("x.toml"))
    with pytest.raises(ConfigError, match="max_rounds"):
        parse_config(base + b"[adaptive]\nmax_rounds = 0\n", Path("x.toml"))


def test_per_look_confidence_is_bonferroni_over_the_looks():
    assert per_look_confidence(0.99, 3) == pytest.approx(0.9975)
    assert look_rule(3).to_json() == {
        "name": "bonferroni-looks",
        "confidence": 0.99,
        "looks": 4,
        "confidence_per_look": 0.9975,
    }
    # the union bound: L looks at (1 - c)/L each keep the overall level
    for rounds in range(1, 10):
        assert (rounds + 1) * (1 - per_look_confidence(0.99, rounds)) == pytest.approx(0.01)


# ---- which benchmarks get a round --------------------------------------------------------------
def test_only_inconclusive_for_lack_of_data_are_followed():
    looks = [
        look("decided", verdict="unchanged", needed=None),
        look("failed", verdict="failed", needed=None),
        look("no_ci", needed=None, reason="no confidence interval could be computed"),
        look("short"),
    ]
    plan = plan_round(looks, time_left_s=1000, rounds_done=0, max_rounds=3)
    assert plan.stop is None and list(plan.benchmarks) == ["short"]
    assert plan.not_followed["no_ci"].reason == "not_lack_of_data"
    assert "decided" not in plan.not_followed and "failed" not in plan.not_followed


def test_sizing_targets_1_2_times_the_estimate_capped_at_4x_now():
    # needs 40, has 15: target ceil(48) → 33 more values at 5 per suite run → 7 suite runs
    plan = plan_round([look("a")], time_left_s=1000, rounds_done=0, max_rounds=3)
    f = plan.benchmarks["a"]
    assert (f.values_now, f.values_needed, f.suite_runs) == (15, 40, 7)
    assert plan.estimated_s == 70
    # needs 400, has 10: at most 4 × 10 = 40 values → 30 more → 6 suite runs
    plan = plan_round([look("b", needed=400, now=10)], time_left_s=10_000, rounds_done=0, max_rounds=3)
    assert plan.benchmarks["b"].suite_runs == 6
    # at least one suite run even when the estimate is already (almost) reached
    plan = plan_round([look("c", needed=15, now=15)], time_left_s=100, rounds_done=0, max_rounds=3)
    assert plan.benchmarks["c"].suite_runs == 1
    assert plan.suite_runs == 1


def test_hopeless_when_the_whole_time_left_would_not_do():
    # needs 4000 - 25 values, 5 per 10 s suite run: 7950 s > 1000 s left
    far_look = look("far", needed=4000, now=25)
    plan = plan_round([far_look, look("near")], time_left_s=1000, rounds_done=0, max_rounds=3)
    assert list(plan.benchmarks) == ["near"]
    far = plan.not_followed["far"]
    assert far.reason == "hopeless" and far.values_needed == 4000 and far.needs_s == math.ceil(3975 / 5) * 10
    only = plan_round([far_look], time_left_s=1000, rounds_done=0, max_rounds=3)
    assert only.stop == "no_candidates" and only.not_followed["far"].reason == "hopeless"


def test_an_estimate_from_few_values_gets_one_round_before_it_is_called_hopeless():
    """With 5 values per version a median's interval spans nearly the sample: the estimate says
    7950 s, but one round that quadruples the values (15 more, 3 suite runs, 30 s) fits, so it
    runs and the next look estimates from 20 values."""
    rough = look("rough", needed=4000, now=5)
    plan = plan_round([rough], time_left_s=1000, rounds_done=0, max_rounds=3)
    assert plan.stop is None and plan.benchmarks["rough"].suite_runs == 3  # 4 × 5 values, not 4000
    # the growth step itself does not fit: hopeless now
    plan = plan_round([rough], time_left_s=20, rounds_done=0, max_rounds=3)
    assert plan.stop == "no_candidates" and plan.not_followed["rough"].reason == "hopeless"
    # from ROUGH_ESTIMATE_BELOW values on, the estimate is trusted
    plan = plan_round([look("rough", needed=4000, now=ROUGH_ESTIMATE_BELOW)], time_left_s=1000,
                      rounds_done=0, max_rounds=3)  # fmt: skip
    assert plan.not_followed["rough"].reason == "hopeless"


def test_a_round_too_long_is_shrunk_proportionally_cheapest_kept_first():
    # a: 7 runs × 10 s, b: 7 runs × 20 s = 210 s; 105 s left → factor 0.5: a 3, b 3 = 90 s
    looks = [look("a"), look("b", suite_run_s=20.0)]
    plan = plan_round(looks, time_left_s=105, rounds_done=0, max_rounds=3)
    assert {n: f.suite_runs for n, f in plan.benchmarks.items()} == {"a": 3, "b": 3}
    assert plan.estimated_s == 90 <= 105
    # one suite run each (30 s) with 25 s left: both scale to 0; the spare time goes to the
    # cheaper one to resolve (a: 10 s)
    looks = [look("a", needed=16), look("b", needed=16, suite_run_s=20.0)]
    plan = plan_round(looks, time_left_s=25, rounds_done=0, max_rounds=3)
    assert list(plan.benchmarks) == ["a"] and plan.benchmarks["a"].suite_runs == 1
    assert plan.not_followed["b"].reason == "budget_spent"


def test_stop_reasons():
    assert (
        plan_round(
            [look("a", verdict="unchanged", needed=None)], time_left_s=9, rounds_done=0, max_rounds=3
        ).stop
        == "all_resolved"
    )
    assert plan_round([], time_left_s=9, rounds_done=0, max_rounds=3).stop == "all_resolved"
    spent = plan_round([look("a")], time_left_s=0, rounds_done=1, max_rounds=3)
    assert spent.stop == "budget_spent" and spent.not_followed["a"].reason == "budget_spent"
    done = plan_round([look("a")], time_left_s=1000, rounds_done=3, max_rounds=3)
    assert done.stop == "rounds_spent" and done.not_followed["a"].needs_s == needs_s(look("a"))
    # when the rounds are spent, a benchmark the time left could not resolve stays hopeless: one
    # more round would not resolve it (the report then suggests a budget, not --max-rounds)
    both = plan_round(
        [look("a"), look("far", needed=4000, now=25)], time_left_s=1000, rounds_done=3, max_rounds=3
    )
    assert both.stop == "rounds_spent" and not both.benchmarks
    assert {n: nf.reason for n, nf in both.not_followed.items()} == {"a": "rounds_spent", "far": "hopeless"}
    only_far = plan_round([look("far", needed=4000, now=25)], time_left_s=1000, rounds_done=3, max_rounds=3)
    assert only_far.stop == "no_candidates" and only_far.not_followed["far"].reason == "hopeless"
    # one suite run does not fit at all
    tight = plan_round([look("a", needed=16)], time_left_s=5, rounds_done=0, max_rounds=3)
    assert tight.stop in ("budget_spent", "no_candidates") and not tight.benchmarks


# ---- the clock -----------------------------------------------------------------------------------
def test_wall_clock_estimates_a_trial_from_the_log(tmp_path):
    log = tmp_path / "trials.csv"
    log.write_text("trial,benchmark,version,elapsed_s\n1,a,v,0.5\n1,a,v,0.5\n2,a,v,1.5\n")
    clock = WallClock(log, prior_s=10.0)
    assert clock.used_s() >= 10.0
    rows = pd.read_csv(log, dtype=str)
    # The clock keeps running between calls, so each figure is checked between the values taken
    # just before and just after it: exact bounds, whatever the machine's load.
    before = clock.overhead_s()
    trial = clock.trial_s("a", "v", rows)
    after = clock.overhead_s()
    # mean of the two trials (not of the three rows), plus the gate's overhead per trial
    assert 1.0 + before <= trial <= 1.0 + after
    used_before = clock.used_s()
    overhead = clock.overhead_s()
    used_after = clock.used_s()
    assert max(0.0, used_before - 2.0) / 2 <= overhead <= max(0.0, used_after - 2.0) / 2


# ---- the schedule of a round ---------------------------------------------------------------------
def test_round_schedule_is_rmit_and_continues_the_numbers():
    levels = {"a": LevelConfig(3, 2, 1), "b": LevelConfig(3, 1, 2)}
    planned = rmit_schedule(7, ["a", "b"], ["base", "head"], levels, "box")
    seed = round_seed(7, 1)
    assert seed == round_seed(7, 1) != round_seed(7, 2) != round_seed(8, 1)
    trials = followup_schedule(
        seed, 1, {"a": 3, "b": 1}, ["base", "head"], levels, "box",
        first_trial=len(planned) + 1, first_suite_run=4,
    )  # fmt: skip
    assert [t.trial for t in trials] == list(range(len(planned) + 1, len(planned) + 1 + len(trials)))
    assert {t.round for t in trials} == {1}
    runs = {}
    for t in trials:
        runs.setdefault(t.suite_run, []).append((t.benchmark, t.version))
    assert sorted(runs) == [4, 5, 6]
    # b is in the first of the round's suite runs only; every run holds base and head of its benchmarks
    assert sorted(runs[4]) == sorted(
        [("a", "base"), ("a", "base"), ("a", "head"), ("a", "head"), ("b", "base"), ("b", "head")]
    )
    assert (
        sorted(runs[5])
        == sorted(runs[6])
        == sorted([("a", "base"), ("a", "base"), ("a", "head"), ("a", "head")])
    )
    assert {t.measurements for t in trials if t.benchmark == "b"} == {2}
    # a fresh random order per suite run, a pure function of the round's seed
    again = followup_schedule(
        seed, 1, {"a": 3, "b": 1}, ["base", "head"], levels, "box", first_trial=19, first_suite_run=4
    )
    assert [t.as_meta() for t in again] == [t.as_meta() for t in trials]
    assert "round" not in trials[0].as_meta()


# ---- the floor of the test over trials ---------------------------------------------------------
def _few_trials(needed: int) -> Look:
    """1 suite run × 2 iterations × 5 measurements: 2 trials of 5 values per version, where a look
    at 99.75 % (3 rounds) needs 6 trials (gate.model.trial_floor)."""
    return Look("b", "inconclusive", "too few trials", needed, 10, 10, 10.0, 2, 5, 6)


def test_a_round_brings_a_benchmark_to_the_trials_a_look_can_decide_with() -> None:
    # the values estimate asks for 1 suite run (4 trials); the floor for 2 (6 trials)
    plan = plan_round([_few_trials(12)], time_left_s=1000.0, rounds_done=0, max_rounds=3)
    assert plan.benchmarks["b"].suite_runs == 2


def test_no_round_that_leaves_a_benchmark_below_the_floor_of_trials() -> None:
    # time for one suite run only: 2 + 2 = 4 trials could not decide, so the time is not spent
    plan = plan_round([_few_trials(20)], time_left_s=15.0, rounds_done=0, max_rounds=3)
    assert plan.benchmarks == {} and plan.not_followed["b"].reason in ("hopeless", "budget_spent")
    # one value per trial: no test over trials, one suite run is worth its look
    single = Look("b", "inconclusive", "CI too wide", 20, 10, 10, 10.0, 10, 1, 6)
    assert plan_round([single], time_left_s=15.0, rounds_done=0, max_rounds=3).benchmarks["b"].suite_runs == 1
